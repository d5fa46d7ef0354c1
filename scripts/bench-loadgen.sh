#!/usr/bin/env bash
# Measures the load generators against one server: loadgen, ab, wrk and (when installed) oha,
# and beside them the syscall floor (loadgen/examples/syscall_floor.rs: one send and one recv a
# request and nothing else, the least any client can spend), each pinned to core 1 with one thread, against the HTTP ceiling server pinned to core 0, with
# the same post file and 30 keep-alive connections. For each tool it records the requests per
# second and the client's CPU time (user + sys, from /usr/bin/time) per completed request.
# The tools run in turns, ROUNDS times, so that drift on a shared machine hits them all alike.
#
# Usage: scripts/bench-loadgen.sh [REQUESTS] [ROUNDS] [RESULTS_FILE]
#   REQUESTS      per tool and round (wrk runs for as long as loadgen took), default 300000
#   ROUNDS        default 3
#   RESULTS_FILE  default scripts/results/bench-loadgen.md
#
# Then it measures loadgen's resident memory on `-n 1000000 -c 100 -k`.
# Needs: ab (apache2-utils), wrk, GNU time (/usr/bin/time), taskset, the ceiling server in
# ../shared/tools/ceiling; oha is used if it is on PATH (cargo install oha --locked).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"
require ab "Debian package apache2-utils"
require wrk "Debian package wrk"
require taskset "util-linux"
[ -x /usr/bin/time ] || die "needs GNU time (Debian package time)"

requests=${1:-300000}
rounds=${2:-3}
results=${3:-$here/results/bench-loadgen.md}
ceiling_src=${CEILING_DIR:-$root/../shared/tools/ceiling}
ceiling_target=${CEILING_TARGET:-/tmp/ceiling}
[ -d "$ceiling_src" ] || die "no ceiling server at $ceiling_src (set CEILING_DIR)"
name=echostruct20.xml
post="$root/post_files/$name"
action=$(manifest_action "$root/post_files/manifest.toml" "$name")

cargo build --release -q -p loadgen --bins --example syscall_floor --manifest-path "$root/Cargo.toml"
cargo build --release -q --manifest-path "$ceiling_src/Cargo.toml" --target-dir "$ceiling_target"
loadgen="$root/target/release/loadgen"
floor="$root/target/release/examples/syscall_floor"

work=$(mktemp -d)
pid=""
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
write_wrk_post_script "$work/post.lua"

port=$(free_port)
taskset -c 0 "$ceiling_target/release/ceiling" "$port" "$ceiling_src/responses" >/dev/null 2>&1 &
pid=$!
wait_for_port "$port"
url="http://127.0.0.1:$port/WSTest"

# Runs "$@" pinned to core 1 under GNU time; prints "requests seconds cpu_seconds".
# The tool's own report is in $work/out.
timed() {
    local requests_field=$1
    shift
    /usr/bin/time -f '%e %U %S' -o "$work/time" taskset -c 1 "$@" >"$work/out" 2>"$work/err" || {
        cat "$work/err" >&2
        die "$1 failed"
    }
    local done
    done=$(eval "$requests_field")
    read -r _elapsed user sys <"$work/time"
    echo "$done $user $sys"
}

declare -A cpu_total user_total done_total rps_total
tools="loadgen ab wrk"
command -v oha >/dev/null 2>&1 && tools="$tools oha"
tools="$tools floor"
lg_seconds=5
for round in $(seq "$rounds"); do
    for tool in $tools; do
        case $tool in
            loadgen)
                read -r done user sys < <(timed "awk '/^Complete requests:/ { print \$3 }' $work/out" \
                    "$loadgen" --threads 1 -q -k -c30 -n"$requests" -p "$post" -T "text/xml; charset=utf-8" \
                    -H "SOAPAction: \"$action\"" "$url")
                lg_seconds=$(awk '/^Time taken for tests:/ { printf "%d", $5 + 0.5 }' "$work/out")
                [ "$lg_seconds" -ge 1 ] || lg_seconds=1
                rps=$(awk '/^Requests per second:/ { print $4 }' "$work/out")
                ;;
            ab)
                read -r done user sys < <(timed "awk '/^Complete requests:/ { print \$3 }' $work/out" \
                    ab -q -k -c30 -n"$requests" -p "$post" -T "text/xml; charset=utf-8" -H "SOAPAction: \"$action\"" "$url")
                rps=$(awk '/^Requests per second:/ { print $4 }' "$work/out")
                ;;
            wrk)
                read -r done user sys < <(POST_FILE="$post" SOAP_ACTION="$action" \
                    timed "awk '/ requests in / { print \$1 }' $work/out" \
                    wrk -t1 -c30 -d"${lg_seconds}s" -s "$work/post.lua" "$url")
                rps=$(awk '/^Requests\/sec:/ { print $2 }' "$work/out")
                ;;
            oha)
                read -r done user sys < <(timed "python3 -c 'import json,sys; print(sum(json.load(open(sys.argv[1]))[\"statusCodeDistribution\"].values()))' $work/out" \
                    oha --no-tui --output-format json -n "$requests" -c 30 -m POST -D "$post" \
                    -T "text/xml; charset=utf-8" -H "SOAPAction: \"$action\"" "$url")
                rps=$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["summary"]["requestsPerSec"], 2))' "$work/out")
                ;;
            floor)
                read -r done user sys < <(timed "awk '/^Complete requests:/ { print \$3 }' $work/out" \
                    "$floor" "127.0.0.1:$port" /WSTest "$post" "$action" "$requests" 30)
                rps=""
                ;;
        esac
        cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
        echo "round $round $tool: $done requests, ${rps:--} req/s, cpu $cpu s" >&2
        cpu_total[$tool]=$(awk -v a="${cpu_total[$tool]:-0}" -v b="$cpu" 'BEGIN { print a + b }')
        user_total[$tool]=$(awk -v a="${user_total[$tool]:-0}" -v b="$user" 'BEGIN { print a + b }')
        done_total[$tool]=$(( ${done_total[$tool]:-0} + done ))
        rps_total[$tool]=$(awk -v a="${rps_total[$tool]:-0}" -v b="${rps:-0}" 'BEGIN { print a + b }')
    done
done

us_per_request() { awk -v c="${cpu_total[$1]}" -v d="${done_total[$1]}" 'BEGIN { printf "%.2f", c * 1e6 / d }'; }
lg_us=$(us_per_request loadgen)
floor_us=$(us_per_request floor)
mkdir -p "$(dirname "$results")"
{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores ($(uname -r))"
    echo
    echo "Command: \`scripts/bench-loadgen.sh $requests $rounds\` (ceiling on core 0; each client on core 1, one thread, -k -c30, $name), at commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo
    echo "| tool | mean req/s | CPU µs per request | of which user | loadgen's CPU per request ÷ this | the floor's ÷ this |"
    echo "|---|---:|---:|---:|---:|---:|"
    for tool in $tools; do
        us=$(us_per_request "$tool")
        mean_rps=$(awk -v r="${rps_total[$tool]}" -v n="$rounds" 'BEGIN { printf "%.0f", r / n }')
        [ "$tool" = floor ] && mean_rps="-"
        ratio=$(awk -v a="$lg_us" -v b="$us" 'BEGIN { printf "%.2f", a / b }')
        floor_ratio=$(awk -v a="$floor_us" -v b="$us" 'BEGIN { printf "%.2f", a / b }')
        user_us=$(awk -v c="${user_total[$tool]}" -v d="${done_total[$tool]}" 'BEGIN { printf "%.2f", c * 1e6 / d }')
        echo "| $tool | $mean_rps | $us | $user_us | $ratio | $floor_ratio |"
    done
} | tee -a "$results"

# Memory: a million requests on 100 keep-alive connections.
/usr/bin/time -f '%M' -o "$work/rss" "$loadgen" -q -k -c100 -n1000000 -p "$post" -T "text/xml; charset=utf-8" \
    -H "SOAPAction: \"$action\"" "$url" >/dev/null
echo | tee -a "$results"
echo "loadgen -n 1000000 -c 100 -k: peak resident memory $(( $(cat "$work/rss") / 1024 )) MB" | tee -a "$results"
