#!/usr/bin/env bash
# Installs a JDK and the JAX-WS reference implementation from Debian when missing
# (default-jdk-headless; libjaxws-java, and jaxws for wsimport), generates the service
# interface and JAXB types from the repository's WSDL with wsimport into build/gen, and
# compiles them with src/WSTestService.java into build/classes. Idempotent; quiet when done.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=scripts/lib.sh
. ../../lib.sh
ensure_debian_packages javac:default-jdk-headless wsimport:jaxws
[ -f /usr/share/java/jaxws-rt.jar ] || ensure_debian_packages no-such-command:libjaxws-java
wsdl=../../../wstest/wstest.wsdl
if [ ! -f build/classes/WSTestService.class ] || [ src/WSTestService.java -nt build/classes/WSTestService.class ] \
    || [ "$wsdl" -nt build/classes/WSTestService.class ]; then
    rm -rf build/gen build/classes
    mkdir -p build/gen build/classes
    wsimport -quiet -keep -Xnocompile -d build/gen -p wstest.ws "$wsdl" >/dev/null
    # shellcheck disable=SC2046
    javac -nowarn -d build/classes -cp "$(cat classpath)" \
        $(find build/gen -name '*.java') src/WSTestService.java
fi
