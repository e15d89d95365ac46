//! The metrics of a range of qrels users, one user at a time: the grade of each
//! recommended item looked up once, the list put in each tie rule's order once, and
//! every metric computed from those grades.

use std::ops::Range;

use super::inputs::Inputs;
use super::measures::{metric_from_hits, normalized_form, user_metric, UserList, UserMetric};
use super::order::{trec_order_into, worst_order_into};
use crate::spec::{
    is_count_kind, is_trec_kind, Discount, Empty, Missing, Spec, Ties, CG, DCG, HIT_RATIO, IDCG,
    NDCG, RBP,
};
use crate::trec::measures::{
    custom_dcg as custom_dcg_measure, missing_user_measure, user_measure, GainTable, UserGrades,
};
use crate::trec::ties::expected_measure;

/// The judged rows of one user keyed by run item code: an open-addressing table
/// sized by the most judged items of a user, each slot stamped with its user (so
/// it is never cleared). Most recommended items are unjudged: the table is kept
/// sparse (16 slots per judged item, up to 4096 slots), so that a lookup almost
/// always ends at its first, empty slot, a branch the CPU predicts.
struct JudgedTable {
    stamp: Vec<usize>,
    key: Vec<i32>,
    row: Vec<usize>,
    shift: u32,
}

impl JudgedTable {
    fn new(max_judged: usize) -> Self {
        let sparse = (16 * max_judged).min(1 << 12);
        let size = (2 * max_judged).max(sparse).max(2).next_power_of_two();
        JudgedTable {
            stamp: vec![usize::MAX; size],
            key: vec![0; size],
            row: vec![0; size],
            shift: 64 - size.trailing_zeros(),
        }
    }

    #[inline(always)]
    fn home(&self, key: i32) -> usize {
        ((key as u32 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// Row of `key` for user `u` (a later insert of the same key wins).
    #[inline]
    fn insert(&mut self, u: usize, key: i32, row: usize) {
        let mask = self.stamp.len() - 1;
        let mut s = self.home(key);
        while self.stamp[s] == u && self.key[s] != key {
            s = (s + 1) & mask;
        }
        self.stamp[s] = u;
        self.key[s] = key;
        self.row[s] = row;
    }

    #[inline]
    fn get(&self, u: usize, key: i32) -> Option<usize> {
        let mask = self.stamp.len() - 1;
        let mut s = self.home(key);
        while self.stamp[s] == u {
            if self.key[s] == key {
                return Some(self.row[s]);
            }
            s = (s + 1) & mask;
        }
        None
    }
}

/// Per-chunk scratch of the kernel (`evaluate_users`), each buffer as long as the
/// longest list.
pub(crate) struct Scratch {
    input: Vec<f64>,
    trec: Vec<f64>,
    /// the scores in trec's order: a block of scores equal as C floats holds doubles
    /// that differ, so its order moves them (the other orders keep the input's)
    trec_scores: Vec<f64>,
    ascending: Vec<f64>,
    descending: Vec<f64>,
    worst: Vec<f64>,
    positive: Vec<f64>,
    /// a metric's list after depth and judged-only, and its scores
    view: Vec<f64>,
    view_scores: Vec<f64>,
    rel: Vec<f64>,
    gains: Vec<f64>,
    cand: Vec<f64>,
    hpos: Vec<usize>,
    hgr: Vec<f64>,
    /// positions of the judged items in the list, ascending
    jpos: Vec<usize>,
    perm: Vec<usize>,
    block: Vec<(f64, usize)>,
    levels: GainTable,
    judged: Vec<i32>,
    /// one bit per run item code below `max_judged_code + 1`: the user's judged items
    judged_bits: Vec<u64>,
    table: JudgedTable,
}

impl Scratch {
    pub(crate) fn new(max_len: usize, max_judged: usize, n_judged_codes: usize) -> Self {
        let m = max_len.max(1);
        Scratch {
            input: vec![0.0; m],
            trec: vec![0.0; m],
            trec_scores: vec![0.0; m],
            ascending: vec![0.0; m],
            descending: vec![0.0; m],
            worst: vec![0.0; m],
            positive: vec![0.0; m],
            view: vec![0.0; m],
            view_scores: vec![0.0; m],
            rel: vec![0.0; m],
            gains: vec![0.0; m],
            cand: vec![0.0; m],
            hpos: vec![0; m],
            hgr: vec![0.0; m],
            jpos: Vec::with_capacity(m),
            perm: vec![0; m],
            block: Vec::new(),
            levels: GainTable::default(),
            judged: Vec::with_capacity(max_judged),
            judged_bits: vec![0; n_judged_codes.div_ceil(64)],
            table: JudgedTable::new(max_judged),
        }
    }
}

/// Which buffer holds the grades of a metric's order.
#[derive(Clone, Copy, PartialEq)]
enum Order {
    Input,
    Trec,
    Ascending,
    Descending,
    Worst,
}

/// The metrics of qrels users `users` into `values` and `aux` (rows of n_metrics);
/// `discounts` are the offset, clipped and reciprocal rank discounts.
pub(crate) fn evaluate_range(
    inputs: &Inputs<'_>,
    specs: &[Spec],
    discounts: [&[f64]; 3],
    users: Range<usize>,
    values: &mut [f64],
    aux: &mut [f64],
    s: &mut Scratch,
) {
    let (q, r) = (&inputs.judged, &inputs.ranked);
    let (item_map, user_map) = (inputs.item_map, inputs.user_map);
    let (u0, u1) = (users.start, users.end);
    let n_metrics = specs.len();
    let mut need_trec = false;
    let mut need_ascending = false;
    let mut need_descending = false;
    let mut need_worst = false;
    for sp in specs {
        need_trec |= sp.ties == Ties::Trec;
        need_ascending |= sp.ties == Ties::IdAscending;
        need_descending |= sp.ties == Ties::IdDescending;
        need_worst |= sp.ties == Ties::Worst;
    }
    need_trec &= !r.keys.is_empty();
    need_ascending &= !r.keys.is_empty();
    need_descending &= !r.keys.is_empty();
    for (u, &ru) in user_map.iter().enumerate().take(u1).skip(u0) {
        let out = (u - u0) * n_metrics;
        let (qa, qb) = (q.offsets[u] as usize, q.offsets[u + 1] as usize);
        let (mut a, mut n) = (0usize, 0usize);
        s.judged.clear();
        if ru >= 0 {
            a = r.offsets[ru as usize] as usize;
            n = r.offsets[ru as usize + 1] as usize - a;
            // the run codes of the judged items first: independent loads from the
            // item map (a cache miss each), then the inserts
            s.judged
                .extend(q.items[qa..qb].iter().map(|&i| item_map[i as usize]));
            for (t, &ri) in (qa..qb).zip(&s.judged) {
                if ri >= 0 {
                    s.table.insert(u, ri, t);
                    s.judged_bits[ri as usize >> 6] |= 1 << (ri & 63);
                }
            }
        }
        let bits = &s.judged_bits;
        s.jpos.clear();
        for (j, (g, &item)) in s.input[..n].iter_mut().zip(&r.items[a..a + n]).enumerate() {
            // unjudged items (most of them: one bit tells) are below every threshold
            let c = item as usize;
            let judged = c < bits.len() * 64 && bits[c >> 6] & (1 << (c & 63)) != 0;
            *g = match judged.then(|| s.table.get(u, item)).flatten() {
                Some(t) => {
                    s.jpos.push(j);
                    q.grades[t]
                }
                None => f64::NEG_INFINITY,
            };
        }
        for &ri in &s.judged {
            if ri >= 0 {
                s.judged_bits[ri as usize >> 6] = 0;
            }
        }
        let scores = &r.scores[a..a + n];
        let mut trec_differs = false;
        if need_trec && n > 1 {
            // no early exit: a pass that vectorizes (ties are rare)
            trec_differs = scores
                .windows(2)
                .fold(false, |tie, w| tie | (w[1] as f32 == w[0] as f32));
            if trec_differs {
                trec_order_into(
                    scores,
                    &r.items[a..a + n],
                    r.keys,
                    Ties::Trec,
                    &mut s.perm,
                    &mut s.block,
                );
                for j in 0..n {
                    s.trec[j] = s.input[s.perm[j]];
                    s.trec_scores[j] = scores[s.perm[j]];
                }
            }
        }
        let double_ties = (need_ascending || need_descending || need_worst)
            && n > 1
            && scores.windows(2).any(|w| w[1] == w[0]);
        let worst_differs = need_worst && double_ties;
        if worst_differs {
            worst_order_into(scores, &s.input[..n], &mut s.worst);
        }
        let ascending_differs = need_ascending && double_ties;
        let descending_differs = need_descending && double_ties;
        for (rule, differs) in [
            (Ties::IdAscending, ascending_differs),
            (Ties::IdDescending, descending_differs),
        ] {
            if !differs {
                continue;
            }
            trec_order_into(
                scores,
                &r.items[a..a + n],
                r.keys,
                rule,
                &mut s.perm,
                &mut s.block,
            );
            let out = if rule == Ties::IdAscending {
                &mut s.ascending
            } else {
                &mut s.descending
            };
            for (o, &p) in out[..n].iter_mut().zip(&s.perm[..n]) {
                *o = s.input[p];
            }
        }
        let mut rel_threshold = 0.0; // threshold of the cached n_rel, valid when have_rel
        let mut have_rel = false;
        let mut n_rel = 0i64;
        let mut hits_threshold = 0.0; // threshold and order of the cached hit list
        let mut hits_key = (Order::Input, false, 0usize, false); // (order, positive, depth, judged only)
        let mut have_hits = false;
        let any_nonpositive = scores.iter().fold(false, |any, &x| any | (x <= 0.0));
        let mut h = 0usize;
        for (m, sp) in specs.iter().enumerate() {
            let threshold = sp.threshold;
            if !have_rel || threshold != rel_threshold {
                // the grades are sorted descending: count the leading ones
                n_rel = q.desc[qa..qb]
                    .iter()
                    .take_while(|&&g| g >= threshold)
                    .count() as i64;
                rel_threshold = threshold;
                have_rel = true;
            }
            aux[out + m] = n_rel as f64;
            let kind = sp.kind;
            // counts (num_ret, num_rel, ...) are never skipped or set to 1
            let counts = is_count_kind(kind);
            let empty = if n_rel == 0 && !counts {
                sp.empty
            } else {
                Empty::Zero
            };
            if (ru < 0 && sp.missing == Missing::Skip) || empty == Empty::Skip {
                values[out + m] = f64::NAN;
                continue;
            }
            // hit_ratio is one pooled ratio: an empty user adds 0 hits and 0 items
            if empty == Empty::One && kind != HIT_RATIO {
                values[out + m] = 1.0;
                continue;
            }
            let trec_kind = is_trec_kind(kind);
            // the DCG family sums gains, earned from the gain threshold on
            let is_gain = kind == CG || kind == DCG || kind == IDCG || kind == NDCG;
            let custom_dcg = sp.custom_dcg();
            let gain_threshold = if is_gain {
                sp.gain_threshold
            } else {
                threshold
            };
            let ties = sp.ties;
            let mut order = Order::Input;
            if ties == Ties::Trec && trec_differs {
                order = Order::Trec;
            } else if ties == Ties::IdAscending && ascending_differs {
                order = Order::Ascending;
            } else if ties == Ties::IdDescending && descending_differs {
                order = Order::Descending;
            } else if ties == Ties::Worst && worst_differs {
                order = Order::Worst;
            }
            let Scratch {
                input,
                trec,
                trec_scores,
                ascending,
                descending,
                worst,
                positive: positive_buf,
                view,
                view_scores,
                rel,
                gains,
                cand,
                hpos,
                hgr,
                jpos,
                levels,
                ..
            } = &mut *s;
            let base: &[f64] = match order {
                Order::Input => input,
                Order::Trec => trec,
                Order::Ascending => ascending,
                Order::Descending => descending,
                Order::Worst => worst,
            };
            let mut grades: &[f64] = &base[..n];
            // the scores of the order's positions: a block tied as doubles shares its
            // score, so every order but trec's (ties as C floats) keeps the input's
            let order_scores: &[f64] = if order == Order::Trec {
                &trec_scores[..n]
            } else {
                scores
            };
            let mut list_scores: &[f64] = order_scores;
            // depth (-M) first, then the judged items only (-J)
            let depth = sp.depth.map_or(n, |d| d.min(n));
            let judged_only = sp.judged_only;
            if judged_only || depth < n {
                let mut w = 0;
                for (&g, &x) in base[..depth].iter().zip(&order_scores[..depth]) {
                    if !judged_only || g >= 0.0 {
                        view[w] = g;
                        view_scores[w] = x;
                        w += 1;
                    }
                }
                grades = &view[..w];
                list_scores = &view_scores[..w];
            }
            let len = grades.len();
            let mut positive = false;
            if sp.positive_scores && any_nonpositive && !is_gain {
                // an item scored <= 0 is never a hit (torchmetrics), its score as given
                for j in 0..len {
                    positive_buf[j] = if list_scores[j] > 0.0 {
                        grades[j]
                    } else {
                        f64::NEG_INFINITY
                    };
                }
                grades = &positive_buf[..len];
                positive = true;
            }
            let k = sp.k;
            if trec_kind || custom_dcg {
                if trec_kind && ru < 0 && sp.missing != Missing::Complete {
                    values[out + m] = 0.0; // every metric 0, the counts too
                    continue;
                }
                let judged = &q.desc[qa..qb];
                if trec_kind && ru < 0 {
                    values[out + m] = missing_user_measure(sp, judged, levels);
                    continue;
                }
                // graded RBP earns its gains from the gain threshold on (gain_grades);
                // binary RBP (P1 = 1) is relevance at the threshold
                let u = UserGrades {
                    ranked: grades,
                    judged,
                    threshold: if kind == RBP && sp.params[1] != 1.0 {
                        sp.gain_threshold
                    } else {
                        threshold
                    },
                };
                values[out + m] = if ties == Ties::Average {
                    // nan for the kinds without a closed form (refused by the Python layer)
                    expected_measure(sp, &u, list_scores, levels)
                } else if custom_dcg {
                    custom_dcg_measure(kind, &u, k, &sp.params, levels)
                } else {
                    user_measure(sp, &u, levels)
                };
                continue;
            }
            let (kind, k, ap_norm) = normalized_form(sp, n_rel, len);
            let metric = UserMetric {
                kind,
                k,
                threshold,
                gain_threshold,
                gain: sp.gain,
                ap_norm,
                ideal: sp.ideal,
                ties,
                gain_scale: 1.0,
            };
            let disc = discounts[match sp.discount {
                Discount::Offset => 0,
                Discount::Clipped => 1,
                Discount::Rank => 2,
            }];
            let list = UserList {
                grades,
                scores: list_scores,
                judged: &q.desc[qa..qb],
            };
            if ties == Ties::Average {
                let (v, _) = user_metric(&metric, &list, rel, gains, cand, disc);
                values[out + m] = v;
                continue;
            }
            let key = (order, positive, depth, judged_only);
            if !have_hits || gain_threshold != hits_threshold || key != hits_key {
                h = 0;
                if order == Order::Input && !judged_only && gain_threshold > f64::NEG_INFINITY {
                    // the list in input order (or its first `depth` rows, or with
                    // -inf for items scored <= 0): hits lie among the judged rows,
                    // every other row being -inf
                    for &j in jpos.iter().take_while(|&&j| j < len) {
                        let g = grades[j];
                        if g >= gain_threshold {
                            hpos[h] = j;
                            hgr[h] = g;
                            h += 1;
                        }
                    }
                } else {
                    for (j, &g) in grades.iter().enumerate() {
                        if g >= gain_threshold {
                            hpos[h] = j;
                            hgr[h] = g;
                            h += 1;
                        }
                    }
                }
                hits_threshold = gain_threshold;
                hits_key = key;
                have_hits = true;
            }
            values[out + m] =
                metric_from_hits(&metric, &list, (&hpos[..h], &hgr[..h]), n_rel, cand, disc);
        }
    }
}
