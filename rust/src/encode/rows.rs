//! The rows of a string column as the hash of [`super::strings`] reads them: an
//! Arrow chunk's offsets and data (`string`, `large_string`) or its views
//! (`string_view`), where they lie, or one slice a row (strings read from Python
//! objects); each row's short key ([`short_bits`]) read in one pass a block.

use super::table::{
    after_length, fetch_lines, load16, load16_at, put_short, short_bits, store_short, PACKED_BYTES,
    SHORT_BYTES,
};
use crate::threads::PARALLEL_ROWS;

/// The offsets of an Arrow string column: `i32` (`string`) or `i64` (`large_string`).
pub trait Offset: Copy + Send + Sync {
    /// The offset as an index into the data.
    fn at(self) -> usize;
    /// The width ([`Rows::width`]) of the rows of `offsets` when none of them but
    /// the last is negative and none is less than the one before it, else None.
    fn scan(offsets: &[Self]) -> Option<usize>;
}

macro_rules! offset {
    ($t:ty) => {
        impl Offset for $t {
            #[inline(always)]
            fn at(self) -> usize {
                self as usize
            }
            /// One pass of ORs in the offsets' own width (it vectorizes, where a
            /// maximum of the lengths does not without AVX-512): of each offset and
            /// its difference to the next (the sign bit set by a negative one; the
            /// offsets then lie in 0.. and no difference overflows), and of
            /// [`PACKED_BYTES`] less each difference (the sign bit set by a longer
            /// row); a second pass, for rows longer than that only, tells those
            /// longer than [`SHORT_BYTES`].
            fn scan(offsets: &[Self]) -> Option<usize> {
                let ends = offsets.get(1..).unwrap_or_default();
                let pairs = || ends.iter().zip(offsets);
                let (bad, over_packed) =
                    pairs().fold((0 as $t, 0 as $t), |(bad, over), (&b, &a)| {
                        let len = b.wrapping_sub(a);
                        (bad | a | len, over | (PACKED_BYTES as $t).wrapping_sub(len))
                    });
                if bad < 0 {
                    return None;
                }
                if over_packed >= 0 {
                    return Some(PACKED_BYTES);
                }
                let over_short = pairs().fold(0 as $t, |or, (&b, &a)| {
                    or | (SHORT_BYTES as $t).wrapping_sub(b.wrapping_sub(a))
                });
                Some(if over_short >= 0 {
                    SHORT_BYTES
                } else {
                    SHORT_BYTES + 1
                })
            }
        }
    };
}
offset!(i32);
offset!(i64);

/// A chunk of a string column: its number of rows, and pieces of it.
pub trait Chunk: Sync + Sized {
    /// The number of rows.
    fn rows(&self) -> usize;
    /// The rows `a..b` as a chunk.
    fn part(&self, a: usize, b: usize) -> Self;
}

/// A chunk of a string column: its rows, each as bytes of a buffer.
pub trait Rows: Chunk {
    /// Row `i`: a buffer and the bounds of the row's bytes in it (the buffer may
    /// go on after them).
    fn row(&self, i: usize) -> (&[u8], usize, usize);
    /// What picks the slot of the table: [`PACKED_BYTES`] when no row is longer,
    /// else [`SHORT_BYTES`] when none is longer, else one more.
    fn width(&self) -> usize;
    /// Whether each of the rows `a..b` (`a` at least 1) is known to equal the row
    /// before it from a check of the block as a whole (false: compare row by row).
    fn repeats(&self, _a: usize, _b: usize) -> bool {
        false
    }
    /// The short key ([`short_bits`]; 0 for a longer row) of each of the rows from
    /// `a` on, as many as `out` holds.
    fn shorts(&self, a: usize, out: &mut [u128]) {
        for (j, k) in out.iter_mut().enumerate() {
            let (d, s, e) = self.row(a + j);
            *k = short_bits(d, s, e).unwrap_or(0);
        }
    }
}

/// A chunk of an Arrow `string` or `large_string` column: row `i` is
/// `data[offsets[i]..offsets[i + 1]]` (as many offsets as rows plus one, ascending
/// within `data`: made by [`OffsetRows::checked`]).
#[derive(Clone, Copy)]
pub struct OffsetRows<'a, O> {
    offsets: &'a [O],
    data: &'a [u8],
    /// [`Rows::width`]
    width: usize,
}

impl<'a, O: Offset> OffsetRows<'a, O> {
    /// The rows of `offsets` and `data` when the offsets ascend from 0 or more to at
    /// most the length of `data`, else None: one pass over the offsets (in parallel
    /// pieces for a long chunk), which also finds the rows' width.
    pub fn checked(offsets: &'a [O], data: &'a [u8]) -> Option<Self> {
        let n = offsets.len().saturating_sub(1);
        let width = if n >= 2 * PARALLEL_ROWS {
            use rayon::prelude::*;
            crate::threads::install(|| {
                (0..n.div_ceil(PARALLEL_ROWS))
                    .into_par_iter()
                    .map(|k| {
                        O::scan(&offsets[k * PARALLEL_ROWS..=((k + 1) * PARALLEL_ROWS).min(n)])
                    })
                    .try_reduce(|| PACKED_BYTES, |a, b| Some(a.max(b)))
            })
        } else {
            O::scan(offsets)
        }?;
        // the last offset as an unsigned index (a negative one is past any data)
        let inside = offsets.last().is_none_or(|e| e.at() <= data.len());
        inside.then_some(OffsetRows {
            offsets,
            data,
            width,
        })
    }
}

impl<O: Offset> Chunk for OffsetRows<'_, O> {
    #[inline(always)]
    fn rows(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
    fn part(&self, a: usize, b: usize) -> Self {
        OffsetRows {
            offsets: &self.offsets[a..=b],
            ..*self
        }
    }
}

impl<O: Offset> Rows for OffsetRows<'_, O> {
    #[inline(always)]
    fn row(&self, i: usize) -> (&[u8], usize, usize) {
        (self.data, self.offsets[i].at(), self.offsets[i + 1].at())
    }
    /// One pass over the offsets of the rows (each read once).
    fn shorts(&self, a: usize, out: &mut [u128]) {
        let n = out.len();
        // the offsets of the rows AHEAD blocks on, and the text of those half as far
        // (whose offsets were fetched then)
        fetch_blocks_ahead(self.offsets, a, n);
        let text = self
            .offsets
            .get(a + AHEAD / 2 * n)
            .zip(self.offsets.get(a + (AHEAD / 2 + 1) * n));
        if let Some(text) = text.and_then(|(s, e)| self.data.get(s.at()..e.at())) {
            fetch_lines(text);
        }
        let o = &self.offsets[a..=a + n];
        // the offsets ascend: 16 bytes readable at the block's last start are
        // readable at every start of it (most blocks; checked once)
        let last = o.len().checked_sub(2).map(|i| o[i].at());
        if last.is_some_and(|s| s.checked_add(16).is_some_and(|e| e <= self.data.len())) {
            let mut s = o[0].at();
            for (k, e) in out.iter_mut().zip(&o[1..]) {
                let e = e.at();
                // SAFETY: s is at most the block's last start, 16 bytes before the end
                let raw = unsafe { load16_at(self.data.as_ptr().add(s)) };
                store_short(raw, e.wrapping_sub(s), k);
                s = e;
            }
        } else {
            for ((k, s), e) in out.iter_mut().zip(o).zip(&o[1..]) {
                put_short(self.data, s.at(), e.at(), k);
            }
        }
    }
    /// The width of the chunk's rows (a part's is its chunk's: a bound).
    fn width(&self) -> usize {
        self.width
    }
    /// Rows `a - 1..b` of one length `len` are equal when their bytes (contiguous)
    /// repeat with period `len`: one comparison of the block's bytes with
    /// themselves shifted by `len`.
    #[inline(always)]
    fn repeats(&self, a: usize, b: usize) -> bool {
        let o = &self.offsets[a - 1..=b];
        let len = o[1].at().wrapping_sub(o[0].at());
        let same_length = o[1..].windows(2).fold(true, |all, w| {
            all & (w[1].at().wrapping_sub(w[0].at()) == len)
        });
        let (start, end) = (o[0].at(), o[o.len() - 1].at());
        same_length
            && start.checked_add(len).is_some_and(|s| s <= end)
            && self.data.get(start..end - len) == self.data.get(start + len..end)
    }
}

/// A chunk of an Arrow `string_view` column: 16 bytes a row (`views`), the length
/// (u32) then, for at most 12 bytes, the bytes themselves, else a prefix, the index
/// of the data buffer (u32) and the offset in it (u32); made by [`ViewRows::checked`].
#[derive(Clone, Copy)]
pub struct ViewRows<'a> {
    views: &'a [u8],
    buffers: &'a [&'a [u8]],
    /// the length of the longest row
    longest: usize,
}

impl<'a> ViewRows<'a> {
    /// The rows of `views` and `buffers` when the views are 16 bytes a row and each
    /// long row lies inside its buffer, else None: one pass over the views (in
    /// parallel pieces for a long chunk), which also finds the longest row.
    pub fn checked(views: &'a [u8], buffers: &'a [&'a [u8]]) -> Option<Self> {
        if !views.len().is_multiple_of(16) {
            return None;
        }
        let longest = |piece: &[u8]| {
            piece.chunks_exact(16).try_fold(0, |most: usize, v| {
                let len = word(v, 0);
                let inside = len <= INLINE
                    || buffers.get(word(v, 8)).is_some_and(|d| {
                        word(v, 12).checked_add(len).is_some_and(|e| e <= d.len())
                    });
                inside.then_some(most.max(len))
            })
        };
        let longest = if views.len() / 16 >= 2 * PARALLEL_ROWS {
            use rayon::prelude::*;
            crate::threads::install(|| {
                views
                    .par_chunks(16 * PARALLEL_ROWS)
                    .map(longest)
                    .try_reduce(|| 0, |a, b| Some(a.max(b)))
            })
        } else {
            longest(views)
        }?;
        Some(ViewRows {
            views,
            buffers,
            longest,
        })
    }
}

/// How many blocks of rows ahead of those whose keys it makes a reader of rows
/// fetches their offsets or views (and the text of half as many blocks ahead):
/// a block's keys are made between the lookups of the block before, whose random
/// accesses to the table keep the processor's own fetching of the column's buffers
/// from running ahead, and each block then waited on the memory of its rows. The
/// benchmark's 10M run items (Arrow `large_string`), coded on two threads: 106 -> 72
/// ms (one thread: 149 -> 115 ms); as fast from 4 to 32 blocks ahead.
const AHEAD: usize = 8;

/// Fetch `items[a..a + n]` [`AHEAD`] blocks of `n` on: the offsets, views or
/// objects of rows some blocks ahead of the block whose keys are being made.
#[inline(always)]
pub(crate) fn fetch_blocks_ahead<T>(items: &[T], a: usize, n: usize) {
    if let Some(ahead) = items.get(a + AHEAD * n..a + (AHEAD + 1) * n) {
        fetch_lines(ahead);
    }
}

/// Whether the views of rows `a - 1..b - 1` are those of rows `a..b` (see
/// [`Rows::repeats`] of [`ViewRows`]).
#[inline(always)]
fn views_repeat(views: &[u8], a: usize, b: usize) -> bool {
    views.get(16 * (a - 1)..16 * (b - 1)) == views.get(16 * a..16 * b)
}

/// The views of a `string_view` chunk read without its data buffers, for passes
/// over ids of at most 11 bytes (held in their views): no view is checked, only
/// their count (16 bytes a row, else None). A longer row reads as the bytes of its
/// view after the length (12; never a buffer): such rows are found by
/// [`InlineViews::keys_within`], and by the rows' lengths, which are more than 11.
#[derive(Clone, Copy)]
pub struct InlineViews<'a> {
    views: &'a [u8],
}

impl<'a> InlineViews<'a> {
    /// The views of `views` when they are 16 bytes a row.
    pub fn new(views: &'a [u8]) -> Option<Self> {
        views
            .len()
            .is_multiple_of(16)
            .then_some(InlineViews { views })
    }
    /// The short keys of the rows from `a` on, as many as `out` holds (as
    /// [`Rows::shorts`]), read from the views alone; false when one of the rows is
    /// longer than [`PACKED_BYTES`] (its key then any value).
    #[inline(always)]
    pub fn keys_within(&self, a: usize, out: &mut [u128]) -> bool {
        fetch_blocks_ahead(self.views, 16 * a, 16 * out.len());
        let views = &self.views[16 * a..16 * (a + out.len())];
        let mut over = 0;
        for (k, v) in out.iter_mut().zip(views.chunks_exact(16)) {
            let len = word(v, 0);
            over |= len.saturating_sub(PACKED_BYTES);
            store_short(after_length(load16(v)), len.min(PACKED_BYTES), k);
        }
        over == 0
    }
}

impl Chunk for InlineViews<'_> {
    #[inline(always)]
    fn rows(&self) -> usize {
        self.views.len() / 16
    }
    fn part(&self, a: usize, b: usize) -> Self {
        InlineViews {
            views: &self.views[16 * a..16 * b],
        }
    }
}

impl Rows for InlineViews<'_> {
    /// The view's own bytes (of a longer row, those after its length).
    #[inline(always)]
    fn row(&self, i: usize) -> (&[u8], usize, usize) {
        let at = 16 * i;
        (
            self.views,
            at + 4,
            at + 4 + word(self.views, at).min(INLINE),
        )
    }
    /// [`PACKED_BYTES`]: right where no row is longer.
    fn width(&self) -> usize {
        PACKED_BYTES
    }
    /// The key of each view's bytes after its length (at most [`INLINE`] of them).
    fn shorts(&self, a: usize, out: &mut [u128]) {
        fetch_blocks_ahead(self.views, 16 * a, 16 * out.len());
        let views = &self.views[16 * a..16 * (a + out.len())];
        for (k, v) in out.iter_mut().zip(views.chunks_exact(16)) {
            store_short(after_length(load16(v)), word(v, 0).min(INLINE), k);
        }
    }
    fn repeats(&self, a: usize, b: usize) -> bool {
        views_repeat(self.views, a, b)
    }
}

/// [`Rows::width`] of rows whose longest has `longest` bytes.
pub(crate) fn width_of(longest: usize) -> usize {
    if longest <= PACKED_BYTES {
        PACKED_BYTES
    } else if longest <= SHORT_BYTES {
        SHORT_BYTES
    } else {
        SHORT_BYTES + 1
    }
}

/// The longest string a view holds in itself.
pub const INLINE: usize = 12;

/// The u32 at `at` of a view.
#[inline(always)]
fn word(v: &[u8], at: usize) -> usize {
    u32::from_le_bytes([v[at], v[at + 1], v[at + 2], v[at + 3]]) as usize
}

impl Chunk for ViewRows<'_> {
    #[inline(always)]
    fn rows(&self) -> usize {
        self.views.len() / 16
    }
    fn part(&self, a: usize, b: usize) -> Self {
        ViewRows {
            views: &self.views[16 * a..16 * b],
            ..*self
        }
    }
}

impl Rows for ViewRows<'_> {
    #[inline(always)]
    fn row(&self, i: usize) -> (&[u8], usize, usize) {
        let at = 16 * i;
        let len = word(self.views, at);
        if len <= INLINE {
            (self.views, at + 4, at + 4 + len)
        } else {
            let off = word(self.views, at + 12);
            (self.buffers[word(self.views, at + 8)], off, off + len)
        }
    }
    /// The width of the chunk's longest row (a part's is its chunk's: a bound).
    fn width(&self) -> usize {
        width_of(self.longest)
    }
    /// A string of at most 12 bytes is in its view: its key is the view's bytes after
    /// the length (no read of a data buffer).
    fn shorts(&self, a: usize, out: &mut [u128]) {
        fetch_blocks_ahead(self.views, 16 * a, 16 * out.len());
        let views = &self.views[16 * a..16 * (a + out.len())];
        for (j, (k, v)) in out.iter_mut().zip(views.chunks_exact(16)).enumerate() {
            let len = word(v, 0);
            if len <= INLINE {
                store_short(after_length(load16(v)), len, k);
            } else {
                let (d, s, e) = self.row(a + j);
                put_short(d, s, e, k);
            }
        }
    }
    /// Rows whose views are the same 16 bytes hold the same string (the same
    /// length and bytes in the view, or the same place in the same buffer): one
    /// comparison of the block's views with themselves shifted by a row (false
    /// where they differ: the rows are then compared one by one).
    fn repeats(&self, a: usize, b: usize) -> bool {
        views_repeat(self.views, a, b)
    }
}

/// Strings given one slice a row (the bytes of Python `str` objects, read where they
/// lie): 16 bytes a row, as a `string_view` column's views.
#[derive(Clone, Copy)]
pub struct SliceRows<'a> {
    rows: &'a [&'a [u8]],
    /// the length of the longest row
    longest: usize,
}

impl<'a> SliceRows<'a> {
    /// The rows of `rows` (one pass finds the longest).
    pub fn new(rows: &'a [&'a [u8]]) -> Self {
        let longest = rows.iter().map(|r| r.len()).max().unwrap_or(0);
        SliceRows { rows, longest }
    }
}

impl Chunk for SliceRows<'_> {
    #[inline(always)]
    fn rows(&self) -> usize {
        self.rows.len()
    }
    fn part(&self, a: usize, b: usize) -> Self {
        SliceRows {
            rows: &self.rows[a..b],
            ..*self
        }
    }
}

impl Rows for SliceRows<'_> {
    #[inline(always)]
    fn row(&self, i: usize) -> (&[u8], usize, usize) {
        (self.rows[i], 0, self.rows[i].len())
    }
    /// The width of the longest row (a part's is its column's: a bound).
    fn width(&self) -> usize {
        width_of(self.longest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The short key of an id (its bytes, its length in the top byte), 0 for an id of
    /// more than [`SHORT_BYTES`]: byte by byte.
    fn oracle(id: &[u8]) -> u128 {
        if id.len() > SHORT_BYTES {
            return 0;
        }
        let bytes = id.iter().rev().fold(0u128, |k, &x| k << 8 | x as u128);
        bytes | (id.len() as u128) << 120
    }

    #[test]
    fn each_row_has_the_short_key_of_its_bytes_in_every_kind_of_rows() {
        // ids of 0 to 20 bytes, the last ones at the very end of their buffer (fewer
        // than 16 bytes after their first), blocks of rows from every row on
        let ids: Vec<Vec<u8>> = (0..90usize)
            .map(|i| {
                (0..(i * 7) % 21)
                    .map(|j| (i * 31 + j * 7 + 1) as u8)
                    .collect()
            })
            .collect();
        let mut data = Vec::new();
        let mut offsets = vec![0i64];
        for id in &ids {
            data.extend_from_slice(id);
            offsets.push(data.len() as i64);
        }
        let narrow: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
        let (views, buffers) = crate::encode::strings::tests::views(&ids);
        let buffers: Vec<&[u8]> = buffers.iter().map(|b| &b[..]).collect();
        let wide = OffsetRows::checked(&offsets, &data).unwrap();
        let thin = OffsetRows::checked(&narrow, &data).unwrap();
        let viewed = ViewRows::checked(&views, &buffers).unwrap();
        let inline = InlineViews::new(&views).unwrap();
        for n in [1, 5, 16, 64] {
            for a in 0..=ids.len() - n {
                let want: Vec<u128> = ids[a..a + n].iter().map(|id| oracle(id)).collect();
                let keys = |rows: &dyn Fn(&mut [u128])| {
                    let mut out = vec![u128::MAX; n];
                    rows(&mut out);
                    out
                };
                assert_eq!(keys(&|o| wide.shorts(a, o)), want, "int64 offsets {a} {n}");
                assert_eq!(keys(&|o| thin.shorts(a, o)), want, "int32 offsets {a} {n}");
                assert_eq!(keys(&|o| viewed.shorts(a, o)), want, "views {a} {n}");
                // inline views: a longer row reads as the 12 bytes after its length
                let twelve: Vec<u128> = (a..a + n)
                    .map(|i| oracle(&views[16 * i + 4..16 * i + 4 + ids[i].len().min(INLINE)]))
                    .collect();
                assert_eq!(keys(&|o| inline.shorts(a, o)), twelve, "inline {a} {n}");
                let mut out = vec![u128::MAX; n];
                let within = inline.keys_within(a, &mut out);
                assert_eq!(
                    within,
                    ids[a..a + n].iter().all(|id| id.len() <= PACKED_BYTES)
                );
                if within {
                    assert_eq!(out, want, "within {a} {n}");
                }
            }
        }
    }

    #[test]
    fn widths_and_descending_offsets_are_told_by_one_pass_of_either_width() {
        fn check<O: Offset>(to: impl Fn(i64) -> O) {
            let of = |v: &[i64]| v.iter().map(|&x| to(x)).collect::<Vec<O>>();
            let data = [0u8; 64];
            for (lens, width) in [
                (&[][..], 11),
                (&[0, 3, 11][..], 11),
                (&[12][..], 15),
                (&[1, 15, 2][..], 15),
                (&[16][..], 16),
                (&[3, 40, 2][..], 16),
            ] {
                let mut offsets = vec![0i64];
                for &l in lens {
                    offsets.push(offsets[offsets.len() - 1] + l);
                }
                let o = of(&offsets);
                let rows = OffsetRows::checked(&o, &data).unwrap();
                assert_eq!(rows.width(), width, "lengths {lens:?}");
            }
            assert!(OffsetRows::checked(&of(&[]), &data).is_some());
            for bad in [&[0, 5, 4, 9][..], &[-1, 5], &[0, -3, 5], &[0, 65], &[3, -1]] {
                assert!(OffsetRows::checked(&of(bad), &data).is_none(), "{bad:?}");
            }
            assert!(OffsetRows::checked(&of(&[0, 0, 64]), &data).is_some());
            // a long chunk, checked in parallel pieces (which share their ends): a
            // longer row, or one offset less than the one before it, in any piece,
            // at a piece's first or last row
            let n = 5 * PARALLEL_ROWS / 2;
            let big = vec![0u8; 4 * n + 64];
            let base: Vec<i64> = (0..=n as i64).map(|i| 3 * i).collect();
            let at = |o: &[i64]| OffsetRows::checked(&of(o), &big).map(|r| r.width());
            assert_eq!(at(&base), Some(11));
            for row in [
                0,
                PARALLEL_ROWS - 1,
                PARALLEL_ROWS,
                2 * PARALLEL_ROWS,
                n - 1,
            ] {
                let mut longer = base.clone();
                longer[row + 1..].iter_mut().for_each(|o| *o += 10);
                assert_eq!(at(&longer), Some(15), "row {row}");
                let mut descend = base.clone();
                descend[row + 1] = descend[row] - 1;
                assert_eq!(at(&descend), None, "row {row}");
            }
        }
        check(|x| x as i32);
        check(|x| x);
    }
}
