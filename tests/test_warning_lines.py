"""Every warning names the caller's line, whatever path inside receval led to it."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import receval as rv
from receval.exceptions import RecevalWarning, UndefinedMetricWarning, UnmatchedIdsWarning


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    assert caught, "no warning"
    return caught


def _weights_rounded():
    rv.average_precision_score(
        [0, 1, 1, 0], [0.9, 0.8, 0.7, 0.1], sample_weight=[1, 1, 1, 2.0**126]
    )


def _accumulator_rounded():
    acc = rv.metric("auc").update(
        [0, 1, 1, 0], [0.9, 0.8, 0.7, 0.1], sample_weight=[1, 1, 1, 2.0**126]
    )
    acc.compute()


def _gauc_rounded():
    rv.gauc_score([0, 1, 1, 0], [0.9, 0.8, 0.7, 0.1], groups=[1, 1, 1, 1],
                  sample_weight=[1, 1, 1, 2.0**126])  # fmt: skip


def _unmatched():
    qrels = {u: {"a": 1} for u in "uvwxyz"}
    rv.evaluate(qrels, {"u": {"a": 0.5}}, ["mrr"], min_match=0.5)


def _accumulator_empty():
    rv.metric("ndcg@10").compute()


def _precision_undefined():
    rv.precision_score([0, 0], [0, 0])


def _ties_of_a_profile():
    qrels = {"u": {"a": 1, "b": 1}}
    rv.evaluate(qrels, {"u": {"a": 0.5, "b": 0.5, "c": 0.5}}, ["ndcg@10"], profile="recbole")


@pytest.mark.parametrize(
    ("call", "category"),
    [
        (_weights_rounded, RecevalWarning),
        (_accumulator_rounded, RecevalWarning),
        (_gauc_rounded, RecevalWarning),
        (_unmatched, UnmatchedIdsWarning),
        (_accumulator_empty, UndefinedMetricWarning),
        (_precision_undefined, UndefinedMetricWarning),
        (_ties_of_a_profile, RecevalWarning),
    ],
)
def test_a_warning_names_the_callers_line(call, category):
    caught = _caught(call)
    assert any(issubclass(w.category, category) for w in caught)
    # before, a hand-counted stack level named receval's own frames on some paths
    # (engine/sources.py, engine/run.py) and the caller's on others
    assert {w.filename for w in caught} == {__file__}, [(w.filename, w.lineno) for w in caught]
    lines = {w.lineno for w in caught}
    first = call.__code__.co_firstlineno
    assert all(first < line <= first + 4 for line in lines), (lines, first)


def test_a_filter_on_the_callers_module_applies():
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.filterwarnings("error", category=RecevalWarning, module=__name__)
        with pytest.raises(RecevalWarning):
            _accumulator_rounded()


def test_deprecated_names_point_at_their_use():
    caught = _caught(lambda: rv.registry.pointwise_metric("auc"))
    assert [w.category for w in caught] == [DeprecationWarning]
    assert caught[0].filename == __file__
    assert np.isfinite(1.0)


def test_every_warning_goes_through_warn():
    # a hand-counted stack level names the caller's line on one path only
    import pathlib

    package = pathlib.Path(rv.__file__).parent
    direct = [
        f"{path.relative_to(package)}:{n}"
        for path in package.rglob("*.py")
        if path.name != "exceptions.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if "warnings.warn(" in line or "stacklevel" in line
    ]
    assert direct == []
