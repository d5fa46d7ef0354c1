#!/usr/bin/env bash
# Prints what this stack runs on.
cd "$(dirname "$0")"
build/venv/bin/python - <<'PY'
import platform
from importlib.metadata import version
print(f"spyne {version('spyne')}, lxml {version('lxml')}, gunicorn {version('gunicorn')} (gthread), CPython {platform.python_version()}")
PY
