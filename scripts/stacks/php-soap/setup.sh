#!/usr/bin/env bash
# Installs PHP 8.2's php-fpm and ext/soap, nginx and python3 (which binds the port for nginx)
# from Debian. Idempotent; quiet when already done. Nothing to build: opcache compiles
# server.php on its first request.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=scripts/lib.sh
. ../../lib.sh
ensure_debian_packages php-fpm8.2:php-fpm nginx:nginx python3:python3
# (grep reads all of php's output: -q would close the pipe early, and pipefail would fail.)
php -m 2>/dev/null | grep -x soap >/dev/null || ensure_debian_packages no-such-command:php-soap
php -m 2>/dev/null | grep -x soap >/dev/null || die "php-soap is installed but PHP does not load ext/soap"
mkdir -p build
