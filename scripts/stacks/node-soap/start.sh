#!/usr/bin/env bash
# Runs node-soap in the foreground on 127.0.0.1:PORT (0 picks a free port; the listening line
# on stderr names it), a cluster worker per core. Run setup.sh first.
set -euo pipefail
cd "$(dirname "$0")"
exec node server.js "${1:-8082}"
