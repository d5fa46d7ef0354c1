#!/usr/bin/env bash
# The test command: installs the Debian tools that the tests call when they are missing (ab
# from apache2-utils, xmllint from libxml2-utils, openssl for scripts/certs.sh and nginx for
# the TLS terminator, which the suite's --tls test runs) and make (which builds the server's
# allocator, jemalloc), then runs every test of the workspace.
#
# Usage: scripts/test.sh [CARGO TEST ARGS...]
# As root it installs with apt-get; otherwise it prints the exact install command and stops.
# WSTEST_SKIP_EXTERNAL_TOOLS=1 installs nothing, and the tests that need a missing tool pass
# over it with a note instead of failing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

if [ "${WSTEST_SKIP_EXTERNAL_TOOLS:-}" != 1 ]; then
    ensure_debian_packages ab:apache2-utils xmllint:libxml2-utils openssl:openssl nginx:nginx-light make:make
fi
cargo test --workspace --manifest-path "$here/../Cargo.toml" "$@"
