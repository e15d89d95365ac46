use super::super::{rows_run, tests::data};
use super::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Held by each test that holds the kernels' pool or counts the sorts on it, so that
/// no two run at once (cargo runs tests on parallel threads, and a test's thread
/// that awaits its own sort may sort another test's queued one).
fn pool_alone() -> std::sync::MutexGuard<'static, ()> {
    static POOL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    POOL.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn buffered_rows_count_as_one_run_for_any_buffer_and_split() {
    let mut seed = 21;
    let (labels, scores, _) = data(&mut seed, 5000);
    let whole = rows_run(&labels, &scores);
    let want = whole.pair_sum();
    for limit in [1, 7, 64, 1000, 1 << 20] {
        let mut parts: Vec<RowRuns> = Vec::new();
        let mut one = RowRuns::with_buffer(limit);
        for (c, chunk) in (0..5000).step_by(313).enumerate() {
            let end = (chunk + 313).min(5000);
            one.add(&labels[chunk..end], &scores[chunk..end]);
            let mut part = RowRuns::with_buffer(limit);
            part.add(&labels[chunk..end], &scores[chunk..end]);
            if c % 2 == 0 {
                part.flush();
            }
            parts.push(part);
        }
        assert_eq!(one.pair_sum(), want, "limit {limit}");
        let mut merged = RowRuns::with_buffer(limit);
        for part in parts.iter().rev() {
            merged.absorb(part);
        }
        assert_eq!(merged.pair_sum(), want, "limit {limit}");
        assert_eq!(merged.run(), whole, "limit {limit}");
        assert_eq!(one.clone().run(), whole, "limit {limit}");
        assert_eq!(RowRuns::of_run(&whole, limit).pair_sum(), want);
    }
}

#[test]
fn either_label_rarer_and_parts_of_runs_give_the_merged_walk() {
    // distinct keys (plain runs), many repeats (collapsed runs), either label rarer,
    // runs long enough to be walked in parts
    let mut seed = 4;
    for (n, distinct, pos_every) in [
        (300_000, 1 << 40, 20),
        (300_000, 50, 3),
        (200_000, 1 << 40, 1),
    ] {
        let mut draw = || crate::testing::lcg(&mut seed);
        let labels: Vec<i8> = (0..n).map(|_| i8::from(draw() % pos_every != 0)).collect();
        let scores: Vec<f64> = (0..n)
            .map(|_| ((draw() << 20 | draw()) % distinct) as f64)
            .collect();
        let want = rows_run(&labels, &scores).pair_sum();
        for limit in [n, 70_000] {
            let mut state = RowRuns::with_buffer(limit);
            for chunk in (0..n).step_by(10_000) {
                state.add(
                    &labels[chunk..chunk + 10_000],
                    &scores[chunk..chunk + 10_000],
                );
            }
            assert_eq!(state.pair_sum(), want, "{n} {distinct} {pos_every}");
        }
        let flipped: Vec<i8> = labels.iter().map(|&l| 1 - l).collect();
        let mut state = RowRuns::default();
        state.add(&flipped, &scores);
        let (two_u, p, q) = state.pair_sum();
        assert_eq!((p, q), (want.2, want.1));
        assert_eq!(two_u.lo, 2 * p * q - want.0.lo);
    }
}

#[test]
fn a_full_buffer_sorts_on_the_kernels_pool_or_where_its_runs_are_awaited() {
    let _alone = pool_alone();
    use std::sync::mpsc;
    let mut seed = 9;
    let (labels, scores, _) = data(&mut seed, 4000);
    let mut buf: Vec<u64> = scores.iter().map(|&s| order_key(s)).collect();
    let n_neg = labels.iter().filter(|&&l| l == 0).count();
    let (neg, pos): (Vec<usize>, Vec<usize>) = (0..4000).partition(|&i| labels[i] == 0);
    let order: Vec<u64> = neg
        .iter()
        .chain(pos.iter().rev())
        .map(|&i| buf[i])
        .collect();
    buf.copy_from_slice(&order);
    let want = sorted_runs(buf.clone(), n_neg, 4000 - n_neg);
    // every thread of the pool held: the sort waits in the pool's queue, and the
    // thread that awaits its runs sorts it (rather than wait for a free thread)
    let threads = crate::threads::num_threads();
    let (held, release) = (
        Arc::new(AtomicUsize::new(0)),
        Arc::new(AtomicBool::new(false)),
    );
    for _ in 0..threads {
        let (held, release) = (Arc::clone(&held), Arc::clone(&release));
        crate::threads::spawn(move || {
            held.fetch_add(1, Ordering::SeqCst);
            while !release.load(Ordering::SeqCst) {
                std::thread::yield_now();
            }
        });
    }
    while held.load(Ordering::SeqCst) < threads {
        std::thread::yield_now();
    }
    let job = Sorting::start(buf.clone(), n_neg, 4000 - n_neg);
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert!(
        !job.is_done(),
        "the sort ran on a thread other than the pool's"
    );
    let (tx, rx) = mpsc::channel();
    let waiting = Arc::clone(&job);
    std::thread::spawn(move || tx.send(waiting.wait().clone()).unwrap());
    let got = rx.recv_timeout(std::time::Duration::from_secs(60));
    release.store(true, Ordering::SeqCst);
    assert_eq!(got.expect("the awaited sort waited for the pool"), want);
    // sorts left to the pool end there; a job dropped before its turn is not run
    let jobs: Vec<Arc<Sorting>> = (0..12)
        .map(|_| Sorting::start(buf.clone(), n_neg, 4000 - n_neg))
        .collect();
    drop(Sorting::start(buf.clone(), n_neg, 4000 - n_neg));
    for job in jobs.iter().rev() {
        assert_eq!(job.wait(), &want);
    }
}

/// Sorts running on threads of the kernels' pool now, and the most at once so far.
static ON_POOL: AtomicUsize = AtomicUsize::new(0);
static MOST_ON_POOL: AtomicUsize = AtomicUsize::new(0);

/// A sort counted in [`ON_POOL`] while it runs on a thread of the pool.
pub(super) struct OnPool(bool);

impl OnPool {
    pub(super) fn enter() -> OnPool {
        let pool = rayon::current_thread_index().is_some();
        if pool {
            let now = ON_POOL.fetch_add(1, Ordering::SeqCst) + 1;
            MOST_ON_POOL.fetch_max(now, Ordering::SeqCst);
        }
        OnPool(pool)
    }
}

impl Drop for OnPool {
    fn drop(&mut self) {
        if self.0 {
            ON_POOL.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

#[test]
fn sorts_leave_a_thread_of_the_kernels_pool_free() {
    let _alone = pool_alone();
    // many full buffers at once, each long enough to sort that the pool's threads
    // would all take one: at most all but one of them sort at once
    let mut seed = 13;
    let n = 1 << 20;
    let (labels, scores, _) = data(&mut seed, n);
    let mut buf: Vec<u64> = scores.iter().map(|&s| order_key(s)).collect();
    let n_neg = labels.iter().filter(|&&l| l == 0).count();
    let (neg, pos): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| labels[i] == 0);
    let order: Vec<u64> = neg
        .iter()
        .chain(pos.iter().rev())
        .map(|&i| buf[i])
        .collect();
    buf.copy_from_slice(&order);
    let want = sorted_runs(buf.clone(), n_neg, n - n_neg);
    let threads = crate::threads::num_threads();
    let jobs: Vec<Arc<Sorting>> = (0..4 * threads)
        .map(|_| Sorting::start(buf.clone(), n_neg, n - n_neg))
        .collect();
    // the pool's sorters end them all (not this thread: `wait` would sort here)
    while !jobs.iter().all(|job| job.is_done()) {
        std::thread::yield_now();
    }
    for job in &jobs {
        assert_eq!(job.wait(), &want);
    }
    let most = MOST_ON_POOL.load(Ordering::SeqCst);
    assert!(most >= 1, "no sort ran on the pool");
    assert!(
        most <= threads.saturating_sub(1).max(1),
        "{most} sorts ran at once on a pool of {threads} threads"
    );
}

#[test]
fn keys_collapse_when_at_most_half_are_distinct() {
    let plain = Keys::of_sorted(vec![1, 3, 3, 9]);
    assert!(plain.counts.is_empty());
    let counted = Keys::of_sorted(vec![0, 3, 3, 9, 9, 9]);
    assert_eq!(
        (counted.keys.clone(), counted.counts.clone()),
        (vec![0, 3, 9], vec![1, 2, 3])
    );
    let mut merged = Keys::default();
    Keys::merge_to(&plain, &counted, &mut merged);
    assert_eq!(merged.keys, vec![0, 1, 3, 9]);
    assert_eq!(merged.counts, vec![1, 1, 4, 4]);
    let mut ones = Keys::default();
    Keys::merge_to(
        &Keys::of_sorted(vec![2]),
        &Keys::of_sorted(vec![1, 3]),
        &mut ones,
    );
    assert_eq!((ones.keys, ones.counts.len()), (vec![1, 2, 3], 0));
    assert!(Keys::of_sorted(vec![]).keys.is_empty());
}

#[test]
fn a_buffer_is_sorted_before_rows_would_outgrow_it() {
    let mut seed = 17;
    let (labels, scores, _) = data(&mut seed, 600);
    let want = rows_run(&labels, &scores).pair_sum();
    let mut state = RowRuns::with_buffer(100);
    for chunk in (0..600).step_by(60) {
        state.add(&labels[chunk..chunk + 60], &scores[chunk..chunk + 60]);
        assert!(
            state.buf.capacity() <= 100,
            "a buffer of {} rows",
            state.buf.capacity()
        );
        assert_eq!(state.buffered(), 60, "rows after {chunk}");
    }
    assert_eq!(state.pair_sum(), want);
}

#[test]
fn a_sorter_passes_over_the_sorts_another_thread_holds() {
    let _alone = pool_alone();
    // as many sorts held by this thread (their input locked) as sorters can be alive,
    // queued before another: the pool's sorters sort that one, without waiting
    let mut seed = 31;
    let (labels, scores, _) = data(&mut seed, 3000);
    let buf: Vec<u64> = scores.iter().map(|&s| order_key(s)).collect();
    let n_neg = labels.iter().filter(|&&l| l == 0).count();
    let want = sorted_runs(buf.clone(), n_neg, 3000 - n_neg);
    // every thread of the pool held while the sorts are queued and locked
    let threads = crate::threads::num_threads();
    let (held, release) = (
        Arc::new(AtomicUsize::new(0)),
        Arc::new(AtomicBool::new(false)),
    );
    for _ in 0..threads {
        let (held, release) = (Arc::clone(&held), Arc::clone(&release));
        crate::threads::spawn(move || {
            held.fetch_add(1, Ordering::SeqCst);
            while !release.load(Ordering::SeqCst) {
                std::thread::yield_now();
            }
        });
    }
    while held.load(Ordering::SeqCst) < threads {
        std::thread::yield_now();
    }
    let taken: Vec<Arc<Sorting>> = (0..max_sorters())
        .map(|_| Sorting::start(buf.clone(), n_neg, 3000 - n_neg))
        .collect();
    let locks: Vec<_> = taken.iter().map(|job| job.input.lock().unwrap()).collect();
    let free = Sorting::start(buf.clone(), n_neg, 3000 - n_neg);
    release.store(true, Ordering::SeqCst);
    let since = std::time::Instant::now();
    while !free.is_done() && since.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::yield_now();
    }
    let sorted = free.is_done();
    drop(locks);
    assert!(
        sorted,
        "the sorters waited on the sorts another thread holds"
    );
    assert_eq!(free.wait(), &want);
    for job in &taken {
        assert_eq!(job.wait(), &want); // sorted here, by the thread that awaits them
    }
}

#[test]
fn the_window_walk_is_the_walk_of_counted_keys() {
    // keys of one row each (ties longer than a window, keys far apart), rare keys
    // with repeats, plain and collapsed, in parts of the other keys
    let mut seed = 8;
    for (n_other, n_rare, range) in [(5000, 300, 40), (4000, 900, 1 << 30), (300, 2000, 700)] {
        let mut draw = || crate::testing::lcg(&mut seed) % range;
        let mut keys: Vec<u64> = (0..n_other).map(|_| draw()).collect();
        keys.sort_unstable();
        let other = Keys {
            keys,
            counts: Vec::new(),
        };
        let mut rare: Vec<u64> = (0..n_rare).map(|_| draw()).collect();
        rare.sort_unstable();
        for rare in [Keys::of_sorted(rare.clone()), {
            let mut c = Keys::of_sorted(rare.clone());
            c.collapse();
            c
        }] {
            let prefix = rare.prefix();
            for step in [n_other, 97, 1000] {
                for lo in (0..n_other).step_by(step) {
                    let hi = (lo + step).min(n_other);
                    let start = rare.keys.partition_point(|&k| k < other.keys[lo]);
                    let end = rare.keys.partition_point(|&k| k <= other.keys[hi - 1]);
                    let want = walk_counted(&rare, &prefix, &other, lo, hi, start, end);
                    assert_eq!(walk_part(&rare, &prefix, &other, lo, hi), want, "{range}");
                }
            }
        }
    }
}
