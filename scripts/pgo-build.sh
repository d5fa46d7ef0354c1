#!/usr/bin/env bash
# Builds wstest-server with profile-guided optimisation: an instrumented build answers
# `loadgen suite` on every post file, and the release build is then compiled with that profile.
# The result is target/pgo/release/wstest-server (the plain `cargo build --release` is
# untouched).
#
# Usage: scripts/pgo-build.sh [SECONDS]
#   SECONDS  of training per post file, default 2
# Needs: cargo, and rustup's llvm-tools component for llvm-profdata (the script adds it with
# `rustup component add llvm-tools` if it is missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

seconds=${1:-2}
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
cargo build --release -q -p loadgen-cli --manifest-path "$root/Cargo.toml"
RUSTFLAGS="-Cprofile-generate=$profiles" \
    cargo build --release -q -p server --manifest-path "$root/Cargo.toml" --target-dir "$root/target/pgo-generate"

# The suite starts the instrumented server, and stops it with SIGTERM: it exits gracefully and
# writes its profile.
"$root/target/release/loadgen" suite --server-bin "$root/target/pgo-generate/release/wstest-server" \
    --duration "${seconds}s" --warmup 0s --repeat 1 >&2

"$profdata" merge -o "$profiles/merged.profdata" "$profiles"
RUSTFLAGS="-Cprofile-use=$profiles/merged.profdata" \
    cargo build --release -q -p server --manifest-path "$root/Cargo.toml" --target-dir "$root/target/pgo"
echo "$root/target/pgo/release/wstest-server"
