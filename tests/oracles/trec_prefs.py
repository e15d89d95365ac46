"""Slow, obviously correct references for trec_eval's preference measures
(``prefs_*``, ``-R prefs`` and ``-R qrels_prefs``), one query at a time.

Written from the measures' definitions (trec_eval 10.0's ``-h`` texts and the
description of its preference format), in plain Python over one query's lines
``(jg, jsg, docno, level)`` and its ranking (docnos, best first):

- each judged docno gets a position: the judged retrieved ones in rank order,
  then the judged unretrieved ones in docno order; a preference x > y is a pair
  of positions;
- a judgment group with one sub-group prefers each line to every line of a lower
  level (a repeated line counts again; a docno at two levels is an error); one
  with several sub-groups takes the pairs of each sub-group, adds every pair
  implied by transitivity, and drops the pairs of a docno with itself (a pair
  both ways is an error); a docno's level there is the last it is given, reading
  lines by sub-group, then decreasing level, then position (0 after a level above
  0, or the reverse, is an error);
- x > y is fulfilled when x is retrieved and y is not, or both are and x ranks
  above y; counted "ret" when both are retrieved, "imp" when one is, "notoccur"
  when neither.
"""

from __future__ import annotations

from collections import defaultdict

Line = tuple[str, str, str, float]


class Inconsistent(ValueError):
    """The judgments contradict themselves (trec_eval stops)."""


def _ratio(a: int, b: int) -> float:
    if b == 0:
        return float("nan") if a == 0 else float("inf")
    return a / b


def _positions(lines: list[Line], ranking: list[str]) -> tuple[dict[str, int], int]:
    judged = sorted({doc for _, _, doc, _ in lines})
    retrieved = [doc for doc in ranking if doc in judged]
    pos = {doc: i for i, doc in enumerate(retrieved)}
    for doc in judged:
        if doc not in pos:
            pos[doc] = len(pos)
    return pos, len(retrieved)


def _one_subgroup(rows: list[tuple[int, float]], njr: int) -> dict:
    """A judgment group with one sub-group: ``rows`` are (position, level)."""
    levels_of = defaultdict(set)
    for p, level in rows:
        levels_of[p].add(level)
    if any(len(v) > 1 for v in levels_of.values()):
        raise Inconsistent("a docno at two levels of one sub-group")
    prefs = [(x, y) for x, lx in rows for y, ly in rows if lx > ly]
    rel = [p for p, level in rows if level > 0]
    nonrel = [p for p, level in rows if not level > 0]
    # the levels from high to low, each with its positions in increasing order
    classes = [sorted(p for p, lv in rows if lv == level) for level in sorted(
        {lv for _, lv in rows}, reverse=True)]  # fmt: skip
    out = {"prefs": prefs, "rel": rel, "nonrel": nonrel}
    out["rnonrel"] = _rnonrel_classes(classes, len(rel), len(nonrel), prefs, rel, njr, False)
    rel_ret = [p for p in rel if p < njr]
    nonrel_ret = [p for p in nonrel if p < njr]
    out["rnonrel_ret"] = _rnonrel_classes(
        classes, len(rel_ret), len(nonrel_ret), prefs, rel, njr, True
    )
    return out


def _counts(prefs: list[tuple[int, int]], njr: int) -> dict[str, int]:
    c = dict.fromkeys(("ful_ret", "poss_ret", "ful_imp", "poss_imp", "notoccur"), 0)
    for x, y in prefs:
        if x < njr and y < njr:
            c["poss_ret"] += 1
            if x < y:
                c["ful_ret"] += 1
        elif x < njr:
            c["ful_imp"] += 1
            c["poss_imp"] += 1
        elif y < njr:
            c["poss_imp"] += 1
        else:
            c["notoccur"] += 1
    return c


def _added(prefs, rel, r, n, njr, ret):
    """R >= N: R - N fulfilled nonrelevant documents per retrieved relevant one; the
    possible ones grow by (number of relevant) x (R - N) in both variants."""
    c = _counts(prefs, njr)
    rel_ret = len([p for p in rel if p < njr])
    if ret:
        return c["ful_ret"] + rel_ret * (r - n), c["poss_ret"] + len(rel) * (r - n)
    ful = c["ful_ret"] + c["ful_imp"] + rel_ret * (r - n)
    return ful, c["poss_ret"] + c["poss_imp"] + c["notoccur"] + len(rel) * (r - n)


def _rnonrel_classes(classes, r, n, prefs, rel, njr, ret):
    """prefs_avgjg_Rnonrel(_ret) of a one-sub-group judgment group. With N > R only
    the first R positions of the lowest level are kept, and trec_eval pairs every
    level's positions (the lowest one's too) with them."""
    if r >= n:
        return _added(prefs, rel, r, n, njr, ret)
    if ret:
        classes = [[p for p in cls if p < njr] for cls in classes]
        kept = [p for p in classes[-1][:r]]
    else:
        kept = classes[-1][:r]

    def fulfilled(x, y):
        return x < y if ret else (x < y and x < njr)

    ful = poss = 0
    for i in range(len(classes)):
        for j in range(i + 1, len(classes) - 1):
            for x in classes[i]:
                for y in classes[j]:
                    poss += 1
                    ful += fulfilled(x, y)
    for cls in classes:
        for x in cls:
            for y in kept:
                poss += 1
                ful += fulfilled(x, y)
    return ful, poss


def _subgroups(rows: list[tuple[str, int, float]], njr: int) -> dict:
    """A judgment group with several sub-groups: ``rows`` are (jsg, position, level)."""
    docs = sorted({p for _, p, _ in rows})
    pref = {(x, y) for s1, x, lx in rows for s2, y, ly in rows if s1 == s2 and lx > ly}
    for d in docs:  # reflexive, then Warshall
        pref.add((d, d))
    for k in docs:
        for i in docs:
            if (i, k) in pref:
                for j in docs:
                    if (k, j) in pref:
                        pref.add((i, j))
    prefs = sorted((x, y) for x, y in pref if x != y)
    if any((y, x) in pref for x, y in prefs):
        raise Inconsistent("a pair preferred both ways")
    level: dict[int, float] = {}
    for _, p, lv in sorted(rows, key=lambda r: (r[0], -r[2], r[1])):
        before = level.get(p)
        if before is not None and ((before > 0 and lv == 0) or (before == 0 and lv > 0)):
            raise Inconsistent("a docno at 0 and above 0")
        level[p] = lv
    rel = [p for p in docs if level[p] > 0]
    nonrel = [p for p in docs if level[p] == 0]
    out = {"prefs": prefs, "rel": rel, "nonrel": nonrel}
    out["rnonrel"] = _rnonrel_pairs(prefs, rel, nonrel, njr, False)
    out["rnonrel_ret"] = _rnonrel_pairs(prefs, rel, nonrel, njr, True)
    return out


def _rnonrel_pairs(prefs, rel, nonrel, njr, ret):
    if ret:
        r, n = len([p for p in rel if p < njr]), len([p for p in nonrel if p < njr])
    else:
        r, n = len(rel), len(nonrel)
    if r >= n:
        return _added(prefs, rel, r, n, njr, ret)
    # the nonrelevant documents after the first R are left out (trec_eval's _ret
    # variant keeps as many retrieved ones as there are relevant documents, all)
    if ret:
        dropped = set(sorted(p for p in nonrel if p < njr)[len(rel) :])
        kept = [(x, y) for x, y in prefs if x < njr and y < njr]
    else:
        dropped = set(sorted(nonrel)[r:])
        kept = prefs
    kept = [(x, y) for x, y in kept if x not in dropped and y not in dropped]
    ful = sum(1 for x, y in kept if x < y and (ret or x < njr))
    return ful, len(kept)


def prefs_oracle(lines: list[Line], ranking: list[str]) -> dict[str, float]:
    """The 14 ``prefs_*`` values of one query (raises :class:`Inconsistent`)."""
    if len(set(ranking)) != len(ranking):
        raise Inconsistent("a docno twice in the ranking")
    pos, njr = _positions(lines, ranking)
    by_group: dict[str, list[Line]] = defaultdict(list)
    for line in lines:
        by_group[line[0]].append(line)
    groups = []
    for jg in sorted(by_group):
        rows = by_group[jg]
        if len({jsg for _, jsg, _, _ in rows}) == 1:
            groups.append(_one_subgroup([(pos[d], lv) for _, _, d, lv in rows], njr))
        else:
            groups.append(_subgroups([(s, pos[d], lv) for _, s, d, lv in rows], njr))
    for g in groups:
        g.update(_counts(g["prefs"], njr))
    total = {
        k: sum(g[k] for g in groups)
        for k in ("ful_ret", "poss_ret", "ful_imp", "poss_imp", "notoccur")
    }
    ful = total["ful_ret"] + total["ful_imp"]
    poss = total["poss_ret"] + total["poss_imp"] + total["notoccur"]

    def avg(parts, skip_empty=True):
        s = 0.0
        for f, p in parts:
            if p or not skip_empty:
                s += _ratio(f, p)
        return s / len(groups) if s > 0.0 else 0.0

    # prefs_pair: per pair of documents, the share of its preferences (all groups)
    # that the ranking fulfils; pairs of two unretrieved documents count 0
    count: dict[tuple[int, int], int] = defaultdict(int)
    for g in groups:
        for x, y in g["prefs"]:
            count[x, y] += 1
    n = len(pos)
    sums = {"ret": 0.0, "imp": 0.0}
    pairs = {"ret": 0, "imp": 0, "all": 0}
    for region in ("ret", "imp", "none"):
        for i in range(n):
            for j in range(i + 1, n):
                where = "ret" if j < njr else "imp" if i < njr else "none"
                if where != region or not (count[i, j] or count[j, i]):
                    continue
                share = count[i, j] / (count[i, j] + count[j, i])
                pairs["all"] += 1
                if region != "none":
                    sums["imp"] += share
                    pairs["imp"] += 1
                if region == "ret":
                    sums["ret"] += share
                    pairs["ret"] += 1
    return {
        "prefs_num_prefs_poss": float(poss),
        "prefs_num_prefs_ful": float(ful),
        "prefs_num_prefs_ful_ret": float(total["ful_ret"]),
        "prefs_simp": ful / poss if poss else 0.0,
        "prefs_pair": sums["imp"] / pairs["all"] if pairs["all"] else 0.0,
        "prefs_avgjg": avg(
            [
                (g["ful_ret"] + g["ful_imp"], g["poss_ret"] + g["poss_imp"] + g["notoccur"])
                for g in groups
            ]
        ),
        "prefs_avgjg_Rnonrel": avg([g["rnonrel"] for g in groups], skip_empty=False),
        "prefs_simp_ret": total["ful_ret"] / total["poss_ret"] if total["poss_ret"] else 0.0,
        "prefs_pair_ret": sums["ret"] / pairs["ret"] if pairs["ret"] else 0.0,
        "prefs_avgjg_ret": avg([(g["ful_ret"], g["poss_ret"]) for g in groups]),
        "prefs_avgjg_Rnonrel_ret": avg([g["rnonrel_ret"] for g in groups], skip_empty=False),
        "prefs_simp_imp": (
            ful / (total["poss_ret"] + total["poss_imp"])
            if total["poss_ret"] + total["poss_imp"]
            else 0.0
        ),
        "prefs_pair_imp": sums["imp"] / pairs["imp"] if pairs["imp"] else 0.0,
        "prefs_avgjg_imp": avg(
            [(g["ful_ret"] + g["ful_imp"], g["poss_ret"] + g["poss_imp"]) for g in groups]
        ),
    }
