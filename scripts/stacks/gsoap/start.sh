#!/usr/bin/env bash
# Runs the gSOAP WSTest server in the foreground on 127.0.0.1:PORT (0 picks a free port; the
# listening line on stderr names it). Run setup.sh first.
set -euo pipefail
cd "$(dirname "$0")"
exec build/wstest-gsoap "${1:-8082}"
