#!/usr/bin/env bash
# The main job: builds loadgen, wstest-server and the ceiling (release), then runs `loadgen
# suite`, which starts each server on its own core, checks every case of
# post_files/manifest.toml, times each one, and prints the WSTest table.
#
# With no --stack or --target it measures ours beside the ceiling (hyper answering canned
# bytes: the HTTP limit of this machine) and the two native stacks, gSOAP (C) and Go's standard
# library, which install from Debian in a minute and need no warm JIT: the comparison the
# project exists for, in about ten minutes (scripts/compare.sh runs every stack); without --out
# it writes the report (index.html, results.json, the charts) to results/DATE-TIME and says
# where; without --resources it adds it, so that each cell shows the server's CPU a request.
#
# Usage: scripts/run.sh [SUITE OPTIONS...]
#   e.g. scripts/run.sh --duration 2s --repeat 1
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
given "--stack --target" "$@" || defaults+=(--stack wstest --stack ceiling --stack gsoap --stack go-stdlib)
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
To add the other stacks (each installs what it needs the first time; scripts/stacks/README.md):
    scripts/run.sh --stack wstest --stack ceiling --stack java-netty-stax --stack mono-wcf ...
or all of them with ab beside loadgen: scripts/compare.sh (about an hour).
TEXT
fi
exit "$status"
