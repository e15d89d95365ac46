"""What an accumulator's batches were of: the labels of a binary ``y_true`` and the type of
the group ids, held in its state (:mod:`receval.engine.kinds`).

One call of a metric's function refuses labels {-1, 0, 1} (is 0 a negative?) and
group ids of both types (the int 1 and the str "1"); an accumulator took them a batch
at a time, each fine alone, and counted {-1, 1} and {0, 1} batches as negatives and
positives alike, or joined (or split) the groups 1 and "1": a silent wrong value. The
state now holds the kind of its rows, through merges, syncs, pickles and
``state_dict``, and refuses rows of another kind as the function refuses all of them.
"""

from __future__ import annotations

import io
import itertools
import pickle
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import receval
from receval import InputValidationError, InvalidParameterError, UndefinedMetricWarning
from receval.engine.kinds import IdKind, LabelKind

#: every accumulator of binary labels, and the function it equals on all the rows
BINARY = {
    "roc_auc": lambda y, s: receval.roc_auc_score(y, s),
    "average_precision": lambda y, s: receval.average_precision_score(y, s),
    "pr_auc": lambda y, s: receval.pr_auc_score(y, s),
    "break_even_point": lambda y, s: receval.break_even_point(y, s),
    "partial_auc(max_fpr=0.5)": lambda y, s: receval.partial_auc(y, s, max_fpr=0.5),
    "log_loss": lambda y, s: receval.log_loss(y, s),
    "normalized_entropy": receval.normalized_entropy,
    "calibration_free_normalized_entropy": receval.calibration_free_normalized_entropy,
    "normalized_entropy_positive": receval.normalized_entropy_positive,
    "pcoc": receval.pcoc,
    "copc": receval.copc,
    "brier_score": lambda y, s: receval.brier_score_loss(y, s),
    "expected_calibration_error": lambda y, s: receval.expected_calibration_error(y, s),
    "roc_auc(bins=4)": None,  # binned: its own value
}
#: every accumulator of group ids that a batch holds whole (or holds rows of, for the
#: grouped metrics of XAUCCounts), and its function's name
GROUPED = {
    "gauc(whole_groups)": ("gauc_score", {"whole_groups": True}, "gauc"),
    "gauc": ("gauc_score", {}, "gauc"),
    "grouped_auprc": ("grouped_auprc_score", {}, "grouped_auprc"),
    "grouped_xauc": ("xauc_score", {}, "grouped_xauc"),
    "grouped_regression_auc": ("regression_auc_score", {}, "grouped_regression_auc"),
}

LABELS = (
    "{func}: y_true must hold one negative label beside {positive} in every update and merge "
    "(the labels of one binary column). Got {given} {where}, {held} before; binarise the "
    "labels alike in every update, e.g. y_true = (y_true == {positive})."
)
IDS = (
    "{func}: groups must hold ids of one type in every update and merge: numbers (ints or "
    "floats) or strings. Got {given} {where}, {held} before; convert them to one type in every "
    "update, e.g. groups = groups.astype(str)."
)
SCORES = [0.1, 0.3, 0.5, 0.5, 0.9]


def _metric(name: str) -> Any:
    return receval.metric(name)


def _updating(name: str) -> str:
    """An accumulator's update, as its checks name it."""
    return f"Accumulator.update of {name!r}"


def _merging(name: str) -> str:
    """An accumulator's merge, as the checks of the rows it takes name it."""
    return f"Accumulator.merge of {name!r}"


def _value(x: Any) -> Any:
    """A value to compare with ``==`` (nan equal to nan; a binned AUC's pair)."""
    if isinstance(x, tuple):
        return tuple(_value(v) for v in x)
    return "nan" if isinstance(x, float) and np.isnan(x) else x


# ------------------------------------------------------------------ binary labels
@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("as_array", [True, False])  # the core's one-call path, the checks'
def test_batches_of_minus_one_and_zero_negatives_are_refused(name: str, as_array: bool) -> None:
    # before: roc_auc 1.0, brier 0.084...: -1 and 0 both taken as negatives, where
    # roc_auc_score(all the rows) refuses labels [-1, 0, 1]
    conv = np.array if as_array else list
    for first, second, held, given_ in (([-1, 1, -1], [0, 1, 0], -1, 0),
                                        ([0, 1, 0], [-1, 1, -1], 0, -1),
                                        ([1, 1, 0], [-1, -1, 1], 0, -1)):  # fmt: skip
        acc = _metric(name).update(conv(first), conv(SCORES[:3]))
        before = _value(acc.compute())
        with pytest.raises(InputValidationError) as caught:
            acc.update(conv(second), conv(SCORES[2:]))
        assert str(caught.value) == LABELS.format(
            func=_updating(name), positive=1, given=given_, where="in this update", held=held
        )
        assert _value(acc.compute()) == before and acc.n_updates == 1  # left as it was


label_rows = st.lists(
    st.tuples(st.sampled_from([-1, 0, 1]), st.sampled_from(SCORES)), min_size=1, max_size=30
)


@given(label_rows, st.lists(st.integers(1, 29), max_size=5), st.booleans())
def test_any_split_refuses_exactly_what_one_call_refuses(
    rows: list[tuple[int, float]], cuts: list[int], as_array: bool
) -> None:
    y = np.array([r[0] for r in rows])
    s = np.array([r[1] for r in rows])
    edges = sorted({c for c in cuts if c < len(y)} | {0, len(y)})
    conv = np.asarray if as_array else (lambda a: a.tolist())
    both_negatives = bool((y == -1).any() and (y == 0).any())
    for name, function in BINARY.items():
        acc = _metric(name)
        try:
            for a, b in itertools.pairwise(edges):
                acc.update(conv(y[a:b]), conv(s[a:b]))
            refused = False
        except InputValidationError:
            refused = True
        assert refused == both_negatives, name
        if refused or function is None:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            assert _value(acc.compute()) == _value(function(y, s)), name


def test_labels_with_pos_label_are_one_pair_across_batches() -> None:
    acc = receval.metric("brier_score", pos_label="spam")
    acc.update(["spam", "ham"], [0.9, 0.2]).update(["ham"], [0.4])
    assert acc.compute() == receval.brier_score_loss(
        ["spam", "ham", "ham"], [0.9, 0.2, 0.4], pos_label="spam"
    )
    with pytest.raises(InputValidationError) as caught:
        acc.update(["eggs", "spam"], [0.1, 0.8])  # before: 'eggs' a third label, negative
    assert str(caught.value) == LABELS.format(
        func=_updating("brier_score"), positive="'spam'", given="'eggs'",
        where="in this update", held="'ham'",
    )  # fmt: skip
    positives = receval.metric("roc_auc", pos_label=1).update([1, 1], [0.2, 0.3])
    positives.update([0, 1], [0.1, 0.4]).update(np.array([1.0, 0.0]), np.array([0.9, 0.5]))
    with pytest.raises(InputValidationError, match="Got -1 in this update, 0 before"):
        positives.update([-1, 1], [0.3, 0.6])  # one call of both: 'must be binary'


def test_bools_and_floats_are_the_labels_0_and_1() -> None:
    acc = receval.metric("roc_auc").update(np.array([True, False]), np.array([0.9, 0.2]))
    acc.update(np.array([0.0, 1.0]), np.array([0.3, 0.6])).update([1, 0], [0.5, 0.4])
    assert acc.compute() == receval.roc_auc_score([1, 0, 0, 1, 1, 0], [0.9, 0.2, 0.3, 0.6,
                                                                       0.5, 0.4])  # fmt: skip
    with pytest.raises(InputValidationError, match="Got -1 in this update, 0 before"):
        acc.update(np.array([-1.0, 1.0]), np.array([0.2, 0.3]))


def test_one_call_of_minus_one_and_zero_without_a_positive_is_refused() -> None:
    # before: both taken as negatives (brier 0.065), which the docstring did not allow
    # and scikit-learn refuses; roc_auc_score keeps scikit-learn's own rule (0 > -1)
    message = "takes values [-1, 0] and pos_label is not specified; pass pos_label"
    for func in (receval.brier_score_loss, receval.average_precision_score,
                 receval.expected_calibration_error):  # fmt: skip
        with pytest.raises(InputValidationError, match=message.replace("[", r"\[")):
            func([-1, 0, 0], [0.2, 0.3, 0.6])
    assert receval.brier_score_loss([-1, 0], [0.2, 0.3], pos_label=0) == (0.04 + 0.49) / 2
    assert receval.roc_auc_score([-1, 0, 0], [0.2, 0.3, 0.6]) == 1.0


@pytest.mark.parametrize("name", ["roc_auc", "log_loss", "ece"])
def test_an_update_of_two_labels_without_pos_label_says_why_it_is_refused(name: str) -> None:
    # roc_auc_score and log_loss take any two labels (the greater positive); an update
    # refused them with the function's words, as if it were a slip of the caller's
    y, s = [2, 2, 0, 0], [0.9, 0.6, 0.3, 0.2]
    with pytest.raises(InputValidationError) as caught:
        receval.metric(name).update(y, s)
    assert str(caught.value) == (
        f"Accumulator.update of {name!r}: y_true takes values [0, 2] and pos_label is not "
        f"specified; a batch cannot tell which label is the positive one, for a later batch "
        f"may hold another (0s and 2s, then 2s and 5s). Pass pos_label to metric, e.g. "
        f"receval.metric({name!r}, pos_label=2)."
    )
    assert caught.value.classes == [0, 2]
    fixed = receval.metric(name, pos_label=2).update(y, s).compute()
    assert fixed == receval.metric(name).update([1, 1, 0, 0], s).compute()


@pytest.mark.parametrize("name", sorted(BINARY))
def test_merged_accumulators_of_two_labellings_are_refused(name: str) -> None:
    minus = _metric(name).update([-1, 1, -1], [0.2, 0.6, 0.4])
    zero = _metric(name).update(np.array([0, 1]), np.array([0.1, 0.7]))
    ones = _metric(name).update(np.array([1, 1]), np.array([0.3, 0.8]))  # tells neither
    for held, other, given_, held_label in ((minus, zero, 0, -1), (zero, minus, -1, 0)):
        before = _value(held.compute())
        with pytest.raises(InputValidationError) as caught:
            held.merge(other)
        assert str(caught.value) == LABELS.format(
            func=_merging(name), positive=1, given=given_, where="in the accumulator merged",
            held=held_label,
        )  # fmt: skip
        assert _value(held.compute()) == before
    assert _value(_metric(name).merge(ones).merge(minus).compute()) == _value(
        _metric(name).update([1, 1, -1, 1, -1], [0.3, 0.8, 0.2, 0.6, 0.4]).compute()
    )
    with pytest.raises(InputValidationError, match="Got 0 in this update, -1 before"):
        ones.merge(minus).update([0, 1], [0.1, 0.2])


@pytest.mark.parametrize("name", sorted(BINARY))
def test_pickle_state_dict_window_and_reset_keep_or_forget_the_labels(name: str) -> None:
    torch = pytest.importorskip("torch")
    acc = _metric(name).update([-1, 1, -1], [0.2, 0.6, 0.4])
    buffer = io.BytesIO()
    torch.save(acc.state_dict(), buffer)
    buffer.seek(0)
    resumed = _metric(name).load_state_dict(torch.load(buffer, weights_only=True))
    windowed = receval.metric(name, window=2).update([-1, 1], [0.2, 0.6])
    for held in (acc, pickle.loads(pickle.dumps(acc)), resumed, windowed,
                 pickle.loads(pickle.dumps(windowed))):  # fmt: skip
        with pytest.raises(InputValidationError, match="Got 0 in this update, -1 before"):
            held.update(np.array([0, 1]), np.array([0.1, 0.7]))
    acc.reset()  # forgets the rows and their labels
    assert _value(acc.update([0, 1], [0.1, 0.7]).compute()) == _value(
        _metric(name).update([0, 1], [0.1, 0.7]).compute()
    )


@pytest.mark.parametrize(
    ("name", "field", "kind", "message"),
    [
        ("roc_auc", "labels", LabelKind(([0], 1)), r"state\.labels\.value must be None or a \("),
        ("brier_score", "labels", IdKind("integers"), r"state\.labels must be a LabelKind"),
        ("gauc", "ids_kind", IdKind("reals"), r"state\.ids_kind\.value must be None, 'int"),
        ("grouped_auprc", "ids_kind", IdKind(func=3), r"state\.ids_kind\.func must be a str"),
    ],
)  # fmt: skip
def test_a_tampered_kind_is_refused_naming_the_field(
    name: str, field: str, kind: Any, message: str
) -> None:
    acc = receval.metric(name, **({"whole_groups": True} if name == "gauc" else {}))
    groups = {"groups": [1, 1]} if "g" in name else {}
    acc.update([0, 1], [0.2, 0.6], **groups)
    state = acc.__getstate__()
    state["_state"] = pickle.loads(pickle.dumps(state["_state"]))
    object.__setattr__(state["_state"], field, kind)
    with pytest.raises(InputValidationError, match=message):
        type(acc).__new__(type(acc)).__setstate__(pickle.loads(pickle.dumps(state)))


def test_an_id_kind_names_its_argument_in_the_refusal() -> None:
    held = IdKind.of(np.array([1, 2]), "f", "run: items")
    with pytest.raises(InputValidationError) as caught:
        held.join(IdKind.of(np.array(["1"]), "f", "run: items"), "in this update")
    assert str(caught.value) == IDS.format(
        func="f", given="strings", where="in this update", held="integers"
    ).replace("groups", "run: items", 1).replace("groups = groups", "items = items")
    assert IdKind("integers", argument=3).invalid() == ("argument", "a str")  # type: ignore[arg-type]


def test_scans_refuse_batches_of_two_labellings(tmp_path: Any) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = str(tmp_path / "labels.parquet")
    y = np.array([-1, 1, -1, 1, 0, 1, 0, 1])
    pq.write_table(pa.table({"y": y, "s": np.linspace(0.1, 0.8, 8)}), path, row_group_size=4)
    s = receval.scan(path, batch_rows=4)
    # score ranges; any split (log loss, NE, PCOC: 0/1 labels only before)
    for func in (receval.roc_auc_score, receval.brier_score_loss, receval.log_loss,
                 receval.normalized_entropy, receval.pcoc):  # fmt: skip
        with pytest.raises(InputValidationError, match=r"Got 0 in this (batch|update)"):
            func(s["y"], s["s"])
        with pytest.raises(InputValidationError, match=r"\[-1, 0, 1\]"):
            func(y, np.linspace(0.1, 0.8, 8))  # in memory: the same rows refused
    minus = np.where(y == 0, -1, y)
    pq.write_table(pa.table({"y": minus, "s": np.linspace(0.1, 0.8, 8)}), path, row_group_size=4)
    s = receval.scan(path, batch_rows=4)
    for func in (receval.normalized_entropy, receval.pcoc, receval.copc):
        assert func(s["y"], s["s"]) == func(minus, np.linspace(0.1, 0.8, 8))


# ------------------------------------------------------------------ the sums of any two labels
PAIRS = [(0, 1, None), (-1, 1, None), (False, True, None), ("no", "yes", "yes"),
         ("yes", "no", "no"), (2, 0, 0)]  # fmt: skip
#: the accumulators of Totals (log loss, NE and its variants, PCOC, COPC) and their functions
TOTALS = {
    "log_loss": receval.log_loss,
    "normalized_entropy": receval.normalized_entropy,
    "calibration_free_normalized_entropy": receval.calibration_free_normalized_entropy,
    "normalized_entropy_positive": receval.normalized_entropy_positive,
    "pcoc": receval.pcoc,
    "copc": receval.copc,
}


@given(
    st.data(),
    st.sampled_from(sorted(TOTALS)),
    st.sampled_from(PAIRS),
    st.lists(st.integers(1, 29), max_size=4),
    st.booleans(),
)
def test_any_two_labels_are_the_function_on_every_row(
    data: Any, name: str, pair: tuple[Any, Any, Any], cuts: list[int], weighted: bool
) -> None:
    """Any two labels (0/1, -1/1, bools; strings or others with pos_label), split into
    updates of two accumulators merged (each seeing the labels in its own order): the
    function's float on all the rows, which is its float on the rows as 0/1 (before:
    "y_true must contain only 0 and 1" for every pair but 0/1 and bools, from the
    accumulators of NE, its variants, PCOC and COPC and from their functions)."""
    negative, positive, pos_label = pair
    rows = data.draw(st.lists(st.tuples(st.booleans(), st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]),
                                        st.sampled_from([0.5, 1.0, 3.0])),
                              min_size=1, max_size=30))  # fmt: skip
    y = np.array([positive if hit else negative for hit, _, _ in rows])
    y01 = np.array([int(hit) for hit, _, _ in rows])
    p = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows]) if weighted else None
    edges = sorted({c for c in cuts if c < len(y)} | {0, len(y)})
    options = {} if pos_label is None else {"pos_label": pos_label}
    first, second = receval.metric(name, **options), receval.metric(name, **options)
    for i, (a, b) in enumerate(itertools.pairwise(edges)):
        part = {} if w is None else {"sample_weight": w[a:b]}
        (first if i % 2 else second).update(y[a:b], p[a:b], **part)
    function = TOTALS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        expected = _value(function(y01, p, sample_weight=w))
        other_way = pickle.loads(pickle.dumps(second)).merge(first)  # (adds into the copy)
        assert _value(other_way.compute()) == expected
        assert _value(first.merge(second).compute()) == expected
        assert _value(function(y, p, sample_weight=w, **options)) == expected
    if name == "log_loss":
        assert receval.log_loss(y, p, sample_weight=w, labels=[negative, positive]) == expected


@pytest.mark.parametrize("name", sorted(TOTALS))
@pytest.mark.parametrize(
    ("y", "options"),
    [
        ([1, -1, -1, 1, 1, -1], {}),
        ([True, False, False, True, True, False], {}),
        (["y", "n", "n", "y", "y", "n"], {"pos_label": "y"}),
        ([0, 3, 3, 0, 0, 3], {"pos_label": 0}),
    ],
)
def test_accumulators_that_saw_the_labels_in_other_orders_merge(
    name: str, y: list[Any], options: dict[str, Any]
) -> None:
    # one accumulator sees a positive first (it tells no negative), then a negative;
    # the other a negative, then positives; merged either way, the function's float
    p = [0.7, 0.2, 0.4, 0.9, 0.6, 0.1]
    first = receval.metric(name, **options).update(y[:1], p[:1]).update(y[1:3], p[1:3])
    second = receval.metric(name, **options).update(y[5:], p[5:]).update(y[3:5], p[3:5])
    expected = TOTALS[name](y[:3] + y[5:] + y[3:5], p[:3] + p[5:] + p[3:5], **options)
    assert receval.metric(name, **options).merge(first).merge(second).compute() == expected
    assert second.merge(first).compute() == expected  # (merge adds into second)
    assert expected == TOTALS[name]([int(x == (options.get("pos_label", 1))) for x in y], p)


def test_log_loss_takes_one_pair_of_labels_in_every_update_and_merge() -> None:
    acc = receval.metric("log_loss", pos_label="yes").update(["no", "yes"], [0.2, 0.7])
    with pytest.raises(InputValidationError) as caught:
        acc.update(["maybe", "yes"], [0.1, 0.8])
    assert str(caught.value) == LABELS.format(
        func=_updating("log_loss"), positive="'yes'", given="'maybe'", where="in this update",
        held="'no'",
    )  # fmt: skip
    other = receval.metric("log_loss", pos_label="yes").update(["maybe"], [0.4])
    with pytest.raises(InputValidationError, match="Got 'maybe' in the accumulator merged"):
        acc.merge(other)
    torch = pytest.importorskip("torch")
    buffer = io.BytesIO()
    torch.save(acc.state_dict(), buffer)
    buffer.seek(0)
    resumed = receval.metric("log_loss", pos_label="yes")
    resumed.load_state_dict(torch.load(buffer, weights_only=True))
    assert resumed.state.labels == acc.state.labels
    with pytest.raises(InputValidationError, match="Got 'maybe' in this update, 'no' before"):
        resumed.update(["maybe"], [0.4])
    y, p = ["no", "yes", "yes", "no"], [0.2, 0.7, 0.6, 0.1]
    assert resumed.update(y[2:], p[2:]).compute() == receval.log_loss(y, p, pos_label="yes")
    bools = receval.metric("log_loss").update(np.array([True, False]), np.array([0.9, 0.2]))
    bools.update([0, 1], [0.3, 0.6])  # bools are the labels 0 and 1
    with pytest.raises(InputValidationError, match="Got -1 in this update, 0 before"):
        bools.update(np.array([-1, 1]), np.array([0.3, 0.6]))
    assert bools.compute() == receval.log_loss([1, 0, 0, 1], [0.9, 0.2, 0.3, 0.6])


# ------------------------------------------------------------------ group id types
@pytest.mark.parametrize("name", sorted(GROUPED))
def test_group_ids_of_both_types_are_refused_across_updates_and_merges(name: str) -> None:
    # before: gauc(whole_groups=True) and grouped_auprc took 1 and "1" as two groups,
    # or as one, where the function refuses a column of both
    func, options, metric = GROUPED[name]

    def fresh() -> Any:
        return receval.metric(metric, **options)

    ints = fresh().update([1, 0], [0.9, 0.1], groups=[1, 1])
    strs = fresh().update([0, 1], [0.8, 0.3], groups=np.array(["2", "2"]))
    expected = ints.compute()
    for held in (ints, pickle.loads(pickle.dumps(ints))):
        with pytest.raises(InputValidationError) as caught:
            held.update(np.array([0, 1]), np.array([0.8, 0.3]), groups=np.array(["2", "2"]))
        assert str(caught.value) == IDS.format(
            func=_updating(metric), given="strings", where="in this update", held="integers"
        )
        with pytest.raises(InputValidationError) as caught:
            held.merge(strs)
        assert str(caught.value) == IDS.format(
            func=_merging(metric), given="strings", where="in the accumulator merged",
            held="integers",
        )  # fmt: skip
        with pytest.raises(InputValidationError) as caught:
            strs.merge(held)
        assert str(caught.value) == IDS.format(
            func=_merging(metric), given="integers", where="in the accumulator merged",
            held="strings",
        )  # fmt: skip
        assert held.compute() == expected and held.n_updates == 1  # left as it was
    with pytest.raises(InputValidationError, match="Got integers in this update, strings"):
        fresh().update([1], [0.5], groups=["a"]).update([1], [0.5], groups=[2.0])  # whole float
    both = ints.update([0, 1], [0.4, 0.2], groups=np.array([7, 7], dtype=np.uint8))
    assert both.compute() == getattr(receval, func)(
        [1, 0, 0, 1], [0.9, 0.1, 0.4, 0.2], groups=[1, 1, 7, 7]
    )
    assert fresh().reset().update([1, 0], [0.9, 0.1], groups=["a", "a"]).compute() == 1.0


@pytest.mark.parametrize("name", sorted(GROUPED))
def test_the_group_id_type_survives_a_state_dict(name: str) -> None:
    torch = pytest.importorskip("torch")
    _, options, metric = GROUPED[name]
    acc = receval.metric(metric, **options).update([1, 0], [0.9, 0.1], groups=["a", "a"])
    buffer = io.BytesIO()
    torch.save(acc.state_dict(), buffer)
    buffer.seek(0)
    loaded = receval.metric(metric, **options).load_state_dict(
        torch.load(buffer, weights_only=True)
    )
    with pytest.raises(InputValidationError, match="Got integers in this update, strings"):
        loaded.update([0, 1], [0.8, 0.3], groups=[3, 3])


@pytest.mark.parametrize("name", sorted(GROUPED))
@pytest.mark.parametrize(
    "first",
    [
        np.array([np.int64(1)] * 2, dtype=object),  # NumPy ints in an object array
        np.array([np.int32(1), 1], dtype=object),
        np.array([1.0, 1.0]),  # whole floats
        [True, True],
    ],
    ids=["object-int64", "object-mixed", "whole-floats", "bools"],
)
def test_integer_ids_of_any_container_are_one_type(name: str, first: Any) -> None:
    # before: an object array of NumPy ints was taken as strings, so the next batch of
    # an int array was refused, where one call on all the rows is fine
    func, options, metric = GROUPED[name]
    y, s = np.array([1, 0, 0, 1]), np.array([0.9, 0.1, 0.4, 0.2])
    acc = receval.metric(metric, **options).update(y[:2], s[:2], groups=first)
    for held in (acc, pickle.loads(pickle.dumps(acc))):
        got = held.update(y[2:], s[2:], groups=np.array([2, 2])).compute()
        ids = np.array([int(first[0]), int(first[1]), 2, 2])
        assert _value(got) == _value(getattr(receval, func)(y, s, groups=ids))


@pytest.mark.parametrize("name", sorted(GROUPED))
@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_an_infinite_float_id_is_refused_by_the_function_and_every_batch(
    name: str, bad: float
) -> None:
    # before: grouped_auprc, grouped_xauc and grouped_regression_auc took it as the
    # group "inf" in one call, while their accumulator
    # refused the batch that held it for ids of another type than the batches before
    func, options, metric = GROUPED[name]
    y = np.array([1, 0, 0, 1, 1, 0, 1, 0])
    s = np.array([0.9, 0.1, 0.4, 0.2, 0.7, 0.3, 0.6, 0.5])
    g = np.array([1.0, 1.0, 2.0, 2.0, bad, bad, 3.0, 3.0])
    said = "{}: groups contains infinity; ids must be integers or strings."
    with pytest.raises(InputValidationError) as caught:
        getattr(receval, func)(y, s, groups=g)
    assert str(caught.value) == said.format(func)
    acc = receval.metric(metric, **options).update(y[:4], s[:4], groups=g[:4])
    with pytest.raises(InputValidationError) as caught:
        acc.update(y[4:], s[4:], groups=g[4:])
    assert str(caught.value) == said.format(_updating(metric))


@pytest.mark.parametrize("name", ["gauc", "gauc(whole_groups)", "grouped_auprc"])
def test_ids_held_as_text_keep_their_type_through_a_pickle(name: str) -> None:
    # before: gauc took floats 1.5 as integers in an update but, reloaded, as the
    # strings it holds them as, and refused the next batch of floats
    func, options, metric = GROUPED[name]
    y, s = np.array([1, 0, 0, 1]), np.array([0.9, 0.1, 0.4, 0.2])
    acc = receval.metric(metric, **options).update(y[:2], s[:2], groups=np.array([1.5, 1.5]))
    loaded = pickle.loads(pickle.dumps(acc))
    got = loaded.update(y[2:], s[2:], groups=np.array([2.5, 2.5])).compute()
    ids = np.array([1.5, 1.5, 2.5, 2.5])
    assert _value(got) == _value(getattr(receval, func)(y, s, groups=ids))


# ------------------------------------------------------------------ labels of groups
#: the accumulators of binary labels by group: their function and options
GROUPED_BINARY = {
    "gauc": (receval.gauc_score, {}),
    "gauc(whole_groups)": (receval.gauc_score, {"whole_groups": True}),
    "grouped_auprc": (receval.grouped_auprc_score, {}),
}


def _grouped(name: str, **options: Any) -> Any:
    metric = name.partition("(")[0]
    return receval.metric(metric, **GROUPED_BINARY[name][1], **options)


@given(
    st.data(),
    st.sampled_from(sorted(GROUPED_BINARY)),
    st.sampled_from(PAIRS),
    st.lists(st.integers(1, 29), max_size=4),
    st.booleans(),
    st.booleans(),
)
def test_grouped_metrics_take_any_two_labels_as_their_0_1_equivalent(
    data: Any, name: str, pair: tuple[Any, Any, Any], cuts: list[int], weighted: bool,
    as_array: bool,
) -> None:  # fmt: skip
    """GAUC and grouped AUPRC of any two labels (0/1, -1/1, bools; strings or others with
    pos_label), by the function and by two accumulators merged over any split (whole
    groups for gauc(whole_groups=True)): bit for bit the function's float on the rows as
    0/1 (before: "y_true must contain only 0 and 1" for every pair but 0/1 and bools,
    and no pos_label)."""
    negative, positive, pos_label = pair
    row = st.tuples(st.booleans(), st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]),
                    st.sampled_from([1, 2, 3]), st.sampled_from([0.5, 1.0, 3.0]))  # fmt: skip
    rows = data.draw(st.lists(row, min_size=1, max_size=30))
    if name == "gauc(whole_groups)":  # each group's rows in one update
        rows.sort(key=lambda r: r[2])
        cuts = [i for i in range(1, len(rows)) if rows[i][2] != rows[i - 1][2]]
    y = np.array([positive if hit else negative for hit, *_ in rows])
    y01 = np.array([int(hit) for hit, *_ in rows])
    s, g = np.array([r[1] for r in rows]), np.array([r[2] for r in rows])
    w = np.array([r[3] for r in rows]) if weighted else None
    conv = (lambda a: a) if as_array else (lambda a: a.tolist())
    edges = sorted({c for c in cuts if c < len(y)} | {0, len(y)})
    options = {} if pos_label is None else {"pos_label": pos_label}
    first, second = _grouped(name, **options), _grouped(name, **options)
    for i, (a, b) in enumerate(itertools.pairwise(edges)):
        part = {} if w is None else {"sample_weight": w[a:b]}
        (first if i % 2 else second).update(conv(y[a:b]), s[a:b], groups=g[a:b], **part)
    function = GROUPED_BINARY[name][0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        expected = _value(function(y01, s, groups=g, sample_weight=w))
        assert _value(function(conv(y), s, groups=g, sample_weight=w, **options)) == expected
        other_way = pickle.loads(pickle.dumps(second)).merge(first)
        assert _value(other_way.compute()) == expected
        assert _value(first.merge(second).compute()) == expected


@pytest.mark.parametrize("name", sorted(GROUPED_BINARY))
def test_grouped_metrics_refuse_what_the_binary_metrics_refuse(name: str) -> None:
    function = GROUPED_BINARY[name][0]
    func = function.__name__
    s, g = [0.1, 0.4, 0.35, 0.8], [1, 1, 2, 2]
    three = "{}: y_true must be binary. Got values [0, 1, 2]; pass pos_label to say which "
    words = "{}: y_true takes values ['n', 'y'] and pos_label is not specified; "
    for y, message in (([0, 1, 2, 1], three), (["n", "y", "n", "y"], words)):
        for run, caller in (
            (lambda y: function(y, s, groups=g), func),
            (lambda y: _grouped(name).update(y, s, groups=g), _updating(_grouped(name).name)),
        ):
            with pytest.raises(InputValidationError) as caught:
                run(y)
            assert str(caught.value).startswith(message.format(caller))
            if message is words:  # the function's fix; an update's says why a batch cannot
                said = str(caught.value)[len(words.format(caller)) :]
                assert said.startswith("pass pos_label, e.g. pos_label='y'." if caller == func
                                       else "a batch cannot tell which label")  # fmt: skip
    with pytest.raises(InvalidParameterError, match=r"'pos_label' parameter of .* \['n', 'y'\]"):
        function(["n", "y", "n", "y"], s, groups=g, pos_label="yes")


@pytest.mark.parametrize("name", sorted(GROUPED_BINARY))
def test_grouped_metrics_hold_one_pair_of_labels_in_every_update_and_merge(name: str) -> None:
    metric = name.partition("(")[0]
    minus = _grouped(name).update([-1, 1], [0.2, 0.6], groups=[1, 1])
    zero = _grouped(name).update(np.array([0, 1]), np.array([0.1, 0.7]), groups=np.array([2, 2]))
    for held in (minus, pickle.loads(pickle.dumps(minus))):
        with pytest.raises(InputValidationError) as caught:
            held.update(np.array([0, 1]), np.array([0.1, 0.7]), groups=np.array([2, 2]))
        assert str(caught.value) == LABELS.format(
            func=_updating(metric), positive=1, given=0, where="in this update", held=-1
        )
        with pytest.raises(InputValidationError) as caught:
            held.merge(zero)
        assert str(caught.value) == LABELS.format(
            func=_merging(metric), positive=1, given=0, where="in the accumulator merged",
            held=-1,
        )  # fmt: skip
    words = _grouped(name, pos_label="y").update(["n", "y"], [0.2, 0.6], groups=[1, 1])
    with pytest.raises(InputValidationError, match="Got 'maybe' in this update, 'n' before"):
        words.update(["maybe", "y"], [0.1, 0.7], groups=[2, 2])
    torch = pytest.importorskip("torch")
    buffer = io.BytesIO()
    torch.save(words.state_dict(), buffer)
    buffer.seek(0)
    resumed = _grouped(name, pos_label="y").load_state_dict(torch.load(buffer, weights_only=True))
    with pytest.raises(InputValidationError, match="Got 'maybe' in this update, 'n' before"):
        resumed.update(["maybe", "y"], [0.1, 0.7], groups=[2, 2])
    resumed.update(["y", "n"], [0.1, 0.7], groups=[2, 2])
    assert resumed.compute() == GROUPED_BINARY[name][0](
        [0, 1, 1, 0], [0.2, 0.6, 0.1, 0.7], groups=[1, 1, 2, 2]
    )
