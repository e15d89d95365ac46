"""Numba kernels of the ranking engine: every top-K metric, in one pass over users.

Layout: a ``Qrels`` is a CSR over users with the judged items of each user
sorted by item code and, beside them, the user's grades sorted descending (for
the ideal DCG). A ``Run`` is a CSR over its users with the items of each user
in ranked order (score descending, input order within ties) and their scores.
The kernels that build both containers are in :mod:`receval._kernels._ranked_csr`.

``_evaluate_users`` (through ``evaluate_users``, which first rejects what it
does not compute: trec_eval's measures, depth, judged-only, float parameters and
custom gains are the compiled core's only) walks every qrels user in parallel, looks up the grade of
each recommended item once, and computes every requested metric (each a row of
``specs``) from that one vector of grades: all @k values in a single pass.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ._topk_codes import (
    AP,
    AP_MIN_K,
    AP_MIN_RETRIEVED,
    AP_RELEVANT,
    CG,
    DCG,
    EMPTY_ONE,
    EMPTY_SKIP,
    F1,
    GAIN_BINARY,
    GAIN_CUSTOM,
    GAIN_EXPONENTIAL,
    HIT_RATIO,
    IDCG,
    IDEAL_CANDIDATES,
    NDCG,
    PRECISION,
    R_PRECISION,
    RECALL,
    RR,
    S_AP_NORM,
    S_DEPTH,
    S_DISCOUNT,
    S_EMPTY,
    S_GAIN,
    S_GAIN_THRESHOLD,
    S_IDEAL,
    S_JUDGED_ONLY,
    S_K,
    S_KIND,
    S_MISSING_SKIP,
    S_PARAMS,
    S_POSITIVE_SCORES,
    S_PRECISION_NORM,
    S_RECALL_NORM,
    S_THRESHOLD,
    S_TIES,
    SUCCESS,
    TIES_AVERAGE,
    TIES_ID_ASCENDING,
    TIES_ID_DESCENDING,
    TIES_TREC,
    TREC_KINDS,
)


# ------------------------------------------------------------------ metrics
@nb.njit(cache=True, nogil=True, inline="always")
def _gain(grade, threshold, gain):
    if grade < threshold:
        return 0.0
    if gain == GAIN_BINARY:
        return 1.0
    if gain == GAIN_EXPONENTIAL:
        return 2.0**grade - 1.0
    return grade


@nb.njit(cache=True, nogil=True)
def _lookup(sorted_items, a, b, item):
    """Position of ``item`` in sorted_items[a:b], or -1.

    Short segments (a user's judged items, typically a handful) are scanned
    without branches, which beats a binary search's mispredictions.
    """
    if b - a <= 32:
        pos = -1
        for t in range(a, b):
            if sorted_items[t] == item:
                pos = t
        return pos
    lo = a
    hi = b
    while lo < hi:
        mid = (lo + hi) >> 1
        if sorted_items[mid] < item:
            lo = mid + 1
        else:
            hi = mid
    if lo < b and sorted_items[lo] == item:
        return lo
    return -1


@nb.njit(cache=True, nogil=True)
def _trec_order(scores, items, item_keys, a, n, ascending=False):
    """Permutation of rows a..a+n (score desc, input order in ties) that breaks ties
    by ``item_keys[items]`` descending (the trec_eval rule: document id descending),
    or ascending with ``ascending`` (ir_measures' RR@k: document id ascending).

    Like trec_eval, which stores scores as C floats, scores are compared in
    single precision for the descending rule: two scores equal after rounding to
    float32 are tied. The ascending rule compares them as they are (doubles)."""
    perm = np.arange(n)
    t = 0
    while t < n:
        e = t + 1
        if ascending:
            while e < n and scores[a + e] == scores[a + t]:
                e += 1
        else:
            while e < n and np.float32(scores[a + e]) == np.float32(scores[a + t]):
                e += 1
        if e - t > 1:
            block = np.empty(e - t, dtype=np.float64)
            for j in range(e - t):
                key = item_keys[items[a + t + j]]
                block[j] = key if ascending else -key
            inner = np.argsort(block, kind="mergesort")
            for j in range(e - t):
                perm[t + j] = t + inner[j]
        t = e
    return perm


@nb.njit(cache=True, nogil=True)
def _idcg(ideal, k, k_eff, threshold, gain, grades, n, q_desc, qa, qb, cand, disc):
    """DCG of the ideal order: the ranked candidates' grades sorted (``ideal=
    'candidates'``, depth k_eff) or the user's judged grades ``q_desc[qa:qb]``
    (already descending; depth k, or all of them without a cut-off)."""
    idcg = 0.0
    if ideal == IDEAL_CANDIDATES:
        for j in range(n):
            cand[j] = grades[j]
        cand[:n].sort()
        for j in range(min(k_eff, n)):
            idcg += _gain(cand[n - 1 - j], threshold, gain) * disc[j]
    else:
        depth = (qb - qa) if k <= 0 else min(k, qb - qa)
        for j in range(depth):
            idcg += _gain(q_desc[qa + j], threshold, gain) * disc[j]
    return idcg


@nb.njit(cache=True, nogil=True)
def _expected_first_hit(m, h, t):
    """P(the first relevant of a tied block of m items, h relevant, is at offset j)
    for j < t, as an array (uniform random order of the block)."""
    out = np.zeros(t)
    if h == 0:
        return out
    none_before = 1.0
    for j in range(min(t, m - h + 1)):
        out[j] = none_before * h / (m - j)
        none_before *= (m - h - j) / (m - j)
    return out


@nb.njit(cache=True, nogil=True)
def _block_precision_sum(t, q, size, r, c):
    """Expected sum of precision at the relevant positions t..t+q of a tied block of
    ``size`` items, ``r`` relevant, with ``c`` relevant items before it."""
    p = r / size
    inside = (r - 1.0) / (size - 1) if size > 1 else 0.0
    total = 0.0
    for i in range(q):
        total += p * (c + 1.0 + i * inside) / (t + i + 1)
    return total


@nb.njit(cache=True, nogil=True)
def _expected_ap(grades, scores, a, n, top, threshold, fixed):
    """Average precision's expected value over the orders of the tied blocks (the
    core's expected_ap): ``fixed`` the normaliser, or < 0 for the hits within top."""
    total = 0.0
    c = 0
    t = 0
    while t < n and t < top:
        e = t + 1
        while e < n and scores[a + e] == scores[a + t]:
            e += 1
        size = e - t
        r = 0
        for j in range(t, e):
            if grades[j] >= threshold:
                r += 1
        q = min(e, top) - t
        if q < size and fixed < 0:
            lo = max(0, q - (size - r))
            hi = min(r, q)
            # the hypergeometric law from its mode outwards, normalised (as the core)
            mode = min(max((q + 1) * (r + 1) // (size + 2), lo), hi)
            probs = np.zeros(hi - lo + 1)
            probs[mode - lo] = 1.0
            p = 1.0
            for m in range(mode, hi):
                p *= ((r - m) * (q - m)) / ((m + 1) * (size + m + 1 - r - q))
                probs[m + 1 - lo] = p
            p = 1.0
            for m in range(mode - 1, lo - 1, -1):
                p /= ((r - m) * (q - m)) / ((m + 1) * (size + m + 1 - r - q))
                probs[m - lo] = p
            mass = 0.0
            for i in range(hi - lo + 1):
                mass += probs[i]
            value = 0.0
            for m in range(lo, hi + 1):
                hits = c + m
                prob = probs[m - lo] / mass
                if hits > 0 and prob > 0.0:
                    value += (
                        prob * (total + _block_precision_sum(t, q, q, float(m), float(c))) / hits
                    )
            return value
        total += _block_precision_sum(t, q, size, float(r), float(c))
        c += r
        t = e
    norm = fixed if fixed >= 0 else float(c)
    return total / norm if norm > 0 else 0.0


@nb.njit(cache=True, nogil=True)
def _user_metric(
    kind,
    k,
    threshold,
    gain_threshold,
    gain,
    ap_norm,
    ideal,
    ties,
    grades,
    scores,
    a,
    n,
    q_desc,
    qa,
    qb,
    rel,
    gains,
    cand,
    disc,
):
    """(value, auxiliary) of one metric for one user.

    ``grades`` is the grade of each ranked item (-inf if unjudged) in the order
    for this metric's tie rule; relevance is ``grade >= threshold``, and gains are
    earned from ``gain_threshold`` on; ``scores[a:a+n]`` the ranked scores (used by
    ``ties='average'``); ``q_desc[qa:qb]`` the user's judged grades, descending.
    The auxiliary value is R (the user's relevant items), used by hit_ratio.
    ``disc[j]`` is ``1 / log2(j + 2)``.
    """
    n_rel = 0
    for t in range(qa, qb):
        if q_desc[t] >= threshold:
            n_rel += 1
    if kind == R_PRECISION:  # R-precision@k (Recommenders): the top min(R, k), over R
        k_eff = n_rel if k <= 0 else min(n_rel, k)
    elif k > 0:
        k_eff = k
    else:
        k_eff = n
    top = min(k_eff, n)

    # per-position relevance and gain, averaged over tied blocks when asked
    for j in range(top):
        rel[j] = 0.0
        gains[j] = 0.0
    if ties == TIES_AVERAGE:
        t = 0
        while t < n and t < top:
            e = t + 1
            while e < n and scores[a + e] == scores[a + t]:
                e += 1
            r_sum = 0.0
            g_sum = 0.0
            for j in range(t, e):
                if grades[j] >= threshold:
                    r_sum += 1.0
                g_sum += _gain(grades[j], gain_threshold, gain)
            for j in range(t, min(e, top)):
                rel[j] = r_sum / (e - t)
                gains[j] = g_sum / (e - t)
            t = e
    else:
        for j in range(top):
            if grades[j] >= threshold:
                rel[j] = 1.0
            gains[j] = _gain(grades[j], gain_threshold, gain)

    hits = 0.0
    for j in range(top):
        hits += rel[j]
    aux = float(n_rel)

    if kind == PRECISION:
        return (hits / k_eff if k_eff > 0 else 0.0), aux
    if kind == R_PRECISION:
        return (hits / n_rel if n_rel > 0 else 0.0), aux
    if kind == RECALL:
        return (hits / n_rel if n_rel > 0 else 0.0), aux
    if kind == F1:
        den = k_eff + n_rel
        return (2.0 * hits / den if den > 0 else 0.0), aux
    if kind == HIT_RATIO:
        return hits, aux
    if kind == CG:
        s = 0.0
        for j in range(top):
            s += gains[j]
        return s, aux
    if kind == DCG or kind == NDCG or kind == IDCG:
        dcg = 0.0
        for j in range(top):
            dcg += gains[j] * disc[j]
        if kind == DCG:
            return dcg, aux
        idcg = _idcg(ideal, k, k_eff, gain_threshold, gain, grades, n, q_desc, qa, qb, cand, disc)
        if kind == IDCG:
            return idcg, aux
        return (dcg / idcg if idcg > 0 else 0.0), aux
    if kind == SUCCESS or kind == RR:
        if ties != TIES_AVERAGE:
            for j in range(top):
                if rel[j] > 0:
                    return (1.0 if kind == SUCCESS else 1.0 / (j + 1)), aux
            return 0.0, aux
        # expected value over random orders of tied blocks
        t = 0
        value = 0.0
        while t < n and t < top:
            e = t + 1
            while e < n and scores[a + e] == scores[a + t]:
                e += 1
            h = 0
            for j in range(t, e):
                if grades[j] >= threshold:
                    h += 1
            if h > 0:
                first = _expected_first_hit(e - t, h, min(e, top) - t)
                for j in range(first.shape[0]):
                    value += first[j] * (1.0 if kind == SUCCESS else 1.0 / (t + j + 1))
                return value, aux
            t = e
        return value, aux
    if kind == AP and ties == TIES_AVERAGE:
        if ap_norm == AP_RELEVANT:
            fixed = float(n_rel)
        elif ap_norm == AP_MIN_K:
            fixed = float(min(n_rel, k_eff)) if k > 0 else float(n_rel)
        else:
            fixed = -1.0  # by the hits within top
        return _expected_ap(grades, scores, a, n, top, threshold, fixed), aux
    if kind == AP:
        s = 0.0
        seen = 0.0
        for j in range(top):
            if rel[j] > 0:
                seen += 1.0
                s += seen / (j + 1)
        if ap_norm == AP_RELEVANT:
            norm = float(n_rel)
        elif ap_norm == AP_MIN_K:
            norm = float(min(n_rel, k_eff)) if k > 0 else float(n_rel)
        else:
            norm = hits
        return (s / norm if norm > 0 else 0.0), aux
    return np.nan, aux


@nb.njit(cache=True, nogil=True)
def _metric_from_hits(
    kind, k, threshold, gain, ap_norm, ideal, grades, n, hpos, hgr, h, n_rel,
    q_desc, qa, qb, cand, disc,
):  # fmt: skip
    """Value of one metric for one user from the positions of its relevant items.

    ``hpos[:h]`` are the ranks (0-based, ascending) of the recommended items
    whose grade is at least ``threshold`` and ``hgr[:h]`` their grades: every
    metric here only sums over those, so a user costs O(hits), not O(k).
    Terms are added in rank order, so sums equal a walk over every position.
    """
    if kind == R_PRECISION:  # R-precision@k (Recommenders): the top min(R, k), over R
        k_eff = n_rel if k <= 0 else min(n_rel, k)
    elif k > 0:
        k_eff = k
    else:
        k_eff = n
    top = min(k_eff, n)
    hits = 0
    while hits < h and hpos[hits] < top:
        hits += 1
    if kind == PRECISION:
        return hits / k_eff if k_eff > 0 else 0.0
    if kind == R_PRECISION:
        return hits / n_rel if n_rel > 0 else 0.0
    if kind == RECALL:
        return hits / n_rel if n_rel > 0 else 0.0
    if kind == F1:
        den = k_eff + n_rel
        return 2.0 * hits / den if den > 0 else 0.0
    if kind == HIT_RATIO:
        return float(hits)
    if kind == SUCCESS:
        return 1.0 if hits > 0 else 0.0
    if kind == RR:
        return 1.0 / (hpos[0] + 1) if hits > 0 else 0.0
    if kind == AP:
        s = 0.0
        for i in range(hits):
            s += (i + 1.0) / (hpos[i] + 1)
        if ap_norm == AP_RELEVANT:
            norm = float(n_rel)
        elif ap_norm == AP_MIN_K:
            norm = float(min(n_rel, k_eff)) if k > 0 else float(n_rel)
        else:
            norm = float(hits)
        return s / norm if norm > 0 else 0.0
    if kind == CG:
        s = 0.0
        for i in range(hits):
            s += _gain(hgr[i], threshold, gain)
        return s
    # DCG, IDCG, NDCG
    dcg = 0.0
    for i in range(hits):
        dcg += _gain(hgr[i], threshold, gain) * disc[hpos[i]]
    if kind == DCG:
        return dcg
    idcg = _idcg(ideal, k, k_eff, threshold, gain, grades, n, q_desc, qa, qb, cand, disc)
    if kind == IDCG:
        return idcg
    return dcg / idcg if idcg > 0 else 0.0


@nb.njit(cache=True, nogil=True, parallel=True)
def _evaluate_users(
    q_offsets,
    q_items,
    q_grades,
    q_desc,
    r_offsets,
    r_items,
    r_scores,
    r_keys,
    item_map,
    user_map,
    specs,
    max_len,
    n_chunks,
    disc,
    slots,
):
    """Every metric (rows of ``specs``) for every qrels user.

    ``item_map`` maps qrels item codes to run item codes (-1 when no user was
    recommended the item); ``user_map[u]`` is the run user of qrels user u (-1
    when absent from the run); ``r_keys[item]`` breaks ties for ``ties='trec'``
    (the rank of the run item's id in string order; may be empty when the run
    has no ties). The grade of each recommended item is found through a table
    over run item codes, one row of ``slots`` per thread (filled with -1, at
    least as many rows as threads): qrels row t of user u writes ``t`` at its
    item, and a recommended item is judged for u exactly when the table holds a
    row of u (rows of other users lie outside u's range, so the table is never
    cleared). O(judged + recommended) per user, one table read per
    recommended item. Users are split into ``n_chunks`` contiguous
    chunks, each with scratch buffers of ``max_len`` (the longest list);
    ``disc[j] = 1 / log2(j + 2)`` covers the longest list and the most judged
    items of a user. Returns values and R (the user's relevant items) per
    metric, values nan where a rule skips the user.
    """
    n_users = q_offsets.shape[0] - 1
    n_metrics = specs.shape[0]
    values = np.empty((n_users, n_metrics))
    aux = np.empty((n_users, n_metrics))
    need_trec = False
    need_ascending = False
    for m in range(n_metrics):
        if specs[m, S_TIES] == TIES_TREC:
            need_trec = True
        if specs[m, S_TIES] == TIES_ID_ASCENDING:
            need_ascending = True
    need_trec = need_trec and r_keys.shape[0] > 0
    need_ascending = need_ascending and r_keys.shape[0] > 0
    for c in nb.prange(n_chunks):
        slot = slots[nb.get_thread_id()]
        u0 = n_users * c // n_chunks
        u1 = n_users * (c + 1) // n_chunks
        grades_input = np.zeros(max_len)
        grades_trec = np.zeros(max_len)
        grades_ascending = np.zeros(max_len)
        grades_positive = np.zeros(max_len)
        rel = np.zeros(max_len)
        gains = np.zeros(max_len)
        cand = np.zeros(max_len)
        hpos = np.zeros(max_len, dtype=np.int64)
        hgr = np.zeros(max_len)
        for u in range(u0, u1):
            qa = q_offsets[u]
            qb = q_offsets[u + 1]
            ru = user_map[u]
            a = 0
            n = 0
            if ru >= 0:
                a = r_offsets[ru]
                n = r_offsets[ru + 1] - a
                for t in range(qa, qb):
                    ri = item_map[q_items[t]]
                    if ri >= 0:
                        slot[ri] = t
            for j in range(n):
                # unjudged items are below every threshold
                grades_input[j] = -np.inf
                t = slot[r_items[a + j]]
                if t >= qa and t < qb:
                    grades_input[j] = q_grades[t]
            trec_differs = False
            if need_trec and n > 1:
                for j in range(1, n):
                    if np.float32(r_scores[a + j]) == np.float32(r_scores[a + j - 1]):
                        trec_differs = True
                        break
                if trec_differs:
                    perm = _trec_order(r_scores, r_items, r_keys, a, n)
                    for j in range(n):
                        grades_trec[j] = grades_input[perm[j]]
            ascending_differs = False
            if need_ascending and n > 1:
                for j in range(1, n):
                    if r_scores[a + j] == r_scores[a + j - 1]:
                        ascending_differs = True
                        break
                if ascending_differs:
                    perm = _trec_order(r_scores, r_items, r_keys, a, n, True)
                    for j in range(n):
                        grades_ascending[j] = grades_input[perm[j]]
            rel_threshold = 0.0  # threshold of the cached n_rel, valid when have_rel
            have_rel = False
            n_rel = 0
            hits_threshold = 0.0  # threshold and order of the cached hit list
            hits_order = 0  # 0: input order, 1: trec, 2: id ascending; +3: positive scores
            have_hits = False
            any_nonpositive = False
            for j in range(n):
                if r_scores[a + j] <= 0:
                    any_nonpositive = True
                    break
            h = 0
            for m in range(n_metrics):
                threshold = specs[m, S_THRESHOLD]
                if not have_rel or threshold != rel_threshold:
                    n_rel = 0
                    for t in range(qa, qb):
                        if q_desc[t] >= threshold:
                            n_rel += 1
                    rel_threshold = threshold
                    have_rel = True
                aux[u, m] = n_rel
                if (ru < 0 and specs[m, S_MISSING_SKIP] == 1) or (
                    n_rel == 0 and specs[m, S_EMPTY] == EMPTY_SKIP
                ):
                    values[u, m] = np.nan
                    continue
                kind = specs[m, S_KIND]
                # hit_ratio is one pooled ratio: an empty user adds 0 hits and 0 items
                if n_rel == 0 and specs[m, S_EMPTY] == EMPTY_ONE and kind != HIT_RATIO:
                    values[u, m] = 1.0
                    continue
                # the DCG family sums gains, earned from the gain threshold on
                is_gain = kind == CG or kind == DCG or kind == IDCG or kind == NDCG
                gain_threshold = specs[m, S_GAIN_THRESHOLD] if is_gain else threshold
                ties = specs[m, S_TIES]
                order = 0
                grades = grades_input
                if ties == TIES_TREC and trec_differs:
                    order = 1
                    grades = grades_trec
                elif ties == TIES_ID_ASCENDING and ascending_differs:
                    order = 2
                    grades = grades_ascending
                if specs[m, S_POSITIVE_SCORES] == 1 and any_nonpositive and not is_gain:
                    # an item scored <= 0 is never a hit (torchmetrics); a tied block
                    # shares its score, so the input-order scores hold for every order
                    for j in range(n):
                        grades_positive[j] = grades[j] if r_scores[a + j] > 0 else -np.inf
                    grades = grades_positive
                    order += 3
                if ties == TIES_AVERAGE:
                    v, _ = _user_metric(
                        kind, specs[m, S_K], threshold, gain_threshold, specs[m, S_GAIN],
                        specs[m, S_AP_NORM], specs[m, S_IDEAL], ties, grades, r_scores,
                        a, n, q_desc, qa, qb, rel, gains, cand, disc,
                    )  # fmt: skip
                    values[u, m] = v
                    continue
                if not have_hits or gain_threshold != hits_threshold or order != hits_order:
                    h = 0
                    for j in range(n):
                        if grades[j] >= gain_threshold:
                            hpos[h] = j
                            hgr[h] = grades[j]
                            h += 1
                    hits_threshold = gain_threshold
                    hits_order = order
                    have_hits = True
                values[u, m] = _metric_from_hits(
                    kind, specs[m, S_K], gain_threshold, specs[m, S_GAIN],
                    specs[m, S_AP_NORM], specs[m, S_IDEAL], grades, n, hpos, hgr, h,
                    n_rel, q_desc, qa, qb, cand, disc,
                )  # fmt: skip
    return values, aux


def evaluate_users(
    q_offsets: np.ndarray,
    q_items: np.ndarray,
    q_grades: np.ndarray,
    q_desc: np.ndarray,
    r_offsets: np.ndarray,
    r_items: np.ndarray,
    r_scores: np.ndarray,
    r_keys: np.ndarray,
    item_map: np.ndarray,
    user_map: np.ndarray,
    specs: np.ndarray,
    max_len: int,
    n_chunks: int,
    disc: np.ndarray,
    slots: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``_evaluate_users`` for spec rows of the original metric kinds (0..13).

    Raises ``NotImplementedError`` for what only the compiled core computes:
    trec_eval's measures (kinds 14..40), a depth, judged-only, float parameters and
    custom gain tables.
    """
    specs = np.asarray(specs)
    kinds = specs[:, S_KIND]
    trec = np.isin(kinds, TREC_KINDS)
    extra = (specs[:, S_DEPTH] != 0) | (specs[:, S_JUDGED_ONLY] != 0)
    extra |= (specs[:, S_PARAMS:] != 0).any(axis=1) | (specs[:, S_GAIN] == GAIN_CUSTOM)
    extra |= specs[:, S_TIES] == TIES_ID_DESCENDING
    extra |= (specs[:, S_DISCOUNT] != 0) | (specs[:, S_PRECISION_NORM] != 0)
    extra |= (specs[:, S_RECALL_NORM] != 0) | (specs[:, S_AP_NORM] == AP_MIN_RETRIEVED)
    if trec.any() or extra.any():
        m = int(np.flatnonzero(trec | extra)[0])
        what = (
            f"metric kind {int(kinds[m])} (trec_eval's measures, kinds 14..40)"
            if trec[m]
            else "a depth, judged-only, float parameters, a custom gain table, "
            "ties='id_descending' or a LensKit normaliser or discount"
        )
        raise NotImplementedError(
            f"evaluate_users: the numba kernels compute the original ranking metrics only; "
            f"spec row {m} has {what}. Got RECEVAL_KERNELS=numba; use the compiled core "
            f"(unset RECEVAL_KERNELS) for this metric."
        )
    return _evaluate_users(
        q_offsets, q_items, q_grades, q_desc, r_offsets, r_items, r_scores, r_keys,
        item_map, user_map, specs, max_len, n_chunks, disc, slots,
    )  # fmt: skip
