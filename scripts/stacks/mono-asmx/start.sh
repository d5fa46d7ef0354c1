#!/usr/bin/env bash
# The ASMX service cannot be hosted here yet (README.md); setup.sh says why.
set -euo pipefail
cd "$(dirname "$0")"
bash setup.sh
echo "mono-asmx: no host for the service on this machine (README.md)" >&2
exit 1
