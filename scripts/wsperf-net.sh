#!/usr/bin/env bash
# wsperf across a shaped link, as efxperf measures encodings: the relay in one network
# namespace (core 0), wsperf --net in another (core 1), joined by a veth pair shaped to a
# link profile (scripts/lib-link.sh: lan 1 Gbit/s 0.2 ms, wan 100 Mbit/s 20 ms, mobile
# 10 Mbit/s 60 ms round trip). Prints wsperf's table; the namespaces and processes go at exit,
# also on Ctrl-C.
#
# Usage: scripts/wsperf-net.sh PROFILE [WSPERF OPTIONS...]
#   e.g. scripts/wsperf-net.sh wan --encodings xml,json,msgpack,avro --no-limits
# Needs root (ip netns, tc).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"
# shellcheck source=scripts/lib-link.sh
. "$root/scripts/lib-link.sh"

[ $# -ge 1 ] || die "usage: $0 PROFILE [WSPERF OPTIONS...] (PROFILE: lan, wan, mobile)"
profile=$1
shift
link_profile "$profile"
[ "$(id -u)" = 0 ] || die "needs root to make network namespaces and shape them (ip netns, tc)"
ensure_debian_packages ip:iproute2 tc:iproute2 taskset:util-linux
cargo build --release -q -p wsperf -p xtask --manifest-path "$root/Cargo.toml"

relay_pid=""
cleanup() {
    if [ -n "$relay_pid" ]; then
        kill "$relay_pid" 2>/dev/null || true
        wait "$relay_pid" 2>/dev/null || true
    fi
    link_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM

link_up "$profile" "wsn$$"
relay_log=$(mktemp)
ip netns exec "$link_a" taskset -c 0 "$root/target/release/wsperf" relay \
    --addr 10.77.0.1:0 2>"$relay_log" &
relay_pid=$!
relay_addr=""
for _ in $(seq 200); do
    relay_addr=$(sed -n 's/^wsperf relay listening on //p' "$relay_log")
    [ -z "$relay_addr" ] || break
    kill -0 "$relay_pid" 2>/dev/null || die "the relay exited: $(cat "$relay_log")"
    sleep 0.05
done
[ -n "$relay_addr" ] || die "the relay printed no listening line"
link_endpoint "$relay_addr"
ip netns exec "$link_b" taskset -c 1 "$root/target/release/wsperf" --net "$link_addr" "$@"
