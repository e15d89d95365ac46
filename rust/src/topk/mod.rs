//! Exact top-k of inner products: each user's running best `k` items, merged
//! block of items by block (retrieval from embeddings hands a block of users and a
//! block of items here).
//!
//! The scores of a tile of users by items are computed in registers (`tile`) and
//! compared there with each user's floor, the score of its worst kept item: once
//! the heaps are full almost every tile ends there, and no block of scores is ever
//! written to memory. A row's best items are kept as a binary heap whose root is
//! the worst kept item: the lowest score, and among equal scores the largest tie
//! key (the rank of the item's id, so the kept set and its order are by score
//! descending, id ascending); a score equal to the floor is offered, and the tie
//! key decides. Masked items (a sorted list of item indices per row) are skipped.
//! Rows are independent: the result does not depend on the number of threads or
//! on the blocks' sizes.

use rayon::prelude::*;

#[cfg(test)]
mod tests;
mod tile;

use tile::{MR, NR};

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

/// A block of users against a block of items, both row-major with `dim` numbers
/// a row; item row `j` is global item `col0 + j`.
pub struct Block<'a> {
    /// The users' vectors, one row per heap.
    pub users: &'a [f32],
    /// The items' vectors.
    pub items: &'a [f32],
    /// The numbers per vector.
    pub dim: usize,
    /// The global index of the first item.
    pub col0: usize,
}

/// Per row, the sorted global indices of the items it must not keep (CSR).
pub struct Masked<'a> {
    /// Offsets, one more than the rows.
    pub offsets: &'a [i64],
    /// Item indices, sorted ascending within each row.
    pub items: &'a [i32],
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
        let (s, t) = (self.scores[a], self.scores[b]);
        s < t || (s == t && self.key(a) > self.key(b))
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
        } else if self.scores[0] < s
            || (self.scores[0] == s && self.key(0) > self.keys[item as usize])
        {
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

/// Users scored by one task (a multiple of [`MR`]).
const TASK_ROWS: usize = 16 * MR;
/// Packed items scored against a group of users before the next group: about
/// 192 KiB of panels, so they stay in the core's L2 cache.
const PANEL_BYTES: usize = 192 << 10;

/// The floor of row `r` of a task's heaps: the score below which nothing enters
/// (-inf while the heap is not full).
#[inline]
fn floor(scores: &[f32], len: &[i64], k: usize, r: usize) -> f32 {
    if (len[r] as usize) < k {
        f32::NEG_INFINITY
    } else {
        scores[r * k]
    }
}

/// Score a task's users (whole heaps: `scores`, `items`, `len`) against every packed
/// panel and keep each user's top k. `masked` are the task's rows of the masks.
/// Returns whether a score was NaN.
fn scan_rows(
    users: &[f32],
    block: &Block<'_>,
    packed: &[f32],
    keys: &[u32],
    masked: (&[i64], &[i32]),
    (scores, items, len): (&mut [f32], &mut [i32], &mut [i64]),
    k: usize,
) -> bool {
    let dim = block.dim;
    let rows = len.len();
    let width = block.items.len() / dim;
    let panels = width.div_ceil(NR);
    let step = (PANEL_BYTES / (dim * NR * 4)).max(1);
    let (offsets, masked_items) = masked;
    // each row's next masked item at or after the block's first column
    let mut cursor: Vec<usize> = (0..rows)
        .map(|r| {
            let row = &masked_items[offsets[r] as usize..offsets[r + 1] as usize];
            offsets[r] as usize + row.partition_point(|&m| (m as i64) < block.col0 as i64)
        })
        .collect();
    let mut group = vec![0f32; MR * dim];
    let mut out: tile::Scores = [[0f32; NR]; MR];
    let mut nan = false;
    for first in (0..panels).step_by(step) {
        let last = (first + step).min(panels);
        for g in (0..rows).step_by(MR) {
            let n = MR.min(rows - g);
            group[..n * dim].copy_from_slice(&users[g * dim..(g + n) * dim]);
            group[n * dim..].fill(0.0);
            let mut floors = [f32::INFINITY; MR];
            for (i, f) in floors.iter_mut().enumerate().take(n) {
                *f = floor(scores, len, k, g + i);
            }
            for p in first..last {
                let panel = &packed[p * dim * NR..(p + 1) * dim * NR];
                let t = tile::Tile {
                    users: &group,
                    panel,
                    dim,
                    floors: &floors,
                };
                let hits = tile::tile(&t, &mut out);
                let valid = if (p + 1) * NR <= width {
                    u32::MAX
                } else {
                    (1u32 << (width - p * NR)) - 1
                };
                for i in 0..n {
                    let mut h = hits[i] & valid;
                    if h == 0 {
                        continue;
                    }
                    let r = g + i;
                    let mut heap = Heap {
                        scores: &mut scores[r * k..(r + 1) * k],
                        items: &mut items[r * k..(r + 1) * k],
                        len: len[r] as usize,
                        keys,
                    };
                    let end = offsets[r + 1] as usize;
                    while h != 0 {
                        let l = h.trailing_zeros() as usize;
                        h &= h - 1;
                        let item = block.col0 + p * NR + l;
                        let c = &mut cursor[r];
                        while *c < end && (masked_items[*c] as usize) < item {
                            *c += 1;
                        }
                        if *c < end && masked_items[*c] as usize == item {
                            continue;
                        }
                        let s = out[i][l];
                        if s.is_nan() {
                            nan = true;
                        } else if s >= heap.floor() {
                            heap.offer(s, item as i32);
                        }
                    }
                    len[r] = heap.len as i64;
                    floors[i] = heap.floor();
                }
            }
        }
    }
    nan
}

/// A task's heaps: its scores, items and lengths.
type Slots<'s> = ((&'s mut [f32], &'s mut [i32]), &'s mut [i64]);

/// Score a block of users against a block of items and merge the scores into the
/// users' heaps, in parallel over users; the scores never leave the registers
/// unless one may enter a heap. `keys[i]` is the tie key of global item `i`
/// (smaller first at equal scores). Returns whether a score was NaN (it is never
/// kept).
pub fn scan_block(block: &Block<'_>, keys: &[u32], masked: &Masked<'_>, heaps: Heaps<'_>) -> bool {
    let Heaps {
        scores,
        items,
        len,
        k,
    } = heaps;
    let dim = block.dim;
    if k == 0 || block.items.is_empty() || dim == 0 {
        return false;
    }
    let packed = tile::pack(block.items, dim);
    let work = |(t, ((s, i), l)): (usize, Slots<'_>)| {
        let r0 = t * TASK_ROWS;
        let r1 = r0 + l.len();
        let offsets = &masked.offsets[r0..=r1];
        scan_rows(
            &block.users[r0 * dim..r1 * dim],
            block,
            &packed,
            keys,
            (offsets, masked.items),
            (s, i, l),
            k,
        )
    };
    if len.len() * block.items.len() < crate::threads::PARALLEL_ROWS {
        return scores
            .chunks_mut(TASK_ROWS * k)
            .zip(items.chunks_mut(TASK_ROWS * k))
            .zip(len.chunks_mut(TASK_ROWS))
            .enumerate()
            .map(work)
            .fold(false, |a, b| a | b);
    }
    crate::threads::install(|| {
        scores
            .par_chunks_mut(TASK_ROWS * k)
            .zip(items.par_chunks_mut(TASK_ROWS * k))
            .zip(len.par_chunks_mut(TASK_ROWS))
            .enumerate()
            .map(work)
            .reduce(|| false, |a, b| a | b)
    })
}

/// The inner product of each row of `a` with the same row of `b` (rows of `dim`
/// numbers) into `out`: the chain of fused multiply-adds every score of
/// [`scan_block`] is, `s = fma(a[d], b[d], s)` for `d = 0, 1, ...` from `s = 0`, so
/// that a user's score of an item is the same float whichever path computed it
/// (the top k of every item, or of a user's candidates). In parallel over rows.
pub fn row_dots(a: &[f32], b: &[f32], dim: usize, out: &mut [f32]) {
    if dim == 0 {
        out.fill(0.0);
        return;
    }
    let work = |(o, (x, y)): (&mut [f32], (&[f32], &[f32]))| dots(x, y, dim, o);
    let rows = out.len();
    if rows * dim < crate::threads::PARALLEL_ROWS {
        return work((out, (a, b)));
    }
    crate::threads::install(|| {
        out.par_chunks_mut(TASK_ROWS)
            .zip(
                a.par_chunks(TASK_ROWS * dim)
                    .zip(b.par_chunks(TASK_ROWS * dim)),
            )
            .for_each(work);
    });
}

/// [`row_dots`] of some rows, on this thread: FMA instructions where the CPU has
/// them, else the same fused operation in software (`f32::mul_add`).
fn dots(a: &[f32], b: &[f32], dim: usize, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if crate::simd::avx_fma() {
        // SAFETY: the CPU has AVX and FMA (checked just above).
        return unsafe { dots_fma(a, b, dim, out) };
    }
    dots_plain(a, b, dim, out);
}

/// [`dots`] compiled for FMA instructions.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,fma")]
fn dots_fma(a: &[f32], b: &[f32], dim: usize, out: &mut [f32]) {
    dots_plain(a, b, dim, out);
}

#[inline(always)]
fn dots_plain(a: &[f32], b: &[f32], dim: usize, out: &mut [f32]) {
    for (o, (x, y)) in out
        .iter_mut()
        .zip(a.chunks_exact(dim).zip(b.chunks_exact(dim)))
    {
        *o = x.iter().zip(y).fold(0f32, |s, (&u, &v)| u.mul_add(v, s));
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
        // no NaN is ever kept; -0 and +0 are one score, ordered by tie key
        pairs.sort_unstable_by(|a, b| {
            b.0.partial_cmp(&a.0)
                .unwrap_or(std::cmp::Ordering::Equal)
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
