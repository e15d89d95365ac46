//! The CSR containers of the ranking engine: qrels (each user's judged items by
//! item code, grades beside them, the grades sorted descending) and runs (each
//! user's items in ranked order: key descending, input order within ties).
//!
//! Rows are grouped by user with a counting sort ([`group_rows`]); each list is
//! then ranked on its own ([`rank_rows`], [`rank_rows_into`]) with a packed
//! integer sort checked against the real keys and an exact merge sort as fallback.
//! Every output is exact and does not depend on the number of chunks: the order of
//! a list is unique (stable in the input order) and the reported duplicate is the
//! first segment holding one.
//!
//! Here: grouping rows, and the chunks the kernels run in; `judged`: the qrels'
//! segments; `list`: one list ranked; `runs`: every list of a run ranked.

use rayon::prelude::*;

use crate::threads::{self, PARALLEL_ROWS};

mod judged;
mod list;
mod runs;

pub use judged::{judged_segments_into, SegmentOut};
pub use runs::{rank_rows, rank_rows_into, Buf, Ranked};

/// Input row of CSR position `i`; an empty `rows` means the identity.
#[inline(always)]
fn row(rows: &[i64], i: usize) -> usize {
    if rows.is_empty() {
        i
    } else {
        rows[i] as usize
    }
}

/// Segment bounds of `n_chunks` contiguous chunks of `n_seg` segments.
fn chunk_segments(n_seg: usize, n_chunks: usize) -> Vec<usize> {
    (0..=n_chunks).map(|c| n_seg * c / n_chunks).collect()
}

/// Run `f` over chunks, in parallel when `rows` is large.
fn for_chunks<C: Send, F: Fn(C) + Sync + Send>(chunks: Vec<C>, rows: usize, f: F) {
    if chunks.len() > 1 && rows >= PARALLEL_ROWS {
        threads::install(|| chunks.into_par_iter().for_each(f));
    } else {
        chunks.into_iter().for_each(f);
    }
}

/// The segments (ascending) in which two neighbours have equal scores (compared in
/// float32 if `single`): one pass, whose answer both says whether a run has ties and
/// which of its lists hold them.
pub fn tie_segments(scores: &[f64], offsets: &[i64], single: bool) -> Vec<i64> {
    let n_seg = offsets.len().saturating_sub(1);
    let tie_in = |g: &usize| {
        let s = &scores[offsets[*g] as usize..offsets[*g + 1] as usize];
        if single {
            s.windows(2).any(|w| w[1] as f32 == w[0] as f32)
        } else {
            s.windows(2).any(|w| w[1] == w[0])
        }
    };
    if scores.len() >= PARALLEL_ROWS && n_seg > 1 {
        // an indexed parallel iterator collects in order
        threads::install(|| {
            (0..n_seg)
                .into_par_iter()
                .filter(tie_in)
                .map(|g| g as i64)
                .collect()
        })
    } else {
        (0..n_seg).filter(tie_in).map(|g| g as i64).collect()
    }
}

/// True when equal codes are contiguous and ascending (rows already grouped).
pub fn is_grouped(codes: &[i32]) -> bool {
    codes.windows(2).all(|w| w[1] >= w[0])
}

/// CSR offsets of `n_groups` groups from codes in `[0, n_groups)`.
pub fn offsets_of_sorted(codes: &[i32], n_groups: usize) -> Vec<i64> {
    let mut offsets = vec![0i64; n_groups + 1];
    for &c in codes {
        offsets[c as usize + 1] += 1;
    }
    for g in 0..n_groups {
        offsets[g + 1] += offsets[g];
    }
    offsets
}

/// Stable counting sort of the rows `0..n` by key (`key(i)` in `[0, n_keys)`): the
/// CSR offsets of the keys and `value(i)` of every row, rows of a key in input order.
pub fn group_by<T: Copy + Default>(
    n: usize,
    n_keys: usize,
    key: impl Fn(usize) -> usize,
    value: impl Fn(usize) -> T,
) -> (Vec<i64>, Vec<T>) {
    let mut offsets = vec![0i64; n_keys + 1];
    for i in 0..n {
        offsets[key(i) + 1] += 1;
    }
    for k in 0..n_keys {
        offsets[k + 1] += offsets[k];
    }
    let mut cursor: Vec<i64> = offsets[..n_keys].to_vec();
    let mut out = vec![T::default(); n];
    for i in 0..n {
        let k = key(i);
        out[cursor[k] as usize] = value(i);
        cursor[k] += 1;
    }
    (offsets, out)
}

/// Stable counting sort of rows by code: `(offsets, rows)`.
pub fn group_rows(codes: &[i32], n_groups: usize) -> (Vec<i64>, Vec<i64>) {
    group_by(codes.len(), n_groups, |i| codes[i] as usize, |i| i as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranked_lists_and_duplicates() {
        // users 0: rows 0, 2; 1: rows 1, 3, 4 (item 7 twice)
        let codes = [0, 1, 0, 1, 1];
        let (offsets, rows) = group_rows(&codes, 2);
        assert_eq!(offsets, vec![0, 2, 5]);
        assert_eq!(rows, vec![0, 2, 1, 3, 4]);
        assert!(!is_grouped(&codes));
        let items = [1, 7, 2, 7, 3];
        let keys = [0.1, 0.5, 0.9, 0.5, 0.7];
        for chunks in [1, 2, 3] {
            let (oi, ok, dup) = rank_rows(
                &offsets,
                &rows,
                Buf::Read(&items),
                Buf::Read(&keys),
                8,
                chunks,
            );
            assert_eq!(oi, Some(vec![2, 1, 3, 7, 7]));
            assert_eq!(ok, Some(vec![0.9, 0.1, 0.7, 0.5, 0.5]));
            assert_eq!(dup, 1);
        }
    }

    #[test]
    fn tie_segments_find_every_tied_segment() {
        let close = [0.5, 0.5, 1.0, 1.0 + 1e-12];
        assert_eq!(tie_segments(&close, &[0, 2, 4], false), vec![0]);
        assert_eq!(tie_segments(&close, &[0, 2, 4], true), vec![0, 1]);
        assert!(tie_segments(&close, &[0, 1, 3, 4], false).is_empty());
        assert!(tie_segments(&close[2..], &[0, 2], false).is_empty());
        assert_eq!(tie_segments(&close[2..], &[0, 2], true), vec![0]);
        // over the parallel threshold: every tied segment, in order
        let n = PARALLEL_ROWS + 10;
        let long: Vec<f64> = (0..n).map(|i| (i / 3 * 3) as f64).collect();
        let offs: Vec<i64> = (0..=n as i64).step_by(2).chain([n as i64]).collect();
        let want: Vec<i64> = (0..offs.len() as i64 - 1)
            .filter(|&g| {
                let (a, b) = (offs[g as usize] as usize, offs[g as usize + 1] as usize);
                long[a..b].windows(2).any(|w| w[0] == w[1])
            })
            .collect();
        assert!(!want.is_empty());
        assert_eq!(tie_segments(&long, &offs, false), want);
    }
}
