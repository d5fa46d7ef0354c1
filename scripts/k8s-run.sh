#!/usr/bin/env bash
# One loadgen test split across a Kubernetes cluster: renders deploy/kubernetes/ for N shards
# and one start time, applies the Indexed Job with kubectl (and the server, with --server),
# waits for it, collects every shard's JSON from its pod's log, merges them with
# `loadgen merge`, and prints the merged report.
#
# Usage: scripts/k8s-run.sh [OPTIONS] N [LOADGEN ARGS... URL]
#   N                 shards (pods), 1 to 1000
#   LOADGEN ARGS URL  the test, as for loadgen; default: GetOrder 20, -k -c 64 -n 1000000,
#                     against the in-cluster server http://wstest-server:8080/WSTest
# Options:
#   --image IMAGE     the image with loadgen (and wstest-server); default $WSTEST_IMAGE or
#                     localhost/wstest:latest (build it with scripts/image.sh, push it where the
#                     cluster pulls from)
#   --server          also deploy wstest-server (Deployment + Service) and wait until it is ready
#   --start-in S      seconds from applying the Job to the shared start; default 60 (time for
#                     the pods to be scheduled, pull the image and connect)
#   --name NAME       the Job's name; default wstest-YYYYMMDD-HHMMSS
#   --out DIR         where the logs, JSON files and merged report go; default a new temp folder
#   --delete          delete the Job (and the server, with --server) after collecting
#   --render DIR      write the rendered manifests to DIR and stop (no cluster needed)
#   --start-at TIME   the start time to render (with --render; RFC 3339)
# kubectl's own settings apply (KUBECONFIG, the current context and namespace). $LOADGEN names
# the loadgen that merges (default: the workspace's, built). deploy/kubernetes/fake-kubectl
# stands in for kubectl without a cluster: it runs the Job's shards as local processes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"

image=${WSTEST_IMAGE:-localhost/wstest:latest}
with_server=0 start_in=60 name="" out="" delete=0 render_dir="" start_at=""
while [ $# -gt 0 ]; do
    case "$1" in
        --image) image=${2:?--image needs a value}; shift 2 ;;
        --server) with_server=1; shift ;;
        --start-in) start_in=${2:?--start-in needs seconds}; shift 2 ;;
        --name) name=${2:?--name needs a value}; shift 2 ;;
        --out) out=${2:?--out needs a folder}; shift 2 ;;
        --delete) delete=1; shift ;;
        --render) render_dir=${2:?--render needs a folder}; shift 2 ;;
        --start-at) start_at=${2:?--start-at needs a time}; shift 2 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) break ;;
    esac
done
[ $# -ge 1 ] && [[ "$1" =~ ^[1-9][0-9]*$ ]] && [ "$1" -le 1000 ] ||
    die "usage: $0 [OPTIONS] N [LOADGEN ARGS... URL] (N from 1 to 1000; --help for the options)"
n_shards=$1
shift
[[ "$start_in" =~ ^[0-9]+$ ]] || die "--start-in takes whole seconds, not $start_in"
if [ $# -gt 0 ]; then
    test_args=("$@")
else
    test_args=(-k -c 64 -n 1000000 -T 'text/xml; charset=utf-8'
        -H "SOAPAction: \"$(manifest_action "$root/post_files/manifest.toml" getorder20.xml)\""
        -p /post_files/getorder20.xml http://wstest-server:8080/WSTest)
fi
name=${name:-wstest-$(date -u +%Y%m%d-%H%M%S)}
[[ "$name" =~ ^[a-z0-9]([-a-z0-9]{0,50}[a-z0-9])?$ ]] ||
    die "--name $name: a Job's name is lowercase letters, digits and '-', at most 52 long"

# A YAML double-quoted string of $1.
yaml_quote() {
    local text=${1//\\/\\\\}
    text=${text//\"/\\\"}
    printf '"%s"' "$text"
}

# Writes deploy/kubernetes/$1 to $2 with the placeholders filled in.
render() {
    local line indent arg
    while IFS= read -r line || [ -n "$line" ]; do
        if [[ "$line" =~ ^([[:space:]]*)@ARGS@$ ]]; then
            indent=${BASH_REMATCH[1]}
            for arg in "${test_args[@]}"; do
                printf '%s- %s\n' "$indent" "$(yaml_quote "$arg")"
            done
            continue
        fi
        line=${line//@RUN@/$name}
        line=${line//@SHARDS@/$n_shards}
        line=${line//@START_AT@/$start_at}
        line=${line//@IMAGE@/$image}
        printf '%s\n' "$line"
    done <"$root/deploy/kubernetes/$1" >"$2"
}

if [ -n "$render_dir" ]; then
    [ -n "$start_at" ] || die "--render needs --start-at TIME"
    mkdir -p "$render_dir"
    render server.yaml "$render_dir/server.yaml"
    render loadgen-job.yaml "$render_dir/loadgen-job.yaml"
    exit 0
fi
[ -z "$start_at" ] || die "--start-at is for --render; a run starts --start-in seconds after it applies the Job"
command -v kubectl >/dev/null || die "needs kubectl, set up for the cluster (KUBECONFIG)"
# The loadgen that merges: $LOADGEN, or the workspace's, built now.
if [ -z "${LOADGEN:-}" ]; then
    cargo build --release -q -p loadgen-cli --manifest-path "$root/Cargo.toml"
    LOADGEN="$root/target/release/loadgen"
fi
out=${out:-$(mktemp -d)}
mkdir -p "$out"

if [ "$with_server" = 1 ]; then
    render server.yaml "$out/server.yaml"
    kubectl apply -f "$out/server.yaml" >&2
    kubectl rollout status deployment/wstest-server --timeout=5m >&2
fi
start_at=$(date -u -d "@$(($(date +%s) + start_in))" +%Y-%m-%dT%H:%M:%SZ)
render loadgen-job.yaml "$out/loadgen-job.yaml"
kubectl apply -f "$out/loadgen-job.yaml" >&2
echo "job/$name: $n_shards shards starting at $start_at; files in $out" >&2

# Until every shard has succeeded, or one has failed.
while :; do
    status=$(kubectl get job "$name" -o jsonpath='{.status.succeeded} {.status.failed}')
    read -r succeeded failed <<<"$status "
    if [ "${failed:-0}" -gt 0 ]; then
        kubectl get pods -l "job-name=$name" >&2 || true
        die "job/$name: a shard failed (kubectl logs -l job-name=$name shows why)"
    fi
    [ "${succeeded:-0}" -lt "$n_shards" ] || break
    sleep 2
done

# Each pod's log, named by its shard.
logs=()
while read -r pod index; do
    [ -n "$pod" ] || continue
    kubectl logs "$pod" >"$out/shard-$index.log"
    logs+=("$out/shard-$index.log")
done < <(kubectl get pods -l "job-name=$name" --field-selector=status.phase=Succeeded \
    -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.annotations.batch\.kubernetes\.io/job-completion-index}{"\n"}{end}')
[ "${#logs[@]}" = "$n_shards" ] || die "job/$name: found ${#logs[@]} logs of $n_shards shards"
"$LOADGEN" merge --json "$out/merged.json" "${logs[@]}" | tee "$out/merged.txt"

if [ "$delete" = 1 ]; then
    kubectl delete job "$name" >&2
    [ "$with_server" = 0 ] || kubectl delete -f "$out/server.yaml" >&2
fi
