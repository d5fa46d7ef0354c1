#!/usr/bin/env bash
# Many connections at once: wstest-server (release, one worker, core 0) holds N keep-alive
# connections opened by server/examples/hold_connections.rs (core 1), which reports the
# server's resident memory idle, with N connections that have sent nothing, after each was
# served once, after they all idled 5 s (hibernated), while each sends a GetOrder every 3 s,
# and for 10 s after they all close. It runs N = 10,000, then 50,000 when the open-file
# limit can be raised that far (as root it raises it; otherwise it says so and stops).
#
# Usage: scripts/connections.sh [N...]      (default: 10000 50000)
# Targets (issue 12): at most 8 KB per idle keep-alive connection; RSS back within 2x of its
# idle value within 10 s of the connections closing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"
ensure_debian_packages make:make taskset:util-linux
cargo build --release -q -p server --bin wstest-server --example hold_connections \
    --manifest-path "$root/Cargo.toml"
trap stop_server EXIT

counts=("$@")
[ "${#counts[@]}" -gt 0 ] || counts=(10000 50000)
for n in "${counts[@]}"; do
    # Each side needs a descriptor per connection, plus some.
    want=$((n + 1000))
    if [ "$(ulimit -Hn)" -lt "$want" ] && ! ulimit -Hn "$want" 2>/dev/null; then
        echo "N=$n: the open-file limit is $(ulimit -Hn) and cannot be raised to $want here (run as root); stopping" >&2
        exit 1
    fi
    ulimit -Sn "$want"
    # About 28,000 ephemeral ports per source address: spread the clients over enough of them.
    sources=$(( (n + 19999) / 20000 ))
    echo "== $n connections ($(date -u '+%Y-%m-%d %H:%M UTC'), $sources source addresses)"
    start_server taskset -c 0 "$root/target/release/wstest-server" --addr 127.0.0.1:0 \
        --threads 1 --max-connections "$want"
    taskset -c 1 "$root/target/release/examples/hold_connections" "$server_pid" "$server_addr" \
        "$n" "$root/post_files/getorder20.xml" 10 3 "$sources"
    stop_server
    echo
done
