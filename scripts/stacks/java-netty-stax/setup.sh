#!/usr/bin/env bash
# Installs a JDK, Netty 4.1 with netty-tcnative (OpenSSL's TLS for Netty) and Woodstox from
# Debian when missing (default-jdk-headless, libnetty-java, libnetty-tcnative-java and -jni,
# libwoodstox-java), builds Netty's native epoll library into build/native (build_netty_epoll
# in scripts/lib.sh), and compiles the server with the Netty stacks' shared HTTP side
# (scripts/java/wstest/netty) into build/classes with javac. Idempotent; quiet when already done.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=scripts/lib.sh
. ../../lib.sh
ensure_debian_packages javac:default-jdk-headless
[ -f /usr/share/java/netty-codec-http.jar ] || ensure_debian_packages no-such-command:libnetty-java
[ -f /usr/share/java/netty-tcnative.jar ] \
    || ensure_debian_packages no-such-command:libnetty-tcnative-java no-such-command:libnetty-tcnative-jni
[ -f /usr/share/java/woodstox-core.jar ] || ensure_debian_packages no-such-command:libwoodstox-java
build_netty_epoll build/native
link_netty_tcnative build/native
shared=../../java/wstest/netty/NettyServe.java
if [ ! -f build/classes/WSTestServer.class ] || [ src/WSTestServer.java -nt build/classes/WSTestServer.class ] \
    || [ "$shared" -nt build/classes/WSTestServer.class ]; then
    rm -rf build/classes && mkdir -p build/classes
    javac -nowarn -d build/classes -cp "$(cat classpath)" src/WSTestServer.java "$shared"
fi
