//! Dense codes for integer ids over a compact range (a direct-address table), and
//! the runs of equal neighbours of an id column.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering};

use crate::threads;

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

/// Codes in ascending order of the ids in `[lo, lo + span)`, and the distinct ids
/// ascending: mark the ids present, number them in a scan, map every row (the two
/// passes over the rows in parallel over `n_chunks` chunks).
pub fn factorize_dense_sorted(
    values: &[i64],
    lo: i64,
    span: usize,
    n_chunks: usize,
) -> (Vec<i32>, Vec<i64>) {
    let n = values.len();
    let n_chunks = n_chunks.max(1);
    let present: Vec<AtomicU8> = (0..span).map(|_| AtomicU8::new(0)).collect();
    let mark = |c: usize| {
        for &v in &values[n * c / n_chunks..n * (c + 1) / n_chunks] {
            let p = &present[(v - lo) as usize];
            if p.load(Ordering::Relaxed) == 0 {
                p.store(1, Ordering::Relaxed);
            }
        }
    };
    threads::install(|| (0..n_chunks).into_par_iter().for_each(mark));
    let mut code_of = vec![0i32; span];
    let mut uniques = Vec::new();
    for s in 0..span {
        code_of[s] = uniques.len() as i32;
        if present[s].load(Ordering::Relaxed) != 0 {
            uniques.push(lo + s as i64);
        }
    }
    let mut codes = vec![0i32; n];
    threads::install(|| {
        codes
            .par_chunks_mut((n / n_chunks).max(1))
            .zip(values.par_chunks((n / n_chunks).max(1)))
            .for_each(|(out, vals)| {
                for (o, &v) in out.iter_mut().zip(vals) {
                    *o = code_of[(v - lo) as usize];
                }
            })
    });
    (codes, uniques)
}

/// Runs of equal neighbours: their start offsets (plus `values.len()`) and values.
pub fn runs(values: &[i64]) -> (Vec<i64>, Vec<i64>) {
    let mut offsets = Vec::new();
    let mut heads = Vec::new();
    for (i, &v) in values.iter().enumerate() {
        if i == 0 || v != values[i - 1] {
            offsets.push(i as i64);
            heads.push(v);
        }
    }
    offsets.push(values.len() as i64);
    (offsets, heads)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_first_appearance_or_the_ids() {
        let v = [7, 3, 7, 5, 3];
        assert_eq!(
            factorize_dense(&v, 3, 5),
            (vec![0, 1, 0, 2, 1], vec![0, 1, 3])
        );
        assert_eq!(
            factorize_dense_sorted(&v, 3, 5, 3),
            (vec![2, 0, 2, 1, 0], vec![3, 5, 7])
        );
        assert_eq!(runs(&[1, 1, 2, 1]), (vec![0, 2, 3, 4], vec![1, 2, 1]));
    }
}
