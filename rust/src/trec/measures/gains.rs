//! The measures with gains: trec_eval's gain table (the grade, or (grade, gain)
//! pairs, and the ideal list it orders) and the nDCG-like measures and RBP.

use super::grades::{level, UserGrades};

/// A level of a gain table: its grade, its gain and how many judged items have it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Level {
    grade: f64,
    pub(super) gain: f64,
    count: i64,
}

/// trec_eval's gain table of one user: the (grade, gain) pairs given, then every
/// grade from 0 to the largest judged grade not among them with its grade as gain
/// (without pairs, only the grades judged: the others have no item), each with the
/// number of judged items of that grade; sorted by increasing gain the way
/// trec_eval's sort does it (a stable merge sort comparing `(int)(gain_a -
/// gain_b)`: gains less than 1 apart compare equal). The ideal list takes the
/// levels from the last one down, each as many times as it has items, until a gain
/// is not positive.
#[derive(Default)]
pub struct GainTable {
    pub(super) levels: Vec<Level>,
    tmp: Vec<Level>,
    custom: bool,
    /// rbp's normalisation to [0, 1]: (min, max) when applied
    scale: Option<(f64, f64)>,
}

fn gain_cmp(a: &Level, b: &Level) -> i64 {
    (a.gain - b.gain) as i32 as i64
}

/// glibc's merge sort: halves of n / 2 and n - n / 2, the first half wins ties.
fn merge_sort(v: &mut [Level], tmp: &mut Vec<Level>) {
    let n = v.len();
    if n <= 1 {
        return;
    }
    let n1 = n / 2;
    merge_sort(&mut v[..n1], tmp);
    merge_sort(&mut v[n1..], tmp);
    tmp.clear();
    let (mut i, mut j) = (0, n1);
    while i < n1 && j < n {
        if gain_cmp(&v[i], &v[j]) <= 0 {
            tmp.push(v[i]);
            i += 1;
        } else {
            tmp.push(v[j]);
            j += 1;
        }
    }
    tmp.extend_from_slice(&v[i..n1]);
    let done = tmp.len();
    v[..done].copy_from_slice(&tmp[..done]);
}

/// The gains of the ideal list, level by level (trec_eval's walk down the table).
struct IdealWalk {
    /// index + 1 of the current level (0: past the last)
    cur: usize,
    taken: i64,
    gain: f64,
}

impl IdealWalk {
    fn new(t: &GainTable) -> Self {
        let cur = t.levels.len();
        IdealWalk {
            cur,
            taken: 0,
            gain: if cur > 0 { t.levels[cur - 1].gain } else { 0.0 },
        }
    }

    /// The next item of the ideal list: its gain is then `self.gain`.
    fn step(&mut self, t: &GainTable) {
        self.taken += 1;
        while self.cur > 0 && self.taken > t.levels[self.cur - 1].count {
            self.taken = 1;
            self.cur -= 1;
            self.gain = if self.cur > 0 {
                t.levels[self.cur - 1].gain
            } else {
                0.0
            };
        }
    }
}

impl GainTable {
    /// The table of a user with judged grades `judged` (descending) and the custom
    /// `pairs` (grade, gain) (empty: every grade is its own gain).
    pub fn build(&mut self, judged: &[f64], pairs: &[(f64, f64)]) {
        self.levels.clear();
        self.custom = !pairs.is_empty();
        self.scale = None;
        let nonneg = judged.iter().take_while(|&&g| g >= 0.0).count();
        let count_of = |grade: f64| judged[..nonneg].iter().filter(|&&g| g == grade).count() as i64;
        for &(grade, gain) in pairs {
            self.levels.push(Level {
                grade,
                gain,
                count: if grade >= 0.0 { count_of(grade) } else { 0 },
            });
        }
        let n_pairs = self.levels.len();
        let in_pairs =
            |levels: &[Level], grade: f64| levels[..n_pairs].iter().any(|l| l.grade == grade);
        // the judged grades (ascending, distinct) and, with pairs, the integers between
        let mut t = nonneg;
        let mut next_int = 0.0f64;
        while t > 0 {
            // the run of grades equal to judged[t - 1]
            let grade = judged[t - 1];
            let mut s = t - 1;
            while s > 0 && judged[s - 1] == grade {
                s -= 1;
            }
            if self.custom {
                while next_int < grade {
                    if !in_pairs(&self.levels, next_int) {
                        self.levels.push(Level {
                            grade: next_int,
                            gain: next_int,
                            count: 0,
                        });
                    }
                    next_int += 1.0;
                }
                if next_int == grade {
                    next_int += 1.0;
                }
            }
            if !in_pairs(&self.levels, grade) {
                self.levels.push(Level {
                    grade,
                    gain: grade,
                    count: (t - s) as i64,
                });
            }
            t = s;
        }
        let mut tmp = std::mem::take(&mut self.tmp);
        merge_sort(&mut self.levels, &mut tmp);
        self.tmp = tmp;
    }

    /// Normalise the gains to [0, 1] when some lies outside (rbp): `(g - min) / (max -
    /// min)`, with min and max over the table and the grade 0 (always a level of
    /// trec_eval's table).
    pub fn normalise(&mut self) {
        let mut lo = 0.0f64;
        let mut hi = f64::NEG_INFINITY;
        for l in &self.levels {
            lo = lo.min(l.gain);
            hi = hi.max(l.gain);
        }
        if !self.custom {
            hi = hi.max(0.0);
        }
        if lo < 0.0 || hi > 1.0 {
            self.scale = Some((lo, hi));
        }
    }

    /// Gain of a ranked item's grade.
    #[inline]
    pub fn gain(&self, grade: f64) -> f64 {
        let lv = level(grade);
        let g = if !self.custom {
            // every judged grade >= 0 is a level with itself as gain
            if lv >= 0.0 {
                lv
            } else {
                return 0.0;
            }
        } else {
            match self.levels.iter().find(|l| l.grade == lv) {
                Some(l) => l.gain,
                None => return 0.0,
            }
        };
        match self.scale {
            Some((lo, hi)) => (g - lo) / (hi - lo),
            None => g,
        }
    }
}

/// (DCG, ideal DCG) with trec_eval's gains, both cut at k when k > 0: the gain of
/// the item at rank i (from 1) over `log2(i + 1)`.
pub fn dcg_pair(u: &UserGrades<'_>, k: i64, t: &GainTable) -> (f64, f64) {
    dcg_pair_by(u.ranked.len(), k, |i| t.gain(u.ranked[i]), t)
}

/// [`dcg_pair`] of a list of `n` items whose gain at rank i (from 0) is `gain_at(i)`
/// (the grades' gains, or their expected values over the orders of tied items).
pub fn dcg_pair_by<F: Fn(usize) -> f64>(n: usize, k: i64, gain_at: F, t: &GainTable) -> (f64, f64) {
    let top = if k > 0 { (k as usize).min(n) } else { n };
    let mut dcg = 0.0;
    for i in 0..top {
        let gain = gain_at(i);
        if gain != 0.0 {
            dcg += gain / ((i + 2) as f64).log2();
        }
    }
    let mut ideal = 0.0;
    let mut walk = IdealWalk::new(t);
    let mut i = 0usize;
    while walk.gain > 0.0 && (k <= 0 || (i as i64) < k) {
        walk.step(t);
        if walk.gain > 0.0 {
            ideal += walk.gain / ((i + 2) as f64).log2();
        }
        i += 1;
    }
    (dcg, ideal)
}

/// nDCG with trec_eval's gains (custom gain tables), cut at k when k > 0.
pub fn ndcg(u: &UserGrades<'_>, k: i64, t: &GainTable) -> f64 {
    let (dcg, ideal) = dcg_pair(u, k, t);
    if ideal > 0.0 {
        dcg / ideal
    } else {
        0.0
    }
}

/// G (trec_eval's normalized gain): the item at rank i earns its gain over
/// `log2(2 + ideal gain so far - gain so far)`, the ideal cost counting at least 1
/// per rank; normalised by the total ideal gain.
pub fn g(u: &UserGrades<'_>, t: &GainTable) -> f64 {
    let (costs, ideal) = g_costs(u.ranked.len(), t);
    let (mut value, mut got) = (0.0, 0.0);
    for (&grade, &cost) in u.ranked.iter().zip(&costs) {
        let gain = t.gain(grade);
        got += gain;
        if gain != 0.0 {
            value += gain / (2.0 + cost - got).log2();
        }
    }
    if ideal > 0.0 {
        value / ideal
    } else {
        0.0
    }
}

/// G's ideal cost accumulated at each of the first `n` ranks (the ideal gain there,
/// at least 1 per rank), and the total ideal gain.
pub fn g_costs(n: usize, t: &GainTable) -> (Vec<f64>, f64) {
    let min_cost = 1.0;
    let (mut ideal, mut cost) = (0.0, 0.0);
    let mut costs = Vec::with_capacity(n);
    let mut walk = IdealWalk::new(t);
    for _ in 0..n {
        if walk.gain > 0.0 {
            walk.step(t);
            if walk.gain > 0.0 {
                ideal += walk.gain;
            }
            cost += if walk.gain >= min_cost {
                walk.gain
            } else {
                min_cost
            };
        } else {
            cost += min_cost;
        }
        costs.push(cost);
    }
    while walk.gain > 0.0 {
        walk.step(t);
        if walk.gain > 0.0 {
            ideal += walk.gain;
        }
    }
    (costs, ideal)
}

/// nDCG averaged over the items of positive ideal gain: at each retrieved item of
/// positive gain, the nDCG there; each one not retrieved, the nDCG at the end.
pub fn ndcg_rel(u: &UserGrades<'_>, t: &GainTable) -> f64 {
    let n = u.ranked.len();
    let (mut dcg, mut ideal, mut sum) = (0.0, 0.0, 0.0);
    let (mut n_pos, mut n_pos_ret) = (0i64, 0i64);
    let mut walk = IdealWalk::new(t);
    let mut i = 0;
    while i < n && walk.gain > 0.0 {
        let gain = t.gain(u.ranked[i]);
        let disc = ((i + 2) as f64).log2();
        if gain != 0.0 {
            dcg += gain / disc;
        }
        walk.step(t);
        if walk.gain > 0.0 {
            n_pos += 1;
            ideal += walk.gain / disc;
        }
        if gain > 0.0 {
            sum += dcg / ideal;
            n_pos_ret += 1;
        }
        i += 1;
    }
    while i < n {
        let gain = t.gain(u.ranked[i]);
        if gain != 0.0 {
            dcg += gain / ((i + 2) as f64).log2();
        }
        if gain > 0.0 {
            sum += dcg / ideal;
            n_pos_ret += 1;
        }
        i += 1;
    }
    while walk.gain > 0.0 {
        walk.step(t);
        if walk.gain > 0.0 {
            n_pos += 1;
            ideal += walk.gain / ((i + 2) as f64).log2();
        }
        i += 1;
    }
    sum += (n_pos - n_pos_ret) as f64 * dcg / ideal;
    if sum > 0.0 {
        sum / n_pos as f64
    } else {
        0.0
    }
}

/// [`ndcg_rel`]'s ideal DCG at each of the first `n` ranks into `out` (constant once
/// the positive ideal gains are spent), and (the number of positive ideal gains, the
/// ideal DCG of them all).
pub fn ndcg_rel_ideal(t: &GainTable, n: usize, out: &mut Vec<f64>) -> (i64, f64) {
    out.clear();
    let (mut ideal, mut n_pos) = (0.0, 0i64);
    let mut walk = IdealWalk::new(t);
    let mut i = 0;
    while i < n && walk.gain > 0.0 {
        let disc = ((i + 2) as f64).log2();
        walk.step(t);
        if walk.gain > 0.0 {
            n_pos += 1;
            ideal += walk.gain / disc;
        }
        out.push(ideal);
        i += 1;
    }
    out.resize(n, ideal);
    i = i.max(n);
    while walk.gain > 0.0 {
        walk.step(t);
        if walk.gain > 0.0 {
            n_pos += 1;
            ideal += walk.gain / ((i + 2) as f64).log2();
        }
        i += 1;
    }
    (n_pos, ideal)
}

/// nDCG averaged at the R levels: at each rank where the ideal gain changes (and at
/// the end of the list once the ideal gains are spent), the nDCG of the ranks above.
/// 0 without a relevant item.
pub fn r_ndcg(u: &UserGrades<'_>, t: &GainTable) -> f64 {
    r_ndcg_by(u.num_rel(), u.ranked.len(), |i| t.gain(u.ranked[i]), t)
}

/// [`r_ndcg`] of a list of `n` items whose gain at rank i (from 0) is `gain_at(i)`,
/// for a user with `n_rel` relevant items.
pub fn r_ndcg_by<F: Fn(usize) -> f64>(n_rel: i64, n: usize, gain_at: F, t: &GainTable) -> f64 {
    if n_rel == 0 {
        return 0.0;
    }
    let (mut dcg, mut ideal, mut sum) = (0.0, 0.0, 0.0);
    let mut changes = 0i64;
    let mut walk = IdealWalk::new(t);
    let mut last = walk.gain;
    let mut i = 0;
    while i < n && walk.gain > 0.0 {
        let gain = gain_at(i);
        walk.step(t);
        if last != walk.gain {
            if ideal > 0.0 {
                sum += dcg / ideal;
                changes += 1;
            }
            last = walk.gain;
        }
        let disc = ((i + 2) as f64).log2();
        if gain != 0.0 {
            dcg += gain / disc;
        }
        if walk.gain > 0.0 {
            ideal += walk.gain / disc;
        }
        i += 1;
    }
    if i < n {
        while i < n {
            let gain = gain_at(i);
            if gain != 0.0 {
                dcg += gain / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        if ideal > 0.0 {
            sum += dcg / ideal;
            changes += 1;
        }
    }
    while walk.gain > 0.0 {
        walk.step(t);
        if last != walk.gain {
            if ideal > 0.0 {
                sum += dcg / ideal;
                changes += 1;
            }
            last = walk.gain;
        }
        if walk.gain > 0.0 {
            ideal += walk.gain / ((i + 2) as f64).log2();
        }
        i += 1;
    }
    sum / changes as f64
}

/// Rank-biased precision (Moffat and Zobel): `(1 - p) sum gain_i p^(i-1)`, gains the
/// grades normalised to [0, 1] when some lies outside, earned from the threshold on
/// (trec_eval's every grade from 1 on, with the threshold at 1).
pub fn rbp(u: &UserGrades<'_>, p: f64, t: &mut GainTable) -> f64 {
    t.normalise();
    let mut sum = 0.0;
    let mut weight = 1.0;
    for &g in u.ranked {
        let gain = rbp_gain(g, u.threshold, t);
        if gain != 0.0 {
            sum += gain * weight;
        }
        weight *= p;
    }
    (1.0 - p) * sum
}

/// The graded gain of [`rbp`]: the table's (normalised) gain of a grade from the
/// threshold on, else 0.
#[inline]
pub fn rbp_gain(grade: f64, threshold: f64, t: &GainTable) -> f64 {
    if level(grade) >= threshold {
        t.gain(grade)
    } else {
        0.0
    }
}

/// Whether an item is relevant for [`rbp_binary`]: judged, its grade (a negative one
/// read as 0) at least the threshold, as cwl_eval reads ir_measures' `RBP(rel=...)`.
#[inline]
pub fn rbp_binary_rel(grade: f64, threshold: f64) -> bool {
    grade > f64::NEG_INFINITY && grade.max(0.0) >= threshold
}

/// Rank-biased precision with binary gains: `(1 - p) sum p^(i-1)` over the relevant
/// items (ir_measures' RBP(rel=threshold), cwl_eval's binary gains; see
/// [`rbp_binary_rel`]).
pub fn rbp_binary(u: &UserGrades<'_>, p: f64) -> f64 {
    let mut sum = 0.0;
    let mut weight = 1.0;
    for &g in u.ranked {
        if rbp_binary_rel(g, u.threshold) {
            sum += weight;
        }
        weight *= p;
    }
    (1.0 - p) * sum
}

/// Rank-biased precision with the grades themselves as gains: `(1 - p) sum g_i p^(i-1)`
/// over the items graded from the threshold on (ranx's graded RBP).
pub fn rbp_raw(u: &UserGrades<'_>, p: f64) -> f64 {
    let mut sum = 0.0;
    let mut weight = 1.0;
    for &g in u.ranked {
        if g >= u.threshold {
            sum += g * weight;
        }
        weight *= p;
    }
    (1.0 - p) * sum
}
