//! `--http2`: one thread's connections as HTTP/2, each carrying up to `--streams` requests at
//! once: the sans-IO [`crate::http2::Client`] for the protocol, a task a connection on a
//! single-threaded tokio runtime of the thread's own for the IO (tokio-rustls for TLS). What a
//! request is, when it goes and how it counts are the HTTP/1 loop's: the same [`Schedule`],
//! [`ThreadStats`] and [`Shared`], so reports, JSON, checks, `--rate`, `--shard` and merge read
//! alike.
//!
//! Each connection has `--streams` slots (fewer if the server's SETTINGS say so). In a closed
//! loop a slot sends its next request as soon as its last one is answered; under `--rate` a
//! dispatcher hands each send time to a connection with an idle slot (its [`Inbox`]), and a
//! send with no idle slot waits for one, its latency counted from its time. A connection that
//! fails fails its streams' requests and opens anew for the next ones.

mod carry;
mod open;

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use std::task::{Poll, Waker};

use nix::sys::time::TimeSpec;
use nix::sys::timerfd::{ClockId, Expiration, TimerFd, TimerFlags, TimerSetTimeFlags};
use tokio::sync::Notify;

use self::open::{Opened, open};
use super::shared::{Plan, Shared};
use crate::schedule::Schedule;
use crate::stats::{Failure, LATE_AFTER_US, ThreadStats};

/// Flow-control windows: large enough that a 100-item answer (about 20 KB) never waits for a
/// WINDOW_UPDATE, on a connection carrying `--streams` of them.
const STREAM_WINDOW: u32 = 1 << 20;
const CONNECTION_WINDOW: u32 = 16 << 20;

/// A request to send: whether it counts, its kind, and when it was due.
#[derive(Debug, Clone, Copy)]
struct Job {
    counted: bool,
    kind: usize,
    intended: Instant,
}

/// What the thread's tasks share (one thread: `Rc` and `RefCell`).
struct Loop {
    plan: Arc<Plan>,
    shared: Arc<Shared>,
    index: usize,
    schedule: RefCell<Schedule>,
    stats: RefCell<ThreadStats>,
    /// The checks' buffers, for judging answers.
    scratch: RefCell<crate::check::Scratch>,
    completed: Cell<u64>,
    failed: Cell<u64>,
    /// `--rate`: idle slots, by their connection's inbox, each with the instant it became
    /// idle; and the dispatcher's wake-up when one frees.
    idle: RefCell<VecDeque<(Rc<Inbox>, Instant)>>,
    slot_freed: Notify,
    /// The stream of work ended (no more to claim, or stopped).
    done: Cell<bool>,
    last_event: Cell<Instant>,
}

/// Runs thread `index`'s `n_connections` HTTP/2 connections to the end of the run.
pub(super) fn run(
    index: usize,
    n_connections: usize,
    plan: Arc<Plan>,
    shared: Arc<Shared>,
) -> ThreadStats {
    let schedule = plan.schedule(index, shared.started);
    let sample_cap = plan.sample_cap / plan.n_threads;
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            shared.abort(format!("cannot start an event loop: {error}"), 1);
            return ThreadStats::new(sample_cap);
        }
    };
    let n_kinds = plan.mixed_kinds();
    let state = Rc::new(Loop {
        plan,
        shared,
        index,
        schedule: RefCell::new(schedule),
        stats: RefCell::new(ThreadStats::new(sample_cap).with_kinds(n_kinds)),
        scratch: RefCell::default(),
        completed: Cell::new(0),
        failed: Cell::new(0),
        idle: RefCell::new(VecDeque::new()),
        slot_freed: Notify::new(),
        done: Cell::new(false),
        last_event: Cell::new(Instant::now()),
    });
    let cpu_at_start = super::thread_cpu();
    let wall_start = Instant::now();
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, drive(Rc::clone(&state), n_connections));
    // Whatever is still in flight (past the end of the measured phase) is not counted.
    drop(local);
    state.publish();
    let mut stats = state.stats.replace(ThreadStats::new(0));
    let wall = wall_start.elapsed().as_secs_f64();
    if wall > 0.0 {
        stats.busy = ((super::thread_cpu() - cpu_at_start).as_secs_f64() / wall).min(1.0);
    }
    stats
}

/// The thread's work: its connections (and the dispatcher, under `--rate`) until the work is
/// done, the measured phase ends, the run stops, or nothing moves for `-s`.
async fn drive(state: Rc<Loop>, n_connections: usize) {
    if let Some(start) = state.plan.start_at {
        tokio::time::sleep_until(start.into()).await;
    }
    // The -s stall clock starts with the load, not with the wait for --start-at.
    state.last_event.set(Instant::now());
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..n_connections {
        tasks.spawn_local(connection(Rc::clone(&state)));
    }
    if state.schedule.borrow().paced() {
        tasks.spawn_local(dispatch(Rc::clone(&state)));
    }
    let measure_end = state.schedule.borrow().measure_end;
    let watch = async {
        loop {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let now = Instant::now();
            if let Some(end) = measure_end
                && now >= end
            {
                // In-flight requests at the end are not counted, as in ab and wrk.
                let end_us = state.micros_since_measure(end);
                let mut stats = state.stats.borrow_mut();
                stats.last_activity_us = stats.last_activity_us.max(end_us);
                return;
            }
            if state.shared.stopped() {
                return;
            }
            if now - state.last_event.get() >= state.plan.checks.stall_timeout {
                // ab's -s: nothing happened for that long. 70007 is APR_TIMEUP.
                state.shared.abort(
                    "apr_pollset_poll: The timeout specified has expired (70007)".to_owned(),
                    70007 & 0xff,
                );
                return;
            }
        }
    };
    let all_done = async { while tasks.join_next().await.is_some() {} };
    tokio::select! {
        () = all_done => {}
        () = watch => {}
    }
}

/// Where `--rate`'s dispatcher leaves a connection's send times.
#[derive(Default)]
struct Inbox {
    jobs: RefCell<VecDeque<Job>>,
    /// This connection's idle slots in [`Loop::idle`].
    offered: Cell<usize>,
    /// The connection is gone: its offers are void.
    closed: Cell<bool>,
    /// The connection's task, waiting.
    waker: RefCell<Option<Waker>>,
}

impl Inbox {
    fn wake(&self) {
        if let Some(waker) = self.waker.borrow_mut().take() {
            waker.wake();
        }
    }

    /// Whether a job is here; if not, `waker` is woken when one comes or the work ends.
    fn poll_job(&self, waker: &Waker) -> bool {
        if !self.jobs.borrow().is_empty() {
            return true;
        }
        *self.waker.borrow_mut() = Some(waker.clone());
        false
    }
}

impl Loop {
    /// The request that opens a connection: at once in a closed loop, at its send time under
    /// `--rate`. `None` when there is no more work.
    async fn first_job(&self, inbox: &Rc<Inbox>) -> Option<Job> {
        if self.done.get() {
            return None;
        }
        if !self.schedule.borrow().paced() {
            return self.claim(Instant::now());
        }
        self.offer(inbox, Instant::now());
        std::future::poll_fn(|cx| {
            if inbox.poll_job(cx.waker()) || self.done.get() {
                Poll::Ready(inbox.jobs.borrow_mut().pop_front())
            } else {
                Poll::Pending
            }
        })
        .await
    }

    /// A closed loop's next request, now; `None` (and the work done) when there is none.
    fn claim(&self, now: Instant) -> Option<Job> {
        let claimed =
            self.schedule
                .borrow_mut()
                .claim(now, &self.shared.remaining, self.shared.stopped());
        if let (Some(live), Some(_)) = (&self.plan.live, claimed) {
            live.sent(self.index);
        }
        match claimed {
            Some(claim) => Some(Job {
                counted: claim.counted,
                kind: self.plan.kind_of(claim.ordinal),
                intended: now,
            }),
            None => {
                self.finish();
                None
            }
        }
    }

    /// `--rate`: an idle slot of `inbox`'s connection, offered to the dispatcher.
    fn offer(&self, inbox: &Rc<Inbox>, now: Instant) {
        inbox.offered.set(inbox.offered.get() + 1);
        self.idle.borrow_mut().push_back((Rc::clone(inbox), now));
        self.slot_freed.notify_one();
    }

    /// No more work: connections waiting for a send time are told so.
    fn finish(&self) {
        self.done.set(true);
        for (inbox, _) in self.idle.borrow_mut().drain(..) {
            inbox.offered.set(inbox.offered.get() - 1);
            inbox.wake();
        }
    }

    fn publish(&self) {
        self.shared.completed[self.index]
            .0
            .store(self.completed.get(), std::sync::atomic::Ordering::Relaxed);
        self.shared.failed[self.index]
            .0
            .store(self.failed.get(), std::sync::atomic::Ordering::Relaxed);
    }

    fn micros_since_measure(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.schedule.borrow().measure_start)
            .as_micros() as u64
    }

    /// A request that ended without a response.
    fn fail(&self, job: Job, failure: Failure) {
        let now = Instant::now();
        self.last_event.set(now);
        if self.schedule.borrow().counts(job.counted, now) {
            let at_us = self.micros_since_measure(now);
            self.stats
                .borrow_mut()
                .count_failure(failure, at_us, job.kind);
            if let Some(live) = &self.plan.live {
                live.failed(self.index, job.kind);
            }
            self.failed.set(self.failed.get() + 1);
            self.publish();
        }
        if self.shared.stopped() {
            self.finish();
        }
    }
}

/// `--rate`'s clock: a timerfd in tokio's reactor, to the microsecond, where tokio's own
/// timers count whole milliseconds and would make a third of the sends at 500/s more than a
/// millisecond late (measured: 30 of 100).
struct Alarm(tokio::io::unix::AsyncFd<Timer>);

/// The timerfd, as tokio's reactor takes a file descriptor.
struct Timer(TimerFd);

impl std::os::fd::AsRawFd for Timer {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        use std::os::fd::AsFd as _;
        self.0.as_fd().as_raw_fd()
    }
}

impl Alarm {
    fn new() -> std::io::Result<Alarm> {
        let timer = TimerFd::new(
            ClockId::CLOCK_MONOTONIC,
            TimerFlags::TFD_NONBLOCK | TimerFlags::TFD_CLOEXEC,
        )
        .map_err(std::io::Error::from)?;
        // Deprecated for want of I/O safety; `register`, its successor, is unsafe, which this
        // workspace forbids. Safe here all the same: `Timer` owns its descriptor for the whole
        // life of the `AsyncFd` and always returns that one.
        #[allow(deprecated)]
        let registered = tokio::io::unix::AsyncFd::new(Timer(timer))?;
        Ok(Alarm(registered))
    }

    async fn sleep_until(&self, at: Instant) {
        // A zero time would disarm the timer: at least a nanosecond.
        let wait = at
            .saturating_duration_since(Instant::now())
            .max(Duration::from_nanos(1));
        let set = self.0.get_ref().0.set(
            Expiration::OneShot(TimeSpec::from_duration(wait)),
            TimerSetTimeFlags::empty(),
        );
        if set.is_err() {
            tokio::time::sleep_until(at.into()).await;
            return;
        }
        if let Ok(mut ready) = self.0.readable().await {
            // Read the expiry, so that the next wait waits for the next one.
            let _ = self.0.get_ref().0.wait();
            ready.clear_ready();
        }
    }
}

/// `--rate`: hands each send time to an idle slot.
async fn dispatch(state: Rc<Loop>) {
    let alarm = Alarm::new().ok();
    loop {
        let now = Instant::now();
        let next = {
            let schedule = state.schedule.borrow();
            if !schedule.send_due(now) {
                schedule.next_send()
            } else {
                Some(now)
            }
        };
        let Some(next) = next else {
            state.finish();
            return;
        };
        if next > now {
            let sleep = async {
                match &alarm {
                    Some(alarm) => alarm.sleep_until(next).await,
                    None => tokio::time::sleep_until(next.into()).await,
                }
            };
            tokio::select! {
                () = sleep => {}
                () = state.slot_freed.notified() => {}
            }
            continue;
        }
        let Some((inbox, free_since)) = state.idle.borrow_mut().pop_front() else {
            // Every slot is busy: the send waits for one, its latency counted from its time.
            state.slot_freed.notified().await;
            continue;
        };
        inbox.offered.set(inbox.offered.get() - 1);
        if inbox.closed.get() {
            continue;
        }
        let claimed =
            state
                .schedule
                .borrow_mut()
                .claim(now, &state.shared.remaining, state.shared.stopped());
        let Some(claim) = claimed else {
            state.finish();
            inbox.wake();
            return;
        };
        let intended = state.schedule.borrow_mut().advance();
        let counted = claim.counted;
        if let Some(live) = &state.plan.live {
            live.sent(state.index);
        }
        if counted && (now - intended).as_micros() as u64 > LATE_AFTER_US {
            let mut stats = state.stats.borrow_mut();
            stats.counters.late += 1;
            if (now - intended.max(free_since)).as_micros() as u64 > LATE_AFTER_US {
                stats.counters.late_client += 1;
            }
        }
        inbox.jobs.borrow_mut().push_back(Job {
            counted,
            kind: state.plan.kind_of(claim.ordinal),
            intended,
        });
        inbox.wake();
    }
}

/// One connection, opened (and reopened after a failure) while there is work, carrying its
/// slots' requests.
async fn connection(state: Rc<Loop>) {
    let refused = RefCell::new(VecDeque::new());
    loop {
        let again = !refused.borrow().is_empty();
        if state.shared.stopped() || (state.done.get() && !again) {
            break;
        }
        let inbox = Rc::new(Inbox::default());
        // The first request decides whether a connection is worth opening: one the last
        // connection's server refused, or a new one.
        let first = if again {
            None
        } else {
            let Some(job) = state.first_job(&inbox).await else {
                break;
            };
            Some((job, Instant::now()))
        };
        match open(&state).await {
            Ok(Opened::Plain(tcp)) => carry::carry(&state, tcp, &inbox, &refused, first).await,
            Ok(Opened::Tls(tls)) => carry::carry(&state, *tls, &inbox, &refused, first).await,
            Err(failure) => {
                let refusals: Vec<carry::Refused> = refused.borrow_mut().drain(..).collect();
                let jobs = first
                    .map(|(job, _)| job)
                    .into_iter()
                    .chain(refusals.into_iter().map(carry::Refused::into_job));
                for job in jobs {
                    state.fail(job, Failure::Connect);
                }
                if let Some(error) = failure {
                    state.shared.connect_failed(Some(&error));
                }
            }
        }
        // Send times handed to this connection that it did not send go on the next one.
        inbox.closed.set(true);
        let now = Instant::now();
        let unsent: Vec<Job> = inbox.jobs.borrow_mut().drain(..).collect();
        refused.borrow_mut().extend(
            unsent
                .into_iter()
                .map(|job| carry::Refused::unsent(job, now)),
        );
    }
    // Stopped: refusals still waiting are in flight at the end, and not counted, as in ab.
}

fn micros(duration: Duration) -> u32 {
    duration.as_micros().min(u128::from(u32::MAX)) as u32
}
