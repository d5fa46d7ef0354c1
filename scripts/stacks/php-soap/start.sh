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
fill() {
    sed -e "s|@RUN@|$run|g" -e "s|@HERE@|$here|g" -e "s|@WORKERS@|${WORKERS:-4}|g" \
        -e "s|@USER@|$user|" "$1"
}
fill "$here/php-fpm.conf.in" >"$run/php-fpm.conf"
fill "$here/nginx.conf.in" >"$run/nginx.conf.in"
# opcache is a system setting: on the command line, not in the pool.
php-fpm8.2 -F -y "$run/php-fpm.conf" -c /etc/php/8.2/fpm/php.ini \
    -d opcache.enable=1 -d opcache.validate_timestamps=0 &
# php-fpm makes its socket at once; nginx connects to it on the first request.
exec python3 "$here/listen.py" "${1:-8082}" "$run/nginx.conf.in" "$run/nginx.conf" -p "$run"
