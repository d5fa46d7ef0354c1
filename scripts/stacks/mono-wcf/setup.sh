#!/usr/bin/env bash
# Installs Mono, its C# compiler and WCF from Debian when missing (mono-mcs;
# libmono-system-servicemodel4.0a-cil for System.ServiceModel), and builds the service and its
# host (src/Service.cs) with optimisation into build/. Idempotent; quiet when already done.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=scripts/lib.sh
. ../../lib.sh
ensure_debian_packages mcs:mono-mcs
[ -f /usr/lib/mono/4.5/System.ServiceModel.dll ] \
    || ensure_debian_packages no-such-command:libmono-system-servicemodel4.0a-cil
exe=build/WSTestWcf.exe
if [ -f "$exe" ] && [ ! src/Service.cs -nt "$exe" ] && [ ! setup.sh -nt "$exe" ]; then
    exit 0
fi
mkdir -p build
mcs -nologo -optimize+ -warnaserror -r:System.ServiceModel.dll -r:System.Runtime.Serialization.dll \
    -r:System.Xml.dll -out:"$exe.tmp" src/Service.cs
mv "$exe.tmp" "$exe"
