//! `--prom-remote-write URL`: the run's counts (the same series as `--metrics`) pushed by
//! Prometheus remote write 1.0 every [`INTERVAL`] from a thread of its own, and once more after
//! the report, so that the last sample holds the report's counts. A push that fails is said
//! once on stderr and counted; it never stops the load.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use loadgen::exchange::Limits;
use loadgen::live::Live;
use loadgen::options::Options;
use loadgen::url::Url;

/// How often the counts are pushed while the run goes (k6's default too).
pub(crate) const INTERVAL: Duration = Duration::from_secs(5);

/// What one push may take, from connecting to the answer's last byte, and how much of an
/// answer is read: a receiver that never answers, or answers a byte a second, or without end,
/// delays the exit by at most twice the deadline (a push under way, then the last).
pub(crate) const PUSH_LIMITS: Limits = Limits {
    deadline: Duration::from_secs(2),
    max_body: 64 << 10,
};

/// The pushes of one run.
pub(crate) struct Pusher {
    target: Arc<Target>,
    stop: Sender<()>,
    /// Pushes made so far: the pushing thread's, then the last.
    tally: Arc<Mutex<Tally>>,
    /// Says when the pushing thread has stopped.
    stopped: Receiver<()>,
}

/// Where the pushes go, and what each carries besides the counts.
struct Target {
    url: Url,
    live: Arc<Live>,
    labels: Vec<(String, String)>,
}

/// Pushes made and failed.
#[derive(Debug, Default)]
struct Tally {
    pushes: u64,
    failed: u64,
    last_error: Option<String>,
}

impl Tally {
    fn count(&mut self, target: &Target, result: anyhow::Result<()>) {
        self.pushes += 1;
        if let Err(error) = result {
            if self.failed == 0 {
                eprintln!(
                    "loadgen: --prom-remote-write {}: {error:#} (the run goes on)",
                    target.url
                );
            }
            self.failed += 1;
            self.last_error = Some(format!("{error:#}"));
        }
    }
}

impl Pusher {
    /// Starts pushing `live`'s counts, if `options` ask for it.
    pub(crate) fn start(options: &Options, live: Option<&Arc<Live>>) -> Option<Pusher> {
        let url = options.output.remote_write.clone()?;
        let live = Arc::clone(live?);
        let mut labels = vec![
            ("job".to_owned(), "loadgen".to_owned()),
            ("instance".to_owned(), host::Machine::this().hostname),
        ];
        if let Some(shard) = options.load.shard {
            labels.push((
                "shard".to_owned(),
                format!("{}/{}", shard.index, shard.count),
            ));
        }
        let target = Arc::new(Target { url, live, labels });
        let (stop, stop_asked) = mpsc::channel::<()>();
        let (say_stopped, stopped) = mpsc::channel::<()>();
        let tally = Arc::new(Mutex::new(Tally::default()));
        let (pushing, counting) = (Arc::clone(&target), Arc::clone(&tally));
        std::thread::Builder::new()
            .name("loadgen-remote-write".to_owned())
            .spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stop_asked.recv_timeout(INTERVAL) {
                    let result = pushing.push();
                    counting
                        .lock()
                        .unwrap_or_else(|poisoned| poisoned.into_inner())
                        .count(&pushing, result);
                }
                let _ = say_stopped.send(());
            })
            .ok()?;
        Some(Pusher {
            target,
            stop,
            tally,
            stopped,
        })
    }

    /// Stops the pushes in the run, makes the last one, and says on stderr if any failed:
    /// within twice [`PUSH_LIMITS`]' deadline whatever the receiver does.
    pub(crate) fn finish(self) {
        let _ = self.stop.send(());
        // A push under way ends by its deadline; the thread is not waited for past it.
        let still_pushing = self
            .stopped
            .recv_timeout(PUSH_LIMITS.deadline + Duration::from_millis(200))
            .is_err();
        let result = self.target.push();
        let mut tally = self
            .tally
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if still_pushing {
            let error = anyhow::anyhow!("a push was still under way at the end");
            tally.count(&self.target, Err(error));
        }
        tally.count(&self.target, result);
        if tally.failed > 0 {
            eprintln!(
                "loadgen: --prom-remote-write {}: {} of {} pushes failed (the last: {})",
                self.target.url,
                tally.failed,
                tally.pushes,
                tally.last_error.as_deref().unwrap_or_default()
            );
        }
    }
}

impl Target {
    fn push(&self) -> anyhow::Result<()> {
        let now_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |now| now.as_millis() as i64);
        let request = self.live.write_request(&self.labels, now_ms);
        let body = snap::raw::Encoder::new().compress_vec(&request)?;
        let headers = [
            "Content-Type: application/x-protobuf".to_owned(),
            "Content-Encoding: snappy".to_owned(),
            "X-Prometheus-Remote-Write-Version: 0.1.0".to_owned(),
            format!("User-Agent: loadgen/{}", env!("CARGO_PKG_VERSION")),
        ];
        let (status, answer) =
            loadgen::exchange::exchange(&self.url, None, "POST", &headers, &body, PUSH_LIMITS)?;
        if !(200..300).contains(&status) {
            let answer = String::from_utf8_lossy(&answer);
            anyhow::bail!("status {status}: {}", answer.trim());
        }
        Ok(())
    }
}
