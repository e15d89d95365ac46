//! Tests of the expected values over tied orders: each against the mean over
//! every order, enumerated.

use super::*;
use crate::spec::{RecallRounding, N_PARAMS};

/// A spec of `kind` cut at `k` with the parameters `params` (the rest 0).
fn spec_of(kind: i64, k: i64, params: &[f64]) -> Spec {
    let mut p = [0.0; N_PARAMS];
    p[..params.len()].copy_from_slice(params);
    Spec {
        kind,
        k,
        params: p,
        ..Spec::default()
    }
}

const ABSENT: f64 = f64::NEG_INFINITY;

/// Every order of `ranked` that permutes items within the tied blocks of `scores`.
fn orders(ranked: &[f64], scores: &[f64]) -> Vec<Vec<f64>> {
    fn permutations(items: &[f64]) -> Vec<Vec<f64>> {
        if items.len() <= 1 {
            return vec![items.to_vec()];
        }
        let mut out = Vec::new();
        for i in 0..items.len() {
            let mut rest = items.to_vec();
            let first = rest.remove(i);
            for mut p in permutations(&rest) {
                p.insert(0, first);
                out.push(p);
            }
        }
        out
    }
    let mut out = vec![Vec::new()];
    let mut t = 0;
    while t < ranked.len() {
        let e = tied_block_end(scores, t);
        let mut next = Vec::new();
        for head in &out {
            for p in permutations(&ranked[t..e]) {
                let mut v = head.clone();
                v.extend(p);
                next.push(v);
            }
        }
        out = next;
        t = e;
    }
    out
}

/// The mean of the measure over every order (brute force).
fn enumerated(spec: &Spec, ranked: &[f64], scores: &[f64], judged: &[f64]) -> f64 {
    let all = orders(ranked, scores);
    let mut table = GainTable::default();
    let sum: f64 = all
        .iter()
        .map(|order| {
            let u = UserGrades {
                ranked: order,
                judged,
                threshold: 1.0,
            };
            tm::user_measure(spec, &u, &mut table)
        })
        .sum();
    sum / all.len() as f64
}

/// The closed form's expected value over every order.
fn closed(spec: &Spec, ranked: &[f64], scores: &[f64], judged: &[f64]) -> f64 {
    let u = UserGrades {
        ranked,
        judged,
        threshold: 1.0,
    };
    let mut table = GainTable::default();
    expected_measure(spec, &u, scores, &mut table)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

// judged: 3 relevant (grades 1, 2, 3), 3 non-relevant, one pooled but unjudged
const JUDGMENTS: [f64; 7] = [3.0, 2.0, 1.0, 0.0, 0.0, 0.0, -1.0];
// a block of four (one relevant) cut by k = 2 or 3, then a block of three
const RANKED: [f64; 7] = [0.0, 2.0, ABSENT, 0.0, 1.0, -1.0, 3.0];
const SCORES: [f64; 7] = [0.9, 0.9, 0.9, 0.9, 0.5, 0.5, 0.5];

#[test]
fn closed_forms_equal_the_enumeration_of_orders() {
    let cases: [(i64, &[f64]); 26] = [
        (INFAP, &[]),
        (G, &[]),
        (IPREC_AT_RECALL, &[0.0]),
        (IPREC_AT_RECALL, &[0.5]),
        (IPREC_AT_RECALL, &[1.0]),
        (IPREC_AVG, &[]),
        (IPREC_AVG, &[2.0, 0.7, 0.3]),
        (ERR, &[0.0]),
        (ERR, &[3.0]),
        (NUM_REL_RET, &[]),
        (NUM_NONREL_JUDGED_RET, &[]),
        (BPREF, &[]),
        (BPREF, &[1.0]),
        (BIN_G, &[]),
        (NERR, &[0.3]),
        (RBP, &[0.8]),
        (RBP, &[0.8, 1.0]),
        (RBP_RESID, &[0.8]),
        (SET_AP, &[]),
        (SET_F, &[0.5]),
        (UTILITY, &[1.0, -1.0, 0.5, 0.25, 20.0]),
        (RPREC_MULT, &[0.5]),
        (R_NDCG, &[]),
        (NDCG_REL, &[]),
        (UNJUDGED, &[]),
        (JUDGED, &[]),
    ];
    for (kind, params) in cases {
        let mut p = [0.0; N_PARAMS];
        p[..params.len()].copy_from_slice(params);
        for k in [0, 1, 2, 3, 5] {
            let spec = spec_of(kind, k, &p);
            let want = enumerated(&spec, &RANKED, &SCORES, &JUDGMENTS);
            let got = closed(&spec, &RANKED, &SCORES, &JUDGMENTS);
            assert!(close(got, want), "kind {kind} k {k}: {got} vs {want}");
        }
    }
}

#[test]
fn bpref_counts_a_uniform_number_of_non_relevant_above() {
    // one relevant among two judged non-relevant, all tied: 0, 1 or 2 above, each
    // with probability 1/3; R = 1, so min(N, R) = 1: scores 1, 0, 0
    let judged = [1.0, 0.0, 0.0];
    let got = closed(
        &spec_of(BPREF, 0, &[]),
        &[0.0, 1.0, 0.0],
        &[0.5; 3],
        &judged,
    );
    assert!(close(got, 1.0 / 3.0));
}

#[test]
fn nerr_places_the_jth_relevant_item_by_its_law() {
    // two relevant among three tied items: the first at rank 1 with probability
    // 2/3, else at 2; the second at 2 (1/3) or 3 (2/3)
    let judged = [1.0, 1.0, 0.0];
    let got = closed(
        &spec_of(NERR, 0, &[0.5; 16]),
        &[1.0, 0.0, 1.0],
        &[0.5; 3],
        &judged,
    );
    let numerator = 2.0 / 3.0 + (1.0 / 3.0) / 2.0 + 0.5 * ((1.0 / 3.0) / 2.0 + (2.0 / 3.0) / 3.0);
    assert!(close(got, numerator / (1.0 + 0.5 / 2.0)));
}

#[test]
fn set_f_is_averaged_over_the_hits_in_the_cut_block() {
    // k = 1 cuts a block of two, one relevant: F is 0 or that of one hit in one item
    let judged = [1.0, 0.0];
    let got = closed(
        &spec_of(SET_F, 1, &[1.0; 16]),
        &[1.0, 0.0],
        &[0.5; 2],
        &judged,
    );
    assert!(close(got, 0.5));
}

#[test]
fn lists_without_ties_get_the_plain_value() {
    let scores = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3];
    let u = UserGrades {
        ranked: &RANKED,
        judged: &JUDGMENTS,
        threshold: 1.0,
    };
    let mut table = GainTable::default();
    let p = [0.8; 16];
    for kind in [
        BPREF, BIN_G, NERR, RBP, SET_F, R_NDCG, NDCG_REL, ERR, INFAP, G, IPREC_AVG,
    ] {
        let spec = spec_of(kind, 3, &p);
        let plain = tm::user_measure(&spec, &u, &mut table);
        let got = expected_measure(&spec, &u, &scores, &mut table);
        assert_eq!(got, plain);
    }
}

/// Random small lists (a fixed generator): blocks of tied scores over relevant,
/// non-relevant, unjudged and absent items, every kind whose form is not a sum of
/// per-position terms, at several cut-offs.
#[test]
fn ratio_and_maximum_forms_equal_the_enumeration_on_random_lists() {
    let mut words = crate::testing::stream(0x2545_f491_4f6c_dd1d);
    let mut next = |m: u64| words() % m;
    let grades = [ABSENT, -1.0, 0.0, 0.0, 1.0, 2.0, 3.0];
    for _ in 0..300 {
        let n = 1 + next(7) as usize;
        let ranked: Vec<f64> = (0..n).map(|_| grades[next(7) as usize]).collect();
        let mut scores: Vec<f64> = (0..n).map(|_| next(3) as f64).collect();
        scores.sort_by(|a, b| b.total_cmp(a));
        // judged: the ranked items in the qrels, and a relevant one not retrieved
        let mut judged: Vec<f64> = ranked.iter().copied().filter(|&g| g > ABSENT).collect();
        if next(2) == 0 {
            judged.push(2.0);
        }
        judged.sort_by(|a, b| b.total_cmp(a));
        let cases: [(i64, &[f64]); 6] = [
            (INFAP, &[]),
            (G, &[]),
            (IPREC_AT_RECALL, &[0.0]),
            (IPREC_AT_RECALL, &[0.4]),
            (IPREC_AT_RECALL, &[1.0]),
            (IPREC_AVG, &[]),
        ];
        for (kind, params) in cases {
            let mut p = [0.0; N_PARAMS];
            p[..params.len()].copy_from_slice(params);
            for k in [0, 1, 2, 4] {
                for rounding in [RecallRounding::Nearest, RecallRounding::Trec9] {
                    let spec = Spec {
                        recall_rounding: rounding,
                        ..spec_of(kind, k, &p)
                    };
                    let want = enumerated(&spec, &ranked, &scores, &judged);
                    let got = closed(&spec, &ranked, &scores, &judged);
                    assert!(
                        close(got, want),
                        "kind {kind} k {k} {rounding:?} {ranked:?} {scores:?}: {got} vs {want}"
                    );
                }
            }
        }
    }
}
