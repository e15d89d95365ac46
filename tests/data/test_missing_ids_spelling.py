"""A missing id is named as its input spells it: Arrow's null, Python's None or NaN."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import receval
from receval.exceptions import InputValidationError


@pytest.mark.parametrize(
    ("users", "spelled"),
    [
        (pa.array(["a", None]), "null"),
        (pa.array(["a", None]).dictionary_encode(), "null"),
        (pa.chunked_array([["a"], [None]]), "null"),
        (np.array(["a", None], dtype=object), "None or NaN"),
        (["a", None], "None or NaN"),
        (np.array([1.0, np.nan]), "None or NaN"),
    ],
)
def test_missing_ids_are_named_as_the_input_spells_them(users, spelled):
    with pytest.raises(InputValidationError, match=rf"1 missing value \({spelled}\)"):
        receval.Qrels(users, ["x", "y"], [1, 1])
