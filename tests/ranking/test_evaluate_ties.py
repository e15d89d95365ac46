"""evaluate discloses tie dependence: per metric, the users whose value depends on the
order of tied scores and the mean with ties="average" beside it; TieOrderWarning names
the order actually used."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import receval
from receval import evaluate
from receval.exceptions import InvalidParameterError, TieOrderWarning
from tests._fresh import fresh
from tests.ranking.test_ranking import ranking_data

# the random cases include runs without a judged item, scored on purpose
pytestmark = pytest.mark.filterwarnings("ignore::receval.exceptions.UnmatchedIdsWarning")

QRELS = {"u1": {"a": 1}, "u2": {"c": 1}, "u3": {"a": 1}}
# u1 and u3 tie a (relevant) with b; trec's order (item id descending) puts b first
RUN = {"u1": {"a": 0.5, "b": 0.5, "x": 0.1}, "u2": {"c": 0.9, "d": 0.5}, "u3": {"b": 0.5, "a": 0.5}}
METRICS = ["recall@1", "ndcg@10", "mrr", "p@3"]


def test_hand_computed_counts_and_average_mean():
    report = evaluate(QRELS, RUN, METRICS)
    assert report.mean["recall@1"] == pytest.approx(1 / 3)  # a after b for u1 and u3
    assert report.n_users_tie_dependent == {"recall@1": 2, "ndcg@10": 2, "mrr": 2, "p@3": 0}
    # u1 and u3 average 0.5 over the two orders: (0.5 + 1 + 0.5) / 3
    assert report.mean_ties_average["recall@1"] == pytest.approx(2 / 3)
    assert report.mean_ties_average["mrr"] == pytest.approx((0.75 + 1 + 0.75) / 3)
    assert "p@3" not in report.mean_ties_average  # both tied items are in the top 3


def test_ties_average_depends_on_no_order():
    report = evaluate(QRELS, RUN, ["recall@1", "mrr(ties=trec)"], ties="average")
    assert report.n_users_tie_dependent == {"recall@1": 0, "mrr(ties=trec)": 2}


def test_no_ties_no_count():
    run = {"u1": {"a": 0.5, "b": 0.4}, "u2": {"c": 0.9}, "u3": {"a": 0.2}}
    report = evaluate(QRELS, run, METRICS)
    assert report.n_users_tie_dependent == dict.fromkeys(METRICS, 0)
    assert report.mean_ties_average == {}


@settings(max_examples=100, deadline=None)
@given(ranking_data())
def test_average_mean_and_counts_equal_a_ties_average_evaluation(data):
    qrels, run = data
    metrics = ["recall@2", "ndcg@3", "map", "mrr", "p@1", "pooled_hit_ratio@2"]
    report = evaluate(qrels, run, metrics, allow_unmatched=True)
    averaged = evaluate(qrels, run, metrics, ties="average", allow_unmatched=True)
    for m in metrics:
        moved = ~np.isclose(report.values[m], averaged.values[m], rtol=1e-12, atol=1e-12,
                            equal_nan=True)  # fmt: skip
        assert report.n_users_tie_dependent[m] == int(moved.sum()), m
        mean = report.mean_ties_average.get(m, report.mean[m])
        assert mean == pytest.approx(averaged.mean[m], abs=1e-12, nan_ok=True), m


@settings(max_examples=50, deadline=None)
@given(ranking_data())
def test_subset_recounts(data):
    qrels, run = data
    report = evaluate(qrels, run, ["recall@2", "mrr"], allow_unmatched=True)
    kept = np.arange(report.n_users) % 2 == 0
    assume(kept.any())
    sub = report.subset(kept)
    q_sub = {u: qrels[u] for u in report.users[kept].tolist()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", receval.UnmatchedIdsWarning)
        direct = evaluate(q_sub, run, ["recall@2", "mrr"], allow_unmatched=True, min_match=0.0)
    assert sub.n_users_tie_dependent == direct.n_users_tie_dependent
    for m, value in direct.mean_ties_average.items():
        assert sub.mean_ties_average[m] == pytest.approx(value, abs=1e-12)


def test_scan_path_counts_the_same(tmp_path):
    rows = [(u, i, s) for u, items in RUN.items() for i, s in items.items()]
    path = tmp_path / "run.parquet"
    pd.DataFrame(rows, columns=["user", "item", "score"]).to_parquet(path)
    memory = evaluate(QRELS, RUN, METRICS)
    scanned = evaluate(QRELS, receval.scan(str(path)), METRICS)
    assert scanned.n_users_tie_dependent == memory.n_users_tie_dependent
    assert scanned.mean_ties_average == pytest.approx(memory.mean_ties_average)


def test_popularity_run_recall_depends_on_the_tie_order():
    # a popularity run: every user gets the same scores, tied where counts are equal
    rng = np.random.default_rng(5)
    counts = rng.integers(1, 6, 40).astype(float)
    qrels = {u: {int(i): 1 for i in rng.choice(40, 4, replace=False)} for u in range(30)}
    run = {u: {i: counts[i] for i in range(40)} for u in range(30)}
    report = evaluate(qrels, run, ["recall@5"])
    averaged = evaluate(qrels, run, ["recall@5"], ties="average")
    assert report.n_users_tie_dependent["recall@5"] > 0
    assert report.mean_ties_average["recall@5"] == pytest.approx(averaged.mean["recall@5"])
    assert report.mean_ties_average["recall@5"] != pytest.approx(report.mean["recall@5"])


def test_tie_order_warning_names_the_order_used():
    qrels = {"u1": {"a": 1}}
    run = {"u1": {"a": 0.5, "b": 0.5}}
    with pytest.warns(TieOrderWarning) as caught:
        evaluate(qrels, run, ["recall@1"], profile="recbole", ties="average")
    text = str(caught[0].message)
    assert "receval scores them as the expected value over every order of the tied items " \
           "(ties='average')" in text  # fmt: skip
    assert "input order" not in text
    in_input_order = r"receval scores them in input order \(ties='input'\)"
    with pytest.warns(TieOrderWarning, match=in_input_order):
        evaluate(qrels, run, ["recall@1"], profile="recbole")
    with pytest.warns(TieOrderWarning, match=r"by item id descending \(trec_eval's rule"):
        evaluate(qrels, run, ["recall@1"], profile="recbole", ties="trec")


def _one_tied_list(n: int, h: int) -> tuple[receval.Qrels, receval.Run]:
    """One user, n items of one score, the first h of them relevant."""
    items = [f"d{i:04d}" for i in range(n)]
    return receval.Qrels(["u"] * h, items[:h], [1] * h), receval.Run(["u"] * n, items, np.zeros(n))


def test_costly_tie_average_is_not_computed_but_counted(monkeypatch):
    """Interpolated precision's expected value over a block of 1,000 tied items with 50
    relevant costs (s * h)**2: the report counts the user as tie-dependent, leaves its
    mean_ties_average nan, and never calls the averaged kernel for it."""
    from receval.ranking import checks

    q, r = _one_tied_list(1000, 50)
    calls = []
    real = checks.kernel_values

    def spy(sub, run, specs, convs, names, user_map, item_map=None):
        calls.append((list(names), len(user_map)))
        return real(sub, run, specs, convs, names, user_map, item_map=item_map)

    monkeypatch.setattr(checks, "kernel_values", spy)
    rep = receval.evaluate(q, r, ["iprec_at_recall_0.50", "iprec_avg", "ndcg@10"], ties="trec")
    assert rep.n_users_tie_dependent == {"iprec_at_recall_0.50": 1, "iprec_avg": 1, "ndcg@10": 1}
    assert np.isnan(rep.mean_ties_average["iprec_at_recall_0.50"])
    assert np.isnan(rep.mean_ties_average["iprec_avg"])
    assert rep.mean_ties_average["ndcg@10"] == pytest.approx(0.05)
    # the cheap metric averaged for the user, the costly ones for nobody
    assert calls == [(["ndcg@10"], 1)]
    sub = rep.subset(np.ones(1, dtype=bool))
    assert sub.n_users_tie_dependent["iprec_avg"] == 1
    assert np.isnan(sub.mean_ties_average["iprec_avg"])


def test_cheap_tie_average_of_interpolated_precision_is_computed():
    """Within the budget the expected value is computed as before, and a tied block
    of relevant items only (order-free) counts no user."""
    q, r = _one_tied_list(20, 4)
    rep = receval.evaluate(q, r, ["iprec_at_recall_0.50"], ties="trec")
    avg = receval.evaluate(q, r, ["iprec_at_recall_0.50"], ties="average")
    assert rep.n_users_tie_dependent == {"iprec_at_recall_0.50": 1}
    assert rep.mean_ties_average["iprec_at_recall_0.50"] == pytest.approx(
        avg.mean["iprec_at_recall_0.50"], rel=1e-12
    )
    q, r = _one_tied_list(4, 4)
    rep = receval.evaluate(q, r, ["iprec_at_recall_0.50"], ties="trec")
    assert rep.n_users_tie_dependent == {"iprec_at_recall_0.50": 0}


def test_command_note_says_a_costly_mean_is_not_computed():
    """The command's note names the mean as not computed rather than printing nan."""
    from receval.cli._ranked import tie_notes

    q, r = _one_tied_list(1000, 50)
    rep = receval.evaluate(q, r, ["iprec_avg", "ndcg@10"], ties="trec")
    notes: list[str] = []

    class Say:
        def note(self, text: str) -> None:
            notes.append(text)

    tie_notes(rep, "a.run", ["iprec_avg", "ndcg@10"], Say())  # type: ignore[arg-type]
    assert "not computed" in notes[0] and "nan" not in notes[0]
    assert "its mean is 0.05" in notes[1]


def test_metrics_of_the_same_users_share_one_averaged_kernel_call(monkeypatch):
    """trec_eval's official measures hold 11 recall levels: their ties="average"
    values come from one kernel call with the cheap metrics (the same users), and
    equal those computed one metric at a time."""
    from receval.ranking import checks

    q, r = _one_tied_list(20, 4)
    metrics = ["iprec_at_recall_0.50", "iprec_at_recall_0.80", "iprec_avg", "ndcg@10"]
    calls = []
    real = checks.kernel_values

    def spy(sub, run, specs, convs, names, user_map, item_map=None):
        calls.append(list(names))
        return real(sub, run, specs, convs, names, user_map, item_map=item_map)

    monkeypatch.setattr(checks, "kernel_values", spy)
    rep = receval.evaluate(q, r, metrics, ties="trec")
    assert calls == [["ndcg@10", "iprec_at_recall_0.50", "iprec_at_recall_0.80", "iprec_avg"]]
    for m in metrics:
        alone = receval.evaluate(q, r, [m], ties="trec")
        assert rep.mean_ties_average[m] == alone.mean_ties_average[m]


def test_tie_averages_look_up_the_item_ids_once(monkeypatch):
    # the tied users' items take the qrels' item map: the run's ids (strings) are
    # looked up once, for every metric and the tie averages together
    from receval.data._ranked import _RankedBase

    calls = []
    positions_in = _RankedBase.positions_in

    def counted(self, other, kind):
        calls.append(kind)
        return positions_in(self, other, kind)

    monkeypatch.setattr(_RankedBase, "positions_in", counted)
    report = evaluate(QRELS, RUN, METRICS)
    assert report.mean["recall@1"] == pytest.approx(1 / 3)
    assert calls.count("items") == 1


HARD = [0.0, -0.0, 1.0, -1.0, 1e-12, 2e-12, 1 + 1e-12, 1 + 3e-12, 0.5, 0.5 + 5e-13, 5e-324]
HARD += [1e300, -1e300, np.finfo(np.float64).max, -np.finfo(np.float64).max]
HARD += [math.inf, -math.inf, math.nan]


@given(
    st.lists(st.sampled_from(HARD) | st.floats(allow_nan=True), min_size=1, max_size=40),
    st.lists(st.floats(-1e-11, 1e-11) | st.sampled_from([0.0, math.inf, math.nan]), min_size=40),
)
def test_a_value_moved_by_the_tie_order_is_one_numpy_calls_not_close(values, shifts):
    """The tie-dependence count's comparison is np.isclose(rtol=1e-12, atol=1e-12,
    equal_nan=True), infinities and NaN included."""
    from receval.ranking.aggregate import _close

    a = np.array(values)
    b = a + np.array(shifts[: len(values)])
    for x, y in ((a, b), (b, a), (a, a[::-1])):
        with np.errstate(all="ignore"):
            want = np.isclose(x, y, rtol=1e-12, atol=1e-12, equal_nan=True)
        np.testing.assert_array_equal(_close(x, y), want)


def test_string_ids_of_a_few_tied_lists_ordered_without_pandas(tmp_path):
    # a run where few users tie orders only their items' ids in string order, taken
    # from the Arrow ids over NumPy positions (Arrow's take of NumPy imports pandas)
    with open(tmp_path / "q.txt", "w") as f:
        f.writelines(f"u{u} 0 d{u % 7 or 3} 1\n" for u in range(40))
    with open(tmp_path / "r.run", "w") as f:  # u0's two items tie; every other list not
        f.writelines(f"u{u} Q0 d{j} {j} {1.0 if u == 0 else 1.0 - j / 8} t\n"
                     for u in range(40) for j in range(1, 8))  # fmt: skip
    code = (
        "import receval as rv\n"
        "report = rv.evaluate('q.txt', rv.Run.from_trec('r.run'), ['ndcg@10'])\n"
        "print(report.values['ndcg@10'][0])\n"
    )
    printed, modules = fresh(code, tmp_path)
    # u0's seven items tie: a TREC run's tie broken in reverse string order (trec_eval's),
    # d7 d6 d5 d4 d3: its relevant d3 at rank 5
    assert printed == [repr(float(1 / np.log2(6)))]
    assert "pyarrow" in modules and "pandas" not in modules


def test_a_depth_refuses_the_average_of_tie_orders():
    """depth= keeps the first items in the order of ties=, and ties='average' has
    none: mrr with depth 2 over a tie of three averaged the list cut in input order
    (0.75, where the expected reciprocal rank at a cut of 2 is 0.5)."""
    qrels, run = {"u": {"a": 1}}, {"u": {"a": 1.0, "b": 1.0, "c": 1.0}}
    with pytest.raises(InvalidParameterError) as info:
        evaluate(qrels, run, ["mrr"], ties="average", depth=2)
    assert str(info.value) == (
        "evaluate: depth keeps the first items of each list in the order of ties, and "
        "ties='average' gives none (it averages over the orders of tied items). Got depth=2; "
        "pass a cut-off (e.g. 'mrr@2') with depth=0, or another ties (e.g. ties='trec')."
    )
    assert evaluate(qrels, run, ["mrr@2"], ties="average").mean == {"mrr@2": 0.5}


def test_a_tie_across_the_depth_is_tie_dependent_without_an_average():
    """Which items of a tie across the depth count depends on the tie's order: the
    user is tie-dependent and the mean over tie orders is not known (nan); a tie
    within the depth is averaged as without one."""
    qrels = {"u": {"a": 1}, "v": {"a": 1}}
    run = {"u": {"a": 1.0, "b": 1.0, "c": 1.0}, "v": {"a": 1.0, "b": 1.0, "c": 0.5}}
    report = evaluate(qrels, run, ["mrr"], depth=2)
    assert report.n_users_tie_dependent == {"mrr": 2}
    assert math.isnan(report.mean_ties_average["mrr"])
    within = evaluate({"v": {"a": 1}}, {"v": run["v"]}, ["mrr"], depth=2)
    assert within.n_users_tie_dependent == {"mrr": 1}
    assert within.mean_ties_average == {"mrr": 0.75}
