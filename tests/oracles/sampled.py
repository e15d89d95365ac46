"""A slow reference for sampled evaluation: the hypergeometric law of sampled ranks,
Krichene and Rendle's three corrections written from their definitions with the
full matrix (no blocks, no caching), and corrected user values in plain Python.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

import numpy as np


def metric_at(name: str, k: int | None, r: float) -> float:
    """The metric of one relevant item at full rank ``r``."""
    if k is not None and r > k:
        return 0.0
    if name in ("recall", "success"):
        return 1.0
    if name == "ndcg":
        return 1.0 / math.log2(r + 1)
    return 1.0 / r  # mrr, map with one relevant item


def pmf_matrix(n: int, size: int) -> np.ndarray:
    """A[r - 1, j] = P(sampled rank = j + 1 | full rank r): of n negatives drawn without
    replacement from the size - 1 other items, j among the r - 1 above:
    C(r - 1, j) C(size - r, n - j) / C(size - 1, n), as an exact fraction first."""
    out = np.zeros((size, n + 1))
    total = math.comb(size - 1, n)
    for r in range(1, size + 1):
        for j in range(n + 1):
            out[r - 1, j] = float(Fraction(math.comb(r - 1, j) * math.comb(size - r, n - j), total))
    return out


def corrected(name: str, k: int | None, n: int, size: int, correction: str, gamma: float = 0.1):
    if correction == "rank":
        # the paper's estimate, rounded down: M(floor(1 + (r~ - 1)(N - 1) / n))
        ranks = [1 + (s - 1) * (size - 1) // n for s in range(1, n + 2)]
        return np.array([metric_at(name, k, r) for r in ranks])
    a = pmf_matrix(n, size)
    target = np.array([metric_at(name, k, r) for r in range(1, size + 1)])
    if correction == "minimal_bias":
        return np.linalg.lstsq(a, target, rcond=None)[0]
    # d/dx of sum_r (a_r x - m_r)^2 + gamma (sum_j a_rj x_j^2 - (a_r x)^2) = 0
    lhs = (1 - gamma) * a.T @ a + gamma * np.diag(a.sum(axis=0))
    return np.linalg.solve(lhs, a.T @ target)


def sampled_rank(scores: Mapping, item, relevant: set) -> int:
    """1 + the items not relevant ranked above ``item``: score descending, ties (equal
    in single precision) by item id descending: ties="trec"."""
    above = 0
    mine = np.float32(scores[item])
    for other, s in scores.items():
        if other in relevant:
            continue
        if np.float32(s) > mine or (np.float32(s) == mine and str(other) > str(item)):
            above += 1
    return above + 1


def corrected_user_values(qrels, run, candidates, name, k, size, correction, gamma=0.1):
    """{user: mean over relevant items of the corrected metric, or None}; a user absent
    from the run or without candidates: 0.0 (missing_users="zero"; an empty list)."""
    out = {}
    for user, judged in qrels.items():
        relevant = {i for i, g in judged.items() if g >= 1}
        if not relevant:
            out[user] = None
            continue
        cands = set(candidates.get(user, ()))
        if user not in run or not cands:
            out[user] = 0.0
            continue
        scores = {i: s for i, s in run.get(user, {}).items() if i in cands}
        n = len(cands - relevant)
        table = corrected(name, k, n, size, correction, gamma)
        total = 0.0
        for item in relevant:
            rank = sampled_rank(scores, item, relevant) if item in scores else n + 1
            total += table[rank - 1]
        out[user] = total / len(relevant)
    return out
