"""trec_eval's judgment groups (``-R qrels_jg``): several users' judgments of one query.

A qrels_jg file has the lines ``query group document grade``: the second field
names a judgment group, the judgments of one assessor (user) of the query. trec_eval
10.0 computes ``map_avgjg``, ``P_avgjg`` and ``Rprec_mult_avgjg`` from it: the
measure (``map``, ``P``, ``Rprec_mult``) of the query's ranking against each group's
judgments alone, averaged over the query's groups, then over the queries as usual.

Here each (query, group) is one user of the ranking kernel that
:func:`receval.evaluate` runs (the query's ranked documents against that group's
judgments), so a group's value is the engine's ``map``, ``precision@k`` or
``rprec_mult(mult=x)``, under the kernel specs ``receval trec-eval`` makes of its
options for ``-R qrels`` too (``-M 0`` included, which keeps no document). A query's
value adds its groups' values one by one in double precision, the groups in byte
order of their names, and divides by their number, as trec_eval does.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..data.seen import smallest_ids
from ..exceptions import InputValidationError
from ..registry.trec_eval import GROUP_FIELDS as GROUP_FIELDS
from ..registry.trec_eval import GROUP_MEASURES as GROUP_MEASURES

__all__ = [
    "GROUP_FIELDS",
    "GROUP_MEASURES",
    "GroupReport",
    "JudgmentGroups",
    "evaluate_groups",
    "id_matching",
    "read_judgment_groups",
]


@dataclass(frozen=True)
class JudgmentGroups:
    """The judgments of a qrels_jg file, one user per (query, group).

    Attributes
    ----------
    user_ids : ndarray of str
        The distinct queries, in byte order.
    group_query : ndarray of int64
        Per group, the index of its query in ``user_ids``; the groups are sorted by
        query, then by name in byte order.
    group_ids : ndarray of str
        Per group, its name (the second field of the file).
    qrels : Qrels
        The judgments: user ``k`` is group ``k``.
    """

    user_ids: np.ndarray
    group_query: np.ndarray
    group_ids: np.ndarray
    qrels: Any


@dataclass(frozen=True)
class GroupReport:
    """Per query, the values averaged over its judgment groups.

    Attributes
    ----------
    users : ndarray of str
        The queries (``JudgmentGroups.user_ids``).
    values : dict of str to ndarray of float64
        Per value name, each query's mean over its groups (a query absent from the
        run: its specs' ``missing_users``, 0 for ``receval trec-eval``'s).
    group_values : dict of str to ndarray of float64
        Per value name, each group's own value (in ``JudgmentGroups.group_ids`` order).
    """

    users: np.ndarray
    values: dict[str, np.ndarray]
    group_values: dict[str, np.ndarray]


def read_judgment_groups(path: str | os.PathLike[str]) -> JudgmentGroups:
    """Read a trec_eval qrels_jg file: ``query group document grade`` per line.

    Fields are separated by whitespace; blank lines and lines starting with ``#``
    are skipped; a file ending in ``.gz`` is read through gzip. A document judged
    twice by the same group of a query is an error (as in trec_eval); the same
    document in two groups is two users' judgments.

    Parameters
    ----------
    path : str or path-like
        The file.

    Returns
    -------
    JudgmentGroups

    Raises
    ------
    InputValidationError
        The file is missing or empty, a line does not have 4 fields, a grade is not
        an integer, or a group judges a document twice (naming the file and line).

    Examples
    --------
    >>> import os, tempfile
    >>> from receval.trec.jg import read_judgment_groups
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels")
    >>> with open(path, "w") as f:
    ...     _ = f.write("q1 bob d1 1\\n# a comment\\nq1 amy d1 0\\nq1 amy d2 2\\n")
    >>> groups = read_judgment_groups(path)
    >>> groups.user_ids.tolist(), groups.group_ids.tolist(), groups.qrels.to_dict()
    (['q1'], ['amy', 'bob'], {0: {'d1': 0, 'd2': 2}, 1: {'d1': 1}})
    """
    from ..data import io
    from ..data._arrow import to_numpy
    from ..data._ranked import Qrels

    name = os.fspath(path)
    (queries, groups, docs, grades), lines = io.read_whitespace_table(path, 4, GROUP_FIELDS)
    if len(lines) == 0:
        raise InputValidationError(
            f"{name}: no judgments; expected lines of 4 whitespace-separated fields "
            f"({GROUP_FIELDS})."
        )
    grade = io.parse_numbers(grades, path, lines, "grade", integer=True)
    query_ids, query_code = np.unique(to_numpy(queries), return_inverse=True)
    group_names, group_code = np.unique(to_numpy(groups), return_inverse=True)
    doc_ids, doc_code = np.unique(to_numpy(docs), return_inverse=True)
    # a user per (query, group), sorted by query then group name (numpy orders str by
    # code point: the byte order of UTF-8, trec_eval's strcmp)
    pairs, pair_code = np.unique(
        query_code.astype(np.int64) * len(group_names) + group_code, return_inverse=True
    )
    order = np.lexsort((lines, doc_code, pair_code))
    same = (pair_code[order][1:] == pair_code[order][:-1]) & (
        doc_code[order][1:] == doc_code[order][:-1]
    )
    if same.any():
        at = np.flatnonzero(same)
        first = int(np.argmin(lines[order][at + 1]))
        earlier, later = order[at[first]], order[at[first] + 1]
        raise InputValidationError(
            f"{name}:{int(lines[later])}: group {groups[later].as_py()!r} of query "
            f"{queries[later].as_py()!r} judges document {docs[later].as_py()!r} again "
            f"(also on line {int(lines[earlier])}); each group may judge a document once."
        )
    # rows by group: user k of the qrels is group k
    qrels = Qrels(pair_code[order].astype(np.int64), doc_ids[doc_code[order]], grade[order])
    return JudgmentGroups(
        user_ids=query_ids,
        group_query=(pairs // len(group_names)).astype(np.int64),
        group_ids=group_names[pairs % len(group_names)],
        qrels=qrels,
    )


def _query_positions(groups: JudgmentGroups, run: Any) -> np.ndarray:
    """Per query of ``groups`` (``user_ids``), the position of its ranking among the
    run's users; -1 for a query absent from the run."""
    index = {str(u): i for i, u in enumerate(run.user_ids.tolist())}
    return np.array([index.get(str(u), -1) for u in groups.user_ids.tolist()], dtype=np.int64)


def id_matching(groups: JudgmentGroups, run: Any) -> tuple[tuple[int, ...], tuple[list[Any], ...]]:
    """How the ids of the judgment groups and the run match, counted as the compiled
    core counts those of a qrels file and a run (``receval._core.trec_eval_table``):
    the queries, those in the run, the run's documents that some group judges, the
    run's documents and the judged documents (all distinct); and the smallest ids
    (:func:`~receval.data.seen.smallest_ids`, as the core's) of the queries, the run's
    queries, the judged documents and the run's documents."""
    found = groups.qrels.positions_in(run, "items") >= 0
    counts = (
        len(groups.user_ids),
        int(np.count_nonzero(_query_positions(groups, run) >= 0)),
        int(np.count_nonzero(found)),
        len(run.item_ids),
        len(groups.qrels.item_ids),
    )
    examples = (groups.user_ids, run.user_ids, groups.qrels.item_ids, run.item_ids)
    return counts, tuple([str(x) for x in smallest_ids(ids)] for ids in examples)


def evaluate_groups(groups: JudgmentGroups, run: Any, specs: Mapping[str, Any]) -> GroupReport:
    """Evaluate a run against judgment groups with the ranking kernel: each (query,
    group) as one user, then each query's mean over its groups.

    The query's ranking is evaluated against each group's judgments alone (``-J``'s
    judged documents are the group's), by the kernel's spec of each value: the
    specs of ``receval trec-eval`` carry its options (``-M`` as the depth, ``0``
    keeping no document; ``-J``; ``-l``), as for ``-R qrels``.

    Parameters
    ----------
    groups : JudgmentGroups
        From :func:`read_judgment_groups`.
    run : Run
        The rankings of the queries.
    specs : mapping of str to receval._core.RankingSpec
        Per value name, its kernel spec; tied scores are ordered by document id
        (the specs' ``ties`` must be ``"id_descending"``, trec_eval 10.0's order, or
        ``"id_ascending"``).

    Returns
    -------
    GroupReport
        Per query the mean over its groups; each group's value too.

    Examples
    --------
    >>> import numpy as np
    >>> from receval import Qrels, Run
    >>> from receval._kernels import codes
    >>> from receval.registry.kinds import kind_of
    >>> from receval.trec.jg import JudgmentGroups, evaluate_groups
    >>> groups = JudgmentGroups(
    ...     user_ids=np.array(["q1"], dtype=object), group_query=np.array([0, 0]),
    ...     group_ids=np.array(["amy", "bob"], dtype=object),
    ...     qrels=Qrels([0, 0, 1], ["d1", "d2", "d2"], [1, 0, 1]))
    >>> run = Run(["q1", "q1"], ["d1", "d2"], [0.9, 0.8])
    >>> def spec(metric, depth=None):
    ...     return codes().RankingSpec(kind_of(metric), threshold=1.0, ties="id_descending",
    ...                                empty_users="zero", depth=depth)
    >>> report = evaluate_groups(groups, run, {"map": spec("map"), "none": spec("map", 0)})
    >>> report.group_values["map"].tolist(), report.values["map"].tolist()
    ([1.0, 0.5], [0.75])
    >>> report.values["none"].tolist()  # depth 0: no document counts
    [0.0]
    """
    from ..ranking.values import kernel_columns

    n_groups, n_queries = len(groups.group_ids), len(groups.user_ids)
    q = groups.qrels
    # qrels user k is group k, which ranks its query's list
    user_map = _query_positions(groups, run)[groups.group_query][q.user_ids.astype(np.int64)]
    names = list(specs)
    columns, _ = kernel_columns(q, run, [specs[m] for m in names], {"id_descending"}, user_map)
    per_group: dict[str, np.ndarray] = {}
    for j, m in enumerate(names):
        col = np.full(n_groups, np.nan)
        col[q.user_ids.astype(np.int64)] = columns[:, j]
        per_group[m] = col
    counts = np.bincount(groups.group_query, minlength=n_queries)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    values = {}
    for m, col in per_group.items():
        # trec_eval adds a query's groups one by one, in their order, then divides
        total = np.zeros(n_queries)
        for j in range(int(counts.max())):
            has = np.flatnonzero(counts > j)
            total[has] += col[starts[has] + j]
        values[m] = total / counts
    return GroupReport(users=groups.user_ids, values=values, group_values=per_group)
