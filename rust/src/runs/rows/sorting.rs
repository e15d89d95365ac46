//! Full buffers of [`super::RowRuns`] sorted on the kernels' pool while the next
//! updates fill the next buffer: a queue of sorts taken in turn by sorter jobs (all
//! of the pool's threads but one), and a fork that waits for the sorts under way.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once, OnceLock, PoisonError, Weak};

use super::{sorted_runs, Keys};

/// Sorts sent to the kernels' pool and not yet ended (queued or running), and the
/// sorters alive, and whether a fork waits for them: a fork's first handler waits
/// until none is left, so that no child holds a sort, a sorter or the queue's lock
/// that no thread of its own would release.
static SORTING: AtomicUsize = AtomicUsize::new(0);
static FORKING: AtomicBool = AtomicBool::new(false);
static AT_FORK: Once = Once::new();

/// The sorts not yet taken by a sorter, oldest first, and the sorters alive: jobs of
/// the kernels' pool that take the sorts in turn until none is left. At most all but
/// one of the pool's threads sort at once, so the kernels' other work (the blocks a
/// kernel offers to an idle thread, a kernel's chunks) always finds a thread.
static QUEUE: Mutex<(VecDeque<Weak<Sorting>>, usize)> = Mutex::new((VecDeque::new(), 0));

extern "C" fn before_fork() {
    FORKING.store(true, Ordering::SeqCst);
    while SORTING.load(Ordering::SeqCst) > 0 {
        std::thread::yield_now();
    }
}

extern "C" fn after_fork() {
    FORKING.store(false, Ordering::SeqCst);
}

/// Sorters at once, at most: all the pool's threads but one (one on a pool of one
/// thread, where a state sorts its buffers in its updates instead).
pub(super) fn max_sorters() -> usize {
    crate::threads::num_threads().saturating_sub(1).max(1)
}

/// A sorter: the sorts of the queue, in turn, until none is left.
fn sorter() {
    loop {
        let next = {
            let mut queue = QUEUE.lock().unwrap_or_else(PoisonError::into_inner);
            let next = queue.0.pop_front();
            if next.is_none() {
                queue.1 -= 1;
            }
            next
        };
        let Some(weak) = next else {
            SORTING.fetch_sub(1, Ordering::SeqCst); // the sorter's own count, last
            return;
        };
        if let Some(job) = weak.upgrade() {
            // a panic leaves the runs unset, and `wait` says so
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.try_run()));
        }
        SORTING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A full buffer sorted on a thread of the kernels' pool while the next updates fill
/// the next buffer: no update waits for the sort of a full buffer.
#[derive(Debug)]
pub(super) struct Sorting {
    /// The buffer's keys and its rows of each label, until a thread takes them to
    /// sort; the thread holds the lock until the runs are set.
    pub(super) input: Mutex<Option<(Vec<u64>, usize, usize)>>,
    pub(super) done: OnceLock<(Keys, Keys)>,
    pub(super) rows: usize,
    pub(super) bytes: usize,
}

impl Sorting {
    /// Queue the sort of a buffer's keys ([`sorted_runs`]) for a sorter on the
    /// kernels' pool, starting one if fewer than [`max_sorters`] are alive (it runs
    /// on the calling thread if the pool cannot be built).
    pub(super) fn start(buf: Vec<u64>, n_neg: usize, n_pos: usize) -> Arc<Sorting> {
        AT_FORK.call_once(|| {
            #[cfg(unix)]
            // SAFETY: the handlers touch atomics only, and wait for sorts and sorters
            // that take no lock the forking thread may hold
            unsafe {
                libc::pthread_atfork(Some(before_fork), Some(after_fork), Some(after_fork));
            }
        });
        loop {
            SORTING.fetch_add(1, Ordering::SeqCst);
            if !FORKING.load(Ordering::SeqCst) {
                break;
            }
            SORTING.fetch_sub(1, Ordering::SeqCst);
            std::thread::yield_now();
        }
        let job = Arc::new(Sorting {
            bytes: 8 * buf.capacity(),
            input: Mutex::new(Some((buf, n_neg, n_pos))),
            done: OnceLock::new(),
            rows: n_neg + n_pos,
        });
        // the state alone owns the job: one it has dropped (or taken whole) is not run,
        // and the runs move out of a job the sorter has let go of, not copied
        let new_sorter = {
            let mut queue = QUEUE.lock().unwrap_or_else(PoisonError::into_inner);
            queue.0.push_back(Arc::downgrade(&job));
            let new_sorter = queue.1 < max_sorters();
            if new_sorter {
                queue.1 += 1;
                SORTING.fetch_add(1, Ordering::SeqCst); // counted before the lock goes
            }
            new_sorter
        };
        if new_sorter {
            crate::threads::spawn(sorter);
        }
        job
    }

    /// Sort the input, once: here if no thread has taken it yet, else (the lock held
    /// by the thread that sorts) once that thread has set the runs.
    pub(super) fn run(&self) {
        let mut input = self.input.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((buf, n_neg, n_pos)) = input.take() {
            let _ = self.done.set(sorted_runs(buf, n_neg, n_pos));
        }
    }

    /// Sort the input here unless a thread has taken it or is sorting it (that
    /// thread sets the runs): a sorter never waits on a sort the state's thread took.
    pub(super) fn try_run(&self) {
        let mut input = match self.input.try_lock() {
            Ok(input) => input,
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return,
        };
        if let Some((buf, n_neg, n_pos)) = input.take() {
            let _ = self.done.set(sorted_runs(buf, n_neg, n_pos));
        }
    }

    /// Sorted.
    pub(super) fn is_done(&self) -> bool {
        self.done.get().is_some()
    }

    /// The runs: sorted here if the pool has not started the sort yet, else once
    /// its thread ends it.
    pub(super) fn wait(&self) -> &(Keys, Keys) {
        self.run();
        self.done
            .get()
            .expect("the sort of a full buffer of the AUC state panicked")
    }
}

/// Full buffers sorted in the background at once, at most: a buffer that fills
/// while as many sorts are pending waits for the oldest.
pub(super) const MAX_SORTING: usize = 4;
