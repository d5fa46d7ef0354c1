#!/usr/bin/env bash
# Prints what this stack would run on.
echo "$(mono --version 2>/dev/null | head -1 || echo 'Mono not installed'), xsp4 $(dpkg-query -W -f '${Version}' mono-xsp4 2>/dev/null || echo unknown)"
