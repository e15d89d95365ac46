//! Dense codes for integer ids over a compact range (a direct-address table), and
//! the runs of equal neighbours of an id column.
//!
//! An id column read in chunks (the row groups of a Parquet file) is encoded in two
//! steps: each chunk's ids are written as `id - anchor` into the caller's `i32`
//! array ([`shift_ids`], which also returns the chunk's range), and once every chunk
//! is in, those offsets are turned into dense codes in place ([`dense_first_in_place`],
//! [`dense_sorted_in_place`]). The codes equal those of [`factorize_dense`] on the
//! whole column, or the ids' ranks among the distinct ids (ascending).
//!
//! String ids are hashed ([`strings`]) in the table of [`table`]; those met one at a
//! time are numbered by [`TextIds`]; integer ids of a wide range are hashed there as
//! 64-bit words ([`words`]).

mod rows;
mod strings;
pub(crate) mod table;
mod text_ids;
mod words;
#[cfg(feature = "python")] // the object columns' reader
pub(crate) use rows::{fetch_blocks_ahead, width_of};
pub use rows::{Chunk, InlineViews, Offset, OffsetRows, Rows, SliceRows, ViewRows, INLINE};
#[cfg(feature = "python")]
pub(crate) use strings::BLOCK;
pub use strings::{
    factorize_bytes, factorize_inline, factorize_inline_runs, factorize_read, factorize_runs,
    lookup_rows, Runs,
};
pub use table::Distinct;
pub use text_ids::{Key, KeyCodes, NoCode, TextIds, MAX_IDS};
pub use words::{factorize_words, lookup_words};

use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};

use crate::threads::PARALLEL_ROWS;
use crate::{pages, threads};

/// Codes (in order of first appearance) of ids in `[lo, lo + span)`, and the index
/// of the first row of each code. The caller guarantees the range.
pub fn factorize_dense(values: &[i64], lo: i64, span: usize) -> (Vec<i32>, Vec<i64>) {
    let mut table = vec![-1i32; span];
    let mut codes = Vec::with_capacity(values.len());
    let mut first = Vec::new();
    for (i, &v) in values.iter().enumerate() {
        let slot = (v - lo) as usize;
        let mut c = table[slot];
        if c < 0 {
            c = first.len() as i32;
            table[slot] = c;
            first.push(i as i64);
        }
        codes.push(c);
    }
    (codes, first)
}

/// Write `id - anchor` of every id into `out` (as long as `values`) and return the
/// smallest and largest id (`(i64::MAX, i64::MIN)` for no id); None when an id lies
/// too far from `anchor` for an `i32` (what `out` holds is then unspecified). A long
/// column is read in parallel, a part a thread.
pub fn shift_ids<T: Id>(values: &[T], anchor: i64, out: &mut [i32]) -> Option<(i64, i64)> {
    let parts = threads::num_threads();
    if values.len() < PARALLEL_ROWS || parts < 2 {
        return shift_part(values, anchor, out);
    }
    let size = values.len().div_ceil(parts);
    let ranges: Vec<Option<(i64, i64)>> = threads::install(|| {
        values
            .par_chunks(size)
            .zip(out.par_chunks_mut(size))
            .map(|(v, o)| shift_part(v, anchor, o))
            .collect()
    });
    ranges
        .into_iter()
        .try_fold((i64::MAX, i64::MIN), |(lo, hi), r| {
            r.map(|(l, h)| (lo.min(l), hi.max(h)))
        })
}

/// [`shift_ids`] of one part, on the calling thread.
fn shift_part<T: Id>(values: &[T], anchor: i64, out: &mut [i32]) -> Option<(i64, i64)> {
    #[cfg(target_arch = "x86_64")]
    if crate::simd::avx2() {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { shift_ids_avx2(values, anchor, out) };
    }
    shift_ids_body(values, anchor, out)
}

/// [`shift_ids`] compiled for AVX2 (64-bit compares in vectors).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn shift_ids_avx2<T: Id>(values: &[T], anchor: i64, out: &mut [i32]) -> Option<(i64, i64)> {
    shift_ids_body(values, anchor, out)
}

#[inline(always)]
fn shift_ids_body<T: Id>(values: &[T], anchor: i64, out: &mut [i32]) -> Option<(i64, i64)> {
    let (mut lo, mut hi, mut far) = (i64::MAX, i64::MIN, false);
    for (o, &v) in out.iter_mut().zip(values) {
        let v: i64 = v.into();
        let d = v.wrapping_sub(anchor);
        // no short-circuit: the loop vectorizes
        far |= ((d as i32) as i64 != d) | ((v < anchor) != (d < 0));
        *o = d as i32;
        lo = lo.min(v);
        hi = hi.max(v);
    }
    (!far).then_some((lo, hi))
}

/// The table slot of an offset `code` (an id minus the anchor) in a table whose first
/// slot is the offset `base`; None outside `[0, span)`.
#[inline(always)]
fn slot(code: i32, base: i64, span: usize) -> Option<usize> {
    let s = (code as i64).wrapping_sub(base);
    (s >= 0 && (s as u64) < span as u64).then_some(s as usize)
}

/// [`factorize_dense`] of ids held as offsets from `anchor` (see [`shift_ids`]), in
/// place: every offset lies in `[base, base + span)` and becomes its code (order of
/// first appearance). Returns the ids of the codes, or None (and `codes` partly
/// rewritten) when an offset lies outside the range.
pub fn dense_first_in_place(
    codes: &mut [i32],
    base: i64,
    span: usize,
    anchor: i64,
) -> Option<Vec<i64>> {
    let mut table = vec![-1i32; span];
    let mut ids = Vec::new();
    for c in codes.iter_mut() {
        let s = slot(*c, base, span)?;
        let mut code = table[s];
        if code < 0 {
            code = ids.len() as i32;
            table[s] = code;
            ids.push(anchor + base + s as i64);
        }
        *c = code;
    }
    Some(ids)
}

/// Codes of ids held as offsets from `anchor`, in place: codes in ascending order of
/// the ids (mark the ids present, number them in a scan, map every row), and the distinct ids ascending (both passes over
/// the codes in parallel over `n_chunks` chunks). None, with `codes` untouched, when
/// an offset lies outside `[base, base + span)`.
pub fn dense_sorted_in_place(
    codes: &mut [i32],
    base: i64,
    span: usize,
    anchor: i64,
    n_chunks: usize,
) -> Option<Vec<i64>> {
    let n = codes.len();
    let size = n.div_ceil(n_chunks.max(1)).max(1);
    let present: Vec<AtomicU8> = (0..span).map(|_| AtomicU8::new(0)).collect();
    let mark = |part: &[i32]| {
        part.iter().all(|&c| match slot(c, base, span) {
            Some(s) => {
                let p = &present[s];
                if p.load(Ordering::Relaxed) == 0 {
                    p.store(1, Ordering::Relaxed);
                }
                true
            }
            None => false,
        })
    };
    let inside = if n >= PARALLEL_ROWS {
        threads::install(|| codes.par_chunks(size).all(mark))
    } else {
        mark(codes)
    };
    if !inside {
        return None;
    }
    let mut code_of = vec![0i32; span];
    let mut ids = Vec::new();
    for s in 0..span {
        code_of[s] = ids.len() as i32;
        if present[s].load(Ordering::Relaxed) != 0 {
            ids.push(anchor + base + s as i64);
        }
    }
    // every id of the range present: a code is its offset from the smallest id
    // (nothing to do when that is the anchor); a lookup in the table otherwise
    let shift = (ids.len() == span).then_some(base as i32);
    if shift == Some(0) {
        return Some(ids);
    }
    let map = |part: &mut [i32]| match shift {
        Some(d) => part.iter_mut().for_each(|c| *c -= d),
        None => {
            for c in part.iter_mut() {
                *c = code_of[((*c as i64) - base) as usize];
            }
        }
    };
    if n >= PARALLEL_ROWS {
        threads::install(|| codes.par_chunks_mut(size).for_each(map));
    } else {
        map(codes);
    }
    Some(ids)
}

/// Categorical codes `values` in `[0, span)` numbered anew, densely, in ascending
/// order, and a row of each new code (a row that holds it): a column whose codes
/// index a mapping of more categories than its rows use (polars' categories of the
/// whole process) as codes of its own categories, each looked up once, at one of
/// its rows. None when a value lies outside the range, or for a column of 2**32 - 1
/// rows or more (a row plus one is held in 32 bits). Both passes over the column
/// (mark the values present with a row of each, map every row to its code) run in
/// `n_chunks` parts in parallel.
pub fn used_categories<T: Id>(
    values: &[T],
    span: usize,
    n_chunks: usize,
) -> Option<(Vec<i32>, Vec<i64>)> {
    let n = values.len();
    if n >= u32::MAX as usize {
        return None;
    }
    let size = n.div_ceil(n_chunks.max(1)).max(1);
    // a row of each value present plus one (0: none); any row of a value will do
    let row_of: Vec<AtomicU32> = (0..span).map(|_| AtomicU32::new(0)).collect();
    let mark = |(part, chunk): (usize, &[T])| {
        let at = part * size;
        chunk.iter().enumerate().all(|(i, &v)| {
            let v: i64 = v.into();
            match usize::try_from(v).ok().and_then(|v| row_of.get(v)) {
                Some(r) => {
                    if r.load(Ordering::Relaxed) == 0 {
                        r.store((at + i) as u32 + 1, Ordering::Relaxed);
                    }
                    true
                }
                None => false,
            }
        })
    };
    let inside = if n >= PARALLEL_ROWS {
        threads::install(|| values.par_chunks(size).enumerate().all(mark))
    } else {
        values.chunks(size).enumerate().all(mark)
    };
    if !inside {
        return None;
    }
    let mut code_of = vec![0i32; span];
    let mut rows = Vec::new();
    for (value, r) in row_of.iter().enumerate() {
        let r = r.load(Ordering::Relaxed);
        if r != 0 {
            code_of[value] = rows.len() as i32;
            rows.push(r as i64 - 1);
        }
    }
    let mut codes = pages::fresh_zeros::<i32>(n);
    let map = |(out, part): (&mut [i32], &[T])| {
        for (o, &v) in out.iter_mut().zip(part) {
            let v: i64 = v.into();
            *o = code_of[v as usize]; // in range: every value was marked
        }
    };
    if n >= PARALLEL_ROWS {
        threads::install(|| {
            codes
                .par_chunks_mut(size)
                .zip(values.par_chunks(size))
                .for_each(map)
        });
    } else {
        codes
            .chunks_mut(size)
            .zip(values.chunks(size))
            .for_each(map);
    }
    Some((codes, rows))
}

/// Runs of equal neighbours: their start offsets (plus `values.len()`) and values.
pub fn runs<T: Id>(values: &[T]) -> (Vec<i64>, Vec<i64>) {
    #[cfg(target_arch = "x86_64")]
    if crate::simd::avx2() {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { runs_avx2(values) };
    }
    runs_body(values)
}

/// An integer id as a column holds it, read without a widened copy: int64 ids, or
/// the int32 or uint32 codes of a categorical column (a dictionary array's indices;
/// polars' categories are uint32).
pub trait Id: Copy + PartialEq + Into<i64> + Sync {}
impl Id for i32 {}
impl Id for u32 {}
impl Id for i64 {}

/// [`runs`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn runs_avx2<T: Id>(values: &[T]) -> (Vec<i64>, Vec<i64>) {
    runs_body(values)
}

#[inline(always)]
fn runs_body<T: Id>(values: &[T]) -> (Vec<i64>, Vec<i64>) {
    const BLOCK: usize = 16;
    let mut offsets = Vec::new();
    let mut heads = Vec::new();
    let mut push = |i: usize| {
        if i == 0 || values[i] != values[i - 1] {
            offsets.push(i as i64);
            heads.push(values[i].into());
        }
    };
    // a block whose rows all equal the row before it (most blocks, in long runs)
    // is passed by one compare of vectors
    let mut i = 0;
    while i < values.len() {
        let end = (i + BLOCK).min(values.len());
        if i == 0 || end - i < BLOCK {
            (i..end).for_each(&mut push);
        } else {
            let same = values[i - 1..end - 1]
                .iter()
                .zip(&values[i..end])
                .fold(true, |all, (a, b)| all & (a == b));
            if !same {
                (i..end).for_each(&mut push);
            }
        }
        i = end;
    }
    offsets.push(values.len() as i64);
    (offsets, heads)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::lcg;

    /// The ascending codes' oracle: each id's rank among the distinct ids, and those.
    fn sorted_oracle(v: &[i64]) -> (Vec<i32>, Vec<i64>) {
        let ids: Vec<i64> = v
            .iter()
            .copied()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let codes = v
            .iter()
            .map(|x| ids.binary_search(x).unwrap_or(0) as i32)
            .collect();
        (codes, ids)
    }

    #[test]
    fn codes_follow_first_appearance_or_the_ids() {
        let v = [7, 3, 7, 5, 3];
        assert_eq!(
            factorize_dense(&v, 3, 5),
            (vec![0, 1, 0, 2, 1], vec![0, 1, 3])
        );
        assert_eq!(sorted_oracle(&v), (vec![2, 0, 2, 1, 0], vec![3, 5, 7]));
        let mut codes: Vec<i32> = v.iter().map(|&x| (x - 3) as i32).collect();
        assert_eq!(
            dense_sorted_in_place(&mut codes, 0, 5, 3, 3),
            Some(vec![3, 5, 7])
        );
        assert_eq!(codes, vec![2, 0, 2, 1, 0]);
        assert_eq!(runs(&[1, 1, 2, 1]), (vec![0, 2, 3, 4], vec![1, 2, 1]));
    }

    #[test]
    fn runs_of_long_columns_match_a_naive_scan() {
        // runs of 1..40 rows (shorter and longer than a block), starting anywhere
        let mut seed = 9u64;
        let mut values = Vec::new();
        for r in 0..400i64 {
            let len = 1 + lcg(&mut seed) % 40;
            // a value may come back later: runs, not distinct values
            values.extend(std::iter::repeat_n(r % 7, len as usize));
        }
        for cut in [0, 1, 15, 16, 17, values.len() - 3] {
            let v = &values[cut..];
            let mut want = (vec![], vec![]);
            for i in 0..v.len() {
                if i == 0 || v[i] != v[i - 1] {
                    want.0.push(i as i64);
                    want.1.push(v[i]);
                }
            }
            want.0.push(v.len() as i64);
            assert_eq!(runs(v), want, "cut {cut}");
            // the int32 indices of a dictionary column: the same runs
            let narrow: Vec<i32> = v.iter().map(|&x| x as i32).collect();
            assert_eq!(runs(&narrow), want, "int32, cut {cut}");
        }
        assert_eq!(runs::<i64>(&[]), (vec![0], vec![]));
    }

    #[test]
    fn used_categories_of_long_columns_number_the_values_present_ascending() {
        let mut seed = 5u64;
        let values: Vec<u32> = (0..PARALLEL_ROWS * 3)
            .map(|_| (lcg(&mut seed) % 997) as u32 * 2) // odd values: in no row
            .collect();
        for n_chunks in [1, 2, 3, 8] {
            for part in [&values[..], &values[..100]] {
                let mut present: Vec<u32> = part.to_vec();
                present.sort_unstable();
                present.dedup();
                let (codes, rows) = used_categories(part, 2000, n_chunks).unwrap();
                assert_eq!(rows.len(), present.len());
                // each code is the rank of its value among those present, and each
                // code's row holds its value
                for (&c, &v) in codes.iter().zip(part) {
                    assert_eq!(present[c as usize], v);
                }
                for (c, &r) in rows.iter().enumerate() {
                    assert_eq!(part[r as usize], present[c]);
                }
            }
            // a value outside the range
            assert_eq!(used_categories(&values, 1990, n_chunks), None);
            assert_eq!(used_categories(&[-1i32, 0], 5, n_chunks), None);
            assert_eq!(
                used_categories::<i32>(&[], 5, n_chunks),
                Some((vec![], vec![]))
            );
        }
    }

    /// Encode `values` cut into chunks at `cuts` through the chunked kernels.
    fn chunked(values: &[i64], cuts: &[usize], sorted: bool) -> Option<(Vec<i32>, Vec<i64>)> {
        chunked_from(values, cuts, sorted, values.first().copied().unwrap_or(0))
    }

    /// [`chunked`] with ids held as offsets from `anchor`.
    fn chunked_from(
        values: &[i64],
        cuts: &[usize],
        sorted: bool,
        anchor: i64,
    ) -> Option<(Vec<i32>, Vec<i64>)> {
        let mut codes = vec![0i32; values.len()];
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        let mut bounds = vec![0];
        bounds.extend_from_slice(cuts);
        bounds.push(values.len());
        for w in bounds.windows(2) {
            let (a, b) = (w[0], w[1]);
            let (l, h) = shift_ids(&values[a..b], anchor, &mut codes[a..b])?;
            lo = lo.min(l);
            hi = hi.max(h);
        }
        if values.is_empty() {
            return Some((codes, vec![]));
        }
        let (base, span) = (lo - anchor, (hi - lo + 1) as usize);
        let ids = if sorted {
            dense_sorted_in_place(&mut codes, base, span, anchor, 3)?
        } else {
            dense_first_in_place(&mut codes, base, span, anchor)?
        };
        Some((codes, ids))
    }

    #[test]
    fn chunked_codes_do_not_depend_on_the_anchor() {
        // every id of the range present (codes are offsets from the smallest),
        // or a gap in it (codes through the table); anchors below, at, inside and
        // above the range
        for gap in [false, true] {
            let v: Vec<i64> = (0..3000)
                .map(|i| (i * 7919 % 613) as i64 + 50)
                .filter(|&x| !gap || x != 400)
                .collect();
            let (lo, hi) = (*v.iter().min().unwrap(), *v.iter().max().unwrap());
            let want = sorted_oracle(&v);
            assert_eq!(want.1.len(), if gap { 612 } else { 613 });
            for anchor in [lo - 1000, lo, v[0], lo + 300, hi, hi + 7] {
                for sorted in [false, true] {
                    let got = chunked_from(&v, &[10, 2000], sorted, anchor).unwrap();
                    if sorted {
                        assert_eq!(got, want, "anchor {anchor}");
                    } else {
                        assert_eq!(got, chunked(&v, &[], false).unwrap(), "anchor {anchor}");
                    }
                }
            }
        }
    }

    #[test]
    fn chunked_codes_equal_the_whole_column_codes() {
        let v: Vec<i64> = (0..5000).map(|i| (i * 7919 % 613) as i64 - 300).collect();
        let (lo, hi) = (*v.iter().min().unwrap(), *v.iter().max().unwrap());
        let span = (hi - lo + 1) as usize;
        let (codes, first) = factorize_dense(&v, lo, span);
        let ids: Vec<i64> = first.iter().map(|&i| v[i as usize]).collect();
        let sorted = sorted_oracle(&v);
        // chunk boundaries anywhere, empty chunks, one chunk
        for cuts in [
            vec![],
            vec![1, 1, 2500, 2500, 4999],
            vec![0, 5000],
            vec![17, 4000],
        ] {
            assert_eq!(
                chunked(&v, &cuts, false),
                Some((codes.clone(), ids.clone()))
            );
            assert_eq!(chunked(&v, &cuts, true), Some(sorted.clone()));
        }
        // the parallel passes of a long column
        let long: Vec<i64> = (0..200_000)
            .map(|i| (i * 31 % 9973) as i64 + 1_000)
            .collect();
        let expect = sorted_oracle(&long);
        assert_eq!(chunked(&long, &[65_536, 65_537], true), Some(expect));
        assert_eq!(chunked(&[], &[], true), Some((vec![], vec![])));
    }

    #[test]
    fn ids_too_far_from_the_anchor_or_outside_the_range_are_refused() {
        let mut out = [0i32; 3];
        assert_eq!(shift_ids::<i64>(&[5, -2, 9], 5, &mut out), Some((-2, 9)));
        assert_eq!(out, [0, -7, 4]);
        assert_eq!(
            shift_ids::<i64>(&[], 5, &mut []),
            Some((i64::MAX, i64::MIN))
        );
        assert_eq!(
            shift_ids::<i64>(&[5, 5 + (1 << 31)], 5, &mut out[..2]),
            None
        );
        assert_eq!(
            shift_ids::<i64>(&[5, 4 - (1 << 31)], 5, &mut out[..2]),
            None
        );
        assert_eq!(
            shift_ids::<i64>(&[i64::MIN, 0], i64::MAX, &mut out[..2]),
            None
        );
        assert_eq!(shift_ids::<i64>(&[i64::MAX], i64::MIN, &mut out[..1]), None);
        assert!(shift_ids::<i64>(
            &[5 + i32::MAX as i64, 5 + i32::MIN as i64],
            5,
            &mut out[..2]
        )
        .is_some());
        // a long column, read a part a thread: the range of every part, a far id in any
        let mut long: Vec<i64> = (0..3 * PARALLEL_ROWS as i64).map(|i| i % 1000).collect();
        let mut out = vec![0i32; long.len()];
        long[2 * PARALLEL_ROWS + 7] = -3;
        long[PARALLEL_ROWS + 1] = 1 << 20;
        assert_eq!(shift_ids(&long, 2, &mut out), Some((-3, 1 << 20)));
        assert!(out.iter().zip(&long).all(|(&o, &v)| o as i64 == v - 2));
        for at in [0, PARALLEL_ROWS, long.len() - 1] {
            let mut far = long.clone();
            far[at] = 2 + (1 << 31);
            assert_eq!(shift_ids(&far, 2, &mut out), None);
        }
        // int32 and uint32 codes (categoricals) shift as their int64 values, the
        // uint32 ones from 2**31 on too (far from an anchor of 0)
        let wide: Vec<i64> = vec![7, 0, 1 << 20, 3];
        let mut expect = vec![0i32; 4];
        assert_eq!(shift_ids(&wide, 1, &mut expect), Some((0, 1 << 20)));
        let mut got = vec![0i32; 4];
        let narrow: Vec<i32> = wide.iter().map(|&v| v as i32).collect();
        assert_eq!(shift_ids(&narrow, 1, &mut got), Some((0, 1 << 20)));
        assert_eq!(got, expect);
        let unsigned: Vec<u32> = wide.iter().map(|&v| v as u32).collect();
        assert_eq!(shift_ids(&unsigned, 1, &mut got), Some((0, 1 << 20)));
        assert_eq!(got, expect);
        assert_eq!(shift_ids(&[-5i32, 2], 0, &mut got[..2]), Some((-5, 2)));
        assert_eq!(shift_ids(&[u32::MAX, 2], 0, &mut got[..2]), None);
        assert_eq!(
            shift_ids(&[u32::MAX, 2], 1 << 31, &mut got[..2]),
            Some((2, u32::MAX as i64))
        );
        let mut codes = vec![0, 3, 9];
        assert_eq!(dense_first_in_place(&mut codes, 0, 9, 100), None);
        let mut codes = vec![0, 3, -1];
        assert_eq!(dense_sorted_in_place(&mut codes, 0, 9, 100, 2), None);
        assert_eq!(codes, vec![0, 3, -1]);
        let mut codes = vec![-1, 3, -1];
        assert_eq!(
            dense_sorted_in_place(&mut codes, -1, 5, 100, 2),
            Some(vec![99, 103])
        );
        assert_eq!(codes, vec![0, 1, 0]);
    }

    #[test]
    fn the_encoders_give_the_same_on_every_path() {
        let mut seed = 7u64;
        let mut next = || lcg(&mut seed) as i64;
        // long runs, short runs, and ids at both ends of an i32 offset
        let values: Vec<i64> = (0..1000)
            .map(|i| match i % 7 {
                0 => i64::from(i32::MAX) + 5,
                1..=3 => (i / 40) as i64,
                _ => next() % 50,
            })
            .collect();
        let mut results = Vec::new();
        crate::simd::for_each_path(|_| {
            let mut out = vec![0i32; values.len()];
            let shifted = shift_ids(&values, 5, &mut out);
            let far = shift_ids(&values, -(1i64 << 40), &mut out.clone());
            let runs = runs(&values);
            // the oracle: runs of equal neighbours
            let mut want = vec![0i64];
            for i in 1..values.len() {
                if values[i] != values[i - 1] {
                    want.push(i as i64);
                }
            }
            want.push(values.len() as i64);
            assert_eq!(runs.0, want);
            assert_eq!(shifted, Some((0, i64::from(i32::MAX) + 5)));
            assert!(out.iter().zip(&values).all(|(&o, &v)| o as i64 == v - 5));
            assert_eq!(far, None);
            results.push((out, runs));
        });
        assert!(results.windows(2).all(|w| w[0] == w[1]));
    }
}
