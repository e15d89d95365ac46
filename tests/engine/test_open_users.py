"""Ranking accumulators of users split across updates: the rows held in the core.

Random row sets (int or string ids, float32-exact or not values, runs of scores or
of ranks) cut into random updates over 1 to 3 accumulators, merged in a random
order, pickled or passed through ``state_dict`` on the way: ``compute()`` must
``==`` :func:`receval.evaluate` on all the rows.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import InputValidationError

METRICS = ["ndcg@3", "map", "mrr", "recall@2", "ndcg(gain=exponential)@5"]


def _frame(users, items, values, name: str):
    import pandas as pd

    return pd.DataFrame({"user": users, "item": items, name: values})


@st.composite
def cases(draw):
    n_users, n_items = draw(st.integers(1, 7)), draw(st.integers(1, 9))
    pairs = st.tuples(st.integers(0, n_users - 1), st.integers(0, n_items - 1))
    judged = draw(st.lists(pairs, min_size=1, max_size=30, unique=True))
    ranked = draw(st.lists(pairs, min_size=1, max_size=40, unique=True))
    # float32-exact values, or values of which some are not
    exact = draw(st.booleans())
    pool = [0.0, 0.5, 1.0, 2.0, 0.25] if exact else [0.0, 0.1, 0.3, 1.0, 0.7]
    grades = draw(st.lists(st.sampled_from(pool), min_size=len(judged), max_size=len(judged)))
    scores = draw(st.lists(st.sampled_from(pool), min_size=len(ranked), max_size=len(ranked)))
    kind = draw(st.sampled_from(["int", "sparse", "str", "long"]))
    ranks = draw(st.booleans())
    n_parts = draw(st.integers(1, 5))
    q_cut = sorted(draw(st.lists(st.integers(0, len(judged)), min_size=n_parts - 1,
                                 max_size=n_parts - 1)))  # fmt: skip
    r_cut = sorted(draw(st.lists(st.integers(0, len(ranked)), min_size=n_parts - 1,
                                 max_size=n_parts - 1)))  # fmt: skip
    n_acc = draw(st.integers(1, 3))
    owner = [draw(st.integers(0, n_acc - 1)) for _ in range(n_parts)]
    merge_order = draw(st.permutations(range(n_acc)))
    trip = draw(st.sampled_from([None, "pickle", "state_dict"]))
    metric = draw(st.sampled_from(METRICS))
    ties = draw(st.sampled_from(["input", "average", "worst"]))
    return (judged, grades, ranked, scores, kind, ranks, q_cut, r_cut, owner,
            list(merge_order), trip, metric, ties)  # fmt: skip


def _ids(kind: str, prefix: str, codes) -> np.ndarray:
    """Ids of codes: ints over a compact range or far apart (a hash table of them),
    short strings or strings of more than 15 bytes."""
    codes = np.asarray(codes, dtype=np.int64)
    if kind == "int":
        return codes * 3 - 5
    if kind == "sparse":
        return (codes - 3) * 10**15 + codes
    pad = "-a-long-identifier-" if kind == "long" else ""
    return np.array([f"{prefix}{pad}{c}" for c in codes])


def _round_trip(acc, how: str | None, metric: str, ties: str):
    if how == "pickle":
        return pickle.loads(pickle.dumps(acc))
    if how == "state_dict":
        fresh = rv.metric(metric, ties=ties, missing_users="zero", allow_unmatched=True)
        return fresh.load_state_dict(acc.state_dict())
    return acc


@settings(deadline=None, max_examples=150)
@given(cases())
def test_split_users_equal_evaluate_for_any_split_merge_and_round_trip(case):
    (judged, grades, ranked, scores, kind, ranks, q_cut, r_cut, owner, merge_order, trip,
     metric, ties) = case  # fmt: skip
    qu, qi = _ids(kind, "u", [u for u, _ in judged]), _ids(kind, "d", [i for _, i in judged])
    ru, ri = _ids(kind, "u", [u for u, _ in ranked]), _ids(kind, "d", [i for _, i in ranked])
    g = np.array(grades)
    s = np.array(scores)
    # a run of ranks: each user's rows numbered 1, 2, ... in the order given
    rank = np.zeros(len(ranked))
    for u in set(ru.tolist()):
        where = np.flatnonzero(ru == u)
        rank[where] = np.arange(1, len(where) + 1)
    # the rows in the order the merged accumulator holds them: each accumulator's
    # updates in turn, the accumulators in the order of the merges (ties="input"
    # ranks a user's tied items in that order)
    r_parts = np.split(np.arange(len(ranked)), r_cut)
    held = np.concatenate(
        [np.arange(0)] + [r_parts[p] for i in merge_order for p, o in enumerate(owner) if o == i]
    )
    run_all = (rv.Run(ru[held], ri[held], ranks=rank[held]) if ranks
               else rv.Run(ru[held], ri[held], s[held]))  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.UnmatchedIdsWarning)
        expected = rv.evaluate(rv.Qrels(qu, qi, g), run_all, [metric], ties=ties,
                               missing_users="zero", allow_unmatched=True).mean[metric]  # fmt: skip
    accs = [rv.metric(metric, ties=ties, missing_users="zero", allow_unmatched=True)
            for _ in merge_order]  # fmt: skip
    q_parts = np.split(np.arange(len(judged)), q_cut)
    for qp, rp, i in zip(q_parts, r_parts, owner, strict=True):
        qrels = rv.Qrels(qu[qp], qi[qp], g[qp]) if len(qp) else {}
        if not len(rp):
            run = {}
        elif ranks:
            run = rv.Run(ru[rp], ri[rp], ranks=rank[rp])
        else:
            run = rv.Run(ru[rp], ri[rp], s[rp])
        accs[i].update(qrels, run)
    accs = [_round_trip(a, trip, metric, ties) for a in accs]
    first, *rest = (accs[i] for i in merge_order)
    for other in rest:
        first.merge(other)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.UnmatchedIdsWarning)
        got = first.compute()
    assert got == expected or (np.isnan(got) and np.isnan(expected))


def test_ints_beside_strings_are_joined_as_text():
    acc = rv.metric("ndcg@3")
    acc.update(rv.Qrels(np.array([1, 1]), np.array([7, 8]), [1, 2]),
               rv.Run(np.array([1, 1]), np.array([8, 7]), [0.5, 0.4]))  # fmt: skip
    acc.update(rv.Qrels(["1"], ["9"], [1]), rv.Run(["1"], ["9"], [0.9]))
    qrels = rv.Qrels(["1", "1", "1"], ["7", "8", "9"], [1, 2, 1])
    run = rv.Run(["1", "1", "1"], ["8", "7", "9"], [0.5, 0.4, 0.9])
    assert acc.compute() == rv.evaluate(qrels, run, ["ndcg@3"]).mean["ndcg@3"]


def test_a_pair_in_two_updates_or_accumulators_raises_naming_it():
    for kind in ("int", "str"):
        u, d = _ids(kind, "u", [0, 0]), _ids(kind, "d", [1, 2])
        acc = rv.metric("ndcg@10").update(rv.Qrels(u[:1], d[:1], [1]), rv.Run(u, d, [0.5, 0.1]))
        acc.update({}, rv.Run(u[1:], d[1:], [0.3]))
        shown = f"user {u[0].item()!r} has item {d[1].item()!r} in two updates of the run"
        with pytest.raises(InputValidationError, match=shown):
            acc.compute()
        other = rv.metric("ndcg@10").update(rv.Qrels(u[:1], d[:1], [2]), {})
        with pytest.raises(InputValidationError, match=r"in two updates of the run.*highest score"):
            acc.compute()
        with pytest.raises(
            InputValidationError, match=r"in two updates of the qrels.*highest grade"
        ):
            rv.metric("ndcg@10").update(rv.Qrels(u[:1], d[:1], [1]), {}).merge(other).compute()


def test_rows_are_held_in_twelve_bytes_while_values_are_float32_exactly():
    rng = np.random.default_rng(1)
    n = 40_960
    users, items = rng.integers(0, 2000, n), np.arange(n)
    exact = rng.integers(0, 1000, n) / 8.0  # float32-exact
    acc = rv.metric("ndcg@10")
    for a in range(0, n, 4096):
        part = slice(a, a + 4096)
        acc.update(
            rv.Qrels(users[part], items[part]), rv.Run(users[part], items[part], exact[part])
        )
    held = acc.memory_bytes
    # 12 bytes a row on each side (and the id tables): under 16 a row each
    assert 2 * 12 * n < held < 2 * 16 * n + 64 * (2000 + n) * 2
    # one value that is no float32: the values from it on are float64, those before
    # stay float32 (widening copies nothing)
    acc.update({}, rv.Run([0], [-1], [0.1]))
    assert held < acc.memory_bytes < held + 4 * n
    run = acc.state.runs.rows()[2]
    assert run.dtype == np.float64 and run[-1] == 0.1
    assert (np.sort(run[:n]) == np.sort(exact)).all()  # each update's rows by user
    assert acc.state.qrels.rows()[2].dtype == np.float32


@pytest.mark.parametrize("how", ["pickle", "state_dict"])
def test_round_trips_keep_values_that_are_no_float32_exactly(how):
    qrels = {"u": {"a": 0.1, "b": 0.3}, "v": {"a": 1}}
    run = {"u": {"a": 0.1, "b": 0.1 + 2**-40, "c": 0.7}, "v": {"c": 0.2}}
    acc = rv.metric("ndcg@3", ties="input").update(qrels, run)
    if how == "pickle":
        back = pickle.loads(pickle.dumps(acc))
    else:
        back = rv.metric("ndcg@3", ties="input").load_state_dict(acc.state_dict())
    for side in ("qrels", "runs"):
        mine, theirs = getattr(acc.state, side).rows()[2], getattr(back.state, side).rows()[2]
        assert mine.dtype == theirs.dtype == np.float64 and (mine == theirs).all()
    want = rv.evaluate(qrels, run, ["ndcg@3"], ties="input").mean["ndcg@3"]
    assert back.compute() == acc.compute() == want


def test_a_failed_update_leaves_the_rows_as_they_were():
    acc = rv.metric("ndcg@3").update({"u": {"a": 1}}, {"u": {"a": 0.5}})
    before = acc.state.__getstate__()
    with pytest.raises(InputValidationError):
        acc.update({"v": {"b": 1}}, {"v": {"b": float("nan")}})
    after = acc.state.__getstate__()
    for side in ("qrels", "runs"):
        for key, value in before[side].items():
            assert (np.asarray(after[side][key]) == np.asarray(value)).all()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s["runs"].update(items=s["runs"]["items"] + 5), r"OpenUsers\.runs: users"),
        (
            lambda s: s["qrels"].update(users=s["qrels"]["users"].astype(np.float64)),
            r"OpenUsers\.qrels\.users must be",
        ),
        (
            lambda s: s["qrels"].update(values=s["qrels"]["values"] * np.inf),
            r"OpenUsers\.qrels: values must be finite",
        ),
        (
            lambda s: s["runs"].update(user_ids=np.array(["u", "u"])),
            r"OpenUsers\.runs: user_ids must be distinct",
        ),
        (lambda s: s.update(ranks=1), r"OpenUsers\.ranks must be a bool"),
    ],
)
def test_a_tampered_state_is_refused_naming_the_field(change, message):
    from receval.ranking.open_users import OpenUsers

    acc = rv.metric("map").update({"u": {"a": 1}}, {"u": {"a": 0.2}, "v": {"a": 0.1}})
    state = acc.state.__getstate__()
    change(state)
    with pytest.raises(InputValidationError, match=message):
        OpenUsers.__new__(OpenUsers).__setstate__(state)
