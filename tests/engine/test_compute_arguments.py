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
