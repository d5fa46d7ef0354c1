#!/usr/bin/env bash
# Makes a throwaway CA and a server certificate it signs, for TLS runs on this machine:
#   scripts/certs.sh [DIR] [KEY]
# DIR (default target/certs) gets ca.pem and ca.key, and cert.pem and key.pem for localhost,
# 127.0.0.1 and ::1, valid for 30 days. KEY is the server key's type: ec (P-256, the default,
# what most TLS benchmarks use), rsa (2048 bits, the web's most common) or ed25519. Existing
# files of the same key type are kept, so that repeated runs reuse them; nothing here is
# meant to be trusted beyond this machine.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${1:-target/certs}
key=${2:-ec}
command -v openssl >/dev/null || { echo "certs.sh: needs openssl (Debian: openssl)" >&2; exit 1; }
case "$key" in
    ec) newkey=(-newkey ec -pkeyopt ec_paramgen_curve:P-256) ;;
    rsa) newkey=(-newkey rsa:2048) ;;
    ed25519) newkey=(-newkey ed25519) ;;
    *) echo "certs.sh: KEY is ec, rsa or ed25519, not $key" >&2; exit 2 ;;
esac

mkdir -p "$dir"
if [ -s "$dir/cert.pem" ] && [ -s "$dir/key.pem" ] && [ "$(cat "$dir/key-type" 2>/dev/null)" = "$key" ]; then
    echo "$dir: cert.pem and key.pem ($key) already there"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
    -subj "/CN=wstest throwaway CA" -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null
openssl req "${newkey[@]}" -nodes -subj "/CN=localhost" \
    -keyout "$dir/key.pem" -out "$tmp/server.csr" 2>/dev/null
printf '%s\n' \
    "basicConstraints=critical,CA:FALSE" \
    "keyUsage=critical,digitalSignature,keyEncipherment" \
    "extendedKeyUsage=serverAuth" \
    "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1" >"$tmp/ext"
openssl x509 -req -in "$tmp/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
    -CAcreateserial -CAserial "$tmp/ca.srl" -days 30 -extfile "$tmp/ext" \
    -out "$dir/cert.pem" 2>/dev/null
echo "$key" >"$dir/key-type"
echo "$dir: ca.pem (trust it with loadgen --cacert), cert.pem and key.pem ($key) for localhost, 127.0.0.1 and ::1"
