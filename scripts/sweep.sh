#!/usr/bin/env bash
# Our server at 1, 8, 30, 100 and 300 connections, every post file, with loadgen: the table,
# results.json and the requests-per-second-against-concurrency chart into OUT_DIR.
#
# Usage: scripts/sweep.sh [OUT_DIR]
#   OUT_DIR   default docs/results/sweep
#   DURATION, WARMUP, REPEAT (environment): per cell, default 3s, 1s, 3
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../docs/results/sweep}
"$here/run.sh" --stack wstest --concurrency 1,8,30,100,300 \
    --duration "${DURATION:-3s}" --warmup "${WARMUP:-1s}" --repeat "${REPEAT:-3}" \
    --latency --format markdown --out "$out"
