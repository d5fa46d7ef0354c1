#!/usr/bin/env bash
# Runs the Netty server in the foreground on 127.0.0.1:PORT (0 picks a free port; the listening
# line on stderr names it), tuned for throughput: the parallel collector, a fixed heap touched
# up front, and an event loop per core this process may use. Run setup.sh first.
set -euo pipefail
cd "$(dirname "$0")"
exec java -server -XX:+UseParallelGC -Xms512m -Xmx512m -XX:+AlwaysPreTouch \
    -Dio.netty.leakDetection.level=disabled -Djava.library.path=build/native \
    -cp "build/classes:$(cat classpath)" WSTestServer "${1:-8082}"
