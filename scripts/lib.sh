# Helpers sourced by the scripts in this folder.
# shellcheck shell=bash

die() {
    echo "$(basename "$0"): $*" >&2
    exit 1
}

require() {
    command -v "$1" >/dev/null 2>&1 || die "needs $1 ($2)"
}

# Prints a free TCP port on 127.0.0.1.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until something accepts connections on 127.0.0.1:$1, for at most 10 seconds.
wait_for_port() {
    local port=$1 tries=0
    until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
        tries=$((tries + 1))
        [ "$tries" -lt 200 ] || die "nothing listens on port $port after 10 s"
        sleep 0.05
    done
}

# Prints the SOAPAction of post file $2 from manifest $1.
manifest_action() {
    awk -v name="$2" '
        /^name = / { gsub(/"/, "", $3); current = $3 }
        /^soap_action = / && current == name { gsub(/"/, "", $3); print $3; exit }
    ' "$1"
}

# Prints the names of the post files listed in manifest $1.
manifest_names() {
    awk '/^name = / { gsub(/"/, "", $3); print $3 }' "$1"
}

# Writes to $1 a wrk script that POSTs the file $POST_FILE with the SOAPAction $SOAP_ACTION
# (both read from the environment when wrk starts).
write_wrk_post_script() {
    cat >"$1" <<'LUA'
local f = assert(io.open(os.getenv("POST_FILE"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "text/xml; charset=utf-8"
wrk.headers["SOAPAction"] = '"' .. os.getenv("SOAP_ACTION") .. '"'
LUA
}

# The median of the numbers given.
median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Builds the HTTP ceiling server (../shared/tools/ceiling beside the repo at $1, or $CEILING_DIR)
# outside the repo, in $CEILING_TARGET (default /tmp/ceiling); sets ceiling_src and ceiling_bin.
build_ceiling() {
    ceiling_src=${CEILING_DIR:-$1/../shared/tools/ceiling}
    local target=${CEILING_TARGET:-/tmp/ceiling}
    [ -d "$ceiling_src" ] || die "no ceiling server at $ceiling_src (set CEILING_DIR)"
    cargo build --release -q --manifest-path "$ceiling_src/Cargo.toml" --target-dir "$target"
    ceiling_bin="$target/release/ceiling"
}
