#!/usr/bin/env bash
# Runs php-fpm and, in the foreground, nginx in front of it on 127.0.0.1:PORT (0 picks a free
# port; the listening line on stderr names it). Both are stopped with this process group. Run
# setup.sh first. WORKERS (environment) sets php-fpm's pool, 4 by default (README.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
run="$here/build/run-$$"
rm -rf "$here"/build/run-*
mkdir -p "$run/body"
# As root, php-fpm's workers must run as someone else.
user=""
[ "$(id -u)" != 0 ] || user="user = nobody"
# loadgen suite --tls: nginx, PHP's own front, serves TLS and h2 (ALPN) itself.
tls_listen="" tls_certs="" scheme=http
if [ -n "${WSTEST_TLS_CERT:-}" ] && [ -n "${WSTEST_TLS_KEY:-}" ]; then
    tls_listen=" ssl http2"
    tls_certs="ssl_certificate $WSTEST_TLS_CERT; ssl_certificate_key $WSTEST_TLS_KEY; ssl_protocols TLSv1.2 TLSv1.3; ssl_session_cache shared:tls:10m;"
    scheme=https
fi
fill() {
    sed -e "s|@RUN@|$run|g" -e "s|@HERE@|$here|g" -e "s|@WORKERS@|${WORKERS:-4}|g" \
        -e "s|@USER@|$user|" -e "s|@TLS_LISTEN@|$tls_listen|" -e "s|@TLS_CERTS@|$tls_certs|" "$1"
}
fill "$here/php-fpm.conf.in" >"$run/php-fpm.conf"
fill "$here/nginx.conf.in" >"$run/nginx.conf.in"
# opcache is a system setting: on the command line, not in the pool.
php-fpm8.2 -F -y "$run/php-fpm.conf" -c /etc/php/8.2/fpm/php.ini \
    -d opcache.enable=1 -d opcache.validate_timestamps=0 &
# php-fpm makes its socket at once; nginx connects to it on the first request.
SCHEME=$scheme exec python3 "$here/listen.py" "${1:-8082}" "$run/nginx.conf.in" "$run/nginx.conf" -p "$run"
