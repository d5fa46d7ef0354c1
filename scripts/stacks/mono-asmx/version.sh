#!/usr/bin/env bash
# Prints what this stack runs on.
echo "ASP.NET ASMX (System.Web $(dpkg-query -W -f='${Version}' libmono-system-web4.0-cil 2>/dev/null)) on Mono $(mono --version | head -n 1 | sed 's/.*version \([^ ]*\).*/\1/'), our HttpListener host"
