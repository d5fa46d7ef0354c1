#!/usr/bin/env bash
# The main job: builds wstest-server, starts it on a free port, and runs ApacheBench against it
# with every post file (scripts/ab-all.sh), then stops the server.
#
# Usage: scripts/run.sh [N_REQUESTS] [CONCURRENCY]
#   N_REQUESTS   per post file, default 20000
#   CONCURRENCY  default 30
# Needs: cargo, ab (Debian package apache2-utils), python3.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"
require ab "Debian package apache2-utils"

n_requests=${1:-20000}
concurrency=${2:-30}

cargo build --release -q -p server --manifest-path "$root/Cargo.toml"
port=$(free_port)
"$root/target/release/wstest-server" --addr "127.0.0.1:$port" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
wait_for_port "$port"
"$here/ab-all.sh" "http://127.0.0.1:$port/WSTest" "$n_requests" "$concurrency"
kill -TERM "$pid"
wait "$pid"
