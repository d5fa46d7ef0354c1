#!/usr/bin/env bash
# Prints what this stack runs on.
echo "gSOAP $(dpkg-query -W -f '${Version}' gsoap 2>/dev/null || echo unknown) (C; its runtime from source, WITH_NOIDREF, gcc -O3 -flto), a thread per keep-alive connection"
