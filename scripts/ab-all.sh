#!/usr/bin/env bash
# Runs ApacheBench (or anything with its command line and report, such as loadgen: set
# AB=target/release/loadgen) against a running wstest-server with every post file, one line
# per file.
#
# Usage: [AB=tool] scripts/ab-all.sh [URL] [N_REQUESTS] [CONCURRENCY]
#   URL          default http://127.0.0.1:8082/WSTest
#   N_REQUESTS   default 20000
#   CONCURRENCY  default 30
# Any request that fails or is not 2xx makes the script exit non-zero.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"
ab=${AB:-ab}
require "$ab" "Debian package apache2-utils, or AB=target/release/loadgen"

url=${1:-http://127.0.0.1:8082/WSTest}
n_requests=${2:-20000}
concurrency=${3:-30}
post_files="$here/../post_files"
status=0

printf '%-22s %12s %10s %8s %8s\n' "post file" "requests/s" "ms/req" "failed" "non-2xx"
for name in $(manifest_names "$post_files/manifest.toml"); do
    action=$(manifest_action "$post_files/manifest.toml" "$name")
    report=$("$ab" -q -k -c "$concurrency" -n "$n_requests" -T 'text/xml; charset=utf-8' \
        -H "SOAPAction: \"$action\"" -p "$post_files/$name" "$url")
    rps=$(awk '/^Requests per second:/ { print $4 }' <<<"$report")
    ms=$(awk '/^Time per request:/ { print $4; exit }' <<<"$report")
    failed=$(awk '/^Failed requests:/ { print $3 }' <<<"$report")
    non2xx=$(awk '/^Non-2xx responses:/ { print $3 }' <<<"$report")
    non2xx=${non2xx:-0}
    printf '%-22s %12s %10s %8s %8s\n' "$name" "$rps" "$ms" "$failed" "$non2xx"
    if [ "$failed" != 0 ] || [ "$non2xx" != 0 ]; then
        status=1
    fi
done
exit "$status"
