//! `--http2`: one thread's connections as HTTP/2, each carrying up to `--streams` requests at
//! once, with the h2 crate on a single-threaded tokio runtime of the thread's own (h2 is
//! async; the HTTP/1 loop's hand-driven mio stays as it is). What a request is, when it goes
//! and how it counts are the HTTP/1 loop's: the same [`Schedule`], [`ThreadStats`] and
//! [`Shared`], so reports, JSON, checks, `--rate`, `--shard` and merge read alike.
//!
//! Each connection has `--streams` slots. In a closed loop a slot sends its next request as
//! soon as its last one is answered; under `--rate` a dispatcher hands each send time to an
//! idle slot, and a send with no idle slot waits for one, its latency counted from its time.
//! A connection that fails fails its streams' requests and opens anew for the next ones.

mod open;

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::StreamExt as _;
use futures_util::stream::FuturesUnordered;
use h2::client::SendRequest;
use nix::sys::time::TimeSpec;
use nix::sys::timerfd::{ClockId, Expiration, TimerFd, TimerFlags, TimerSetTimeFlags};
use tokio::sync::{Notify, oneshot};

use self::open::open;
use super::shared::{Plan, Shared};
use crate::http::ResponseParser;
use crate::schedule::Schedule;
use crate::stats::{Completion, Failure, LATE_AFTER_US, Sample, ThreadStats};

/// Flow-control windows: large enough that a 100-item answer (about 20 KB) never waits for a
/// WINDOW_UPDATE, on a connection carrying `--streams` of them.
const STREAM_WINDOW: u32 = 1 << 20;
const CONNECTION_WINDOW: u32 = 16 << 20;

/// A request to send: whether it counts, and when it was due.
#[derive(Debug, Clone, Copy)]
struct Job {
    counted: bool,
    intended: Instant,
}

/// What the thread's tasks share (one thread: `Rc` and `RefCell`).
struct Loop {
    plan: Arc<Plan>,
    shared: Arc<Shared>,
    index: usize,
    schedule: RefCell<Schedule>,
    stats: RefCell<ThreadStats>,
    completed: Cell<u64>,
    failed: Cell<u64>,
    /// `--rate`: slots waiting for a send time, and the dispatcher's wake-up when one frees.
    idle: RefCell<VecDeque<(oneshot::Sender<Option<Job>>, Instant)>>,
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
    let state = Rc::new(Loop {
        plan,
        shared,
        index,
        schedule: RefCell::new(schedule),
        stats: RefCell::new(ThreadStats::new(sample_cap)),
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

impl Loop {
    /// The next request for a free slot: at once in a closed loop, at its send time under
    /// `--rate` (from the dispatcher). `None` when there is no more work.
    async fn next_job(&self) -> Option<Job> {
        if self.done.get() {
            return None;
        }
        if self.schedule.borrow().paced() {
            let (sender, receiver) = oneshot::channel();
            self.idle.borrow_mut().push_back((sender, Instant::now()));
            self.slot_freed.notify_one();
            return receiver.await.ok().flatten();
        }
        let now = Instant::now();
        let claimed =
            self.schedule
                .borrow_mut()
                .claim(now, &self.shared.remaining, self.shared.stopped());
        match claimed {
            Some(counted) => Some(Job {
                counted,
                intended: now,
            }),
            None => {
                self.finish();
                None
            }
        }
    }

    /// No more work: idle slots are told so.
    fn finish(&self) {
        self.done.set(true);
        for (slot, _) in self.idle.borrow_mut().drain(..) {
            let _ = slot.send(None);
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
        self.last_event.set(Instant::now());
        if job.counted {
            let at_us = self.micros_since_measure(Instant::now());
            self.stats.borrow_mut().count_failure(failure, at_us);
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
        let Some((slot, free_since)) = state.idle.borrow_mut().pop_front() else {
            // Every slot is busy: the send waits for one, its latency counted from its time.
            state.slot_freed.notified().await;
            continue;
        };
        let claimed =
            state
                .schedule
                .borrow_mut()
                .claim(now, &state.shared.remaining, state.shared.stopped());
        let Some(counted) = claimed else {
            let _ = slot.send(None);
            state.finish();
            return;
        };
        let intended = state.schedule.borrow_mut().advance();
        if counted && (now - intended).as_micros() as u64 > LATE_AFTER_US {
            let mut stats = state.stats.borrow_mut();
            stats.counters.late += 1;
            if (now - intended.max(free_since)).as_micros() as u64 > LATE_AFTER_US {
                stats.counters.late_client += 1;
            }
        }
        if let Err(Some(job)) = slot.send(Some(Job { counted, intended })) {
            // The slot's connection went away meanwhile: the request fails as it would on it.
            state.fail(job, Failure::Connect);
        }
    }
}

/// One connection, opened (and reopened after a failure) while there is work, carrying its
/// slots' requests.
async fn connection(state: Rc<Loop>) {
    let streams = state.plan.http2.as_ref().map_or(1, |h2| h2.streams);
    while !state.done.get() && !state.shared.stopped() {
        // The first request decides whether a connection is worth opening.
        let Some(first) = state.next_job().await else {
            return;
        };
        let start = Instant::now();
        let (sender, mut driver) = match open(&state).await {
            Ok(opened) => opened,
            Err(failure) => {
                state.fail(first, Failure::Connect);
                if let Some(error) = failure {
                    state.shared.connect_failed(Some(&error));
                }
                continue;
            }
        };
        state.shared.connected();
        let connected = Instant::now();
        let answered = Rc::new(Cell::new(false));
        // The connection's IO and its streams in this one task: a stream woken by the
        // connection is polled without a trip through the scheduler (measured: 0.9 µs of user
        // time a request more than h2load with a task each).
        let mut slots: FuturesUnordered<_> = (0..streams)
            .map(|slot| {
                let job = (slot == 0).then_some((first, start, connected));
                run_slot(Rc::clone(&state), sender.clone(), Rc::clone(&answered), job)
            })
            .collect();
        drop(sender);
        let mut driving = true;
        loop {
            tokio::select! {
                // When the connection ends, its streams fail, and are counted so.
                () = &mut driver, if driving => driving = false,
                slot = slots.next() => if slot.is_none() {
                    break;
                },
            }
        }
    }
}

/// One stream slot: requests one after another on `sender` until there is no more work or
/// the connection fails. `first`: the request that opened the connection, with its start
/// and the moment the connection was ready (ab's Connect time).
async fn run_slot(
    state: Rc<Loop>,
    sender: SendRequest<Bytes>,
    answered: Rc<Cell<bool>>,
    first: Option<(Job, Instant, Instant)>,
) {
    let mut first = first;
    loop {
        let (job, start, connected) = match first.take() {
            Some(opened) => opened,
            None => {
                let Some(job) = state.next_job().await else {
                    return;
                };
                let now = Instant::now();
                (job, now, now)
            }
        };
        if !exchange(&state, &sender, &answered, job, start, connected).await {
            // The connection is gone: the connection task opens another.
            return;
        }
    }
}

/// Sends one request and reads its answer. Returns whether the connection still works.
async fn exchange(
    state: &Loop,
    sender: &SendRequest<Bytes>,
    answered: &Cell<bool>,
    job: Job,
    start: Instant,
    connected: Instant,
) -> bool {
    let plan = &state.plan;
    let Some(h2) = plan.http2.as_ref() else {
        return false;
    };
    let work = async {
        let failed = |failure: Failure| move |error: h2::Error| (failure, Some(error));
        let mut sender = sender
            .clone()
            .ready()
            .await
            .map_err(failed(Failure::Write))?;
        let end_of_stream = h2.body.is_empty();
        let (response, mut body_out) = sender
            .send_request(h2.head.clone(), end_of_stream)
            .map_err(failed(Failure::Write))?;
        if !end_of_stream {
            body_out
                .send_data(h2.body.clone(), true)
                .map_err(failed(Failure::Write))?;
        }
        let written_at = Instant::now();
        let response = response.await.map_err(failed(Failure::Receive))?;
        let first_byte = Instant::now();
        Ok::<_, (Failure, Option<h2::Error>)>((written_at, first_byte, response))
    };
    let deadline = plan.checks.request_timeout.map(|timeout| start + timeout);
    let outcome = match deadline {
        Some(deadline) => match tokio::time::timeout_at(deadline.into(), work).await {
            Ok(outcome) => outcome,
            Err(_) => Err((Failure::Timeout, None)),
        },
        None => work.await,
    };
    let (written_at, first_byte, response) = match outcome {
        Ok(exchanged) => exchanged,
        Err((failure, error)) => {
            // A connection that failed its first answer at HTTP/2's own level (not a reset
            // stream, not the socket): the server does not speak HTTP/2.
            if let Some(error) = &error
                && !answered.get()
                && (error.is_library() || error.is_go_away())
            {
                state.h2_refused(error);
            }
            state.fail(job, failure);
            return failure == Failure::Timeout;
        }
    };
    answered.set(true);
    state.last_event.set(Instant::now());
    let mut parser = ResponseParser::new();
    parser.start(h2.head_method, state.shared.awaiting_first_response());
    let (head, mut body) = response.into_parts();
    // The head's size as HTTP/1.1 text would have it: ab's "Total transferred" counts heads.
    let head_len = 17
        + head
            .headers
            .iter()
            .map(|(name, value)| name.as_str().len() + value.len() + 4)
            .sum::<usize>() as u64;
    let server = head
        .headers
        .get(http::header::SERVER)
        .map(|value| value.as_bytes());
    parser.framed_head(head.status.as_u16(), head_len, server);
    let read_body = async {
        while let Some(chunk) = body.data().await {
            let chunk = chunk.map_err(|_| Failure::Receive)?;
            let _ = body.flow_control().release_capacity(chunk.len());
            parser.framed_data(&chunk, &plan.body_checks);
        }
        Ok::<_, Failure>(())
    };
    let read = match deadline {
        Some(deadline) => tokio::time::timeout_at(deadline.into(), read_body)
            .await
            .unwrap_or(Err(Failure::Timeout)),
        None => read_body.await,
    };
    if let Err(failure) = read {
        state.fail(job, failure);
        return failure == Failure::Timeout;
    }
    parser.framed_end(&plan.body_checks);
    let now = Instant::now();
    state.last_event.set(now);
    let response = *parser.response();
    let document_length = state
        .shared
        .document_length(response.body_len, || parser.take_server());
    if job.counted {
        let measure_start = state.schedule.borrow().measure_start;
        let sample = Sample {
            start_s: start.saturating_duration_since(measure_start).as_secs() as u32,
            connect_us: micros(connected - start),
            wait_us: micros(first_byte.saturating_duration_since(written_at)),
            total_us: micros(now - start),
        };
        let completion = Completion {
            response: &response,
            bytes_in: response.head_len + response.body_len,
            kept_alive: true,
            document_length: (!plan.checks.variable_length).then_some(document_length),
            expect_status: plan.checks.expect_status.map(|status| status.as_u16()),
            sample,
            corrected_us: plan
                .rate
                .map(|_| (now - job.intended.min(start)).as_micros() as u64),
            at_us: now.saturating_duration_since(measure_start).as_micros() as u64,
        };
        let mut stats = state.stats.borrow_mut();
        if stats.count_complete(completion) {
            state.failed.set(state.failed.get() + 1);
        }
        stats.counters.bytes_sent += h2.sent_len;
        drop(stats);
        state.completed.set(state.completed.get() + 1);
        state.publish();
    }
    true
}

fn micros(duration: Duration) -> u32 {
    duration.as_micros().min(u128::from(u32::MAX)) as u32
}
