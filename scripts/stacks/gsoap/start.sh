#!/usr/bin/env bash
# Runs the gSOAP WSTest server in the foreground on 127.0.0.1:PORT (0 picks a free port; the
# listening line on stderr names it). Run setup.sh first. Under loadgen suite --tls
# (WSTEST_TLS_CERT and WSTEST_TLS_KEY) it serves TLS itself, gSOAP on OpenSSL, unless the
# clients will speak HTTP/2 (WSTEST_HTTP2), which gSOAP does not: then plain HTTP, and the
# suite's nginx in front.
set -euo pipefail
cd "$(dirname "$0")"
if [ -n "${WSTEST_TLS_CERT:-}" ] && [ -n "${WSTEST_TLS_KEY:-}" ] && [ "${WSTEST_HTTP2:-}" != 1 ]; then
    # gSOAP reads the key and the certificate chain from one file.
    keyfile=build/tls-key-and-chain.pem
    (umask 077 && cat "$WSTEST_TLS_KEY" "$WSTEST_TLS_CERT" >"$keyfile")
    exec build/wstest-gsoap-tls "${1:-8082}" "$keyfile"
fi
exec build/wstest-gsoap "${1:-8082}"
