#!/usr/bin/env bash
# Makes a virtual environment in build/venv with spyne, lxml and gunicorn from PyPI (Python 3
# and its venv module from Debian when missing). Idempotent; quiet when already done.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=scripts/lib.sh
. ../../lib.sh
ensure_debian_packages python3:python3
python3 -c 'import venv, ensurepip' 2>/dev/null || ensure_debian_packages no-such-command:python3-venv
if [ ! -x build/venv/bin/gunicorn ]; then
    python3 -m venv build/venv
    build/venv/bin/pip install -q --disable-pip-version-check spyne==2.14.0 lxml gunicorn
fi
