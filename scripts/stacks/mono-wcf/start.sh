#!/usr/bin/env bash
# Runs the WCF service in the foreground on 127.0.0.1:PORT (0 picks a free port; the listening
# line on stderr names it). Mono's --server mode with all optimisations, sgen in throughput
# mode (no concurrent marking), as mono-asmx. Run setup.sh first. `start.sh PORT --metadata`
# serves WCF's own ?wsdl too (scripts/wcf-wsdl.sh).
set -euo pipefail
cd "$(dirname "$0")"
export MONO_GC_PARAMS="${MONO_GC_PARAMS:-mode=throughput}"
exec mono --server -O=all build/WSTestWcf.exe "${1:-8082}" "${@:2}"
