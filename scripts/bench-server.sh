#!/usr/bin/env bash
# Measures wstest-server against the HTTP ceiling (a hyper server that answers with canned
# responses and does no XML work), in one run on pinned cores, for every post file.
#
# Usage: scripts/bench-server.sh [DURATION_SECONDS] [RESULTS_FILE]
#   DURATION_SECONDS  per server, post file and round, default 5
#   ROUNDS            (environment) rounds per post file, default 3
#   ONLY              (environment) the post files to measure, e.g. "echostruct20.xml getorder20.xml"
#
# Each round measures the ceiling and then each wstest-server build back to back, and the
# ratio of that round is taken; the table shows the median over the rounds, so that a burst of
# noise on a shared machine spoils one round rather than the figure.
#   RESULTS_FILE      where the Markdown table is appended, default scripts/results/bench-server.md
#
# Then it opens 1,000 keep-alive connections to wstest-server, sends a GetOrder on each, keeps
# them open, and records the server's resident memory (VmRSS).
#
# Each server runs alone on core 0 (taskset -c 0); wrk -t1 -c30 runs on core 1 (taskset -c 1).
# The ratio column is wstest-server's requests/second divided by the ceiling's. Two builds of
# wstest-server are measured: the plain `cargo build --release`, and the profile-guided one of
# scripts/pgo-build.sh (NO_PGO=1 leaves it out).
# Installs wrk and taskset from Debian when missing. The ceiling is the workspace's ceiling crate.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"
ensure_debian_packages wrk:wrk taskset:util-linux

duration=${1:-5}
rounds=${ROUNDS:-3}
results=${2:-$here/results/bench-server.md}
post_files="$root/post_files"

build_ceiling "$root"
cargo build --release -q -p server --manifest-path "$root/Cargo.toml"
server_bin="$root/target/release/wstest-server"
pgo_bin=""
if [ -z "${NO_PGO:-}" ]; then
    pgo_bin=$("$here/pgo-build.sh" | tail -1)
fi

lua=$(mktemp --suffix .lua)
cleanup() {
    stop_server || true
    rm -f "$lua"
}
trap cleanup EXIT
write_wrk_post_script "$lua"

# Runs wrk against the server started by "$@" for post file $name; prints requests/second.
measure() {
    case "$1" in
        ceiling) start_server taskset -c 0 "$ceiling_bin" --addr 127.0.0.1:0 --threads 1 ;;
        server) start_server taskset -c 0 "$server_bin" --addr 127.0.0.1:0 --threads 1 ;;
        pgo) start_server taskset -c 0 "$pgo_bin" --addr 127.0.0.1:0 --threads 1 ;;
    esac
    POST_FILE="$post_files/$name" SOAP_ACTION="$action" \
        taskset -c 1 wrk -t1 -c30 -d"${duration}s" -s "$lua" "http://$server_addr/WSTest" \
        | awk '/^Requests\/sec:/ { print $2 } /Non-2xx/ { print "non-2xx" > "/dev/stderr" }'
    stop_server || true
}

mkdir -p "$(dirname "$results")"
{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores ($(uname -r)), ${duration}s per cell, median of $rounds rounds"
    echo
    echo "Command: \`ROUNDS=$rounds${ONLY:+ ONLY=\"$ONLY\"}${NO_PGO:+ NO_PGO=1} scripts/bench-server.sh $duration\` (servers on core 0, wrk -t1 -c30 on core 1), at commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo
    echo "| post file | ceiling req/s | wstest-server req/s | ratio | PGO build req/s | PGO ratio | ratios per round (plain / PGO) |"
    echo "|---|---:|---:|---:|---:|---:|---|"
} | tee -a "$results"
ratio() { awk -v s="$1" -v c="$2" 'BEGIN { printf "%.2f", s / c }'; }

for name in ${ONLY:-$(manifest_names "$post_files/manifest.toml")}; do
    action=$(manifest_action "$post_files/manifest.toml" "$name")
    ceilings=() servers=() pgos=() ratios=() pgo_ratios=() per_round=()
    for _ in $(seq "$rounds"); do
        ceiling_rps=$(measure ceiling)
        server_rps=$(measure server)
        ceilings+=("$ceiling_rps") servers+=("$server_rps")
        ratios+=("$(ratio "$server_rps" "$ceiling_rps")")
        if [ -n "$pgo_bin" ]; then
            pgo_rps=$(measure pgo)
            pgos+=("$pgo_rps")
            pgo_ratios+=("$(ratio "$pgo_rps" "$ceiling_rps")")
            per_round+=("${ratios[-1]} / ${pgo_ratios[-1]}")
        else
            per_round+=("${ratios[-1]}")
        fi
    done
    pgo_rps=- pgo_ratio=-
    if [ -n "$pgo_bin" ]; then
        pgo_rps=$(median "${pgos[@]}")
        pgo_ratio=$(median "${pgo_ratios[@]}")
    fi
    rounds_text=$(printf '%s, ' "${per_round[@]}")
    echo "| $name | $(median "${ceilings[@]}") | $(median "${servers[@]}") | $(median "${ratios[@]}") | $pgo_rps | $pgo_ratio | ${rounds_text%, } |" | tee -a "$results"
done

# Memory under 1,000 open keep-alive connections, each of which has been served once.
start_server taskset -c 0 "$server_bin" --addr 127.0.0.1:0 --threads 1
rss_kb=$(python3 - "${server_addr##*:}" "$server_pid" "$post_files/getorder100.xml" <<'PY'
import socket, sys
port, pid, path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
body = open(path, "rb").read()
request = (b"POST /WSTest HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\n"
           b"SOAPAction: \"uri:WSTestWeb-TestService/GetOrder\"\r\nContent-Length: %d\r\n\r\n" % len(body)) + body
sockets = []
for _ in range(1000):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(request)
    sockets.append(s)
for s in sockets:
    data = b""
    while b"</soap:Envelope>" not in data:
        chunk = s.recv(65536)
        assert chunk, "connection closed"
        data += chunk
    assert data.startswith(b"HTTP/1.1 200"), data[:40]
for line in open(f"/proc/{pid}/status"):
    if line.startswith("VmRSS:"):
        print(line.split()[1])
PY
)
stop_server || true
echo | tee -a "$results"
echo "wstest-server resident memory with 1,000 open keep-alive connections, each served a getorder100: $((rss_kb / 1024)) MB ($rss_kb kB)" | tee -a "$results"
