//! Opening an `--http2` connection: TCP, TLS with ALPN h2 or h2c with prior knowledge, and
//! HTTP/2's own handshake; and what each failure means for the run (a server that will never
//! speak HTTP/2 ends it, saying so).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use h2::client::SendRequest;
use tokio::net::TcpStream;

use super::{CONNECTION_WINDOW, Loop, STREAM_WINDOW};

/// A connection's IO, which must be polled for its streams to move.
pub(super) type Driver = Pin<Box<dyn Future<Output = ()>>>;

/// Opens a connection: TCP, TLS with ALPN h2 (or h2c with prior knowledge on plain TCP), and
/// HTTP/2's preface and settings. `Err(Some)`: the socket failed; `Err(None)`: the failure
/// ended the run already (a server that will never speak HTTP/2).
pub(super) async fn open(
    state: &Loop,
) -> Result<(SendRequest<Bytes>, Driver), Option<std::io::Error>> {
    let plan = &state.plan;
    let tcp = TcpStream::connect(plan.addr).await.map_err(Some)?;
    tcp.set_nodelay(true).map_err(Some)?;
    let mut builder = h2::client::Builder::new();
    builder
        .initial_window_size(STREAM_WINDOW)
        .initial_connection_window_size(CONNECTION_WINDOW);
    let result = match &plan.tls {
        Some(tls) => {
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
            builder.handshake(stream).await.map(|(sender, driver)| {
                let driver: Driver = Box::pin(async move {
                    let _ = driver.await;
                });
                (sender, driver)
            })
        }
        None => builder.handshake(tcp).await.map(|(sender, driver)| {
            let driver: Driver = Box::pin(async move {
                let _ = driver.await;
            });
            (sender, driver)
        }),
    };
    result.map_err(|error| state.h2_refused(&error))
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

    /// HTTP/2's own handshake failed: a server that does not speak it ends the run, saying so.
    pub(super) fn h2_refused(&self, error: &h2::Error) -> Option<std::io::Error> {
        if error.is_io() {
            return error
                .get_io()
                .map(|io| std::io::Error::new(io.kind(), io.to_string()));
        }
        let how = if self.plan.tls.is_some() {
            "over TLS"
        } else {
            "h2c with prior knowledge"
        };
        self.shared.abort(
            format!(
                "--http2: the server does not speak HTTP/2 ({how}; it may speak HTTP/1.1 only): {error}"
            ),
            1,
        );
        None
    }
}
