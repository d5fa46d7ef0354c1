#!/usr/bin/env bash
# Installs Go from Debian (golang-go) when missing and builds the server into build/.
# Idempotent; quiet when already done.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=scripts/lib.sh
. ../../lib.sh
ensure_debian_packages go:golang-go
if [ ! -x build/wstest-go ] || [ main.go -nt build/wstest-go ]; then
    go build -trimpath -o build/wstest-go .
fi
