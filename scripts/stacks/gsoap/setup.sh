#!/usr/bin/env bash
# Installs gSOAP 2.8's code generators from Debian (gsoap: wsdl2h and soapcpp2), fetches the
# runtime's source (stdsoap2.c, from Debian's source package of the same version, checked by
# checksum), generates the C binding from the repository's WSDL into build/ (gSOAP's code
# carries its licence and is never committed), and builds the server: gcc -O3 -flto, the
# runtime compiled in with WITH_NOIDREF and without DOM or IPv6. README.md
# has each choice measured. Idempotent; quiet when already done.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=scripts/lib.sh
. ../../lib.sh
ensure_debian_packages wsdl2h:gsoap soapcpp2:gsoap gcc:gcc
[ -f /usr/include/openssl/ssl.h ] || ensure_debian_packages no-such-command:libssl-dev

version=2.8.124
case "$(dpkg-query -W -f='${Version}' gsoap)" in
    "$version"-*) ;;
    *) die "Debian's gsoap is $(dpkg-query -W -f='${Version}' gsoap); setup.sh knows the runtime source of $version only (soapcpp2's code and stdsoap2.c must be of one version)" ;;
esac
wsdl=../../../wstest/wstest.wsdl
mkdir -p build
tarball=build/gsoap_$version.orig.tar.gz
runtime=build/runtime
if [ ! -f "$runtime/stdsoap2.c" ]; then
    fetch_debian_source "$tarball" "pool/main/g/gsoap/gsoap_$version.orig.tar.gz" \
        1f6727ccf0e84a5dc7c86a554d0b0e2adb12f66b6e601b21d081de9041443800
    rm -rf "$runtime.tmp" && mkdir -p "$runtime.tmp"
    tar -xzf "$tarball" -C "$runtime.tmp" --strip-components=2 \
        "gsoap-$version/gsoap/stdsoap2.c" "gsoap-$version/gsoap/stdsoap2.h" \
        "gsoap-$version/gsoap/custom/struct_timeval.c" "gsoap-$version/gsoap/custom/struct_timeval.h"
    rm -f "$tarball"
    mv "$runtime.tmp" "$runtime"
fi

if [ ! -x build/wstest-gsoap ] || [ ! -x build/wstest-gsoap-tls ] || [ server.c -nt build/wstest-gsoap ] \
    || [ "$wsdl" -nt build/wstest-gsoap ] || [ typemap.dat -nt build/wstest-gsoap ] || [ setup.sh -nt build/wstest-gsoap ]; then
    (
        cd build
        # Their banners and notes go to build/generate.log, shown when a step fails.
        quiet() { "$@" >>generate.log 2>&1 || { cat generate.log >&2; die "$1 failed"; }; }
        : >generate.log
        # -c: C; -t: xsd:dateTime as struct timeval (milliseconds, as ours).
        quiet wsdl2h -c -t ../typemap.dat -o wstest.h "../$wsdl"
        # -S: server side only; -L: no sample client/server library; -x: no sample messages.
        quiet soapcpp2 -c -S -L -x -I/usr/share/gsoap/import -I/usr/share/gsoap wstest.h
        # WITH_NOIDREF: no id/ref (multi-reference) machinery, which document/literal never uses;
        # neither WITH_DOM nor WITH_IPV6 (Debian's library has both): the server binds 127.0.0.1
        # and reads no DOM. The whole program in one link-time optimisation.
        sources=(../server.c soapC.c soapServer.c runtime/stdsoap2.c runtime/custom/struct_timeval.c)
        flags=(-O3 -flto -DWITH_NOIDREF -Iruntime -I. -w)
        link=(-lpthread)
        quiet gcc "${flags[@]}" -o wstest-gsoap.tmp "${sources[@]}" "${link[@]}"
        # The same with OpenSSL, for suite --tls only.
        quiet gcc "${flags[@]}" -DWITH_OPENSSL -o wstest-gsoap-tls "${sources[@]}" -lssl -lcrypto "${link[@]}"
        mv wstest-gsoap.tmp wstest-gsoap
    )
fi
