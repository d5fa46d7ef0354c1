#!/usr/bin/env bash
# Cases from a real WCF host's metadata, end to end: starts the mono-wcf stack (Mono's WCF,
# ServiceHost + BasicHttpBinding) with its ServiceMetadataBehavior on, has `loadgen suite cases`
# read its ?wsdl over HTTP (WCF's shape: ?wsdl imports ?wsdl=wsdl0, which imports ?xsd=xsd0..2,
# all by the host's absolute address), then runs every case it wrote against the same host with
# `loadgen suite`, whose check of each answer must pass. Fails (exit 1) when any case is missing
# or wrong. Mono's WCF answers about 10 requests a second (scripts/stacks/mono-wcf/README.md),
# so the run is at one connection. Installs Mono by the stack's setup.sh when missing.
#
# Usage: scripts/wcf-wsdl.sh [OUT_DIR]   (default: a temporary folder, removed at the end)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

bash scripts/stacks/mono-wcf/setup.sh
cargo build --release -q -p loadgen-cli
out=${1:-}
if [ -z "$out" ]; then
    out=$(mktemp -d)
    trap 'stop_server; rm -rf "$out"' EXIT
else
    trap 'stop_server' EXIT
fi
start_server bash scripts/stacks/mono-wcf/start.sh 0 --metadata
service="http://$server_addr/TestService.svc"
echo "WCF host: $service"
target/release/loadgen suite cases --wsdl "$service?wsdl" --out "$out/cases"
report=$(target/release/loadgen suite --manifest "$out/cases/manifest.toml" --target "wcf=$service" \
    --client loadgen --concurrency 1 --duration 2s --warmup 1s --repeat 1 2>&1)
echo "$report"
tests=$(sed -n 's/^test = "\(.*\)"$/\1/p' "$out/cases/manifest.toml")
[ -n "$tests" ] || die "no case written"
for test in $tests; do
    # A row of the table: the test, its concurrency, and a figure (not "wrong", not "-").
    echo "$report" | grep -Eq "^$test +1 +[1-9][0-9]* " || die "$test has no figure in the table"
done
echo "wcf-wsdl: every case from the WCF host's ?wsdl passed its check ($(echo "$tests" | wc -w) cases)"
