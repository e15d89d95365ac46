//! The entry points of the ranking kernel: every metric for every qrels user,
//! users cut into chunks run in parallel, the values written column by column.

use rayon::prelude::*;

use super::inputs::{Inputs, Judged};
use super::users::{evaluate_range, Scratch};
use crate::spec::{Discount, Spec};
use crate::threads;
use crate::threads::PARALLEL_ROWS;

/// Every metric (one per spec) for every qrels user: `(values, aux)`, each `n_users * n_metrics` row-major, with
/// aux the user's relevant items per metric and values nan where a rule skips the
/// user.
///
/// `inputs.item_map` maps qrels item codes to run item codes (-1 when no user was
/// recommended the item); `inputs.user_map[u]` is the run user of qrels user u (-1
/// when absent from the run). The grade of each recommended item is found through a
/// table of the user's judged items keyed by run item code (scratch bounded by the
/// most judged items of a user): O(judged + recommended) per user. Users are split
/// into `n_chunks` contiguous chunks, each with scratch buffers of `max_len` (at
/// least the longest list); `disc[j] = 1 / log2(j + 2)` covers the longest list
/// and the most judged items of a user. The values do not depend on `n_chunks`.
pub fn evaluate_users(
    inputs: &Inputs<'_>,
    specs: &[Spec],
    n_chunks: usize,
) -> (Vec<f64>, Vec<f64>) {
    let n_users = inputs.judged.offsets.len().saturating_sub(1);
    let n_metrics = specs.len();
    let mut columns = vec![0.0; n_users * n_metrics];
    let mut aux_columns = vec![0.0; n_users * n_metrics];
    evaluate_users_columns_into(inputs, specs, n_chunks, &mut columns, &mut aux_columns);
    let rows = |cols: &[f64]| -> Vec<f64> {
        (0..n_users * n_metrics)
            .map(|i| cols[(i % n_metrics) * n_users + i / n_metrics])
            .collect()
    };
    (rows(&columns), rows(&aux_columns))
}

/// The sizes of a chunk's [`Scratch`]: the most judged items of a user, and the
/// bound below which the run item codes of judged items lie.
fn scratch_sizes(q: &Judged<'_>, item_map: &[i32]) -> (usize, usize) {
    let max_judged = q
        .offsets
        .windows(2)
        .map(|w| (w[1] - w[0]) as usize)
        .max()
        .unwrap_or(0);
    let n_judged_codes = item_map
        .iter()
        .map(|&c| c as i64 + 1)
        .max()
        .unwrap_or(0)
        .max(0) as usize;
    (max_judged, n_judged_codes)
}

/// Users evaluated at a time by [`evaluate_users_columns_into`] before their values
/// go to the columns.
const COLUMN_BLOCK: usize = 512;

/// The values of [`evaluate_users`] with `values` and `aux` column-major: `n_metrics`
/// columns of `n_users` values each (a metric's values contiguous, as every
/// pass over one metric reads them). Users are evaluated a block at a time into
/// row-major scratch, then copied to the columns; the values are the same.
pub fn evaluate_users_columns_into(
    inputs: &Inputs<'_>,
    specs: &[Spec],
    n_chunks: usize,
    values: &mut [f64],
    aux: &mut [f64],
) {
    let (q, r, disc) = (&inputs.judged, &inputs.ranked, inputs.disc);
    let n_users = q.offsets.len().saturating_sub(1);
    let n_metrics = specs.len();
    if n_users == 0 || n_metrics == 0 {
        return;
    }
    let (max_judged, n_judged_codes) = scratch_sizes(q, inputs.item_map);
    // the clipped discount 1 / log2(max(i, 2)) at 0-based position j: 1, then disc[j - 1]
    let clipped: Vec<f64> = if specs.iter().any(|s| s.discount == Discount::Clipped) {
        std::iter::once(1.0)
            .chain(disc.iter().copied())
            .take(disc.len())
            .collect()
    } else {
        Vec::new()
    };
    // the reciprocal rank 1 / i at 0-based position j
    let reciprocal: Vec<f64> = if specs.iter().any(|s| s.discount == Discount::Rank) {
        (0..disc.len()).map(|j| 1.0 / (j as f64 + 1.0)).collect()
    } else {
        Vec::new()
    };
    let discounts = [disc, &clipped[..], &reciprocal[..]];
    let n_chunks = n_chunks.max(1).min(n_users);
    let bounds: Vec<usize> = (0..=n_chunks).map(|c| n_users * c / n_chunks).collect();
    // each column split at the chunk bounds: a chunk holds one piece of every column
    type Pieces<'a> = Vec<&'a mut [f64]>;
    let mut parts: Vec<(usize, usize, Pieces<'_>, Pieces<'_>)> = (0..n_chunks)
        .map(|c| (bounds[c], bounds[c + 1], Vec::new(), Vec::new()))
        .collect();
    for (col_v, col_a) in values.chunks_mut(n_users).zip(aux.chunks_mut(n_users)) {
        let pieces = threads::split_at_bounds(col_v, &bounds)
            .into_iter()
            .zip(threads::split_at_bounds(col_a, &bounds));
        for (part, (v, x)) in parts.iter_mut().zip(pieces) {
            part.2.push(v);
            part.3.push(x);
        }
    }
    let run = |(u0, u1, mut cv, mut ca): (usize, usize, Pieces<'_>, Pieces<'_>),
               s: &mut Scratch| {
        let mut bv = vec![0.0; COLUMN_BLOCK * n_metrics];
        let mut ba = vec![0.0; COLUMN_BLOCK * n_metrics];
        let mut b0 = u0;
        while b0 < u1 {
            let b1 = (b0 + COLUMN_BLOCK).min(u1);
            let len = (b1 - b0) * n_metrics;
            let (v, x) = (&mut bv[..len], &mut ba[..len]);
            evaluate_range(inputs, specs, discounts, b0..b1, v, x, s);
            for m in 0..n_metrics {
                let (dv, da) = (&mut cv[m][b0 - u0..b1 - u0], &mut ca[m][b0 - u0..b1 - u0]);
                for (t, (ov, oa)) in dv.iter_mut().zip(da.iter_mut()).enumerate() {
                    *ov = v[t * n_metrics + m];
                    *oa = x[t * n_metrics + m];
                }
            }
            b0 = b1;
        }
    };
    let rows = q.items.len() + r.items.len();
    if n_chunks == 1 || rows < PARALLEL_ROWS {
        // one scratch for every chunk: the values do not depend on the split
        let mut s = Scratch::new(inputs.max_len, max_judged, n_judged_codes);
        for part in parts {
            run(part, &mut s);
        }
    } else {
        threads::install(|| {
            parts.into_par_iter().for_each(|part| {
                let mut s = Scratch::new(inputs.max_len, max_judged, n_judged_codes);
                run(part, &mut s);
            })
        });
    }
}
