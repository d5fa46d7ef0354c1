#!/usr/bin/env bash
# The main job: builds wstest-server and loadgen, starts the server on a free port, and runs
# loadgen against it with every post file (scripts/ab-all.sh, which reads loadgen's ab-format
# report as it would ab's), then stops the server. AB=ab runs ApacheBench instead.
#
# Usage: [AB=ab] scripts/run.sh [N_REQUESTS] [CONCURRENCY]
#   N_REQUESTS   per post file, default 20000
#   CONCURRENCY  default 30
# Needs: cargo (and ab for AB=ab: Debian package apache2-utils).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

n_requests=${1:-20000}
concurrency=${2:-30}

cargo build --release -q -p server -p loadgen --manifest-path "$root/Cargo.toml"
trap 'stop_server || true' EXIT
start_server "$root/target/release/wstest-server" --addr 127.0.0.1:0
AB=${AB:-$root/target/release/loadgen} "$here/ab-all.sh" "http://$server_addr/WSTest" "$n_requests" "$concurrency"
stop_server
