//! Rows of 0/1 labels: the order keys of each label apart, in sorted runs.
//!
//! The keys of the rows of the latest updates are appended to a buffer (negatives
//! at its front, positives at its back), and a full buffer is sorted once (a radix
//! sort) into a run of each label, 8 bytes a row: the negatives keep the buffer's
//! memory, the positives are copied out. A run where at most half the keys are
//! distinct holds each distinct key once with its rows (16 bytes a key). Runs of a
//! label merge as [`Runs`] schedules them. Twice the Mann-Whitney U is a walk of the
//! rarer label's keys (its runs merged) against each run of the other label, in
//! parts on the kernels' pool: no label is stored per row, and no run is merged
//! for it.

use std::sync::Arc;

use rayon::prelude::*;

use super::{Entry, Run, Runs, Sorted, U256};
use crate::sort::order_key;

mod sorting;
#[cfg(test)]
use sorting::max_sorters;
use sorting::{Sorting, MAX_SORTING};

/// Rows buffered before they are sorted into runs (16 MiB of keys).
pub const BUFFER_ROWS: usize = 1 << 21;

/// The sorted order keys of one label's rows: every row's key (`counts` empty;
/// equal keys repeat), or, where at most half the keys are distinct, each distinct
/// key once and its rows in `counts`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Keys {
    keys: Vec<u64>,
    counts: Vec<u64>,
}

impl Keys {
    /// The run of sorted keys (repeats allowed), in its lasting form.
    fn of_sorted(keys: Vec<u64>) -> Keys {
        let mut run = Keys {
            keys,
            counts: Vec::new(),
        };
        run.settle();
        run
    }

    /// Rows at the `i`th key.
    #[inline(always)]
    fn count(&self, i: usize) -> u64 {
        if self.counts.is_empty() {
            1
        } else {
            self.counts[i]
        }
    }

    /// Rows held.
    fn rows(&self) -> u64 {
        if self.counts.is_empty() {
            self.keys.len() as u64
        } else {
            self.counts.iter().sum()
        }
    }

    /// Equal keys collapsed into one with their rows (in place).
    fn collapse(&mut self) {
        let mut counts: Vec<u64> = Vec::new();
        let mut w = 0;
        for r in 0..self.keys.len() {
            let c = self.count(r);
            if w > 0 && self.keys[w - 1] == self.keys[r] {
                *counts.last_mut().expect("a key was kept") += c;
            } else {
                self.keys[w] = self.keys[r];
                w += 1;
                counts.push(c);
            }
        }
        self.keys.truncate(w);
        self.keys.shrink_to_fit();
        counts.shrink_to_fit();
        self.counts = counts;
    }

    /// `(rows before each key, all rows)`: `prefix[i]` counts the rows of the keys
    /// before `i`.
    fn prefix(&self) -> Vec<u64> {
        let mut at = 0;
        let mut prefix = Vec::with_capacity(self.keys.len() + 1);
        for i in 0..self.keys.len() {
            prefix.push(at);
            at += self.count(i);
        }
        prefix.push(at);
        prefix
    }
}

impl Sorted for Keys {
    type Item = (u64, u64);

    fn len(&self) -> usize {
        self.keys.len()
    }

    #[inline(always)]
    fn key(&self, i: usize) -> u64 {
        self.keys[i]
    }

    #[inline(always)]
    fn item(&self, i: usize) -> (u64, u64) {
        (self.keys[i], self.count(i))
    }

    #[inline(always)]
    fn push(&mut self, (key, count): (u64, u64)) {
        if self.counts.is_empty() {
            if count == 1 {
                self.keys.push(key);
                return;
            }
            self.collapse();
        }
        if self.keys.last() == Some(&key) {
            *self.counts.last_mut().expect("a count per key") += count;
        } else {
            self.keys.push(key);
            self.counts.push(count);
        }
    }

    fn reserve(&mut self, n: usize) {
        self.keys.reserve(n);
    }

    fn merge_to(a: &Self, b: &Self, out: &mut Self) {
        let n = a.len() + b.len();
        out.counts.clear();
        out.keys.clear();
        if out.keys.capacity() < n {
            out.keys = Vec::with_capacity(n);
            crate::pages::advise_huge(&mut out.keys);
        }
        let (mut i, mut j) = (0, 0);
        if a.counts.is_empty() && b.counts.is_empty() {
            // keys alone: the smaller head taken without a branch
            let keys = &mut out.keys;
            while i < a.keys.len() && j < b.keys.len() {
                let take_a = a.keys[i] <= b.keys[j];
                keys.push(if take_a { a.keys[i] } else { b.keys[j] });
                i += take_a as usize;
                j += (!take_a) as usize;
            }
            keys.extend_from_slice(&a.keys[i..]);
            keys.extend_from_slice(&b.keys[j..]);
            out.settle();
            return;
        }
        while i < a.len() && j < b.len() {
            let take_a = a.keys[i] <= b.keys[j];
            out.push(if take_a { a.item(i) } else { b.item(j) });
            i += take_a as usize;
            j += (!take_a) as usize;
        }
        for k in i..a.len() {
            out.push(a.item(k));
        }
        for k in j..b.len() {
            out.push(b.item(k));
        }
        out.settle();
    }

    /// Keys of which at most half are distinct are collapsed; counts of one row each
    /// are dropped.
    fn settle(&mut self) {
        if self.counts.is_empty() {
            let repeats = self.keys.windows(2).filter(|w| w[0] == w[1]).count();
            if 2 * repeats >= self.keys.len() && !self.keys.is_empty() {
                self.collapse();
            }
        } else if self.rows() == self.keys.len() as u64 {
            self.counts = Vec::new();
        }
    }

    fn shrink(&mut self) {
        for v in [&mut self.keys, &mut self.counts] {
            if v.capacity() > v.len() + v.len() / 8 + 16 {
                v.shrink_to_fit();
            }
        }
    }

    fn bytes(&self) -> usize {
        8 * (self.keys.capacity() + self.counts.capacity())
    }
}

/// The keys of a buffer (negatives in `buf[..n_neg]`, positives in its last
/// `n_pos`) sorted into a run of each label, `(negatives, positives)`: the
/// negatives keep the buffer's memory, the positives are copied out.
fn sorted_runs(mut buf: Vec<u64>, n_neg: usize, n_pos: usize) -> (Keys, Keys) {
    #[cfg(test)]
    let _on_pool = tests::OnPool::enter();
    let len = buf.len();
    // the radix sort's scratch memory is its own, held for one sort only
    radsort::sort(&mut buf[..n_neg]);
    radsort::sort(&mut buf[len - n_pos..]);
    let pos = buf[len - n_pos..].to_vec();
    buf.truncate(n_neg);
    if buf.capacity() > buf.len() + buf.len() / 8 + 16 {
        buf.shrink_to_fit();
    }
    (Keys::of_sorted(buf), Keys::of_sorted(pos))
}

/// Runs of each label's keys, and the keys of the rows not yet in a run: those of
/// negatives at the front of `buf`'s capacity, those of positives at its back (the
/// buffer's length stays 0: its memory is written only where keys are put, so an
/// update that starts a buffer neither writes its 16 MiB nor faults them in); and
/// the full buffers being sorted in the background.
#[derive(Debug)]
pub struct RowRuns {
    pos: Runs<Keys>,
    neg: Runs<Keys>,
    sorting: Vec<Arc<Sorting>>,
    buf: Vec<u64>,
    n_pos: usize,
    n_neg: usize,
    limit: usize,
    /// The room of the next buffer (that of the largest so far).
    size: usize,
}

impl Clone for RowRuns {
    /// A copy whose buffer holds only the rows buffered (not the buffer's room).
    fn clone(&self) -> Self {
        let mut copy = RowRuns::with_buffer(self.limit);
        copy.pos = self.pos.clone();
        copy.neg = self.neg.clone();
        copy.sorting = self.sorting.clone();
        copy.absorb_buffer(self);
        copy
    }
}

impl Default for RowRuns {
    fn default() -> Self {
        RowRuns::with_buffer(BUFFER_ROWS)
    }
}

/// Rows of a run walked in one part at least (a part per thread, four times over).
const PART_MIN: usize = 1 << 16;

/// `(sum of c * below, sum of c * tied)` over the rare keys `x` (with their rows
/// `c`) against the keys `other[lo..hi]`: `below` counts the rows there below `x`,
/// `tied` those at `x`. `prefix` is the rare keys' [`Keys::prefix`].
fn walk_part(rare: &Keys, prefix: &[u64], other: &Keys, lo: usize, hi: usize) -> (u128, u128) {
    let (first, last) = (other.keys[lo], other.keys[hi - 1]);
    let start = rare.keys.partition_point(|&k| k < first);
    let end = rare.keys.partition_point(|&k| k <= last);
    if other.counts.is_empty() {
        let (below, tied) = walk_plain(
            &rare.keys[start..end],
            &prefix[start..=end],
            &other.keys[lo..hi],
        );
        let above = u128::from(prefix[rare.keys.len()] - prefix[end]);
        return (below + above * (hi - lo) as u128, tied);
    }
    walk_counted(rare, prefix, other, lo, hi, start, end)
}

/// [`walk_part`] against keys of any rows each (`rare.keys[start..end]`: the rare
/// keys within the range of `other.keys[lo..hi]`).
fn walk_counted(
    rare: &Keys,
    prefix: &[u64],
    other: &Keys,
    lo: usize,
    hi: usize,
    start: usize,
    end: usize,
) -> (u128, u128) {
    let (mut below, mut tied) = (0u128, 0u128);
    let (mut j, mut under) = (lo, 0u64);
    let mut i = start;
    while i < end {
        let x = rare.keys[i];
        let mut k = i + 1;
        while k < end && rare.keys[k] == x {
            k += 1;
        }
        let c = u128::from(prefix[k] - prefix[i]);
        while j < hi && other.keys[j] < x {
            under += other.count(j);
            j += 1;
        }
        let (mut t, mut at) = (j, 0u64);
        while t < hi && other.keys[t] == x {
            at += other.count(t);
            t += 1;
        }
        below += c * u128::from(under);
        tied += c * u128::from(at);
        i = k;
    }
    // the rare keys above every key of the part: all its rows are below them
    let part_rows = (lo..hi).map(|t| other.count(t)).sum::<u64>() as u128;
    let above = u128::from(prefix[rare.keys.len()] - prefix[end]);
    (below + above * part_rows, tied)
}

/// Keys of a window: the keys below a rare key are counted a window at a time.
const WINDOW: usize = 8;

/// [`walk_part`] against keys of one row each (`keys`, every rare key within their
/// range; `prefix[i]`: the rows of the rare keys before `i`): `(sum of c * below,
/// sum of c * tied)`. The keys below each rare key are found a window at a time,
/// counted without a branch: a few steps per rare key, none mispredicted where
/// the rare keys are a few keys apart.
fn walk_plain(rare: &[u64], prefix: &[u64], keys: &[u64]) -> (u128, u128) {
    let n = keys.len();
    let (mut below, mut tied) = (0u128, 0u128);
    // `j`: the keys below the rare key (the rare keys increase, and so does `j`)
    let mut j = 0;
    for (i, &x) in rare.iter().enumerate() {
        while j + WINDOW <= n && keys[j + WINDOW - 1] < x {
            j += WINDOW;
        }
        let window = &keys[j..(j + WINDOW).min(n)];
        j += window.iter().map(|&k| usize::from(k < x)).sum::<usize>();
        let window = &keys[j..(j + WINDOW).min(n)];
        let mut at = window.iter().map(|&k| usize::from(k == x)).sum::<usize>();
        if at == WINDOW {
            // a tie longer than a window
            while j + at < n && keys[j + at] == x {
                at += 1;
            }
        }
        let c = u128::from(prefix[i + 1] - prefix[i]);
        below += c * j as u128;
        tied += c * at as u128;
    }
    (below, tied)
}

impl RowRuns {
    /// A state that sorts its rows into runs every `limit` rows (at least 1).
    pub fn with_buffer(limit: usize) -> Self {
        RowRuns {
            pos: Runs::default(),
            neg: Runs::default(),
            sorting: Vec::new(),
            buf: Vec::new(),
            n_pos: 0,
            n_neg: 0,
            limit: limit.max(1),
            size: 0,
        }
    }

    /// The state of the rows a run of entries counts.
    pub fn of_run(run: &Run<u64>, limit: usize) -> Self {
        let mut state = RowRuns::with_buffer(limit);
        for (runs, label) in [(&mut state.pos, true), (&mut state.neg, false)] {
            let mut keys = Keys::default();
            for e in &run.entries {
                let c = if label { e.pos } else { e.neg };
                if c > 0 {
                    keys.push((e.key, c));
                }
            }
            keys.settle();
            keys.shrink();
            runs.push(keys);
        }
        state
    }

    /// Rows buffered.
    pub fn buffered(&self) -> usize {
        self.n_pos + self.n_neg
    }

    /// The keys buffered: `(negatives, positives)`.
    fn buffered_keys(&self) -> (&[u64], &[u64]) {
        let room = self.buf.capacity();
        let base = self.buf.as_ptr();
        // SAFETY: the first `n_neg` and the last `n_pos` slots of the buffer's
        // capacity hold keys written by `put` (or copied in by `reserve`), and
        // `n_neg + n_pos <= room`
        unsafe {
            (
                std::slice::from_raw_parts(base, self.n_neg),
                std::slice::from_raw_parts(base.add(room - self.n_pos), self.n_pos),
            )
        }
    }

    /// Put the key of a row (room reserved for it).
    #[inline(always)]
    fn put(&mut self, key: u64, positive: bool) {
        let room = self.buf.capacity();
        debug_assert!(self.buffered() < room);
        let at = if positive {
            self.n_pos += 1;
            room - self.n_pos
        } else {
            self.n_neg += 1;
            self.n_neg - 1
        };
        self.buf.spare_capacity_mut()[at].write(key);
    }

    /// Room for `rows` more keys: the buffer doubles (up to the limit, or the rows
    /// of one large update), negatives kept at the front and positives at the back.
    fn reserve(&mut self, rows: usize) {
        let need = self.buffered() + rows;
        let room = self.buf.capacity();
        if need <= room {
            return;
        }
        let len = need.max((2 * room).max(self.size).min(self.limit));
        let mut buf: Vec<u64> = Vec::with_capacity(len);
        let len = buf.capacity();
        let (neg, pos) = self.buffered_keys();
        let spare = buf.spare_capacity_mut();
        for (slot, &key) in spare[..neg.len()].iter_mut().zip(neg) {
            slot.write(key);
        }
        for (slot, &key) in spare[len - pos.len()..].iter_mut().zip(pos) {
            slot.write(key);
        }
        self.buf = buf;
        self.size = self.size.max(len);
    }

    /// The keys buffered as one vector, negatives then positives (the buffer let
    /// go): `(keys, negatives, positives)`.
    fn take_buffer(&mut self) -> (Vec<u64>, usize, usize) {
        let (n_neg, n_pos) = (self.n_neg, self.n_pos);
        let mut buf = std::mem::take(&mut self.buf);
        let room = buf.capacity();
        if n_pos > 0 && n_neg + n_pos < room {
            // SAFETY: the last `n_pos` slots hold keys; they move to the slots right
            // after the negatives, inside the same allocation
            unsafe {
                let base = buf.as_mut_ptr();
                std::ptr::copy(base.add(room - n_pos), base.add(n_neg), n_pos);
            }
        }
        // SAFETY: the first `n_neg + n_pos` slots now hold keys
        unsafe { buf.set_len(n_neg + n_pos) };
        self.n_pos = 0;
        self.n_neg = 0;
        (buf, n_neg, n_pos)
    }

    /// Add the rows of validated 0/1 labels and finite scores; a merge in progress
    /// advances in proportion, and the buffer is sorted into runs once full.
    pub fn add(&mut self, labels: &[i8], scores: &[f64]) {
        if self.buffered() > 0 && self.buffered() + labels.len() > self.limit {
            // the rows would outgrow the buffer: it is sorted as it is, and they start
            // the next one (a buffer is never copied into a larger one)
            self.sort_buffer();
        }
        self.reserve(labels.len());
        for (&l, &s) in labels.iter().zip(scores) {
            self.put(order_key(s), l == 1);
        }
        // the merges in progress end by the time the buffer is next full
        let room = self.limit.saturating_sub(self.buffered()).max(1);
        for runs in [&mut self.pos, &mut self.neg] {
            let due = runs.merge_left().saturating_mul(labels.len()) / room;
            runs.advance(due.max(4 * labels.len()));
        }
        if self.sorting.iter().any(|s| s.is_done()) {
            self.collect(usize::MAX);
        }
        if self.buffered() >= self.limit {
            self.sort_buffer();
        }
    }

    /// The runs of the sorts in the background that have ended put in their place,
    /// and those of the oldest others, once they end, until at most `keep` are left.
    fn collect(&mut self, keep: usize) {
        let pending = self.sorting.iter().filter(|s| !s.is_done()).count();
        let mut waits = pending.saturating_sub(keep);
        for job in std::mem::take(&mut self.sorting) {
            if !job.is_done() {
                if waits == 0 {
                    self.sorting.push(job);
                    continue;
                }
                waits -= 1;
            }
            job.wait();
            let (neg, pos) = match Arc::try_unwrap(job) {
                Ok(job) => job.done.into_inner().expect("sorted"),
                Err(shared) => shared.wait().clone(), // a copy of the state shares the sort
            };
            self.neg.insert(neg);
            self.pos.insert(pos);
        }
    }

    /// Sort the rows buffered (a full buffer) into a run of each label in the
    /// background (the oldest sort collected first past [`MAX_SORTING`]), or here
    /// with `RECEVAL_NUM_THREADS=1`.
    fn sort_buffer(&mut self) {
        if crate::threads::num_threads() == 1 {
            self.flush();
            return;
        }
        self.collect(MAX_SORTING - 1);
        let (buf, n_neg, n_pos) = self.take_buffer();
        self.sorting.push(Sorting::start(buf, n_neg, n_pos));
    }

    /// Sort the rows buffered into a run of each label, here, and collect every sort
    /// in the background (their merges start, to advance with the next updates). The
    /// sorts are shared out: this thread sorts the buffer, then the sorts no sorter
    /// has taken, newest first, while the pool's sorters take them oldest first.
    pub fn flush(&mut self) {
        if self.buffered() > 0 {
            let (buf, n_neg, n_pos) = self.take_buffer();
            let (neg, pos) = sorted_runs(buf, n_neg, n_pos);
            self.neg.insert(neg);
            self.pos.insert(pos);
        }
        for job in self.sorting.iter().rev() {
            job.try_run();
        }
        self.collect(0);
    }

    /// Add another state's rows.
    pub fn absorb(&mut self, other: &RowRuns) {
        self.absorb_buffer(other);
        if self.buffered() >= self.limit {
            self.flush();
        }
        for (mine, theirs) in [(&mut self.pos, &other.pos), (&mut self.neg, &other.neg)] {
            for run in theirs.clone().into_runs() {
                mine.push(run);
            }
        }
        for job in &other.sorting {
            let (neg, pos) = job.wait();
            self.neg.push(neg.clone());
            self.pos.push(pos.clone());
        }
    }

    /// Add the rows another state holds in its buffer to this one's buffer.
    fn absorb_buffer(&mut self, other: &RowRuns) {
        let (neg, pos) = other.buffered_keys();
        self.reserve(pos.len() + neg.len());
        for &key in neg {
            self.put(key, false);
        }
        for &key in pos.iter().rev() {
            self.put(key, true); // the other's positives in their order
        }
    }

    /// Every row in one run of each label (the buffer sorted first).
    pub fn compact(&mut self) {
        self.flush();
        self.buf = Vec::new(); // allocated again by the next update
        self.size = 0;
        self.pos.compact();
        self.neg.compact();
    }

    /// Every row in one run of entries: each distinct score and its rows of each
    /// label (the state compacted first).
    pub fn run(&mut self) -> Run<u64> {
        self.compact();
        let (pos, neg) = (&self.pos.stack[0], &self.neg.stack[0]);
        let mut out = Run::default();
        out.reserve(pos.len() + neg.len());
        let (mut i, mut j) = (0, 0);
        while i < pos.len() || j < neg.len() {
            let take_pos = j == neg.len() || (i < pos.len() && pos.keys[i] <= neg.keys[j]);
            let (key, c) = if take_pos { pos.item(i) } else { neg.item(j) };
            let (p, n) = if take_pos { (c, 0) } else { (0, c) };
            out.push(Entry {
                key,
                pos: p,
                neg: n,
            });
            i += take_pos as usize;
            j += (!take_pos) as usize;
        }
        out
    }

    /// `(2U, P, N)` of the rows held (the buffer sorted first): the rarer label's
    /// runs merged into one, walked against every run of the other label in parts
    /// on the kernels' pool. 2U is an exact integer.
    pub fn pair_sum(&mut self) -> (U256, u128, u128) {
        self.flush();
        self.pos.finish();
        self.neg.finish();
        let rows = |runs: &Runs<Keys>| runs.stack.iter().map(Keys::rows).sum::<u64>();
        let (total_pos, total_neg) = (u128::from(rows(&self.pos)), u128::from(rows(&self.neg)));
        if total_pos == 0 || total_neg == 0 {
            return (U256::default(), total_pos, total_neg);
        }
        let pos_rare = self.pos.entries() <= self.neg.entries();
        let (rare, other) = if pos_rare {
            (&mut self.pos, &self.neg)
        } else {
            (&mut self.neg, &self.pos)
        };
        let rare = rare.compact();
        let prefix = rare.prefix();
        let all: usize = other.stack.iter().map(Keys::len).sum();
        let step = (all / (4 * crate::threads::num_threads())).max(PART_MIN);
        let parts: Vec<(&Keys, usize, usize)> = other
            .stack
            .iter()
            .flat_map(|r| {
                (0..r.len())
                    .step_by(step)
                    .map(move |lo| (r, lo, (lo + step).min(r.len())))
            })
            .collect();
        let walk = |&(r, lo, hi): &(&Keys, usize, usize)| walk_part(rare, &prefix, r, lo, hi);
        let add = |a: (u128, u128), b: (u128, u128)| (a.0 + b.0, a.1 + b.1);
        let (below, tied) = if parts.len() > 1 {
            crate::threads::install(|| parts.par_iter().map(walk).reduce(|| (0, 0), add))
        } else {
            parts.iter().map(walk).fold((0, 0), add)
        };
        let two_u = if pos_rare {
            2 * below + tied
        } else {
            // a negative's pairs ordered right are the positives above it
            2 * total_neg * total_pos - 2 * below - tied
        };
        (U256::from(two_u), total_pos, total_neg)
    }

    /// Keys held over all runs of both labels (a score with rows of both labels
    /// counts twice), plus the rows not yet sorted into a run.
    pub fn entries(&self) -> usize {
        let sorting: usize = self.sorting.iter().map(|s| s.rows).sum();
        self.pos.entries() + self.neg.entries() + self.buffered() + sorting
    }

    /// Bytes held: the runs' and the buffers'.
    pub fn bytes(&self) -> usize {
        let sorting: usize = self.sorting.iter().map(|s| s.bytes).sum();
        self.pos.bytes() + self.neg.bytes() + 8 * self.buf.capacity() + sorting
    }
}

#[cfg(test)]
mod tests;
