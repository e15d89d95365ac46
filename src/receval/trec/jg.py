"""trec_eval's judgment groups (``-R qrels_jg``): several users' judgments of one query.

A qrels_jg file has the lines ``query group document grade``: the second field
names a judgment group, the judgments of one assessor (user) of the query. trec_eval
10.0 computes ``map_avgjg``, ``P_avgjg`` and ``Rprec_mult_avgjg`` from it: the
measure (``map``, ``P``, ``Rprec_mult``) of the query's ranking against each group's
judgments alone, averaged over the query's groups, then over the queries as usual.

Here each (query, group) is one user of :func:`receval.evaluate` (the query's ranked
documents against that group's judgments), so a group's value is the engine's
``map``, ``precision@k`` or ``rprec_mult(mult=x)`` with the conventions given. A
query's value adds its groups' values one by one in double precision, the groups in
byte order of their names, and divides by their number, as trec_eval does.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import InputValidationError
from ..registry.trec_eval import GROUP_FIELDS as GROUP_FIELDS
from ..registry.trec_eval import GROUP_MEASURES as GROUP_MEASURES

__all__ = [
    "GROUP_FIELDS",
    "GROUP_MEASURES",
    "GroupReport",
    "JudgmentGroups",
    "evaluate_groups",
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
        Per metric, each query's mean over its groups (nan: a query left out, as
        ``missing_users="skip"`` leaves out a query absent from the run).
    group_values : dict of str to ndarray of float64
        Per metric, each group's own value (in ``JudgmentGroups.group_ids`` order).
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


def _runs_of_groups(groups: JudgmentGroups, run: Any) -> Any:
    """The run with each query's ranking repeated for every group of the query
    (user ``k``: group ``k``)."""
    from ..data._ranked import Run

    index = {str(u): i for i, u in enumerate(run.user_ids.tolist())}
    at = np.array([index.get(str(u), -1) for u in groups.user_ids.tolist()], dtype=np.int64)
    source = at[groups.group_query]
    present = np.flatnonzero(source >= 0)
    if present.size == 0:
        # no group's query is in the run: a run of one user that no group is, so that
        # evaluate applies missing_users to every group
        return Run([-1], [""], [0.0], name=run.name)
    offsets = np.asarray(run.offsets)
    starts = offsets[source[present]]
    lengths = offsets[source[present] + 1] - starts
    users = np.repeat(present, lengths)
    # the rows starts[j] .. starts[j] + lengths[j] - 1 of each present group j
    rows = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths) + np.arange(len(users))
    items = run.item_ids[run.items[rows]]
    return Run(users, items, np.asarray(run.scores)[rows], name=run.name)


def evaluate_groups(
    groups: JudgmentGroups, run: Any, metrics: Sequence[str], **conventions: Any
) -> GroupReport:
    """Evaluate a run against judgment groups: each (query, group) as one user, then
    each query's mean over its groups.

    Parameters
    ----------
    groups : JudgmentGroups
        From :func:`read_judgment_groups`.
    run : Run
        The rankings of the queries.
    metrics : sequence of str
        Metric strings of :func:`receval.evaluate`.
    **conventions
        Keywords of :func:`receval.evaluate` (``profile``, ``ties``,
        ``rel_threshold``, ``missing_users``, ``depth``, ``judged_only``, ...).

    Returns
    -------
    GroupReport
        Per query the mean over its groups; each group's value too.

    Examples
    --------
    >>> import numpy as np
    >>> from receval import Qrels, Run
    >>> from receval.trec.jg import JudgmentGroups, evaluate_groups
    >>> groups = JudgmentGroups(
    ...     user_ids=np.array(["q1"], dtype=object), group_query=np.array([0, 0]),
    ...     group_ids=np.array(["amy", "bob"], dtype=object),
    ...     qrels=Qrels([0, 0, 1], ["d1", "d2", "d2"], [1, 0, 1]))
    >>> run = Run(["q1", "q1"], ["d1", "d2"], [0.9, 0.8])
    >>> report = evaluate_groups(groups, run, ["precision@1", "map"], profile="trec_eval")
    >>> report.group_values["map"].tolist(), report.values["map"].tolist()
    ([1.0, 0.5], [0.75])
    """
    from ..ranking.evaluation import evaluate

    n_groups, n_queries = len(groups.group_ids), len(groups.user_ids)
    report = evaluate(groups.qrels, _runs_of_groups(groups, run), list(metrics), **conventions)
    position = np.asarray(report.users.tolist(), dtype=np.int64)
    per_group: dict[str, np.ndarray] = {}
    for m in metrics:
        col = np.full(n_groups, np.nan)
        col[position] = np.asarray(report.values[m], dtype=np.float64)
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
