#!/usr/bin/env bash
# The main job: builds loadgen, wstest-server and the ceiling (release), then runs `loadgen
# suite`, which starts each server on its own core, checks every case of
# post_files/manifest.toml, times each one, and prints the WSTest table.
#
# With no --stack or --target it measures the comparison the project exists for: ours beside
# the ceiling (hyper answering canned bytes: the HTTP limit of this machine) and every stack
# whose setup needs nothing but the repository and Debian's packages: gSOAP, Go's net/http,
# JAX-WS, JiBX and StAX on Netty, ASMX and WCF on Mono, PHP's SoapServer (node-soap and spyne,
# which need npm and PyPI, are in scripts/compare.sh). Each cell then gets compare.sh's
# 2-second warm-up, long enough for the JVMs' JIT, and 2 timed seconds unless --warmup or
# --duration say otherwise: 16 minutes of cells (10 servers x 8 tests x 3 repeats x 4 s),
# plus the servers' starts and the stacks' first installs (a JDK, Mono, PHP, Go, gSOAP).
# `scripts/run.sh --stack wstest --stack ceiling` takes about 3. Without --out it writes the
# report (index.html, results.json, the charts) to results/DATE-TIME and says where; without
# --resources it adds it, so that each cell shows the server's CPU a request.
#
# Usage: scripts/run.sh [SUITE OPTIONS...]
#   e.g. scripts/run.sh --stack wstest --stack ceiling --duration 1s --repeat 1
#        scripts/run.sh --stack wstest --stack gsoap --client loadgen,ab --out /tmp/results
# (target/release/loadgen suite --help lists the options.)
# Needs: cargo and make (installed when missing), and ab for --client ab (Debian apache2-utils).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"
# jemalloc, the server's allocator, builds its C sources with make.
ensure_debian_packages make:make
cargo build --release -q -p loadgen-cli -p server -p ceiling --manifest-path "$root/Cargo.toml"

given() {
    local arg wanted
    for arg in "${@:2}"; do
        for wanted in $1; do
            case $arg in "$wanted" | "$wanted"=*) return 0 ;; esac
        done
    done
    return 1
}
defaults=()
if ! given "--stack --target" "$@"; then
    for stack in wstest ceiling gsoap go-stdlib java-jaxws java-netty-jibx java-netty-stax \
        mono-asmx mono-wcf php-soap; do
        defaults+=(--stack "$stack")
    done
    given "--warmup" "$@" || defaults+=(--warmup 2s)
    given "--duration" "$@" || defaults+=(--duration 2s)
fi
given "--resources" "$@" || defaults+=(--resources)
out=
if ! given "--out -o --redraw --help -h --version -V" "$@"; then
    out="$root/results/$(date -u +%Y%m%d-%H%M%S)"
    defaults+=(--out "$out")
fi
status=0
"$root/target/release/loadgen" suite "${defaults[@]}" "$@" || status=$?
if [ -n "$out" ] && [ -e "$out/index.html" ]; then
    cat >&2 <<TEXT

The report: $out/index.html (one file; open it in a browser, e.g. xdg-open, or copy it
anywhere). results.json, results.csv and the charts are beside it.
To choose the stacks (each installs what it needs the first time; scripts/stacks/README.md):
    scripts/run.sh --stack wstest --stack ceiling --stack node-soap --stack python-spyne ...
or all of them with ab beside loadgen: scripts/compare.sh (about an hour).
TEXT
fi
exit "$status"
