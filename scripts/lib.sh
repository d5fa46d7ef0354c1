# Helpers sourced by the scripts in this folder.
# shellcheck shell=bash

die() {
    echo "$(basename "$0"): $*" >&2
    exit 1
}

# Starts "$@" in the background (a server that binds 127.0.0.1:0 and prints a line containing
# "listening on http://HOST:PORT/" on stderr, as wstest-server and ceiling do), waits for that
# line for at most 30 seconds, and sets server_pid and server_addr (HOST:PORT). The server's
# stderr goes on to server_log, a temporary file that stop_server removes. Reading the bound
# address, rather than choosing a free port first, leaves no window for another process to
# take the port.
start_server() {
    server_log=$(mktemp)
    "$@" 2>"$server_log" &
    server_pid=$!
    server_addr=""
    local tries=0
    while [ -z "$server_addr" ]; do
        if ! kill -0 "$server_pid" 2>/dev/null; then
            die "$1 exited before listening: $(cat "$server_log")"
        fi
        tries=$((tries + 1))
        [ "$tries" -lt 600 ] || die "$1 printed no listening line in 30 s"
        sleep 0.05
        server_addr=$(sed -n 's|.*listening on http://\([^/ ]*\).*|\1|p' "$server_log" | head -n 1)
    done
}

# Stops the server that start_server started (SIGTERM, then waits for it), if it still runs;
# returns the server's exit status (0 after a graceful shutdown).
stop_server() {
    local status=0
    if [ -n "${server_pid:-}" ]; then
        kill -TERM "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || status=$?
    fi
    if [ -n "${server_log:-}" ]; then
        rm -f "$server_log"
    fi
    server_pid="" server_log=""
    return "$status"
}

# Installs the Debian packages whose commands are missing, given as COMMAND:PACKAGE pairs.
# As root it runs apt-get; otherwise it prints the exact command to run and exits.
ensure_debian_packages() {
    local pair missing=()
    for pair in "$@"; do
        command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
    done
    [ "${#missing[@]}" -gt 0 ] || return 0
    if [ "$(id -u)" != 0 ]; then
        echo "$(basename "$0"): needs Debian packages that are not installed; run:" >&2
        echo "    sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
    echo "$(basename "$0"): installing ${missing[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
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

# Downloads a Debian source tarball from deb.debian.org's POOL_PATH $2 into file $1 (unless it
# is there) and checks it against SHA-256 $3, failing with a message that names the file.
fetch_debian_source() {
    local file=$1 pool_path=$2 checksum=$3
    ensure_debian_packages curl:curl
    if [ ! -f "$file" ]; then
        curl -fsS -o "$file.part" "https://deb.debian.org/debian/$pool_path" \
            || die "could not download $pool_path from deb.debian.org"
        mv "$file.part" "$file"
    fi
    echo "$checksum  $file" | sha256sum --check --quiet \
        || die "$file does not have the checksum of Debian's $(basename "$file")"
}

# Links Debian's netty-tcnative JNI library (OpenSSL's TLS for Netty, package
# libnetty-tcnative-jni) into $1 under the name Netty 4.1 loads it by (netty_tcnative), so that
# a JVM started with -Djava.library.path=$1 finds it; Debian ships it as libnetty-tcnative.so.
link_netty_tcnative() {
    local out=$1 lib
    lib=$(dpkg -L libnetty-tcnative-jni | grep '/libnetty-tcnative\.so$' | head -n 1)
    [ -n "$lib" ] || die "libnetty-tcnative-jni has no libnetty-tcnative.so"
    mkdir -p "$out"
    # A copy, not a link: the JVM loads a library by its real path, and tcnative takes its JNI
    # package prefix from that file name, refusing any other.
    cp "$lib" "$out/libnetty_tcnative.so"
}

# Builds Netty's native epoll transport (the JNI library Debian's libnetty-java leaves out; its
# jars hold the Java side) into directory $1, from the C sources of the same Debian source
# package, checked by checksum. Prints nothing when the library is already there. The Netty
# stacks load it with -Djava.library.path=$1 and fall back to NIO without it.
build_netty_epoll() {
    local out=$1 version tarball=netty_4.1.48.orig.tar.xz
    local checksum=e5351d821f461f64af58e89f260ad8943b0ab75f26c1a845300a91f22a711600
    local lib="$out/libnetty_transport_native_epoll_$(uname -m | sed 's/aarch64/aarch_64/').so"
    [ -f "$lib" ] && return 0
    version=$(dpkg-query -W -f='${Version}' libnetty-java)
    case "$version" in
        1:4.1.48-*) ;;
        *) die "libnetty-java is $version; build_netty_epoll knows the source of 4.1.48 only" ;;
    esac
    ensure_debian_packages gcc:gcc curl:curl
    mkdir -p "$out"
    fetch_debian_source "$out/$tarball" "pool/main/n/netty/$tarball" "$checksum"
    local src="$out/src" java_home
    rm -rf "$src" && mkdir -p "$src"
    tar -xJf "$out/$tarball" -C "$src" --strip-components=1 \
        netty-netty-4.1.48.Final/transport-native-epoll/src/main/c \
        netty-netty-4.1.48.Final/transport-native-unix-common/src/main/c
    java_home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    local epoll="$src/transport-native-epoll/src/main/c" unix="$src/transport-native-unix-common/src/main/c"
    gcc -O2 -shared -fPIC -fvisibility=hidden -w \
        -I"$java_home/include" -I"$java_home/include/linux" -I"$epoll" -I"$unix" \
        "$epoll"/*.c "$unix"/*.c -o "$lib"
}
