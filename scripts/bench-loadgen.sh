#!/usr/bin/env bash
# Measures the load generators against one server: loadgen, ab, wrk and (when installed) oha,
# and beside them the syscall floor (loadgen/examples/syscall_floor.rs: one send and one recv a
# request and nothing else, the least any client can spend), each pinned to core 1 with one
# thread, against the HTTP ceiling server pinned to core 0, with the same post file and 30
# keep-alive connections. For each tool it records the requests per second and the client's
# CPU time (user + sys, from /usr/bin/time) per completed request.
# The tools run in turns, ROUNDS times, so that drift on a shared machine hits them all alike;
# every ratio is taken within a round (tools that ran seconds apart) and the table shows the
# median over the rounds, so that one noisy round does not decide it.
#
# Usage: scripts/bench-loadgen.sh [REQUESTS] [ROUNDS] [RESULTS_FILE]
#   REQUESTS      per tool and round (wrk runs for as long as loadgen took), default 300000
#   ROUNDS        default 3
#   RESULTS_FILE  default scripts/results/bench-loadgen.md
#
# Then it measures loadgen's resident memory on `-n 1000000 -c 100 -k`.
# Installs what it needs from Debian when missing: ab (apache2-utils), wrk, GNU time, taskset;
# oha is used if it is on PATH (cargo install oha --locked). The ceiling server is the
# workspace's ceiling crate.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"
ensure_debian_packages ab:apache2-utils wrk:wrk taskset:util-linux
[ -x /usr/bin/time ] || ensure_debian_packages no-such-command:time
[ -x /usr/bin/time ] || die "needs GNU time (Debian package time)"

requests=${1:-300000}
rounds=${2:-3}
results=${3:-$here/results/bench-loadgen.md}
name=echostruct20.xml
post="$root/post_files/$name"
action=$(manifest_action "$root/post_files/manifest.toml" "$name")

build_ceiling "$root"
cargo build --release -q -p loadgen --bins --example syscall_floor --manifest-path "$root/Cargo.toml"
loadgen="$root/target/release/loadgen"
floor="$root/target/release/examples/syscall_floor"

work=$(mktemp -d)
cleanup() {
    stop_server || true
    rm -rf "$work"
}
trap cleanup EXIT
write_wrk_post_script "$work/post.lua"

start_server taskset -c 0 "$ceiling_bin" --addr 127.0.0.1:0 --threads 1
url="http://$server_addr/WSTest"

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

# Per "tool,round": CPU µs per request, user µs per request, requests per second.
declare -A us user_us rps_of
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
                    "$floor" "$server_addr" /WSTest "$post" "$action" "$requests" 30)
                rps=""
                ;;
        esac
        cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
        echo "round $round $tool: $done requests, ${rps:--} req/s, cpu $cpu s" >&2
        us[$tool,$round]=$(awk -v c="$cpu" -v d="$done" 'BEGIN { printf "%.3f", c * 1e6 / d }')
        user_us[$tool,$round]=$(awk -v c="$user" -v d="$done" 'BEGIN { printf "%.3f", c * 1e6 / d }')
        rps_of[$tool,$round]=${rps:-0}
    done
done

# Prints the median over the rounds of array $1's entries for tool $2.
median_of() {
    local -n values=$1
    local round list=()
    for round in $(seq "$rounds"); do list+=("${values[$2,$round]}"); done
    median "${list[@]}"
}
# Prints the median over the rounds of ($1's CPU per request) / ($2's), and the rounds' own.
cpu_ratio() {
    local round list=()
    for round in $(seq "$rounds"); do
        list+=("$(awk -v a="${us[$1,$round]}" -v b="${us[$2,$round]}" 'BEGIN { printf "%.2f", a / b }')")
    done
    printf '%.2f (%s)' "$(median "${list[@]}")" "$(IFS=/; echo "${list[*]}")"
}
rps_ratios=()
for round in $(seq "$rounds"); do
    rps_ratios+=("$(awk -v a="${rps_of[loadgen,$round]}" -v b="${rps_of[wrk,$round]}" 'BEGIN { printf "%.3f", a / b }')")
done
mkdir -p "$(dirname "$results")"
{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores ($(uname -r)), median of $rounds rounds"
    echo
    echo "Command: \`scripts/bench-loadgen.sh $requests $rounds\` (ceiling on core 0; each client on core 1, one thread, -k -c30, $name), at commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo
    echo "| tool | req/s | CPU µs per request | of which user | loadgen's CPU per request ÷ this (rounds) | the floor's ÷ this (rounds) |"
    echo "|---|---:|---:|---:|---:|---:|"
    for tool in $tools; do
        tool_rps=$(median_of rps_of "$tool" | awk '{ printf "%.0f", $1 }')
        [ "$tool" = floor ] && tool_rps="-"
        printf '| %s | %s | %.2f | %.2f | %s | %s |\n' "$tool" "$tool_rps" "$(median_of us "$tool")" \
            "$(median_of user_us "$tool")" "$(cpu_ratio loadgen "$tool")" "$(cpu_ratio floor "$tool")"
    done
    echo
    echo "loadgen's req/s ÷ wrk's: median $(median "${rps_ratios[@]}" | awk '{ printf "%.3f", $1 }') (rounds $(IFS=/; echo "${rps_ratios[*]}"))"
} | tee -a "$results"

# Memory: a million requests on 100 keep-alive connections.
/usr/bin/time -f '%M' -o "$work/rss" "$loadgen" -q -k -c100 -n1000000 -p "$post" -T "text/xml; charset=utf-8" \
    -H "SOAPAction: \"$action\"" "$url" >/dev/null
echo | tee -a "$results"
echo "loadgen -n 1000000 -c 100 -k: peak resident memory $(( $(cat "$work/rss") / 1024 )) MB" | tee -a "$results"
