#!/usr/bin/env bash
# Prints what this stack runs on.
java_version=$(java -version 2>&1 | head -n 1 | sed 's/.*version "\(.*\)".*/\1/')
echo "Netty $(dpkg-query -W -f='${Version}' libnetty-java 2>/dev/null) + JiBX $(dpkg-query -W -f='${Version}' libjibx1.2-java 2>/dev/null) (XPP3 $(dpkg-query -W -f='${Version}' libxpp3-java 2>/dev/null)), OpenJDK $java_version"
