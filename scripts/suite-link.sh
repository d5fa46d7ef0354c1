#!/usr/bin/env bash
# loadgen suite across a shaped link: wstest-server in one network namespace (core 0), the
# suite and its clients in another (core 1), joined by a veth pair shaped to a link profile
# (scripts/lib-link.sh: lan 1 Gbit/s 0.2 ms, wan 100 Mbit/s 20 ms, mobile 10 Mbit/s 60 ms
# round trip). The server's CPU and memory are measured as in any suite run (--target-pid).
# The namespaces and processes go at exit, also on Ctrl-C.
#
# Usage: scripts/suite-link.sh PROFILE [SUITE OPTIONS...]
#   e.g. scripts/suite-link.sh wan --tests GetOrder-100,GetOrder-100/json,GetOrder-100/msgpack
# Needs root (ip netns, tc).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"
# shellcheck source=scripts/lib-link.sh
. "$root/scripts/lib-link.sh"

[ $# -ge 1 ] || die "usage: $0 PROFILE [SUITE OPTIONS...] (PROFILE: lan, wan, mobile)"
profile=$1
shift
link_profile "$profile"
[ "$(id -u)" = 0 ] || die "needs root to make network namespaces and shape them (ip netns, tc)"
ensure_debian_packages ip:iproute2 tc:iproute2 taskset:util-linux make:make
cargo build --release -q -p server -p loadgen-cli -p xtask --manifest-path "$root/Cargo.toml"

cleanup() {
    stop_server || true
    link_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM

link_up "$profile" "sln$$"
start_server ip netns exec "$link_a" taskset -c 0 "$root/target/release/wstest-server" \
    --addr 10.77.0.1:0
link_endpoint "$server_addr"
# The suite places itself on the client core; the server is the one started above.
ip netns exec "$link_b" "$root/target/release/loadgen" suite \
    --target "wstest=http://$link_addr/WSTest" --target-pid "wstest=$server_pid" \
    --server-cpus 0 --client-cpus 1 "$@"
