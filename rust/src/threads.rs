//! The kernels' thread pool: `RECEVAL_NUM_THREADS` threads, or the cores available
//! to the process (cgroup and affinity aware, as `std::thread::available_parallelism`).
//!
//! The pool is built on first use; a kernel whose input is small runs serially
//! and never wakes it.

use rayon::{ThreadPool, ThreadPoolBuilder};
use std::sync::OnceLock;

static POOL: OnceLock<Option<ThreadPool>> = OnceLock::new();
static THREADS: OnceLock<usize> = OnceLock::new();

/// The number of threads the kernels use (read once per process: the cgroup files
/// behind the available cores cost tens of microseconds to read).
pub fn num_threads() -> usize {
    *THREADS.get_or_init(threads_from_environment)
}

fn threads_from_environment() -> usize {
    let from_env = std::env::var("RECEVAL_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0);
    from_env.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}

/// Run `f` on the kernels' pool (on the calling thread if the pool cannot be built).
pub fn install<R: Send, F: FnOnce() -> R + Send>(f: F) -> R {
    let pool = POOL.get_or_init(|| {
        ThreadPoolBuilder::new()
            .num_threads(num_threads())
            .thread_name(|i| format!("receval-{i}"))
            .build()
            .ok()
    });
    match pool {
        Some(pool) => pool.install(f),
        None => f(),
    }
}
