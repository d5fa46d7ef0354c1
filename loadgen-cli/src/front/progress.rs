//! ab's `Completed N requests` lines on stderr, and on a terminal a live line of rate and
//! errors.

use std::io::{IsTerminal as _, Write as _};
use std::time::{Duration, Instant};

use loadgen::load::Shared;
use loadgen::options::Options;

/// How often ab's `Completed N requests` line comes.
#[derive(Debug, Clone, Copy)]
pub(super) enum Heartbeat {
    /// Every this many requests.
    Requests(u64),
    /// Every this long, ten times in a run bounded by time.
    Time(Duration),
}

impl Heartbeat {
    /// ab prints a progress line every tenth of the run (at least every 100 requests), on
    /// stderr, when the run has more than 150 requests and -q is not given. A run bounded by
    /// time alone has no count to divide (ab's 50,000 would mean a line every 5,000 requests
    /// for as long as it ran, since loadgen does not stop there), so its tenths are of the time.
    pub(super) fn of(options: &Options) -> Option<Heartbeat> {
        if options.output.quiet {
            return None;
        }
        match (options.load.share().n_requests, options.load.time_limit()) {
            (Some(requests), _) => {
                (requests > 150).then(|| Heartbeat::Requests((requests / 10).max(100)))
            }
            (None, Some(limit)) => Some(Heartbeat::Time(limit / 10)),
            (None, None) => None,
        }
    }
}

pub(super) struct Progress {
    heartbeat: Option<Heartbeat>,
    /// The requests (Heartbeat::Requests) or tenths (Heartbeat::Time) reported so far.
    printed: u64,
    live: bool,
    measure_start: Instant,
}

impl Progress {
    pub(super) fn new(heartbeat: Option<Heartbeat>, measure_start: Instant) -> Progress {
        Progress {
            heartbeat,
            printed: 0,
            live: heartbeat.is_some() && std::io::stderr().is_terminal(),
            measure_start,
        }
    }

    pub(super) fn update(&mut self, shared: &Shared) {
        let Some(heartbeat) = self.heartbeat else {
            return;
        };
        let done = shared.total_completed();
        let elapsed = Instant::now().saturating_duration_since(self.measure_start);
        let mut stderr = std::io::stderr().lock();
        if self.live {
            let _ = write!(stderr, "\r\x1b[2K");
        }
        match heartbeat {
            Heartbeat::Requests(every) => {
                while self.printed + every <= done {
                    self.printed += every;
                    let _ = writeln!(stderr, "Completed {} requests", self.printed);
                }
            }
            Heartbeat::Time(every) => {
                // One line per tenth, also for tenths that passed while this thread waited for
                // a core: a run always prints ten, however loaded the machine.
                let tenths = (elapsed.as_nanos() / every.as_nanos().max(1)).min(10) as u64;
                while self.printed < tenths {
                    self.printed += 1;
                    let _ = writeln!(stderr, "Completed {done} requests");
                }
            }
        }
        if self.live {
            let secs = elapsed.as_secs_f64();
            let rate = if secs > 0.0 { done as f64 / secs } else { 0.0 };
            let _ = write!(
                stderr,
                "{secs:7.1} s  {done} requests  {rate:.0}/s  {} errors",
                shared.total_failed()
            );
        }
        let _ = stderr.flush();
    }

    pub(super) fn finish(&mut self, done: u64) {
        let mut stderr = std::io::stderr().lock();
        if self.live {
            let _ = write!(stderr, "\r\x1b[2K");
        }
        if self.heartbeat.is_some() {
            let _ = writeln!(stderr, "Finished {done} requests");
        } else {
            drop(stderr);
            host::outln!("..done");
            let _ = std::io::stdout().flush();
        }
    }
}
