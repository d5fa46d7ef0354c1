#!/usr/bin/env bash
# Runs spyne under gunicorn in the foreground on 127.0.0.1:PORT (0 picks a free port; the
# listening line on stderr names it). Run setup.sh first.
set -euo pipefail
cd "$(dirname "$0")"
exec build/venv/bin/gunicorn -c gunicorn.conf.py -b "127.0.0.1:${1:-8082}" app:application
