"""A missing id is named the same whatever spells it: Arrow's and polars' null, Python's
None, NaN, pandas' NA."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import receval
from receval.exceptions import InputValidationError


@pytest.mark.parametrize(
    "users",
    [
        pa.array(["a", None]),
        pa.array(["a", None]).dictionary_encode(),
        pa.chunked_array([["a"], [None]]),
        np.array(["a", None], dtype=object),
        ["a", None],
        np.array([1.0, np.nan]),
        pd.array(["a", pd.NA], dtype="string"),
    ],
    ids=["arrow", "dictionary", "chunked", "object", "list", "float", "pandas NA"],
)
def test_missing_ids_are_named_whatever_spells_them(users):
    with pytest.raises(InputValidationError, match=r"1 missing value \(None, NaN or null\)"):
        receval.Qrels(users, ["x", "y"], [1, 1])
