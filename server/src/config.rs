//! The command line and the settings it yields.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;

/// The paths served by default, matched without regard to case: the ones WSTest clients of
/// every lineage post to.
pub const DEFAULT_PATHS: [&str; 4] = [
    "/WSTest",
    "/wstest-soap",
    "/WSTest/services/TestServiceSoap",
    "/WSTest/TestService.asmx",
];

/// wstest-server: the WSTest SOAP 1.1 benchmark service (EchoVoid, EchoStruct, EchoList,
/// EchoSynthetic, GetOrder) on hyper.
#[derive(Debug, Parser)]
#[command(
    name = "wstest-server",
    version,
    about,
    long_about = None,
    after_help = "Durations: 30s, 500ms, 2m, 1h; a bare number is seconds."
)]
pub struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8082")]
    pub addr: SocketAddr,
    /// Worker threads, each with its own event loop; 0 means one per core this process may use.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Largest request body accepted, in bytes; larger ones get 413.
    #[arg(long, default_value_t = 4 * 1024 * 1024)]
    pub max_body: usize,
    /// How long a client has to send a request's headers once they start; over HTTP/2, to finish
    /// any frame other than DATA (a header block with its CONTINUATIONs, the preface) once it
    /// starts. Never counts while an answer is being written. 0 turns the limit off.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = host::duration::parse)]
    pub header_timeout: Duration,
    /// How long a client has to send a request's body once its headers are in (over HTTP/2, per
    /// stream: 408 at the limit); 0 turns the limit off.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = host::duration::parse)]
    pub body_timeout: Duration,
    /// How long an answer may go without progress: the socket not drained, or over HTTP/2 no
    /// answer moving because the client keeps its windows shut. A client reading slowly but
    /// steadily is never cut. Past it the connection ends (HTTP/2: GOAWAY, then the close); 0
    /// turns the limit off.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = host::duration::parse)]
    pub write_timeout: Duration,
    /// How long a keep-alive connection may sit idle between requests (HTTP/2: no stream open, no
    /// answer left to write, no bytes moving; then GOAWAY and the close); 0 turns the limit off.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = host::duration::parse)]
    pub idle_timeout: Duration,
    /// How long requests in flight get to finish after SIGTERM or SIGINT; answers still
    /// unwritten then are cut off (and counted in the summary the server prints).
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = host::duration::parse)]
    pub shutdown_grace: Duration,
    /// Connections served at once; past it, new ones wait in the kernel's accept queue until
    /// one closes.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,
    /// Another path to serve, besides /WSTest, /wstest-soap, /WSTest/services/TestServiceSoap
    /// and /WSTest/TestService.asmx (repeatable).
    #[arg(long = "path", value_name = "PATH")]
    pub paths: Vec<String>,
    /// The XML binding that decodes requests and encodes responses: ours, ours on quick-xml's
    /// reader alone, or serde derive over quick-xml or serde-xml-rs. Each answers alike.
    #[arg(long, value_enum, default_value_t = BindingChoice::Streaming)]
    pub binding: BindingChoice,
    /// Serve TLS with this certificate chain (PEM), offering HTTP/2 and HTTP/1.1 by ALPN; needs
    /// --tls-key. Without it the server speaks plain HTTP/1.1, and HTTP/2 to clients that open
    /// with its preface (h2c with prior knowledge).
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key (PEM: PKCS#8, PKCS#1 or SEC1) of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// How long a client has from its connection to the end of the TLS handshake; 0 turns the
    /// limit off.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = host::duration::parse)]
    pub tls_handshake_timeout: Duration,
    /// HTTP/2: streams a client may have open at once on one connection; more are refused
    /// (REFUSED_STREAM).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_streams: u32,
    /// Behind a proxy that terminates TLS: take the scheme and host of the WSDL's address from
    /// the proxy's Forwarded or X-Forwarded-Proto and X-Forwarded-Host headers. Off by
    /// default, since any client can send them.
    #[arg(long)]
    pub trust_proxy: bool,
    /// Serve Prometheus metrics at GET /metrics on this address (`127.0.0.1:9090`; port 0
    /// picks one, printed at the start): requests, answers by status, faults, the time to
    /// answer, open connections and requests by protocol. Off by default.
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<SocketAddr>,
}

/// The bindings `--binding` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BindingChoice {
    Streaming,
    StreamingQuickXml,
    SerdeQuickXml,
    SerdeXmlRs,
}

impl BindingChoice {
    /// Every binding, the default first.
    pub const ALL: [BindingChoice; 4] = [
        BindingChoice::Streaming,
        BindingChoice::StreamingQuickXml,
        BindingChoice::SerdeQuickXml,
        BindingChoice::SerdeXmlRs,
    ];

    pub fn binding(self) -> &'static dyn wstest::Binding {
        match self {
            BindingChoice::Streaming => &wstest::binding::STREAMING,
            BindingChoice::StreamingQuickXml => &wstest::binding::STREAMING_QUICK_XML,
            BindingChoice::SerdeQuickXml => &serde_bindings::SERDE_QUICK_XML,
            BindingChoice::SerdeXmlRs => &serde_bindings::SERDE_XML_RS,
        }
    }
}

/// The settings the server runs with.
#[derive(Debug, Clone)]
pub struct Config {
    pub n_threads: usize,
    pub max_body: usize,
    pub header_timeout: Option<Duration>,
    pub body_timeout: Option<Duration>,
    pub write_timeout: Option<Duration>,
    pub idle_timeout: Option<Duration>,
    /// Connections served at once (`--max-connections`).
    pub max_connections: usize,
    /// Served paths, lower-cased for matching.
    pub paths: Vec<String>,
    /// How long in-flight requests get to finish after a shutdown signal.
    pub shutdown_grace: Duration,
    /// The XML binding (`--binding`).
    pub binding: BindingChoice,
    /// `--tls-cert` and `--tls-key`, read.
    pub tls: Option<Arc<rustls::ServerConfig>>,
    pub tls_handshake_timeout: Option<Duration>,
    /// HTTP/2 streams open at once per connection (`--max-streams`).
    pub max_streams: u32,
    /// Whether the WSDL's address follows a proxy's forwarding headers (`--trust-proxy`).
    pub trust_proxy: bool,
    /// Where the counts of `--metrics` go (`None`: nothing is counted).
    pub metrics: Option<crate::metrics::Metrics>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            n_threads: 1,
            max_body: 4 * 1024 * 1024,
            header_timeout: Some(Duration::from_secs(30)),
            body_timeout: Some(Duration::from_secs(60)),
            write_timeout: Some(Duration::from_secs(30)),
            idle_timeout: Some(Duration::from_secs(60)),
            max_connections: 10_000,
            paths: DEFAULT_PATHS
                .iter()
                .map(|path| path.to_ascii_lowercase())
                .collect(),
            shutdown_grace: Duration::from_secs(10),
            binding: BindingChoice::Streaming,
            tls: None,
            tls_handshake_timeout: Some(Duration::from_secs(10)),
            max_streams: 100,
            trust_proxy: false,
            metrics: None,
        }
    }
}

impl Args {
    /// Checks the arguments and turns them into a [`Config`].
    pub fn config(&self) -> anyhow::Result<Config> {
        let n_threads = match self.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let mut paths = Config::default().paths;
        for path in &self.paths {
            anyhow::ensure!(path.starts_with('/'), "--path {path:?} must start with /");
            paths.push(path.to_ascii_lowercase());
        }
        Ok(Config {
            n_threads,
            max_body: self.max_body,
            header_timeout: limit(self.header_timeout),
            body_timeout: limit(self.body_timeout),
            write_timeout: limit(self.write_timeout),
            idle_timeout: limit(self.idle_timeout),
            max_connections: self.max_connections as usize,
            shutdown_grace: self.shutdown_grace,
            paths,
            binding: self.binding,
            tls: match (&self.tls_cert, &self.tls_key) {
                (Some(cert), Some(key)) => Some(tls::server_config(cert, key)?),
                _ => None,
            },
            tls_handshake_timeout: limit(self.tls_handshake_timeout),
            max_streams: self.max_streams,
            trust_proxy: self.trust_proxy,
            metrics: self
                .metrics
                .map(|_| crate::metrics::Metrics::new(crate::metrics::Registry::new(n_threads))),
        })
    }
}

/// A limit of the command line: 0 turns it off.
fn limit(duration: Duration) -> Option<Duration> {
    (!duration.is_zero()).then_some(duration)
}
