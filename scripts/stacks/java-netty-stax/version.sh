#!/usr/bin/env bash
# Prints what this stack runs on.
java_version=$(java -version 2>&1 | head -n 1 | sed 's/.*version "\(.*\)".*/\1/')
echo "Netty $(dpkg-query -W -f='${Version}' libnetty-java 2>/dev/null) + Woodstox $(dpkg-query -W -f='${Version}' libwoodstox-java 2>/dev/null) (StAX binding by hand), OpenJDK $java_version"
