#!/usr/bin/env bash
# Installs gSOAP 2.8 from Debian (gsoap: wsdl2h and soapcpp2; libgsoap-dev: the runtime library),
# generates the C binding from the repository's WSDL into build/ (gSOAP's generated code carries
# its licence and is never committed), and builds the server with -O2. Idempotent; quiet when
# already done.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=scripts/lib.sh
. ../../lib.sh
ensure_debian_packages wsdl2h:gsoap soapcpp2:gsoap pkg-config:pkg-config gcc:gcc
[ -f /usr/include/openssl/ssl.h ] || ensure_debian_packages no-such-command:libssl-dev
[ -f /usr/include/zlib.h ] || ensure_debian_packages no-such-command:zlib1g-dev
[ -f /usr/include/stdsoap2.h ] || ensure_debian_packages no-such-command:libgsoap-dev
pkg-config --exists gsoap || die "libgsoap-dev is installed but pkg-config finds no gsoap"

wsdl=../../../wstest/wstest.wsdl
mkdir -p build
if [ ! -x build/wstest-gsoap ] || [ ! -x build/wstest-gsoap-tls ] || [ server.c -nt build/wstest-gsoap ] || [ "$wsdl" -nt build/wstest-gsoap ] \
    || [ typemap.dat -nt build/wstest-gsoap ]; then
    (
        cd build
        # Their banners and notes go to build/generate.log, shown when a step fails.
        quiet() { "$@" >>generate.log 2>&1 || { cat generate.log >&2; die "$1 failed"; }; }
        : >generate.log
        # -c: C; -t: xsd:dateTime as struct timeval (milliseconds, as ours).
        quiet wsdl2h -c -t ../typemap.dat -o wstest.h "../$wsdl"
        # -S: server side only; -L: no sample client/server library; -x: no sample messages.
        quiet soapcpp2 -c -S -L -x -I/usr/share/gsoap/import -I/usr/share/gsoap wstest.h
        # The plain library (pkg-config gsoap; the others add SSL or cookies), -O2 as gSOAP's
        # own builds.
        # shellcheck disable=SC2046
        gcc -O2 -o wstest-gsoap.tmp ../server.c soapC.c soapServer.c \
            /usr/share/gsoap/custom/struct_timeval.c -I. -I/usr/share/gsoap \
            $(pkg-config --cflags --libs gsoap) -lpthread
        # The same on gsoapssl (OpenSSL, and gSOAP's SSL, gzip and DOM code in its structures),
        # for suite --tls only, so that plain runs keep the plain library.
        # shellcheck disable=SC2046
        gcc -O2 -o wstest-gsoap-tls ../server.c soapC.c soapServer.c \
            /usr/share/gsoap/custom/struct_timeval.c -I. -I/usr/share/gsoap \
            $(pkg-config --cflags --libs gsoapssl) -lssl -lcrypto -lz -lpthread
        mv wstest-gsoap.tmp wstest-gsoap
    )
fi
