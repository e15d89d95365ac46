"""Every accumulator that takes ``sample_weight`` takes it in every update or in none.

One call of a metric's function has weights for all its rows or for none. The sum
accumulators (log loss, NE, PCOC, Brier, ECE, the regression metrics, XAUC, GAUC,
...) took a batch without weights after weighted ones as rows of weight 1 (and the
reverse), a silent value no call gives; the AUC family refused it at the update but
refused a merge of the two only at ``compute()``. The accumulator now holds whether
its rows had weights (:class:`~receval.engine.kinds.WeightKind`), refuses an update
or a merge that differs, naming ``sample_weight``, and leaves its state as it was.
The cases run over every metric of the registry whose data arguments hold
``sample_weight``, so that a new metric is covered.
"""

from __future__ import annotations

import io
import math
import pickle
import warnings
from typing import Any

import numpy as np
import pytest

import receval as rv
from receval import InvalidParameterError
from receval.registry import ENTRIES, load

#: every metric whose accumulator takes sample_weight
WEIGHTED = sorted(name for name, row in ENTRIES.items() if "sample_weight" in row.inputs)
#: the options of a metric without a default
OPTIONS = {"partial_auc": {"max_fpr": 0.5}}
#: variants of an accumulator with a state of its own
VARIANTS = {"roc_auc(bins=4)": ("roc_auc", {"bins": 4}),
            "roc_auc(decay=0.5)": ("roc_auc", {"decay": 0.5})}  # fmt: skip
CASES = WEIGHTED + sorted(VARIANTS)
#: the cases without decay (a decayed accumulator merges only in step, and takes no window)
IN_ANY_STEP = [c for c in CASES if "decay" not in c]

Y = np.array([1, 0, 1, 0])
P = np.array([0.9, 0.2, 0.6, 0.4])
W = np.array([1.0, 2.0, 1.0, 3.0])
GROUPS = np.array([1, 1, 2, 2])

REFUSED = (
    "Accumulator.{func} of {name!r}: sample_weight must be given to every update and merged "
    "accumulator or to none. Got {given} {where}, {held} before; pass "
    "sample_weight=np.ones(len(y_true)) with the batches without weights, or reset() to start "
    "over."
)


def _name(case: str) -> str:
    return VARIANTS[case][0] if case in VARIANTS else case


def _metric(case: str, **kwargs: Any) -> Any:
    name, options = VARIANTS.get(case, (case, {}))
    return rv.metric(name, **options, **OPTIONS.get(name, {}), **kwargs)


def _groups(case: str, groups: np.ndarray) -> dict[str, Any]:
    return {"groups": groups} if "groups" in ENTRIES[_name(case)].inputs else {}


def _update(acc: Any, case: str, weighted: bool, rows: slice = slice(None)) -> Any:
    """``acc`` updated with the rows of ``Y`` and ``P`` (and their weights)."""
    weights = {"sample_weight": W[rows]} if weighted else {}
    return acc.update(Y[rows], P[rows], **_groups(case, GROUPS[rows]), **weights)


def _value(acc: Any) -> Any:
    """``compute()``'s value, comparable with ``==`` (nan as a string)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = acc.compute()
    return "nan" if isinstance(value, float) and math.isnan(value) else value


def _function(case: str, *data: Any, **kwargs: Any) -> Any:
    name = _name(case)
    value = load(ENTRIES[name].function_path)(*data, **kwargs, **OPTIONS.get(name, {}))
    return "nan" if isinstance(value, float) and math.isnan(value) else value


def _said(weighted: bool) -> str:
    return "sample_weight" if weighted else "no sample_weight"


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("weights_first", [True, False])
def test_an_update_that_differs_is_refused_and_leaves_the_state(
    case: str, weights_first: bool
) -> None:
    # before: log loss, NE, PCOC, Brier, ECE, the regression metrics, XAUC, GAUC,
    # grouped AUPRC and the binned or decayed AUC took the rows as weights of 1
    acc = _update(_metric(case), case, weights_first)
    before = _value(acc)
    with pytest.raises(InvalidParameterError) as caught:
        _update(acc, case, not weights_first, slice(0, 2))
    assert str(caught.value) == REFUSED.format(
        func="update", name=_name(case), given=_said(not weights_first), where="in this update",
        held=_said(weights_first),
    )  # fmt: skip
    assert _value(acc) == before and acc.n_updates == 1  # left as it was
    _update(acc, case, weights_first, slice(0, 2))  # the same kind still taken
    if case not in VARIANTS:
        rows = np.r_[0:4, 0:2]
        weights = {"sample_weight": W[rows]} if weights_first else {}
        expected = _function(case, Y[rows], P[rows], **_groups(case, GROUPS[rows]), **weights)
        assert _value(acc) == expected


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("weights_first", [True, False])
def test_an_empty_update_decides_nothing(case: str, weights_first: bool) -> None:
    acc = _update(_metric(case), case, weights_first, slice(0, 0))  # no row: tells nothing
    _update(acc, case, not weights_first)
    _update(acc, case, weights_first, slice(0, 0))  # nor after rows
    with pytest.raises(InvalidParameterError, match=f"Got {_said(weights_first)} in this"):
        _update(acc, case, weights_first)
    assert acc.n_updates == 3


@pytest.mark.parametrize("case", CASES)
def test_a_merge_that_differs_is_refused_at_the_merge(case: str) -> None:
    # before: taken (the sums) or refused at every later compute() (AUC)
    for weights_first in (True, False):
        held = _update(_metric(case), case, weights_first)
        other = _update(_metric(case), case, not weights_first)
        before, other_before = _value(held), _value(other)
        with pytest.raises(InvalidParameterError) as caught:
            held.merge(other)
        assert str(caught.value) == REFUSED.format(
            func="merge", name=_name(case), given=_said(not weights_first),
            where="in the accumulator merged", held=_said(weights_first),
        )  # fmt: skip
        assert (_value(held), held.n_updates) == (before, 1)
        assert (_value(other), other.n_updates) == (other_before, 1)


@pytest.mark.parametrize("case", IN_ANY_STEP)
def test_an_accumulator_without_rows_takes_the_merged_ones_weights(case: str) -> None:
    fresh = _metric(case).merge(_update(_metric(case), case, True))
    with pytest.raises(InvalidParameterError, match="Got no sample_weight in this update"):
        _update(fresh, case, False)
    weighted = _update(_metric(case), case, True).merge(_metric(case))
    with pytest.raises(InvalidParameterError, match="Got no sample_weight in this update"):
        _update(weighted, case, False)


@pytest.mark.parametrize("case", CASES)
def test_a_pickle_and_a_state_dict_keep_whether_the_rows_had_weights(case: str) -> None:
    acc = _update(_metric(case), case, True)
    loaded = pickle.loads(pickle.dumps(acc))
    with pytest.raises(InvalidParameterError, match="Got no sample_weight in this update"):
        _update(loaded, case, False)
    import torch

    buffer = io.BytesIO()
    torch.save(_update(_metric(case), case, False).state_dict(), buffer)
    buffer.seek(0)
    resumed = _metric(case).load_state_dict(torch.load(buffer, weights_only=True))
    with pytest.raises(InvalidParameterError, match="Got sample_weight in this update"):
        _update(resumed, case, True)


@pytest.mark.parametrize("case", CASES)
def test_reset_forgets_whether_the_rows_had_weights(case: str) -> None:
    acc = _update(_metric(case), case, True).reset()
    _update(acc, case, False)
    if case not in VARIANTS:
        assert _value(acc) == _function(case, Y, P, **_groups(case, GROUPS))
    with pytest.raises(InvalidParameterError, match="Got sample_weight in this update"):
        _update(acc, case, True)  # what the rows since the reset had


@pytest.mark.parametrize("case", IN_ANY_STEP)
def test_an_accumulator_with_a_window_refuses_an_update_that_differs(case: str) -> None:
    acc = _update(_metric(case, window=2), case, False)
    with pytest.raises(InvalidParameterError, match="Got sample_weight in this update"):
        _update(acc, case, True)
    _update(acc, case, False, slice(0, 2))
    if case not in VARIANTS:
        rows = np.r_[0:4, 0:2]
        expected = _function(case, Y[rows], P[rows], **_groups(case, GROUPS[rows]))
        assert _value(acc) == expected
        assert acc.compute_window() == acc.compute()


def test_weights_given_by_position_count_as_given() -> None:
    acc = rv.metric("log_loss").update(Y, P, W)
    with pytest.raises(InvalidParameterError, match="Got no sample_weight in this update"):
        acc.update(Y, P)
    assert acc.update(Y, P, sample_weight=W).compute() == rv.log_loss(
        np.r_[Y, Y], np.r_[P, P], sample_weight=np.r_[W, W]
    )
