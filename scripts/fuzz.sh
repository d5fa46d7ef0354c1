#!/usr/bin/env bash
# Coverage-guided fuzzing of every target in fuzz/ (cargo-fuzz on the nightly toolchain), each
# for a set time, one after another, and a summary of executions, coverage and findings.
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#   SECONDS  per target, default 60
#   TARGET   respond, lexers_agree, round_trip, http_response, loadgen_cli,
#            encodings_respond, h2_client, wsdl_reader, mix_file, template, answer_check
#            (default: all)
#   JOBS     (environment) targets run side by side, default 1; CPU (environment) pins them,
#            e.g. CPU=1
#
# Needs rustup's nightly toolchain and cargo-fuzz (installed with `cargo install cargo-fuzz`
# when missing). Seeds each corpus from post_files/, the client samples, our responses to the
# post files, the bodies of the hostile-input corpus, and a few HTTP responses and command
# lines; the corpora stay in fuzz/corpus/ (ignored by git) and grow from run to run. A crash
# or disagreement is saved under fuzz/artifacts/TARGET/ and the script exits 1; each one found
# becomes a regression test in the normal test suite. Not part of CI.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
seconds=${1:-60}
shift || true
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=(respond lexers_agree round_trip http_response loadgen_cli encodings_respond h2_client wsdl_reader mix_file template answer_check)
jobs=${JOBS:-1}

rustup toolchain list | grep -q '^nightly' ||
    { echo "fuzz.sh: needs the nightly toolchain: rustup toolchain install nightly" >&2; exit 1; }
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

fuzz="$root/fuzz"
cd "$fuzz"
cargo +nightly fuzz build -O >/dev/null

# Seeds: XML for the wstest targets, HTTP responses and command lines for loadgen's.
responses=$(mktemp -d)
trap 'rm -rf "$responses"' EXIT
cargo run -q --release --manifest-path "$root/Cargo.toml" -p wsperf -- --generate "$responses" >/dev/null
# The bodies of the hostile-input corpus (server/tests/hostile/), up to 64 KiB.
cargo run -q --release --manifest-path "$root/Cargo.toml" -p server --example send_corpus -- \
    --bodies "$responses/hostile"
for target in respond lexers_agree round_trip; do
    mkdir -p "corpus/$target"
    cp "$root"/post_files/*.xml "$root"/wstest/tests/data/clients/*.xml "$responses"/*.xml \
        "$responses"/hostile/*.xml "corpus/$target/"
done
# The encoded post files, each behind the byte that picks its encoding and operation.
mkdir -p corpus/encodings_respond
operations=(echovoid echostruct echolist echosynthetic getorder)
for file in "$root"/post_files/*.json "$root"/post_files/*.msgpack "$root"/post_files/*.avro; do
    name=$(basename "$file")
    case "$name" in *.json) e=0 ;; *.msgpack) e=1 ;; *.avro) e=2 ;; esac
    for k in "${!operations[@]}"; do
        [[ "$name" == "${operations[k]}"* ]] || continue
        { printf "\\$(printf '%03o' $((e + 3 * k)))"; cat "$file"; } >"corpus/encodings_respond/$name"
    done
done
mkdir -p corpus/http_response corpus/loadgen_cli
printf '\003HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n<a>Response<' >corpus/http_response/length
printf '\005HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nFault\r\n2;x=y\r\n>!\r\n0\r\nTrailer: 1\r\n\r\n' >corpus/http_response/chunked
printf '\001HTTP/1.0 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\nConnection: close\r\n\r\nbody' >corpus/http_response/close
printf -- '-k\0-c\00030\0-n\0001000\0-p\0post_files/getorder20.xml\0-T\0text/xml\0-H\0SOAPAction: x\0http://127.0.0.1:8082/WSTest' >corpus/loadgen_cli/ab
printf -- '--duration\0002s\0--rate\0001000\0--json\0out.json\0--timeout\0001.5\0http://[::1]:80/' >corpus/loadgen_cli/long

# A server's first frames: SETTINGS, a head and a body, a PING, a window, a GOAWAY.
mkdir -p corpus/h2_client
settings='\0\0\014\4\0\0\0\0\0\0\3\0\0\0\144\0\4\0\0\377\377'
head='\0\0\012\1\4\0\0\0\1\210\17\047\006wstest'
body='\0\0\005\0\1\0\0\0\1hello'
printf "\001$settings$head$body" >corpus/h2_client/response
printf "\002$settings\0\0\010\6\0\0\0\0\0abcdefgh\0\0\004\10\0\0\0\0\0\0\0\1\0\0\0\0\010\7\0\0\0\0\0\0\0\0\1\0\0\0\0" >corpus/h2_client/control

# WSDLs: the size byte, then the WSDL and (for shapes.wsdl) its schema as the first import.
mkdir -p corpus/wsdl_reader corpus/mix_file
for file in "$root"/wstest/wstest.wsdl "$root"/wsdl/tests/wsdl/*.wsdl "$root"/wsdl/tests/wsdl/bad/*.wsdl; do
    { printf '\001'; sed 's/shapes\.xsd/0.xsd/' "$file"; } >"corpus/wsdl_reader/$(basename "$file")"
done
{ printf '\002'; sed 's/shapes\.xsd/0.xsd/' "$root/wsdl/tests/wsdl/shapes.wsdl"; printf '\0'; cat "$root/wsdl/tests/wsdl/shapes.xsd"; } >corpus/wsdl_reader/shapes-with-schema
mkdir -p corpus/template
printf '<a>{{id}}</a><n>{{ name }}</n>{{seq}}{{random -3 3}}{{uuid}}{{now +5m}}{{pick a|b}}{{{{x{{wsse-username-token @id pw}}\0id,name\nC1,"a, ""b"""\r\nC2,x\n' >corpus/template/csv
printf '{{a}}|{{b}}|{{wsse-username-token u @b text}}\0{"a": "x", "b": 2}\n\n{"b": null, "a": "y"}\n' >corpus/template/jsonl
mkdir -p corpus/answer_check
printf "count(/Envelope/Body/EchoStructResponse/EchoStructResult/l) = 20\0" >corpus/answer_check/count
printf "//l[2]/s/text() = 'wstest 2'\0<soap:Envelope xmlns:soap=\"urn:s\"><soap:Body><R><l><i>1</i><s>a &amp; b</s></l><l><i>2</i><s><![CDATA[wstest 2]]></s></l><!-- c --></R></soap:Body></soap:Envelope>" >corpus/answer_check/echo
printf "not(//@id != 3)\0<?xml version=\"1.0\"?><!DOCTYPE a [<!ENTITY x \"y\">]><a id='3'><b id=\"3\" xmlns:p=\"u\"/>text<p:c/></a>" >corpus/answer_check/attributes
for file in "$root"/post_files/*.xml; do
    { printf '//*[3]/text() > 2\0'; cat "$file"; } >"corpus/answer_check/$(basename "$file")"
done
printf '# weight name method path body [options]\n70 EchoStruct-20 POST /WSTest s.xml -T text/xml -H '"'"'SOAPAction: "a"'"'"' --expect-body R\n30 void GET - - --expect-status 200 --reject-body Fault\n' >corpus/mix_file/two
printf -- '- login POST /l l.xml --save t=//token --save-regex '"'"'s=id=(\\d+)'"'"'\n- call POST /c c.xml -H '"'"'X: {{t}}'"'"'\n[flow]\nlogin\ncall x3\n' >corpus/mix_file/flow

run_target() {
    local target=$1 log="$fuzz/artifacts/$1.log"
    mkdir -p "artifacts/$target"
    local pin=()
    [ -z "${CPU:-}" ] || pin=(taskset -c "$CPU")
    if "${pin[@]}" cargo +nightly fuzz run -O "$target" "corpus/$target" -- \
        -max_total_time="$seconds" -dict="$fuzz/xml.dict" -max_len=65536 \
        -artifact_prefix="artifacts/$target/" >"$log" 2>&1; then
        status=ok
    else
        status=FOUND
    fi
    local done_line
    done_line=$(grep -E '^#[0-9]+' "$log" | tail -1)
    printf '%-14s %-5s %s s  %s\n' "$target" "$status" "$seconds" "$done_line"
    [ "$status" = ok ]
}

failed=0
running=0
for target in "${targets[@]}"; do
    run_target "$target" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n || failed=1
        running=$((running - 1))
    fi
done
while [ "$running" -gt 0 ]; do
    wait -n || failed=1
    running=$((running - 1))
done
[ "$failed" = 0 ] || { echo "fuzz.sh: a target found something: see fuzz/artifacts/" >&2; exit 1; }
