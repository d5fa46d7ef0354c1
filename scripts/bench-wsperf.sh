#!/usr/bin/env bash
# Measures every binding and encoding in memory with wsperf (release build, pinned to one core)
# and records the results: the size table, decoding and encoding of every post file and
# response, and the chart of the documents that the performance targets name.
#
# Usage: scripts/bench-wsperf.sh [TIME_MS]
#   TIME_MS   wsperf's --time per row, default 1000
#   CPU       (environment) the core to pin wsperf to, default 1
#
# Appends to docs/results/wsperf.md (the command, date, commit, machine, and the tables) and
# writes docs/results/wsperf.svg (decode and encode time per document, log scale).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"
ensure_debian_packages taskset:util-linux

time_ms=${1:-1000}
cpu=${CPU:-1}
results="$here/../docs/results"
cargo build --release -q -p wsperf --manifest-path "$root/Cargo.toml"
wsperf=(taskset -c "$cpu" "$root/target/release/wsperf")

responses=$(mktemp -d)
trap 'rm -rf "$responses"' EXIT
"${wsperf[@]}" --generate "$responses" >/dev/null
# The documents the targets name, and the largest of the others, for the chart.
targets=("$root/post_files/echostruct100.xml" "$root/post_files/echolist100.xml"
    "$responses/getorder100-response.xml" "$root/post_files/echosynthetic1k.xml")

full=$(mktemp)
"${wsperf[@]}" -d -e --time "$time_ms" --format markdown -o "$full"
chart_table=$(mktemp)
"${wsperf[@]}" -d -e --time "$time_ms" --format markdown --chart "$results/wsperf.svg" \
    -o "$chart_table" "${targets[@]}"

cpu_model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC') on ${cpu_model:-$(uname -m)} ($(nproc) cores), --time $time_ms ms per row"
    echo
    echo "Command: \`scripts/bench-wsperf.sh $time_ms\` (wsperf pinned to core $cpu), at commit $(git -C "$root" rev-parse --short HEAD)"
    echo
    echo "### Bytes per document in each encoding"
    echo
    "${wsperf[@]}" --sizes --format markdown
    echo
    echo "### Every post file and response, decode and encode"
    echo
    cat "$full"
    echo
    echo "### The documents of the targets, in the run drawn in wsperf.svg"
    echo
    sed "s|$responses/||; s|$root/||" "$chart_table"
} >>"$results/wsperf.md"
rm -f "$full" "$chart_table"
echo "appended to $results/wsperf.md; wrote $results/wsperf.svg" >&2
