//! trec_eval's measures (and ir_measures' ERR, nERR and Judged) of one user.
//!
//! Every function takes one user's list as trec_eval sees it ([`UserGrades`]): the
//! grade of each ranked item in the metric's order, after the depth (`-M`) and
//! judged-only (`-J`) rules, and the user's judged grades sorted descending. A grade
//! tells the three kinds of items of trec_eval apart:
//!
//! - `-inf`: the item is absent from the user's qrels (trec_eval's "not in the pool",
//!   level -1);
//! - a finite grade below 0: the item is in the qrels but unjudged (level -2, e.g.
//!   the unsampled part of an infAP pool); such an item counts neither as relevant
//!   nor as non-relevant, nor among the user's judged items;
//! - a grade of 0 or more: judged, relevant from the relevance level (`threshold`,
//!   trec_eval's `-l`) on.
//!
//! Each value is computed with the same floating-point operations, in the same
//! order, as trec_eval 10.0 (divisions by `log2(rank + 1)`, not products with a table
//! of discounts), so values agree to the last printed digit. Gains of the nDCG-like
//! measures follow trec_eval: the grade by default, or a table of (grade, gain)
//! pairs (`-m ndcg.1=3,2=9`); the ideal list takes the user's judged items by
//! decreasing gain as trec_eval orders them (see [`GainTable`]).
//!
//! [`grades`] holds the list and the measures that count items in it; [`gains`] the
//! gain table and the measures with gains; this module runs a spec's kind.

pub mod gains;
pub mod grades;

pub use gains::*;
pub use grades::*;

use crate::spec::*;

#[cfg(test)]
mod tests;

/// The (grade, gain) pairs of a custom gain table: `params[0]` pairs (at most
/// [`MAX_GAIN_PAIRS`]) from `params[1..]`.
pub fn gain_pairs(params: &[f64]) -> ([(f64, f64); MAX_GAIN_PAIRS], usize) {
    let mut pairs = [(0.0, 0.0); MAX_GAIN_PAIRS];
    let m = (params[0].max(0.0) as usize).min(MAX_GAIN_PAIRS);
    for (j, pair) in pairs.iter_mut().enumerate().take(m) {
        *pair = (params[1 + 2 * j], params[2 + 2 * j]);
    }
    (pairs, m)
}

/// The value of a spec's trec kind for one user. `u.ranked` is the list in the
/// metric's order after depth and judged-only; the spec's k > 0 cuts it (relative
/// precision, unjudged and judged divide by k as their peers do); its params hold a
/// custom gain table with `Gain::Custom` (the nDCG-like kinds). `table` is scratch.
pub fn user_measure(spec: &Spec, u: &UserGrades<'_>, table: &mut GainTable) -> f64 {
    let (kind, k, params) = (spec.kind, spec.k, &spec.params[..]);
    let custom = spec.gain == Gain::Custom;
    match kind {
        RELATIVE_PRECISION => return relative_precision(u, k),
        UNJUDGED => return unjudged(u, k),
        JUDGED => return judged(u, k),
        _ => {}
    }
    let n = u.ranked.len();
    let top = if k > 0 { (k as usize).min(n) } else { n };
    let u = &UserGrades {
        ranked: &u.ranked[..top],
        ..*u
    };
    let gains = |table: &mut GainTable| {
        if custom {
            let (pairs, m) = gain_pairs(params);
            table.build(u.judged, &pairs[..m]);
        } else {
            table.build(u.judged, &[]);
        }
    };
    match kind {
        NUM_RET => num_ret(u),
        NUM_REL => num_rel(u),
        NUM_REL_RET => num_rel_ret(u),
        NUM_NONREL_JUDGED_RET => num_nonrel_judged_ret(u),
        NUM_Q => 1.0,
        BPREF if params[0] == 1.0 => bpref_raw(u),
        BPREF => bpref(u),
        INFAP => infap(u),
        IPREC_AT_RECALL => iprec_at_recall(u, params[0], spec.recall_rounding),
        IPREC_AVG => {
            let m = (params[0].max(0.0) as usize).min(N_PARAMS - 1);
            iprec_avg(u, &params[1..1 + m], spec.recall_rounding)
        }
        RPREC_MULT => rprec_mult(u, params[0]),
        UTILITY => utility(u, params),
        BIN_G => bin_g(u),
        G => {
            gains(table);
            g(u, table)
        }
        NDCG_REL => {
            gains(table);
            ndcg_rel(u, table)
        }
        R_NDCG => {
            gains(table);
            r_ndcg(u, table)
        }
        SET_PRECISION => set_precision(u),
        SET_RELATIVE_PRECISION => set_relative_precision(u),
        SET_RECALL => set_recall(u),
        SET_AP => set_ap(u),
        SET_F => set_f(u, params[0]),
        RBP if params[1] == 1.0 => rbp_binary(u, params[0]),
        RBP if params[1] == 2.0 => rbp_raw(u, params[0]),
        RBP => {
            table.build(u.judged, &[]);
            rbp(u, params[0], table)
        }
        RBP_RESID => rbp_resid(u, params[0]),
        ERR => err(u, params),
        PFOUND => pfound(u, params[0]),
        AVERAGE_GAIN => average_gain(u),
        NERR => nerr(u, k, params[0]),
        _ => f64::NAN,
    }
}

/// DCG, ideal DCG or nDCG (`kind`) with a custom gain table in `params`, cut at k.
pub fn custom_dcg(
    kind: i64,
    u: &UserGrades<'_>,
    k: i64,
    params: &[f64],
    table: &mut GainTable,
) -> f64 {
    let (pairs, m) = gain_pairs(params);
    table.build(u.judged, &pairs[..m]);
    let (dcg, ideal) = dcg_pair(u, k, table);
    match kind {
        DCG => dcg,
        IDCG => ideal,
        _ => {
            if ideal > 0.0 {
                dcg / ideal
            } else {
                0.0
            }
        }
    }
}

/// The value of a spec's trec kind for a user absent from the run (`judged`: the
/// user's judged grades, descending), as trec_eval's `-c` computes it: on a list of
/// one item absent from the qrels (none with judged-only or depth 0), then 0 for the retrieved
/// count, utility, unjudged and the RBP residual. `table` is scratch.
pub fn missing_user_measure(spec: &Spec, judged: &[f64], table: &mut GainTable) -> f64 {
    let absent = [f64::NEG_INFINITY];
    let u = UserGrades {
        // -J removes it, -M 0 cuts it
        ranked: if spec.judged_only || spec.depth == Some(0) {
            &absent[..0]
        } else {
            &absent
        },
        judged,
        threshold: spec.threshold,
    };
    match spec.kind {
        NUM_RET | UTILITY | UNJUDGED | RBP_RESID => 0.0,
        _ => user_measure(spec, &u, table),
    }
}
