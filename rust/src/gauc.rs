//! Per-group AUC (GAUC) without sorting the majority class.
//!
//! Rows carry a dense group code. Only the rows of the globally rarer class are
//! gathered per group and sorted; every row of the other class is streamed in input
//! order and binary-searched in its group's sorted segment: exact integer counts
//! (ties count one half), O(n log m_g).
//!
//! A group's AUC is `2U / (2 P N)` of its exact integers, rounded once: with sample
//! weights, each label's weights in units of its lowest bit, summed as the weighted
//! ROC AUC sums a score range ([`crate::runs::weighted_sums`]), so that a group's AUC
//! is the float the weighted ROC AUC of its rows alone gives, in any split of the
//! groups and any row order.

use rayon::prelude::*;
use std::cmp::Ordering;

use crate::runs::{auc_of, weighted_sums, PerLabel, Rounded, U256};
use crate::{csr, encode, sums, threads};
use rustc_hash::FxHashMap;

pub mod open;

/// Rows and positives of each group.
pub fn group_counts(codes: &[i32], n_groups: usize, labels: &[i8]) -> (Vec<i64>, Vec<i64>) {
    let mut rows = vec![0i64; n_groups];
    let mut positives = vec![0i64; n_groups];
    for (&g, &l) in codes.iter().zip(labels) {
        rows[g as usize] += 1;
        positives[g as usize] += l as i64;
    }
    (rows, positives)
}

/// A score dtype of the pair counts: float64, or float32 (read exactly as float64),
/// so that rows held as float32 are counted without a float64 copy.
pub trait Score: Copy + Sync + Into<f64> {}
impl Score for f64 {}
impl Score for f32 {}

/// CSR of the minority-class scores by group (`counts`: minority rows per group).
pub fn gather_minority<S: Score>(
    codes: &[i32],
    labels: &[i8],
    scores: &[S],
    minority: i8,
    counts: &[i64],
) -> (Vec<i64>, Vec<f64>) {
    let n_groups = counts.len();
    let mut offsets = vec![0i64; n_groups + 1];
    for g in 0..n_groups {
        offsets[g + 1] = offsets[g] + counts[g];
    }
    let mut cursor: Vec<i64> = offsets[..n_groups].to_vec();
    let mut out = vec![0.0f64; offsets[n_groups] as usize];
    for i in 0..codes.len() {
        if labels[i] == minority {
            let g = codes[i] as usize;
            out[cursor[g] as usize] = scores[i].into();
            cursor[g] += 1;
        }
    }
    (offsets, out)
}

fn float_order(a: &f64, b: &f64) -> Ordering {
    a.partial_cmp(b).unwrap_or(Ordering::Equal)
}

/// Sort each segment `values[offsets[g]..offsets[g + 1]]` ascending, in parallel
/// over groups when there are many rows.
pub fn sort_segments(values: &mut [f64], offsets: &[i64]) {
    let mut segments = threads::split_at_bounds(values, offsets);
    if segments.len() > 1 && offsets[offsets.len() - 1] as usize >= threads::PARALLEL_ROWS {
        threads::install(|| {
            segments
                .par_iter_mut()
                .for_each(|s| s.sort_unstable_by(float_order))
        });
    } else {
        segments
            .iter_mut()
            .for_each(|s| s.sort_unstable_by(float_order));
    }
}

#[inline(always)]
fn lower_bound(seg: &[f64], x: f64) -> usize {
    seg.partition_point(|&v| v < x)
}

#[inline(always)]
fn upper_bound(seg: &[f64], x: f64) -> usize {
    seg.partition_point(|&v| v <= x)
}

/// The rows of the minority class: its label, and their scores by group
/// ([`gather_minority`]), each segment `scores[offsets[g]..offsets[g + 1]]` sorted
/// ascending ([`sort_segments`]).
#[derive(Clone, Copy)]
pub struct Minority<'a> {
    pub label: i8,
    pub offsets: &'a [i64],
    pub scores: &'a [f64],
}

/// Twice the pairs that a majority row of score `x` wins for the positives
/// against `sorted` (its group's minority scores, ascending; `positive`: the
/// minority is the positives): a positive above a negative counts 2, a tie 1.
#[inline(always)]
fn two_u_of(sorted: &[f64], x: f64, positive: bool) -> i64 {
    let m = sorted.len();
    let below = lower_bound(sorted, x);
    let below_eq = if below < m && sorted[below] == x {
        below + upper_bound(&sorted[below..], x)
    } else {
        below
    };
    let ties = (below_eq - below) as i64;
    if positive {
        2 * (m - below_eq) as i64 + ties // a negative: positives above it win
    } else {
        2 * below as i64 + ties // a positive: negatives below it lose
    }
}

/// Most rows of a block of [`stream_pair_counts`] grouped before they are
/// searched (at least 2^16, else 16 per group).
const BLOCK: usize = 1 << 20;

/// Rows per run of one group above which a chunk's rows are searched in order.
const LONG_RUNS: usize = 8;

/// Twice the Mann-Whitney U of each group, streaming the majority rows in
/// `n_chunks` chunks (integers: the chunks do not change the result). A chunk
/// whose groups are interleaved (runs of one group shorter than [`LONG_RUNS`]
/// rows on average, as in a shuffled log) is read in blocks (16 rows a group, from
/// 2^16 to [`BLOCK`] rows; where a block holds 4 rows or more a group), each block's majority
/// rows grouped by a counting sort ([`csr::group_by`]) before they are searched:
/// a group's segment is then read once a block rather than once a row, the
/// groups in order.
pub fn stream_pair_counts<S: Score>(
    codes: &[i32],
    n_groups: usize,
    labels: &[i8],
    scores: &[S],
    minority: Minority<'_>,
    n_chunks: usize,
) -> Vec<i64> {
    let Minority {
        label: minority,
        offsets,
        scores: seg,
    } = minority;
    let n = codes.len();
    let n_chunks = n_chunks.max(1);
    let segment = |g: usize| &seg[offsets[g] as usize..offsets[g + 1] as usize];
    let positive = minority == 1;
    let run = |c: usize| {
        let mut acc = vec![0i64; n_groups];
        let (lo, hi) = (n * c / n_chunks, n * (c + 1) / n_chunks);
        let block = (16 * n_groups).clamp(1 << 16, BLOCK).min(hi - lo).max(1);
        let in_order = block < 4 * n_groups
            || hi - lo
                >= LONG_RUNS * (codes[lo..hi].windows(2).filter(|w| w[0] != w[1]).count() + 1);
        if in_order {
            // rows in long runs of a group, or too few rows a group in a block
            for i in lo..hi {
                if labels[i] == minority {
                    continue;
                }
                let g = codes[i] as usize;
                let s = segment(g);
                if !s.is_empty() {
                    acc[g] += two_u_of(s, scores[i].into(), positive);
                }
            }
            return acc;
        }
        // interleaved groups: each block's majority rows grouped first (the
        // minority rows in a last bucket), so a group's segment is read once a block
        for start in (lo..hi).step_by(block) {
            let end = (start + block).min(hi);
            let (by_group, values) = csr::group_by(
                end - start,
                n_groups + 1,
                |i| {
                    if labels[start + i] == minority {
                        n_groups
                    } else {
                        codes[start + i] as usize
                    }
                },
                |i| scores[start + i].into(),
            );
            for (g, a) in acc.iter_mut().enumerate() {
                let s = segment(g);
                let rows = &values[by_group[g] as usize..by_group[g + 1] as usize];
                if !s.is_empty() {
                    *a += rows.iter().map(|&x| two_u_of(s, x, positive)).sum::<i64>();
                }
            }
        }
        acc
    };
    let parts: Vec<Vec<i64>> = if n_chunks == 1 {
        vec![run(0)]
    } else {
        threads::install(|| (0..n_chunks).into_par_iter().map(run).collect())
    };
    let mut out = vec![0i64; n_groups];
    for part in parts {
        for (o, p) in out.iter_mut().zip(part) {
            *o += p;
        }
    }
    out
}
/// Per group: its rows, its positives and twice its Mann-Whitney U (exact
/// integers, a tie counting one half): the rows of the globally rarer class
/// gathered by group and sorted, every row of the other searched in its group's.
pub fn pair_counts<S: Score>(
    codes: &[i32],
    n_groups: usize,
    labels: &[i8],
    scores: &[S],
) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
    let (rows, positives) = group_counts(codes, n_groups, labels);
    let n_pos: i64 = positives.iter().sum();
    let minority: i8 = if n_pos <= codes.len() as i64 - n_pos {
        1
    } else {
        0
    };
    let negatives: Vec<i64>;
    let counts: &[i64] = if minority == 1 {
        &positives
    } else {
        negatives = rows.iter().zip(&positives).map(|(r, p)| r - p).collect();
        &negatives
    };
    let (offsets, mut seg) = gather_minority(codes, labels, scores, minority, counts);
    sort_segments(&mut seg, &offsets);
    let minority = Minority {
        label: minority,
        offsets: &offsets,
        scores: &seg,
    };
    let n_chunks = sums::chunks_for(codes.len());
    let two_u = stream_pair_counts(codes, n_groups, labels, scores, minority, n_chunks);
    (rows, positives, two_u)
}

/// The AUC of a group of `rows` rows, `positives` of them positive, whose pairs count
/// `two_u` (twice its Mann-Whitney U): `2U / (2 P N)` of the exact integers rounded
/// once ([`auc_of`]: one float division while `2 P N` is below 2^53), NaN without
/// both classes.
pub fn pair_auc(two_u: i64, rows: i64, positives: i64) -> f64 {
    let wide = |x: i64| x as u128; // counts are not negative
    auc_of(
        U256::from(wide(two_u)),
        wide(positives),
        wide(rows - positives),
    )
}

/// Per group: its rows, its positives and its AUC ([`pair_counts`], [`pair_auc`]).
pub fn pair_aucs<S: Score>(
    codes: &[i32],
    n_groups: usize,
    labels: &[i8],
    scores: &[S],
) -> (Vec<i64>, Vec<i64>, Vec<f64>) {
    let (rows, positives, two_u) = pair_counts(codes, n_groups, labels, scores);
    let aucs = (0..n_groups)
        .map(|g| pair_auc(two_u[g], rows[g], positives[g]))
        .collect();
    (rows, positives, aucs)
}

/// The buffers of one group's rows, reused from group to group.
#[derive(Default)]
struct GroupRows {
    rows: Vec<(f64, bool, f64)>,
    items: Vec<(u64, u64)>,
}

/// Per label, where a group's weights were rounded ([`crate::runs::Rounded`]).
pub type GroupRounded = PerLabel<Option<Rounded>>;

impl GroupRows {
    /// AUC, weighted positives and weighted negatives of the rows `rows`
    /// ([`crate::runs::WeightedSums`]), and each label's rounding where its weights
    /// were rounded (None: every bit kept).
    fn weighted_auc(
        &mut self,
        rows: &[i64],
        labels: &[i8],
        scores: &[f64],
        weights: &[f64],
    ) -> (f64, f64, f64, Option<GroupRounded>) {
        // gathered once: the sums read the rows twice
        self.rows.clear();
        self.rows.extend(rows.iter().map(|&i| {
            let i = i as usize;
            (scores[i], labels[i] == 1, weights[i])
        }));
        let sums = weighted_sums(self.rows.iter().copied(), &mut self.items);
        let w = sums.weights();
        let rounded = (!sums.exact()).then(|| sums.rounded());
        (sums.auc(), w.pos, w.neg, rounded)
    }
}

/// [`weighted_group_aucs`]: per group its AUC, weighted positives and weighted
/// negatives, and the groups whose weights were rounded (code and rounding, in order).
pub type WeightedGroups = (Vec<f64>, Vec<f64>, Vec<f64>, Vec<(usize, GroupRounded)>);

/// Per group: its weighted AUC (NaN without a weight of each label), weighted
/// positives and weighted negatives, each the float that the weighted ROC AUC of the
/// group's rows alone sums ([`crate::runs::WeightedSums`]), whatever the order of
/// the rows (parallel over groups), and the groups one of whose labels' weights span
/// more than the sums hold exactly ([`crate::runs::Rounded`]). Rows are grouped with
/// the counting sort of [`csr::group_rows`].
pub fn weighted_group_aucs(
    codes: &[i32],
    n_groups: usize,
    labels: &[i8],
    scores: &[f64],
    weights: &[f64],
) -> WeightedGroups {
    let n = codes.len();
    let (offsets, by_group) = csr::group_rows(codes, n_groups);
    let one = |buf: &mut GroupRows, g: usize| {
        let (a, b) = (offsets[g] as usize, offsets[g + 1] as usize);
        buf.weighted_auc(&by_group[a..b], labels, scores, weights)
    };
    let per_group: Vec<(f64, f64, f64, Option<GroupRounded>)> =
        if n >= threads::PARALLEL_ROWS && n_groups > 1 {
            threads::install(|| {
                (0..n_groups)
                    .into_par_iter()
                    .map_init(GroupRows::default, one)
                    .collect()
            })
        } else {
            let mut buf = GroupRows::default();
            (0..n_groups).map(|g| one(&mut buf, g)).collect()
        };
    let mut aucs = Vec::with_capacity(n_groups);
    let mut w_pos = Vec::with_capacity(n_groups);
    let mut w_neg = Vec::with_capacity(n_groups);
    let mut rounded = Vec::new();
    for (g, (a, p, q, r)) in per_group.into_iter().enumerate() {
        aucs.push(a);
        w_pos.push(p);
        w_neg.push(q);
        rounded.extend(r.map(|r| (g, r)));
    }
    (aucs, w_pos, w_neg, rounded)
}

/// The weight of each group in a GAUC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weighting {
    /// Its rows (its total sample weight).
    Impressions,
    /// Its positives (their total sample weight).
    Clicks,
    /// One.
    Uniform,
}

impl Weighting {
    /// The weighting of its Python name, or None.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "impressions" => Some(Self::Impressions),
            "clicks" => Some(Self::Clicks),
            "uniform" => Some(Self::Uniform),
            _ => None,
        }
    }
}

/// Dense codes of integer ids, in order of first appearance, and the distinct ids in
/// the order of their codes: a direct-address table over a compact range of ids (as
/// the Python layer's `factorize`), a hash table otherwise. None beyond `i32` codes.
pub fn codes_of_ids(ids: &[i64]) -> Option<(Vec<i32>, Vec<i64>)> {
    let n = ids.len();
    if n == 0 || n > i32::MAX as usize {
        return None;
    }
    let (lo, hi) = ids
        .iter()
        .fold((i64::MAX, i64::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let span = hi as i128 - lo as i128 + 1;
    if span <= 4 * n as i128 + 1024 {
        let (codes, first) = encode::factorize_dense(ids, lo, span as usize);
        return Some((codes, first.iter().map(|&i| ids[i as usize]).collect()));
    }
    let mut table: FxHashMap<i64, i32> = FxHashMap::default();
    let mut distinct = Vec::new();
    let codes = ids
        .iter()
        .map(|&v| {
            let next = table.len() as i32;
            *table.entry(v).or_insert_with(|| {
                distinct.push(v);
                next
            })
        })
        .collect();
    Some((codes, distinct))
}

/// Per group, its AUC (None where undefined) and its weight in the mean, as the
/// Python layer's `grouped_auc_kernel` and `_group_weights` compute them; None where
/// a group's weights were rounded (the Python layer says so with the value).
pub fn group_aucs(
    codes: &[i32],
    n_groups: usize,
    labels: &[i8],
    scores: &[f64],
    weights: Option<&[f64]>,
    weighting: Weighting,
) -> Option<Vec<(Option<f64>, f64)>> {
    let weight_of = |rows: f64, pos: f64| match weighting {
        Weighting::Impressions => rows,
        Weighting::Clicks => pos,
        Weighting::Uniform => 1.0,
    };
    let defined = |auc: f64| (!auc.is_nan()).then_some(auc);
    let Some(weights) = weights else {
        let (rows, positives, aucs) = pair_aucs(codes, n_groups, labels, scores);
        return Some(
            (0..n_groups)
                .map(|g| {
                    let weight = weight_of(rows[g] as f64, positives[g] as f64);
                    (defined(aucs[g]), weight)
                })
                .collect(),
        );
    };
    let (aucs, w_pos, w_neg, rounded) =
        weighted_group_aucs(codes, n_groups, labels, scores, weights);
    rounded.is_empty().then(|| {
        (0..n_groups)
            .map(|g| (defined(aucs[g]), weight_of(w_pos[g] + w_neg[g], w_pos[g])))
            .collect()
    })
}

/// GAUC of validated rows: the exact sum of `weight x AUC` over the groups with a
/// defined AUC over the exact sum of their weights, each sum rounded once (as the
/// Python layer's `gauc_sums` and `gauc_value`); NaN when those weights sum to 0;
/// None where a group's weights were rounded ([`group_aucs`]).
pub fn gauc(
    codes: &[i32],
    n_groups: usize,
    labels: &[i8],
    scores: &[f64],
    weights: Option<&[f64]>,
    weighting: Weighting,
) -> Option<f64> {
    let mut weighted = [0i64; sums::SIZE];
    let mut total = [0i64; sums::SIZE];
    for (auc, w) in group_aucs(codes, n_groups, labels, scores, weights, weighting)? {
        if let Some(auc) = auc {
            sums::add(&mut weighted, w * auc);
            sums::add(&mut total, w);
        }
    }
    // fewer than 2^31 groups: no digit needs a carry before the rounding
    let total = sums::rounded(&total);
    Some(if total > 0.0 {
        sums::rounded(&weighted) / total
    } else {
        f64::NAN
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::stream;

    #[test]
    fn pair_counts_of_two_groups() {
        // group 0: pos 0.9, neg 0.1, 0.9 -> 2U = 2 + 1 = 3; group 1: pos 0.2, neg 0.5 -> 0
        let codes = [0, 1, 0, 1, 0];
        let labels = [1, 1, 0, 0, 0];
        let scores = [0.9, 0.2, 0.1, 0.5, 0.9];
        let (rows, pos, two_u) = pair_counts(&codes, 2, &labels, &scores);
        assert_eq!((rows, pos, two_u), (vec![3, 2], vec![1, 1], vec![3, 0]));
    }

    #[test]
    fn interleaved_rows_count_as_grouped_ones() {
        // rows of many groups interleaved (read in blocks, each grouped first) and
        // the same rows sorted by group (read in order): the same pair counts, and
        // those of a per-group pair loop; ties, -0.0, either class the rarer, one
        // block and several
        let mut next = stream(0x9E37_79B9_7F4A_7C15);
        let values = [0.0, -0.0, 0.25, 0.5, 0.75, 1.0];
        for (n, n_groups, rare_positives) in [
            (3_000usize, 20u64, true),
            (3_000, 20, false),
            (300_000, 300, true),
        ] {
            let codes: Vec<i32> = (0..n).map(|_| (next() % n_groups) as i32).collect();
            let labels: Vec<i8> = (0..n)
                .map(|_| (next().is_multiple_of(4) == rare_positives) as i8)
                .collect();
            let scores: Vec<f64> = (0..n).map(|_| values[(next() % 6) as usize]).collect();
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by_key(|&i| codes[i]);
            let sorted_codes: Vec<i32> = order.iter().map(|&i| codes[i]).collect();
            let sorted_labels: Vec<i8> = order.iter().map(|&i| labels[i]).collect();
            let sorted_scores: Vec<f64> = order.iter().map(|&i| scores[i]).collect();
            let k = n_groups as usize;
            let got = pair_counts(&codes, k, &labels, &scores);
            let want = pair_counts(&sorted_codes, k, &sorted_labels, &sorted_scores);
            assert_eq!(got, want);
            // one chunk: several blocks of 2^16 rows
            let minority = if rare_positives { 1 } else { 0 };
            let counts: Vec<i64> = (0..k)
                .map(|g| got.1[g] + (1 - minority as i64) * (got.0[g] - 2 * got.1[g]))
                .collect();
            let (offsets, mut seg) = gather_minority(&codes, &labels, &scores, minority, &counts);
            sort_segments(&mut seg, &offsets);
            let minority = Minority {
                label: minority,
                offsets: &offsets,
                scores: &seg,
            };
            for chunks in [1, 3] {
                let two_u = stream_pair_counts(&codes, k, &labels, &scores, minority, chunks);
                assert_eq!(two_u, got.2);
            }
            if n <= 3_000 {
                for g in 0..k {
                    let rows: Vec<usize> = (0..n).filter(|&i| codes[i] == g as i32).collect();
                    let mut two_u = 0i64;
                    for &i in &rows {
                        for &j in &rows {
                            if labels[i] == 1 && labels[j] == 0 {
                                two_u += 2 * (scores[i] > scores[j]) as i64;
                                two_u += (scores[i] == scores[j]) as i64;
                            }
                        }
                    }
                    assert_eq!(got.2[g], two_u, "group {g}");
                }
            }
        }
    }

    #[test]
    fn a_group_auc_past_2_to_53_pairs_is_rounded_once() {
        // P = N = 2^27 + 1: P N = 2^54 + 2^28 + 1 is not a float, and 2U = 2 P N / 3 an
        // AUC of 1/3 exactly; the float division of the float counts is an ulp above
        let p = (1i64 << 27) + 1;
        let two_u = 2 * p * p / 3;
        assert_eq!(pair_auc(two_u, 2 * p, p), 1.0 / 3.0);
        assert_eq!(two_u as f64 / (2.0 * (p * p) as f64), 0.33333333333333337);
        // P N = (2^27 + 1)(2^27 + 3), 2U = P N - 1: 1/2 - 1/(2 P N) rounds to 1/2
        let n = p + 2;
        assert_eq!(pair_auc(p * n - 1, p + n, p), 0.5);
        assert_eq!(
            (p * n - 1) as f64 / (2.0 * (p * n) as f64),
            0.4999999999999999
        );
        // fewer pairs: the one float division; a class absent: NaN
        assert_eq!(pair_auc(7, 5, 2), 7.0 / 12.0);
        assert!(pair_auc(0, 3, 3).is_nan() && pair_auc(0, 3, 0).is_nan());
    }

    #[test]
    fn a_groups_weighted_auc_is_that_of_its_rows_alone() {
        // weights from subnormals to 1e300, tied scores: each group's AUC and weights are
        // those of the weighted ROC AUC's sums of its rows (a score range of them)
        let mut next = stream(0x0DDB_1A5E_5BAD_5EED);
        let tiers = [5e-324, 3e-320, 1e-300, 1e-10, 0.1, 1.0, 3.0, 1e10, 1e300];
        for round in 0..200 {
            let n = 2 + (next() % 60) as usize;
            let k = 1 + (next() % 5) as usize;
            let codes: Vec<i32> = (0..n).map(|_| (next() % k as u64) as i32).collect();
            let labels: Vec<i8> = (0..n).map(|_| (next() % 2) as i8).collect();
            let scores: Vec<f64> = (0..n)
                .map(|_| [0.0, 0.5, 1.0][(next() % 3) as usize])
                .collect();
            let spread = if round % 2 == 0 { 9 } else { 3 }; // wide, or within 2^90
            let low = if spread == 3 { 3 } else { 0 };
            let weights: Vec<f64> = (0..n)
                .map(|_| {
                    let tier = tiers[low + (next() % spread) as usize];
                    tier * (1 + next() % 7) as f64
                })
                .collect();
            let (aucs, w_pos, w_neg, rounded) =
                weighted_group_aucs(&codes, k, &labels, &scores, &weights);
            for g in 0..k {
                let side = |positive: bool| {
                    let rows =
                        (0..n).filter(|&i| codes[i] == g as i32 && (labels[i] == 1) == positive);
                    let (s, w): (Vec<f64>, Vec<f64>) =
                        rows.map(|i| (scores[i], weights[i])).unzip();
                    (s, w)
                };
                let ((ps, pw), (ns, nw)) = (side(true), side(false));
                let sums = crate::auc::weighted_range(&ps, &pw, &ns, &nw).sums;
                let want = sums.auc();
                assert_eq!(
                    aucs[g].to_bits(),
                    want.to_bits(),
                    "group {g}: {ps:?} {pw:?} {ns:?} {nw:?}"
                );
                let w = sums.weights();
                assert_eq!((w_pos[g], w_neg[g]), (w.pos, w.neg));
                // a group whose weights were rounded is listed, with its sums' rounding
                let listed = rounded.iter().find(|r| r.0 == g).map(|r| r.1);
                assert_eq!(listed, (!sums.exact()).then(|| sums.rounded()));
                if sums.exact() {
                    // the exact sum of each label's weights rounded once
                    let exact = |w: &[f64]| {
                        let mut acc = [0i64; sums::SIZE];
                        w.iter().for_each(|&x| sums::add(&mut acc, x));
                        sums::rounded(&acc)
                    };
                    assert_eq!((w.pos, w.neg), (exact(&pw), exact(&nw)));
                }
            }
        }
    }

    /// GAUC by the definition: each group's pairs counted one by one, its AUC and
    /// weight, then the exact sums.
    fn gauc_by_pairs(ids: &[i64], labels: &[i8], scores: &[f64], weighting: Weighting) -> f64 {
        let mut distinct = ids.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        let (mut weighted, mut total) = ([0i64; sums::SIZE], [0i64; sums::SIZE]);
        for g in distinct {
            let rows: Vec<usize> = (0..ids.len()).filter(|&i| ids[i] == g).collect();
            let (mut two_u, mut pos) = (0i64, 0i64);
            for &i in &rows {
                pos += labels[i] as i64;
                for &j in &rows {
                    if labels[i] == 1 && labels[j] == 0 {
                        two_u += 2 * (scores[i] > scores[j]) as i64;
                        two_u += (scores[i] == scores[j]) as i64;
                    }
                }
            }
            let pairs = pos * (rows.len() as i64 - pos);
            if pairs == 0 {
                continue;
            }
            let w = match weighting {
                Weighting::Impressions => rows.len() as f64,
                Weighting::Clicks => pos as f64,
                Weighting::Uniform => 1.0,
            };
            sums::add(&mut weighted, w * (two_u as f64 / (2.0 * pairs as f64)));
            sums::add(&mut total, w);
        }
        let total = sums::rounded(&total);
        if total > 0.0 {
            sums::rounded(&weighted) / total
        } else {
            f64::NAN
        }
    }

    #[test]
    fn codes_of_compact_and_wide_ids() {
        let ids = [7, 3, 7, -2, 3];
        assert_eq!(
            codes_of_ids(&ids),
            Some((vec![0, 1, 0, 2, 1], vec![7, 3, -2]))
        );
        let wide = [i64::MAX, 5, i64::MIN, 5, i64::MAX];
        assert_eq!(
            codes_of_ids(&wide),
            Some((vec![0, 1, 2, 1, 0], vec![i64::MAX, 5, i64::MIN]))
        );
        assert_eq!(codes_of_ids(&[]), None);
    }

    #[test]
    fn gauc_is_the_mean_of_pair_counts() {
        let mut next = stream(0x1234_5678_9ABC_DEF1);
        let values = [0.0, 0.1, 0.5, 0.5, 0.9, 1.0];
        for round in 0..300 {
            let n = 1 + (next() % 80) as usize;
            let n_groups = 1 + next() % if round % 2 == 0 { 4 } else { 40 };
            let stride = if round % 3 == 0 { 1 << 40 } else { 1 }; // wide ids: a hash table
            let ids: Vec<i64> = (0..n)
                .map(|_| (next() % n_groups) as i64 * stride)
                .collect();
            let labels: Vec<i8> = (0..n).map(|_| next().is_multiple_of(3) as i8).collect();
            let scores: Vec<f64> = (0..n).map(|_| values[(next() % 6) as usize]).collect();
            let (codes, distinct) = codes_of_ids(&ids).unwrap();
            let k = distinct.len();
            let ones = vec![1.0; n];
            for weighting in [
                Weighting::Impressions,
                Weighting::Clicks,
                Weighting::Uniform,
            ] {
                let want = gauc_by_pairs(&ids, &labels, &scores, weighting);
                let got = gauc(&codes, k, &labels, &scores, None, weighting).unwrap();
                assert!(
                    got == want || (got.is_nan() && want.is_nan()),
                    "{got} {want}"
                );
                // weights of 1: the same float (integer pair weights are exact)
                let got = gauc(&codes, k, &labels, &scores, Some(&ones), weighting).unwrap();
                assert!(
                    got == want || (got.is_nan() && want.is_nan()),
                    "{got} {want}"
                );
            }
        }
    }

    #[test]
    fn weighted_gauc_skips_groups_of_zero_weight_on_a_side() {
        // group 0: its only negative weighs 0 (skipped); group 1: AUC 1 with weight 3
        let codes = [0, 0, 1, 1];
        let labels = [1, 0, 1, 0];
        let scores = [0.9, 0.1, 0.8, 0.2];
        let weights = [1.0, 0.0, 2.0, 1.0];
        let value = gauc(
            &codes,
            2,
            &labels,
            &scores,
            Some(&weights),
            Weighting::Impressions,
        );
        assert_eq!(value, Some(1.0));
        let none = gauc(
            &codes[..2],
            1,
            &labels[..2],
            &scores[..2],
            Some(&weights[..2]),
            Weighting::Uniform,
        );
        assert!(none.is_some_and(f64::is_nan));
        // a group's positives spanning more than 126 bits: no value (the Python layer
        // computes it and says the weights were rounded)
        let wide = [1e300, 1.0, 1e-300, 1.0];
        let codes = [0, 0, 0, 0];
        let labels = [1, 0, 1, 0];
        let value = gauc(&codes, 1, &labels, &scores, Some(&wide), Weighting::Uniform);
        assert_eq!(value, None);
        let (_, _, _, rounded) = weighted_group_aucs(&codes, 1, &labels, &scores, &wide);
        assert!(rounded.len() == 1 && rounded[0].1.pos.is_some() && rounded[0].1.neg.is_none());
    }
}
