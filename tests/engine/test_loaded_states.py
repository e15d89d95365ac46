"""Accumulators loaded from pickles are checked: a tampered state is an error naming the
field, never a silent value or a raw traceback."""

from __future__ import annotations

import pickle
import warnings
from typing import Any

import numpy as np
import pytest

import receval
from receval.engine.kinds import NO_LABELS
from receval.engine.rounding import RoundedWeights
from receval.engine.run import Accumulator
from receval.engine.states import ScoreCounts
from receval.engine.sums import ExactSum
from receval.exceptions import InputValidationError

Y, S = [0, 1, 1, 0, 1], [0.1, 0.9, 0.4, 0.3, 0.4]
QRELS = {"u1": {"a": 1, "b": 1}, "u2": {"c": 1}}
RUN = {"u1": {"a": 0.9, "c": 0.5, "b": 0.1}, "u2": {"c": 0.7, "a": 0.2}}

FILLED = {
    "roc_auc": lambda a: a.update(Y, S),
    "gauc": lambda a: a.update(Y, S, groups=[1, 1, 2, 2, 2]),
    "log_loss": lambda a: a.update(Y, S),
    "pcoc": lambda a: a.update(Y, S),
    "rmse": lambda a: a.update([1.0, 2.0], [1.5, 2.5]),
    "brier": lambda a: a.update(Y, S),
    "ece": lambda a: a.update(Y, S),
    "ndcg@10": lambda a: a.update(QRELS, RUN),
    "pooled_hit_ratio@2": lambda a: a.update(QRELS, RUN),
}


def _set(obj: Any, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)  # frozen dataclasses too


def _loaded(acc: Accumulator, change: Any = None) -> Accumulator:
    """``acc`` through a pickle, its pickled ``__dict__`` changed by ``change`` first."""
    state = acc.__getstate__()
    state["_state"] = pickle.loads(pickle.dumps(state["_state"]))  # a copy to tamper with
    if change is not None:
        change(state)
    back = Accumulator.__new__(Accumulator)
    back.__setstate__(pickle.loads(pickle.dumps(state)))
    return back


@pytest.mark.parametrize("name", sorted(FILLED))
def test_round_trip_is_unchanged(name: str) -> None:
    acc = receval.metric(name)
    FILLED[name](acc)
    assert pickle.loads(pickle.dumps(acc)).compute() == acc.compute()
    windowed = receval.metric(name, window=2)
    FILLED[name](windowed)
    assert pickle.loads(pickle.dumps(windowed)).compute_window() == windowed.compute_window()


def _auc() -> Accumulator:
    acc = receval.metric("roc_auc")
    acc.update(Y, S)
    return acc


def _with_counts(change) -> bytes:
    """The pickle of an AUC accumulator whose state's pickled counts ``change`` edits."""
    acc = _auc()
    original = ScoreCounts.__getstate__

    def edited(self: ScoreCounts) -> dict:
        state = original(self)
        if self is acc.state.plain:
            change(state)
        return state

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ScoreCounts, "__getstate__", edited)
        return pickle.dumps(acc)


def test_unsorted_scores_are_refused() -> None:
    # before: the AUC of the reversed scores, silently
    data = _with_counts(lambda s: s.update(scores=s["scores"][::-1].copy()))
    with pytest.raises(InputValidationError, match=r"ScoreCounts\.scores must be sorted"):
        pickle.loads(data)


def test_negative_counts_are_refused() -> None:
    data = _with_counts(lambda s: s.update(pos=-s["pos"]))
    with pytest.raises(InputValidationError, match=r"pos and \.neg must be >= 0"):
        pickle.loads(data)


def test_score_counts_of_other_lengths_are_refused() -> None:
    data = _with_counts(lambda s: s.update(pos=s["pos"][:-1].copy()))
    with pytest.raises(InputValidationError, match=r"of the length of \.scores"):
        pickle.loads(data)


def test_weighted_counts_must_be_wide_integers() -> None:
    counts = ScoreCounts(True)
    counts.add(np.array([0, 1], np.int8), np.array([0.1, 0.2]), np.array([0.5, 2.0]))
    state = counts.__getstate__()
    assert pickle.loads(pickle.dumps(counts)).auc() == counts.auc() == 1.0
    loaded = ScoreCounts.__new__(ScoreCounts)
    with pytest.raises(InputValidationError, match=r"ScoreCounts\.pos must be an \(n, 2\) uint64"):
        loaded.__setstate__(state | {"pos": state["pos"][:, 0].astype(np.int64)})


@pytest.mark.parametrize(
    ("name", "change", "message"),
    [
        # before: a raw ValueError from the exact sums' kernel
        ("log_loss", lambda s: _set(s["_state"].loss, "digits", np.zeros(3, np.int64)),
         r"state\.loss\.digits must be an array of shape"),
        ("log_loss", lambda s: object.__setattr__(s["_state"], "n_rows", -4),
         r"state\.n_rows must be a count >= 0. Got int -4"),
        ("log_loss", lambda s: object.__setattr__(s["_state"], "n_rows", "4"),
         r"state\.n_rows must be an integer"),
        ("roc_auc", lambda s: s.update(_state=None), r"state must be a AUCCounts. Got NoneType"),
        # a mean over users read as a sum: a silent wrong value before
        ("ndcg@10", lambda s: object.__setattr__(s["_state"].means["ndcg@10"].state, "kind", "sum"),
         r"state\.means\['ndcg@10'\]\.state\.kind must be 'users'. Got str 'sum'"),
        ("gauc", lambda s: s["_state"].seen.__setstate__({"ints": np.array([5, 1]), "ids": set()}),
         r"state\.seen\.ints must be sorted distinct int64 ids"),
        ("ece", lambda s: s["_state"].gaps.update({-1: s["_state"].weight}),
         r"state\.gaps must be exact sums keyed by bin numbers >= 0"),
        ("ece", lambda s: s["_state"].gaps.update({1: 0.5}),
         r"state\.gaps must be exact sums keyed by bin numbers >= 0"),
        ("ece", lambda s: _set(s["_state"].gaps[0], "digits", np.zeros(3, np.int64)),
         r"state\.gaps\[0\]\.digits must be an array of shape"),
        ("roc_auc", lambda s: s.update(n_updates=-1), "n_updates must be an integer >= 0"),
        ("roc_auc", lambda s: s.update(definition=("os", "system")),
         "the definition must name a receval metric"),
        ("roc_auc", lambda s: s.pop("window"), "expected the attributes"),
        ("roc_auc", lambda s: s.update(window=(2, "batches")), "the window must be"),
        # a field the pickle lacks: a raw AttributeError before
        ("ndcg@10", lambda s: s["_state"].__dict__.pop("run_items"),
         r"state\.run_items is missing \(a RankingState of another version"),
        ("log_loss", lambda s: s["_state"].__dict__.pop("loss"), r"state\.loss is missing"),
        # sums of rows that no rows make: silent values before (a negative log loss)
        ("log_loss", lambda s: _set(s["_state"], "weight", ExactSum.of([-5.0])),
         r"state\.weight must be a finite sum >= 0. Got ExactSum ExactSum\(-5\.0\)"),
        ("log_loss", lambda s: _set(s["_state"], "loss", ExactSum.of([float("inf")])),
         r"state\.loss must be a finite sum >= 0"),
        ("pcoc", lambda s: _set(s["_state"], "predicted", ExactSum.of([9.0])),
         r"state\.predicted must be a sum <= the weight's \(5\.0\)"),
        ("log_loss", lambda s: _set(s["_state"], "n_rows", 0),
         r"state\.n_rows must be a count > 0 where the sums are not 0"),
        ("log_loss", lambda s: _set(s["_state"], "n_rows", 10**6),
         r"state\.n_rows must be the weight of the rows \(5\.0\), as the updates gave no "
         r"sample_weight. Got 1000000"),
        ("gauc", lambda s: _set(s["_state"].totals, "weight", ExactSum.of([-1.0])),
         r"state\.totals\.weight must be a finite sum >= 0"),
        ("gauc", lambda s: _set(s["_state"].totals, "n_rows_skipped", 9),
         r"state\.totals\.n_rows_skipped must be a count <= n_rows \(5\)"),
    ],
)  # fmt: skip
def test_tampered_states_are_refused_naming_the_field(name: str, change: Any, message: str) -> None:
    # the states of whole groups (the sums and ids seen); those of split groups:
    # tests/engine/test_split_groups.py
    acc = receval.metric(name, whole_groups=True)
    FILLED[name](acc)
    with pytest.raises(InputValidationError, match=message) as info:
        _loaded(acc, change)
    assert "load only trusted data" in str(info.value)


def test_a_state_dict_of_negated_sums_is_refused() -> None:
    # before: log loss -0.547..., from the weight's and the loss's digits negated
    pytest.importorskip("torch")
    for weights in (None, [1.0, 2.0, 1.0, 1.0, 3.0]):
        saved = receval.metric("log_loss").update(Y, S, sample_weight=weights).state_dict()
        for name in ("weight", "loss"):
            digits = saved["state"]["state"][name]["state"]
            digits["digits"] = -digits["digits"]
        with pytest.raises(InputValidationError, match=r"state\.weight must be a finite sum >= 0"):
            receval.metric("log_loss").load_state_dict(saved)
    # a weighted state tells its rows apart from their weight: any count > 0 loads
    acc = receval.metric("log_loss").update(Y, S, sample_weight=[1.0, 2.0, 1.0, 1.0, 3.0])
    saved = acc.state_dict()
    saved["state"]["state"]["n_rows"] = 10**6
    assert receval.metric("log_loss").load_state_dict(saved).compute() == acc.compute()


def _negate(saved: dict[str, Any]) -> None:
    saved["digits"] = -saved["digits"]


def _negate_by_scale(saved: dict[str, Any]) -> None:
    for _, total in saved["items"]:
        _negate(total["state"])


OP = {"reward": [1, 0, 1, 0], "pscore": [0.5, 0.5, 0.25, 0.75], "action": [0, 1, 1, 0],
      "action_dist": [[0.9, 0.1], [0.9, 0.1], [0.2, 0.8], [0.5, 0.5]]}  # fmt: skip


@pytest.mark.parametrize(
    ("name", "fill", "change", "message"),
    [
        # before: -0.34 (ece), nan (rmse), -0.5 (mae), -1.526 (brier), 0.9598 (r2 for
        # 0.6786), -0.852 (snips), 1.25 with more rounds clipped than rounds (ips)
        ("ece", lambda a: a.update(Y, S), lambda s: _negate(s["weight"]["state"]),
         r"state\.weight must be a finite sum >= 0"),
        ("rmse", lambda a: a.update([1.0, 2.0], [1.5, 2.5]),
         lambda s: _negate_by_scale(s["squared"]), r"state\.squared\[0\] must be a finite sum"),
        ("mae", lambda a: a.update([1.0, 2.0], [1.5, 2.5]),
         lambda s: _negate_by_scale(s["absolute"]), r"state\.absolute\[0\] must be a finite sum"),
        ("rmse", lambda a: a.update([1.0, 2.0], [1.5, 2.5]),
         lambda s: _negate(s["weight"]["state"]), r"state\.weight must be a finite sum >= 0"),
        ("brier", lambda a: a.update(Y, S), lambda s: _negate(s["yy"]["state"]),
         r"state\.yy must be a finite sum >= 0"),
        ("brier", lambda a: a.update(Y, S), lambda s: _negate(s["pp"]["state"]),
         r"state\.pp must be a finite sum >= 0"),
        ("r2", lambda a: a.update([1.0, 2.0, 4.0], [1.5, 2.5, 3.0]),
         lambda s: _negate(s["weight"]["state"]), r"state\.weight must be a finite sum >= 0"),
        ("snips", lambda a: a.update(**OP), lambda s: _negate(s["weight"]["state"]),
         r"state\.weight must be a finite sum >= 0"),
        ("ips", lambda a: a.update(**OP), lambda s: s.update(n_clipped=9),
         r"state\.n_clipped must be a count <= n_rounds \(4\)"),
    ],
)  # fmt: skip
def test_a_state_dict_of_sums_that_cannot_be_negative_is_refused_negated(
    name: str, fill: Any, change: Any, message: str
) -> None:
    pytest.importorskip("torch")
    acc = receval.metric(name)
    fill(acc)
    saved = acc.state_dict()
    assert receval.metric(name).load_state_dict(saved).compute() == acc.compute()
    change(saved["state"]["state"])
    with pytest.raises(InputValidationError, match=message):
        receval.metric(name).load_state_dict(saved)


def test_an_infinite_gap_of_ece_is_refused() -> None:
    acc = receval.metric("ece")
    FILLED["ece"](acc)
    with pytest.raises(InputValidationError, match=r"state\.gaps must be finite exact sums"):
        _loaded(acc, lambda s: s["_state"].gaps.update({0: ExactSum.of([float("inf")])}))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda sums: sums.update({3: sums[0]}), "multiples of 256"),
        (lambda sums: sums.update({0: 1.5}), r"squared\[0\].*an exact sum"),
    ],
)
def test_rmse_sums_by_scale_are_checked(change: Any, message: str) -> None:
    acc = receval.metric("rmse").update([1.0, 2.0], [1.5, 2.5])

    def tamper(state: dict[str, Any]) -> None:
        change(state["_state"].squared)

    with pytest.raises(InputValidationError, match=message):
        _loaded(acc, tamper)


@pytest.mark.parametrize("name", ["roc_auc", "average_precision"])
@pytest.mark.parametrize("saved", ["pkl", "pt"])
def test_weighted_states_of_one_unit_for_both_labels_load(name: str, saved: str) -> None:
    # saved before each label's weights had a unit of their own (data/README.md): the
    # one unit holds each label's sums, and the state goes on as the function's
    import pathlib

    path = pathlib.Path(__file__).parent / "data" / f"{name}_weighted_one_unit.{saved}"
    if saved == "pkl":
        acc = pickle.loads(path.read_bytes())
    else:
        import torch

        acc = receval.metric(name).load_state_dict(torch.load(path, weights_only=True))
    y, s, w = [0, 1, 0, 1, 1, 0], [0.9, 0.8, 0.7, 0.1, 0.5, 0.5], [1.5, 2, 1, 1, 3, 2.0]
    acc.update(y[3:], s[3:], sample_weight=w[3:])
    assert acc.compute() == receval.metric(name).update(y, s, sample_weight=w).compute()


@pytest.mark.parametrize("name", ["log_loss", "normalized_entropy", "pcoc"])
@pytest.mark.parametrize("saved", ["pkl", "pt"])
def test_states_saved_when_their_metric_took_0_1_labels_only_load_holding_them(
    name: str, saved: str
) -> None:
    # saved when the metric took 0/1 labels only and had no pos_label (data/README.md;
    # the log loss's state held no labels, NE's and PCOC's held none known): it loads
    # with pos_label=None and the labels (0, 1), which its rows were; 0/1 rows and bools
    # go on as the function's, -1/1 rows are refused (before, for NE and PCOC: taken,
    # PCOC 1.0667 where pcoc of every row refuses the labels [-1, 0, 1])
    import pathlib

    path = pathlib.Path(__file__).parent / "data" / f"{name}_01_only.{saved}"
    if saved == "pkl":
        acc = pickle.loads(path.read_bytes())
    else:
        import torch

        acc = receval.metric(name).load_state_dict(torch.load(path, weights_only=True))
    assert acc.params == receval.metric(name).params
    assert acc.state.labels.value == (0, 1)
    with pytest.raises(InputValidationError, match="Got -1 in this update, 0 before"):
        acc.update([-1, 1], [0.3, 0.6])
    y, p, w = [0, 1, 0, 1, 1, 0], [0.2, 0.8, 0.4, 0.3, 0.6, 0.5], [1.5, 2, 1, 1, 1, 1]
    acc.update(y[3:5], p[3:5]).update(np.array([False]), np.array(p[5:]))
    function = getattr(receval, name)
    assert acc.compute() == function(y, p, sample_weight=w)
    assert acc.state.labels.value == (0, 1)


TOTALS = ["log_loss", "normalized_entropy", "calibration_free_normalized_entropy",
          "normalized_entropy_positive", "pcoc", "copc"]  # fmt: skip


def _saved_before_pos_label(acc: Accumulator, labels_field: bool) -> Accumulator:
    """``acc`` as the code before its metric took ``pos_label`` pickled it: options
    without ``pos_label``, and states that held no labels (``labels_field``: the field
    held None, as PCOC's and NE's did; else it did not exist, as the log loss's)."""

    def before(state: dict[str, Any]) -> None:
        del state["_params"]["pos_label"]
        held = [state["_state"]] + [b[1] for b in getattr(state["_window"], "batches", ())]
        for totals in held:
            if labels_field:
                object.__setattr__(totals, "labels", NO_LABELS)
            else:
                del totals.__dict__["labels"]

    return _loaded(acc, before)


@pytest.mark.parametrize("name", TOTALS)
@pytest.mark.parametrize("labels_field", [True, False])
def test_accumulators_saved_before_their_metric_took_pos_label_hold_0_1_once_updated(
    name: str, labels_field: bool
) -> None:
    # their rows were 0/1 (or bools), the only labels their metric took then; an
    # accumulator of no update tells nothing (before, for NE, its variants, PCOC and
    # COPC: -1/1 rows after 0/1 ones were taken, a value for labels the function refuses)
    y, p = [0, 1, 1, 0], [0.2, 0.7, 0.6, 0.3]
    acc = receval.metric(name, window=3).update(y[:2], p[:2])
    loaded = _saved_before_pos_label(acc, labels_field)
    assert loaded.params == receval.metric(name).params
    assert loaded.state.labels.value == (0, 1)
    assert all(b[1].labels.value == (0, 1) for b in loaded._window.batches)
    with pytest.raises(InputValidationError, match="Got -1 in this update, 0 before"):
        loaded.update([-1, 1], [0.3, 0.6])
    loaded.update(np.array([True, False]), np.array(p[2:]))
    function = getattr(receval, name)
    assert loaded.compute() == loaded.compute_window() == function(y, p)
    fresh = _saved_before_pos_label(receval.metric(name, window=3), labels_field)
    assert fresh.state.labels.value is None
    assert fresh.update([-1, 1], [0.3, 0.6]).state.labels.value == (-1, 1)


@pytest.mark.parametrize("name", TOTALS)
def test_state_dicts_saved_before_their_metric_took_pos_label_hold_0_1(name: str) -> None:
    pytest.importorskip("torch")
    acc = receval.metric(name).update([0, 1], [0.2, 0.7])
    saved = acc.state_dict()  # as the code before pos_label wrote it:
    del saved["options"]["pos_label"]
    saved["state"]["state"]["labels"]["state"]["value"] = None
    loaded = receval.metric(name).load_state_dict(saved)
    assert loaded.state.labels.value == (0, 1)
    with pytest.raises(InputValidationError, match="Got -1 in this update, 0 before"):
        loaded.update([-1, 1], [0.3, 0.6])
    assert loaded.update([1], [0.6]).compute() == getattr(receval, name)([0, 1, 1], [0.2, 0.7, 0.6])


@pytest.mark.parametrize("saved", ["pkl", "pt"])
@pytest.mark.parametrize("labels", [[-1, 1, 1], [True, False, True], [0, 1, 1]])
def test_auc_states_saved_before_they_held_labels_are_told_them_by_the_next_batch(
    saved: str, labels: list[Any]
) -> None:
    # saved by receval 0.1.0 (data/README.md), when roc_auc took {0, 1}, {-1, 1} and
    # pos_label pairs alike, which its counts do not tell apart: it loads holding no
    # labels, and the next batch's hold from then on
    import pathlib

    path = pathlib.Path(__file__).parent / "data" / f"roc_auc_weighted_one_unit.{saved}"
    if saved == "pkl":
        acc = pickle.loads(path.read_bytes())
    else:
        import torch

        acc = receval.metric("roc_auc").load_state_dict(torch.load(path, weights_only=True))
    assert acc.state.labels.value is None
    s, w = [0.1, 0.5, 0.5], [1, 3, 2.0]
    acc.update(labels, s, sample_weight=w)
    held = (-1, 1) if -1 in labels else (0, 1)
    assert acc.state.labels.value == held
    other = [-1, 1] if held == (0, 1) else [0, 1]
    with pytest.raises(InputValidationError, match=f"Got {other[0]} in this update"):
        acc.update(other, [0.2, 0.3], sample_weight=[1.0, 1.0])
    y01 = [0, 1, 0] + [int(x == 1) for x in labels]
    expected = receval.roc_auc_score(y01, [0.9, 0.8, 0.7, *s], sample_weight=[1.5, 2, 1, *w])
    assert acc.compute() == expected


@pytest.mark.parametrize(("name", "options"), [("gauc", {}), ("gauc", {"whole_groups": True}),
                                                ("grouped_auprc", {})])  # fmt: skip
def test_grouped_accumulators_saved_before_pos_label_hold_0_1_once_updated(
    name: str, options: dict[str, Any]
) -> None:
    # their rows were 0/1 (or bools), the only labels gauc and grouped_auprc took then,
    # and their states held no labels; one of no update tells nothing
    y, s, g = [0, 1, 1, 0], [0.2, 0.7, 0.6, 0.3], [1, 1, 2, 2]

    def before(state: dict[str, Any]) -> None:
        del state["_params"]["pos_label"]
        object.__setattr__(state["_state"], "labels", NO_LABELS)

    acc = receval.metric(name, **options).update(y[:2], s[:2], groups=g[:2])
    loaded = _loaded(acc, before)
    assert loaded.params == receval.metric(name, **options).params
    assert loaded.state.labels.value == (0, 1)
    with pytest.raises(InputValidationError, match="Got -1 in this update, 0 before"):
        loaded.update([-1, 1], [0.3, 0.6], groups=[2, 2])
    loaded.update(np.array([True, False]), np.array(s[2:]), groups=np.array(g[2:]))
    function = receval.gauc_score if name == "gauc" else receval.grouped_auprc_score
    assert loaded.compute() == function(y, s, groups=g)
    fresh = _loaded(receval.metric(name, **options), before)
    assert fresh.state.labels.value is None
    assert fresh.update([-1, 1], [0.3, 0.6], groups=[2, 2]).state.labels.value == (-1, 1)


# ------------------------------------------------------------------ rounded weights
#: positives 1 and 2**-123: more than the 126 bits the exact sums hold (rounded)
ROUNDED_Y, ROUNDED_S, ROUNDED_W = [1, 1, 0, 0], [0.9, 0.2, 0.5, 0.1], [1.0, 2.0**-123, 3.0, 1.0]


def _rounded_counts() -> ScoreCounts:
    counts = ScoreCounts(True)
    rows = (np.array(ROUNDED_Y, np.int8), np.array(ROUNDED_S), np.array(ROUNDED_W))
    counts.add(*rows)
    return counts


def test_weighted_counts_keep_their_rounding_and_older_pickles_load_exact() -> None:
    counts = _rounded_counts()
    state = counts.__getstate__()
    assert state["rounding"][1] == (0, 0)  # the negatives: lowest bit 2**0, none moved
    assert state["rounding"][0][1] > 0
    loaded = pickle.loads(pickle.dumps(counts))
    assert loaded.rounded == counts.rounded is not None
    assert loaded.__getstate__()["rounding"] == state["rounding"]
    # saved before the rounding was kept: as it then loaded, every bit kept
    older = ScoreCounts.__new__(ScoreCounts)
    older.__setstate__({k: x for k, x in state.items() if k != "rounding"})
    assert older.rounded is None and older.auc() == counts.auc()


@pytest.mark.parametrize(
    "rounding",
    [
        None,
        ((None, 1), (None, 0)),  # units moved without a lowest bit
        ((-123, -1), (None, 0)),
        ((2**31, 1), (None, 0)),
        ((-123, 2**128), (None, 0)),
        ((-123, 1.5), (None, 0)),
        ((True, 1), (None, 0)),
        ((-123, 1),),
    ],
)
def test_tampered_rounding_of_weighted_counts_is_refused(rounding: Any) -> None:
    state = _rounded_counts().__getstate__() | {"rounding": rounding}
    loaded = ScoreCounts.__new__(ScoreCounts)
    with pytest.raises(InputValidationError, match=r"ScoreCounts\.rounding must be a pair"):
        loaded.__setstate__(state)


def _gauc_rounded() -> Accumulator:
    acc = receval.metric("gauc", whole_groups=True)
    with pytest.warns(receval.RecevalWarning):  # the update says nothing; compute does
        acc.update(ROUNDED_Y, ROUNDED_S, groups=[1] * 4, sample_weight=ROUNDED_W).compute()
    return acc


@pytest.mark.parametrize(
    ("rounded", "message"),
    [
        ("1 group", "None or a RoundedWeights"),
        (RoundedWeights((124, 2.0), None, 1), "share: a float in"),
        (RoundedWeights((-1, 0.5), None, 1), "span: an int >= 0"),
        (RoundedWeights((124, 1e-27), None, -1), "groups an int >= 0"),
        (RoundedWeights([124, 1e-27], None, 1), "None or a RoundedWeights"),
    ],
)
def test_tampered_rounding_of_group_totals_is_refused(rounded: Any, message: str) -> None:
    def change(state: dict[str, Any]) -> None:
        _set(state["_state"].totals, "rounded", rounded)

    with pytest.raises(InputValidationError, match=r"state\.totals\.rounded must be") as info:
        _loaded(_gauc_rounded(), change)
    assert message in str(info.value)


def test_group_totals_saved_before_they_kept_their_rounding_load_and_merge() -> None:
    # a pickle of GroupTotals without the field: not rounded, and merged with a state
    # that was, that state's rounding
    old = _loaded(_gauc_rounded(), lambda s: s["_state"].totals.__dict__.pop("rounded"))
    assert old.state.totals.rounded is None
    with warnings.catch_warnings():
        warnings.simplefilter("error", receval.RecevalWarning)
        value = old.compute()
    with pytest.warns(receval.RecevalWarning):
        assert value == receval.gauc_score(
            ROUNDED_Y, ROUNDED_S, groups=[1] * 4, sample_weight=ROUNDED_W
        )
    other = receval.metric("gauc", whole_groups=True).update(
        ROUNDED_Y, ROUNDED_S, groups=[2] * 4, sample_weight=ROUNDED_W
    )
    merged = old.merge(other)
    assert merged.state.totals.rounded == RoundedWeights(
        other.state.totals.rounded.positives, None, 1
    )
