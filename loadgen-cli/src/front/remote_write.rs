//! `--prom-remote-write URL`: the run's counts (the same series as `--metrics`) pushed by
//! Prometheus remote write 1.0 every [`INTERVAL`] from a thread of its own, and once more after
//! the report, so that the last sample holds the report's counts. A push that fails is said
//! once on stderr and counted; it never stops the load.

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use loadgen::live::Live;
use loadgen::options::Options;
use loadgen::url::Url;

/// How often the counts are pushed while the run goes (k6's default too).
pub(crate) const INTERVAL: Duration = Duration::from_secs(5);

/// The pushes of one run.
pub(crate) struct Pusher {
    target: Arc<Target>,
    stop: Sender<()>,
    thread: JoinHandle<Tally>,
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
    fn push(&mut self, target: &Target) {
        self.pushes += 1;
        if let Err(error) = target.push() {
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
        let (stop, stopped) = mpsc::channel::<()>();
        let pushing = Arc::clone(&target);
        let thread = std::thread::Builder::new()
            .name("loadgen-remote-write".to_owned())
            .spawn(move || {
                let mut tally = Tally::default();
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(INTERVAL) {
                    tally.push(&pushing);
                }
                tally
            })
            .ok()?;
        Some(Pusher {
            target,
            stop,
            thread,
        })
    }

    /// Stops the pushes in the run, makes the last one, and says on stderr if any failed.
    pub(crate) fn finish(self) {
        let _ = self.stop.send(());
        let mut tally = self.thread.join().unwrap_or_default();
        tally.push(&self.target);
        if tally.failed > 0 {
            eprintln!(
                "loadgen: --prom-remote-write {}: {} of {} pushes failed (the last: {})",
                self.target.url,
                tally.failed,
                tally.pushes,
                tally.last_error.unwrap_or_default()
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
            loadgen::exchange::exchange(&self.url, None, "POST", &headers, &body)?;
        if !(200..300).contains(&status) {
            let answer = String::from_utf8_lossy(&answer);
            anyhow::bail!("status {status}: {}", answer.trim());
        }
        Ok(())
    }
}
