#!/usr/bin/env bash
# Runs the JAX-WS server in the foreground on 127.0.0.1:PORT (0 picks a free port; the listening
# line on stderr names it), with the same JVM tuning as java-netty-stax: the parallel collector
# and a fixed heap touched up front. The JDK's HTTP server writes a response's head and body
# apart and leaves Nagle's algorithm on unless told (sun.net.httpserver.nodelay): without it,
# every response waited for the client's delayed ACK, 600 requests a second on any test.
# Metro's monitoring (JMX beans for every endpoint) is off,
# and SAAJ is named, so that it does not search for itself at start. Run setup.sh first.
set -euo pipefail
cd "$(dirname "$0")"
exec java -server -XX:+UseParallelGC -Xms512m -Xmx512m -XX:+AlwaysPreTouch \
    -Dsun.net.httpserver.nodelay=true \
    -Dcom.sun.xml.ws.monitoring.endpoint=false -Dcom.sun.xml.ws.monitoring.client=false \
    -Djavax.xml.soap.SAAJMetaFactory=com.sun.xml.messaging.saaj.soap.SAAJMetaFactoryImpl \
    -cp "build/classes:$(cat classpath)" WSTestService "${1:-8082}"
