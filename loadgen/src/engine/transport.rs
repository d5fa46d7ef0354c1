//! A connection's byte stream: TCP, or TLS over TCP (rustls driven by hand on the
//! non-blocking socket). Both read and write as a plain socket does, so a connection's HTTP
//! logic is one for both; the TLS side adds the handshake and the close.
//!
//! As the plain read does, a TLS read tells when the socket is drained (a short read, with no
//! plaintext left in rustls), so that edge-triggered readiness costs no read to learn
//! `EAGAIN`.

use std::io::{self, Read, Write};
use std::sync::Arc;

use mio::net::TcpStream;
use rustls::ClientConnection;
use rustls::client::ClientConfig;
use rustls::pki_types::ServerName;
use tls::client::Negotiated;

/// What a read came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Received {
    /// `n` bytes in the buffer; `drained`: the socket has nothing more for now.
    Data { n: usize, drained: bool },
    /// The peer closed (for TLS: a close_notify, or the TCP stream's end).
    End,
}

/// How a TLS handshake ended badly.
#[derive(Debug)]
pub(super) enum HandshakeError {
    /// The socket failed or closed: a connect failure like any other.
    Io(io::Error),
    /// The peers could not agree, or the certificate was refused: no retry will do better.
    Tls(rustls::Error),
}

#[derive(Debug)]
pub(super) enum Transport {
    Plain(TcpStream),
    Tls(Box<TlsStream>),
}

#[derive(Debug)]
pub(super) struct TlsStream {
    tcp: TcpStream,
    tls: ClientConnection,
    /// Plaintext rustls holds for the reader.
    buffered: usize,
    /// The last socket read came up short.
    short: bool,
    /// The peer closed; no close_notify is owed.
    ended: bool,
}

impl Transport {
    /// A TLS client over `tcp`, for `name`.
    pub(super) fn tls(
        tcp: TcpStream,
        config: &Arc<ClientConfig>,
        name: &ServerName<'static>,
    ) -> Result<Transport, rustls::Error> {
        let tls = ClientConnection::new(Arc::clone(config), name.clone())?;
        Ok(Transport::Tls(Box::new(TlsStream {
            tcp,
            tls,
            buffered: 0,
            short: false,
            ended: false,
        })))
    }

    pub(super) fn tcp(&mut self) -> &mut TcpStream {
        match self {
            Transport::Plain(tcp) => tcp,
            Transport::Tls(stream) => &mut stream.tcp,
        }
    }

    pub(super) fn is_tls(&self) -> bool {
        matches!(self, Transport::Tls(_))
    }

    /// Drives the handshake as far as the socket allows: `Ok(true)` when it is done (at once
    /// for plain TCP), `Ok(false)` when it waits for the socket.
    pub(super) fn handshake(&mut self) -> Result<bool, HandshakeError> {
        let Transport::Tls(stream) = self else {
            return Ok(true);
        };
        loop {
            match stream.flush() {
                Ok(()) => {}
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(error) => return Err(HandshakeError::Io(error)),
            }
            if !stream.tls.is_handshaking() {
                return Ok(true);
            }
            let mut socket = ShortRead::new(&mut stream.tcp);
            match stream.tls.read_tls(&mut socket) {
                Ok(0) => {
                    return Err(HandshakeError::Io(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the server closed the connection during the TLS handshake",
                    )));
                }
                Ok(_) => {}
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(HandshakeError::Io(error)),
            }
            match stream.tls.process_new_packets() {
                Ok(state) => stream.buffered = state.plaintext_bytes_to_read(),
                Err(error) => {
                    // The alert that says why, if the socket takes it.
                    let _ = stream.tls.write_tls(&mut stream.tcp);
                    return Err(HandshakeError::Tls(error));
                }
            }
        }
    }

    /// What the finished handshake agreed, and whether it resumed a session; `None` for TCP.
    pub(super) fn negotiated(&self) -> Option<(Negotiated, bool)> {
        let Transport::Tls(stream) = self else {
            return None;
        };
        let resumed = stream.tls.handshake_kind() == Some(rustls::HandshakeKind::Resumed);
        Negotiated::of(&stream.tls).map(|negotiated| (negotiated, resumed))
    }

    /// Takes bytes to send, as a socket's `write` does: for TLS they are accepted into
    /// records, which [`flush`](Transport::flush) must see out.
    pub(super) fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match self {
            Transport::Plain(tcp) => tcp.write(bytes),
            Transport::Tls(stream) => {
                stream.flush()?;
                stream.tls.writer().write(bytes)
            }
        }
    }

    /// Sends what was accepted; `WouldBlock` while some waits for the socket.
    pub(super) fn flush(&mut self) -> io::Result<()> {
        match self {
            Transport::Plain(_) => Ok(()),
            Transport::Tls(stream) => stream.flush(),
        }
    }

    /// Reads what has arrived into `buffer`; `WouldBlock` when nothing has.
    pub(super) fn read(&mut self, buffer: &mut [u8]) -> io::Result<Received> {
        match self {
            Transport::Plain(tcp) => match tcp.read(buffer)? {
                0 => Ok(Received::End),
                n => Ok(Received::Data {
                    n,
                    drained: n < buffer.len(),
                }),
            },
            Transport::Tls(stream) => stream.read(buffer),
        }
    }

    /// A kept-alive connection with no request out became readable: whether it is still
    /// open. Plain TCP has nothing to say then but its close; TLS may have sent session
    /// tickets, which are read here.
    pub(super) fn still_open_when_readable(&mut self, buffer: &mut [u8]) -> bool {
        match self {
            Transport::Plain(_) => false,
            Transport::Tls(stream) => loop {
                match stream.read(buffer) {
                    Err(error) if error.kind() == io::ErrorKind::WouldBlock => return true,
                    Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                    // Bytes no request asked for, the close, or a failure.
                    _ => return false,
                }
            },
        }
    }

    /// Before the socket closes: TLS says so with a close_notify, as OpenSSL's clients do,
    /// unless the server closed first.
    pub(super) fn shutdown(&mut self) {
        if let Transport::Tls(stream) = self
            && !stream.ended
        {
            stream.tls.send_close_notify();
            let _ = stream.tls.write_tls(&mut stream.tcp);
        }
    }
}

impl TlsStream {
    fn flush(&mut self) -> io::Result<()> {
        while self.tls.wants_write() {
            match self.tls.write_tls(&mut self.tcp) {
                Ok(_) => {}
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
        Ok(())
    }

    fn read(&mut self, buffer: &mut [u8]) -> io::Result<Received> {
        loop {
            if self.buffered > 0 {
                let n = self.tls.reader().read(buffer)?;
                self.buffered = self.buffered.saturating_sub(n);
                return Ok(Received::Data {
                    n,
                    drained: self.short && self.buffered == 0,
                });
            }
            if self.ended {
                return Ok(Received::End);
            }
            let mut socket = ShortRead::new(&mut self.tcp);
            let n = self.tls.read_tls(&mut socket)?;
            self.short = socket.short;
            let state = self
                .tls
                .process_new_packets()
                .map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))?;
            self.buffered = state.plaintext_bytes_to_read();
            self.ended = n == 0 || state.peer_has_closed();
            // A key update, or an alert, to answer; the next write sends it if not now.
            if self.tls.wants_write() {
                let _ = self.flush();
            }
            if self.buffered == 0 && self.short && !self.ended {
                return Err(io::ErrorKind::WouldBlock.into());
            }
        }
    }
}

/// The socket as rustls reads it, noting whether a read came up short (the socket drained).
struct ShortRead<'a> {
    tcp: &'a mut TcpStream,
    short: bool,
}

impl<'a> ShortRead<'a> {
    fn new(tcp: &'a mut TcpStream) -> ShortRead<'a> {
        ShortRead { tcp, short: false }
    }
}

impl Read for ShortRead<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let n = self.tcp.read(buffer)?;
        self.short = n < buffer.len();
        Ok(n)
    }
}
