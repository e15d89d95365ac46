"""Slow, obviously correct references for trec_eval's measures (and ir_measures'
ERR, nERR and Judged), one user at a time.

Written from the measures' documented definitions (trec_eval's ``-h`` texts and
the papers they cite), in plain Python over one user's list:

- ``ranked``: the grade of each ranked item, best first; ``None`` for an item
  absent from the user's qrels; a negative grade for an item in the qrels but
  unjudged (trec_eval's pool without a judgment);
- ``judged``: every grade of the user's qrels (negative ones included);
- ``threshold``: a judged grade (0 or more) at least this is relevant.

:func:`prepare` applies the depth (``-M``), judged-only (``-J``) and ``@k`` rules
and :func:`measure` dispatches by kind code (``receval._core``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from receval._kernels import codes as core_codes

codes = core_codes()

Grade = float | None

ELEVEN = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]


# ------------------------------------------------------------------ what an item is
def is_absent(g: Grade) -> bool:
    return g is None


def is_unjudged(g: Grade) -> bool:
    """Absent from the qrels, or in them with a negative grade."""
    return g is None or g < 0


def is_relevant(g: Grade, threshold: float) -> bool:
    """trec_eval's test on its level: the grade, -1 when absent, -2 when negative."""
    lv = -1.0 if g is None else (-2.0 if g < 0 else g)
    return lv >= threshold


def is_nonrelevant(g: Grade, threshold: float) -> bool:
    return g is not None and 0 <= g < threshold


def relevant_count(judged: Sequence[float], threshold: float) -> int:
    return sum(1 for g in judged if g >= 0 and g >= threshold)


def nonrelevant_count(judged: Sequence[float], threshold: float) -> int:
    return sum(1 for g in judged if 0 <= g < threshold)


def precision_at(ranked: Sequence[Grade], i: int, threshold: float) -> float:
    """Relevant items in the top i over i (i >= 1)."""
    return sum(is_relevant(g, threshold) for g in ranked[:i]) / i


def round_half_up(x: float) -> int:
    return math.floor(x + 0.5)


# ------------------------------------------------------------------ rules
def prepare(ranked: Sequence[Grade], depth: int, judged_only: bool) -> list[Grade]:
    """The list after the depth (first ``depth`` items) and judged-only rules."""
    out = list(ranked[:depth] if depth > 0 else ranked)
    if judged_only:
        out = [g for g in out if g is not None and g >= 0]
    return out


# ------------------------------------------------------------------ counts
def num_ret(ranked, judged, threshold):
    return float(len(ranked))


def num_rel(ranked, judged, threshold):
    return float(relevant_count(judged, threshold))


def num_rel_ret(ranked, judged, threshold):
    return float(sum(is_relevant(g, threshold) for g in ranked))


def num_nonrel_judged_ret(ranked, judged, threshold):
    return float(sum(is_nonrelevant(g, threshold) for g in ranked))


# ------------------------------------------------------------------ preference and sampling
def bpref(ranked, judged, threshold):
    """(1/R) sum over relevant retrieved r of 1 - |n ranked above r| / min(R, N), n among
    the first R judged non-relevant retrieved (Buckley and Voorhees)."""
    r = relevant_count(judged, threshold)
    big_n = nonrelevant_count(judged, threshold)
    nonrel_ranks = [i for i, g in enumerate(ranked) if is_nonrelevant(g, threshold)][:r]
    total = 0.0
    for i, g in enumerate(ranked):
        if g is None or g < 0 or g < threshold:
            continue
        above = sum(1 for j in nonrel_ranks if j < i)
        total += 1.0 if above == 0 else 1.0 - above / min(big_n, r)
    return total / r if r else total


def bpref_raw(ranked, judged, threshold):
    """bpref reading every qrels grade as a judgment (ranx): a negative grade is judged
    non-relevant, only items absent from the qrels are skipped; with no judged
    non-relevant item (N = 0) a relevant one scores 1, as in trec_eval."""
    r = sum(1 for g in judged if g >= threshold)
    big_n = len(judged) - r
    nonrel_ranks = [i for i, g in enumerate(ranked) if g is not None and g < threshold][:r]
    total = 0.0
    for i, g in enumerate(ranked):
        if g is None or g < threshold:
            continue
        above = sum(1 for j in nonrel_ranks if j < i)
        total += 1.0 if above == 0 else 1.0 - above / min(big_n, r)
    return total / r if r else total


def infap(ranked, judged, threshold, eps=0.00001):
    """Inferred AP (Yilmaz and Aslam): at the relevant item of rank k > 1,
    1/k + ((k-1)/k) (|pooled above| / (k-1)) ((|rel above| + eps) / (|judged above| + 2 eps))."""
    total = 0.0
    for i, g in enumerate(ranked):
        if g is None or g < 0 or g < threshold:
            continue
        k = i + 1
        if k == 1:
            total += 1.0
            continue
        above = ranked[:i]
        pooled = sum(1 for x in above if x is not None)
        rel = sum(1 for x in above if x is not None and x >= 0 and x >= threshold)
        nonrel = sum(1 for x in above if is_nonrelevant(x, threshold))
        total += 1 / k + ((k - 1) / k) * (pooled / (k - 1)) * (
            (rel + eps) / (rel + nonrel + 2 * eps)
        )
    r = relevant_count(judged, threshold)
    return total / r if r else total


# ------------------------------------------------------------------ precision-recall
def recall_count(level, r, rounding="nearest"):
    """The relevant items of recall ``level``: round(level * R) (trec_eval 10.0), or
    trunc(level * R + 0.9) (``rounding="trec9"``: trec_eval 9)."""
    return round_half_up(level * r) if rounding == "nearest" else int(level * r + 0.9)


def iprec_at_recall(ranked, judged, threshold, level, rounding="nearest"):
    """The largest precision at a rank at or after the one where the recall reaches
    the level's count of relevant items (at least the first one); 0 if never
    reached."""
    r = relevant_count(judged, threshold)
    m = recall_count(level, r, rounding)
    rel_ranks = [i + 1 for i, g in enumerate(ranked) if is_relevant(g, threshold)]
    if not ranked:
        return math.nan if m <= 0 else 0.0  # trec_eval's 0 / 0
    if m > len(rel_ranks):
        return 0.0
    if not rel_ranks:
        return 0.0  # m == 0: precision at the end of the list
    start = rel_ranks[max(m, 1) - 1]
    return max(precision_at(ranked, i, threshold) for i in range(start, len(ranked) + 1))


def iprec_avg(ranked, judged, threshold, levels, rounding="nearest"):
    levels = sorted(levels) if levels else ELEVEN
    values = [iprec_at_recall(ranked, judged, threshold, x, rounding) for x in levels]
    return sum(values) / len(levels)


def rprec_mult(ranked, judged, threshold, multiple):
    """Precision at rank trunc(multiple * R + 0.9); past the list, relevant retrieved
    over that rank."""
    cut = int(multiple * relevant_count(judged, threshold) + 0.9)
    if cut > len(ranked):
        return num_rel_ret(ranked, judged, threshold) / cut
    return precision_at(ranked, cut, threshold) if cut > 0 else 0.0


def utility(ranked, judged, threshold, a, b, c, d, docs=0):
    rel_ret = num_rel_ret(ranked, judged, threshold)
    nonrel_ret = len(ranked) - rel_ret
    rel_not = relevant_count(judged, threshold) - rel_ret
    nonrel_not = docs - rel_ret - nonrel_ret - rel_not
    return a * rel_ret + b * nonrel_ret + c * rel_not + d * nonrel_not


def relative_precision(ranked, judged, threshold, k):
    r = relevant_count(judged, threshold)
    cut = k if k > 0 else len(ranked)
    if r == 0 or cut == 0:
        return 0.0
    return sum(is_relevant(g, threshold) for g in ranked[:cut]) / min(cut, r)


def set_precision(ranked, judged, threshold):
    return num_rel_ret(ranked, judged, threshold) / len(ranked) if ranked else 0.0


def set_relative_precision(ranked, judged, threshold):
    r = relevant_count(judged, threshold)
    if not ranked or not r:
        return 0.0
    return num_rel_ret(ranked, judged, threshold) / min(len(ranked), r)


def set_recall(ranked, judged, threshold):
    r = relevant_count(judged, threshold)
    return num_rel_ret(ranked, judged, threshold) / r if r else 0.0


def set_ap(ranked, judged, threshold):
    return set_precision(ranked, judged, threshold) * set_recall(ranked, judged, threshold)


def set_f(ranked, judged, threshold, beta):
    p = set_precision(ranked, judged, threshold)
    r = set_recall(ranked, judged, threshold)
    if p == 0 and r == 0:
        return 0.0
    return (beta + 1) * p * r / (beta * p + r)


# ------------------------------------------------------------------ gains
def gain_table(judged, pairs):
    """Gain of each grade: the pair's gain, else the grade itself (0 when absent or
    negative)."""
    table = dict(pairs)

    def gain(g: Grade) -> float:
        if g is None:
            return table.get(-1, 0.0)
        if g < 0:
            return table.get(-2, 0.0)
        return float(table.get(g, g))

    return gain


def ideal_gains(judged, gain):
    """The judged items' positive gains, largest first."""
    return sorted((gain(g) for g in judged if g >= 0 and gain(g) > 0), reverse=True)


def dcg(gains):
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def ndcg_custom(ranked, judged, threshold, k, pairs):
    gain = gain_table(judged, pairs)
    top = ranked[:k] if k > 0 else ranked
    ideal = ideal_gains(judged, gain)
    ideal = ideal[:k] if k > 0 else ideal
    i_dcg = dcg(ideal)
    return dcg([gain(g) for g in top]) / i_dcg if i_dcg > 0 else 0.0


def bin_g(ranked, judged, threshold):
    """Average over the relevant items of 1 / log2(2 + non-relevant retrieved above)."""
    total = 0.0
    any_rel = False
    for i, g in enumerate(ranked):
        if is_relevant(g, threshold):
            any_rel = True
            above = sum(1 for x in ranked[:i] if not is_relevant(x, threshold))
            total += 1 / math.log2(2 + above)
    return total / relevant_count(judged, threshold) if any_rel else 0.0


def g_measure(ranked, judged, threshold, pairs=()):
    """G: the item at rank i earns gain / log2(2 + cost(i) - gain so far(i)), cost(i) the
    sum over ranks j <= i of max(ideal gain at j, 1); over the total ideal gain."""
    gain = gain_table(judged, pairs)
    ideal = ideal_gains(judged, gain)
    total_ideal = sum(ideal)
    if total_ideal <= 0:
        return 0.0
    value = 0.0
    for i, g in enumerate(ranked):
        got = sum(gain(x) for x in ranked[: i + 1])
        cost = sum(max(ideal[j] if j < len(ideal) else 0.0, 1.0) for j in range(i + 1))
        if gain(g) != 0:
            value += gain(g) / math.log2(2 + cost - got)
    return value / total_ideal


def ndcg_rel(ranked, judged, threshold, pairs=()):
    """nDCG averaged over the P items of positive ideal gain: at each retrieved item of
    positive gain the nDCG at its rank; the P - retrieved others the nDCG at the end."""
    gain = gain_table(judged, pairs)
    ideal = ideal_gains(judged, gain)
    p = len(ideal)
    if p == 0:
        return 0.0
    gains = [gain(g) for g in ranked]
    total = 0.0
    found = 0
    for i, g in enumerate(gains):
        if g > 0:
            total += dcg(gains[: i + 1]) / dcg(ideal[: i + 1])
            found += 1
    total += (p - found) * dcg(gains) / dcg(ideal)
    return total / p if total > 0 else 0.0


def r_ndcg(ranked, judged, threshold, pairs=()):
    """nDCG averaged at the R levels: after each run of equal ideal gains (the last one
    ending at P, the number of positive ideal gains) and at the end of the list when it
    reaches past rank P + 1 (trec_eval's walk takes rank P + 1 with the last level)."""
    if relevant_count(judged, threshold) == 0:
        return 0.0
    gain = gain_table(judged, pairs)
    ideal = ideal_gains(judged, gain)
    gains = [gain(g) for g in ranked]
    p = len(ideal)
    cuts = [j for j in range(1, p + 1) if j == p or ideal[j] != ideal[j - 1]]
    if len(ranked) > p + 1 and p > 0:
        cuts.append(len(ranked))
    if not cuts:
        return math.nan  # trec_eval's 0 / 0
    return sum(dcg(gains[:c]) / dcg(ideal[:c]) for c in cuts) / len(cuts)


def rbp(ranked, judged, threshold, p):
    """(1 - p) sum gain_i p^(i-1), gains the grades from the threshold on, divided by the
    largest judged grade when it exceeds 1 (Moffat and Zobel; gains in [0, 1])."""
    top = max((g for g in judged if g >= 0), default=0.0)
    scale = top if top > 1 else 1.0
    total = 0.0
    for i, g in enumerate(ranked):
        if g is not None and g >= 0 and is_relevant(g, threshold):
            total += (g / scale) * p**i
    return (1 - p) * total


def rbp_binary(ranked, judged, threshold, p):
    """(1 - p) sum over the relevant items of p^(rank - 1): judged items whose grade, a
    negative one read as 0, is at least the threshold (cwl_eval's binary gains)."""
    return (1 - p) * sum(
        p**i for i, g in enumerate(ranked) if g is not None and max(g, 0) >= threshold
    )


def rbp_raw(ranked, judged, threshold, p):
    """(1 - p) sum over the items graded from the threshold on of grade * p^(rank - 1)."""
    return (1 - p) * sum(g * p**i for i, g in enumerate(ranked) if g is not None and g >= threshold)


def rbp_resid(ranked, judged, threshold, p):
    """The RBP weight of the unjudged items plus the weight past the list (p^n); 0 when
    every item is judged."""
    unjudged = [i for i, g in enumerate(ranked) if is_unjudged(g)]
    if not unjudged:
        return 0.0
    return p ** len(ranked) + (1 - p) * sum(p**i for i in unjudged)


def unjudged(ranked, judged, threshold, k):
    cut = k if k > 0 else len(ranked)
    if cut == 0 or not ranked:
        return 0.0
    return sum(is_unjudged(g) for g in ranked[:cut]) / cut


def judged_share(ranked, judged, threshold, k):
    top = ranked[:k] if k > 0 else ranked
    return sum(not is_absent(g) for g in top) / len(top) if top else 0.0


def err_of(grades, max_grade):
    """Expected reciprocal rank (Chapelle et al.): stop at rank i with probability
    R_i = (2^g - 1) / 2^max_grade, having passed the ranks above."""
    total = 0.0
    for i, g in enumerate(grades):
        stop = (2.0**g - 1) / 2.0**max_grade if g is not None and g > 0 else 0.0
        passed = 1.0
        for x in grades[:i]:
            passed *= 1 - ((2.0**x - 1) / 2.0**max_grade if x is not None and x > 0 else 0.0)
        total += stop * passed / (i + 1)
    return total


def err(ranked, judged, threshold, max_grade):
    return err_of(ranked, max_grade or 4.0)


def probability(g):
    """CatBoost's reading of a grade: the probability itself (an item absent from the
    qrels, or with a negative grade: 0)."""
    return g if g is not None and g > 0 else 0.0


def err_probability(ranked):
    """CatBoost's ERR: stop at rank i with probability the grade, having passed the
    ranks above, and earn 1 / i."""
    total = 0.0
    for i, g in enumerate(ranked):
        passed = math.prod(1 - probability(x) for x in ranked[:i])
        total += probability(g) * passed / (i + 1)
    return total


def pfound(ranked, decay):
    """CatBoost's PFound: look at rank 1; find the item with probability its grade, else
    look on with probability ``decay``; sum the grades times the chances of looking."""
    total, look = 0.0, 1.0
    for g in ranked:
        total += probability(g) * look
        look *= (1 - probability(g)) * (decay or 0.85)
    return total


def average_gain(ranked):
    """CatBoost's AverageGain: the mean grade of the list (cut at k)."""
    return sum(probability(g) for g in ranked) / len(ranked) if ranked else 0.0


def nerr(ranked, judged, threshold, k, alpha):
    """ndeval's nERR of one intent: binary relevance, the j-th relevant item at rank r
    earns (1 - alpha)^(j - 1) / r; over the same sum for the relevant items ranked
    first (cut at k)."""
    a = alpha or 0.5

    def err_binary(flags):
        total, seen = 0.0, 0
        for r, rel in enumerate(flags, start=1):
            if rel:
                total += (1 - a) ** seen / r
                seen += 1
        return total

    got = err_binary([is_relevant(g, threshold) for g in ranked])
    if got == 0:
        return 0.0
    n_rel = relevant_count(judged, threshold)
    ideal = err_binary([True] * (min(n_rel, k) if k > 0 else n_rel))
    return got / ideal


# ------------------------------------------------------------------ dispatch
def measure(kind, ranked, judged, threshold, k=0, params=(), pairs=None):
    """The value of ``kind`` for one user's prepared list (depth and judged-only
    applied): ``k`` cuts the list (relative precision, unjudged and judged divide by
    it); ``pairs``, a custom gain table for the gain-based kinds."""
    c = codes
    p = list(params) + [0.0] * 16
    if kind == c.RELATIVE_PRECISION:
        return relative_precision(ranked, judged, threshold, k)
    if kind == c.UNJUDGED:
        return unjudged(ranked, judged, threshold, k)
    if kind == c.JUDGED:
        return judged_share(ranked, judged, threshold, k)
    top = list(ranked[:k]) if k > 0 else list(ranked)
    if kind == c.NERR:
        return nerr(top, judged, threshold, k, p[0])
    if kind == c.NDCG:
        return ndcg_custom(ranked, judged, threshold, k, pairs or ())
    simple = {
        c.NUM_RET: num_ret,
        c.NUM_REL: num_rel,
        c.NUM_REL_RET: num_rel_ret,
        c.NUM_NONREL_JUDGED_RET: num_nonrel_judged_ret,
        c.BPREF: bpref,
        c.INFAP: infap,
        c.BIN_G: bin_g,
        c.SET_PRECISION: set_precision,
        c.SET_RELATIVE_PRECISION: set_relative_precision,
        c.SET_RECALL: set_recall,
        c.SET_AP: set_ap,
    }
    if kind == c.BPREF and p[0] == 1.0:
        return bpref_raw(top, judged, threshold)
    if kind in simple:
        return simple[kind](top, judged, threshold)
    if kind == c.NUM_Q:
        return 1.0
    if kind == c.IPREC_AT_RECALL:
        return iprec_at_recall(top, judged, threshold, p[0])
    if kind == c.IPREC_AVG:
        return iprec_avg(top, judged, threshold, p[1 : 1 + int(p[0])])
    if kind == c.RPREC_MULT:
        return rprec_mult(top, judged, threshold, p[0])
    if kind == c.UTILITY:
        return utility(top, judged, threshold, p[0], p[1], p[2], p[3], p[4])
    if kind == c.SET_F:
        return set_f(top, judged, threshold, p[0])
    if kind in (c.G, c.NDCG_REL, c.R_NDCG):
        f = {c.G: g_measure, c.NDCG_REL: ndcg_rel, c.R_NDCG: r_ndcg}[kind]
        return f(top, judged, threshold, pairs or ())
    if kind == c.RBP:
        if p[1] == 1.0:
            return rbp_binary(top, judged, threshold, p[0])
        if p[1] == 2.0:
            return rbp_raw(top, judged, threshold, p[0])
        return rbp(top, judged, threshold, p[0])
    if kind == c.RBP_RESID:
        return rbp_resid(top, judged, threshold, p[0])
    if kind == c.ERR:
        return err_probability(top) if p[1] == 1.0 else err(top, judged, threshold, p[0])
    if kind == c.PFOUND:
        return pfound(top, p[0])
    if kind == c.AVERAGE_GAIN:
        return average_gain(top)
    raise ValueError(f"no oracle for kind {kind}")


def missing_user(kind, judged, threshold, k=0, params=(), pairs=None, judged_only=False):
    """trec_eval's ``-c`` value of a user absent from the run: the measure of a list of
    one item absent from the qrels (none with judged-only), with the retrieved count,
    utility, unjudged and the RBP residual set to 0."""
    if kind in (codes.NUM_RET, codes.UTILITY, codes.UNJUDGED, codes.RBP_RESID):
        return 0.0
    ranked = [] if judged_only else [None]
    return measure(kind, ranked, judged, threshold, k, params, pairs)
