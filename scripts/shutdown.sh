#!/usr/bin/env bash
# Graceful shutdown under full load, REPS times (default 20): wstest-server (release, one
# worker, core 0) answers loadgen at full speed (core 1: 20 keep-alive connections posting
# GetOrders of 50,000 line items, a 10 MB answer each, so that many answers are being written
# at any moment); after a second it gets SIGTERM. Each round must end with exit code 0 within the drain deadline (10 s)
# and with no answer cut off: the server counts the requests it read and the answers it could
# not write whole, and prints both when it stops. A connection attempt after the signal must be
# refused. Prints a row a round and fails if any round misses.
#
# Usage: scripts/shutdown.sh [REPS [SERVER OPTIONS...]]
#   e.g. scripts/shutdown.sh 3 --shutdown-grace 0   (no drain: shows the cut answers counted)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"
ensure_debian_packages make:make taskset:util-linux
cargo build --release -q -p server -p loadgen-cli --manifest-path "$root/Cargo.toml"
reps=${1:-20}
shift || true
action=$(manifest_action "$root/post_files/manifest.toml" getorder20.xml)
loadgen_out=$(mktemp)
post=$(mktemp)
trap 'stop_server; rm -f "$loadgen_out" "$post"' EXIT
sed 's|<messageSize>20</messageSize>|<messageSize>50000</messageSize>|' \
    "$root/post_files/getorder20.xml" >"$post"
grep -q '<messageSize>50000<' "$post" || die "post_files/getorder20.xml has no messageSize 20"

echo "Graceful shutdown under load, $(date -u '+%Y-%m-%d %H:%M UTC'), $reps rounds"
printf '%5s %10s %10s %6s %9s %5s %12s\n' round read answered cut drain_ms exit after_stop
failed=0
for round in $(seq 1 "$reps"); do
    start_server taskset -c 0 "$root/target/release/wstest-server" --addr 127.0.0.1:0 --threads 1 "$@"
    # Twenty loadgens of one connection each, rather than one of twenty: a loadgen aborts after
    # ten refused connections (as ab does) and closes all of its connections then, which would
    # cut answers that the server was still writing. With one connection each, a loadgen can
    # only be refused once the server has closed its connection, its last answer written.
    loadgen_pids=()
    for _ in $(seq 1 20); do
        taskset -c 1 "$root/target/release/loadgen" -q -r -k -c 1 -t 10 \
            -T 'text/xml; charset=utf-8' -H "SOAPAction: \"$action\"" -p "$post" \
            "http://$server_addr/WSTest" >>"$loadgen_out" 2>&1 &
        loadgen_pids+=($!)
    done
    sleep 1
    started=$(date +%s%N)
    kill -TERM "$server_pid"
    # Once the server says it accepts no more (its listening sockets are closed), a new
    # connection must be refused, while it drains or after it has gone.
    while kill -0 "$server_pid" 2>/dev/null && ! grep -q "stopping: no new connections" "$server_log"; do
        sleep 0.001
    done
    after_stop=refused
    if (exec 3<>"/dev/tcp/${server_addr%:*}/${server_addr#*:}") 2>/dev/null; then
        after_stop=accepted
    fi
    status=0
    wait "$server_pid" || status=$?
    drain_ms=$(( ($(date +%s%N) - started) / 1000000 ))
    summary=$(sed -n 's/.*stopped: \([0-9]*\) requests read, \([0-9]*\) answers cut.*/\1 \2/p' "$server_log")
    read -r n_read n_cut <<<"${summary:-? ?}"
    rm -f "$server_log"
    server_pid="" server_log=""
    wait "${loadgen_pids[@]}" 2>/dev/null || true
    : >"$loadgen_out"
    if [ "$n_cut" != "?" ]; then answered=$((n_read - n_cut)); else answered="?"; fi
    printf '%5s %10s %10s %6s %9s %5s %12s\n' "$round" "$n_read" "$answered" "$n_cut" "$drain_ms" "$status" "$after_stop"
    if [ "$status" != 0 ] || [ "$n_cut" != 0 ] || [ "$drain_ms" -gt 10000 ] || [ "$after_stop" != refused ]; then
        failed=$((failed + 1))
    fi
done
if [ "$failed" -gt 0 ]; then
    echo "$failed of $reps rounds missed (exit code, answers cut, drain time or a connection accepted after the signal)" >&2
    exit 1
fi
echo "all $reps rounds: exit 0, no answer cut, no connection accepted after the signal"
