#!/usr/bin/env bash
# Many client machines, tried on one: wstest-server in a network namespace of its own, and N
# loadgen shards (--shard I/N) each in another, every namespace with its own network stack and
# address on one bridge, as separate machines on a switch would be. The shards share one
# --start-at, their JSON files are merged with `loadgen merge`, and the merged run must have
# exactly the test's -n requests, none failed. Before the shards, one loadgen process runs the
# same test unsharded from a client namespace, for comparison.
#
# Usage: scripts/netns-fanout.sh N [LOADGEN ARGS...]
#   LOADGEN ARGS default to: -k -c 32 -n 300000 and the GetOrder 20 post file.
#   Reports and JSON files go to $OUT (default: a temporary folder, printed at the end).
# Needs root (ip netns). The traffic stays inside the namespaces this script makes: addresses
# are set only there, no namespace has a route out, the host's own stack gets no interface;
# the namespaces go again at exit, also on Ctrl-C.
# The server is pinned to core 0 and every client to core 1 (taskset), as in every benchmark
# here: on a 2-core machine N shards share one core, so the merged rate measures the fan-out
# and the merge, not more client capacity.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"

[ $# -ge 1 ] && [[ "$1" =~ ^[1-9][0-9]*$ ]] || die "usage: $0 N [LOADGEN ARGS...]"
n_shards=$1
shift
[ "$n_shards" -le 200 ] || die "N is at most 200 (one /24 of client addresses)"
[ "$(id -u)" = 0 ] || die "needs root to make network namespaces (ip netns)"
ensure_debian_packages ip:iproute2 taskset:util-linux make:make jq:jq
cargo build --release -q -p server -p loadgen-cli --manifest-path "$root/Cargo.toml"
loadgen="$root/target/release/loadgen"
server="$root/target/release/wstest-server"

if [ $# -gt 0 ]; then
    test_args=("$@")
else
    test_args=(-k -c 32 -n 300000 -T 'text/xml; charset=utf-8'
        -H "SOAPAction: \"$(manifest_action "$root/post_files/manifest.toml" getorder20.xml)\""
        -p "$root/post_files/getorder20.xml")
fi
# The test's -n, which the merged run must reach.
n_requests=""
for ((i = 0; i < ${#test_args[@]}; i++)); do
    case "${test_args[i]}" in
        -n) n_requests=${test_args[i + 1]:-} ;;
        -n*) n_requests=${test_args[i]#-n} ;;
    esac
done
[ -n "$n_requests" ] || die "the loadgen arguments need -n: the merged count is checked against it"

out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
# Names unique to this run, so that two runs (or a crashed one) never share a namespace.
tag="wsf$$"
hub="$tag-hub" srv="$tag-srv"
clients=()
for ((i = 0; i < n_shards; i++)); do clients+=("$tag-c$i"); done

cleanup() {
    # The clients first (a namespace outlives its name while a process is in it), then the
    # server, then the namespaces.
    local pid
    for pid in $(jobs -p); do
        [ "$pid" = "${server_pid:-}" ] || kill "$pid" 2>/dev/null || true
    done
    wait_all_but_server
    stop_server || true
    local ns
    for ns in "${clients[@]}" "$srv" "$hub"; do
        ip netns del "$ns" 2>/dev/null || true
    done
}
wait_all_but_server() {
    local pid
    for pid in $(jobs -p); do
        [ "$pid" = "${server_pid:-}" ] || wait "$pid" 2>/dev/null || true
    done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The hub namespace holds the bridge; every other namespace has one end of a veth pair on it.
# Both ends are made in the namespaces themselves, never in the host's.
ip netns add "$hub"
ip -n "$hub" link add br0 type bridge
ip -n "$hub" link set br0 up
join() { # namespace, address, port name on the bridge
    ip netns add "$1"
    ip -n "$hub" link add "$3" type veth peer name eth0 netns "$1"
    ip -n "$hub" link set "$3" master br0 up
    ip -n "$1" link set lo up
    ip -n "$1" addr add "$2/24" dev eth0
    ip -n "$1" link set eth0 up
}
join "$srv" 10.231.0.1 s0
for ((i = 0; i < n_shards; i++)); do
    join "${clients[i]}" "10.231.0.$((10 + i))" "c$i"
done

start_server ip netns exec "$srv" taskset -c 0 "$server" --addr 10.231.0.1:8080 --threads 1
url="http://$server_addr/WSTest"
echo "server in $srv at $url; $n_shards client namespaces; files in $out" >&2

# The same test in one process, from the first client namespace.
# In the background with `wait`, which a signal interrupts, so that Ctrl-C cleans up at once.
ip netns exec "${clients[0]}" taskset -c 1 "$loadgen" -q "${test_args[@]}" \
    --json "$out/single.json" "$url" >"$out/single.txt" &
wait $! || die "the single-process run failed"

# The shards: one start time for all, far enough ahead for every shard to connect.
start_at=$(($(date +%s) + 3))
pids=()
for ((i = 0; i < n_shards; i++)); do
    ip netns exec "${clients[i]}" taskset -c 1 "$loadgen" -q "${test_args[@]}" \
        --shard "$i/$n_shards" --start-at "$start_at" --json "$out/shard-$i.json" "$url" \
        >"$out/shard-$i.txt" 2>"$out/shard-$i.err" &
    pids+=($!)
done
failed=0
for ((i = 0; i < n_shards; i++)); do
    if ! wait "${pids[i]}"; then
        echo "shard $i/$n_shards failed: $(cat "$out/shard-$i.err")" >&2
        failed=1
    fi
done
[ "$failed" = 0 ] || exit 1
shard_files=()
for ((i = 0; i < n_shards; i++)); do shard_files+=("$out/shard-$i.json"); done
"$loadgen" merge --json "$out/merged.json" "${shard_files[@]}" >"$out/merged.txt"

# The figures come from the runs' --json files, not their text.
figure() { jq -r "$1" "$2"; }
# The start skew, ms: the merged runs' first start to their last (`-` for one run).
skew='if (.merged | length) > 0 then ((.merged | map(.started_unix) | max) - (.merged | map(.started_unix) | min)) * 1000 else "-" end'
complete=$(figure .counters.complete "$out/merged.json")
failures=$(figure .counters.failed "$out/merged.json")
printf '%-22s %12s %12s %10s %14s\n' "run" "complete" "failed" "skew" "requests/s"
for report in single merged; do
    report_skew=$(figure "$skew" "$out/$report.json")
    [ "$report_skew" = - ] || report_skew=$(printf '%.3f ms' "$report_skew")
    printf '%-22s %12s %12s %10s %14.2f\n' \
        "$([ $report = single ] && echo "one process" || echo "$n_shards shard(s), merged")" \
        "$(figure .counters.complete "$out/$report.json")" \
        "$(figure .counters.failed "$out/$report.json")" "$report_skew" \
        "$(figure .summary.requests_per_second "$out/$report.json")"
done
echo "reports: $out/single.txt, $out/merged.txt" >&2
if [ "$complete" != "$n_requests" ] || [ "$failures" != 0 ]; then
    echo "FAILED: the merged run has $complete complete and $failures failed requests; the test has -n $n_requests" >&2
    exit 1
fi
