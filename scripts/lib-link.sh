# Link profiles between two network namespaces, sourced by wsperf-net.sh and suite-link.sh.
# shellcheck shell=bash
#
# A profile is a rate and a round-trip time:
#   lan     1 Gbit/s,   0.2 ms
#   wan     100 Mbit/s, 20 ms
#   mobile  10 Mbit/s,  60 ms
# link_up makes namespaces $link_a (10.77.0.1) and $link_b (10.77.0.2) joined by a veth pair
# whose two ends tc shapes: netem (half the round trip each way, and the rate) where the
# kernel has it; else tbf for the rate and, for the delay, `cargo xtask delay-line` on the
# client's side, which holds each chunk half the round trip each way (see
# xtask/src/delay_line.rs for what that does not emulate). link_endpoint finds the address a
# client in $link_b uses to reach a server in $link_a. link_down removes everything; callers
# trap it on EXIT, INT and TERM.

link_profile() {
    case "$1" in
        lan) link_rate=1gbit link_rate_bits=1000000000 link_rtt_us=200 ;;
        wan) link_rate=100mbit link_rate_bits=100000000 link_rtt_us=20000 ;;
        mobile) link_rate=10mbit link_rate_bits=10000000 link_rtt_us=60000 ;;
        *) die "unknown link profile ${1:-} (lan, wan, mobile)" ;;
    esac
    link_name=$1
}

# link_up PROFILE TAG
link_up() {
    link_profile "$1"
    link_a="$2-a" link_b="$2-b"
    link_pids=()
    ip netns add "$link_a"
    ip netns add "$link_b"
    ip link add "$2-va" type veth peer name "$2-vb"
    ip link set "$2-va" netns "$link_a"
    ip link set "$2-vb" netns "$link_b"
    ip -n "$link_a" addr add 10.77.0.1/30 dev "$2-va"
    ip -n "$link_b" addr add 10.77.0.2/30 dev "$2-vb"
    local ns dev
    for ns in "$link_a" "$link_b"; do ip -n "$ns" link set lo up; done
    ip -n "$link_a" link set "$2-va" up
    ip -n "$link_b" link set "$2-vb" up
    local half_us=$((link_rtt_us / 2))
    # tbf's bucket: a millisecond at the rate, and never less than two full-size packets. A
    # bigger one would let a whole document through at once after each idle round trip (a
    # 16 kB bucket sent 16 of GetOrder-100's 21 kB at once on the mobile profile).
    local burst=$((link_rate_bits / 8 / 1000))
    [ "$burst" -ge 3028 ] || burst=3028
    link_netem=1
    for dev in "$link_a:$2-va" "$link_b:$2-vb"; do
        if ! ip netns exec "${dev%%:*}" tc qdisc add dev "${dev#*:}" root netem \
            delay "${half_us}us" rate "$link_rate" limit 100000 2>/dev/null; then
            link_netem=0
            ip netns exec "${dev%%:*}" tc qdisc add dev "${dev#*:}" root tbf \
                rate "$link_rate" burst "$burst" latency 200ms
        fi
    done
    if [ "$link_netem" = 1 ]; then
        echo "link $link_name: $link_rate, ${link_rtt_us} us round trip (tc netem)" >&2
    else
        echo "link $link_name: $link_rate (tc tbf), ${link_rtt_us} us round trip (xtask delay-line: this kernel has no netem)" >&2
    fi
}

# link_endpoint HOST:PORT: sets link_addr, the address at which a client in $link_b reaches
# HOST:PORT in $link_a, through the delay line when the delay is not netem's. The delay line runs on the
# client's core ($link_client_cpu, default 1).
link_endpoint() {
    if [ "$link_netem" = 1 ]; then
        link_addr=$1
        return
    fi
    local log
    log=$(mktemp)
    ip netns exec "$link_b" taskset -c "${link_client_cpu:-1}" \
        "$root/target/release/xtask" delay-line --addr 127.0.0.1:0 --to "$1" \
        --delay "$((link_rtt_us / 2))us" >/dev/null 2>"$log" &
    link_pids+=($!)
    local addr="" tries=0
    while [ -z "$addr" ]; do
        tries=$((tries + 1))
        [ "$tries" -lt 200 ] || die "the delay line did not start: $(cat "$log")"
        sleep 0.05
        addr=$(sed -n 's/^delay-line listening on //p' "$log")
    done
    rm -f "$log"
    link_addr=$addr
}

link_down() {
    local pid
    for pid in "${link_pids[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    [ -z "${link_a:-}" ] || ip netns del "$link_a" 2>/dev/null || true
    [ -z "${link_b:-}" ] || ip netns del "$link_b" 2>/dev/null || true
}
