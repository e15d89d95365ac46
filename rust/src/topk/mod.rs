//! Exact top-k of dense score blocks: each row's running best `k` items, merged
//! block by block (retrieval from embeddings scores a block of users against a
//! block of items, then merges it here).
//!
//! A row's best items are kept as a binary heap whose root is the worst kept item:
//! the lowest score, and among equal scores the largest tie key (the rank of the
//! item's id, so the kept set and its order are by score descending, id ascending).
//! A block's row is screened 16 scores at a time against the root's score, so once
//! the heap is full most of the row costs one comparison per score. Masked items
//! (a sorted list of item indices per row) are skipped. Rows are independent: the
//! result does not depend on the number of threads or on the blocks' sizes.

use rayon::prelude::*;

#[cfg(test)]
mod tests;

/// The running top-k of a block of rows: `scores` and `items` hold `k` slots per
/// row (a heap of `len[row]` entries), `len` the entries kept per row.
pub struct Heaps<'a> {
    /// The kept scores, `k` per row.
    pub scores: &'a mut [f32],
    /// The kept items (global item indices), `k` per row.
    pub items: &'a mut [i32],
    /// The number of kept items of each row.
    pub len: &'a mut [i64],
    /// The number of items kept per row at most.
    pub k: usize,
}

/// A block of scores: `rows` rows of `width` scores for items `col0..col0 + width`.
pub struct Block<'a> {
    /// Row-major scores.
    pub scores: &'a [f32],
    /// The number of columns.
    pub width: usize,
    /// The global index of the first column's item.
    pub col0: usize,
}

/// Per row, the sorted global indices of the items it must not keep (CSR).
pub struct Masked<'a> {
    /// Offsets, one more than the rows.
    pub offsets: &'a [i64],
    /// Item indices, sorted ascending within each row.
    pub items: &'a [i32],
}

/// Whether `(s, a)` ranks below `(t, b)`: a lower score, or the same score and a
/// larger tie key.
#[inline]
fn worse(s: f32, ka: u32, t: f32, kb: u32) -> bool {
    s < t || (s == t && ka > kb)
}

/// One row's heap.
struct Heap<'a> {
    scores: &'a mut [f32],
    items: &'a mut [i32],
    len: usize,
    keys: &'a [u32],
}

impl Heap<'_> {
    #[inline]
    fn key(&self, slot: usize) -> u32 {
        self.keys[self.items[slot] as usize]
    }

    fn below(&self, a: usize, b: usize) -> bool {
        worse(self.scores[a], self.key(a), self.scores[b], self.key(b))
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.scores.swap(a, b);
        self.items.swap(a, b);
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if !self.below(i, parent) {
                break;
            }
            self.swap(i, parent);
            i = parent;
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut low = i;
            if l < self.len && self.below(l, low) {
                low = l;
            }
            if r < self.len && self.below(r, low) {
                low = r;
            }
            if low == i {
                return;
            }
            self.swap(i, low);
            i = low;
        }
    }

    /// Offer item `item` with score `s`.
    #[inline]
    fn offer(&mut self, s: f32, item: i32) {
        let k = self.scores.len();
        if self.len < k {
            self.scores[self.len] = s;
            self.items[self.len] = item;
            self.len += 1;
            self.sift_up(self.len - 1);
        } else if worse(self.scores[0], self.key(0), s, self.keys[item as usize]) {
            self.scores[0] = s;
            self.items[0] = item;
            self.sift_down(0);
        }
    }

    /// The score below which nothing enters (-inf while the heap is not full).
    #[inline]
    fn floor(&self) -> f32 {
        if self.len < self.scores.len() {
            f32::NEG_INFINITY
        } else {
            self.scores[0]
        }
    }
}

/// Screen width: scores compared with the floor at a time.
const LANES: usize = 16;

/// Whether any of `chunk` is at least `floor` or NaN (written so it vectorises).
#[inline]
fn any_at_least(chunk: &[f32], floor: f32) -> bool {
    let mut hit = false;
    for &s in chunk {
        hit |= (s >= floor) | s.is_nan();
    }
    hit
}

/// Merge one row of a block into its heap; `masked` is the row's sorted masked
/// items. Returns whether the row held a NaN score.
fn merge_row(heap: &mut Heap<'_>, row: &[f32], col0: usize, masked: &[i32]) -> bool {
    let width = row.len();
    let end = col0 + width;
    // the masked items inside this block, ascending
    let first = masked.partition_point(|&m| (m as i64) < col0 as i64);
    let last = masked.partition_point(|&m| (m as i64) < end as i64);
    let mut masked = masked[first..last]
        .iter()
        .map(|&m| m as usize - col0)
        .peekable();
    let mut nan = false;
    let mut start = 0;
    while start < width {
        let stop = (start + LANES).min(width);
        let chunk = &row[start..stop];
        let next_masked = masked.peek().is_some_and(|&m| m < stop);
        if !next_masked && !any_at_least(chunk, heap.floor()) {
            start = stop;
            continue;
        }
        for (j, &s) in chunk.iter().enumerate() {
            let col = start + j;
            if masked.peek() == Some(&col) {
                masked.next();
                continue;
            }
            if s.is_nan() {
                nan = true;
                continue;
            }
            if s >= heap.floor() {
                heap.offer(s, (col0 + col) as i32);
            }
        }
        start = stop;
    }
    nan
}

/// One row's slots: its index, scores, items and length.
type Slots<'s> = (((usize, &'s mut [f32]), &'s mut [i32]), &'s mut i64);

/// Merge a block of scores into the rows' heaps, in parallel over rows. `keys[i]`
/// is the tie key of global item `i` (smaller first at equal scores). Returns
/// whether a score was NaN (it is never kept).
pub fn merge_block(block: &Block<'_>, keys: &[u32], masked: &Masked<'_>, heaps: Heaps<'_>) -> bool {
    let Heaps {
        scores,
        items,
        len,
        k,
    } = heaps;
    if k == 0 || block.width == 0 {
        return false;
    }
    let work = |(((r, row_scores), row_items), row_len): Slots<'_>| {
        let mut heap = Heap {
            scores: row_scores,
            items: row_items,
            len: *row_len as usize,
            keys,
        };
        let (a, b) = (masked.offsets[r] as usize, masked.offsets[r + 1] as usize);
        let row = &block.scores[r * block.width..(r + 1) * block.width];
        let nan = merge_row(&mut heap, row, block.col0, &masked.items[a..b]);
        *row_len = heap.len as i64;
        nan
    };
    let serial = len.len() * block.width < crate::threads::PARALLEL_ROWS;
    if serial {
        scores
            .chunks_mut(k)
            .enumerate()
            .zip(items.chunks_mut(k))
            .zip(len.iter_mut())
            .map(work)
            .fold(false, |a, b| a | b)
    } else {
        crate::threads::install(|| {
            scores
                .par_chunks_mut(k)
                .enumerate()
                .zip(items.par_chunks_mut(k))
                .zip(len.par_iter_mut())
                .map(work)
                .reduce(|| false, |a, b| a | b)
        })
    }
}

/// Sort each row's kept items best first (score descending, tie key ascending), in
/// place; the first `len[row]` slots of each row are then its ranked list.
pub fn finish(heaps: Heaps<'_>, keys: &[u32]) {
    let Heaps {
        scores,
        items,
        len,
        k,
    } = heaps;
    if k == 0 {
        return;
    }
    let sort = |((row_scores, row_items), n): ((&mut [f32], &mut [i32]), &i64)| {
        let n = *n as usize;
        let mut pairs: Vec<(f32, i32)> = row_scores[..n]
            .iter()
            .copied()
            .zip(row_items[..n].iter().copied())
            .collect();
        pairs.sort_unstable_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then(keys[a.1 as usize].cmp(&keys[b.1 as usize]))
        });
        for (j, (s, i)) in pairs.into_iter().enumerate() {
            row_scores[j] = s;
            row_items[j] = i;
        }
    };
    crate::threads::install(|| {
        scores
            .par_chunks_mut(k)
            .zip(items.par_chunks_mut(k))
            .zip(len.par_iter())
            .for_each(sort);
    });
}
