//! The orders of a ranked list under the tie rules that break ties by item id.

use std::cmp::Ordering;

use crate::sort::lt_floats;
use crate::spec::Ties;

fn float_cmp(a: f64, b: f64) -> Ordering {
    if lt_floats(a, b) {
        Ordering::Less
    } else if lt_floats(b, a) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// [`trec_order`] into `perm[..scores.len()]`, with a scratch buffer for the tied
/// blocks.
pub fn trec_order_into(
    scores: &[f64],
    items: &[i32],
    item_keys: &[f64],
    rule: Ties,
    perm: &mut [usize],
    block: &mut Vec<(f64, usize)>,
) {
    let n = scores.len();
    for (j, p) in perm[..n].iter_mut().enumerate() {
        *p = j;
    }
    let ascending = rule == Ties::IdAscending;
    let mut t = 0;
    while t < n {
        let mut e = t + 1;
        if rule == Ties::Trec {
            while e < n && scores[e] as f32 == scores[t] as f32 {
                e += 1;
            }
        } else {
            while e < n && scores[e] == scores[t] {
                e += 1;
            }
        }
        if e - t > 1 {
            block.clear();
            for j in 0..e - t {
                let key = item_keys[items[t + j] as usize];
                block.push((if ascending { key } else { -key }, j));
            }
            // stable: equal keys keep their input order (a merge sort in the reference)
            block.sort_by(|x, y| float_cmp(x.0, y.0));
            for (j, &(_, inner)) in block.iter().enumerate() {
                perm[t + j] = t + inner;
            }
        }
        t = e;
    }
}

/// Permutation of a ranked list (`scores` descending, input order in ties; `items`
/// beside them) that breaks ties by `item_keys[items]`: `rule` is [`Ties::Trec`]
/// (id descending, scores compared in single precision, as trec_eval 9 and
/// pytrec_eval), [`Ties::IdDescending`] (id descending, scores compared as doubles,
/// as trec_eval 10.0) or [`Ties::IdAscending`] (id ascending, doubles).
pub fn trec_order(scores: &[f64], items: &[i32], item_keys: &[f64], rule: Ties) -> Vec<usize> {
    let mut perm = vec![0usize; scores.len()];
    let mut block = Vec::new();
    trec_order_into(scores, items, item_keys, rule, &mut perm, &mut block);
    perm
}

/// The grades of a ranked list (`scores` descending, input order in ties) with each
/// block of equal scores reordered by grade ascending, the least relevant first
/// (CatBoost's order of tied documents): into `out[..grades.len()]`.
pub fn worst_order_into(scores: &[f64], grades: &[f64], out: &mut [f64]) {
    let n = scores.len();
    out[..n].copy_from_slice(&grades[..n]);
    let mut t = 0;
    while t < n {
        let mut e = t + 1;
        while e < n && scores[e] == scores[t] {
            e += 1;
        }
        if e - t > 1 {
            out[t..e].sort_by(|x, y| float_cmp(*x, *y));
        }
        t = e;
    }
}
