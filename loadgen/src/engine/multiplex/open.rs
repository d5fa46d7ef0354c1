//! Opening an `--http2` connection: TCP, and TLS with ALPN h2 (h2c with prior knowledge needs
//! nothing more: the preface goes with the first request); and what each failure means for
//! the run (a server that will never speak HTTP/2 ends it, saying so).

use std::sync::Arc;

use tokio::net::TcpStream;

use super::Loop;
use crate::http2::Http2Error;
use crate::http2::client::GoAway;

/// An open connection's byte stream.
pub(super) enum Opened {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

/// Opens a connection: TCP, and TLS with ALPN h2 on https. `Err(Some)`: the socket failed;
/// `Err(None)`: the failure ended the run already (a server that will never speak HTTP/2).
pub(super) async fn open(state: &Loop) -> Result<Opened, Option<std::io::Error>> {
    let plan = &state.plan;
    let tcp = TcpStream::connect(plan.addr).await.map_err(Some)?;
    tcp.set_nodelay(true).map_err(Some)?;
    let Some(tls) = &plan.tls else {
        return Ok(Opened::Plain(tcp));
    };
    let connector = tokio_rustls::TlsConnector::from(Arc::clone(&tls.config));
    let stream = connector
        .connect(tls.server_name.clone(), tcp)
        .await
        .map_err(|error| state.handshake_error(error))?;
    let (_, connection) = stream.get_ref();
    state.tls_handshake(connection);
    if connection.alpn_protocol() != Some(tls::ALPN_H2) {
        let chose = connection
            .alpn_protocol()
            .map_or("no protocol".to_owned(), |p| {
                String::from_utf8_lossy(p).into_owned()
            });
        state.shared.abort(
            format!(
                "--http2: the server did not agree to HTTP/2 over TLS (ALPN chose {chose}); it may speak HTTP/1.1 only"
            ),
            1,
        );
        return Err(None);
    }
    Ok(Opened::Tls(Box::new(stream)))
}

impl Loop {
    /// A TLS handshake failed: a certificate or protocol error ends the run, as on HTTP/1.
    pub(super) fn handshake_error(&self, error: std::io::Error) -> Option<std::io::Error> {
        let tls_error = error
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<rustls::Error>());
        match tls_error {
            Some(rustls::Error::AlertReceived(rustls::AlertDescription::NoApplicationProtocol)) => {
                self.shared.abort(
                    "--http2: the server did not agree to HTTP/2 over TLS (it refused ALPN h2); it may speak HTTP/1.1 only".to_owned(),
                    1,
                );
                None
            }
            Some(tls_error) => {
                let name = self
                    .plan
                    .tls
                    .as_ref()
                    .map(|tls| tls.server_name.to_str().into_owned())
                    .unwrap_or_default();
                self.shared
                    .abort(format!("TLS handshake with {name} failed: {tls_error}"), 1);
                None
            }
            None => Some(error),
        }
    }

    /// Counts a finished TLS handshake, and keeps the first one's agreement for the report.
    pub(super) fn tls_handshake(&self, connection: &rustls::ClientConnection) {
        if self.shared.negotiated.get().is_none()
            && let Some(negotiated) = tls::client::Negotiated::of(connection)
        {
            let _ = self.shared.negotiated.set(negotiated);
        }
        let mut stats = self.stats.borrow_mut();
        stats.counters.tls_handshakes += 1;
        stats.counters.tls_resumed +=
            u64::from(connection.handshake_kind() == Some(rustls::HandshakeKind::Resumed));
    }

    /// A connection that never completed a response ended at HTTP/2's own level: the server
    /// does not speak it (or refuses us), and the run ends saying so.
    pub(super) fn h2_refused(&self, why: &str) {
        let how = if self.plan.tls.is_some() {
            "over TLS"
        } else {
            "h2c with prior knowledge"
        };
        self.shared.abort(
            format!(
                "--http2: the server does not speak HTTP/2 ({how}; it may speak HTTP/1.1 only): {why}"
            ),
            1,
        );
    }
}

/// Why a connection that never completed a response ended, if at HTTP/2's level.
pub(super) fn refusal(
    error: Option<&Http2Error>,
    goaway: Option<&GoAway>,
    heard_from: bool,
) -> Option<String> {
    if let Some(error) = error {
        return Some(error.to_string());
    }
    if let Some(goaway) = goaway
        && goaway.code != crate::http2::frame::code::NO_ERROR
    {
        return Some(format!(
            "it sent GOAWAY ({}) \"{}\"",
            crate::http2::frame::code::name(goaway.code),
            String::from_utf8_lossy(&goaway.debug)
        ));
    }
    (!heard_from).then(|| "it closed the connection without a frame".to_owned())
}
