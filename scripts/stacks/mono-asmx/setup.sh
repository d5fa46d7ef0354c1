#!/usr/bin/env bash
# Installs Mono, its C# compiler and ASP.NET from Debian when missing (mono-mcs, mono-xsp4 for
# System.Web and System.Web.Services), and builds the site into build/site: TestService.asmx
# and web.config from site/, and in its bin/ the service (src/TestService.cs) and our host
# (src/Host.cs), both compiled with optimisation. Idempotent; quiet when already done.
#
# Why our own host: Debian 12's xsp4, Mono's ASP.NET server, does not start on its Mono 6.8
# (README.md has the command and the error).
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=scripts/lib.sh
. ../../lib.sh
ensure_debian_packages mcs:mono-mcs
# ASP.NET's machine configuration maps .asmx to System.Web.Extensions' handler factory, which
# mono-xsp4 brings; System.Web.Services alone (WCF's packages bring it, for mono-wcf) is not
# enough.
[ -f /usr/lib/mono/4.5/System.Web.Extensions.dll ] && [ -f /usr/lib/mono/4.5/System.Web.Services.dll ] \
    || ensure_debian_packages no-such-command:mono-xsp4
stamp=build/site/bin/WSTestHost.exe
up_to_date=true
[ -f "$stamp" ] || up_to_date=false
for file in src/*.cs site/* setup.sh; do
    [ "$file" -nt "$stamp" ] && up_to_date=false
done
"$up_to_date" && exit 0
rm -rf build/site
mkdir -p build/site/bin
cp site/* build/site/
mcs -nologo -optimize+ -warnaserror -target:library -r:System.Web.Services.dll -r:System.Web.dll \
    -r:System.Xml.dll -out:build/site/bin/TestService.dll src/TestService.cs
mcs -nologo -optimize+ -warnaserror -r:System.Web.dll -out:build/site/bin/WSTestHost.exe src/Host.cs
