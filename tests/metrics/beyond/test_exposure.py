"""Expected exposure: hand-computed values, the oracle, properties with ties, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from receval import (
    ExpectedExposureReport,
    InputValidationError,
    InvalidParameterError,
    Qrels,
    Run,
    UndefinedMetricWarning,
    expected_exposure,
    group_exposure,
)
from tests.oracles import exposure as oracle

TWO = {"u": {"a": 1, "b": 1}}


def _means(report: ExpectedExposureReport) -> list[float]:
    m = report.mean
    return [m["ee_disparity"], m["ee_relevance"], m["ee_loss"]]


# ---------------------------------------------------------------- hand-computed
def test_deterministic_ranking_of_two_relevant_items() -> None:
    # Diaz et al. 2020, section 3: each deserves (1 + gamma) / 2 = 0.75; a
    # deterministic ranking gives 1 and 0.5
    report = expected_exposure(TWO, {"u": {"a": 0.9, "b": 0.5}})
    assert _means(report) == [1.25, 1.125, 0.125]


def test_tie_and_sampled_orders_meet_the_target() -> None:
    tied = expected_exposure(TWO, {"u": {"a": 0.5, "b": 0.5}})
    sampled = expected_exposure(TWO, [{"u": {"a": 2, "b": 1}}, {"u": {"b": 2, "a": 1}}])
    assert _means(tied) == _means(sampled) == [1.125, 1.125, 0.0]


def test_graded_target_and_a_non_relevant_item() -> None:
    # grades: a=2 deserves 1; b, c (grade 1) share positions 2 and 3: (0.5 + 0.25) / 2
    qrels = {"u": {"a": 2, "b": 1, "c": 1, "z": 0}}
    run = {"u": {"a": 0.9, "c": 0.5, "b": 0.5, "d": 0.1}}  # d unjudged: 0.125 wasted
    report = expected_exposure(qrels, run)
    assert _means(report) == [1 + 2 * 0.375**2 + 0.125**2, 1 + 2 * 0.375**2, 0.125**2]
    binary = expected_exposure(qrels, run, binary=True)  # a, b, c deserve 1.75 / 3 each
    t = 1.75 / 3
    assert_allclose(
        _means(binary), [1.296875, t * 1.75, (1 - t) ** 2 + 2 * (0.375 - t) ** 2 + 0.125**2]
    )


def test_depth_truncates_run_and_target() -> None:
    qrels = {"u": {"a": 1, "b": 1, "c": 1}}
    report = expected_exposure(qrels, {"u": {"a": 3, "b": 2, "c": 1}}, k=2)
    # target (1 + 0.5 + 0) / 3 = 0.5 each; exposure 1, 0.5, 0
    assert _means(report) == [1.25, 0.75, 0.5]
    whole = expected_exposure(qrels, {"u": {"a": 3, "b": 2, "c": 1}}, k=10)
    assert _means(whole) == _means(expected_exposure(qrels, {"u": {"a": 3, "b": 2, "c": 1}}))


def test_zero_patience_exposes_the_first_item_only() -> None:
    report = expected_exposure(TWO, {"u": {"a": 0.9, "b": 0.5}}, patience=0.0)
    assert _means(report) == [1.0, 0.5, 0.5]


def test_ties_input_reads_the_run_as_deterministic() -> None:
    report = expected_exposure(TWO, {"u": {"b": 0.5, "a": 0.5}}, ties="input")
    assert _means(report) == [1.25, 1.125, 0.125]


def test_users_skipped_missing_and_run_only() -> None:
    qrels = {"u": {"a": 1}, "none": {"a": 0}, "gone": {"a": 1, "b": 2}}
    run = {"u": {"a": 1.0}, "other": {"a": 1.0}}
    report = expected_exposure(qrels, run)
    assert report.users.tolist() == ["u", "gone"]
    assert (report.n_users_skipped, report.n_users_missing, report.n_run_only_users) == (1, 1, 1)
    # "gone" is an empty ranking: no exposure, EE-L = |target|^2 = 1 + 0.5^2
    assert report.ee_loss.tolist() == [0.0, 1.25]
    assert report.ee_disparity.tolist() == [1.0, 0.0]
    skip = expected_exposure(qrels, run, missing_users="skip")
    assert skip.users.tolist() == ["u"] and skip.n_users_missing == 1


def test_no_user_to_evaluate_gives_nan_means() -> None:
    report = expected_exposure({"u": {"a": 0}}, {"u": {"a": 1.0}})
    assert report.n_users == 0 and all(math.isnan(x) for x in _means(report))


def test_input_shapes_agree() -> None:
    import pandas as pd

    qrels = {"u": {"a": 2, "b": 1}, "v": {"c": 1}}
    run = {"u": {"a": 0.1, "b": 0.9, "c": 0.9}, "v": {"c": 0.3, "a": 0.2}}
    expected = _means(expected_exposure(qrels, run))
    q = Qrels(["u", "u", "v"], ["a", "b", "c"], [2, 1, 1])
    ranks = Run(["u", "u", "u", "v", "v"], ["b", "c", "a", "c", "a"], ranks=[1, 1, 3, 1, 2])
    assert _means(expected_exposure(q, ranks)) == expected
    frame = pd.DataFrame(
        [(u, i, s) for u, items in run.items() for i, s in items.items()],
        columns=["user", "item", "score"],
    )
    assert _means(expected_exposure(qrels, frame)) == expected


def test_qrels_from_a_trec_file(tmp_path) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text("u 0 a 1\nu 0 b 1\n")
    report = expected_exposure(str(path), {"u": {"a": 0.9, "b": 0.5}})
    assert _means(report) == [1.25, 1.125, 0.125]


def test_report_frame_and_repr() -> None:
    import pandas  # noqa: F401

    report = expected_exposure(TWO, {"u": {"a": 0.9, "b": 0.5}})
    frame = report.to_frame("pandas")
    assert list(frame.columns) == ["user", "ee_disparity", "ee_relevance", "ee_loss"]
    assert "ee_loss=0.125" in repr(report)


# ---------------------------------------------------------------- errors
_IN = "The '{}' parameter of expected_exposure must be"
_REAL = " a real number in [0.0, 1.0). Got "


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"patience": 1.0}, _IN.format("patience") + _REAL + "1.0 instead."),
        ({"patience": -0.5}, _IN.format("patience") + _REAL + "-0.5 instead."),
        ({"patience": "0.5"}, _IN.format("patience") + " a real number. Got '0.5' instead."),
        ({"k": 0}, _IN.format("k") + " an integer in [1, inf). Got 0 instead."),
        ({"ties": "trec"},
         _IN.format("ties") + " one of ['average', 'input']. Got 'trec' instead."),
        ({"missing_users": "error"},
         _IN.format("missing_users") + " one of ['skip', 'zero']. Got 'error' instead."),
        ({"binary": 1}, _IN.format("binary") + " a bool. Got 1 instead."),
    ],
)  # fmt: skip
def test_bad_parameters(kwargs: dict, message: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        expected_exposure(TWO, {"u": {"a": 1.0}}, **kwargs)
    assert str(info.value) == message


def test_bad_qrels() -> None:
    with pytest.raises(
        InvalidParameterError,
        match=r"^The 'qrels' parameter of expected_exposure must be a Qrels, a dict",
    ):
        expected_exposure([("u", "a", 1)], {"u": {"a": 1.0}})


# ---------------------------------------------------------------- oracle and properties
ITEMS = list("abcdefg")


@st.composite
def cases(draw: st.DrawFn) -> tuple[dict, list[dict]]:
    """Qrels and one or more sampled runs; scores from {0, 0.5, 1} (many ties)."""
    # (users of one type: a column mixing numbers and strings is refused)
    names = st.sampled_from(["u", "v", "w", "7"])
    users = draw(st.lists(names, min_size=1, max_size=3, unique=True))
    qrels = {
        u: draw(st.dictionaries(st.sampled_from(ITEMS), st.integers(-1, 3), min_size=1, max_size=6))
        for u in users
    }
    n_samples = draw(st.integers(1, 3))
    run_users = [*users, "x"]
    samples = [
        {
            u: draw(
                st.dictionaries(
                    st.sampled_from(ITEMS),
                    st.sampled_from([0.0, 0.5, 1.0]),
                    min_size=int(u == users[0]),  # a run has at least one row
                    max_size=6,
                )
            )
            for u in run_users
            if draw(st.booleans()) or u == users[0]
        }
        for _ in range(n_samples)
    ]
    return qrels, samples


def _check_against_oracle(report: ExpectedExposureReport, expected: dict) -> None:
    got = {
        str(u): (d, r, loss)
        for u, d, r, loss in zip(
            report.users.tolist(),
            report.ee_disparity,
            report.ee_relevance,
            report.ee_loss,
            strict=True,
        )
    }
    assert set(got) == {str(u) for u in expected}
    for u, values in expected.items():
        assert_allclose(got[str(u)], values, rtol=1e-12, atol=1e-15)


@given(
    cases(),
    st.sampled_from([0.0, 0.3, 0.5, 0.9]),
    st.sampled_from([None, 1, 2, 4]),
    st.sampled_from(["average", "input"]),
    st.booleans(),
    st.sampled_from(["zero", "skip"]),
    st.integers(1, 2),
)
def test_equals_the_oracle(case, patience, k, ties, binary, missing, threshold) -> None:
    qrels, samples = case
    kwargs = dict(patience=patience, k=k, ties=ties, binary=binary, missing_users=missing)
    report = expected_exposure(qrels, samples, rel_threshold=threshold, **kwargs)
    expected = oracle.expected_exposure(qrels, samples, rel_threshold=threshold, **kwargs)
    _check_against_oracle(report, expected)
    if len(samples) == 1:  # a single run, not wrapped in a list
        _check_against_oracle(
            expected_exposure(qrels, samples[0], rel_threshold=threshold, **kwargs), expected
        )


@given(cases(), st.sampled_from([0.3, 0.5, 0.9]), st.sampled_from([None, 2]))
def test_loss_decomposes_into_disparity_and_relevance(case, patience, k) -> None:
    qrels, samples = case
    report = expected_exposure(qrels, samples, patience=patience, k=k)
    norms = {
        u: sum(t * t for t in oracle.target_exposure(g, patience, k, 1, False).values())
        for u, g in qrels.items()
    }
    norms = {str(u): x for u, x in norms.items()}
    target = np.array([norms[str(u)] for u in report.users.tolist()])
    assert (report.ee_loss >= 0).all()
    assert_allclose(
        report.ee_loss, report.ee_disparity - 2 * report.ee_relevance + target, atol=1e-12
    )


@given(cases(), st.sampled_from([0.3, 0.5, 0.9]))
def test_ranking_by_grade_with_ties_meets_the_target(case, patience) -> None:
    qrels, _ = case
    ideal = {u: {d: float(g) for d, g in grades.items() if g >= 1} for u, grades in qrels.items()}
    ideal = {u: s for u, s in ideal.items() if s}
    assume(ideal)
    report = expected_exposure(qrels, ideal, patience=patience)
    assert_allclose(report.ee_loss, 0.0, atol=1e-15)
    assert_allclose(report.ee_relevance, report.ee_disparity, rtol=1e-12)


@given(cases(), st.sampled_from([0.3, 0.5, 0.9]))
def test_tie_average_equals_every_rotation_sampled(case, patience) -> None:
    qrels, samples = case
    run = samples[0]
    rotations = []
    groups = {
        u: [[d for d in s if s[d] == v] for v in sorted(set(s.values()), reverse=True)]
        for u, s in run.items()
    }
    n = math.lcm(*(len(g) for gs in groups.values() for g in gs))  # every group goes round
    for shift in range(n):
        sample = {}
        for u, gs in groups.items():
            order = [g[(i + shift) % len(g)] for g in gs for i in range(len(g))]
            sample[u] = {d: -float(r) for r, d in enumerate(order)}
        rotations.append(sample)
    assert_allclose(
        _means(expected_exposure(qrels, run, patience=patience)),
        _means(expected_exposure(qrels, rotations, patience=patience)),
        rtol=1e-12,
        atol=1e-15,  # a loss of 0 by one route is a rounding residue by the other
        equal_nan=True,
    )


# ---------------------------------------------------------------- groups
PROVIDERS = {"a": "p1", "b": "p1", "c": "p2", "d": ["p2", "p3"]}


def test_group_expected_exposure_by_hand() -> None:
    # a, b (grade 1) deserve 0.75 each; c deserves nothing, d is unjudged: at
    # group level only the relevant items count, so p1 deserves 1.5 and gets 1.5
    qrels = {"u": {"a": 1, "b": 1, "c": 0}}
    run = {"u": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6}}
    report = expected_exposure(qrels, run, item_groups=PROVIDERS)
    assert _means(report) == [2.25, 2.25, 0.0]
    split = expected_exposure(qrels, run, item_groups={"a": "p1", "b": "p2"})
    # p1 gets 1 (deserves 0.75), p2 gets 0.5 (deserves 0.75)
    assert _means(split) == [1.25, 1.125, 0.125]


def test_group_exposure_by_hand() -> None:
    lists = [["a", "c", "b"], ["d", "a"]]
    report = group_exposure(lists, item_groups=PROVIDERS)
    # p1: (1 + 0.25 + 0.5) / 2; p2: (0.5 + 1) / 2; p3: 1 / 2
    assert report.groups.tolist() == ["p1", "p2", "p3"]
    assert report.exposure.tolist() == [0.875, 0.75, 0.5]
    assert report.n_items.tolist() == [2, 2, 1]
    assert report.exposure_per_item.tolist() == [0.4375, 0.375, 0.5]
    assert report.max_min_ratio == 0.5 / 0.375
    assert_allclose(report.share, [0.875 / 2.125, 0.75 / 2.125, 0.5 / 2.125])
    per_item = np.sort([0.4375, 0.375, 0.5])
    assert_allclose(
        report.gini, ((2 * np.arange(1, 4) - 4) * per_item).sum() / (3 * per_item.sum())
    )
    pairs = group_exposure(
        lists, item_groups=(["a", "b", "c", "d", "d"], ["p1", "p1", "p2", "p2", "p3"])
    )
    assert pairs.exposure.tolist() == report.exposure.tolist()


def test_group_exposure_parity_and_unexposed_groups() -> None:
    even = group_exposure([["a", "c"], ["c", "a"]], item_groups={"a": 1, "c": 2})
    assert even.max_min_ratio == 1.0 and even.gini == 0.0
    unexposed = group_exposure([["a"]], item_groups={"a": 1, "c": 2}, k=1)
    assert unexposed.max_min_ratio == math.inf and unexposed.exposure.tolist() == [1.0, 0.0]


def test_group_ids_come_back_of_the_type_given() -> None:
    # every group id came back as an object: a pandas frame's column of ints was object
    import pandas as pd
    import polars as pl

    lists = [["a", "c"], ["c", "a"]]
    items = ["a", "c"]
    for groups, dtype in (([1, 2], np.int64), (np.array([1, 2], dtype=np.int16), np.int64),
                          (pd.Series([1, 2], dtype="Int64"), np.int64),
                          (pl.Series([1, 2]), np.int64), ([1.0, 2.0], np.float64),
                          ([1.5, 2.0], np.float64)):  # fmt: skip
        report = group_exposure(lists, item_groups=(items, groups))
        assert report.groups.dtype == dtype, type(groups)
        assert report.groups.tolist() == list(groups), type(groups)
        assert report.to_frame("pandas")["group"].dtype == dtype, type(groups)
        polars_type = pl.Int64 if dtype == np.int64 else pl.Float64
        assert report.to_frame("polars")["group"].dtype == polars_type, type(groups)
    report = group_exposure(lists, item_groups={"a": 1.0, "c": 2.0})
    assert report.groups.dtype == np.float64 and report.groups.tolist() == [1.0, 2.0]
    report = group_exposure(lists, item_groups={"a": "p1", "c": "p2"})
    assert report.groups.dtype.kind == "U" and report.groups.tolist() == ["p1", "p2"]
    assert report.to_frame("polars")["group"].dtype == pl.String
    big = group_exposure(lists, item_groups={"a": 2**64 - 1, "c": 3})  # no int64 holds both
    assert big.groups.tolist() == [2**64 - 1, 3]


@pytest.mark.parametrize("run", [{"u": {}}, {"u": {}, "v": {}}, Run.from_dict({"u": {}})])
def test_group_exposure_of_a_run_without_items_is_undefined(run) -> None:
    # no user ranks an item: no exposure to average, no disparity (the Gini index of
    # all-zero exposures was reported as 0, parity)
    with pytest.warns(UndefinedMetricWarning, match="group_exposure: the run ranks no item"):
        report = group_exposure(run, item_groups={"a": 1, "c": 2})
    assert report.n_users == 0 and report.n_items.tolist() == [1, 1]
    for field in ("exposure", "share", "exposure_per_item"):
        assert np.isnan(getattr(report, field)).all(), field
    assert math.isnan(report.max_min_ratio) and math.isnan(report.gini)


def test_items_without_a_group() -> None:
    with pytest.raises(InputValidationError) as info:
        group_exposure([["a", "x", "y"]], item_groups={"a": 1})
    assert str(info.value) == (
        "group_exposure: item_groups must give a group to every item of the run. Got 2 items "
        "['x', 'y'] without one; add them to item_groups."
    )
    with pytest.raises(InputValidationError, match=r"every relevant item\. Got 1 item"):
        expected_exposure({"u": {"b": 1}}, {"u": {"a": 1.0}}, item_groups={"a": 1})
    with pytest.raises(InputValidationError, match="item_groups must be a mapping"):
        group_exposure([["a"]], item_groups=["a"])


GROUPS = {d: g for d, g in zip(ITEMS, [0, [0, 1], 1, 2, [1, 2], 0, 3], strict=True)}


@given(cases(), st.sampled_from([0.0, 0.5, 0.9]), st.sampled_from([None, 2]), st.booleans())
def test_group_metrics_equal_the_oracle(case, patience, k, binary) -> None:
    qrels, samples = case
    report = expected_exposure(
        qrels, samples, patience=patience, k=k, binary=binary, item_groups=GROUPS
    )
    expected = oracle.group_expected_exposure(
        qrels, samples, GROUPS, patience=patience, k=k, binary=binary
    )
    _check_against_oracle(report, expected)
    exposure = group_exposure(samples, item_groups=GROUPS, patience=patience, k=k)
    by_group = oracle.group_exposure(samples, GROUPS, patience=patience, k=k)
    assert_allclose(exposure.exposure, [by_group[g] for g in exposure.groups.tolist()], rtol=1e-12)


@given(cases(), st.sampled_from([0.3, 0.9]))
def test_one_group_per_item_gives_item_level_disparity(case, patience) -> None:
    qrels, samples = case
    own = {d: d for d in ITEMS}
    items = expected_exposure(qrels, samples, patience=patience)
    groups = expected_exposure(qrels, samples, patience=patience, item_groups=own)
    # at group level only relevant items count: EE-R is the same, EE-D and EE-L drop
    # the exposure of the non-relevant items
    assert_allclose(groups.ee_relevance, items.ee_relevance, rtol=1e-12)
    assert (groups.ee_disparity <= items.ee_disparity + 1e-12).all()
    assert (groups.ee_loss <= items.ee_loss + 1e-12).all()


# ------------------------------------------------------------------ accumulators
def _exposure_batches(seed):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for u in range(30):
        items = [f"d{i}" for i in rng.choice(15, 8, replace=False)]
        qrels[f"u{u}"] = {d: int(rng.integers(0, 3)) for d in items[:4]}
        if u % 9 != 4:
            run[f"u{u}"] = {d: float(rng.choice([0.2, 0.5, 0.8])) for d in items[2:]}
    return qrels, run


@pytest.mark.parametrize("name", ["ee_disparity", "ee_relevance", "ee_loss"])
@pytest.mark.parametrize(
    ("suffix", "conventions", "options"),
    [("", {}, {}),
     ("(patience=0.8)@3", {"gain": "binary"}, {"patience": 0.8, "k": 3, "binary": True}),
     ("@5", {"missing_users": "skip", "ties": "input"},
      {"k": 5, "missing_users": "skip", "ties": "input"})],
)  # fmt: skip
def test_evaluate_and_accumulators_equal_the_function(name, suffix, conventions, options):
    import pickle

    import receval

    qrels, run = _exposure_batches(5)
    report = expected_exposure(qrels, run, **options)
    text = name + suffix
    # EE-D takes no gain (it is the exposure alone): refused, as any option it ignores
    if "gain" in conventions and name == "ee_disparity":
        with pytest.raises(receval.InvalidParameterError, match="changes none of the metrics"):
            receval.metric(text, **conventions)
        conventions = {k: v for k, v in conventions.items() if k != "gain"}
    got = receval.evaluate(qrels, run, [text, "ndcg@3"], **conventions)
    assert got.mean[text] == report.mean[name]
    by_user = dict(zip(got.users.tolist(), got.values[text].tolist(), strict=True))
    for user, value in zip(report.users.tolist(), getattr(report, name).tolist(), strict=True):
        assert by_user.pop(user) == value
    assert all(math.isnan(v) for v in by_user.values())  # the users left out
    assert got.n_users_skipped[text] == len(by_user)
    # streaming: batches of whole users, merged in any order
    users = list(qrels)
    cuts = [3, 10, 17, 25]  # every batch holds a user of the run
    parts = []
    acc = receval.metric(text, **conventions)
    for a, b in zip([0, *cuts], [*cuts, len(users)], strict=True):
        q = {u: qrels[u] for u in users[a:b]}
        r = {u: run[u] for u in users[a:b] if u in run}
        acc.update(q, r)
        parts.append(receval.metric(text, **conventions).update(q, r))
    assert acc.compute() == report.mean[name]
    merged = pickle.loads(pickle.dumps(parts[3]))
    for i in (0, 4, 2, 1):
        merged.merge(parts[i])
    assert merged.compute() == report.mean[name]


def test_evaluate_exposure_on_a_scan(tmp_path):
    import pandas as pd

    import receval

    qrels, run = _exposure_batches(8)
    rows = [(u, d, s) for u, items in run.items() for d, s in items.items()]
    frame = pd.DataFrame(rows, columns=["user", "item", "score"])
    frame.to_parquet(tmp_path / "run.parquet")
    metrics = ["ee_loss@4", "ee_disparity", "ndcg@4"]
    memory = receval.evaluate(qrels, run, metrics)
    scanned = receval.evaluate(
        qrels, receval.scan(tmp_path / "run.parquet", batch_rows=17), metrics
    )
    for m in metrics:
        np.testing.assert_array_equal(memory.values[m], scanned.values[m])
        assert memory.mean[m] == scanned.mean[m]
    with pytest.raises(InvalidParameterError, match="patience"):
        receval.evaluate(qrels, run, ["ee_loss(patience=1.5)"])


@pytest.mark.parametrize("run", [{}, []])
def test_an_empty_run_is_an_error_as_for_the_other_beyond_metrics(run):
    with pytest.raises(InputValidationError, match="expected_exposure: run is empty"):
        expected_exposure({"u": {"a": 1}}, run)
    with pytest.raises(InputValidationError, match="group_exposure: run is empty"):
        group_exposure(run, item_groups={"a": "p"})


def test_a_run_of_other_users_leaves_every_user_missing():
    qrels = {"u": {"a": 1, "b": 2}, "v": {"c": 1}}
    zero = expected_exposure(qrels, {"w": {"a": 1.0}})
    assert zero.ee_disparity.tolist() == [0.0, 0.0] and zero.n_users_missing == 2
    # EE-L of a user absent from the run: the squared norm of its target exposure, 1 for
    # one relevant item (exposure 1 at rank 1); u's: 1 and 0.5 for grades 2 and 1
    assert zero.ee_loss.tolist() == [1.25, 1.0]
    assert expected_exposure(qrels, {"w": {"a": 1.0}}, missing_users="skip").n_users == 0


# ------------------------------------------------------------------ empty_users
#: "none" has no relevant item and is ranked; "gone" has none and is absent from the run
EMPTY_QRELS = {"u": {"a": 1}, "none": {"a": 0}, "gone": {"b": 0}}
EMPTY_RUN = {"u": {"a": 1.0, "b": 0.5}, "none": {"a": 0.5, "b": 0.5}}


@pytest.mark.parametrize(("empty", "value"), [("zero", 0.0), ("one", 1.0)])
def test_empty_users_scores_the_users_without_a_relevant_item(empty, value) -> None:
    skip = expected_exposure(EMPTY_QRELS, EMPTY_RUN)
    assert skip.users.tolist() == ["u"] and skip.n_users_skipped == 2
    report = expected_exposure(EMPTY_QRELS, EMPTY_RUN, empty_users=empty)
    assert sorted(report.users.tolist()) == ["gone", "none", "u"]
    for name in ("ee_disparity", "ee_relevance", "ee_loss"):
        by_user = dict(zip(report.users.tolist(), getattr(report, name).tolist(), strict=True))
        assert by_user == {"u": getattr(skip, name)[0], "none": value, "gone": value}
    assert (report.n_users_skipped, report.n_users_missing) == (0, 1)
    # absent from the run and left out by missing_users="skip" (counted missing)
    ranked = expected_exposure(EMPTY_QRELS, EMPTY_RUN, empty_users=empty, missing_users="skip")
    assert sorted(ranked.users.tolist()) == ["none", "u"]
    assert (ranked.n_users_skipped, ranked.n_users_missing) == (0, 1)


def test_empty_users_error_names_the_users_without_a_relevant_item() -> None:
    with pytest.raises(InputValidationError) as info:
        expected_exposure(EMPTY_QRELS, EMPTY_RUN, empty_users="error")
    assert str(info.value) == (
        "expected_exposure: empty_users='error', and 2 users have no relevant item (grade "
        ">= 1), e.g. ['gone', 'none']; pass empty_users='skip', 'zero' or 'one' to leave "
        "them out or score them."
    )
    assert expected_exposure(TWO, {"u": {"a": 1.0}}, empty_users="error").n_users == 1
    with pytest.raises(InvalidParameterError) as bad:
        expected_exposure(TWO, {"u": {"a": 1.0}}, empty_users="keep")
    assert str(bad.value) == (
        _IN.format("empty_users") + " one of ['error', 'one', 'skip', 'zero']. Got 'keep' instead."
    )


@pytest.mark.parametrize("empty", ["skip", "zero", "one"])
@pytest.mark.parametrize("missing", ["zero", "skip"])
def test_evaluate_applies_empty_users_to_expected_exposure(empty, missing) -> None:
    import receval

    conventions = {"empty_users": empty, "missing_users": missing}
    report = expected_exposure(EMPTY_QRELS, EMPTY_RUN, empty_users=empty, missing_users=missing)
    metrics = ["ee_loss", "ee_relevance@1", "ndcg"]
    got = receval.evaluate(EMPTY_QRELS, EMPTY_RUN, metrics, **conventions)
    alone = receval.evaluate(EMPTY_QRELS, EMPTY_RUN, ["ee_loss"], **conventions)
    assert alone.mean["ee_loss"] == got.mean["ee_loss"] == report.mean["ee_loss"]
    # the users each rule leaves out, as for ndcg
    for text in metrics[:2]:
        assert got.n_users_skipped_by[text] == got.n_users_skipped_by["ndcg"], text
        assert np.array_equal(np.isnan(got.values[text]), np.isnan(got.values["ndcg"]))
    by_user = dict(zip(got.users.tolist(), got.values["ee_loss"].tolist(), strict=True))
    if empty != "skip":
        assert by_user["none"] == (0.0 if empty == "zero" else 1.0)
    # a metric string's own setting, and an accumulator, give the same value
    own = receval.evaluate(EMPTY_QRELS, EMPTY_RUN, [f"ee_loss(empty_users={empty})"],
                           missing_users=missing)  # fmt: skip
    assert own.mean[f"ee_loss(empty_users={empty})"] == report.mean["ee_loss"]
    acc = receval.metric("ee_loss", **conventions).update(EMPTY_QRELS, EMPTY_RUN)
    assert acc.compute() == report.mean["ee_loss"]


def test_evaluate_raises_for_expected_exposure_with_empty_users_error() -> None:
    import receval

    said = r"'ee_loss' has empty_users='error', and 2 users have no relevant item, e\.g\. \['gone'"
    with pytest.raises(InputValidationError, match=said):
        receval.evaluate(EMPTY_QRELS, EMPTY_RUN, ["ee_loss"], empty_users="error")
