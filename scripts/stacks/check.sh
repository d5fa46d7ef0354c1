#!/usr/bin/env bash
# Checks that every stack (or those named) answers every case of post_files/manifest.toml
# correctly: `loadgen suite` sets each up, starts it, runs its correctness check and a short
# timed cell, and exits 3 if any answer was wrong or any request failed.
#
# Usage: scripts/stacks/check.sh [STACK...]
# Slow the first time: the setups install a JDK, Go, npm and PyPI packages. Not run by CI.
# With no STACK, every folder but those with a DOES-NOT-RUN file (which says why; named anyway,
# they fail with that reason).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
stacks=("$@")
if [ "${#stacks[@]}" -eq 0 ]; then
    for dir in "$here"/*/; do
        if [ -f "$dir/DOES-NOT-RUN" ]; then
            echo "skipping $(basename "$dir"): $(head -n 1 "$dir/DOES-NOT-RUN")" >&2
            continue
        fi
        stacks+=("$(basename "$dir")")
    done
fi
args=()
for stack in "${stacks[@]}"; do
    args+=(--stack "$stack")
done
"$root/scripts/run.sh" --stack wstest "${args[@]}" --duration 300ms --warmup 200ms --repeat 1
echo "every stack answered every case: ${stacks[*]}"
