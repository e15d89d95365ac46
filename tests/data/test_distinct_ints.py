"""distinct_ints and isin_ints: np.unique (by a sort) and np.isin (by a direct-address or
hash table) of integer keys."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from receval.data._lookup import distinct_ints, isin_ints

EDGES = st.sampled_from([-(2**63), 2**63 - 1, -1, 0])
KEYS = st.lists(st.integers(-(2**62), 2**62) | st.integers(-3, 3) | EDGES, max_size=60)


@given(KEYS)
def test_distinct_ints_is_np_unique(keys):
    x = np.array(keys, dtype=np.int64)
    np.testing.assert_array_equal(distinct_ints(x), np.unique(x))


@given(KEYS, KEYS)
def test_isin_ints_is_np_isin(values, test):
    a, b = np.array(values, dtype=np.int64), np.array(test, dtype=np.int64)
    np.testing.assert_array_equal(isin_ints(a, b), np.isin(a, b))


@given(KEYS, KEYS)
def test_isin_ints_keeps_the_shape_of_the_values(values, test):
    a = np.array(values + values, dtype=np.int64).reshape(2, -1)
    b = np.array(test, dtype=np.int64)
    np.testing.assert_array_equal(isin_ints(a, b), np.isin(a, b))
