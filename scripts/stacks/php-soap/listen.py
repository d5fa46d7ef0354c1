"""Binds 127.0.0.1:PORT (0: a free port), writes nginx's configuration for the port it got, says
where it listens, and becomes nginx with the bound socket: nginx cannot listen on port 0 itself,
but adopts listening sockets passed in its NGINX environment variable (the mechanism of its
binary upgrade). So no port is chosen first and bound later.

Usage: python3 listen.py PORT TEMPLATE CONFIG [NGINX ARGS...]
"""
import os
import socket
import sys

port, template, config, *nginx_args = sys.argv[1:]
listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", int(port)))
listener.listen(1024)
bound = listener.getsockname()[1]
with open(template) as source, open(config, "w") as target:
    target.write(source.read().replace("@PORT@", str(bound)))
os.set_inheritable(listener.fileno(), True)
os.environ["NGINX"] = f"{listener.fileno()};"
scheme = os.environ.get("SCHEME", "http")
print(f"php-soap: listening on {scheme}://127.0.0.1:{bound}/WSTest", file=sys.stderr, flush=True)
os.execvp("nginx", ["nginx", "-c", config, *nginx_args])
