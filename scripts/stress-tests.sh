#!/usr/bin/env bash
# Runs the whole test suite RUNS times in a row while two busy loops load both cores (the
# machine's and CI's size), and appends the count of failed runs to RESULTS_FILE. A test that
# depends on a timing window fails here first. It tests the committed tree (HEAD), cloned into
# a temporary folder and built there once, so that edits made meanwhile change nothing.
#
# Usage: scripts/stress-tests.sh [RUNS] [RESULTS_FILE]
#   RUNS          default 20
#   RESULTS_FILE  default docs/results/stress-tests.md
# Needs what scripts/test.sh needs (it installs it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"
runs=${1:-20}
results=${2:-$here/../docs/results/stress-tests.md}

work=$(mktemp -d)
git clone -q "$root" "$work/wstest"
commit=$(git -C "$work/wstest" rev-parse --short HEAD)
export CARGO_TARGET_DIR="$work/target"
# Installs the tools and builds the tests once, before the load starts.
"$work/wstest/scripts/test.sh" --no-run -q
logs="$work/logs"
mkdir -p "$logs"
busy=()
cleanup() {
    [ "${#busy[@]}" -eq 0 ] || kill "${busy[@]}" 2>/dev/null || true
}
trap cleanup EXIT
for _ in 1 2; do
    bash -c 'while :; do :; done' &
    busy+=($!)
done

failures=0
started=$(date +%s)
for run in $(seq "$runs"); do
    if cargo test --workspace --manifest-path "$work/wstest/Cargo.toml" -q >"$logs/$run.log" 2>&1; then
        echo "run $run: passed"
    else
        failures=$((failures + 1))
        mkdir -p /tmp/stress-tests-failed
        cp "$logs/$run.log" "/tmp/stress-tests-failed/$commit-$run.log"
        echo "run $run: FAILED (log kept in /tmp/stress-tests-failed/$commit-$run.log)"
        grep -E "panicked|FAILED|^error" "$logs/$run.log" | head -5 || true
    fi
done
elapsed=$(($(date +%s) - started))
mkdir -p "$(dirname "$results")"
{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, at commit $commit"
    echo
    echo "Command: \`scripts/stress-tests.sh $runs\` (two busy loops on the $(nproc) cores throughout)"
    echo
    echo "$runs runs of the whole suite, $failures failed, $((elapsed / runs)) s a run."
} | tee -a "$results"
rm -rf "$work"
[ "$failures" -eq 0 ]
