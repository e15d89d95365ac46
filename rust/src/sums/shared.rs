//! One chunk of an exact sum shared with a thread of the pool, block by block: the
//! calling thread takes blocks at once, and a thread of the pool takes others if it
//! comes in time. A thread that has helped lingers briefly ([`LINGER`]: it spins,
//! then yields its core) for the next shared chunk (a training loop's next `update`),
//! so that it comes in time.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::{merge_rows, normalize, Acc, SIZE};

/// Rows from which one chunk of [`super::chunked_checked`] is offered to an idle
/// thread of the pool, block by block (a training loop's batch: too small to wait for
/// a thread, large enough that a thread already awake halves its time).
pub const SHARED_ROWS: usize = 8192;
/// Rows of a block of [`shared_checked`].
const SHARED_BLOCK: usize = 1024;

/// The rows' function of [`shared_checked`], its lifetime erased (see [`Share`]).
type RowsFn = dyn Fn(Range<usize>) -> Option<Acc> + Sync;

/// The blocks of one [`shared_checked`] call, taken in turn by the caller and, if one
/// arrives in time, a thread of the pool.
struct Share {
    /// Bit 0: closed (the caller has taken every block and waits); above it, twice the
    /// helpers inside. A helper enters only while it is open.
    gate: AtomicUsize,
    /// The next block to take.
    next: AtomicUsize,
    /// A block's rows failed their checks.
    failed: AtomicBool,
    /// The sums of the helper's blocks.
    parts: Mutex<Vec<Acc>>,
    rows: usize,
    /// The caller's function: read only by a helper inside the gate, and the caller
    /// returns only once the gate is closed and no helper is inside.
    sum_rows: *const RowsFn,
}

// SAFETY: `sum_rows` points to a `Sync` function that outlives every use (see `Share`)
unsafe impl Send for Share {}
// SAFETY: as above; the other fields are atomics and a mutex
unsafe impl Sync for Share {}

impl Share {
    /// A helper's part: enter the gate while it is open, take blocks, leave their sum.
    fn help(&self) {
        let mut gate = self.gate.load(Ordering::Acquire);
        loop {
            if gate & 1 == 1 {
                return; // too late: the caller took every block
            }
            match self.gate.compare_exchange_weak(
                gate,
                gate + 2,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break,
                Err(now) => gate = now,
            }
        }
        // SAFETY: inside the gate the caller's function is alive (see `Share`)
        let sum_rows = unsafe { &*self.sum_rows };
        if let Some(acc) = self.take_blocks(sum_rows) {
            self.parts
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(acc);
        }
        self.gate.fetch_sub(2, Ordering::Release);
    }

    /// The sum of the blocks this thread takes (None when one fails, or another did).
    fn take_blocks(
        &self,
        sum_rows: &(dyn Fn(Range<usize>) -> Option<Acc> + Sync + '_),
    ) -> Option<Acc> {
        let mut out = [0i64; SIZE];
        loop {
            let lo = self.next.fetch_add(1, Ordering::Relaxed) * SHARED_BLOCK;
            if lo >= self.rows || self.failed.load(Ordering::Relaxed) {
                break;
            }
            match sum_rows(lo..(lo + SHARED_BLOCK).min(self.rows)) {
                Some(acc) => {
                    (0..SIZE).for_each(|j| out[j] += acc[j]);
                    normalize(&mut out);
                }
                None => {
                    self.failed.store(true, Ordering::Relaxed);
                    return None;
                }
            }
        }
        Some(out)
    }
}

/// [`super::chunked_checked`] of one chunk of `n` rows, its blocks shared with a thread of
/// the pool that is free to take them (one still awake from the last call takes
/// them at once, see [`LINGER`]): the calling thread starts at once and takes every
/// block no helper has taken, so a pool busy or asleep costs only the offer. The sum
/// does not depend on who took which block.
pub(super) fn shared_checked<'a, F>(n: usize, sum_rows: &'a F) -> Option<Acc>
where
    F: Fn(Range<usize>) -> Option<Acc> + Sync + 'a,
{
    let local: &'a (dyn Fn(Range<usize>) -> Option<Acc> + Sync + 'a) = sum_rows;
    // SAFETY: only the lifetime is erased; a helper calls it only inside the gate, and
    // this function returns only once the gate is closed and empty
    let erased: *const RowsFn = unsafe {
        std::mem::transmute::<*const (dyn Fn(Range<usize>) -> Option<Acc> + Sync + 'a), *const RowsFn>(
            local,
        )
    };
    let share = Arc::new(Share {
        gate: AtomicUsize::new(0),
        next: AtomicUsize::new(0),
        failed: AtomicBool::new(false),
        parts: Mutex::new(Vec::new()),
        rows: n,
        sum_rows: erased,
    });
    offer(&share);
    let mine = share.take_blocks(local);
    share.gate.fetch_or(1, Ordering::AcqRel);
    let mut spins = 0u32;
    while share.gate.load(Ordering::Acquire) > 1 {
        // a helper is finishing its block (a few microseconds)
        spins += 1;
        if spins < 1 << 12 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
    withdraw(&share);
    if share.failed.load(Ordering::Relaxed) {
        return None;
    }
    let mut parts = std::mem::take(&mut *share.parts.lock().unwrap_or_else(|e| e.into_inner()));
    parts.push(mine?);
    Some(merge_rows(&parts))
}

/// The share offered to a helper already awake (one that has just taken blocks of
/// a share and lingers, see [`LINGER`]); None once taken or withdrawn.
static OFFER: Mutex<Option<Arc<Share>>> = Mutex::new(None);
/// Whether [`OFFER`] holds a share (read by lingering helpers without the lock).
static OFFERED: AtomicBool = AtomicBool::new(false);
/// Helpers lingering for an offer.
static LINGERING: AtomicUsize = AtomicUsize::new(0);
/// How long a helper that has taken blocks of a share stays awake, spinning, for the
/// next one before it returns to the pool: a training loop's next `update` comes
/// within microseconds, and a pool thread woken from sleep comes too late for its
/// blocks. It spins a few microseconds, then yields its core between checks, so a
/// call not followed by another burns at most this much of one core, less where
/// other threads are runnable.
pub const LINGER: std::time::Duration = std::time::Duration::from_micros(50);

/// Spins of a lingering helper before it yields its core between checks.
const SPINS: u32 = 64;

/// Offer `share`'s blocks: to a helper lingering, else to a thread of the pool.
fn offer(share: &Arc<Share>) {
    if LINGERING.load(Ordering::Acquire) > 0 {
        let mut slot = OFFER.lock().unwrap_or_else(|e| e.into_inner());
        *slot = Some(Arc::clone(share));
        OFFERED.store(true, Ordering::Release);
    } else {
        let helper = Arc::clone(share);
        crate::threads::spawn(move || help(helper));
    }
}

/// Take `share` back from [`OFFER`] if no helper took it (the caller has every block).
fn withdraw(share: &Arc<Share>) {
    if OFFERED.load(Ordering::Acquire) {
        let mut slot = OFFER.lock().unwrap_or_else(|e| e.into_inner());
        if slot.as_ref().is_some_and(|s| Arc::ptr_eq(s, share)) {
            *slot = None;
            OFFERED.store(false, Ordering::Release);
        }
    }
}

/// A helper's work: the blocks of `share` it can take, then of each share offered
/// while it lingers.
fn help(mut share: Arc<Share>) {
    loop {
        share.help();
        drop(share);
        match linger(LINGER) {
            Some(next) => share = next,
            None => return,
        }
    }
}

/// The share offered within `window` ([`LINGER`]), or None.
fn linger(window: std::time::Duration) -> Option<Arc<Share>> {
    LINGERING.fetch_add(1, Ordering::AcqRel);
    let start = std::time::Instant::now();
    let mut spins = 0u32;
    let next = loop {
        if OFFERED.load(Ordering::Acquire) {
            let mut slot = OFFER.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(next) = slot.take() {
                OFFERED.store(false, Ordering::Release);
                break Some(next);
            }
        }
        // a few microseconds of spinning, then yields: on a busy machine the cores go
        // to threads that have work
        spins += 1;
        if spins < SPINS {
            std::hint::spin_loop();
        } else if start.elapsed() >= window {
            break None;
        } else {
            std::thread::yield_now();
        }
    };
    LINGERING.fetch_sub(1, Ordering::AcqRel);
    next
}

#[cfg(test)]
mod tests {
    use super::super::tests::reference;
    use super::super::{add, chunked_checked, CARRY_EVERY};
    use super::*;
    use crate::testing::{any_float, stream};

    /// A share of `n` rows of nothing (its function is never called: the gate is shut).
    fn closed_share(n: usize) -> Arc<Share> {
        static NOTHING: fn(Range<usize>) -> Option<Acc> = |_| None;
        let nothing: &RowsFn = &NOTHING;
        Arc::new(Share {
            gate: AtomicUsize::new(1),
            next: AtomicUsize::new(0),
            failed: AtomicBool::new(false),
            parts: Mutex::new(Vec::new()),
            rows: n,
            sum_rows: nothing,
        })
    }

    #[test]
    fn a_lingering_helper_takes_the_next_offer() {
        // a thread that lingers is offered the next share instead of a pool thread
        // (other tests' shares, and their helpers lingering, cross ours when the tests
        // run at once on a busy machine: a try may miss; five must get it within 200)
        let (mut taken, mut tries) = (0, 0);
        while taken < 5 && tries < 200 {
            tries += 1;
            let share = closed_share(1);
            let waiting = std::thread::spawn(|| linger(std::time::Duration::from_millis(200)));
            // (a thread that has already stopped lingering, with another test's share
            // or after its window on a busy machine, is not waited for)
            while LINGERING.load(Ordering::Acquire) == 0 && !waiting.is_finished() {
                std::thread::yield_now();
            }
            offer(&share);
            let got = waiting.join().expect("the lingering thread panicked");
            taken += got.is_some_and(|s| Arc::ptr_eq(&s, &share)) as u32;
            withdraw(&share);
        }
        assert!(taken == 5, "{taken} of {tries} offers taken");
    }

    #[test]
    fn a_shared_chunk_sums_and_checks_as_one_thread_does() {
        // one chunk of a training loop's batch, its blocks offered to the pool: the
        // sum of every row, or None when any block fails its checks, every time
        let mut next = stream(11);
        for n in [SHARED_ROWS, 10_000, 3 * SHARED_BLOCK + 1, 60_000] {
            let x: Vec<f64> = (0..n).map(|_| any_float(&mut next)).collect();
            let want = reference(&x);
            let sum_rows = |rows: Range<usize>| {
                let mut acc = [0i64; SIZE];
                for &v in &x[rows] {
                    if v == 0.5 {
                        return None;
                    }
                    add(&mut acc, v);
                }
                normalize(&mut acc);
                Some(acc)
            };
            for _ in 0..50 {
                assert_eq!(chunked_checked(n, 1, CARRY_EVERY, sum_rows), Some(want));
            }
            let mut bad = x.clone();
            bad[n - 1] = 0.5;
            let failing = |rows: Range<usize>| {
                (!bad[rows.clone()].contains(&0.5)).then(|| {
                    let mut acc = [0i64; SIZE];
                    bad[rows].iter().for_each(|&v| add(&mut acc, v));
                    normalize(&mut acc);
                    acc
                })
            };
            for _ in 0..50 {
                assert_eq!(chunked_checked(n, 1, CARRY_EVERY, failing), None);
            }
        }
    }
}
