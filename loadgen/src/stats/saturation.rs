//! Whether the client, not the server, may have set a run's pace.

use serde::{Deserialize, Serialize};

#[cfg(doc)]
use super::LATE_AFTER_US;

/// Signs that the client, not the server, limited a run: under `--rate`, requests leaving late
/// (more than [`LATE_AFTER_US`] after their time) though a connection was free for them; in any
/// run, an event loop busy nearly all the time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Saturation {
    /// `--rate`: the share of requests that left late with a connection free.
    pub late_fraction: Option<f64>,
    /// The busiest event loop's share of its time on the CPU.
    pub busiest_thread: f64,
}

impl Saturation {
    /// More than this share of requests late saturates the client.
    pub const LATE_LIMIT: f64 = 0.01;
    /// An event loop busier than this saturates the client.
    pub const BUSY_LIMIT: f64 = 0.95;

    pub fn saturated(&self) -> bool {
        self.late_fraction
            .is_some_and(|late| late > Self::LATE_LIMIT)
            || self.busiest_thread > Self::BUSY_LIMIT
    }

    /// The report's line, when saturated: `client saturated: ...`.
    pub fn line(&self) -> Option<String> {
        if !self.saturated() {
            return None;
        }
        let mut causes = Vec::new();
        if let Some(late) = self.late_fraction.filter(|late| *late > Self::LATE_LIMIT) {
            causes.push(format!(
                "{:.1}% of requests left more than 1 ms after their scheduled time with a connection free",
                late * 100.0
            ));
        }
        if self.busiest_thread > Self::BUSY_LIMIT {
            causes.push(format!(
                "an event loop was busy {:.0}% of the time",
                self.busiest_thread * 100.0
            ));
        }
        Some(format!(
            "client saturated: {}; the figures may be the client's limit, not the server's",
            causes.join(", and ")
        ))
    }
}
