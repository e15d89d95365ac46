//! The exact AUC's streaming state: sorted runs of (distinct score, positive count,
//! negative count).
//!
//! A batch is sorted once and collapsed into one run; runs are merged two at a time
//! in linear time, on a stack whose runs at least halve in size from the bottom up
//! (a binary-counter schedule): `n` entries cost `O(n log n)` in all, at most
//! `log2 n` runs are held, and a run is merged only with one of about its size.
//!
//! Counts are exact. Rows are `u64` counts; weights are integers (`u128`) in a unit
//! of each label, `2^quantum` where `quantum` is the lowest bit of any weight of
//! that label held, so that every sum is exact and the same for any split of the
//! rows into batches and any order of merges, while one label's sums span at most
//! 126 bits (e.g. weights from `2^-40` to `2^40` over `2^40` rows). A label's
//! weights spanning more have their lowest bits rounded off (told by `rounding`);
//! the two labels' weights may lie at any distance from each other.

use crate::sort::order_key;

mod rounding;
mod rows;
mod walk;
mod weights;
mod wide;
pub use rounding::{Rounded, Rounding};
pub use rows::{RowRuns, BUFFER_ROWS};
pub use weights::{weighted_sums, PerLabel, WeightRuns, WeightedSums};
pub use wide::{ratio, wide_mul, U256};

/// A count of one label at one score: rows or weight units.
pub trait Count: Copy + Default + PartialEq + Send + Sync + 'static {
    /// The sum of two counts.
    fn plus(self, other: Self) -> Self;
    /// The count as a float (rounded to nearest).
    fn as_f64(self) -> f64;
    /// The count as an unsigned 128-bit integer.
    fn wide(self) -> u128;
}

/// [`Count`] for unsigned integers of at most 128 bits.
macro_rules! count {
    ($($t:ty),*) => {$(
        impl Count for $t {
            #[inline(always)]
            fn plus(self, other: Self) -> Self {
                self + other
            }
            #[inline(always)]
            fn as_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn wide(self) -> u128 {
                u128::from(self)
            }
        }
    )*};
}
count!(u64, u128);

/// One distinct score (its [`order_key`]) and the count of each label there: 24
/// bytes with u64 counts, 40 with u128 ones (aligned to 8 bytes: not padded to 48).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, packed(8))]
pub struct Entry<C> {
    pub key: u64,
    pub pos: C,
    pub neg: C,
}

/// Entries of increasing keys.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Run<C: Copy> {
    pub entries: Vec<Entry<C>>,
}

impl<C: Count> Run<C> {
    /// Entries (distinct scores).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The run of items sorted by key: `(key, is positive, count)`, equal keys collapsed.
    pub fn from_sorted(items: impl Iterator<Item = (u64, bool, C)>, size_hint: usize) -> Self {
        let mut entries: Vec<Entry<C>> = Vec::with_capacity(size_hint);
        for (key, is_pos, count) in items {
            if entries.last().map(|e| e.key) != Some(key) {
                entries.push(Entry {
                    key,
                    ..Entry::default()
                });
            }
            let e = entries.last_mut().expect("an entry was pushed");
            if is_pos {
                e.pos = e.pos.plus(count);
            } else {
                e.neg = e.neg.plus(count);
            }
        }
        Run { entries }
    }

    /// The merge of two runs, linear: the entry of the smaller key is taken without a
    /// branch, and an entry of the key just written adds its counts there.
    pub fn merge(a: &Run<C>, b: &Run<C>) -> Run<C> {
        let mut out = Vec::new();
        Self::merge_into(&a.entries, &b.entries, &mut out);
        Run { entries: out }
    }

    /// [`Run::merge`] written into `out` (emptied first; its memory reused where it is
    /// large enough: a new large buffer costs a page fault per page).
    pub fn merge_into(a: &[Entry<C>], b: &[Entry<C>], out: &mut Vec<Entry<C>>) {
        out.clear();
        if out.capacity() < a.len() + b.len() {
            *out = Vec::with_capacity(a.len() + b.len());
            crate::pages::advise_huge(out);
        }
        if a.is_empty() || b.is_empty() {
            out.extend_from_slice(if a.is_empty() { b } else { a });
            return;
        }
        let (mut i, mut j) = (0, 0);
        // the entry being summed: the smaller head first
        let mut last = if a[0].key <= b[0].key {
            i = 1;
            a[0]
        } else {
            j = 1;
            b[0]
        };
        while i < a.len() && j < b.len() {
            let take_a = a[i].key <= b[j].key;
            let e = if take_a { a[i] } else { b[j] };
            i += take_a as usize;
            j += (!take_a) as usize;
            if e.key == last.key {
                last.pos = last.pos.plus(e.pos);
                last.neg = last.neg.plus(e.neg);
            } else {
                out.push(last);
                last = e;
            }
        }
        for &e in a[i..].iter().chain(b[j..].iter()) {
            if e.key == last.key {
                last.pos = last.pos.plus(e.pos);
                last.neg = last.neg.plus(e.neg);
            } else {
                out.push(last);
                last = e;
            }
        }
        out.push(last);
    }

    /// Twice the Mann-Whitney U (pairs ordered right count 2, tied pairs 1) and the
    /// totals of each label: see [`pair_sum_of`].
    pub fn pair_sum(&self) -> (U256, u128, u128) {
        pair_sum_of(self.entries.iter().map(|e| (e.pos.wide(), e.neg.wide())))
    }
}

/// Twice the Mann-Whitney U and the totals of each label `(2U, P, N)` of the counts
/// `(pos, neg)` of increasing distinct scores: 2U summed exactly (an integer below
/// 2**256), left to [`auc_of`] to divide and round once.
pub fn pair_sum_of(counts: impl Iterator<Item = (u128, u128)>) -> (U256, u128, u128) {
    let (mut below, mut total_pos, mut two_u) = (0u128, 0u128, U256::default());
    for (p, n) in counts {
        two_u.add_product(p, 2 * below + n);
        below += n;
        total_pos += p;
    }
    (two_u, total_pos, below)
}

/// A run of increasing keys, each with its counts: what [`Runs`] holds and merges
/// (entries of both labels, [`Run`], or the keys of one label, [`rows::Keys`]).
pub trait Sorted: Clone + Default + std::fmt::Debug + Send + Sync {
    /// One key and its counts.
    type Item: Copy;
    /// Items held.
    fn len(&self) -> usize;
    /// No item held.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The key of the `i`th item.
    fn key(&self, i: usize) -> u64;
    /// The `i`th item.
    fn item(&self, i: usize) -> Self::Item;
    /// Append an item whose key is not below the last one's.
    fn push(&mut self, item: Self::Item);
    /// Room for `n` more items.
    fn reserve(&mut self, n: usize);
    /// The merge of `a` and `b` written into `out` (emptied first; its memory reused
    /// where it is large enough), settled.
    fn merge_to(a: &Self, b: &Self, out: &mut Self);
    /// The run in its lasting form once every item is pushed.
    fn settle(&mut self) {}
    /// Room beyond an eighth let go.
    fn shrink(&mut self);
    /// Bytes held (room included).
    fn bytes(&self) -> usize;
}

impl<C: Count + std::fmt::Debug> Sorted for Run<C> {
    type Item = Entry<C>;

    fn len(&self) -> usize {
        self.entries.len()
    }

    #[inline(always)]
    fn key(&self, i: usize) -> u64 {
        self.entries[i].key
    }

    #[inline(always)]
    fn item(&self, i: usize) -> Entry<C> {
        self.entries[i]
    }

    #[inline(always)]
    fn push(&mut self, e: Entry<C>) {
        match self.entries.last_mut() {
            Some(last) if last.key == e.key => {
                last.pos = last.pos.plus(e.pos);
                last.neg = last.neg.plus(e.neg);
            }
            _ => self.entries.push(e),
        }
    }

    fn reserve(&mut self, n: usize) {
        self.entries.reserve(n);
    }

    fn merge_to(a: &Self, b: &Self, out: &mut Self) {
        Run::merge_into(&a.entries, &b.entries, &mut out.entries);
    }

    fn shrink(&mut self) {
        let run = &mut self.entries;
        if run.capacity() > run.len() + run.len() / 8 + 16 {
            run.shrink_to_fit();
        }
    }

    fn bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<Entry<C>>()
    }
}

/// A merge of two runs done a slice at a time (`step`), so that no update stalls on
/// merging the largest runs: the items before `i` and `j` are in `out`.
#[derive(Clone, Debug)]
struct Merging<R> {
    a: R,
    b: R,
    i: usize,
    j: usize,
    out: R,
}

impl<R: Sorted> Merging<R> {
    fn new(a: R, b: R) -> Self {
        // not populated at once (pages::advise_huge): its pages fault in a slice at a time
        let mut out = R::default();
        out.reserve(a.len() + b.len());
        Merging {
            a,
            b,
            i: 0,
            j: 0,
            out,
        }
    }

    /// Items not yet merged and merged.
    fn entries(&self) -> usize {
        self.a.len() - self.i + self.b.len() - self.j + self.out.len()
    }

    /// Merge about `budget` more items; the run once every item is merged.
    fn step(&mut self, budget: usize) -> Option<R> {
        let mut left = budget;
        let (a, b) = (&self.a, &self.b);
        while left > 0 && self.i < a.len() && self.j < b.len() {
            let take_a = a.key(self.i) <= b.key(self.j);
            let e = if take_a {
                a.item(self.i)
            } else {
                b.item(self.j)
            };
            self.i += take_a as usize;
            self.j += (!take_a) as usize;
            self.out.push(e);
            left -= 1;
        }
        while left > 0 && self.i < a.len() {
            self.out.push(a.item(self.i));
            self.i += 1;
            left -= 1;
        }
        while left > 0 && self.j < b.len() {
            self.out.push(b.item(self.j));
            self.j += 1;
            left -= 1;
        }
        if self.i < a.len() || self.j < b.len() {
            return None;
        }
        let mut out = std::mem::take(&mut self.out);
        out.settle();
        Some(out)
    }
}

/// Merges of at least this many entries are done a slice per update.
const SLICED: usize = 1 << 18;
/// Runs of this many entries are merged only when more than [`MAX_RUNS`] are held:
/// a large run is merged a few times, not `log2` of the updates.
const LARGE: usize = 1 << 20;
/// Runs held before the two smallest are merged, whatever their size.
const MAX_RUNS: usize = 8;
/// Entries a sliced merge advances per update, per entry of the update's run.
const SLICE_PER_ENTRY: usize = 4;

/// Runs whose sizes at least halve from the bottom of the stack to its top, a merge
/// of two large runs in progress, and the memory of the last run merged away,
/// written over by the next merge.
#[derive(Debug, Default)]
pub struct Runs<R> {
    pub stack: Vec<R>,
    merging: Option<Merging<R>>,
    spare: R,
}

impl<R: Sorted> Clone for Runs<R> {
    fn clone(&self) -> Self {
        Runs {
            stack: self.stack.clone(),
            merging: self.merging.clone(),
            spare: R::default(),
        }
    }
}

impl<R: Sorted> Runs<R> {
    /// Add a run; merge neighbours while the larger is at most twice the smaller. A
    /// merge of large runs proceeds a slice per update (a few entries per entry of
    /// the new run), so that no update merges the largest runs at once.
    pub fn push(&mut self, run: R) {
        if run.is_empty() {
            return;
        }
        let budget = (SLICE_PER_ENTRY * run.len()).max(1 << 16);
        self.insert(run);
        self.advance(budget);
    }

    /// Merge about `budget` more entries of the merge in progress.
    pub fn advance(&mut self, budget: usize) {
        if let Some(m) = &mut self.merging {
            if let Some(done) = m.step(budget) {
                self.merging = None;
                self.insert(done);
            }
        }
    }

    /// Entries the merge in progress has yet to merge.
    pub fn merge_left(&self) -> usize {
        self.merging
            .as_ref()
            .map_or(0, |m| m.a.len() - m.i + m.b.len() - m.j)
    }

    /// Put a run in its place (the stack by decreasing size), then merge neighbours
    /// of about one size below [`LARGE`] entries, and the two smallest runs while
    /// more than [`MAX_RUNS`] are held.
    pub fn insert(&mut self, run: R) {
        if run.is_empty() {
            return;
        }
        let at = self.stack.partition_point(|r| r.len() >= run.len());
        self.stack.insert(at, run);
        loop {
            let n = self.stack.len();
            let about_one_size = |k: usize| {
                let (large, small) = (self.stack[k - 1].len(), self.stack[k].len());
                large <= 2 * small && large + small < LARGE
            };
            let k = match n {
                0 | 1 => break,
                _ if n > MAX_RUNS => n - 1,
                _ => match (1..n).rev().find(|&k| about_one_size(k)) {
                    Some(k) => k,
                    None => break,
                },
            };
            let small = self.stack.remove(k);
            let large = self.stack.remove(k - 1);
            if large.len() + small.len() >= SLICED {
                if let Some(mut m) = self.merging.take() {
                    // one sliced merge at a time: the one in progress finishes first
                    let done = m.step(usize::MAX).expect("the whole merge");
                    let at = self.stack.partition_point(|r| r.len() >= done.len());
                    self.stack.insert(at, done);
                }
                self.merging = Some(Merging::new(large, small));
                continue;
            }
            let mut out = std::mem::take(&mut self.spare);
            R::merge_to(&large, &small, &mut out);
            self.spare = large;
            let at = self.stack.partition_point(|r| r.len() >= out.len());
            self.stack.insert(at, out);
        }
    }

    /// Finish the merge in progress.
    pub fn finish(&mut self) {
        if let Some(mut m) = self.merging.take() {
            let done = m.step(usize::MAX).expect("the whole merge");
            let at = self.stack.partition_point(|r| r.len() >= done.len());
            self.stack.insert(at, done);
        }
    }

    /// Every run merged into one (smallest first); the runs held are replaced by it,
    /// and the spare memory is let go.
    pub fn compact(&mut self) -> &R {
        self.finish();
        while self.stack.len() >= 2 {
            let small = self.stack.pop().expect("two runs");
            let large = self.stack.pop().expect("two runs");
            let mut out = std::mem::take(&mut self.spare);
            R::merge_to(&large, &small, &mut out);
            self.spare = large;
            self.stack.push(out);
        }
        self.spare = R::default();
        if self.stack.is_empty() {
            self.stack.push(R::default());
        }
        self.stack[0].shrink();
        &self.stack[0]
    }

    /// Entries held in all runs (and in the merge in progress).
    pub fn entries(&self) -> usize {
        let merging = self.merging.as_ref().map_or(0, Merging::entries);
        self.stack.iter().map(R::len).sum::<usize>() + merging
    }

    /// Bytes held: the runs' memory, the merge in progress and the spare.
    pub fn bytes(&self) -> usize {
        let held: usize = self.stack.iter().map(R::bytes).sum();
        let merging = self
            .merging
            .as_ref()
            .map_or(0, |m| m.a.bytes() + m.b.bytes() + m.out.bytes());
        held + merging + self.spare.bytes()
    }

    /// The runs held (the merge in progress finished first).
    pub fn into_runs(mut self) -> Vec<R> {
        self.finish();
        self.stack
    }
}

impl<C: Count + std::fmt::Debug> Runs<Run<C>> {
    /// `(2U, P, N)` of every count held ([`pair_sum_of`]; the merge in progress
    /// finished first), the runs walked as they are ([`walk::pair_sum_runs`]): no
    /// memory beyond the runs' and the entries of the rarer label.
    pub fn pair_sum(&mut self) -> (U256, u128, u128) {
        self.finish();
        match self.stack.len() {
            0 => (U256::default(), 0, 0),
            1 => self.stack[0].pair_sum(),
            _ => walk::pair_sum_runs(&self.stack),
        }
    }

    /// Apply `pos` to every count of the positives held and `neg` to every one of the
    /// negatives.
    pub fn map_counts(&mut self, mut pos: impl FnMut(C) -> C, mut neg: impl FnMut(C) -> C) {
        self.finish();
        for run in &mut self.stack {
            for e in &mut run.entries {
                e.pos = pos(e.pos);
                e.neg = neg(e.neg);
            }
        }
    }
}

/// The rows of one batch (0/1 labels), sorted and collapsed into a run of counts.
pub fn rows_run(labels: &[i8], scores: &[f64]) -> Run<u64> {
    let mut items: Vec<u64> = scores.iter().map(|&s| order_key(s)).collect();
    // the label in a key's place would cost a wider sort: positives and negatives
    // are sorted apart and merged
    let mut pos: Vec<u64> = Vec::new();
    let mut k = 0;
    for (i, &l) in labels.iter().enumerate() {
        if l == 1 {
            pos.push(items[i]);
        } else {
            items[k] = items[i];
            k += 1;
        }
    }
    items.truncate(k);
    sort_keys(&mut pos);
    sort_keys(&mut items);
    let a = Run::from_sorted(pos.iter().map(|&key| (key, true, 1u64)), pos.len());
    let b = Run::from_sorted(items.iter().map(|&key| (key, false, 1u64)), items.len());
    Run::merge(&a, &b)
}

fn sort_keys(keys: &mut [u64]) {
    if keys.len() > 1 << 16 {
        use rayon::slice::ParallelSliceMut;
        keys.par_sort_unstable();
    } else {
        keys.sort_unstable();
    }
}

/// The AUC of `(2U, P, N)`: `2U / (2 P N)`, the exact rational rounded once to the
/// nearest float ([`ratio`]); NaN without both labels.
pub fn auc_of(two_u: U256, total_pos: u128, total_neg: u128) -> f64 {
    if total_pos == 0 || total_neg == 0 {
        return f64::NAN;
    }
    let pairs = U256::product(total_pos, total_neg);
    if pairs.hi == 0 && pairs.lo < 1 << 52 && two_u.hi == 0 && two_u.lo < 1 << 53 {
        // 2U and 2PN are floats exactly (rows up to about 2**27): one division
        return two_u.lo as f64 / (2.0 * pairs.lo as f64);
    }
    // the quotient is at most 2: halving it is exact
    ratio(two_u, pairs) * 0.5
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::sort::key_score;

    fn brute_auc(labels: &[i8], scores: &[f64], weights: &[f64]) -> f64 {
        let (mut area, mut p, mut n) = (0.0, 0.0, 0.0);
        for i in 0..labels.len() {
            if labels[i] == 1 {
                p += weights[i];
                for j in 0..labels.len() {
                    if labels[j] != 1 {
                        let c = if scores[i] > scores[j] {
                            1.0
                        } else if scores[i] == scores[j] {
                            0.5
                        } else {
                            0.0
                        };
                        area += c * weights[i] * weights[j];
                    }
                }
            } else {
                n += weights[i];
            }
        }
        area / (p * n)
    }

    pub(super) fn data(seed: &mut u64, n: usize) -> (Vec<i8>, Vec<f64>, Vec<f64>) {
        let mut lcg = || crate::testing::lcg(seed);
        let labels = (0..n).map(|_| (lcg() % 3 == 0) as i8).collect();
        let scores = (0..n)
            .map(|_| [(lcg() % 7) as f64 / 7.0, -0.0, 0.0][(lcg() % 3) as usize])
            .collect();
        let weights = (0..n).map(|_| (lcg() % 5) as f64 * 0.1).collect();
        (labels, scores, weights)
    }

    #[test]
    fn pair_sums_past_2_to_128_are_exact() {
        // 2U = 2**100 (2**100 + 2**47) + 1 (2 (2**100 + 2**47)): the first product is
        // halfway between two floats and the second breaks the tie upwards; rounding
        // each product first would round it down
        let (big, half) = (1u128 << 100, 1u128 << 47);
        let counts = [(big, big + half), (1, 0)];
        let (two_u, p, n) = pair_sum_of(counts.into_iter());
        assert_eq!(two_u.to_f64(), 2f64.powi(200) + 2f64.powi(148));
        assert_eq!((p, n), (big + 1, big + half));
    }

    #[test]
    fn the_auc_is_the_exact_quotient_rounded_once() {
        // tiny negatives beside huge positives: 2U / (2 P N) rounded at each step was
        // an ulp below the exact value, 1e50 / ((1e50 + 1) (1 + 1e-10)) rounded once
        let mut w = WeightRuns::default();
        w.add(
            &[0, 1, 0, 1],
            &[0.9, 0.8, 0.7, 0.1],
            &[1e-10, 1e50, 1.0, 1.0],
        );
        let (two_u, p, n) = w.runs.pair_sum();
        assert_eq!(auc_of(two_u, p, n), 0.9999999999);
        // rows: the pairs are a float below 2**52, and the division is the one before
        for (two_u, p, n) in [(7u128, 2u128, 2u128), (1, 3, 1), (5, 1 << 25, 1 << 26)] {
            let want = two_u as f64 / (2.0 * p as f64 * n as f64);
            assert_eq!(auc_of(two_u.into(), p, n), want);
        }
        // and past it, rounded once: 2U = 2 P N - 1 with P N = 2**60 is 1 - 2**-61,
        // which rounds to 1 (2U as a float is 2**61 already)
        let (p, n) = (1u128 << 30, 1u128 << 30);
        assert_eq!(auc_of(((2 * p * n) - 1).into(), p, n), 1.0);
        let (p, n) = (3u128 << 40, 5u128 << 40);
        let two_u = 2 * p * n / 3 + 1;
        assert_eq!(auc_of(two_u.into(), p, n), 1.0 / 3.0);
        assert!(auc_of(U256::default(), 0, 5).is_nan());
    }

    #[test]
    fn merge_adds_equal_keys_and_keeps_order() {
        let run = |keys: &[u64], pos: &[u64], neg: &[u64]| Run::<u64> {
            entries: (0..keys.len())
                .map(|i| Entry {
                    key: keys[i],
                    pos: pos[i],
                    neg: neg[i],
                })
                .collect(),
        };
        let a = run(&[1, 3, 5], &[1, 0, 2], &[0, 1, 1]);
        let b = run(&[2, 3, 6], &[1, 1, 1], &[1, 1, 0]);
        let want = run(&[1, 2, 3, 5, 6], &[1, 1, 1, 2, 1], &[0, 1, 2, 1, 0]);
        assert_eq!(Run::merge(&a, &b), want);
        assert_eq!(Run::merge(&b, &a), want);
        assert_eq!(Run::merge(&want, &Run::default()), want);
        // equal first keys, a run of one entry, and runs that end on one key
        let one = run(&[1], &[2], &[3]);
        assert_eq!(Run::merge(&one, &one), run(&[1], &[4], &[6]));
        assert_eq!(
            Run::merge(&one, &a),
            run(&[1, 3, 5], &[3, 0, 2], &[3, 1, 1])
        );
        let end = run(&[5], &[1], &[1]);
        assert_eq!(
            Run::merge(&a, &end),
            run(&[1, 3, 5], &[1, 0, 3], &[0, 1, 2])
        );
        // an entry of wide counts is not padded to the alignment of a u128
        assert_eq!(std::mem::size_of::<Entry<u64>>(), 24);
        assert_eq!(std::mem::size_of::<Entry<u128>>(), 40);
        let wide = |pos| Run::<u128> {
            entries: vec![Entry {
                key: 4,
                pos,
                neg: 1,
            }],
        };
        let sum = Run::merge(&wide(u128::MAX / 4), &wide(u128::MAX / 4 + 2)).entries[0];
        assert_eq!(({ sum.pos }, { sum.neg }), (u128::MAX / 2 + 1, 2));
    }

    #[test]
    fn stack_sizes_halve_and_compact_is_any_order() {
        let mut seed = 7;
        let (labels, scores, _) = data(&mut seed, 3000);
        let mut runs = Runs::default();
        for chunk in (0..3000).step_by(97) {
            let end = (chunk + 97).min(3000);
            runs.push(rows_run(&labels[chunk..end], &scores[chunk..end]));
            for w in runs.stack.windows(2) {
                assert!(w[0].len() > 2 * w[1].len());
            }
        }
        let whole = rows_run(&labels, &scores);
        assert_eq!(runs.compact(), &whole);
        assert!(whole.entries.windows(2).all(|k| k[0].key < k[1].key));
        // -0.0 and 0.0 are one score
        assert_eq!(key_score(order_key(-0.0)), 0.0);
        assert!(key_score(order_key(-0.0)).is_sign_positive());
    }

    #[test]
    fn large_merges_proceed_a_slice_per_update() {
        // runs of distinct keys: merges past SLICED entries are done in slices
        let mut seed = 5;
        let mut runs = Runs::default();
        let mut all: Vec<u64> = Vec::new();
        let mut copy = None;
        for b in 0..120 {
            let mut keys: Vec<u64> = (0..5000)
                .map(|_| crate::testing::lcg(&mut seed) << 12)
                .collect();
            keys.sort_unstable();
            all.extend_from_slice(&keys);
            runs.push(Run::from_sorted(
                keys.iter().map(|&k| (k, b % 2 == 0, 1u64)),
                keys.len(),
            ));
            if runs.merging.is_some() && copy.is_none() {
                copy = Some(runs.clone()); // a copy mid-merge holds every entry too
            }
        }
        assert!(copy.is_some());
        all.sort_unstable();
        let total = |r: &Run<u64>| r.entries.iter().map(|e| e.pos + e.neg).sum::<u64>();
        let whole = runs.compact().clone();
        assert_eq!(total(&whole), all.len() as u64);
        all.dedup();
        assert_eq!(whole.len(), all.len());
        assert!(whole.entries.windows(2).all(|w| w[0].key < w[1].key));
        let mut from_copy = Runs::default();
        for run in copy.expect("a copy").into_runs() {
            from_copy.push(run);
        }
        assert!(total(from_copy.compact()) < total(&whole));
    }

    #[test]
    fn auc_matches_brute_force() {
        let mut seed = 3;
        let (labels, scores, weights) = data(&mut seed, 400);
        let ones = vec![1.0; labels.len()];
        let run = rows_run(&labels, &scores);
        let (two_u, p, n) = run.pair_sum();
        let got = auc_of(two_u, p, n);
        assert!((got - brute_auc(&labels, &scores, &ones)).abs() < 1e-12);
        let mut w = WeightRuns::default();
        w.add(&labels, &scores, &weights);
        let (two_u, p, n) = w.runs.compact().pair_sum();
        let got = auc_of(two_u, p, n);
        assert!((got - brute_auc(&labels, &scores, &weights)).abs() < 1e-12);
        assert!(w.exact());
    }
}
