//! Tests of GAUC's open groups: adding, absorbing, grouping, group weights.

use super::*;
use crate::gauc::{pair_counts, weighted_group_aucs};
use crate::testing::stream;

/// An update of integer ids: its distinct ids coded in `state`'s table.
fn add_ints(state: &mut OpenGroups, ids: &[i64], labels: &[i8], scores: &[f64], w: Option<&[f64]>) {
    let (codes, distinct) = crate::gauc::codes_of_ids(ids).unwrap();
    let table: Vec<u32> = distinct
        .iter()
        .map(|&id| state.ids.code_any_int(id).unwrap())
        .collect();
    let batch = Batch {
        codes: &codes,
        labels,
        scores: Scores::F64(scores),
        weights: w,
        group_weight: None,
    };
    state.add(&table, batch);
}

#[test]
fn rows_split_across_updates_and_states_group_as_all_the_rows() {
    let mut next = stream(0x2545_F491_4F6C_DD1D);
    let values = [0.0, 0.25, 0.5, 0.125, 0.875, 1.0];
    for round in 0..60 {
        let n = 2 + (next() % 300) as usize;
        let n_groups = 1 + next() % 20;
        let ids: Vec<i64> = (0..n)
            .map(|_| (next() % n_groups) as i64 * 11 - 30)
            .collect();
        let labels: Vec<i8> = (0..n).map(|_| next().is_multiple_of(3) as i8).collect();
        let scores: Vec<f64> = (0..n).map(|_| values[(next() % 6) as usize]).collect();
        let weighted = round % 2 == 1;
        let weights: Vec<f64> = (0..n).map(|_| 0.5 * (1 + next() % 4) as f64).collect();
        // the rows cut in 4 updates over two states; the second's absorbed
        let cuts = [0, n / 4, n / 2, 3 * n / 4, n];
        let (mut a, mut b) = (OpenGroups::default(), OpenGroups::default());
        for (k, w) in cuts.windows(2).enumerate() {
            let r = w[0]..w[1];
            if r.is_empty() {
                continue;
            }
            // the first update of a weighted round has no weights: its rows weigh 1
            let given = (weighted && k > 0).then(|| &weights[r.clone()]);
            let state = if k % 2 == 0 { &mut a } else { &mut b };
            add_ints(
                state,
                &ids[r.clone()],
                &labels[r.clone()],
                &scores[r],
                given,
            );
        }
        a.absorb(&b).unwrap();
        assert_eq!(a.len(), n);
        // every row in the order a and b held them: the state's rows, ungrouped
        let order: Vec<usize> = cuts
            .windows(2)
            .enumerate()
            .filter(|(k, _)| k % 2 == 0)
            .chain(cuts.windows(2).enumerate().filter(|(k, _)| k % 2 == 1))
            .flat_map(|(_, w)| w[0]..w[1])
            .collect();
        let mut row_weights = weights.clone();
        if weighted {
            row_weights[..cuts[1]].iter_mut().for_each(|w| *w = 1.0);
        }
        let g = a.grouped();
        let k = a.ids.len();
        assert!(g.codes.windows(2).all(|w| w[0] <= w[1]));
        let held_ids = a.ids.ints();
        let mine_codes: Vec<i32> = order
            .iter()
            .map(|&i| held_ids.iter().position(|&x| x == ids[i]).unwrap() as i32)
            .collect();
        let mine_labels: Vec<i8> = order.iter().map(|&i| labels[i]).collect();
        let mine_scores: Vec<f64> = order.iter().map(|&i| scores[i]).collect();
        let mine_weights: Vec<f64> = order.iter().map(|&i| row_weights[i]).collect();
        // every score an f32 exactly: held as f32, handed out as f32
        let GroupedScores::F32(grouped_scores) = &g.scores else {
            panic!("the scores are f32 exactly");
        };
        let grouped_scores: Vec<f64> = grouped_scores.iter().map(|&x| x as f64).collect();
        if weighted {
            let w = g.weights.as_ref().unwrap();
            // the same floats (NaN for a group of one class)
            let bits = |(a, p, q, _): crate::gauc::WeightedGroups| {
                [a, p, q].map(|v| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>())
            };
            let got = weighted_group_aucs(&g.codes, k, &g.labels, &grouped_scores, w);
            let want =
                weighted_group_aucs(&mine_codes, k, &mine_labels, &mine_scores, &mine_weights);
            assert_eq!(bits(got), bits(want));
        } else {
            assert!(g.weights.is_none());
            let got = pair_counts(&g.codes, k, &g.labels, &grouped_scores);
            let want = pair_counts(&mine_codes, k, &mine_labels, &mine_scores);
            assert_eq!(got, want);
        }
        // the groups in order of their first row, each group's rows in the order held
        let mut first: Vec<i32> = Vec::new();
        for &c in &mine_codes {
            if !first.contains(&c) {
                first.push(c);
            }
        }
        assert_eq!(first, (0..k as i32).collect::<Vec<_>>());
        for c in 0..k as i32 {
            let want: Vec<f64> = (0..n)
                .filter(|&i| mine_codes[i] == c)
                .map(|i| mine_scores[i])
                .collect();
            let got: Vec<f64> = (0..n)
                .filter(|&i| g.codes[i] == c)
                .map(|i| grouped_scores[i])
                .collect();
            assert_eq!(got, want);
        }
    }
}

#[test]
fn scores_widen_and_string_ids_join_int_ids() {
    let mut a = OpenGroups::default();
    add_ints(&mut a, &[7, 8, 7], &[1, 0, 0], &[0.5, 0.25, 1.0], None);
    assert!(matches!(a.scores, Values::Single(_)));
    let mut b = OpenGroups::default();
    let table: Vec<u32> = [b"8".as_slice(), b"x"]
        .iter()
        .map(|t| b.ids.code_text(t).unwrap())
        .collect();
    let batch = Batch {
        codes: &[0, 1, 0],
        labels: &[1, 1, 0],
        scores: Scores::F64(&[0.1, 0.2, 0.3]),
        weights: None,
        group_weight: None,
    };
    b.add(&table, batch);
    a.absorb(&b).unwrap();
    assert!(a.ids.strings());
    assert_eq!(a.ids.len(), 3);
    assert_eq!(a.group.to_vec(), vec![0, 1, 0, 1, 2, 1]);
    let g = a.grouped();
    assert_eq!(g.codes, vec![0, 0, 1, 1, 1, 2]);
    assert_eq!(g.labels, vec![1, 0, 0, 1, 0, 1]);
    let GroupedScores::F64(s) = g.scores else {
        panic!("0.1 is not an f32");
    };
    assert_eq!(s, vec![0.5, 1.0, 0.25, 0.1, 0.3, 0.2]);
    assert!(a.memory_bytes() >= 6 * 13);
}

#[test]
fn group_weights_join_and_differences_are_kept() {
    let mut a = OpenGroups::default();
    let one = |state: &mut OpenGroups, ids: &[i64], gw: &[f64]| {
        let table: Vec<u32> = ids
            .iter()
            .map(|&x| state.ids.code_any_int(x).unwrap())
            .collect();
        let codes: Vec<i32> = (0..ids.len() as i32).collect();
        let labels = vec![0i8; ids.len()];
        let scores = vec![0.5f64; ids.len()];
        let batch = Batch {
            codes: &codes,
            labels: &labels,
            scores: Scores::F64(&scores),
            weights: None,
            group_weight: Some(gw),
        };
        state.add(&table, batch);
    };
    one(&mut a, &[1, 2], &[2.0, 5.0]);
    one(&mut a, &[3, 1], &[1.0, 2.0]);
    assert_eq!(a.group_weights(), Some(vec![2.0, 5.0, 1.0]));
    assert!(a.differ().is_empty());
    let mut b = OpenGroups::default();
    one(&mut b, &[4, 2], &[3.0, 4.0]);
    one(&mut b, &[2], &[6.0]);
    assert_eq!(b.differ(), vec![1]);
    a.absorb(&b).unwrap();
    assert_eq!(a.group_weights(), Some(vec![2.0, 5.0, 1.0, 3.0]));
    // group 2: 5 here, 4 and 6 in the other
    assert_eq!(a.differ(), vec![1]);
    assert!(!a.custom.without);
    add_ints(&mut a, &[9], &[1], &[0.5], None);
    assert!(a.custom.without);
    assert_eq!(OpenGroups::default().group_weights(), None);
}
