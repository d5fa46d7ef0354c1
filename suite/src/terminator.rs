//! `--tls` for a stack that serves plain HTTP only: nginx in front of it, terminating TLS (and
//! HTTP/2 by ALPN) with the suite's certificate and passing each request on over kept-alive
//! HTTP/1.1 connections, on the stack's cores. Every such stack gets the same terminator, set
//! up alike, so that their figures compare with each other (not with a stack that serves TLS
//! itself: nginx's work is then part of the cell, which the table's name says). It tells the
//! stack the scheme and host the client used (Forwarded, X-Forwarded-Proto), so that a stack
//! that trusts them (wstest-server with `--trust-proxy`) gives its WSDL the https address.

use std::path::Path;
use std::process::Command;

use anyhow::Context as _;
use loadgen::url::Url;

/// The command that runs nginx in the foreground in front of `backend`, on a free port, and
/// prints `... listening on https://127.0.0.1:PORT/PATH` once that port takes connections
/// (nginx itself prints nothing), serving the PEM certificate `cert` with its `key`. `dir`
/// gets its configuration, pid file and error log.
pub(crate) fn command(
    backend: &Url,
    cert: &Path,
    key: &Path,
    dir: &Path,
    workers: usize,
) -> anyhow::Result<Command> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let port = free_port()?;
    let config = format!(
        "worker_processes {workers};\n\
         pid {dir}/nginx.pid;\n\
         error_log {dir}/error.log warn;\n\
         events {{ worker_connections 16384; }}\n\
         http {{\n\
         \x20 access_log off;\n\
         \x20 client_body_temp_path {dir}/body;\n\
         \x20 proxy_temp_path {dir}/proxy;\n\
         \x20 upstream backend {{ server {host}:{backend_port}; keepalive 512; }}\n\
         \x20 server {{\n\
         \x20   listen 127.0.0.1:{port} ssl http2;\n\
         \x20   ssl_certificate {cert};\n\
         \x20   ssl_certificate_key {key};\n\
         \x20   ssl_protocols TLSv1.2 TLSv1.3;\n\
         \x20   keepalive_requests 100000000;\n\
         \x20   client_max_body_size 64m;\n\
         \x20   location / {{\n\
         \x20     proxy_pass http://backend;\n\
         \x20     proxy_http_version 1.1;\n\
         \x20     proxy_set_header Connection \"\";\n\
         \x20     proxy_set_header Host $http_host;\n\
         \x20     proxy_set_header X-Forwarded-Proto $scheme;\n\
         \x20     proxy_set_header Forwarded \"proto=$scheme;host=\\\"$http_host\\\"\";\n\
         \x20   }}\n\
         \x20 }}\n\
         }}\n",
        dir = dir.display(),
        host = backend.host,
        backend_port = backend.port,
        cert = cert.display(),
        key = key.display(),
    );
    let conf = dir.join("nginx.conf");
    std::fs::write(&conf, config).with_context(|| format!("writing {}", conf.display()))?;
    // nginx in the foreground, and a line for the suite once its port answers.
    let script = format!(
        "command -v nginx >/dev/null || {{ echo 'the TLS terminator needs nginx (Debian: nginx-light)' >&2; exit 1; }}\n\
         nginx -c {conf} -p {dir} -g 'daemon off;' &\n\
         nginx=$!\n\
         for _ in $(seq 300); do\n\
         \x20 if (exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null; then\n\
         \x20   echo \"nginx $(nginx -v 2>&1 | sed 's|.*/||') listening on https://127.0.0.1:{port}{path}\"; break\n\
         \x20 fi\n\
         \x20 kill -0 $nginx 2>/dev/null || break\n\
         \x20 sleep 0.1\n\
         done\n\
         wait $nginx\n",
        conf = conf.display(),
        dir = dir.display(),
        path = backend.path,
    );
    let mut command = Command::new("bash");
    command.arg("-c").arg(script);
    Ok(command)
}

/// A port nothing listens on now (the kernel's choice for port 0, let go at once).
fn free_port() -> anyhow::Result<u16> {
    let listener =
        std::net::TcpListener::bind("127.0.0.1:0").context("finding a free port for nginx")?;
    Ok(listener.local_addr()?.port())
}
