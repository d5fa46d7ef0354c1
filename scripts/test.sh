#!/usr/bin/env bash
# The test command: installs the Debian tools that the tests call when they are missing (ab
# from apache2-utils, xmllint from libxml2-utils, openssl for scripts/certs.sh, nginx for
# the TLS terminator, which the suite's --tls test runs, and PHP's SoapClient from php-cli and
# php-soap, a WSDL client the server's interop test runs over TLS) and make (which builds the
# server's allocator, jemalloc), then runs every test of the workspace.
#
# Usage: scripts/test.sh [CARGO TEST ARGS...]
# As root it installs with apt-get; otherwise it prints the exact install command and stops.
# WSTEST_SKIP_EXTERNAL_TOOLS=1 installs nothing, and the tests that need a missing tool pass
# over it with a note instead of failing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

if [ "${WSTEST_SKIP_EXTERNAL_TOOLS:-}" != 1 ]; then
    ensure_debian_packages ab:apache2-utils xmllint:libxml2-utils openssl:openssl nginx:nginx-light make:make php:php-cli
    # SoapClient is PHP's only with its soap extension; the name before the colon is a command
    # that never exists, so that the package is installed whenever the class is missing.
    php -r 'exit(class_exists("SoapClient") ? 0 : 1);' ||
        ensure_debian_packages wstest-php-soap-missing:php-soap
fi
cargo test --workspace --manifest-path "$here/../Cargo.toml" "$@"
