#!/usr/bin/env bash
# Checks deploy/ as far as a machine without a Kubernetes cluster can:
#  1. renders the manifests for 1, 3 and 16 shards and compares them with
#     deploy/kubernetes/expected/ (as the test suite does);
#  2. validates them and rbac.yaml strictly (no unknown fields) against the Kubernetes 1.37 API
#     schema with kubernetes-validate (PyPI, in a venv under target/), and checks that a
#     misspelt field is refused, so that a validator that passes everything would show;
#  3. builds the image without a base image (scripts/image.sh --prebuilt), unpacks it, and runs
#     its wstest-server and loadgen chrooted into it, as the image's user, on loopback: a GetOrder
#     test through them must complete with no failure.
# What it cannot check here: a real cluster's scheduling, pulls, DNS, anti-affinity and logs
# (podman cannot run containers in this sandbox either: crun may not set rlimits).
#
# Usage: scripts/check-deploy.sh          (as root: chroot, podman)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"
[ "$(id -u)" = 0 ] || die "needs root (chroot, podman)"
ensure_debian_packages python3:python3 chroot:coreutils
work=$(mktemp -d)
trap 'stop_server; rm -rf "$work"' EXIT

echo "== 1. rendering for 1, 3 and 16 shards"
for n in 1 3 16; do
    "$root/scripts/k8s-run.sh" --render "$work/n$n" --start-at 2026-12-04T10:00:00Z \
        --name wstest-example --image registry.example.com/wstest:1 "$n"
    diff -u "$root/deploy/kubernetes/expected/loadgen-job-$n.yaml" "$work/n$n/loadgen-job.yaml"
    diff -u "$root/deploy/kubernetes/expected/server.yaml" "$work/n$n/server.yaml"
done
echo "same as deploy/kubernetes/expected/"

echo "== 2. the Kubernetes API schema (strict)"
venv="$root/target/check-deploy-venv"
if [ ! -x "$venv/bin/kubernetes-validate" ]; then
    python3 -m venv "$venv" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
    "$venv/bin/pip" install -q kubernetes-validate==1.37.0
fi
"$venv/bin/kubernetes-validate" --strict -k 1.37.0 "$work"/n*/*.yaml \
    "$root/deploy/kubernetes/rbac.yaml"
sed 's/completionMode:/completionMod:/' "$work/n3/loadgen-job.yaml" >"$work/misspelt.yaml"
if "$venv/bin/kubernetes-validate" --strict --quiet -k 1.37.0 "$work/misspelt.yaml" >/dev/null 2>&1; then
    die "the validator took a misspelt field (completionMod): it checks nothing"
fi
echo "a misspelt field is refused, as it must be"

echo "== 3. the image"
tag=localhost/wstest:check
"$root/scripts/image.sh" --prebuilt "$tag"
container=$(podman create "$tag")
podman export "$container" | tar -x -C "$work" --one-top-level=rootfs
podman rm "$container" >/dev/null
(cd "$work/rootfs" && find . -type f | sort | sed 's|^\./|  /|')
user=$(podman image inspect "$tag" --format '{{.Config.User}}')
start_server chroot --userspec="$user" "$work/rootfs" /usr/local/bin/wstest-server \
    --addr 127.0.0.1:0 --threads 1
chroot --userspec="$user" "$work/rootfs" /usr/local/bin/loadgen -q -k -c 4 -n 20000 \
    -T 'text/xml; charset=utf-8' \
    -H "SOAPAction: \"$(manifest_action "$root/post_files/manifest.toml" getorder20.xml)\"" \
    -p /post_files/getorder20.xml "http://$server_addr/WSTest" >"$work/report.txt"
grep -E '^(Complete|Failed) requests' "$work/report.txt"
grep -q '^Complete requests: *20000$' "$work/report.txt" &&
    grep -q '^Failed requests: *0$' "$work/report.txt" ||
    die "the test through the image's binaries did not complete: $(cat "$work/report.txt")"
echo "the image's binaries run alone (static, no libraries), as user $user"
