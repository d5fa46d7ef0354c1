//! Opening connections: `--start-at`'s connects ahead of the start, and what a TLS
//! handshake came to.

use std::time::{Duration, Instant};

use mio::{Events, Token};

use super::connection::Outcome;
use super::{MAX_POLL_WAIT, Worker, readiness};

impl Worker {
    /// `--start-at`: opens every connection, then waits for `start`, so that the first requests
    /// of all shards leave together rather than each after its own connect. This only saves
    /// the connects: one that fails, or is not done by `start`, is dropped, and its first
    /// request connects and counts as any other. A server that closes a connection while it
    /// waits is noticed here.
    pub(super) fn connect_ahead(&mut self, start: Instant, events: &mut Events) {
        for index in 0..self.connections.len() {
            let outcome =
                self.connections[index].connect(&self.plan, self.poll.registry(), Token(index));
            self.settle_ahead(index, outcome);
        }
        // epoll counts whole milliseconds: the last two are slept to the microsecond.
        let slack = Duration::from_millis(2);
        loop {
            let now = Instant::now();
            if self.shared.stopped() || now + slack >= start {
                break;
            }
            let wait = (start - now - slack).min(MAX_POLL_WAIT);
            if self.poll.poll(events, Some(wait)).is_err() {
                // EINTR, or worse: nothing but connects is lost, and the loop after will see.
                continue;
            }
            for event in events.iter() {
                let index = event.token().0;
                if let Some(connection) = self.connections.get_mut(index) {
                    let outcome =
                        connection.on_ready(readiness(event), &self.plan, &mut self.buffer);
                    self.settle_ahead(index, outcome);
                }
            }
        }
        std::thread::sleep(start.saturating_duration_since(Instant::now()));
        for index in 0..self.connections.len() {
            if self.connections[index].connecting() {
                self.close(index);
            }
        }
    }

    /// What a connect ahead of the start came to: a connected stream waits for its first
    /// request as a kept-alive one does; anything else is dropped.
    fn settle_ahead(&mut self, index: usize, outcome: Outcome) {
        match outcome {
            Outcome::Pending => {}
            Outcome::Connected => {
                self.handshake_done(index);
                self.connections[index].keep();
            }
            Outcome::HandshakeFailed(error) => self.handshake_failed(index, &error),
            _ => self.close(index),
        }
    }

    /// A TLS handshake finished on connection `index`: counted, and the first one's
    /// agreement kept for the report.
    pub(super) fn handshake_done(&mut self, index: usize) {
        let connection = &self.connections[index];
        if !connection.is_tls() {
            return;
        }
        let resumed = match connection.negotiated() {
            Some((negotiated, resumed)) => {
                if self.shared.negotiated.get().is_none() {
                    let _ = self.shared.negotiated.set(negotiated);
                }
                resumed
            }
            None => false,
        };
        let counters = &mut self.stats.counters;
        counters.tls_handshakes += 1;
        counters.tls_resumed += u64::from(resumed);
    }

    /// A TLS handshake failed for good: the run ends, saying why, as no other connection
    /// will fare better.
    pub(super) fn handshake_failed(&mut self, index: usize, error: &rustls::Error) {
        let name = match &self.plan.tls {
            Some(tls) => tls.server_name.to_str().into_owned(),
            None => String::new(),
        };
        // Records that do not parse: most likely no TLS at all on the other side.
        let hint = match error {
            rustls::Error::InvalidMessage(_) => " (does the server speak TLS on this port?)",
            _ => "",
        };
        self.shared.abort(
            format!("TLS handshake with {name} failed: {error}{hint}"),
            1,
        );
        self.close(index);
    }
}
