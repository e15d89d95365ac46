"""Ranking accumulators take ``candidates=``, ``correction=``, ``catalog_size=`` and
``gamma=`` as :func:`receval.evaluate` does: for any split of the users into updates,
merged accumulators, a pickle, a ``state_dict`` or a simulated ``sync``, ``compute()``
is evaluate's mean on all the rows (``==``); bad values are refused with evaluate's
messages, naming the accumulator."""

from __future__ import annotations

import copy
import pickle
import warnings
from typing import Any

import pytest

import receval
from receval.engine import run as engine_run
from receval.exceptions import InputValidationError, InvalidParameterError
from tests.sampled.test_sampled import _data

METRICS = ["recall@5", "ndcg@10", "mrr@10", "map"]
SAMPLED = [
    {},  # candidates alone: the sampled metrics
    {"correction": "rank"},
    {"correction": "minimal_bias"},
    {"correction": "bv"},
    {"correction": "bv", "gamma": 0.3, "catalog_size": 80},
]
IDS = ["sampled", "rank", "minimal_bias", "bv", "bv-gamma-size"]


def _case(seed: int = 1) -> tuple[dict, dict, Any]:
    qrels, run, items = _data(seed=seed)  # a qrels user absent from the run, ties
    return qrels, run, receval.sample_negatives(qrels, items, n=10, seed=4)


def _fed(acc: receval.Accumulator, qrels: dict, run: dict, users: list[str]) -> Any:
    """``acc`` updated with ``users``' qrels and lists in three batches."""
    for part in (users[: len(users) // 3], users[len(users) // 3 : -5], users[-5:]):
        acc.update({u: qrels[u] for u in part}, {u: run[u] for u in part if u in run})
    return acc


def _synced(acc: Any, others: list[Any], monkeypatch: pytest.MonkeyPatch) -> Any:
    """``acc.sync()`` as rank 0 of ranks that hold ``others`` (``gather_plain``, the
    collective, returns each rank's part)."""
    sent = []

    def stop(plain: Any, group: Any, func: str) -> list[Any]:
        sent.append(plain)
        raise KeyboardInterrupt

    monkeypatch.setattr(engine_run, "gather_plain", stop)
    for other in others:
        with pytest.raises(KeyboardInterrupt):
            other.sync()
    monkeypatch.setattr(engine_run, "gather_plain", lambda plain, group, func: [plain, *sent])
    return acc.sync()


@pytest.mark.parametrize("whole_groups", [False, True])
@pytest.mark.parametrize("options", SAMPLED, ids=IDS)
@pytest.mark.parametrize("metric", METRICS)
def test_batches_merges_and_round_trips_equal_evaluate(metric, options, whole_groups):
    qrels, run, c = _case()
    expected = receval.evaluate(qrels, run, metric, candidates=c, **options).mean[metric]

    def make() -> receval.Accumulator:
        return receval.metric(metric, candidates=c, whole_groups=whole_groups, **options)

    users = sorted(qrels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", receval.RecevalWarning)  # minimal_bias's rounding
        assert _fed(make(), qrels, run, users).compute() == expected
        halves = (users[::2], users[1::2])
        merged = _fed(make(), qrels, run, halves[0]).merge(_fed(make(), qrels, run, halves[1]))
        assert merged.compute() == expected
        # each half's accumulator of another process: a copy, equal options all the same
        other = pickle.loads(pickle.dumps(_fed(make(), qrels, run, halves[1])))
        assert _fed(make(), qrels, run, halves[0]).merge(other).compute() == expected
        half = _fed(make(), qrels, run, halves[0])
        resumed = make().load_state_dict(half.state_dict())
        assert _fed(resumed, qrels, run, halves[1]).compute() == expected


@pytest.mark.parametrize("whole_groups", [False, True])
@pytest.mark.parametrize("options", SAMPLED[1:4], ids=IDS[1:4])
def test_a_sync_of_ranks_equals_evaluate(options, whole_groups, monkeypatch):
    qrels, run, c = _case(seed=2)
    users, metric = sorted(qrels), "ndcg@10"
    expected = receval.evaluate(qrels, run, metric, candidates=c, **options).mean[metric]
    accs = [
        _fed(receval.metric(metric, candidates=c, whole_groups=whole_groups, **options),
             qrels, run, users[rank::3])
        for rank in range(3)
    ]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", receval.RecevalWarning)
        assert _synced(accs[0], accs[1:], monkeypatch).compute() == expected


def test_candidates_as_a_frame_or_a_dict_give_what_evaluate_gives():
    qrels, run, c = _case(seed=3)
    for given in (c.to_frame(), c.to_dict()):
        options = {"candidates": given, "correction": "bv", "catalog_size": 60}
        expected = receval.evaluate(qrels, run, "recall@5", **options).mean["recall@5"]
        acc = receval.metric("recall@5", **options)
        assert _fed(acc, qrels, run, sorted(qrels)).compute() == expected


@pytest.mark.parametrize("whole_groups", [False, True])
def test_the_warning_of_a_correction_left_to_rounding_names_the_accumulator(whole_groups):
    # the worst least-squares problem of every update and merge, warned of once at compute
    qrels, run, items = _data(seed=1, size=300)
    c = receval.sample_negatives(qrels, items, n=100, seed=4)
    options = {"candidates": c, "correction": "minimal_bias"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        receval.evaluate(qrels, run, ["recall@5"], **options)
    (want,) = [str(w.message) for w in caught if issubclass(w.category, receval.RecevalWarning)]
    users = sorted(qrels)
    acc = _fed(receval.metric("recall@5", whole_groups=whole_groups, **options), qrels, run,
               users[::2])  # fmt: skip
    acc.merge(_fed(receval.metric("recall@5", whole_groups=whole_groups, **options), qrels,
                   run, users[1::2]))  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        acc.compute()
    said = [str(w.message) for w in caught if issubclass(w.category, receval.RecevalWarning)]
    assert said == [want.replace("evaluate: ", "receval.metric('recall@5'): ", 1)]
    assert caught[0].filename == __file__  # the line that called compute


def _refusal(error: type[Exception], func: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(error) as info:
        func(*args, **kwargs)
    return str(info.value)


@pytest.mark.parametrize(
    "options",
    [
        {"correction": "bv"},  # no candidates
        {"candidates": {"u0": ["i00"]}, "correction": "bv"},  # no catalog size
        {"candidates": {"u0": ["i00"]}, "correction": "rank", "catalog_size": 9, "gamma": 0.2},
        {"candidates": {"u0": ["i00"]}, "catalog_size": 100},  # without a correction
        {"catalog_size": 100},
        {"gamma": 0.2},
        {"candidates": {"u0": ["i00"]}, "correction": "unbiased", "catalog_size": 9},
        {"candidates": {"u0": ["i00"]}, "correction": "bv", "catalog_size": 1},
        {"candidates": {"u0": ["i00"]}, "correction": "bv", "catalog_size": 9, "gamma": 2.0},
        {"candidates": 5},
    ],
)
def test_bad_values_are_refused_with_evaluates_messages_naming_the_accumulator(options):
    qrels, run, _ = _data(users=3)
    want = _refusal(InvalidParameterError, receval.evaluate, qrels, run, "recall@5", **options)
    got = _refusal(InvalidParameterError, receval.metric, "recall@5", **options)
    assert got == want.replace("evaluate", "receval.metric('recall@5')")
    assert "evaluate" not in got


@pytest.mark.parametrize(
    ("metric", "options"),
    [
        ("ndcg@10", {"depth": 5}),  # its value at a rank is not the corrections' M(r)
        ("ndcg@10", {"discount": "clipped"}),
        ("precision@5", {}),  # not a function of the rank of each relevant item
    ],
)
def test_a_metric_the_correction_does_not_apply_to_is_refused_when_made(metric, options):
    # it was refused where the correction ran: at compute, after every update
    qrels, run, c = _case()
    options = {"candidates": c, "correction": "rank", **options}
    want = _refusal(InvalidParameterError, receval.evaluate, qrels, run, metric, **options)
    got = _refusal(InvalidParameterError, receval.metric, metric, **options)
    assert got == want.replace("evaluate", f"receval.metric({metric!r})", 1)


@pytest.mark.parametrize("whole_groups", [False, True])
def test_candidates_that_keep_no_run_row_are_refused_at_compute_as_evaluate_refuses_them(
    whole_groups,
):
    qrels, run, _ = _case()
    options = {"candidates": receval.Candidates.from_dict({"x": ["i00"]})}  # no run user's
    want = _refusal(InputValidationError, receval.evaluate, qrels, run, "ndcg@10", **options)
    acc = receval.metric("ndcg@10", whole_groups=whole_groups, **options)
    assert _refusal(InputValidationError, _fed(acc, qrels, run, sorted(qrels)).compute) == (
        want.replace("evaluate", "receval.metric('ndcg@10')", 1)
    )


def test_accumulators_of_other_candidates_or_corrections_do_not_merge():
    qrels, run, c = _case()
    acc = receval.metric("ndcg@10", candidates=c, correction="rank")
    # the same sets drawn by popularity (the corrections assume uniform draws), and
    # sets of the same size, one user's with another item
    popular = copy.deepcopy(c)
    popular.strategy = "popularity"
    sets = c.to_dict()
    other_item = next(i for i in sets["u1"] if i not in sets["u0"])
    sets["u0"] = [*sets["u0"][:-1], other_item]
    moved = receval.Candidates.from_dict(sets, catalog_size=c.catalog_size)
    same = receval.Candidates.from_dict(c.to_dict(), catalog_size=c.catalog_size)
    assert (moved.n_users, moved.n_rows) == (same.n_users, same.n_rows)
    with pytest.warns(UserWarning, match="drawn by popularity"):
        by_popularity = receval.metric("ndcg@10", candidates=popular, correction="rank")
    for other in (
        receval.metric("ndcg@10", candidates=c, correction="bv"),
        receval.metric("ndcg@10", candidates=c.to_dict(), correction="rank", catalog_size=61),
        by_popularity,
        receval.metric("ndcg@10"),
    ):
        with pytest.raises(InvalidParameterError, match="merge accumulators of one metric"):
            acc.merge(other)
    with pytest.raises(InvalidParameterError, match="merge accumulators of one metric"):
        receval.metric("ndcg@10", candidates=same).merge(
            receval.metric("ndcg@10", candidates=moved)
        )
    receval.metric("ndcg@10", candidates=same).merge(
        receval.metric("ndcg@10", candidates=copy.deepcopy(same))
    )
    loaded = pickle.loads(pickle.dumps(receval.metric("ndcg@10", candidates=c, correction="rank")))
    assert acc.merge(loaded.update({"u0": qrels["u0"]}, {"u0": run["u0"]})).n_updates == 1


def _with_run_only_users() -> tuple[dict, dict, Any]:
    """:func:`_case` with two users in the run alone: one with a candidate set (an item
    of it unscored, a row outside it), one without."""
    qrels, run, c = _case()
    sets = {**c.to_dict(), "x1": ["i00", "i01", "i02"]}
    run = {**run, "x1": {"i00": 1.0, "i05": 2.0, "i02": 0.5}, "x2": {"i03": 1.0}}
    return qrels, run, receval.Candidates.from_dict(sets)


def _restriction_counts(report: Any) -> dict[str, int]:
    s = report.sampling
    return {"n_rows_dropped": s.n_rows_dropped, "n_candidates_absent": s.n_candidates_absent,
            "n_users_without_candidates": s.n_users_without_candidates,
            "n_rows_kept": s.n_rows_kept}  # fmt: skip


@pytest.mark.parametrize("whole_groups", [False, True])
def test_skipped_reports_the_restrictions_counts_of_evaluates_report(whole_groups):
    # a batch whose qrels are empty gives the users only in the run: counted as evaluate
    # counts them (with whole users, that batch's run was ignored)
    qrels, run, c = _with_run_only_users()
    report = receval.evaluate(qrels, run, "ndcg@10", candidates=c)
    assert report.n_run_only_users == 2 and report.sampling.n_users_without_candidates == 1
    want = {"n_users_missing": report.n_users_missing, **_restriction_counts(report)}
    users = sorted(qrels)
    batches = [
        ({u: qrels[u] for u in users[:20]}, {u: run[u] for u in users[:20] if u in run}),
        ({}, {u: run[u] for u in ("x1", "x2")}),
        ({u: qrels[u] for u in users[20:]}, {u: run[u] for u in users[20:] if u in run}),
    ]
    acc = receval.metric("ndcg@10", candidates=c, whole_groups=whole_groups)
    for qrels_batch, run_batch in batches:
        acc.update(qrels_batch, run_batch)
    assert acc.skipped() == want
    assert acc.compute() == report.mean["ndcg@10"]
    # merged, and resumed from a state_dict, in another order
    first = receval.metric("ndcg@10", candidates=c, whole_groups=whole_groups)
    second = receval.metric("ndcg@10", candidates=c, whole_groups=whole_groups)
    first.update(*batches[1]).update(*batches[2])
    second.update(*batches[0])
    assert second.merge(first).skipped() == want
    resumed = receval.metric("ndcg@10", candidates=c, whole_groups=whole_groups)
    assert resumed.load_state_dict(first.state_dict()).update(*batches[0]).skipped() == want


def test_a_batch_of_run_users_alone_is_counted_in_the_state_as_evaluate_counts_it():
    # whole users: the state that compute() reports holds the users only in the run and
    # the restriction's counts of evaluate's report on the same rows
    qrels, run, c = _with_run_only_users()
    report = receval.evaluate(qrels, run, "ndcg@10", candidates=c)
    acc = receval.metric("ndcg@10", candidates=c, whole_groups=True)
    acc.update({u: qrels[u] for u in qrels}, {u: run[u] for u in qrels if u in run})
    acc.update({}, {u: run[u] for u in ("x1", "x2")})
    assert acc.state.n_run_only_users == report.n_run_only_users == 2
    assert acc.state.sampling == report.sampling


def test_skipped_counts_the_rows_held_without_evaluating_them(monkeypatch):
    # skipped() ran a whole update of the run held to count (62 ms against compute()'s
    # 66 ms): the run is only restricted, without the items of exclude= as evaluate's
    from receval.ranking import definition

    qrels, run, c = _with_run_only_users()
    seen = {u: sorted(items)[:2] for u, items in run.items()}
    report = receval.evaluate(qrels, run, "ndcg@10", candidates=c, exclude=seen)
    unmasked = receval.evaluate(qrels, run, "ndcg@10", candidates=c)
    assert _restriction_counts(report) != _restriction_counts(unmasked)
    want = {"n_users_missing": report.n_users_missing, **_restriction_counts(report)}
    acc = receval.metric("ndcg@10", candidates=c, exclude=seen)
    users = sorted(qrels)  # a user's list and judgments in different updates
    acc.update({u: qrels[u] for u in users[:20]}, {u: run[u] for u in users[10:] if u in run})
    acc.update({u: qrels[u] for u in users[20:]}, {u: run[u] for u in (*users[:10], "x1", "x2")
                                                   if u in run})  # fmt: skip

    def evaluated(*args: Any) -> None:
        raise AssertionError("skipped() evaluated the rows held")

    monkeypatch.setattr(definition, "update", evaluated)
    assert acc.skipped() == want
