//! Rows of 0/1 labels counted per distinct score: the order keys of the rows of
//! the latest updates are appended to a buffer, and a full buffer is sorted once
//! (a radix sort) into a run, so that a row is sorted once and its run merged a
//! few times, whatever the size of the updates.

use super::{Entry, Run, Runs};
use crate::sort::order_key;
use crate::sort::radix::sort_u64;

/// Rows buffered before they are sorted into a run (16 MiB of keys: the sort of a
/// full buffer is the slowest update).
pub const BUFFER_ROWS: usize = 1 << 21;

/// Runs of rows, and the keys of the rows not yet in a run: those of positives at
/// the front of `buf`, those of negatives at its back.
#[derive(Debug)]
pub struct RowRuns {
    pub runs: Runs<u64>,
    buf: Vec<u64>,
    n_pos: usize,
    n_neg: usize,
    limit: usize,
}

impl Clone for RowRuns {
    /// A copy whose buffer holds only the rows buffered (not the buffer's room).
    fn clone(&self) -> Self {
        let mut copy = RowRuns::with_buffer(self.limit);
        copy.runs = self.runs.clone();
        copy.absorb_buffer(self);
        copy
    }
}

impl Default for RowRuns {
    fn default() -> Self {
        RowRuns::with_buffer(BUFFER_ROWS)
    }
}

/// The run of sorted keys of positives and of negatives, equal keys collapsed.
fn run_of_sorted(pos: &[u64], neg: &[u64]) -> Run<u64> {
    let mut entries: Vec<Entry<u64>> = Vec::with_capacity(pos.len() + neg.len());
    crate::pages::advise_huge(&mut entries);
    let (mut i, mut j) = (0, 0);
    while i < pos.len() || j < neg.len() {
        let take_pos = j == neg.len() || (i < pos.len() && pos[i] <= neg[j]);
        let key = if take_pos { pos[i] } else { neg[j] };
        i += take_pos as usize;
        j += (!take_pos) as usize;
        match entries.last_mut() {
            Some(e) if e.key == key => {
                e.pos += take_pos as u64;
                e.neg += (!take_pos) as u64;
            }
            _ => entries.push(Entry {
                key,
                pos: take_pos as u64,
                neg: (!take_pos) as u64,
            }),
        }
    }
    if entries.capacity() > entries.len() + entries.len() / 8 + 16 {
        entries.shrink_to_fit();
    }
    Run { entries }
}

impl RowRuns {
    /// A state that sorts its rows into a run every `limit` rows (at least 1).
    pub fn with_buffer(limit: usize) -> Self {
        RowRuns {
            runs: Runs::default(),
            buf: Vec::new(),
            n_pos: 0,
            n_neg: 0,
            limit: limit.max(1),
        }
    }

    /// Rows buffered.
    pub fn buffered(&self) -> usize {
        self.n_pos + self.n_neg
    }

    /// Room for `rows` more keys: the buffer doubles (up to the limit, or the rows
    /// of one large update), positives kept at the front and negatives at the back.
    fn reserve(&mut self, rows: usize) {
        let need = self.buffered() + rows;
        if need <= self.buf.len() {
            return;
        }
        let len = need.max((2 * self.buf.len()).min(self.limit));
        let mut buf = Vec::with_capacity(len);
        crate::pages::advise_huge(&mut buf);
        buf.resize(len, 0);
        buf[..self.n_pos].copy_from_slice(&self.buf[..self.n_pos]);
        buf[len - self.n_neg..].copy_from_slice(&self.buf[self.buf.len() - self.n_neg..]);
        self.buf = buf;
    }

    /// Add the rows of validated 0/1 labels and finite scores; a merge in progress
    /// advances in proportion, and the buffer is sorted into a run once full.
    pub fn add(&mut self, labels: &[i8], scores: &[f64]) {
        self.reserve(labels.len());
        let len = self.buf.len();
        for (&l, &s) in labels.iter().zip(scores) {
            let key = order_key(s);
            if l == 1 {
                self.buf[self.n_pos] = key;
                self.n_pos += 1;
            } else {
                self.n_neg += 1;
                self.buf[len - self.n_neg] = key;
            }
        }
        // the merge in progress ends by the time the buffer is next full
        let room = self.limit.saturating_sub(self.buffered()).max(1);
        let due = self.runs.merge_left().saturating_mul(labels.len()) / room;
        self.runs.advance(due.max(4 * labels.len()));
        if self.buffered() >= self.limit {
            self.flush();
        }
    }

    /// Sort the rows buffered into a run (its merges start, to advance with the
    /// next updates).
    pub fn flush(&mut self) {
        if self.buffered() == 0 {
            return;
        }
        let len = self.buf.len();
        let (front, back) = self.buf.split_at_mut(len - self.n_neg);
        let pos = &mut front[..self.n_pos];
        // scratch memory for the sort only: a full buffer's 16 MiB are not held between sorts
        let mut tmp = Vec::new();
        sort_u64(pos, &mut tmp);
        sort_u64(back, &mut tmp);
        let run = run_of_sorted(pos, back);
        self.n_pos = 0;
        self.n_neg = 0;
        self.runs.insert(run);
    }

    /// Add another state's rows.
    pub fn absorb(&mut self, other: &RowRuns) {
        self.absorb_buffer(other);
        if self.buffered() >= self.limit {
            self.flush();
        }
        for run in other.runs.clone().into_runs() {
            self.runs.push(run);
        }
    }

    /// Add the rows another state holds in its buffer to this one's buffer.
    fn absorb_buffer(&mut self, other: &RowRuns) {
        let len = other.buf.len();
        let (pos, neg) = (&other.buf[..other.n_pos], &other.buf[len - other.n_neg..]);
        self.reserve(pos.len() + neg.len());
        let mine = self.buf.len();
        self.buf[self.n_pos..self.n_pos + pos.len()].copy_from_slice(pos);
        self.n_pos += pos.len();
        self.buf[mine - self.n_neg - neg.len()..mine - self.n_neg].copy_from_slice(neg);
        self.n_neg += neg.len();
    }

    /// Every row in one run (the buffer sorted first).
    pub fn compact(&mut self) -> &Run<u64> {
        self.flush();
        if self.buffered() == 0 {
            self.buf = Vec::new(); // allocated again by the next update
        }
        self.runs.compact()
    }

    /// `(2U, P, N)` of the rows held ([`Runs::pair_sum`]; the buffer sorted first).
    pub fn pair_sum(&mut self) -> (f64, u128, u128) {
        self.flush();
        self.runs.pair_sum()
    }

    /// Distinct scores held over all runs, plus the rows buffered.
    pub fn entries(&self) -> usize {
        self.runs.entries() + self.buffered()
    }

    /// Bytes held: the runs' and the buffer's.
    pub fn bytes(&self) -> usize {
        self.runs.bytes() + 8 * self.buf.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{rows_run, tests::data};
    use super::*;

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
            assert_eq!(merged.compact(), &whole, "limit {limit}");
            assert_eq!(one.clone().compact(), &whole, "limit {limit}");
        }
    }

    #[test]
    fn runs_of_sorted_keys_collapse_equal_keys() {
        let run = run_of_sorted(&[1, 3, 3, 9], &[0, 3, 9, 9, 12]);
        let got: Vec<(u64, u64, u64)> = run.entries.iter().map(|e| (e.key, e.pos, e.neg)).collect();
        assert_eq!(
            got,
            vec![(0, 0, 1), (1, 1, 0), (3, 2, 1), (9, 1, 2), (12, 0, 1)]
        );
        assert!(run_of_sorted(&[], &[]).is_empty());
    }
}
