"""``copy.copy`` of an accumulator, and ``reset`` of one whose background batch failed."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest

import receval
from receval.exceptions import UndefinedMetricWarning

QRELS = {"u1": {"a": 1}, "u2": {"c": 1}}
FIRST: dict[str, Any] = {
    "roc_auc": (([1, 0], [0.3, 0.2]), {}),
    "gauc": (([1, 0, 1, 0], [0.3, 0.2, 0.4, 0.6]), {"groups": [1, 1, 2, 2]}),
    "log_loss": (([1, 0], [0.3, 0.2]), {}),
    "ndcg@10": ((QRELS, {"u1": {"a": 0.9, "b": 0.5}}), {}),
}
SECOND: dict[str, Any] = {
    "roc_auc": (([1, 0], [0.1, 0.9]), {}),
    "gauc": (([1, 0], [0.1, 0.9]), {"groups": [3, 3]}),
    "log_loss": (([1, 0], [0.1, 0.9]), {}),
    "ndcg@10": (({}, {"u2": {"a": 0.9, "c": 0.1}}), {}),
}
CASES = [(name, {}) for name in FIRST] + [
    ("roc_auc", {"background": True}),
    ("log_loss", {"window": 2}),
]


def _filled(name: str, options: dict[str, Any], *batches: dict[str, Any]) -> Any:
    acc = receval.metric(name, **options)
    for batch in batches:
        data, kwargs = batch[name]
        acc.update(*data, **kwargs)
    return acc


@pytest.mark.parametrize(("name", "options"), CASES)
def test_a_copy_is_updated_apart_from_its_original(name: str, options: dict[str, Any]) -> None:
    # before: an AUC's copy shared its state, so updating the copy changed the original
    acc = _filled(name, options, FIRST)
    value = acc.compute()
    twin = copy.copy(acc)
    data, kwargs = SECOND[name]
    twin.update(*data, **kwargs)
    assert (acc.n_updates, acc.compute()) == (1, value)
    both = _filled(name, options, FIRST, SECOND)
    assert (twin.n_updates, twin.compute()) == (2, both.compute())
    if "window" in options:
        assert acc.compute_window() == value
    acc.update(*data, **kwargs)  # and the other way round
    assert twin.compute() == acc.compute() == both.compute()


def test_reset_forgets_a_background_batch_that_failed() -> None:
    # before: reset raised the failed batch's error and forgot nothing
    acc = receval.metric("roc_auc", background=True)
    acc.update([1, 0], [0.2, float("nan")]).update([1, 0], [0.3, 0.1])
    assert acc.reset() is acc
    assert acc.n_updates == 0
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(acc.compute())
    acc.update([1, 0], [0.1, 0.3])  # numbered from 1 again, nothing left to raise
    assert (acc.wait().n_updates, acc.compute()) == (1, 0.0)
