#!/usr/bin/env bash
# Prints what this stack runs on.
echo "JAX-WS RI $(dpkg-query -W -f '${Version}' libjaxws-java 2>/dev/null || echo unknown) (Metro) on the JDK's HTTP server, $(java -version 2>&1 | head -1)"
