#!/usr/bin/env bash
# Builds wstest-server with profile-guided optimisation: an instrumented build answers loadgen
# with every post file, and the release build is then compiled with that profile. The result is
# target/pgo/release/wstest-server (the plain `cargo build --release` is untouched).
#
# Usage: scripts/pgo-build.sh [N_REQUESTS]
#   N_REQUESTS  per post file in the training run, default 20000
# Needs: cargo, python3, and rustup's llvm-tools component for llvm-profdata (the script adds
# it with `rustup component add llvm-tools` if it is missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

n_requests=${1:-20000}
sysroot=$(rustc --print sysroot)
host=$(rustc -vV | awk '/^host:/ { print $2 }')
profdata="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ]; then
    rustup component add llvm-tools >&2
fi
[ -x "$profdata" ] || die "no llvm-profdata at $profdata (rustup component add llvm-tools)"

profiles="$root/target/pgo-profiles"
rm -rf "$profiles"
mkdir -p "$profiles"
cargo build --release -q -p loadgen --manifest-path "$root/Cargo.toml"
RUSTFLAGS="-Cprofile-generate=$profiles" \
    cargo build --release -q -p server --manifest-path "$root/Cargo.toml" --target-dir "$root/target/pgo-generate"

trap 'stop_server || true' EXIT
start_server "$root/target/pgo-generate/release/wstest-server" --addr 127.0.0.1:0 --threads 1
AB="$root/target/release/loadgen" "$here/ab-all.sh" "http://$server_addr/WSTest" "$n_requests" 30 >&2
stop_server

"$profdata" merge -o "$profiles/merged.profdata" "$profiles"
RUSTFLAGS="-Cprofile-use=$profiles/merged.profdata" \
    cargo build --release -q -p server --manifest-path "$root/Cargo.toml" --target-dir "$root/target/pgo"
echo "$root/target/pgo/release/wstest-server"
