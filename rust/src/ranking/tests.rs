//! Tests of the ranking kernel.

use super::measures::expected_ap;
use super::*;
use crate::spec::{
    ApNorm, Discount, Empty, Gain, Missing, PrecisionNorm, RecallNorm, Spec, Ties, AP, DCG,
    HIT_RATIO, NDCG, PRECISION, RECALL, RR,
};

fn disc(n: usize) -> Vec<f64> {
    (0..n).map(|j| 1.0 / ((j as f64) + 2.0).log2()).collect()
}

fn spec(kind: i64, k: i64, ties: Ties) -> Spec {
    Spec {
        kind,
        k,
        threshold: 1.0,
        gain_threshold: 1.0,
        ties,
        ..Spec::default()
    }
}

fn inputs<'a>(
    judged: Judged<'a>,
    ranked: Ranked<'a>,
    item_map: &'a [i32],
    user_map: &'a [i32],
    max_len: usize,
    disc: &'a [f64],
) -> Inputs<'a> {
    Inputs {
        judged,
        ranked,
        item_map,
        user_map,
        max_len,
        disc,
    }
}

#[test]
fn gains_follow_the_conventions() {
    assert_eq!(gain(3.0, 1.0, Gain::Linear), 3.0);
    assert_eq!(gain(3.0, 1.0, Gain::Exponential), 7.0);
    assert_eq!(gain(3.0, 1.0, Gain::Binary), 1.0);
    assert_eq!(gain(0.0, 1.0, Gain::Linear), 0.0);
    assert_eq!(gain(f64::NEG_INFINITY, 0.0, Gain::Binary), 0.0);
}

#[test]
fn trec_order_breaks_ties_by_key() {
    // scores 0.5, 0.5, 0.5, 0.1 with keys 0, 2, 1: descending keys 2, 1, 0
    let scores = [0.5, 0.5, 0.5, 0.1];
    let items = [0, 1, 2, 3];
    let keys = [0.0, 2.0, 1.0, 3.0];
    let order = |s: &[f64], k: &[f64], rule| trec_order(s, &items[..s.len()], k, rule);
    assert_eq!(order(&scores, &keys, Ties::Trec), [1, 2, 0, 3]);
    assert_eq!(order(&scores, &keys, Ties::IdDescending), [1, 2, 0, 3]);
    assert_eq!(order(&scores, &keys, Ties::IdAscending), [0, 2, 1, 3]);
    // equal in float32 only: tied for trec_eval 9's rule, not for the double rules
    let close = [1.0, 1.0 + 1e-12];
    let keys = [0.0, 1.0];
    assert_eq!(order(&close, &keys, Ties::Trec), [1, 0]);
    assert_eq!(order(&close, &keys, Ties::IdDescending), [0, 1]);
    assert_eq!(order(&close, &keys, Ties::IdAscending), [0, 1]);
}

#[test]
fn expected_ap_of_one_relevant_item_in_a_tie() {
    // the relevant item at each of the 4 ranks equally often
    let grades = [1.0, 0.0, 0.0, 0.0];
    let scores = [0.5; 4];
    let want = (1.0 + 0.5 + 1.0 / 3.0 + 0.25) / 4.0;
    assert!((expected_ap(&grades, &scores, 4, 1.0, Some(1.0)) - want).abs() < 1e-15);
    // normalised by the hits within the top 2: 1 / rank when it is there, else 0
    let top2 = expected_ap(&grades, &scores, 2, 1.0, None);
    assert!((top2 - (1.0 + 0.5) / 4.0).abs() < 1e-15);
}

#[test]
fn column_major_values_equal_the_rows() {
    // 2500 users (several column blocks per chunk; enough rows for threads),
    // some absent from the run, some without judged items
    let mut seed = 3u64;
    let mut next = |m: u64| crate::testing::lcg(&mut seed) % m;
    let n_users = 2500;
    let (mut qo, mut qi, mut qg) = (vec![0i64], Vec::new(), Vec::new());
    let (mut ro, mut ri, mut rs) = (vec![0i64], Vec::new(), Vec::new());
    for _ in 0..n_users {
        let judged = next(6) as i32;
        for j in 0..judged {
            qi.push(j * 3);
            qg.push(next(3) as f64);
        }
        qo.push(qi.len() as i64);
        for t in 0..30 {
            ri.push(next(40) as i32);
            rs.push(1.0 - t as f64 / 30.0);
        }
        ro.push(ri.len() as i64);
    }
    let desc: Vec<f64> = qo
        .windows(2)
        .flat_map(|w| {
            let mut g = qg[w[0] as usize..w[1] as usize].to_vec();
            g.sort_by(|a, b| b.partial_cmp(a).unwrap());
            g
        })
        .collect();
    let q = Judged {
        offsets: &qo,
        items: &qi,
        grades: &qg,
        desc: &desc,
    };
    let r = Ranked {
        offsets: &ro,
        items: &ri,
        scores: &rs,
        keys: &[],
    };
    let item_map: Vec<i32> = (0..15)
        .map(|c| if c == 7 { -1 } else { c * 3 % 40 })
        .collect();
    let user_map: Vec<i32> = (0..n_users as i32)
        .map(|u| if u % 11 == 0 { -1 } else { u })
        .collect();
    let kinds = [PRECISION, RECALL, RR, AP, NDCG];
    let specs: Vec<Spec> = kinds.iter().map(|&k| spec(k, 10, Ties::Input)).collect();
    let (n, m) = (n_users, kinds.len());
    let d = disc(30);
    let inp = inputs(q, r, &item_map, &user_map, 30, &d);
    let (v, x) = evaluate_users(&inp, &specs, 1);
    for chunks in [1, 3, 8] {
        let (mut cv, mut cx) = (vec![0.0; n * m], vec![0.0; n * m]);
        evaluate_users_columns_into(&inp, &specs, chunks, &mut cv, &mut cx);
        for u in 0..n {
            for j in 0..m {
                let (a, b) = (v[u * m + j], cv[j * n + u]);
                assert!(a == b || (a.is_nan() && b.is_nan()), "user {u} metric {j}");
                assert_eq!(x[u * m + j], cx[j * n + u]);
            }
        }
    }
    assert!(v.iter().any(|&a| a > 0.0) && v.contains(&0.0));
}

#[test]
fn metrics_of_one_user() {
    // judged: items 0 (grade 2), 1 (grade 1), 2 (grade 0); ranked: 1, 3, 0
    let q = Judged {
        offsets: &[0, 3],
        items: &[0, 1, 2],
        grades: &[2.0, 1.0, 0.0],
        desc: &[2.0, 1.0, 0.0],
    };
    let r = Ranked {
        offsets: &[0, 3],
        items: &[1, 3, 0],
        scores: &[0.9, 0.5, 0.1],
        keys: &[],
    };
    let item_map = [0, 1, 2];
    let kinds = [PRECISION, RECALL, RR, AP, DCG, NDCG, HIT_RATIO];
    let specs: Vec<Spec> = kinds.iter().map(|&k| spec(k, 2, Ties::Input)).collect();
    let d = disc(3);
    for chunks in [1, 3] {
        let (v, x) = evaluate_users(&inputs(q, r, &item_map, &[0], 3, &d), &specs, chunks);
        assert_eq!(v[0], 0.5);
        assert_eq!(v[1], 0.5);
        assert_eq!(v[2], 1.0);
        assert_eq!(v[3], 0.5); // one hit at rank 1 over R = 2
        assert_eq!(v[4], 1.0);
        assert_eq!(v[5], 1.0 / (2.0 + 1.0 * d[1]));
        assert_eq!(v[6], 1.0);
        assert!(x.iter().all(|&a| a == 2.0));
    }
}

#[test]
fn lenskit_normalisers_and_clipped_discount() {
    // one user, 3 relevant items (grades 1), a list of 3: rel, non-rel, rel
    let q = Judged {
        offsets: &[0, 3],
        items: &[0, 1, 2],
        grades: &[1.0, 1.0, 1.0],
        desc: &[1.0, 1.0, 1.0],
    };
    let r = Ranked {
        offsets: &[0, 3],
        items: &[0, 3, 1],
        scores: &[0.9, 0.5, 0.1],
        keys: &[],
    };
    let item_map = [0, 1, -1];
    let with = |kind: i64, k: i64, set: &dyn Fn(&mut Spec)| {
        let mut s = spec(kind, k, Ties::Input);
        set(&mut s);
        s
    };
    let specs = [
        with(PRECISION, 10, &|s| {
            s.precision_norm = PrecisionNorm::Retrieved
        }), // 2 / 3
        with(PRECISION, 10, &|s| s.precision_norm = PrecisionNorm::K), // 2 / 10
        with(RECALL, 2, &|s| s.recall_norm = RecallNorm::MinK),        // 1 / min(3, 2)
        with(RECALL, 2, &|s| s.recall_norm = RecallNorm::Relevant),    // 1 / 3
        with(AP, 10, &|s| s.ap_norm = ApNorm::MinRetrieved),           // (1 + 2/3) / 3
        with(AP, 2, &|s| s.ap_norm = ApNorm::MinRetrieved),            // 1 / min(3, 2)
        with(DCG, 0, &|s| s.discount = Discount::Clipped),             // 1 + 1 / log2(3)
    ];
    let d = disc(4);
    let (v, _) = evaluate_users(&inputs(q, r, &item_map, &[0], 3, &d), &specs, 1);
    assert_eq!(v[0], 2.0 / 3.0);
    assert_eq!(v[1], 0.2);
    assert_eq!(v[2], 0.5);
    assert_eq!(v[3], 1.0 / 3.0);
    assert_eq!(v[4], (1.0 + 2.0 / 3.0) / 3.0);
    assert_eq!(v[5], 0.5);
    assert_eq!(v[6], 1.0 + 1.0 / 3f64.log2());
}

#[test]
fn worst_ties_and_reciprocal_rank_discount() {
    // one user, grades 2, 1, 0, 3 under scores 0.5, 0.5, 0.5, 0.1 (CatBoost's order of
    // ties: grade ascending, so 0, 1, 2, then 3)
    let q = Judged {
        offsets: &[0, 4],
        items: &[0, 1, 2, 3],
        grades: &[2.0, 1.0, 0.0, 3.0],
        desc: &[3.0, 2.0, 1.0, 0.0],
    };
    let r = Ranked {
        offsets: &[0, 4],
        items: &[0, 1, 2, 3],
        scores: &[0.5, 0.5, 0.5, 0.1],
        keys: &[],
    };
    let item_map = [0, 1, 2, 3];
    let mut rank = spec(DCG, 0, Ties::Input);
    rank.discount = Discount::Rank;
    let specs = [
        spec(RR, 0, Ties::Worst),        // the first relevant item at rank 2
        spec(PRECISION, 1, Ties::Worst), // grade 0 first
        spec(RR, 0, Ties::Input),        // grade 2 first
        rank,                            // 2 + 1 / 2 + 0 / 3 + 3 / 4
    ];
    let d = disc(4);
    let (v, _) = evaluate_users(&inputs(q, r, &item_map, &[0], 4, &d), &specs, 1);
    assert_eq!(v, [0.5, 0.0, 1.0, 3.25]);
}

#[test]
fn absent_and_empty_users_follow_the_rules() {
    let q = Judged {
        offsets: &[0, 1, 1],
        items: &[0],
        grades: &[1.0],
        desc: &[1.0],
    };
    let r = Ranked {
        offsets: &[0, 0],
        items: &[],
        scores: &[],
        keys: &[],
    };
    let mut skip = spec(PRECISION, 5, Ties::Input);
    skip.missing = Missing::Skip;
    let mut one = spec(RECALL, 5, Ties::Input);
    one.empty = Empty::One;
    let d = disc(1);
    let (v, x) = evaluate_users(&inputs(q, r, &[-1], &[-1, 0], 1, &d), &[skip, one], 4);
    assert!(v[0].is_nan()); // absent, skipped
    assert_eq!(v[1], 0.0); // absent, scored 0
    assert_eq!(v[2], 0.0); // empty list
    assert_eq!(v[3], 1.0); // no relevant item: 1
    assert_eq!(x, vec![1.0, 1.0, 0.0, 0.0]);
}

#[test]
fn average_ties_take_the_expected_value() {
    // two tied items, one relevant: RR = (1 + 1/2) / 2, precision@1 = 1/2
    let q = Judged {
        offsets: &[0, 1],
        items: &[0],
        grades: &[1.0],
        desc: &[1.0],
    };
    let r = Ranked {
        offsets: &[0, 2],
        items: &[1, 0],
        scores: &[0.5, 0.5],
        keys: &[],
    };
    let specs = [
        spec(RR, 0, Ties::Average),
        spec(PRECISION, 1, Ties::Average),
    ];
    let d = disc(2);
    let (v, _) = evaluate_users(&inputs(q, r, &[1], &[0], 2, &d), &specs, 1);
    assert_eq!(v, vec![0.75, 0.5]);
}

#[test]
fn trec_kinds_depth_and_judged_only() {
    use crate::spec::{BPREF, NUM_REL, NUM_REL_RET, NUM_RET, UNJUDGED};
    // user 0 judged items 0 (grade 1), 1 (grade 0), 2 (grade -1: unjudged); ranked:
    // 3 (absent), then 1 and 0 tied, then 2. trec order: the tie by key descending
    // (item 0, key 1, first). User 1 is absent from the run.
    let q = Judged {
        offsets: &[0, 3, 5],
        items: &[0, 1, 2, 0, 1],
        grades: &[1.0, 0.0, -1.0, 2.0, 1.0],
        desc: &[1.0, 0.0, -1.0, 2.0, 1.0],
    };
    let r = Ranked {
        offsets: &[0, 4],
        items: &[3, 1, 0, 2],
        scores: &[0.9, 0.5, 0.5, 0.1],
        keys: &[1.0, 0.0, 2.0, 3.0],
    };
    let row = |kind, k, ties, depth, judged_only| Spec {
        depth,
        judged_only,
        missing: Missing::Complete,
        ..spec(kind, k, ties)
    };
    let rows = [
        row(NUM_REL_RET, 2, Ties::Trec, None, false), // absent, 1: 1
        row(NUM_REL_RET, 2, Ties::Input, None, false), // absent, 0: 0
        row(NUM_RET, 0, Ties::Trec, Some(3), false),  // depth 3
        row(NUM_RET, 0, Ties::Trec, None, true),      // judged only: 1, 0
        row(UNJUDGED, 0, Ties::Trec, None, false),    // absent and -1: 2 of 4
        row(PRECISION, 1, Ties::Trec, None, true),    // judged only: 1 first
        row(PRECISION, 1, Ties::Trec, Some(1), false), // depth 1: the absent item
        row(BPREF, 0, Ties::Trec, None, true),        // the relevant item above
        row(NUM_REL, 0, Ties::Trec, None, false),     // user 1: 2 relevant
    ];
    let d = disc(4);
    let inp = inputs(q, r, &[0, 1, 2], &[0, -1], 4, &d);
    let (v, _) = evaluate_users(&inp, &rows, 2);
    assert_eq!(&v[..9], &[1.0, 0.0, 3.0, 2.0, 0.5, 1.0, 0.0, 1.0, 1.0]);
    // user 1, absent: trec_eval's -c values (missing_users="complete")
    assert_eq!(&v[9..], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0]);
    // missing_users="zero": every metric 0, the counts too
    let zero: Vec<Spec> = rows
        .iter()
        .map(|r| Spec {
            missing: Missing::Zero,
            ..*r
        })
        .collect();
    let (v, _) = evaluate_users(&inp, &zero, 2);
    assert_eq!(&v[9..], &[0.0; 9]);
}
