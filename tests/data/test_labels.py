"""``label_kind`` of a list: the kind its rows' types share, read in one pass."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from receval.data._labels import label_kind

# one value of each Python and NumPy scalar type that labels come as
VALUES: list[Any] = [
    True, False, np.bool_(True), 0, 1, np.int64(1), 1.0, 0.5, np.float64(2.0),
    np.float32(1.5), "a", None,
]  # fmt: skip


def _row_by_row(labels: list[Any]) -> str | None:
    """The kind as each row's own type says it, row after row."""
    if all(isinstance(x, (bool, np.bool_)) for x in labels):
        return "b"
    if all(isinstance(x, (float, np.floating)) for x in labels):
        return "f"
    return None


@given(st.lists(st.sampled_from(VALUES), min_size=1, max_size=8), st.booleans())
def test_the_kind_of_a_mixed_list_is_that_of_its_rows(labels: list[Any], as_tuple: bool) -> None:
    given_labels = tuple(labels) if as_tuple else labels
    assert label_kind(given_labels) == _row_by_row(labels)


def test_an_empty_list_has_no_kind() -> None:
    assert label_kind([]) is None
