#!/usr/bin/env bash
# Prints what this stack runs on.
echo "gSOAP $(dpkg-query -W -f '${Version}' libgsoap-dev 2>/dev/null || echo unknown) (C), a thread per keep-alive connection, gcc -O2"
