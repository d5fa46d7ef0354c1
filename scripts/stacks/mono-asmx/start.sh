#!/usr/bin/env bash
# Runs our ASP.NET host in the foreground on 127.0.0.1:PORT (0 picks a free port; the listening
# line on stderr names it), serving build/site/TestService.asmx. Mono's server garbage
# collector (sgen) is the default; concurrent marking is off, which suits a throughput run.
# Run setup.sh first.
set -euo pipefail
cd "$(dirname "$0")"
export MONO_GC_PARAMS="${MONO_GC_PARAMS:-mode=throughput}"
exec mono --server -O=all build/site/bin/WSTestHost.exe "${1:-8082}" build/site
