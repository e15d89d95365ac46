"""``receval.compute`` checks its data arguments as ``Accumulator.update`` does."""

from __future__ import annotations

import numpy as np
import pytest

import receval as rv
from receval.exceptions import InvalidParameterError


def test_compute_roc_auc_without_sample_weight():
    # the one-call hook read columns["sample_weight"], which compute does not pass
    assert rv.compute("roc_auc", [0, 1, 1], [0.2, 0.3, 0.9]) == 1.0
    assert rv.compute("roc_auc", np.array([0, 1, 1]), np.array([0.2, 0.3, 0.9])) == 1.0


@pytest.mark.parametrize(
    ("name", "data", "missing"),
    [
        ("log_loss", ([0, 1],), "y_pred"),
        ("pcoc", (), "y_true"),
        ("roc_auc", ([0, 1],), "y_score"),
        ("gauc", ([0, 1], [0.1, 0.2]), "groups"),
    ],
)
def test_compute_missing_argument(name, data, missing):
    with pytest.raises(InvalidParameterError, match=rf"compute\('{name}'\) takes \(.*{missing}"):
        rv.compute(name, *data)


def test_compute_too_many_arguments():
    with pytest.raises(InvalidParameterError, match="too many positional arguments"):
        rv.compute("log_loss", [0, 1], [0.1, 0.9], None, [1, 1])


def test_update_missing_argument_of_totals_metric():
    # a prepare that takes *args: Python's TypeError came through
    with pytest.raises(InvalidParameterError, match="missing a required argument: 'y_true'"):
        rv.metric("pcoc").update()


ACCUMULATOR_OPTIONS = [
    {"window": 3}, {"window_unit": "rows"}, {"decay": 0.5}, {"background": True},
    {"whole_groups": True},
]  # fmt: skip


@pytest.mark.parametrize("option", ACCUMULATOR_OPTIONS)
def test_compute_refuses_the_options_of_an_accumulator(option):
    # window=3 was taken and dropped: the value of every row, not of a window
    (key,) = option
    with pytest.raises(InvalidParameterError) as info:
        rv.compute("roc_auc", [1, 0], [0.5, 0.2], **option)
    assert str(info.value) == (
        f"receval.compute('roc_auc') takes no option {key!r}: it computes the metric on the "
        f"rows given, at once; pass {key}= to receval.metric('roc_auc', ...) to accumulate "
        f"batches with it."
    )


@pytest.mark.parametrize("make", ["metric", "compute"])
def test_a_ranking_accumulator_names_itself_in_its_option_errors(make):
    # they named evaluate, which the user did not call
    args = ({"u": {"a": 1}}, {"u": {"a": 0.9}}) if make == "compute" else ()
    with pytest.raises(InvalidParameterError) as info:
        getattr(rv, make)("ndcg@10", *args, ties="random")
    assert str(info.value) == (
        f"The 'ties' parameter of receval.{make}('ndcg@10') must be one of ['average', "
        "'id_ascending', 'id_descending', 'input', 'trec', 'worst']. Got 'random' instead."
    )
