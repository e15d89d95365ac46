//! Expected values over tie orders of the trec_eval measures that are not sums of
//! per-position terms: infAP, G and interpolated precision.
//!
//! Every order of a tied block is equally likely. Each form here is exact and
//! enumerates no order; its cost is polynomial in the sizes of the tied blocks:
//!
//! - infAP scores a relevant item by a ratio of the relevant and non-relevant items
//!   above it. An item at offset o of a block of s items has above it (within the
//!   block) a uniformly random o-subset of the s - 1 others, so its counts of
//!   relevant and of non-relevant items follow a two-step hypergeometric law, and
//!   the unjudged ones among the rest count by their share (the score is linear in
//!   them): O(s · r · n) per block of r relevant and n non-relevant items.
//! - G divides each gain by the logarithm of the gains accumulated above it. The
//!   items above an item of a block are again a random subset of the others, whose
//!   sum is fixed by how many of each distinct gain it holds (a multivariate
//!   hypergeometric law): O(s · Π (c_v + 1)) per block with c_v items of gain v.
//! - Interpolated precision at a level is the largest `j / rank_j` over the relevant
//!   items from the level's count j on. Its distribution function at a value `q / p`
//!   is a product over the tied blocks of the chance that the block's relevant
//!   offsets (a uniformly random subset) keep every such ratio at most `q / p`, one
//!   walk through the block (O(s · h) for h relevant items); the expectation sums the
//!   values the maximum can take times that function's steps, O((s · h)²) per block.

use std::cmp::Ordering;

use crate::spec::RecallRounding;
use crate::ties::{hypergeometric, tied_block_end};
use crate::trec::measures::{self as tm, GainTable, UserGrades, INFAP_EPSILON};

/// `ln(i!)` for i = 0..=n.
fn ln_factorials(n: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(n + 1);
    let mut acc = 0.0;
    out.push(0.0);
    for i in 1..=n {
        acc += (i as f64).ln();
        out.push(acc);
    }
    out
}

/// infAP's expected value over tie orders, the list cut at `top` (see the module).
pub fn expected_infap(u: &UserGrades<'_>, scores: &[f64], top: usize) -> f64 {
    // 0: relevant, 1: judged non-relevant, 2: in the qrels unjudged, 3: absent
    let class = |g: f64| {
        if g == f64::NEG_INFINITY {
            3
        } else if g < 0.0 {
            2
        } else if g < u.threshold {
            1
        } else {
            0
        }
    };
    let (mut rel, mut nonrel, mut unjudged) = (0usize, 0usize, 0usize); // above the block
    let mut sum = 0.0;
    let mut t = 0;
    while t < top {
        let e = tied_block_end(scores, t);
        let s = e - t;
        let mut count = [0usize; 4];
        for &g in &u.ranked[t..e] {
            count[class(g)] += 1;
        }
        if count[0] > 0 {
            // the others of a relevant item: r relevant, then n non-relevant among the
            // rest, whose remainder is unjudged with probability `share`
            let (r, n) = (count[0] - 1, count[1]);
            let rest = s - 1 - r;
            let share = if rest > n {
                count[2] as f64 / (rest - n) as f64
            } else {
                0.0
            };
            let mut within = 0.0;
            for o in 0..e.min(top) - t {
                let (lo_a, pa) = hypergeometric(s - 1, r, o);
                let mut at = 0.0;
                for (ia, &p_a) in pa.iter().enumerate() {
                    if p_a == 0.0 {
                        continue;
                    }
                    let a = lo_a + ia;
                    let (lo_b, pb) = hypergeometric(rest, n, o - a);
                    for (ib, &p_b) in pb.iter().enumerate() {
                        if p_b == 0.0 {
                            continue;
                        }
                        let b = lo_b + ib;
                        let (ra, na) = ((rel + a) as f64, (nonrel + b) as f64);
                        let pool = ra + na + unjudged as f64 + (o - a - b) as f64 * share;
                        let rel_share = (ra + INFAP_EPSILON) / (ra + na + 2.0 * INFAP_EPSILON);
                        at += p_a * p_b * (1.0 + pool * rel_share);
                    }
                }
                within += at / (t + o + 1) as f64;
            }
            sum += count[0] as f64 * within / s as f64;
        }
        rel += count[0];
        nonrel += count[1];
        unjudged += count[2];
        t = e;
    }
    let n_rel = u.num_rel();
    if n_rel > 0 {
        sum / n_rel as f64
    } else {
        sum
    }
}

/// G's expected value over tie orders, the list cut at `top`, with the gains of
/// `table` (built for the user; see the module).
pub fn expected_g(u: &UserGrades<'_>, scores: &[f64], top: usize, table: &GainTable) -> f64 {
    let (costs, ideal) = tm::g_costs(top, table);
    if ideal <= 0.0 {
        return 0.0;
    }
    let (mut value, mut above) = (0.0, 0.0);
    let mut t = 0;
    while t < top {
        let e = tied_block_end(scores, t);
        let (s, used) = (e - t, e.min(top) - t);
        let mut distinct: Vec<(f64, usize)> = Vec::new();
        let mut zeros = 0usize;
        for &g in &u.ranked[t..e] {
            let gain = table.gain(g);
            if gain == 0.0 {
                zeros += 1;
            } else {
                match distinct.iter_mut().find(|d| d.0 == gain) {
                    Some(d) => d.1 += 1,
                    None => distinct.push((gain, 1)),
                }
            }
        }
        let lnf = ln_factorials(s);
        let ln_choose = |n: usize, k: usize| lnf[n] - lnf[k] - lnf[n - k];
        for (ci, &(gain, count)) in distinct.iter().enumerate() {
            // the others of an item of this gain, and how many of each lie above it
            let others: Vec<(f64, usize)> = distinct
                .iter()
                .enumerate()
                .map(|(i, &(v, c))| (v, if i == ci { c - 1 } else { c }))
                .collect();
            let mut taken = vec![0usize; others.len()];
            let mut acc = 0.0;
            loop {
                let (mut m, mut sub, mut ln_w) = (0usize, 0.0, 0.0);
                for (&(v, c), &x) in others.iter().zip(&taken) {
                    m += x;
                    sub += x as f64 * v;
                    ln_w += ln_choose(c, x);
                }
                for z in 0..=zeros {
                    let o = m + z;
                    if o >= used {
                        break;
                    }
                    let p = (ln_w + ln_choose(zeros, z) - ln_choose(s - 1, o)).exp();
                    acc += p * gain / (2.0 + costs[t + o] - (above + sub + gain)).log2();
                }
                // the next composition (an odometer over 0..=c per distinct gain)
                let mut i = 0;
                while i < taken.len() && taken[i] == others[i].1 {
                    taken[i] = 0;
                    i += 1;
                }
                if i == taken.len() {
                    break;
                }
                taken[i] += 1;
            }
            value += count as f64 * acc / s as f64;
        }
        above += distinct.iter().map(|&(v, c)| v * c as f64).sum::<f64>();
        t = e;
    }
    value / ideal
}

/// A block of the list for interpolated precision: ranks `t + 1..=t + s`, `h` of
/// its items relevant, `above` relevant items ranked before it.
#[derive(Clone, Copy)]
struct RelBlock {
    t: usize,
    s: usize,
    h: usize,
    above: usize,
}

/// Orders fractions `(numerator, denominator)` of non-negative integers by value.
#[inline]
fn by_value(a: &(u64, u64), b: &(u64, u64)) -> Ordering {
    ((a.0 as u128) * (b.1 as u128)).cmp(&((b.0 as u128) * (a.1 as u128)))
}

/// The distribution function, for each cut c of `cuts` (c >= 1), of the largest
/// `j / rank_j` over the block's relevant items of index j >= c, at every value that
/// maximum can take for the smallest cut (ascending): `(values, laws[cut][value])`.
///
/// At a value q / p, each such item must lie at a rank of at least j p / q. One walk
/// back over the block's offsets gives, for each number i of relevant items placed
/// before an offset, the chance that the rest keep that bound (the relevant offsets
/// are a uniformly random subset: from offset o the next item is relevant with
/// probability (h - i) / (s - o)). A cut frees the block's first m relevant items,
/// the m-th of which lies at offset x with probability
/// `C(x, m - 1) C(s - 1 - x, h - m) / C(s, h)`.
fn block_laws(b: &RelBlock, cuts: &[usize]) -> (Vec<(u64, u64)>, Vec<Vec<f64>>) {
    let (s, h) = (b.s, b.h);
    let c_min = cuts.iter().copied().min().unwrap_or(1);
    let mut values = Vec::with_capacity(h * (s - h + 1));
    for i in 1..=h {
        if b.above + i >= c_min {
            for o in i - 1..=s - h + i - 1 {
                values.push(((b.above + i) as u64, (b.t + o + 1) as u64));
            }
        }
    }
    values.sort_unstable_by(by_value);
    values.dedup_by(|x, y| by_value(x, y) == Ordering::Equal);
    // the items each cut frees (h: the block holds none it constrains), and the law of
    // the offset of the last one freed, as sums from each offset on
    let frees: Vec<usize> = cuts
        .iter()
        .map(|&c| (c - 1).saturating_sub(b.above).min(h))
        .collect();
    let lnf = ln_factorials(s);
    let ln_subsets = lnf[s] - lnf[h] - lnf[s - h];
    let mut last_at: Vec<Vec<f64>> = Vec::with_capacity(cuts.len());
    let mut tail_from: Vec<Vec<f64>> = Vec::with_capacity(cuts.len());
    for &m in &frees {
        let law: Vec<f64> = if m == 0 || m == h {
            Vec::new()
        } else {
            (0..s)
                .map(|x| {
                    if x + 1 < m || s - 1 - x < h - m {
                        return 0.0;
                    }
                    let before = lnf[x] - lnf[m - 1] - lnf[x + 1 - m];
                    let after = lnf[s - 1 - x] - lnf[h - m] - lnf[s - 1 - x - (h - m)];
                    (before + after - ln_subsets).exp()
                })
                .collect()
        };
        let mut tail = vec![0.0; law.len() + 1];
        for x in (0..law.len()).rev() {
            tail[x] = tail[x + 1] + law[x];
        }
        last_at.push(law);
        tail_from.push(tail);
    }
    let mut laws = vec![vec![0.0; values.len()]; cuts.len()];
    let mut keep = vec![0.0; h + 1];
    let mut acc = vec![0.0; cuts.len()];
    for (vi, &(num, den)) in values.iter().enumerate() {
        // from this offset on, no relevant item can break the bound
        let rank = ((b.above + h) as u64 * den).div_ceil(num);
        let start = (rank.saturating_sub(b.t as u64 + 1) as usize).min(s);
        keep.fill(1.0);
        for (k, a) in acc.iter_mut().enumerate() {
            *a = if last_at[k].is_empty() {
                0.0
            } else {
                tail_from[k][start.saturating_sub(1)]
            };
        }
        for o in (0..start).rev() {
            let rank = (b.t + o + 1) as u64;
            let left = s - o;
            for i in h.saturating_sub(left)..=o.min(h) {
                let to_place = h - i;
                let mut p = 0.0;
                if to_place > 0 && (b.above + i + 1) as u64 * den <= num * rank {
                    p += to_place as f64 / left as f64 * keep[i + 1];
                }
                if left > to_place {
                    p += (left - to_place) as f64 / left as f64 * keep[i];
                }
                keep[i] = p;
            }
            if o > 0 {
                for (k, &m) in frees.iter().enumerate() {
                    if !last_at[k].is_empty() {
                        acc[k] += last_at[k][o - 1] * keep[m];
                    }
                }
            }
        }
        for (k, &m) in frees.iter().enumerate() {
            laws[k][vi] = if m == 0 {
                keep[0]
            } else if m == h {
                1.0
            } else {
                acc[k]
            };
        }
    }
    (values, laws)
}

/// Products of factors, one leaf per factor, updated one at a time (a segment tree:
/// each product is of O(log n) rounded terms).
struct Products {
    half: usize,
    tree: Vec<f64>,
}

impl Products {
    fn new(n: usize, value: f64) -> Self {
        let half = n.next_power_of_two();
        let mut tree = vec![1.0; 2 * half];
        tree[half..half + n].fill(value);
        for i in (1..half).rev() {
            tree[i] = tree[2 * i] * tree[2 * i + 1];
        }
        Products { half, tree }
    }

    fn set(&mut self, leaf: usize, value: f64) {
        let mut i = self.half + leaf;
        self.tree[i] = value;
        while i > 1 {
            i /= 2;
            self.tree[i] = self.tree[2 * i] * self.tree[2 * i + 1];
        }
    }

    fn all(&self) -> f64 {
        self.tree[1]
    }
}

/// The sum over `cuts` (each at least 1) of the expected largest `j / rank_j` over
/// the relevant items of index j >= c of a list made of `blocks`; a cut above the
/// relevant items ranked adds 0.
fn expected_max_precisions(blocks: &[RelBlock], cuts: &[usize]) -> f64 {
    let rel_ret = blocks.last().map_or(0, |b| b.above + b.h);
    let live: Vec<usize> = cuts.iter().copied().filter(|&c| c <= rel_ret).collect();
    let Some(&c_min) = live.iter().min() else {
        return 0.0;
    };
    // blocks whose relevant items' order is random (one item or all relevant: fixed)
    let random: Vec<RelBlock> = blocks
        .iter()
        .filter(|b| b.h > 0 && b.h < b.s && b.above + b.h >= c_min)
        .copied()
        .collect();
    let laws: Vec<_> = random.iter().map(|b| block_laws(b, &live)).collect();
    let mut sum = 0.0;
    for (k, &c) in live.iter().enumerate() {
        // the largest ratio of the fixed blocks is a floor under the maximum
        let mut floor = (0u64, 1u64);
        for b in blocks.iter().filter(|b| b.h > 0 && b.h == b.s) {
            for i in 1..=b.h {
                let ratio = ((b.above + i) as u64, (b.t + i) as u64);
                if b.above + i >= c && by_value(&ratio, &floor) == Ordering::Greater {
                    floor = ratio;
                }
            }
        }
        let floor_value = floor.0 as f64 / floor.1 as f64;
        // each block's distribution function steps at its values: events by value
        let mut events: Vec<((u64, u64), usize, f64)> = Vec::new();
        for (n, (b, (values, law))) in random.iter().zip(&laws).enumerate() {
            if b.above + b.h >= c {
                events.extend(values.iter().zip(&law[k]).map(|(&v, &f)| (v, n, f)));
            }
        }
        if events.is_empty() {
            sum += floor_value;
            continue;
        }
        events.sort_by(|x, y| by_value(&x.0, &y.0));
        let mut product = Products::new(random.len(), 0.0);
        for (n, b) in random.iter().enumerate() {
            if b.above + b.h < c {
                product.set(n, 1.0);
            }
        }
        let (mut value, mut before, mut floor_seen) = (0.0, 0.0, floor.0 == 0);
        let mut e = 0;
        while e < events.len() {
            let v = events[e].0;
            if !floor_seen && by_value(&v, &floor) == Ordering::Greater {
                let cdf = product.all();
                value += floor_value * (cdf - before);
                before = cdf;
                floor_seen = true;
            }
            while e < events.len() && by_value(&events[e].0, &v) == Ordering::Equal {
                product.set(events[e].1, events[e].2);
                e += 1;
            }
            if by_value(&v, &floor) != Ordering::Less {
                let cdf = product.all();
                value += v.0 as f64 / v.1 as f64 * (cdf - before);
                before = cdf;
                floor_seen = true;
            }
        }
        if !floor_seen {
            value += floor_value * (product.all() - before);
        }
        sum += value;
    }
    sum
}

/// The sum over recall `levels` of interpolated precision's expected value over tie
/// orders, the list cut at `top` (see the module and [`tm::iprec_at_recall`]).
pub fn expected_iprec_sum(
    u: &UserGrades<'_>,
    scores: &[f64],
    top: usize,
    levels: &[f64],
    rounding: RecallRounding,
) -> f64 {
    let n_rel = u.num_rel();
    let cuts: Vec<usize> = levels
        .iter()
        .map(|&l| rounding.relevant_count(l, n_rel).max(1) as usize)
        .collect();
    let mut blocks = Vec::new();
    let mut above = 0usize;
    let mut t = 0;
    while t < top {
        let e = tied_block_end(scores, t);
        let h = u.ranked[t..e].iter().filter(|&&g| u.is_rel(g)).count();
        if e > top {
            // the block cut by top: the number of its relevant items within top is
            // hypergeometric, and given it, their offsets are a random subset
            let (lo, probs) = hypergeometric(e - t, h, top - t);
            let mut sum = 0.0;
            for (i, &p) in probs.iter().enumerate() {
                if p == 0.0 {
                    continue;
                }
                blocks.push(RelBlock {
                    t,
                    s: top - t,
                    h: lo + i,
                    above,
                });
                sum += p * expected_max_precisions(&blocks, &cuts);
                blocks.pop();
            }
            return sum;
        }
        blocks.push(RelBlock {
            t,
            s: e - t,
            h,
            above,
        });
        above += h;
        t = e;
    }
    expected_max_precisions(&blocks, &cuts)
}
