#!/usr/bin/env bash
# Prints what this stack runs on.
echo "PHP $(php -r 'echo PHP_VERSION;') SoapServer (ext/soap, WSDL mode) on php-fpm (static pool) behind nginx $(nginx -v 2>&1 | sed 's|.*/||')"
