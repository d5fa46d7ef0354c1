//! Where requests go: `[http[s]://]host[:port]/path`, as ab reads a URL (the scheme optional,
//! plain HTTP without one; the path required), and `host:port` for a proxy. A leaf: it uses no other module. The suite
//! reads its targets' URLs with the same [`Url::parse`].

use std::fmt;

use serde::{Deserialize, Serialize};

/// Why a URL cannot be used, with ab's words where ab has them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    #[error("invalid URL")]
    Invalid,
    #[error("invalid URL: it holds a space or a control character (percent-encode it)")]
    Unsendable,
}

/// Plain HTTP, or HTTP over TLS.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    #[default]
    Http,
    Https,
}

impl Scheme {
    pub fn default_port(self) -> u16 {
        match self {
            Scheme::Http => 80,
            Scheme::Https => 443,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
        }
    }
}

/// A target URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Url {
    /// Results files written before loadgen spoke TLS have none: they were plain HTTP.
    #[serde(default)]
    pub scheme: Scheme,
    pub host: String,
    pub port: u16,
    /// Everything from the first `/`, query included, as ab's "Document Path".
    pub path: String,
}

impl Url {
    /// `[http[s]://]host[:port]/path`; IPv6 hosts in brackets (no zone).
    pub fn parse(text: &str) -> Result<Url, UrlError> {
        let (scheme, rest) = match text.strip_prefix("https://") {
            Some(rest) => (Scheme::Https, rest),
            None => (Scheme::Http, text.strip_prefix("http://").unwrap_or(text)),
        };
        // A space or a control character would end the request line, or the Host field, early.
        if rest.chars().any(|ch| ch.is_whitespace() || ch.is_control()) {
            return Err(UrlError::Unsendable);
        }
        let slash = rest.find('/').ok_or(UrlError::Invalid)?;
        let (authority, path) = rest.split_at(slash);
        let Authority { host, port } = Authority::parse(authority, scheme.default_port())?;
        Ok(Url {
            scheme,
            host,
            port,
            path: path.to_owned(),
        })
    }

    /// `host[:port]` as a Host header writes it: the port left out when it is the scheme's
    /// default, as ab does; IPv6 hosts in brackets.
    pub fn host_field(&self) -> String {
        let host = bracketed(&self.host);
        if self.port == self.scheme.default_port() {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }
}

impl fmt::Display for Url {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}://{}:{}{}",
            self.scheme.as_str(),
            bracketed(&self.host),
            self.port,
            self.path
        )
    }
}

/// `host:port`: a proxy (`-X`), or a URL's authority.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Authority {
    pub host: String,
    pub port: u16,
}

impl Authority {
    /// `host[:port]` or `[v6][:port]`, with `default_port` when none is written.
    pub fn parse(text: &str, default_port: u16) -> Result<Authority, UrlError> {
        let (host, port) = if let Some(bracketed) = text.strip_prefix('[') {
            let (host, after) = bracketed.split_once(']').ok_or(UrlError::Invalid)?;
            if host.contains('%') {
                return Err(UrlError::Invalid);
            }
            let port = match after {
                "" => default_port,
                _ => after
                    .strip_prefix(':')
                    .and_then(|port| port.parse().ok())
                    .ok_or(UrlError::Invalid)?,
            };
            (host, port)
        } else {
            match text.rsplit_once(':') {
                Some((host, port)) => (host, port.parse().map_err(|_| UrlError::Invalid)?),
                None => (text, default_port),
            }
        };
        if host.is_empty() {
            return Err(UrlError::Invalid);
        }
        Ok(Authority {
            host: host.to_owned(),
            port,
        })
    }
}

impl fmt::Display for Authority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", bracketed(&self.host), self.port)
    }
}

fn bracketed(host: &str) -> String {
    if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_owned()
    }
}
