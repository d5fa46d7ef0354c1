#!/usr/bin/env bash
# The comparison this project exists for: ours (wstest), the HTTP ceiling, and every stack
# under scripts/stacks/, each post file of the manifest, with loadgen and with the real ab,
# servers on core 0 and clients on core 1, repeats interleaved across targets. Writes the
# table, results.json and the SVG charts into OUT_DIR. Then, unless KNEES=0, the knees: the
# highest rate each stack sustains with its latency objective met (SLO) on two tests, with
# loadgen, into KNEE_DIR.
#
# Usage: scripts/compare.sh [OUT_DIR]
#   OUT_DIR   default docs/results/compare
#   DURATION, WARMUP, REPEAT, CONCURRENCY (environment): per cell, default 3s, 2s, 3, 30
#   KNEES (default 1), KNEE_DIR (default docs/results/knees), SLO (default p99<=10ms),
#   KNEE_TESTS (default EchoVoid,GetOrder-20)
# The warm-up is long enough for the JVM's JIT; the stacks' setups install their toolchains
# the first time (a JDK, Go, Mono, npm and PyPI packages).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"
ensure_debian_packages ab:apache2-utils

out=${1:-$here/../docs/results/compare}
stacks=(wstest ceiling gsoap java-jaxws java-netty-jibx java-netty-stax go-stdlib mono-asmx mono-wcf node-soap php-soap python-spyne)
args=()
for stack in "${stacks[@]}"; do
    args+=(--stack "$stack")
done
"$here/run.sh" "${args[@]}" --client loadgen,ab \
    --duration "${DURATION:-3s}" --warmup "${WARMUP:-2s}" --repeat "${REPEAT:-3}" \
    --concurrency "${CONCURRENCY:-30}" --latency --resources --format markdown --out "$out"
if [ "${KNEES:-1}" != 0 ]; then
    # One closed-loop run per cell (the ramp's range), then the search; 2 s steps after the
    # same warm-up. A 10 ms p99: tighter objectives measure this shared VM's stalls (docs/results/knee-check.md).
    "$here/run.sh" "${args[@]}" --client loadgen --tests "${KNEE_TESTS:-EchoVoid,GetOrder-20}" \
        --duration 2s --warmup "${WARMUP:-2s}" --repeat 1 --concurrency "${CONCURRENCY:-30}" \
        --slo "${SLO:-p99<=10ms}" --format markdown --out "${KNEE_DIR:-$here/../docs/results/knees}"
fi
