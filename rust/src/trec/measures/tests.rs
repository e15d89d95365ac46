//! Tests of trec_eval's measures.

use super::*;

const ABSENT: f64 = f64::NEG_INFINITY;

fn user<'a>(ranked: &'a [f64], judged: &'a [f64], threshold: f64) -> UserGrades<'a> {
    UserGrades {
        ranked,
        judged,
        threshold,
    }
}

/// `user_measure` of `kind` cut at `k` with `params` (the rest 0), a custom gain
/// table with `custom`.
fn measure(
    kind: i64,
    u: &UserGrades<'_>,
    k: i64,
    custom: bool,
    params: &[f64],
    table: &mut GainTable,
) -> f64 {
    let mut spec = Spec {
        kind,
        k,
        gain: if custom { Gain::Custom } else { Gain::Linear },
        ..Spec::default()
    };
    spec.params[..params.len()].copy_from_slice(params);
    user_measure(&spec, u, table)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

// two relevant (grade 1) and three judged non-relevant (grade 0) items; ranked:
// relevant, non-relevant, absent, relevant, non-relevant
const JUDGED_B: [f64; 5] = [1.0, 1.0, 0.0, 0.0, 0.0];
const RANKED_B: [f64; 5] = [1.0, 0.0, ABSENT, 1.0, 0.0];

#[test]
fn counts_tell_absent_unjudged_and_judged_apart() {
    // judged grades 2, 1, 1, 0 and -1 (in the qrels, unjudged)
    let judged = [2.0, 1.0, 1.0, 0.0, -1.0];
    let ranked = [0.0, ABSENT, 2.0, -1.0, 1.0];
    let u = user(&ranked, &judged, 1.0);
    assert_eq!(num_ret(&u), 5.0);
    assert_eq!(num_rel(&u), 3.0);
    assert_eq!(num_rel_ret(&u), 2.0);
    assert_eq!(num_nonrel_judged_ret(&u), 1.0);
    // threshold 0: every judged grade >= 0 is relevant, the negative one is not
    let u0 = user(&ranked, &judged, 0.0);
    assert_eq!(num_rel(&u0), 4.0);
    assert_eq!(num_rel_ret(&u0), 3.0);
    assert_eq!(num_nonrel_judged_ret(&u0), 0.0);
    let empty = user(&[], &judged, 1.0);
    assert_eq!(num_ret(&empty), 0.0);
    assert_eq!(num_rel_ret(&empty), 0.0);
}

#[test]
fn bpref_counts_judged_non_relevant_above() {
    let u = user(&RANKED_B, &JUDGED_B, 1.0);
    // first relevant: 1; second: 1 - min(1, R) / min(N, R) = 1 - 1/2
    assert_eq!(bpref(&u), (1.0 + 0.5) / 2.0);
    // no relevant item: 0
    assert_eq!(bpref(&user(&[0.0, ABSENT, 0.0], &[0.0, 0.0], 1.0)), 0.0);
    // unjudged items (absent, negative grade) are skipped
    let ranked = [ABSENT, -1.0, 1.0];
    assert_eq!(bpref(&user(&ranked, &[1.0, -1.0], 1.0)), 1.0);
}

#[test]
fn bpref_raw_judges_negative_grades_non_relevant() {
    // trec_eval skips the grade -1 item; ranx counts it non-relevant, above the relevant
    let ranked = [ABSENT, -1.0, 1.0];
    let judged = [1.0, 0.0, -1.0];
    let u = user(&ranked, &judged, 1.0);
    assert_eq!(bpref(&u), 1.0);
    // R = 1, N = 2: 1 - min(1, 1) / min(1, 2)
    assert_eq!(bpref_raw(&u), 0.0);
    let mut t = GainTable::default();
    let mut params = [0.0; N_PARAMS];
    params[0] = 1.0;
    assert_eq!(measure(BPREF, &u, 0, false, &params, &mut t), 0.0);
    // the same as trec_eval's without negative grades
    let u = user(&RANKED_B, &JUDGED_B, 1.0);
    assert_eq!(bpref_raw(&u), bpref(&u));
    // no judged non-relevant item: 1 for each relevant retrieved, over R
    assert_eq!(bpref_raw(&user(&[1.0, ABSENT], &[2.0, 1.0], 1.0)), 0.5);
    assert_eq!(bpref_raw(&user(&[0.0, -3.0], &[0.0, -3.0], 1.0)), 0.0);
}

#[test]
fn infap_counts_pooled_items_above() {
    let u = user(&RANKED_B, &JUDGED_B, 1.0);
    // rank 4: 1/4 + 3/4 * (2 pooled of 3 above) * (1 + e) / (2 + 2e)
    assert!(close(infap(&u), (1.0 + 0.5) / 2.0));
    // an unjudged pool item above counts as pooled, not as judged
    let ranked = [1.0, 0.0, -1.0, 1.0];
    let judged = [1.0, 1.0, 0.0, -1.0];
    assert!(close(
        infap(&user(&ranked, &judged, 1.0)),
        (1.0 + 0.625) / 2.0
    ));
    assert_eq!(infap(&user(&[], &judged, 1.0)), 0.0);
}

#[test]
fn interpolated_precision() {
    use RecallRounding::{Nearest, Trec9};
    let u = user(&RANKED_B, &JUDGED_B, 1.0);
    // precision at ranks 1..5: 1, 1/2, 1/3, 1/2, 2/5
    assert_eq!(iprec_at_recall(&u, 0.0, Nearest), 1.0);
    assert_eq!(iprec_at_recall(&u, 0.5, Nearest), 1.0);
    assert_eq!(iprec_at_recall(&u, 0.3, Nearest), 1.0); // round(0.6) = 1 relevant
    assert_eq!(iprec_at_recall(&u, 1.0, Nearest), 0.5);
    // R = 2: level 0.6 asks for round(1.2) = 1 relevant item in trec_eval 10.0, and
    // for trunc(1.2 + 0.9) = 2 in trec_eval 9; level 0.3 for 1 in both
    assert_eq!(iprec_at_recall(&u, 0.6, Nearest), 1.0);
    assert_eq!(iprec_at_recall(&u, 0.6, Trec9), 0.5);
    assert_eq!(iprec_at_recall(&u, 0.3, Trec9), 1.0);
    assert_eq!(iprec_at_recall(&u, 0.0, Trec9), 1.0);
    // 8 of the 11 levels need at most 1 relevant item, 3 need 2 (6 and 5 in 9)
    assert!(close(iprec_avg(&u, &[], Nearest), 9.5 / 11.0));
    assert!(close(iprec_avg(&u, &[], Trec9), 8.5 / 11.0));
    // levels are sorted first
    assert!(close(iprec_avg(&u, &[1.0, 0.0], Nearest), 0.75));
    // a relevant count never reached: 0
    let none = [0.0, 0.0];
    assert_eq!(
        iprec_at_recall(&user(&none, &JUDGED_B, 1.0), 0.5, Nearest),
        0.0
    );
    assert_eq!(
        iprec_at_recall(&user(&none, &JUDGED_B, 1.0), 0.0, Nearest),
        0.0
    );
    // an empty list: trec_eval's 0 / 0 at level 0
    assert!(iprec_at_recall(&user(&[], &JUDGED_B, 1.0), 0.0, Nearest).is_nan());
    assert_eq!(
        iprec_at_recall(&user(&[], &JUDGED_B, 1.0), 1.0, Nearest),
        0.0
    );
}

#[test]
fn precision_at_multiples_of_r() {
    let u = user(&RANKED_B, &JUDGED_B, 1.0);
    assert_eq!(rprec_mult(&u, 1.0), 0.5); // rank trunc(2.9) = 2
    assert_eq!(rprec_mult(&u, 0.2), 1.0); // rank trunc(1.3) = 1
    assert_eq!(rprec_mult(&u, 3.0), 2.0 / 6.0); // rank 6, past the list
    assert_eq!(rprec_mult(&user(&RANKED_B, &[0.0], 1.0), 1.0), 0.0); // rank 0
}

#[test]
fn utility_weighs_the_contingency_table() {
    let u = user(&RANKED_B, &JUDGED_B, 1.0);
    assert_eq!(utility(&u, &[1.0, -1.0, 0.0, 0.0, 0.0]), -1.0);
    // 2 * 2 - 1 * 3 - 0.5 * 0 + 0.25 * (10 + 2 - 5 - 2)
    assert_eq!(utility(&u, &[2.0, -1.0, -0.5, 0.25, 10.0]), 2.25);
    // nothing retrieved: the relevant ones are missed
    assert_eq!(
        utility(&user(&[], &JUDGED_B, 1.0), &[1.0, -1.0, -2.0, 0.0, 0.0]),
        -4.0
    );
}

#[test]
fn bin_g_discounts_by_non_relevant_above() {
    let u = user(&RANKED_B, &JUDGED_B, 1.0);
    // 1 / log2(2) + 1 / log2(2 + 2), over R = 2
    assert_eq!(bin_g(&u), 0.75);
    assert_eq!(bin_g(&user(&[0.0, ABSENT], &JUDGED_B, 1.0)), 0.0);
}

#[test]
fn set_measures_and_relative_precision() {
    let u = user(&RANKED_B, &JUDGED_B, 1.0);
    assert_eq!(relative_precision(&u, 1), 1.0);
    assert_eq!(relative_precision(&u, 3), 0.5);
    assert_eq!(relative_precision(&u, 10), 1.0);
    assert_eq!(relative_precision(&u, 0), 1.0);
    assert_eq!(relative_precision(&user(&RANKED_B, &[0.0], 1.0), 3), 0.0);
    assert_eq!(set_precision(&u), 0.4);
    assert_eq!(set_relative_precision(&u), 1.0);
    assert_eq!(set_recall(&u), 1.0);
    assert_eq!(set_ap(&u), 4.0 / 10.0);
    assert_eq!(set_f(&u, 1.0), 2.0 * 0.4 / 1.4);
    let empty = user(&[], &JUDGED_B, 1.0);
    for f in [set_precision, set_relative_precision, set_recall, set_ap] {
        assert_eq!(f(&empty), 0.0);
    }
    assert_eq!(set_f(&empty, 1.0), 0.0);
}

#[test]
fn unjudged_judged_and_the_rbp_residual() {
    let u = user(&RANKED_B, &JUDGED_B, 1.0);
    assert_eq!(unjudged(&u, 0), 0.2);
    assert_eq!(unjudged(&u, 2), 0.0);
    assert_eq!(unjudged(&u, 10), 0.1); // trec_eval: ranks past the list are judged
    assert_eq!(judged(&u, 0), 0.8);
    assert_eq!(judged(&u, 10), 0.8); // ir_measures: over the list's length
    assert_eq!(judged(&u, 3), 2.0 / 3.0);
    // a negative grade is unjudged for trec_eval, judged (in the qrels) for ir_measures
    let neg = [-1.0, 1.0];
    assert_eq!(unjudged(&user(&neg, &JUDGED_B, 1.0), 0), 0.5);
    assert_eq!(judged(&user(&neg, &JUDGED_B, 1.0), 0), 1.0);
    // p^5 + (1 - p) p^2 for the absent item at rank 3
    assert_eq!(rbp_resid(&u, 0.5), 0.03125 + 0.125);
    assert_eq!(rbp_resid(&user(&[1.0, 0.0], &JUDGED_B, 1.0), 0.5), 0.0);
    assert_eq!(unjudged(&user(&[], &JUDGED_B, 1.0), 5), 0.0);
    assert_eq!(judged(&user(&[], &JUDGED_B, 1.0), 5), 0.0);
}

#[test]
fn rbp_normalises_grades_above_one() {
    let judged = [3.0, 1.0, 0.0];
    let mut t = GainTable::default();
    t.build(&judged, &[]);
    // gains 1/3 and 3/3
    let v = rbp(&user(&[1.0, 3.0, ABSENT], &judged, 1.0), 0.5, &mut t);
    assert!(close(v, 0.5 * (1.0 / 3.0 + 0.5)));
    let binary = [1.0, 0.0];
    t.build(&binary, &[]);
    assert_eq!(rbp(&user(&[0.0, 1.0], &binary, 1.0), 0.5, &mut t), 0.25);
    // from threshold 2 on: the grade 1 earns nothing, the grade 3 still 3/3
    t.build(&judged, &[]);
    let v = rbp(&user(&[1.0, 3.0, ABSENT], &judged, 2.0), 0.5, &mut t);
    assert!(close(v, 0.5 * 0.5));
}

#[test]
fn rbp_with_raw_grades() {
    let judged = [3.0, 1.0, 0.0, -1.0];
    let u = user(&[1.0, 3.0, ABSENT, -1.0, 0.0], &judged, 1.0);
    // gains 1 and 3 at ranks 1 and 2, unscaled
    assert_eq!(rbp_raw(&u, 0.5), 0.5 * (1.0 + 3.0 * 0.5));
    let mut t = GainTable::default();
    let mut params = [0.0; N_PARAMS];
    params[..2].copy_from_slice(&[0.5, 2.0]);
    assert_eq!(measure(RBP, &u, 0, false, &params, &mut t), 1.25);
    // below the threshold no gain
    assert_eq!(
        rbp_raw(&user(&[1.0, 3.0], &judged, 2.0), 0.5),
        0.5 * 3.0 * 0.5
    );
    assert_eq!(rbp_raw(&user(&[], &judged, 1.0), 0.5), 0.0);
}

#[test]
fn rbp_with_binary_gains() {
    let judged = [3.0, 1.0, 0.0];
    let u = user(&[1.0, 3.0, ABSENT, 0.0], &judged, 2.0);
    // only the grade 3 (rank 2) is relevant at threshold 2
    assert_eq!(rbp_binary(&u, 0.5), 0.5 * 0.5);
    let mut t = GainTable::default();
    let mut params = [0.0; N_PARAMS];
    params[..2].copy_from_slice(&[0.5, 1.0]);
    assert_eq!(measure(RBP, &u, 0, false, &params, &mut t), 0.25);
    assert_eq!(rbp_binary(&user(&[], &judged, 1.0), 0.5), 0.0);
    // cwl_eval: a negative grade is read as 0, an absent item is never relevant
    let u = user(&[-1.0, ABSENT, 0.0], &[0.0, -1.0], 0.0);
    assert_eq!(rbp_binary(&u, 0.5), 0.5 * (1.0 + 0.25));
    let u = user(&[-1.0, ABSENT, 0.0], &[0.0, -1.0], -1.0);
    assert_eq!(rbp_binary(&u, 0.5), 0.5 * (1.0 + 0.25));
}

#[test]
fn err_and_nerr() {
    let judged = [4.0, 2.0, 0.0];
    let u = user(&[2.0, 0.0, 4.0], &judged, 1.0);
    // 3/16 + (15/16) (13/16) / 3
    assert_eq!(err(&u, &[0.0, 0.0]), 0.44140625);
    assert_eq!(err(&user(&[ABSENT, -1.0], &judged, 1.0), &[0.0, 0.0]), 0.0);
    // the largest grade: 3
    assert_eq!(err(&user(&[3.0], &judged, 1.0), &[3.0, 0.0]), 7.0 / 8.0);
    // CatBoost's: the grade is the stopping probability (1 / 2 + (1 / 2) (1 / 4) / 2)
    let p = user(&[0.5, ABSENT, 0.25, -1.0], &judged, 1.0);
    assert_eq!(err(&p, &[0.0, 1.0]), 0.5 + 0.5 * 0.25 / 3.0);
    // nERR: relevant at ranks 1 and 3, weights 1 and 1/2; ideal ranks 1 and 2
    assert_eq!(nerr(&u, 0, 0.5), (1.0 + 0.5 / 3.0) / (1.0 + 0.5 / 2.0));
    // cut at 1: the ideal list is cut too
    let cut = user(&u.ranked[..1], &judged, 1.0);
    assert_eq!(nerr(&cut, 1, 0.0), 1.0);
    // threshold 3: one relevant item, at rank 3
    assert_eq!(nerr(&user(u.ranked, &judged, 3.0), 0, 0.5), 1.0 / 3.0);
    assert_eq!(nerr(&user(&[0.0, ABSENT], &judged, 1.0), 0, 0.5), 0.0);
    assert_eq!(nerr(&user(&[0.0, -1.0], &[0.0, -1.0], 1.0), 0, 0.5), 0.0);
}

#[test]
fn pfound_and_average_gain() {
    let judged = [1.0, 0.0];
    // look at 1: 0.5 found; on with (1 - 0.5) 0.85; an absent item passes on with 0.85
    let u = user(&[0.5, ABSENT, 0.25], &judged, 1.0);
    assert_eq!(pfound(&u, 0.0), 0.5 + 0.25 * 0.5 * 0.85 * 0.85);
    assert_eq!(pfound(&u, 0.5), 0.5 + 0.25 * 0.5 * 0.5 * 0.5);
    assert_eq!(average_gain(&u), 0.75 / 3.0);
    assert_eq!(average_gain(&user(&[-1.0, 2.0], &judged, 1.0)), 1.0);
    assert_eq!(average_gain(&user(&[], &judged, 1.0)), 0.0);
}

#[test]
fn custom_gains_and_ndcg() {
    let judged = [2.0, 1.0, 0.0];
    let mut t = GainTable::default();
    t.build(&judged, &[(1.0, 3.0), (2.0, 9.0)]);
    let u = user(&[1.0, ABSENT, 2.0], &judged, 1.0);
    let (dcg, ideal) = dcg_pair(&u, 0, &t);
    assert_eq!(dcg, 3.0 + 9.0 / 2.0);
    assert_eq!(ideal, 9.0 + 3.0 / 3f64.log2());
    assert_eq!(ndcg(&u, 0, &t), dcg / ideal);
    // cut at 1: 3 over 9
    assert_eq!(ndcg(&u, 1, &t), 3.0 / 9.0);
    // default gains: the grades
    t.build(&judged, &[]);
    assert_eq!(dcg_pair(&u, 0, &t), (1.0 + 1.0, 2.0 + 1.0 / 3f64.log2()));
}

#[test]
fn gain_table_sorts_like_trec_eval() {
    // trec_eval compares (int)(gain_a - gain_b): 4.5 and 4 are "equal", so the
    // pair (1, 4.5) stays below the level 4 and the ideal list is 4, then 4.5
    let judged = [4.0, 1.0];
    let mut t = GainTable::default();
    t.build(&judged, &[(1.0, 4.5)]);
    let gains: Vec<f64> = t.levels.iter().map(|l| l.gain).collect();
    assert_eq!(gains, vec![0.0, 2.0, 3.0, 4.5, 4.0]);
    let u = user(&[4.0, 1.0], &judged, 1.0);
    assert_eq!(ndcg(&u, 0, &t), 1.0);
    let swapped = user(&[1.0, 4.0], &judged, 1.0);
    assert!(ndcg(&swapped, 0, &t) > 1.0);
}

#[test]
fn g_ndcg_rel_and_r_ndcg() {
    // judged grades 2, 1, 0; ranked: 1, absent, 2
    let judged = [2.0, 1.0, 0.0];
    let mut t = GainTable::default();
    t.build(&judged, &[]);
    let u = user(&[1.0, ABSENT, 2.0], &judged, 1.0);
    // G: ideal gains 2, 1; costs 2, 1, 1 (at least 1 a rank)
    let want = 1.0 / (2.0 + 2.0 - 1.0f64).log2() + 2.0 / (2.0 + 4.0 - 3.0f64).log2();
    assert!(close(g(&u, &t), want / 3.0));
    // ndcg_rel: at rank 1 dcg 1 / idcg 2, at rank 3 (1 + 2/2) / (2 + 1/log2 3)
    let idcg2 = 2.0 + 1.0 / 3f64.log2();
    let want = (1.0 / 2.0 + 2.0 / idcg2) / 2.0;
    assert!(close(ndcg_rel(&u, &t), want));
    // Rndcg: levels change after rank 1 (2 -> 1) and rank 2 (1 -> 0)
    let want = (1.0 / 2.0 + 1.0 / idcg2) / 2.0;
    assert!(close(r_ndcg(&u, &t), want));
    // no relevant item: 0
    let none = user(&[0.0], &[0.0], 1.0);
    t.build(&[0.0], &[]);
    assert_eq!(r_ndcg(&none, &t), 0.0);
    assert_eq!(g(&none, &t), 0.0);
    assert_eq!(ndcg_rel(&none, &t), 0.0);
}

#[test]
fn dispatch_cuts_at_k_and_reads_params() {
    let mut t = GainTable::default();
    let u = user(&RANKED_B, &JUDGED_B, 1.0);
    let mut params = [0.0; N_PARAMS];
    assert_eq!(measure(NUM_RET, &u, 3, false, &params, &mut t), 3.0);
    assert_eq!(measure(NUM_REL, &u, 3, false, &params, &mut t), 2.0);
    assert_eq!(measure(NUM_Q, &u, 3, false, &params, &mut t), 1.0);
    assert_eq!(measure(UNJUDGED, &u, 10, false, &params, &mut t), 0.1);
    params[0] = 1.0;
    assert_eq!(measure(RPREC_MULT, &u, 0, false, &params, &mut t), 0.5);
    // custom gains for G: P0 pairs, then grade, gain
    params[..3].copy_from_slice(&[1.0, 1.0, 5.0]);
    let plain = measure(G, &u, 0, false, &params, &mut t);
    let custom = measure(G, &u, 0, true, &params, &mut t);
    assert!(close(plain, custom)); // one gain level: G does not depend on its size
    assert!(measure(99, &u, 0, false, &params, &mut t).is_nan());
}

#[test]
fn missing_users_are_one_absent_item() {
    let mut t = GainTable::default();
    let params = [
        0.9, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    ];
    let m = |kind, judged_only, t: &mut GainTable| {
        let spec = Spec {
            kind,
            threshold: 1.0,
            judged_only,
            params,
            ..Spec::default()
        };
        missing_user_measure(&spec, &JUDGED_B, t)
    };
    assert_eq!(m(NUM_REL, false, &mut t), 2.0);
    assert_eq!(m(NUM_Q, false, &mut t), 1.0);
    assert_eq!(m(NUM_RET, false, &mut t), 0.0);
    assert_eq!(m(RBP_RESID, false, &mut t), 0.0);
    assert_eq!(m(UNJUDGED, false, &mut t), 0.0);
    assert_eq!(m(SET_PRECISION, false, &mut t), 0.0);
    // one absent item: 0 / 1; judged-only: an empty list, trec_eval's 0 / 0
    assert_eq!(m(IPREC_AT_RECALL, false, &mut t), 0.0);
    assert!(m(IPREC_AVG, true, &mut t).is_nan());
}
