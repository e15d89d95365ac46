"""distinct_ints and isin_ints: np.unique and np.isin of integer keys, by a sort."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from receval.data._lookup import distinct_ints, isin_ints

KEYS = st.lists(st.integers(-(2**62), 2**62) | st.integers(-3, 3), max_size=60)


@given(KEYS)
def test_distinct_ints_is_np_unique(keys):
    x = np.array(keys, dtype=np.int64)
    np.testing.assert_array_equal(distinct_ints(x), np.unique(x))


@given(KEYS, KEYS)
def test_isin_ints_is_np_isin(values, test):
    a, b = np.array(values, dtype=np.int64), np.array(test, dtype=np.int64)
    np.testing.assert_array_equal(isin_ints(a, b), np.isin(a, b))
