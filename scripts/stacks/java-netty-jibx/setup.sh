#!/usr/bin/env bash
# Installs a JDK, Netty 4.1 with netty-tcnative and JiBX 1.2 from Debian when missing
# (default-jdk-headless, libnetty-java, libnetty-tcnative-java and -jni, libjibx1.2-java), and
# compiles the server with the Netty stacks' shared HTTP side (scripts/java/wstest/netty); it
# re-bootstraps JiBX's binding compiler, binds src/wstest's
# classes with binding.xml, and compiles the server, all into build/. Idempotent; quiet when
# already done.
#
# Why the re-bootstrap: Debian's jibx-bind jar is built without the classes JiBX generates for
# its own binding model (its build binds them with the previous JiBX, which Debian does not
# have), so its compiler stops at once with "Unable to access binding 'normal'"; and JiBX 1.2
# adds methods only to classes of class-file version 50 or older (it cannot write the stack map
# frames that 51 and later require), while Debian compiled it for 51. So this script sets the
# compiler's classes to version 50 (classfile50.py, which checks that is sound), binds them with
# JiBX's own binding definitions from the same Debian source package (the compiler's "-s" mode,
# which skips the validation that needs them), and then binds our classes, also set to 50, with
# the full, validating compiler.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=scripts/lib.sh
. ../../lib.sh
ensure_debian_packages javac:default-jdk-headless python3:python3 curl:curl
[ -f /usr/share/java/netty-codec-http.jar ] || ensure_debian_packages no-such-command:libnetty-java
[ -f /usr/share/java/netty-tcnative.jar ] \
    || ensure_debian_packages no-such-command:libnetty-tcnative-java no-such-command:libnetty-tcnative-jni
[ -f /usr/share/java/jibx-bind-1.2.6.jar ] || ensure_debian_packages no-such-command:libjibx1.2-java
build_netty_epoll build/native
link_netty_tcnative build/native

jibx_version=$(dpkg-query -W -f='${Version}' libjibx1.2-java)
[ "${jibx_version%%-*}" = 1.2.6 ] \
    || die "libjibx1.2-java is $jibx_version; this script knows the source of 1.2.6 (its checksum below)"
shared=../../java/wstest/netty/NettyServe.java
sources=(src/wstest/*.java "$shared" binding.xml classfile50.py setup.sh)
stamp=build/classes/wstest/WSTestServer.class
up_to_date=true
[ -f "$stamp" ] || up_to_date=false
for file in "${sources[@]}"; do
    [ "$file" -nt "$stamp" ] && up_to_date=false
done
"$up_to_date" && exit 0

run=/usr/share/java/jibx-run-1.2.6.jar
support=/usr/share/java/bcel.jar:/usr/share/java/xpp3.jar

# 1. The compiler, bound with JiBX's own definitions (build/jibx-bind: its classes, rewritten).
if [ ! -f build/jibx-bind/org/jibx/binding/model/JiBX_normalFactory.class ]; then
    tarball=libjibx1.2-java_1.2.6.orig.tar.xz
    checksum=e22924c558b040736e390fe41067b373ec2c54ceb0c303ef8cd352ef24cd1c3b
    rm -rf build/jibx-bind build/jibx-source
    mkdir -p build/jibx-bind build/jibx-source
    fetch_debian_source "build/$tarball" "pool/main/libj/libjibx1.2-java/$tarball" "$checksum"
    tar -xJf "build/$tarball" -C build/jibx-source --strip-components=3 \
        libjibx1.2-java-1.2.6/build/src/binding-normal.xml \
        libjibx1.2-java-1.2.6/build/src/binding-precomp.xml \
        libjibx1.2-java-1.2.6/build/src/binding-shared.xml
    (cd build/jibx-bind && jar xf /usr/share/java/jibx-bind-1.2.6.jar)
    find build/jibx-bind -name '*.class' -print0 | xargs -0 python3 classfile50.py
    java -cp "build/jibx-bind:$run:$support" org.jibx.binding.Compile -s \
        build/jibx-source/binding-normal.xml build/jibx-source/binding-precomp.xml >/dev/null
fi

# 2. Our classes, bound by that compiler (validating binding.xml first), then the server.
rm -rf build/classes
mkdir -p build/classes
javac -nowarn --release 8 -d build/classes -cp "$run" src/wstest/Model.java src/wstest/Formats.java
python3 classfile50.py build/classes/wstest/*.class
java -cp "build/jibx-bind:$run:$support:build/classes" org.jibx.binding.Compile binding.xml >/dev/null
javac -nowarn -d build/classes -cp "build/classes:$(cat classpath)" src/wstest/WSTestServer.java "$shared"
