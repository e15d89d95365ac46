"""String ids read by a scan (Arrow strings) beside integer ids (qrels in memory):
looked up as integers where every string is an integer's canonical spelling, else
by the core over Arrow strings of the integers' digits, and the distinct
ids of several batches of Arrow strings found by the core; the same results as the
general path (Python objects), which compares an int with a string by its decimal
spelling (``7`` is ``"7"``; ``"007"``, ``"+7"`` and ``"-0"`` are other ids)."""

import numpy as np
import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

from receval.data._lookup import lookup, lookup_ids
from receval.data._strings import ids_to_numpy
from receval.ranking.aggregate import Ids

SPELLINGS = st.sampled_from(["007", "+7", "-0", "7.0", " 7", "x", "", "-7", "0", "7"])
NUMBERS = st.integers(-(2**63), 2**63 - 1).map(str) | st.integers(-20, 20).map(str)
# every id an integer's canonical spelling (looked up as integers) or some not (as text)
TEXT = st.lists(NUMBERS | SPELLINGS, max_size=40, unique=True) | st.lists(
    NUMBERS, max_size=40, unique=True
)
INTS = st.lists(st.integers(-20, 20) | st.integers(-(2**63), 2**63 - 1), max_size=40, unique=True)
UINTS = st.lists(st.integers(0, 20) | st.integers(0, 2**64 - 1), max_size=40, unique=True)


@given(TEXT, INTS, st.sampled_from([pa.string(), pa.large_string(), pa.string_view()]),
       st.booleans())  # fmt: skip
def test_arrow_strings_beside_integers_are_looked_up_as_objects_are(texts, ints, kind, flip):
    strings = pa.array(texts, kind)
    numbers = np.array(ints, dtype=np.int64)
    values, dictionary = (numbers, strings) if flip else (strings, numbers)
    expected = lookup(ids_to_numpy(values), ids_to_numpy(dictionary))
    np.testing.assert_array_equal(lookup_ids(values, dictionary), expected)


@given(TEXT, UINTS, st.sampled_from([pa.string(), pa.large_string()]), st.booleans())
def test_arrow_strings_beside_unsigned_integers_are_looked_up_as_objects_are(
    texts, ints, kind, flip
):
    strings = pa.array(texts, kind)
    numbers = np.array(ints, dtype=np.uint64)
    values, dictionary = (numbers, strings) if flip else (strings, numbers)
    expected = lookup(ids_to_numpy(values), ids_to_numpy(dictionary))
    np.testing.assert_array_equal(lookup_ids(values, dictionary), expected)


def test_unsigned_integers_beside_arrow_strings_match_by_their_digits():
    numbers = np.array([2**64 - 1, 7, 0], dtype=np.uint64)
    strings = pa.array(["7", str(2**64 - 1), "007"])
    assert lookup_ids(numbers, strings).tolist() == [1, 0, -1]
    assert lookup_ids(strings, numbers).tolist() == [1, 0, -1]


@given(st.lists(st.lists(st.text(max_size=3), max_size=20), min_size=2, max_size=5),
       st.sampled_from([pa.string(), pa.large_string(), pa.string_view()]))  # fmt: skip
def test_the_distinct_ids_of_batches_of_arrow_strings_are_every_id_once(batches, kind):
    parts = [
        pa.array(sorted(set(b)), kind if i % 2 else pa.string()) for i, b in enumerate(batches)
    ]
    got = Ids(parts).distinct()
    expected = list(dict.fromkeys(x for b in parts for x in b.to_pylist()))
    assert got.to_pylist() == expected


def test_no_parts_have_no_distinct_ids():
    assert len(Ids([]).distinct()) == 0
