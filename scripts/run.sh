#!/usr/bin/env bash
# The main job: builds loadgen, wstest-server and the ceiling (release), then runs `loadgen
# suite`, which starts wstest-server on its own core, checks every case of
# post_files/manifest.toml, times each one, and prints the WSTest table.
#
# Usage: scripts/run.sh [SUITE OPTIONS...]
#   e.g. scripts/run.sh --duration 2s --repeat 1
#        scripts/run.sh --stack wstest --stack ceiling --client loadgen,ab --out /tmp/results
# (target/release/loadgen suite --help lists the options.)
# Needs: cargo and make (installed when missing), and ab for --client ab (Debian apache2-utils).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"
# jemalloc, the server's allocator, builds its C sources with make.
ensure_debian_packages make:make
cargo build --release -q -p loadgen-cli -p server -p ceiling --manifest-path "$root/Cargo.toml"
exec "$root/target/release/loadgen" suite "$@"
