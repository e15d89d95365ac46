"""trec_eval 10.0's preference measures: ``-R prefs`` and ``-R qrels_prefs``.

A preference file has one line per judged document, ``query jg jsg docno level``:
within a judgment sub-group (jsg) of a judgment group (jg), a document of a
higher level is preferred to every document of a lower level (the levels only
order the documents, except that level 0 means nonrelevant and a level above 0
relevant). A jg with one jsg prefers each document to every document of a lower
level; a jg with several jsgs joins their preferences and adds the transitive
ones (A > B in one jsg and B > C in another give A > C). Judgment groups are
independent (users may disagree); inside one, a pair preferred both ways is an
error. ``-R qrels_prefs`` reads a qrels file (``query iteration docno grade``) the
same way: the iteration is the judgment group, with a single sub-group.

The ranking puts a run's documents in decreasing score, ties in increasing
docno (this is trec_eval's order for preferences, unlike its other measures),
keeps the first ``-M`` of them, and gives each judged document a position:
the judged retrieved documents in rank order, then the judged unretrieved ones
in docno order. A preference A > B is

- fulfilled among retrieved documents when both are retrieved and A ranks above B;
- fulfilled by implication when A is retrieved and B is not;
- failed by implication when B is retrieved and A is not;
- not occurring when neither is retrieved (a failure for the measures that count it).

:func:`prefs_measures` computes the 14 ``prefs_*`` values of one query from
these counts, as trec_eval defines them (see its ``-h`` text for each); the
counts are summed over the queries and the ratios averaged.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..data._lookup import distinct
from ..exceptions import InputValidationError
from ..registry.trec_eval import PREFS_COUNTS as PREFS_COUNTS
from ..registry.trec_eval import PREFS_MEASURES as PREFS_MEASURES

__all__ = [
    "PREFS_COUNTS",
    "PREFS_MEASURES",
    "Preferences",
    "QueryPreferences",
    "prefs_columns",
    "prefs_measures",
    "read_prefs",
]

#: trec_eval ranks a query absent from the run (with ``-c``) as this one document.
ABSENT_QUERY_RANKING = ("ceci_nest_pas_un_docno",)


# ------------------------------------------------------------------ reading
@dataclass(frozen=True)
class QueryPreferences:
    """The preference lines of one query (one entry per line, in file order).

    Attributes
    ----------
    groups, subgroups, docs : ndarray of str
        Judgment group, judgment sub-group and docno of each line.
    levels : ndarray of float64
        The level of each line (0: nonrelevant).
    """

    groups: np.ndarray
    subgroups: np.ndarray
    docs: np.ndarray
    levels: np.ndarray


@dataclass(frozen=True)
class Preferences:
    """The preference judgments of a file: each query's :class:`QueryPreferences`."""

    queries: dict[str, QueryPreferences]

    @property
    def user_ids(self) -> np.ndarray:
        """The query ids, in file order of their first line."""
        return np.array(list(self.queries), dtype=object)


def read_prefs(path: str | os.PathLike[str], *, qrels: bool = False) -> Preferences:
    """Read a trec_eval preferences file (``-R prefs``) or a qrels file as one
    (``-R qrels_prefs``).

    Parameters
    ----------
    path : str or path-like
        The file (gzip detected). Lines are ``query jg jsg docno level``, or with
        ``qrels=True`` ``query iteration docno grade`` (the iteration is the
        judgment group, all in one sub-group). Blank lines and lines starting with
        ``#`` are skipped; levels are real numbers.
    qrels : bool, default=False
        Read the qrels form.

    Returns
    -------
    Preferences

    Raises
    ------
    InputValidationError
        A line with another number of fields, or a level that is not a number
        (naming the file and the line).

    Examples
    --------
    >>> import os, tempfile
    >>> from receval.trec.prefs import read_prefs
    >>> path = os.path.join(tempfile.mkdtemp(), "prefs")
    >>> with open(path, "w") as f:
    ...     _ = f.write("# a comment\\nq1 u1 s1 d1 2\\nq1 u1 s1 d2 0\\n")
    >>> p = read_prefs(path)
    >>> p.queries["q1"].docs.tolist(), p.queries["q1"].levels.tolist()
    (['d1', 'd2'], [2.0, 0.0])
    """
    from ..data import io
    from ..data._arrow import to_numpy

    if qrels:
        (qids, groups, docs, levels), lines = io.read_whitespace_table(
            path, 4, "query iteration docno grade"
        )
        subgroups = None
    else:
        (qids, groups, subgroups, docs, levels), lines = io.read_whitespace_table(
            path, 5, "query jg jsg docno level"
        )
    values = io.parse_numbers(levels, path, lines, "level", integer=False)
    bad = np.flatnonzero(np.isnan(values))
    if bad.size:
        raise InputValidationError(
            f"{os.fspath(path)}:{int(lines[bad[0]])}: the level "
            f"{levels[int(bad[0])].as_py()!r} is not a number."
        )

    q = to_numpy(qids)
    g, d = to_numpy(groups), to_numpy(docs)
    s = np.full(len(q), "0", dtype=object) if subgroups is None else to_numpy(subgroups)
    names, first, inverse = np.unique(q, return_index=True, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(len(names) + 1))
    queries = {}
    for j in np.argsort(first, kind="stable").tolist():
        rows = order[bounds[j] : bounds[j + 1]]
        queries[str(names[j])] = QueryPreferences(g[rows], s[rows], d[rows], values[rows])
    return Preferences(queries)


# ------------------------------------------------------------------ counting
def _ranges(starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """``concatenate([arange(a, b) for a, b in zip(starts, stops)])``, vectorised."""
    lengths = stops - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(lengths)
    steps = np.ones(total, dtype=np.int64)
    nonempty = lengths > 0
    # at the first element of each range, jump from the previous range's last element
    heads = (ends - lengths)[nonempty]
    prev_last = np.concatenate(([0], (stops - 1)[nonempty][:-1]))
    steps[heads] = starts[nonempty] - prev_last
    return np.cumsum(steps)


def _block_pairs(block_end: np.ndarray, group_end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (line a, line b) with b after a's block and before a's group ends."""
    lengths = group_end - block_end
    a = np.repeat(np.arange(len(block_end)), lengths)
    b = _ranges(block_end, group_end)
    return a, b


def _run_ends(keys: list[np.ndarray]) -> np.ndarray:
    """For each position of sorted ``keys``, the end of its run of equal keys."""
    n = len(keys[0])
    change = np.zeros(n, dtype=bool)
    for k in keys:
        change[1:] |= k[1:] != k[:-1]
    starts = np.flatnonzero(np.concatenate(([True], change[1:]))) if n else np.zeros(0, int)
    ends = np.append(starts[1:], n)
    run = np.cumsum(np.concatenate(([True], change[1:]))) - 1 if n else np.zeros(0, int)
    result: np.ndarray = ends[run]
    return result


def _closure(adjacency: np.ndarray) -> np.ndarray:
    """The transitive closure of a boolean relation (by squaring the reflexive one)."""
    k = len(adjacency)
    reach = adjacency | np.eye(k, dtype=bool)
    while True:
        m = reach.astype(np.float32)  # exact: sums of k ones, k < 2**24
        nxt = (m @ m) > 0
        if np.array_equal(nxt, reach):
            break
        reach = nxt
    np.fill_diagonal(reach, False)
    return reach


def _ratio(a: int, b: int) -> float:
    """``a / b`` as C divides doubles (0/0 is nan)."""
    if b == 0:
        return float("nan") if a == 0 else float("inf")
    return a / b


@dataclass
class _Group:
    """The counts of one judgment group."""

    ful_ret: int = 0
    poss_ret: int = 0  # fulfilled or not, both retrieved
    ful_imp: int = 0
    poss_imp: int = 0  # fulfilled or not, one retrieved
    notoccur: int = 0
    num_rel: int = 0
    num_rel_ret: int = 0
    num_nonrel: int = 0
    num_nonrel_ret: int = 0
    rnonrel: tuple[int, int] = (0, 0)  # (fulfilled, possible) of prefs_avgjg_Rnonrel
    rnonrel_ret: tuple[int, int] = (0, 0)


def _classify(
    p: np.ndarray, q: np.ndarray, njr: int, rel: np.ndarray, non: np.ndarray, ret: np.ndarray
) -> _Group:
    """The counts of a group: its preferences ``p[i] > q[i]`` (document positions) and
    its relevant (``rel``) and nonrelevant (``non``) documents, retrieved (``ret``) or not."""
    pr, qr = p < njr, q < njr
    both = pr & qr
    g = _Group()
    g.ful_ret = int(np.count_nonzero(both & (p < q)))
    g.poss_ret = int(np.count_nonzero(both))
    g.ful_imp = int(np.count_nonzero(pr & ~qr))
    g.poss_imp = g.ful_imp + int(np.count_nonzero(~pr & qr))
    g.notoccur = int(np.count_nonzero(~pr & ~qr))
    g.num_rel, g.num_rel_ret = int(rel.sum()), int((rel & ret).sum())
    g.num_nonrel, g.num_nonrel_ret = int(non.sum()), int((non & ret).sum())
    return g


def _rnonrel_added(g: _Group, ret: bool) -> tuple[int, int]:
    """prefs_avgjg_Rnonrel(_ret) of a group with R >= N: R - N fulfilled nonrelevant
    documents added to every retrieved relevant one (trec_eval adds ``num_rel``
    times R - N possible ones in both variants)."""
    if ret:
        r, n = g.num_rel_ret, g.num_nonrel_ret
        return g.ful_ret + g.num_rel_ret * (r - n), g.poss_ret + g.num_rel * (r - n)
    r, n = g.num_rel, g.num_nonrel
    ful = g.ful_ret + g.ful_imp + g.num_rel_ret * (r - n)
    return ful, g.poss_ret + g.poss_imp + g.notoccur + g.num_rel * (r - n)


def _ec_group(
    d: np.ndarray, lv: np.ndarray, njr: int, where: str, names: np.ndarray
) -> tuple[_Group, Any]:
    """A judgment group of one sub-group: its lines sorted by decreasing level, then
    position. Returns the counts and the preferences (positions)."""
    m = len(d)
    ec_end = _run_ends([lv])
    new_ec = np.concatenate(([True], lv[1:] != lv[:-1]))
    ec = np.cumsum(new_ec) - 1
    n_ecs = int(ec[-1]) + 1
    # a document at two levels of one sub-group is an error
    pairs = np.unique(np.stack([d, ec]), axis=1)
    docs_seen, counts = np.unique(pairs[0], return_counts=True)
    if (counts > 1).any():
        raise InputValidationError(
            f"{where}the document {names[docs_seen[np.argmax(counts > 1)]]!r} has two "
            f"different levels in one judgment sub-group."
        )
    a, b = _block_pairs(ec_end, np.full(m, m))
    p, q = d[a], d[b]
    rel = lv > 0.0
    ret = d < njr
    g = _classify(p, q, njr, rel, ~rel, ret)
    # prefs_avgjg_Rnonrel: with more nonrelevant documents than relevant, only the
    # first R (in position order) of the last level are kept; trec_eval pairs every
    # level's documents, the last one's included, with those R
    last = d[ec == n_ecs - 1]  # in position order
    inner = ec[b] < n_ecs - 1
    if g.num_rel >= g.num_nonrel:
        g.rnonrel = _rnonrel_added(g, ret=False)
    else:
        kept = last[: g.num_rel]
        ful1 = int(np.count_nonzero(inner & (p < q) & (p < njr)))
        xs = np.sort(d)
        ful2 = int(np.searchsorted(xs, np.minimum(kept, njr), side="left").sum())
        g.rnonrel = (ful1 + ful2, int(inner.sum()) + m * len(kept))
    if g.num_rel_ret >= g.num_nonrel_ret:
        g.rnonrel_ret = _rnonrel_added(g, ret=True)
    else:
        kept = last[: g.num_rel_ret]
        kept = kept[kept < njr]
        both = inner & (p < njr) & (q < njr)
        ful1 = int(np.count_nonzero(both & (p < q)))
        xs = np.sort(d[ret])
        ful2 = int(np.searchsorted(xs, kept, side="left").sum())
        g.rnonrel_ret = (ful1 + ful2, int(both.sum()) + len(xs) * len(kept))
    return g, (p, q)


def _pa_group(
    d: np.ndarray, lv: np.ndarray, sub: np.ndarray, njr: int, where: str, names: np.ndarray
) -> tuple[_Group, Any]:
    """A judgment group of several sub-groups: lines sorted by sub-group, decreasing
    level, position. Preferences are joined over the sub-groups and closed
    transitively."""
    u, loc = np.unique(d, return_inverse=True)  # the group's documents, by position
    k = len(u)
    level_end = _run_ends([sub, lv])
    sub_end = _run_ends([sub])
    a, b = _block_pairs(level_end, sub_end)
    # each document's level: the last one given (in sub-group, decreasing level
    # order); a level of 0 after one above 0, or the reverse, is an error
    order = np.argsort(loc, kind="stable")
    seq_doc, seq_lv = loc[order], lv[order]
    same = seq_doc[1:] == seq_doc[:-1]
    prev, cur = seq_lv[:-1], seq_lv[1:]
    clash = same & (((prev > 0) & (cur == 0)) | ((prev == 0) & (cur > 0)))
    if clash.any():
        raise InputValidationError(
            f"{where}the document {names[u[seq_doc[1:][clash][0]]]!r} has both level 0 "
            f"(nonrelevant) and a level above 0."
        )
    adjacency = np.zeros((k, k), dtype=bool)
    adjacency[loc[a], loc[b]] = True
    reach = _closure(adjacency)
    both_ways = reach & reach.T
    if both_ways.any():
        i, j = np.argwhere(both_ways)[0]
        raise InputValidationError(
            f"{where}the documents {names[u[i]]!r} and {names[u[j]]!r} are each "
            f"preferred to the other (through its sub-groups); put contradicting "
            f"judgments in different judgment groups."
        )
    last_of_doc = np.append(np.flatnonzero(~same), len(seq_doc) - 1)
    level = seq_lv[last_of_doc]  # per document of u
    rel, non = level > 0.0, level == 0.0
    ret = u < njr
    pi, qi = np.nonzero(reach)
    p, q = u[pi], u[qi]
    g = _classify(p, q, njr, rel, non, ret)
    # prefs_avgjg_Rnonrel: nonrelevant documents after the first R are left out
    if g.num_rel >= g.num_nonrel:
        g.rnonrel = _rnonrel_added(g, ret=False)
    else:
        cut = u[non][g.num_rel]
        keep = ~(non & (u >= cut))
        kept = keep[pi] & keep[qi]
        g.rnonrel = (int(np.count_nonzero(kept & (p < q) & (p < njr))), int(kept.sum()))
    if g.num_rel_ret >= g.num_nonrel_ret:
        g.rnonrel_ret = _rnonrel_added(g, ret=True)
    else:
        # trec_eval keeps the first num_rel (not num_rel_ret) retrieved nonrelevant
        nonret = u[non & ret]
        cut = nonret[g.num_rel] if len(nonret) > g.num_rel else njr
        keep = ~(non & (u >= cut))
        kept = keep[pi] & keep[qi] & (p < njr) & (q < njr)
        g.rnonrel_ret = (int(np.count_nonzero(kept & (p < q))), int(kept.sum()))
    return g, (p, q)


def _sequential_sum(x: np.ndarray) -> float:
    """The sum of ``x`` added left to right, as a C loop adds doubles."""
    return float(np.cumsum(x)[-1]) if len(x) else 0.0


def prefs_measures(
    groups: Sequence[str] | np.ndarray,
    subgroups: Sequence[str] | np.ndarray,
    docs: Sequence[str] | np.ndarray,
    levels: Sequence[float] | np.ndarray,
    ranking: Sequence[str] | np.ndarray,
) -> dict[str, float]:
    """The 14 ``prefs_*`` values of one query, as trec_eval 10.0 computes them.

    Parameters
    ----------
    groups, subgroups, docs : sequence of str
        Judgment group, sub-group and docno of each preference line of the query.
    levels : sequence of float
        Level of each line: higher is preferred within a sub-group; 0 is nonrelevant.
    ranking : sequence of str
        The retrieved docnos, best first (trec_eval's order: decreasing score,
        ties in increasing docno; cut at ``-M``). Unjudged ones are ignored.

    Returns
    -------
    dict of str to float
        Each name of :data:`PREFS_MEASURES` to its value: the three counts, and
        the ratios (0 where trec_eval leaves a ratio undefined).

    Raises
    ------
    InputValidationError
        A docno twice in the ranking; a document at two levels of one sub-group
        (of a judgment group with one sub-group); a document at level 0 and
        above 0 in one judgment group; preferences of one judgment group that
        contradict each other (through transitivity).

    Notes
    -----
    With ``poss`` the preferences counted and ``ful`` those fulfilled:
    ``prefs_simp`` is ``ful / poss`` (implied preferences count; a pair with
    neither document retrieved fails), ``_ret`` counts only pairs with both
    retrieved and ``_imp`` only pairs with at least one; ``prefs_avgjg`` averages
    ``ful / poss`` over the judgment groups; ``prefs_pair`` averages over pairs
    of documents the share of their preferences (over all groups) that the
    ranking fulfils; ``prefs_avgjg_Rnonrel`` is ``prefs_avgjg`` with the number of
    nonrelevant documents of each group set to its number of relevant ones R
    (R - N fulfilled nonrelevant documents added per retrieved relevant one, or
    only the first R nonrelevant ones kept).

    Examples
    --------
    >>> from receval.trec.prefs import prefs_measures
    >>> v = prefs_measures(["u1"] * 3, ["s1"] * 3, ["a", "b", "c"], [2, 1, 0], ["b", "a"])
    >>> v["prefs_num_prefs_poss"], v["prefs_num_prefs_ful"], v["prefs_simp"]
    (3.0, 2.0, 0.6667)
    """
    groups = np.asarray(groups, dtype=object)
    subgroups = np.asarray(subgroups, dtype=object)
    docs = np.asarray(docs, dtype=object)
    levels = np.asarray(levels, dtype=np.float64)
    ranking = np.asarray(ranking, dtype=object)
    if not (len(groups) == len(subgroups) == len(docs) == len(levels)):
        raise InputValidationError(
            f"prefs_measures: groups, subgroups, docs and levels must have the same "
            f"length. Got lengths {[len(groups), len(subgroups), len(docs), len(levels)]}."
        )
    if len(distinct(ranking)) != len(ranking):
        listed = ranking.tolist()
        dup = next(x for i, x in enumerate(listed) if x in listed[:i])
        raise InputValidationError(f"prefs_measures: the ranking holds the document {dup!r} twice.")
    # positions: judged retrieved documents in rank order, then the others by docno
    judged, line_doc = np.unique(docs, return_inverse=True)
    n = len(judged)
    if n and len(ranking):
        at = np.minimum(np.searchsorted(judged, ranking), n - 1)
        ret = at[judged[at] == ranking]
    else:
        ret = np.zeros(0, dtype=np.int64)
    njr = len(ret)
    position = np.empty(n, dtype=np.int64)
    position[ret] = np.arange(njr)
    unretrieved = np.ones(n, dtype=bool)
    unretrieved[ret] = False
    position[unretrieved] = njr + np.arange(n - njr)
    d = position[line_doc]
    names = np.empty(n, dtype=object)
    names[position] = judged
    group_ids, g = np.unique(groups, return_inverse=True)  # strcmp order
    _, s = np.unique(subgroups, return_inverse=True)
    order = np.lexsort((d, -levels, s, g))
    g_sorted = g[order]
    bounds = np.searchsorted(g_sorted, np.arange(len(group_ids) + 1))
    counts: list[_Group] = []
    prefs_p, prefs_q = [], []
    for j in range(len(group_ids)):
        rows = order[bounds[j] : bounds[j + 1]]
        where = f"judgment group {group_ids[j]!r}: "
        sub = s[rows]
        if (sub == sub[0]).all():
            grp, (p, q) = _ec_group(d[rows], levels[rows], njr, where, names)
        else:
            grp, (p, q) = _pa_group(d[rows], levels[rows], sub, njr, where, names)
        counts.append(grp)
        prefs_p.append(p)
        prefs_q.append(q)
    empty = [np.zeros(0, dtype=np.int64)]
    p_all, q_all = np.concatenate(prefs_p or empty), np.concatenate(prefs_q or empty)
    return _values(counts, p_all, q_all, n, njr)


def _pair_means(p: np.ndarray, q: np.ndarray, n: int, njr: int) -> tuple[float, float, float]:
    """prefs_pair, prefs_pair_ret and prefs_pair_imp from every preference p > q."""
    if len(p) == 0:
        return 0.0, 0.0, 0.0
    lo, hi = np.minimum(p, q), np.maximum(p, q)
    key, inverse = np.unique(lo * n + hi, return_inverse=True)
    forward = np.bincount(inverse, weights=(p < q), minlength=len(key))  # lo > hi
    total = np.bincount(inverse, minlength=len(key)).astype(np.float64)
    i, j = key // n, key % n
    region = np.where(j < njr, 0, np.where(i < njr, 1, 2))
    order = np.lexsort((j, i, region))  # trec_eval's loops: both retrieved, then one
    share = (forward / total)[order]
    region = region[order]
    n_ret = int(np.count_nonzero(region == 0))
    n_imp = n_ret + int(np.count_nonzero(region == 1))
    sum_ret = _sequential_sum(share[:n_ret])
    sum_imp = _sequential_sum(share[:n_imp])
    pair = sum_imp / len(key) if len(key) else 0.0
    pair_ret = sum_ret / n_ret if n_ret else 0.0
    pair_imp = sum_imp / n_imp if n_imp else 0.0
    return pair, pair_ret, pair_imp


def _values(
    counts: list[_Group], p: np.ndarray, q: np.ndarray, n: int, njr: int
) -> dict[str, float]:
    ful_ret = sum(c.ful_ret for c in counts)
    ful_imp = sum(c.ful_imp for c in counts)
    poss_ret = sum(c.poss_ret for c in counts)
    poss_imp = sum(c.poss_imp for c in counts)
    notoccur = sum(c.notoccur for c in counts)
    poss = poss_ret + poss_imp + notoccur

    def mean_over_groups(parts: list[tuple[int, int]], skip_empty: bool) -> float:
        total = 0.0
        for ful, pos in parts:
            if pos or not skip_empty:
                total += _ratio(ful, pos)
        return total / len(counts) if total > 0.0 else 0.0  # nan > 0 is false

    pair, pair_ret, pair_imp = _pair_means(p, q, n, njr)
    return {
        "prefs_num_prefs_poss": float(poss),
        "prefs_num_prefs_ful": float(ful_ret + ful_imp),
        "prefs_num_prefs_ful_ret": float(ful_ret),
        "prefs_simp": (ful_ret + ful_imp) / poss if poss else 0.0,
        "prefs_pair": pair,
        "prefs_avgjg": mean_over_groups(
            [(c.ful_ret + c.ful_imp, c.poss_ret + c.poss_imp + c.notoccur) for c in counts], True
        ),
        "prefs_avgjg_Rnonrel": mean_over_groups([c.rnonrel for c in counts], False),
        "prefs_simp_ret": ful_ret / poss_ret if poss_ret else 0.0,
        "prefs_pair_ret": pair_ret,
        "prefs_avgjg_ret": mean_over_groups([(c.ful_ret, c.poss_ret) for c in counts], True),
        "prefs_avgjg_Rnonrel_ret": mean_over_groups([c.rnonrel_ret for c in counts], False),
        "prefs_simp_imp": (
            (ful_ret + ful_imp) / (poss_ret + poss_imp) if poss_ret + poss_imp else 0.0
        ),
        "prefs_pair_imp": pair_imp,
        "prefs_avgjg_imp": mean_over_groups(
            [(c.ful_ret + c.ful_imp, c.poss_ret + c.poss_imp) for c in counts], True
        ),
    }


def prefs_columns(
    prefs: Preferences,
    run: Any,
    queries: Sequence[str],
    *,
    depth: int | None = None,
    source: str = "",
) -> dict[str, np.ndarray]:
    """Every ``prefs_*`` value of each query, for ``receval trec-eval -R prefs``.

    Parameters
    ----------
    prefs : Preferences
        The judgments (:func:`read_prefs`).
    run : receval.Run
        The run; each query's documents are ranked by decreasing score, ties in
        increasing docno, as trec_eval ranks them for preferences.
    queries : sequence of str
        The queries to evaluate, in output order. A query absent from the run is
        ranked as trec_eval ranks it under ``-c`` (one unjudged document).
    depth : int, default=None
        Keep the first ``depth`` documents of each ranking (``-M``; 0 keeps none, as
        in trec_eval, whose ``-M 0`` cuts the placeholder ranking of ``-c`` too);
        None keeps all.
    source : str, default=""
        The judgments' file, named in error messages.

    Returns
    -------
    dict of str to ndarray
        Each name of :data:`PREFS_MEASURES` to its value per query.

    Raises
    ------
    InputValidationError
        Inconsistent judgments (see :func:`prefs_measures`), naming file and query.

    Examples
    --------
    >>> from receval import Run
    >>> from receval.trec.prefs import Preferences, QueryPreferences, prefs_columns
    >>> p = Preferences({"q1": QueryPreferences(
    ...     np.array(["u"] * 2, dtype=object), np.array(["s"] * 2, dtype=object),
    ...     np.array(["a", "b"], dtype=object), np.array([1.0, 0.0]))})
    >>> run = Run(["q1", "q1"], ["a", "b"], [0.5, 0.5])  # a tie: "a" first
    >>> prefs_columns(p, run, ["q1"])["prefs_simp"]
    array([1.])
    """
    rows = {str(u): i for i, u in enumerate(run.user_ids.tolist())}
    keys = run.trec_keys
    out = {name: np.zeros(len(queries)) for name in PREFS_MEASURES}
    for j, qid in enumerate(queries):
        i = rows.get(qid)
        if i is None:
            ranking = np.array(ABSENT_QUERY_RANKING, dtype=object)
        else:
            a, b = int(run.offsets[i]), int(run.offsets[i + 1])
            items = run.items[a:b]
            order = np.lexsort((keys[items], -run.scores[a:b]))
            ranking = np.asarray(run.item_ids[items[order]], dtype=object)
        if depth is not None:
            ranking = ranking[:depth]
        judged = prefs.queries[qid]
        try:
            values = prefs_measures(
                judged.groups, judged.subgroups, judged.docs, judged.levels, ranking
            )
        except InputValidationError as exc:
            raise InputValidationError(f"{source}: query {qid!r}: {exc}") from None
        for name, value in values.items():
            out[name][j] = value
    return out
