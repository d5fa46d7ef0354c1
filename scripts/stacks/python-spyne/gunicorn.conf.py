# gunicorn as its documentation tunes it for CPU-bound work: one worker process per core this
# process may use (the suite pins servers to their cores), threads so that keep-alive
# connections are kept (sync workers close every connection), and no access log.
import os

workers = len(os.sched_getaffinity(0))
worker_class = "gthread"
threads = 4
keepalive = 30
accesslog = None
loglevel = "warning"

# loadgen suite --tls passes a certificate: gunicorn serves it itself (Python's ssl, on
# OpenSSL; HTTP/1.1 only), unless the clients will speak HTTP/2 (WSTEST_HTTP2), which
# gunicorn does not: then plain HTTP, and the suite's nginx in front.
_cert, _key = os.environ.get("WSTEST_TLS_CERT"), os.environ.get("WSTEST_TLS_KEY")
TLS = bool(_cert and _key and os.environ.get("WSTEST_HTTP2") != "1")
if TLS:
    certfile, keyfile = _cert, _key


def when_ready(server):
    # The line `loadgen suite` and the scripts read, with the port the kernel chose for port 0.
    for listener in server.LISTENERS:
        host, port = listener.sock.getsockname()[:2]
        scheme = "https" if TLS else "http"
        print(f"spyne listening on {scheme}://{host}:{port}/WSTest", file=__import__("sys").stderr, flush=True)
