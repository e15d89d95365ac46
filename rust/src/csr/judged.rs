//! The qrels' segments: each user's judged items sorted by item code with their
//! grades, and the grades sorted descending.

use super::{chunk_segments, for_chunks, row};
use crate::sort::quicksort;
use crate::threads::split_at_bounds;

/// Longest judged segment sorted by [`short_segment`].
const SHORT: usize = 32;

/// The rows of one short judged segment: item codes and grades, padded with
/// `i32::MAX` codes and -inf grades (which never sort before a row), and `m <=
/// SHORT` rows in use.
struct ShortSegment {
    it: [i32; SHORT],
    gr: [f64; SHORT],
    m: usize,
}

/// Where a segment goes: items ascending with their grades, and grades descending.
pub type SegmentOut<'a> = (&'a mut [i32], &'a mut [f64], &'a mut [f64]);

/// One short judged segment sorted: its items ascending with their grades, and its
/// grades descending, both stable. Each row goes straight to its rank, the number
/// of rows that sort before it (smaller, or equal and earlier), counted by compares
/// without branches over the padded arrays (no mispredicted shifts, as an
/// insertion sort has on random codes).
#[inline(always)]
fn short_segment_body(seg: &ShortSegment, out: SegmentOut<'_>) {
    let (items, out_grades, desc) = out;
    let (it, gr, m) = (&seg.it, &seg.gr, seg.m);
    let w = (m + 7) & !7;
    for i in 0..m {
        let (x, g) = (it[i], gr[i]);
        let mut ri = 0u32;
        for (j, &y) in it[..w].iter().enumerate() {
            ri += (y < x) as u32 + ((y == x) as u32 & (j < i) as u32);
        }
        let mut rg = 0u32;
        for (j, &h) in gr[..w].iter().enumerate() {
            rg += (h > g) as u32 + ((h == g) as u32 & (j < i) as u32);
        }
        // a rank counts only the other rows: below m however the keys compare
        items[ri as usize] = x;
        out_grades[ri as usize] = g;
        desc[rg as usize] = g;
    }
}

/// [`short_segment_body`], compiled for AVX2 where the CPU has it.
fn short_segment(seg: &ShortSegment, out: SegmentOut<'_>) {
    #[cfg(target_arch = "x86_64")]
    if crate::simd::avx2() {
        // SAFETY: the CPU supports AVX2, checked just above.
        unsafe { short_segment_avx2(seg, out) };
        return;
    }
    short_segment_body(seg, out);
}

/// [`short_segment_body`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn short_segment_avx2(seg: &ShortSegment, out: SegmentOut<'_>) {
    short_segment_body(seg, out);
}

/// Each user's judged items sorted by item code with their grades, and the grades
/// sorted descending, into the caller's arrays `out` (items, their grades, grades
/// descending; each `offsets[-1]` long, as the CSR); returns the first user with a
/// repeated item (-1 if none).
///
/// Short segments (at most 32 rows) are sorted by counting ranks; longer ones are
/// sorted stably by item code and their grades with [`quicksort`]. `rows` maps CSR
/// positions to input rows (empty: identity).
pub fn judged_segments_into(
    offsets: &[i64],
    rows: &[i64],
    item_codes: &[i32],
    grades: &[f64],
    n_chunks: usize,
    out: SegmentOut<'_>,
) -> i64 {
    let (items, out_grades, desc) = out;
    let n_seg = offsets.len().saturating_sub(1);
    let n = items.len();
    let n_chunks = n_chunks.max(1);
    let seg_bounds = chunk_segments(n_seg, n_chunks);
    let pos: Vec<usize> = seg_bounds.iter().map(|&g| offsets[g] as usize).collect();
    let mut dup = vec![-1i64; n_chunks];
    let chunks: Vec<_> = split_at_bounds(items, &pos)
        .into_iter()
        .zip(split_at_bounds(out_grades, &pos))
        .zip(split_at_bounds(desc, &pos))
        .zip(dup.iter_mut())
        .enumerate()
        .collect();
    for_chunks(chunks, n, |(c, (((items, out_grades), desc), dup))| {
        let base = pos[c];
        let mut seg: Vec<(i32, f64)> = Vec::new();
        let mut seg_g: Vec<f64> = Vec::new();
        for g in seg_bounds[c]..seg_bounds[c + 1] {
            let a = offsets[g] as usize;
            let b = offsets[g + 1] as usize;
            let (la, lb) = (a - base, b - base);
            if b - a <= SHORT {
                let mut seg = ShortSegment {
                    it: [i32::MAX; SHORT],
                    gr: [f64::NEG_INFINITY; SHORT],
                    m: b - a,
                };
                for t in a..b {
                    let r = row(rows, t);
                    (seg.it[t - a], seg.gr[t - a]) = (item_codes[r], grades[r]);
                }
                let out = (
                    &mut items[la..lb],
                    &mut out_grades[la..lb],
                    &mut desc[la..lb],
                );
                short_segment(&seg, out);
            } else {
                seg.clear();
                seg_g.clear();
                for t in a..b {
                    let r = row(rows, t);
                    seg.push((item_codes[r], grades[r]));
                    seg_g.push(grades[r]);
                }
                seg.sort_by_key(|p| p.0); // stable, as the reference's merge sort
                for (t, &(it, gr)) in seg.iter().enumerate() {
                    items[la + t] = it;
                    out_grades[la + t] = gr;
                }
                quicksort(&mut seg_g);
                for t in 0..b - a {
                    desc[la + t] = seg_g[b - a - 1 - t];
                }
            }
            if *dup < 0 && items[la..lb].windows(2).any(|w| w[0] == w[1]) {
                *dup = g as i64;
            }
        }
    });
    dup.iter().copied().find(|&d| d >= 0).unwrap_or(-1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::lcg;

    /// [`judged_segments_into`] into new arrays: items, grades, grades descending,
    /// and the first user with a repeated item.
    fn judged_segments(
        offsets: &[i64],
        rows: &[i64],
        item_codes: &[i32],
        grades: &[f64],
        n_chunks: usize,
    ) -> (Vec<i32>, Vec<f64>, Vec<f64>, i64) {
        let n = offsets.last().map_or(0, |&x| x as usize);
        let (mut items, mut out_grades, mut desc) = (vec![0; n], vec![0.0; n], vec![0.0; n]);
        let out = (&mut items[..], &mut out_grades[..], &mut desc[..]);
        let first = judged_segments_into(offsets, rows, item_codes, grades, n_chunks, out);
        (items, out_grades, desc, first)
    }

    #[test]
    fn judged_segments_sort_items_and_grades() {
        crate::simd::for_each_path(|_| judged_segments_sort_items_and_grades_on_this_path());
    }

    fn judged_segments_sort_items_and_grades_on_this_path() {
        let mut seed = 5;
        let n = 50;
        let offsets = [0i64, 3, 3, n as i64];
        let codes: Vec<i32> = (0..n).map(|_| (lcg(&mut seed) % 1000) as i32).collect();
        let grades: Vec<f64> = (0..n).map(|_| (lcg(&mut seed) % 4) as f64).collect();
        for chunks in [1, 2, 4] {
            let (items, g, desc, _) = judged_segments(&offsets, &[], &codes, &grades, chunks);
            for w in offsets.windows(2) {
                let (a, b) = (w[0] as usize, w[1] as usize);
                assert!(items[a..b].windows(2).all(|p| p[0] <= p[1]));
                assert!(desc[a..b].windows(2).all(|p| p[0] >= p[1]));
                let mut x: Vec<(i32, u64)> =
                    (a..b).map(|t| (codes[t], grades[t].to_bits())).collect();
                let mut y: Vec<(i32, u64)> = (a..b).map(|t| (items[t], g[t].to_bits())).collect();
                x.sort();
                y.sort();
                assert_eq!(x, y);
            }
        }
        let (_, _, _, dup) = judged_segments(&[0, 2, 4], &[], &[1, 2, 3, 3], &[1.0; 4], 2);
        assert_eq!(dup, 1);
    }

    #[test]
    fn judged_segments_are_stable_sorts_short_or_long() {
        crate::simd::for_each_path(|_| {
            judged_segments_are_stable_sorts_short_or_long_on_this_path()
        });
    }

    fn judged_segments_are_stable_sorts_short_or_long_on_this_path() {
        // lengths 0..40 (both sides of the short path), few codes and grades (ties,
        // and 0.0 beside -0.0), read through a row map that reverses the rows
        let mut seed = 11;
        let mut offsets = vec![0i64];
        for len in (0..41).chain([1, 32, 33, 2]) {
            offsets.push(offsets[offsets.len() - 1] + len);
        }
        let n = offsets[offsets.len() - 1] as usize;
        let codes: Vec<i32> = (0..n).map(|_| (lcg(&mut seed) % 7) as i32).collect();
        let zeros = [0.0, -0.0, 1.0, 2.0, -1.0];
        let grades: Vec<f64> = (0..n)
            .map(|_| zeros[(lcg(&mut seed) % 5) as usize])
            .collect();
        let rows: Vec<i64> = (0..n as i64).rev().collect();
        let (items, g, desc, _) = judged_segments(&offsets, &rows, &codes, &grades, 3);
        for w in offsets.windows(2) {
            let (a, b) = (w[0] as usize, w[1] as usize);
            let input: Vec<(i32, f64)> = (a..b)
                .map(|t| (codes[rows[t] as usize], grades[rows[t] as usize]))
                .collect();
            let mut by_item = input.clone();
            by_item.sort_by_key(|p| p.0); // stable
            let mut by_grade: Vec<f64> = input.iter().map(|p| p.1).collect();
            by_grade.sort_by(|x, y| y.partial_cmp(x).unwrap()); // stable, descending
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            let want_items: Vec<i32> = by_item.iter().map(|p| p.0).collect();
            let want_grades: Vec<f64> = by_item.iter().map(|p| p.1).collect();
            assert_eq!(items[a..b].to_vec(), want_items);
            assert_eq!(bits(&g[a..b]), bits(&want_grades));
            // short lists keep input order in ties (0.0 beside -0.0); long ones
            // need not, and the value is all that counts
            if b - a <= SHORT {
                assert_eq!(bits(&desc[a..b]), bits(&by_grade));
            }
            assert_eq!(desc[a..b].to_vec(), by_grade);
        }
    }
}
