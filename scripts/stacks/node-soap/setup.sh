#!/usr/bin/env bash
# Installs Node.js and npm from Debian when missing, then the soap package (the version in
# package.json) from the npm registry into node_modules/. Idempotent; quiet when already done.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=scripts/lib.sh
. ../../lib.sh
ensure_debian_packages node:nodejs npm:npm
if [ ! -d node_modules/soap ] || [ package.json -nt node_modules/soap ]; then
    npm install --silent --no-package-lock --no-audit --no-fund
    touch node_modules/soap
fi
