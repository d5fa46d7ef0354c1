#!/usr/bin/env bash
# Installs Mono's ASP.NET server (Debian's mono-xsp4) and checks that it starts. On Debian 12 it
# does not (README.md): then this fails with the reason, and the stack cannot be measured.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=scripts/lib.sh
. ../../lib.sh
ensure_debian_packages xsp4:mono-xsp4
if ! output=$(xsp4 --version 2>&1) || grep -q "Unhandled Exception" <<<"$output"; then
    die "xsp4 does not start on this Mono ($(mono --version | head -1)): $(grep -m1 -o 'Could not load type[^(]*' <<<"$output" || echo "$output" | head -3). See README.md."
fi
