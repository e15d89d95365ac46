//! The kernels' thread pool: `RECEVAL_NUM_THREADS` threads, or the cores available
//! to the process (cgroup and affinity aware, as `std::thread::available_parallelism`).
//!
//! The pool is built on first use; a kernel whose input is small runs serially
//! and never wakes it.
//!
//! A process forked after the pool was built (`multiprocessing` with the fork
//! start method, `os.fork()`, data loader workers) inherits the pool's memory but
//! none of its threads: a job sent to it would wait forever. A fork handler
//! (`pthread_atfork`) bumps a generation counter in the child, and the child's
//! first kernel builds a pool of its own; the parent's pool is left untouched in
//! the child (its locks may have been held by threads that do not exist there).

use rayon::{ThreadPool, ThreadPoolBuilder};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use std::sync::OnceLock;

/// The pool of one process generation (`None`: it could not be built).
struct Pool {
    generation: u64,
    pool: Option<ThreadPool>,
}

/// The current pool (leaked: a pool replaced after a fork is never freed, since
/// freeing it would touch locks that threads of the parent may have held).
static POOL: AtomicPtr<Pool> = AtomicPtr::new(std::ptr::null_mut());
/// Bumped in the child of every fork.
static GENERATION: AtomicU64 = AtomicU64::new(0);
static AT_FORK: std::sync::Once = std::sync::Once::new();
static THREADS: OnceLock<usize> = OnceLock::new();

/// The environment variable that sets the number of threads.
pub const VARIABLE: &str = "RECEVAL_NUM_THREADS";

/// Rows below which the kernels that read rows in chunks run on the calling thread.
pub const PARALLEL_ROWS: usize = 1 << 16;

/// `data` cut into the consecutive pieces `bounds[c]..bounds[c + 1]` (positions from
/// `bounds[0]`, ascending: usize, or the int64 offsets of groups): the parts a
/// kernel's threads write.
pub fn split_at_bounds<'a, T, B>(mut data: &'a mut [T], bounds: &[B]) -> Vec<&'a mut [T]>
where
    B: Copy + TryInto<usize>,
{
    let at = |b: B| b.try_into().unwrap_or(usize::MAX);
    let mut out = Vec::with_capacity(bounds.len().saturating_sub(1));
    for w in bounds.windows(2) {
        let (head, tail) = data.split_at_mut(at(w[1]) - at(w[0]));
        out.push(head);
        data = tail;
    }
    out
}

/// The number of threads the kernels use (read once per process: the cgroup files
/// behind the available cores cost tens of microseconds to read). An invalid
/// `RECEVAL_NUM_THREADS` counts as unset here; [`setting`] reports it.
pub fn num_threads() -> usize {
    *THREADS.get_or_init(|| {
        setting().ok().flatten().unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
    })
}

/// `RECEVAL_NUM_THREADS` as a number of threads: `Ok(None)` when unset or blank,
/// `Err(message)` when it is not a positive integer.
pub fn setting() -> Result<Option<usize>, String> {
    let Some(raw) = std::env::var_os(VARIABLE) else {
        return Ok(None);
    };
    let text = raw.to_string_lossy();
    if text.trim().is_empty() {
        return Ok(None);
    }
    match text.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(Some(n)),
        _ => Err(format!(
            "The {VARIABLE} environment variable must be a positive integer (the number of \
             threads of receval's kernels). Got '{text}' instead; set it to e.g. 4, or unset \
             it to use every available core."
        )),
    }
}

extern "C" fn forked_child() {
    // only an atomic store: all a fork handler may safely do
    GENERATION.fetch_add(1, Ordering::SeqCst);
}

fn register_fork_handler() {
    AT_FORK.call_once(|| {
        #[cfg(unix)]
        // SAFETY: the handler only bumps an atomic counter (async-signal-safe)
        unsafe {
            libc::pthread_atfork(None, None, Some(forked_child));
        }
    });
}

/// The pool of this process, built on first use (and again in a forked child).
fn pool() -> &'static Pool {
    let generation = GENERATION.load(Ordering::SeqCst);
    let current = POOL.load(Ordering::Acquire);
    // SAFETY: a non-null POOL points to a leaked, never freed Pool
    if let Some(pool) = unsafe { current.as_ref() } {
        if pool.generation == generation {
            return pool;
        }
    }
    register_fork_handler();
    let fresh = Box::into_raw(Box::new(Pool {
        generation,
        pool: ThreadPoolBuilder::new()
            .num_threads(num_threads())
            .thread_name(|i| format!("receval-{i}"))
            .build()
            .ok(),
    }));
    match POOL.compare_exchange(current, fresh, Ordering::AcqRel, Ordering::Acquire) {
        // SAFETY: `fresh` was just leaked and is never freed
        Ok(_) => unsafe { &*fresh },
        Err(other) => {
            // another thread built one first: use it, drop ours (its threads are alive)
            // SAFETY: `fresh` was never shared; `other` is a leaked Pool
            unsafe {
                drop(Box::from_raw(fresh));
                &*other
            }
        }
    }
}

/// Run `f` on the kernels' pool (on the calling thread if the pool cannot be built).
pub fn install<R: Send, F: FnOnce() -> R + Send>(f: F) -> R {
    match &pool().pool {
        Some(pool) => pool.install(f),
        None => {
            serial_here();
            f()
        }
    }
}

/// Run `f` on a thread of the kernels' pool without waiting for it (on the calling
/// thread, before returning, if the pool cannot be built). The kernels' work in the
/// background (a helper offered a chunk's blocks, the sort of the AUC state's full
/// buffer) goes this way: one pool of `RECEVAL_NUM_THREADS` threads runs it all.
pub fn spawn<F: FnOnce() + Send + 'static>(f: F) {
    match &pool().pool {
        Some(pool) => pool.spawn(f),
        None => f(),
    }
}

/// Run `f` on the kernels' pool while the calling thread runs `here` (work that
/// only it may do, such as reading Python objects), and return both results once
/// both are done (one after the other, on the calling thread, if the pool cannot
/// be built).
pub fn beside<A: Send, B>(f: impl FnOnce() -> A + Send, here: impl FnOnce() -> B) -> (A, B) {
    match &pool().pool {
        Some(pool) => {
            let mut done = None;
            let b = pool.in_place_scope(|scope| {
                scope.spawn(|_| done = Some(f()));
                here()
            });
            (done.expect("a scope returns once its tasks are done"), b)
        }
        None => {
            let b = here();
            (install(f), b)
        }
    }
}

/// Make the calling thread the one worker of a pool of its own (no thread is
/// started), once per thread: the parallel iterators of a kernel then run on it,
/// one after another. Without it they would turn to rayon's global pool, whose
/// failure to start (threads' stacks are address space too: `ulimit -v`) is a
/// panic.
fn serial_here() {
    if rayon::current_thread_index().is_none() {
        if let Ok(pool) = ThreadPoolBuilder::new()
            .num_threads(1)
            .use_current_thread()
            .build()
        {
            // the thread stays its worker (rayon leaks such a pool's registry anyway)
            std::mem::forget(pool);
        }
    }
}

/// Forks seen by this process's lineage so far (0 in a process never forked
/// after the pool was first used).
pub fn generation() -> u64 {
    GENERATION.load(Ordering::SeqCst)
}

/// Run `f(stop)` on a helper thread while the calling thread calls `poll` every
/// `every`; when `poll` returns an error, `stop` is set, `f`'s result is dropped
/// once it returns, and the error is returned. `f` must check `stop` often and
/// return early when it is set (its result is then discarded).
pub fn interruptible<R, E, F, P>(every: std::time::Duration, f: F, mut poll: P) -> Result<R, E>
where
    R: Send,
    F: FnOnce(&AtomicBool) -> R + Send,
    P: FnMut() -> Result<(), E>,
{
    let stop = AtomicBool::new(false);
    let (tx, rx) = std::sync::mpsc::channel::<R>();
    std::thread::scope(|scope| {
        let stop = &stop;
        scope.spawn(move || {
            let _ = tx.send(f(stop));
        });
        loop {
            match rx.recv_timeout(every) {
                Ok(result) => return Ok(result),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if let Err(e) = poll() {
                        stop.store(true, Ordering::Relaxed);
                        return Err(e);
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    // `f` panicked: the scope re-raises the panic when it joins
                    stop.store(true, Ordering::Relaxed);
                    std::panic::resume_unwind(Box::new("an interruptible kernel panicked"));
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_at_bounds_cuts_at_usize_positions_and_at_int64_offsets_alike() {
        let mut data: Vec<u32> = (0..10).collect();
        // positions from the first bound: data[0] is at position 2
        let pieces: Vec<Vec<u32>> = split_at_bounds(&mut data, &[2usize, 2, 5, 9])
            .into_iter()
            .map(|p| p.to_vec())
            .collect();
        assert_eq!(pieces, [vec![], vec![0, 1, 2], vec![3, 4, 5, 6]]);
        let parts = split_at_bounds(&mut data, &[0i64, 4, 4, 10]);
        assert_eq!(parts.iter().map(|p| p.len()).collect::<Vec<_>>(), [4, 0, 6]);
        for (k, part) in parts.into_iter().enumerate() {
            part.iter_mut().for_each(|x| *x = k as u32);
        }
        assert_eq!(data, [0, 0, 0, 0, 2, 2, 2, 2, 2, 2]);
        assert!(split_at_bounds(&mut data, &[3i64]).is_empty());
    }

    #[test]
    fn pool_is_rebuilt_in_a_new_generation() {
        let first = install(rayon::current_num_threads);
        assert!(first >= 1);
        let before = pool() as *const Pool;
        assert_eq!(pool() as *const Pool, before);
        forked_child(); // as the fork handler runs in a child
        let after = pool() as *const Pool;
        assert_ne!(after, before);
        assert_eq!(install(rayon::current_num_threads), first);
    }

    #[test]
    fn interruptible_returns_the_result_or_the_poll_error() {
        let done: Result<u32, ()> =
            interruptible(std::time::Duration::from_millis(1), |_| 7, || Ok(()));
        assert_eq!(done, Ok(7));
        let mut polls = 0;
        let stopped: Result<u32, &str> = interruptible(
            std::time::Duration::from_millis(1),
            |stop| {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::yield_now();
                }
                1
            },
            || {
                polls += 1;
                if polls < 3 {
                    Ok(())
                } else {
                    Err("interrupted")
                }
            },
        );
        assert_eq!(stopped, Err("interrupted"));
    }
}
