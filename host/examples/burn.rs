//! A process of known cost, for the sampler's tests: `burn SPIN_MS MEMORY_MB` touches
//! MEMORY_MB of memory, spins until it has used SPIN_MS of CPU time (its own, by getrusage, so
//! a busy machine makes it take longer, not cost more), prints `done CPU_SECONDS`, and then
//! holds its memory until its standard input closes.

use std::io::{BufRead as _, Write as _};
use std::time::Duration;

use nix::sys::resource::{UsageWho, getrusage};

fn cpu_seconds() -> f64 {
    let usage = getrusage(UsageWho::RUSAGE_SELF).expect("getrusage");
    let seconds = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    seconds(usage.user_time()) + seconds(usage.system_time())
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|arg| arg.parse().expect("usage: burn SPIN_MS MEMORY_MB"))
        .collect();
    let [spin_ms, memory_mb] = args[..] else {
        panic!("usage: burn SPIN_MS MEMORY_MB");
    };
    let mut memory = vec![0u8; (memory_mb * 1024 * 1024) as usize];
    for page in memory.chunks_mut(4096) {
        page[0] = 1;
    }
    let spin = Duration::from_millis(spin_ms).as_secs_f64();
    let mut x = 0u64;
    while cpu_seconds() < spin {
        for _ in 0..10_000 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
    }
    println!("done {:.3}", cpu_seconds());
    std::io::stdout().flush().expect("stdout");
    // Hold the memory until the test is done with this process.
    let _ = std::io::stdin().lock().lines().count();
    std::hint::black_box(&memory);
}
