#!/usr/bin/env bash
# Installs a JDK, Netty 4.1 and Woodstox from Debian when missing (default-jdk-headless,
# libnetty-java, libwoodstox-java), builds Netty's native epoll library into build/native
# (build_netty_epoll in scripts/lib.sh), and compiles the server into build/classes with javac.
# Idempotent; quiet when already done.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=scripts/lib.sh
. ../../lib.sh
ensure_debian_packages javac:default-jdk-headless
[ -f /usr/share/java/netty-codec-http.jar ] || ensure_debian_packages no-such-command:libnetty-java
[ -f /usr/share/java/woodstox-core.jar ] || ensure_debian_packages no-such-command:libwoodstox-java
build_netty_epoll build/native
if [ ! -f build/classes/WSTestServer.class ] || [ src/WSTestServer.java -nt build/classes/WSTestServer.class ]; then
    mkdir -p build/classes
    javac -nowarn -d build/classes -cp "$(cat classpath)" src/WSTestServer.java
fi
