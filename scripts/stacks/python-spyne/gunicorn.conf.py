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


def when_ready(server):
    # The line `loadgen suite` and the scripts read, with the port the kernel chose for port 0.
    for listener in server.LISTENERS:
        host, port = listener.sock.getsockname()[:2]
        print(f"spyne listening on http://{host}:{port}/WSTest", file=__import__("sys").stderr, flush=True)
