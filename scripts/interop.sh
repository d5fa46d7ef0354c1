#!/usr/bin/env bash
# TLS and HTTP/2 interop both ways, as issue 20 asks, each run checked for every request
# complete and none failed:
#   - other clients against wstest-server: ab (-k, and a new TLS connection a request), curl
#     (--http2 over TLS, --http2-prior-knowledge), h2load (h2c, and h2 over TLS);
#   - loadgen against other servers: nginx (OpenSSL: TLS with HTTP/1.1, h2 over TLS, h2c) and
#     Go's net/http (crypto/tls and its own HTTP/2: h2 over TLS, h2c is not Go's default).
#
# Usage: scripts/interop.sh [N]   (N requests a run, default 2000)
# Needs ab (apache2-utils), curl, h2load (nghttp2-client), nginx and go (golang-go); installs
# what is missing with apt-get when run as root. Prints one line a run, and exits 1 if any
# run lost a request.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-2000}

need=()
command -v ab >/dev/null || need+=(apache2-utils)
command -v curl >/dev/null || need+=(curl)
command -v h2load >/dev/null || need+=(nghttp2-client)
command -v nginx >/dev/null || need+=(nginx)
command -v go >/dev/null || need+=(golang-go)
if [ "${#need[@]}" -gt 0 ]; then
    [ "$(id -u)" = 0 ] || { echo "interop.sh: needs ${need[*]} (apt-get install)" >&2; exit 1; }
    apt-get install -y -qq "${need[@]}" >/dev/null
fi

cargo build -q --release -p server -p loadgen-cli
bin=target/release
scripts/certs.sh >/dev/null
cert=target/certs/cert.pem key=target/certs/key.pem ca=target/certs/ca.pem
post=post_files/echostruct20.xml
action='SOAPAction: "uri:WSTestWeb-TestService/EchoStruct"'

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

# A port nothing listens on now.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.05
    done
    echo "interop.sh: nothing listens on port $1" >&2
    return 1
}

failed=0
# report NAME COMPLETE FAILED: one line, and the verdict.
report() {
    local verdict=ok
    if [ "$2" != "$n" ] || [ "$3" != 0 ]; then verdict=LOST; failed=1; fi
    printf '%-62s %6s complete %4s failed  %s\n' "$1" "$2" "$3" "$verdict"
}
ab_like() { # NAME, then the command: reads ab's or loadgen's report
    local name=$1; shift
    local out
    out=$("$@" 2>&1) || true
    report "$name" "$(awk '/^Complete requests:/ {print $3}' <<<"$out")" \
        "$(awk '/^Failed requests:/ {print $3}' <<<"$out")"
}
h2load_run() {
    local name=$1; shift
    local out
    out=$(h2load "$@" 2>&1) || true
    # "requests: 2000 total, 2000 started, 2000 done, 2000 succeeded, 0 failed, 0 errored, ..."
    local line
    line=$(grep '^requests:' <<<"$out")
    report "$name" "$(awk '{print $8}' <<<"$line")" "$(awk '{print $10}' <<<"$line")"
}
curl_run() { # NAME, then curl's options: 100 requests, a curl each, counted by 200 over h2
    # (one curl for many URLs fails from the second on in curl 7.88, whatever the server).
    local name=$1; shift
    local i ok=0
    for i in $(seq 100); do
        curl -s -o /dev/null -w '%{http_code} %{http_version}\n' "$@" \
            -H 'Content-Type: text/xml; charset=utf-8' -H "$action" --data-binary "@$post" \
            "$url_for_curl" | grep -q '^200 2$' && ok=$((ok + 1))
    done
    n=100 report "$name" "$ok" "$((100 - ok))"
}

# --- Other clients against wstest-server ---
plain=$(free_port) tls=$(free_port)
$bin/wstest-server --addr "127.0.0.1:$plain" 2>"$work/plain.log" &
pids+=($!)
$bin/wstest-server --addr "127.0.0.1:$tls" --tls-cert "$cert" --tls-key "$key" 2>"$work/tls.log" &
pids+=($!)
wait_port "$plain"
wait_port "$tls"
echo "other clients against wstest-server (hyper, rustls):"
ab_like "  ab -k over TLS" ab -q -k -c 10 -n "$n" -T 'text/xml; charset=utf-8' -H "$action" \
    -p "$post" "https://127.0.0.1:$tls/WSTest"
ab_like "  ab over TLS, a new connection a request" ab -q -c 10 -n "$n" \
    -T 'text/xml; charset=utf-8' -H "$action" -p "$post" "https://127.0.0.1:$tls/WSTest"
url_for_curl="https://localhost:$tls/WSTest"
curl_run "  curl --http2 over TLS (ALPN h2, verified)" --http2 --cacert "$ca" \
    --resolve "localhost:$tls:127.0.0.1"
url_for_curl="http://127.0.0.1:$plain/WSTest"
curl_run "  curl --http2-prior-knowledge (h2c)" --http2-prior-knowledge
h2load_run "  h2load h2c, 10 streams a connection" -c 10 -m 10 -n "$n" -d "$post" \
    -H 'content-type: text/xml; charset=utf-8' -H "$action" "http://127.0.0.1:$plain/WSTest"
h2load_run "  h2load over TLS, 10 streams a connection" -c 10 -m 10 -n "$n" -d "$post" \
    -H 'content-type: text/xml; charset=utf-8' -H "$action" "https://127.0.0.1:$tls/WSTest"

# --- loadgen against other servers ---
nginx_tls=$(free_port) nginx_h2c=$(free_port)
mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $work/nginx;
    server {
        listen 127.0.0.1:$nginx_tls ssl http2;
        ssl_certificate $PWD/$cert;
        ssl_certificate_key $PWD/$key;
        keepalive_requests 1000000;
        location / { return 200 "<EchoStructResponse/>"; }
    }
    # nginx's default of 1,000 requests a connection: then a GOAWAY, and loadgen opens another.
    server {
        listen 127.0.0.1:$nginx_h2c http2;
        location / { return 200 "<EchoStructResponse/>"; }
    }
}
EOF
nginx -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
pids+=($!)
wait_port "$nginx_tls"
wait_port "$nginx_h2c"

go_tls=$(free_port)
mkdir -p "$work/go"
cat >"$work/go/main.go" <<'EOF'
// Go's net/http over crypto/tls, HTTP/2 by ALPN (its own h2 server), answering every POST.
package main

import (
	"io"
	"net/http"
	"os"
)

func main() {
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/xml; charset=utf-8")
		io.WriteString(w, "<EchoStructResponse/>")
	})
	panic(http.ListenAndServeTLS(os.Args[1], os.Args[2], os.Args[3], nil))
}
EOF
(cd "$work/go" && GOFLAGS=-mod=mod GO111MODULE=off go build -o server main.go)
"$work/go/server" "127.0.0.1:$go_tls" "$cert" "$key" 2>"$work/go.log" &
pids+=($!)
wait_port "$go_tls"

echo "loadgen against other servers:"
lg() { $bin/loadgen -q -c 10 -n "$n" -T 'text/xml; charset=utf-8' -H "$action" -p "$post" \
    --expect-body EchoStructResponse "$@"; }
ab_like "  loadgen -k over TLS to nginx $(nginx -v 2>&1 | sed 's|.*/||') (OpenSSL)" \
    lg -k --cacert "$ca" -H Host:localhost "https://127.0.0.1:$nginx_tls/"
ab_like "  loadgen over TLS to nginx, a new connection a request" \
    lg --cacert "$ca" -H Host:localhost "https://127.0.0.1:$nginx_tls/"
ab_like "  loadgen --http2 --streams 10 over TLS to nginx" \
    lg --http2 --streams 10 --cacert "$ca" -H Host:localhost "https://127.0.0.1:$nginx_tls/"
ab_like "  loadgen --http2 --streams 10 h2c to nginx" \
    lg --http2 --streams 10 "http://127.0.0.1:$nginx_h2c/"
n=$((n * 3)) ab_like "  loadgen --http2 -c 2 h2c to nginx, past 1,000 a connection" \
    $bin/loadgen -q -c 2 -n $((n * 3)) --http2 --streams 10 -T 'text/xml; charset=utf-8' \
    -p "$post" "http://127.0.0.1:$nginx_h2c/"
ab_like "  loadgen --http2 --streams 10 over TLS to Go $(go version | awk '{print $3}')" \
    lg --http2 --streams 10 --cacert "$ca" -H Host:localhost "https://127.0.0.1:$go_tls/"
ab_like "  loadgen --http2 --rate 2000 over TLS to Go" \
    lg --http2 --streams 4 --rate 2000 --cacert "$ca" -H Host:localhost "https://127.0.0.1:$go_tls/"
[ "$failed" = 0 ] || { echo "interop.sh: a run lost requests" >&2; exit 1; }
