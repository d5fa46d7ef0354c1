#!/usr/bin/env bash
# Checks that what `loadgen suite` reports for our server is what a direct loadgen run of the
# same cell measures: the same post file, concurrency and time, the server alone on core 0 and
# the client on core 1 in both. The two alternate ROUNDS times; the medians and every round's
# ratio are printed.
#
# Usage: scripts/suite-vs-direct.sh [TEST] [ROUNDS]
#   TEST    a test of the manifest, default EchoStruct-20
#   ROUNDS  default 5
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"
test_name=${1:-EchoStruct-20}
rounds=${2:-5}
manifest="$root/post_files/manifest.toml"
name=$(awk -v test="$test_name" '/^name = / { gsub(/"/, "", $3); file = $3 } /^test = / { gsub(/"/, "", $3); if ($3 == test) print file }' "$manifest")
[ -n "$name" ] || die "no test $test_name in $manifest"
action=$(manifest_action "$manifest" "$name")
expect=$(awk -v name="$name" '/^name = / { gsub(/"/, "", $3); current = $3 } /^expect_body = / && current == name { gsub(/"/, "", $3); print $3; exit }' "$manifest")
cargo build --release -q -p loadgen -p server --manifest-path "$root/Cargo.toml"
loadgen="$root/target/release/loadgen"
trap 'stop_server || true' EXIT

suites=() directs=() ratios=()
for _ in $(seq "$rounds"); do
    suite_rps=$("$loadgen" suite --tests "$test_name" --duration 3s --warmup 1s --repeat 1 \
        --server-cpus 0 --client-cpus 1 --format csv | awk -F, 'NR == 2 { print $6 }')
    start_server taskset -c 0 "$root/target/release/wstest-server" --addr 127.0.0.1:0 --threads 1
    # The suite's cell exactly: its body checks included (see loadgen/src/cell.rs).
    direct_rps=$(taskset -c 1 "$loadgen" -q -k -c 30 --duration 3s --warmup 1s \
        -T 'text/xml; charset=utf-8' -H "SOAPAction: \"$action\"" -p "$root/post_files/$name" \
        --expect-body="$expect" --reject-body='Fault>' \
        "http://$server_addr/WSTest" | awk '/^Requests per second:/ { print $4 }')
    stop_server
    suites+=("$suite_rps") directs+=("$direct_rps")
    ratios+=("$(awk -v s="$suite_rps" -v d="$direct_rps" 'BEGIN { printf "%.3f", s / d }')")
done
echo "$test_name, $rounds rounds, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$root" rev-parse --short HEAD)"
echo "suite median $(median "${suites[@]}") req/s, direct median $(median "${directs[@]}") req/s"
echo "suite / direct per round: ${ratios[*]}; median $(median "${ratios[@]}")"
