#!/usr/bin/env bash
# The end-to-end cost of each XML binding: four wstest-servers, one per `--binding`, each on
# core 0 with one thread, measured by `loadgen suite --target` (loadgen on core 1) on every post
# file, the repeats interleaved across the four.
#
# Usage: scripts/bench-bindings.sh [DURATION] [REPEAT]
#   DURATION  per cell, default 3s (after a 1s warm-up)
#   REPEAT    interleaved repeats, default 3
#
# Appends the table (requests per second, median and min-max spread) with the command, date and
# commit to docs/results/bindings.md, and writes the suite's results.json, results.md and
# charts into docs/results/bindings/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"
ensure_debian_packages taskset:util-linux

duration=${1:-3s}
repeat=${2:-3}
cargo build --release -q -p loadgen-cli -p server --manifest-path "$root/Cargo.toml"

pids=()
logs=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -f "${logs[@]}"
}
trap cleanup EXIT

targets=()
for binding in streaming streaming-quick-xml serde-quick-xml serde-xml-rs; do
    start_server taskset -c 0 "$root/target/release/wstest-server" --addr 127.0.0.1:0 \
        --threads 1 --binding "$binding"
    pids+=("$server_pid")
    logs+=("$server_log")
    targets+=(--target "$binding=http://$server_addr/WSTest")
done

table=$(mktemp)
logs+=("$table")
"$root/target/release/loadgen" suite "${targets[@]}" --duration "$duration" --warmup 1s \
    --repeat "$repeat" --client-cpus 1 --format markdown --out "$here/../docs/results/bindings" >"$table"

{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores ($(uname -r)), $duration per cell, median of $repeat"
    echo
    echo "Command: \`scripts/bench-bindings.sh $duration $repeat\` (each server on core 0 with one thread, loadgen on core 1), at commit $(git -C "$root" rev-parse --short HEAD)"
    echo
    cat "$table"
} >>"$here/../docs/results/bindings.md"
echo "appended to $here/../docs/results/bindings.md" >&2
