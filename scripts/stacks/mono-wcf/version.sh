#!/usr/bin/env bash
# Prints what this stack runs on.
echo "WCF (System.ServiceModel $(dpkg-query -W -f='${Version}' libmono-system-servicemodel4.0a-cil 2>/dev/null)) on Mono $(mono --version | head -n 1 | sed 's/.*version \([^ ]*\).*/\1/'), ServiceHost + BasicHttpBinding"
