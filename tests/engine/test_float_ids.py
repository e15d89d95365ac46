"""Float group and user ids, one id per number however the rows are cut into updates.

One call codes a float id column as a whole: whole floats are the integer ids they
are (1.0 is the group 1), a column holding a fraction keeps its floats, -0.0 and
0.0 are one id. An accumulator, merged accumulators and a scan see the column a
batch at a time, each batch whole or not: a batch of whole floats after one with a
fraction was refused as ids of another type ("strings"), and a ranking update whose
users held a fraction spelled 1.0 as "1.0", which then matched no user 1 of the
other side. They hold float ids by their number now, and equal the function.
"""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import receval
from receval import InputValidationError

#: whole floats, -0.0 beside 0.0, fractions, and whole floats near 2**53 and beyond
IDS = [0.0, -0.0, 1.0, 2.0, -3.0, 0.5, 1.5, -0.25, 2.0**53 - 1, 2.0**53, 2.0**53 + 2,
       -(2.0**53), 1e17, 1e19, 1e-05]  # fmt: skip

#: metrics of groups that an update may split, and their function
OPEN = {
    "gauc": receval.gauc_score,
    "grouped_auprc": receval.grouped_auprc_score,
    "grouped_xauc": receval.xauc_score,
}


@st.composite
def rows(draw: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    n = draw(st.integers(2, 24))
    groups = np.array(draw(st.lists(st.sampled_from(IDS), min_size=n, max_size=n)))
    labels = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    scores = np.array(draw(st.lists(st.sampled_from([0.1, 0.3, 0.5, 0.9]), min_size=n,
                                    max_size=n)))  # fmt: skip
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=4)))
    return groups, labels, scores, cuts


def _parts(cuts: list[int], n: int) -> list[slice]:
    bounds = [0, *cuts, n]
    return [slice(a, b) for a, b in itertools.pairwise(bounds)]


def _quiet(f: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def _defined(groups: np.ndarray, labels: np.ndarray) -> bool:
    """Whether a group holds both labels (the metrics have a value)."""
    ids = groups + 0.0
    return any(len(set(labels[ids == g].tolist())) == 2 for g in set(ids.tolist()))


@pytest.mark.parametrize("name", sorted(OPEN))
@settings(max_examples=60, deadline=None)
@given(case=rows())
def test_float_groups_cut_anywhere_give_the_function(name: str, case: Any) -> None:
    groups, labels, scores, cuts = case
    assume(_defined(groups, labels))
    expected = _quiet(OPEN[name], labels, scores, groups=groups)
    parts = [p for p in _parts(cuts, len(groups)) if p.stop > p.start]
    one = receval.metric(name)
    for p in parts:
        one.update(labels[p], scores[p], groups=groups[p])
    assert _quiet(one.compute) == expected
    accs = [receval.metric(name).update(labels[p], scores[p], groups=groups[p]) for p in parts]
    merged = accs[0]
    for acc in accs[1:]:
        merged.merge(acc)
    assert _quiet(merged.compute) == expected


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=rows(), batch_rows=st.integers(1, 5))
def test_float_groups_in_any_batches_of_a_scan_or_whole_group_updates(
    case: Any, batch_rows: int, tmp_path: Path
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    groups, labels, scores, _ = case
    order = np.argsort(groups + 0.0, kind="stable")  # each group's rows together
    groups, labels, scores = groups[order], labels[order], scores[order]
    assume(_defined(groups, labels))
    expected = _quiet(receval.gauc_score, labels, scores, groups=groups)
    path = tmp_path / f"rows-{batch_rows}.parquet"
    pq.write_table(pa.table({"g": groups, "y": labels, "s": scores}), path)
    scan = receval.scan(path, batch_rows=batch_rows)
    assert _quiet(receval.gauc_score, scan["y"], scan["s"], groups=scan["g"]) == expected
    whole = receval.metric("gauc", whole_groups=True)
    ids = groups + 0.0
    starts = [0, *np.flatnonzero(ids[1:] != ids[:-1]) + 1, len(ids)]
    for a, b in itertools.pairwise(starts):  # a group an update
        whole.update(labels[a:b], scores[a:b], groups=groups[a:b])
    assert _quiet(whole.compute) == expected


def test_a_batch_with_a_fraction_after_whole_floats_is_one_column() -> None:
    # before: "groups must hold ids of one type ... Got strings in this update,
    # integers before" (the first batch is whole, the second holds 0.5)
    acc = receval.metric("gauc").update([1, 0], [0.9, 0.1], groups=np.array([1.0, 1.0]))
    acc.update([1, 0, 1, 0], [0.3, 0.4, 0.8, 0.2], groups=np.array([1.0, 1.0, 0.5, 0.5]))
    expected = receval.gauc_score([1, 0, 1, 0, 1, 0], [0.9, 0.1, 0.3, 0.4, 0.8, 0.2],
                                  groups=[1.0, 1.0, 1.0, 1.0, 0.5, 0.5])  # fmt: skip
    assert acc.compute() == expected == 0.8333333333333334


def test_strings_beside_float_ids_are_refused_naming_both_types() -> None:
    acc = receval.metric("gauc").update([1, 0], [0.9, 0.1], groups=np.array([0.5, 0.5]))
    with pytest.raises(InputValidationError) as caught:
        acc.update([1, 0], [0.9, 0.1], groups=np.array(["a", "a"]))
    assert str(caught.value) == (
        "Accumulator.update of 'gauc': groups must hold ids of one type in every update and "
        "merge: numbers "
        "(ints or floats) or strings. Got strings in this update, floats before; convert them "
        "to one type in every update, e.g. groups = groups.astype(str)."
    )


def test_a_ranking_update_with_a_fraction_matches_whole_float_users() -> None:
    # before: the run's update holding the user 0.5 held the user 1.0 as "1.0", which
    # matched no qrels user 1: 0.3066 where evaluate gives 0.6220
    pd = pytest.importorskip("pandas")
    qrels = pd.DataFrame({"user": [1.0, 1.0, 0.5, 0.5], "item": [1, 2, 1, 3],
                          "grade": [1, 0, 1, 1]})  # fmt: skip
    run = pd.DataFrame({"user": [1.0, 1.0, 0.5, 0.5], "item": [2, 1, 3, 2],
                        "score": [0.9, 0.8, 0.7, 0.6]})  # fmt: skip
    acc = receval.metric("ndcg@3").update(qrels[:2], run[:3]).update(qrels[2:], run[3:])
    expected = receval.evaluate(qrels, run, metrics=["ndcg@3"]).mean["ndcg@3"]
    assert acc.compute() == expected == 0.622038473168458


def test_a_whole_float_group_given_again_beside_a_fraction_is_refused() -> None:
    # before: the group 1 held as an int, then 1.0 in an update that held 0.5 (floats)
    # was not found among the ints held: two groups 1, where gauc_score has one
    acc = receval.metric("gauc", whole_groups=True)
    acc.update([1, 0], [0.9, 0.1], groups=np.array([1.0, 1.0]))
    with pytest.raises(InputValidationError, match=r"1 group of groups was given twice .*\[1\]"):
        acc.update([1, 0, 1, 0], [0.3, 0.4, 0.8, 0.2], groups=np.array([1.0, 1.0, 0.5, 0.5]))
    other = receval.metric("gauc", whole_groups=True)
    other.update([1, 0, 1, 0], [0.3, 0.4, 0.8, 0.2], groups=np.array([1.0, 1.0, 0.5, 0.5]))
    with pytest.raises(InputValidationError, match=r"1 group of groups was given twice"):
        acc.merge(other)


#: the qrels' users beside a run of float users: floats, the ints they may be, strings
QRELS_USERS = {
    "float": IDS,
    "int": [0, 1, 2, -3, 2**53 - 1, 7],
    "str": ["1", "0", "0.5", "2", "9.007199254740992e+15", "1e+17", "0.00001"],
}


@settings(max_examples=80, deadline=None)
@given(data=st.data(), kind=st.sampled_from(sorted(QRELS_USERS)))
def test_float_users_cut_anywhere_match_as_evaluate_matches_them(data: Any, kind: str) -> None:
    # a run of float users against qrels of float, int or str users, each cut in two
    # updates anywhere: the users matched are those evaluate matches on all the rows
    pd = pytest.importorskip("pandas")
    pairs = st.tuples(st.sampled_from(IDS), st.integers(0, 3))
    ranked = data.draw(
        st.lists(pairs, min_size=1, max_size=10, unique_by=lambda p: (p[0] + 0.0, p[1]))
    )
    judged = data.draw(st.lists(st.tuples(st.sampled_from(QRELS_USERS[kind]), st.integers(0, 3)),
                                min_size=1, max_size=10, unique=True))  # fmt: skip
    assume(len({(u + 0.0 if isinstance(u, float) else u, i) for u, i in judged}) == len(judged))
    scores = data.draw(st.lists(st.sampled_from([0.1, 0.5, 0.9]), min_size=len(ranked),
                                max_size=len(ranked)))  # fmt: skip
    run = pd.DataFrame({"user": [float(u) for u, _ in ranked], "item": [i for _, i in ranked],
                        "score": scores})  # fmt: skip
    qrels = pd.DataFrame({"user": [u for u, _ in judged], "item": [i for _, i in judged],
                          "grade": 1})  # fmt: skip
    r_cut = data.draw(st.integers(0, len(run)))
    q_cut = data.draw(st.integers(0, len(qrels)))
    expected = _quiet(receval.evaluate, qrels, run, metrics=["ndcg@3"], allow_unmatched=True)
    acc = receval.metric("ndcg@3", missing_users="zero", allow_unmatched=True)
    acc.update(qrels[:q_cut], run[:r_cut]).update(qrels[q_cut:], run[r_cut:])
    assert _quiet(acc.compute) == expected.mean["ndcg@3"]


def test_a_whole_float_below_2_53_is_its_integer_beside_a_fraction_in_memory() -> None:
    # before: evaluate matched 1e15 with 10**15 in a column of whole floats only, and
    # beside 1.5 read it as the text "1e+15", which matches no user 10**15: a rule of
    # the whole column, which no update or batch of it can apply
    pd = pytest.importorskip("pandas")
    qrels = pd.DataFrame({"user": [10**15, 7], "item": [1, 1], "grade": [1, 1]})
    run = pd.DataFrame({"user": [1e15, 1.5], "item": [1, 1], "score": [0.9, 0.8]})
    report = _quiet(receval.evaluate, qrels, run, metrics=["recall@5"], allow_unmatched=True)
    assert (report.mean["recall@5"], report.n_users_missing) == (0.5, 1)
    strings = qrels.assign(user=["1000000000000000", "9.007199254740992e+15"])
    run = run.assign(user=[1e15, 2.0**53])  # 2.0**53 is a float: by the text Arrow writes
    report = _quiet(receval.evaluate, strings, run, metrics=["recall@5"])
    assert (report.mean["recall@5"], report.n_users_missing) == (1.0, 0)
