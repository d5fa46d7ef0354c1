#!/usr/bin/env bash
# Soak: wstest-server (release, one worker, core 0) under N requests (default 10,000,000) of
# every post file at once: eight loadgens (core 1), one a post file, 100 keep-alive connections
# in all. The server's RSS is sampled every second. The first 500,000 requests warm it up; from
# then on RSS must stay within 10% of its value at that point, and no request may fail. Then
# H requests (default 1,000,000) where every tenth is hostile: send_corpus sends the hostile
# tenth from the corpus (server/tests/hostile/) while the loadgens send the rest at nine times
# its pace; the valid ones must all succeed and every hostile one get the manifest's answer.
# Prints the RSS series and a verdict; exits 1 when a check fails.
#
# Usage: scripts/soak.sh [N [H]]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"
ensure_debian_packages make:make taskset:util-linux
cargo build --release -q -p server -p loadgen-cli --example send_corpus --manifest-path "$root/Cargo.toml"
n_total=${1:-10000000}
n_hostile_mix=${2:-1000000}
n_warmup=500000
manifest="$root/post_files/manifest.toml"
mapfile -t names < <(manifest_names "$manifest")
work=$(mktemp -d)
trap 'stop_server; kill "${sampler_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

start_server taskset -c 0 "$root/target/release/wstest-server" --addr 127.0.0.1:0 --threads 1
echo "soak of wstest-server at http://$server_addr/WSTest, $(date -u '+%Y-%m-%d %H:%M UTC')"

# RSS (kB) once a second, one line each: seconds since the start, RSS.
(
    started=$(date +%s)
    while kill -0 "$server_pid" 2>/dev/null; do
        rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$server_pid/status" 2>/dev/null || true)
        echo "$(($(date +%s) - started)) ${rss:-0}"
        sleep 1
    done
) >"$work/rss" &
sampler_pid=$!

# Runs one loadgen per post file, splitting N requests and 100 connections between them;
# extra loadgen options follow. Fails if any request failed.
load() {
    local phase=$1 n=$2
    shift 2
    local i=0 pids=() per=$((n / ${#names[@]}))
    for name in "${names[@]}"; do
        local c=$((100 / ${#names[@]} + (i < 100 % ${#names[@]} ? 1 : 0)))
        taskset -c 1 "$root/target/release/loadgen" -q -k -c "$c" -n "$per" "$@" \
            -T 'text/xml; charset=utf-8' -H "SOAPAction: \"$(manifest_action "$manifest" "$name")\"" \
            -p "$root/post_files/$name" "http://$server_addr/WSTest" >"$work/$phase-$name" 2>&1 &
        pids+=($!)
        i=$((i + 1))
    done
    local status=0
    for pid in "${pids[@]}"; do wait "$pid" || status=1; done
    local complete failed non_2xx
    complete=$(awk -F: '/^Complete requests/ { s += $2 } END { print s + 0 }' "$work/$phase-"*)
    failed=$(awk -F: '/^Failed requests/ { s += $2 } END { print s + 0 }' "$work/$phase-"*)
    non_2xx=$(awk -F: '/^Non-2xx responses/ { s += $2 } END { print s + 0 }' "$work/$phase-"*)
    echo "$phase: $complete requests, $failed failed, $non_2xx not 2xx"
    [ "$status" = 0 ] && [ "$failed" = 0 ] && [ "$non_2xx" = 0 ] && [ "$complete" = $((per * ${#names[@]})) ]
}

verdict=0
load warmup "$n_warmup" || verdict=1
baseline=$(awk '/^VmRSS:/ { print $2 }' "/proc/$server_pid/status")
mark=$(wc -l <"$work/rss")
load soak $((n_total - n_warmup)) || verdict=1
end_mark=$(wc -l <"$work/rss")
echo
echo "RSS (kB) every second; the warm-up ended at ${baseline} kB (second $mark):"
awk '{ printf "%s%s", $2, (NR % 15 ? " " : "\n") } END { print "" }' "$work/rss"
read -r low high < <(sed -n "$((mark + 1)),${end_mark}p" "$work/rss" | awk 'NR == 1 { lo = $2; hi = $2 } { if ($2 < lo) lo = $2; if ($2 > hi) hi = $2 } END { print lo + 0, hi + 0 }')
limit=$((baseline + baseline / 10))
echo "after the warm-up: RSS from $low to $high kB; the limit is $limit kB (the warm-up's end + 10%)"
[ "$high" -le "$limit" ] || { echo "RSS grew past the limit" >&2; verdict=1; }

echo
# The hostile tenth: measure send_corpus's pace, then run the valid nine tenths at nine times it.
probe_started=$(date +%s%N)
"$root/target/release/examples/send_corpus" "$server_addr" 2000 >/dev/null
pace=$((2000 * 1000000000 / ($(date +%s%N) - probe_started)))
n_hostile=$((n_hostile_mix / 10))
echo "hostile mix: $n_hostile hostile requests at about $pace a second beside $((n_hostile_mix - n_hostile)) valid ones at $((9 * pace)) a second"
"$root/target/release/examples/send_corpus" "$server_addr" "$n_hostile" >"$work/hostile" 2>&1 &
hostile_pid=$!
load mix $((n_hostile_mix - n_hostile)) --rate $((9 * pace / ${#names[@]})) || verdict=1
wait "$hostile_pid" || verdict=1
cat "$work/hostile"
echo "server RSS at the end: $(awk '/^VmRSS:/ { print $2 }' "/proc/$server_pid/status") kB"
stop_server || verdict=1
if [ "$verdict" != 0 ]; then
    echo "soak: FAILED" >&2
    exit 1
fi
echo "soak: passed"
