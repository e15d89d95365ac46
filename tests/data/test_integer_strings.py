"""String ids that are all integers in their canonical spelling (the ids of a CSV
file a scan reads as text, numeric ids exported as strings): read as int64 by the
core (:func:`integer_strings`), coded through their integers (the same codes and
distinct ids as hashing the strings) and looked up as integers beside integer ids."""

import itertools
import re

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

import receval._kernels as kernels
from receval.data._string_buffers import factorize_strings, integer_strings

PIECE = 1 << 16  # the rows of a piece the core reads on one thread (PARALLEL_ROWS)
NUMBERS = st.integers(-(2**63), 2**63 - 1).map(str) | st.integers(-20, 20).map(str)
SPELLINGS = st.sampled_from(
    ["007", "+7", "-0", "-07", "7.0", " 7", "x", "", "9223372036854775808", "\u0663"]
)
KINDS = st.sampled_from([pa.string(), pa.large_string()])


def canonical(text: str) -> bool:
    """Whether ``text`` is an int64's canonical decimal spelling (the oracle)."""
    return bool(re.fullmatch(r"0|-?[1-9][0-9]*", text)) and -(2**63) <= int(text) < 2**63


def chunked(texts: list[str], kind: pa.DataType, cuts: list[int]) -> pa.ChunkedArray:
    """``texts`` as a chunked array cut at ``cuts``; the first chunk a slice of a
    longer array (its offsets not starting at 0)."""
    bounds = [0, *sorted({c % (len(texts) + 1) for c in cuts}), len(texts)]
    chunks = [pa.array(texts[a:b], kind) for a, b in itertools.pairwise(bounds)]
    chunks[0] = pa.array(["pad", *texts[: bounds[1]]], kind).slice(1)
    return pa.chunked_array(chunks, kind)


@given(st.lists(NUMBERS | SPELLINGS, max_size=30) | st.lists(NUMBERS, max_size=30), KINDS,
       st.lists(st.integers(0, 30), max_size=3))  # fmt: skip
def test_integer_strings_are_the_ints_of_canonical_spellings_only(texts, kind, cuts):
    got = integer_strings(chunked(texts, kind, cuts))
    if all(canonical(t) for t in texts):
        assert got is not None
        assert got.dtype == np.int64
        assert got.tolist() == [int(t) for t in texts]
    else:
        assert got is None


@pytest.mark.parametrize("bad_at", [None, 0, PIECE - 1, PIECE, 3 * PIECE + 4])
def test_integer_strings_over_several_pieces_and_chunks(bad_at):
    ints = np.arange(-7, 3 * PIECE - 2)
    texts = [str(i) for i in ints]
    if bad_at is not None:
        texts[bad_at] = "0" + texts[bad_at].lstrip("-")  # a leading zero: not canonical
    column = pa.chunked_array(
        [pa.array(texts[:5], pa.large_string()), pa.array(texts[5:], pa.large_string())]
    )
    got = integer_strings(column)
    if bad_at is None:
        np.testing.assert_array_equal(got, ints)
    else:
        assert got is None


def test_integer_strings_refuse_nulls_views_and_bytes():
    assert integer_strings(pa.array(["7", None])) is None
    assert integer_strings(pa.array([b"7"], pa.binary())) is None
    assert integer_strings(pa.array(["7"], pa.string_view())) is None
    assert integer_strings(pa.array([], pa.string())).tolist() == []


@pytest.mark.parametrize("offsets", [np.int32, np.int64])
def test_a_column_is_told_apart_by_its_first_id_before_its_offsets_are_read(offsets):
    """A column whose first id (of the first chunk that has one) is not an integer is
    answered from that id alone: its other offsets are not read (the pass that checks
    them all costs more than the answer), so offsets past it that do not ascend are
    refused only where the first id is an integer."""
    core = kernels.compiled()
    data = np.frombuffer(b"a7", dtype=np.uint8)
    bad = np.array([0, 1, 9], dtype=offsets)  # the second row ends past the data
    empty = [np.array([0], dtype=offsets), np.array([], dtype=np.uint8)]
    assert core.canonical_integers([empty[0], bad], [empty[1], data]) is None
    data = np.frombuffer(b"7a", dtype=np.uint8)
    with pytest.raises(ValueError, match="offsets must ascend"):
        core.canonical_integers([empty[0], bad], [empty[1], data])
    unbounded = np.array([0, 5], dtype=offsets)  # a first id past the data: refused
    with pytest.raises(ValueError, match="offsets must ascend"):
        core.canonical_integers([unbounded], [data])


@given(st.lists(st.integers(-3, 40) | st.integers(-(2**63), 2**63 - 1), max_size=60), KINDS,
       st.lists(st.integers(0, 60), max_size=3))  # fmt: skip
def test_numeric_strings_are_coded_as_their_strings_are(ints, kind, cuts):
    texts = [str(i) for i in ints]
    codes, distinct = factorize_strings(chunked(texts, kind, cuts))
    first = list(dict.fromkeys(texts))  # codes in order of first appearance
    assert codes.tolist() == [first.index(t) for t in texts]
    assert distinct.type == pa.large_string()
    assert distinct.to_pylist() == first


def test_numeric_strings_of_free_order_are_coded_in_parallel_as_integers_are():
    # a column long enough to be coded in parallel (evaluate's items: their codes'
    # order is free) is coded as its integers would be, ascending, and each row's
    # code still names its own text; in order of first appearance otherwise
    from receval.data._encode import encode_ids
    from receval.data._int_ids import PARALLEL_MIN_ROWS, factorize_ints

    rng = np.random.default_rng(3)
    ints = rng.integers(-50, 5_000, PARALLEL_MIN_ROWS + 7)
    column = pa.array(ints.astype(str), pa.large_string())
    codes, distinct = encode_ids(column, "items", "test", any_order=True)
    want_codes, want_ints = factorize_ints(ints, any_order=True)
    assert codes.tolist() == want_codes.tolist()
    assert distinct.to_pylist() == [str(i) for i in want_ints.tolist()]
    assert want_ints.tolist() == sorted(set(ints.tolist()))
    texts = column.to_pylist()
    first = list(dict.fromkeys(texts))
    codes, distinct = encode_ids(column, "items", "test")
    assert distinct.to_pylist() == first
    assert np.array_equal(np.asarray(distinct.take(pa.array(codes)).to_pylist()), texts)


class _NoHashing:
    """The compiled core, its string hashing refused (the integer path must not need it)."""

    def __init__(self, core):
        self._core = core

    def __getattr__(self, name):
        if name in ("factorize_bytes", "factorize_views"):
            raise AssertionError(f"{name} called for strings that are integers")
        return getattr(self._core, name)


def test_canonical_strings_are_coded_without_hashing_them(monkeypatch):
    core = kernels.compiled()
    monkeypatch.setattr(kernels, "compiled", lambda: _NoHashing(core))
    codes, distinct = factorize_strings(pa.array(["12", "-3", "12", "0", "9223372036854775807"]))
    assert codes.tolist() == [0, 1, 0, 2, 3]
    assert distinct.to_pylist() == ["12", "-3", "0", "9223372036854775807"]
    with pytest.raises(AssertionError, match="factorize_bytes"):
        factorize_strings(pa.array(["12", "012"]))  # a leading zero: hashed as text


def test_the_integers_of_ids_written_as_text_are_read_back_not_parsed(monkeypatch):
    # a batch's distinct ids coded as integers are written as text; looked up in
    # integer qrels they are those integers again, without reading the text
    import gc

    from receval.data import _string_buffers

    _, distinct = factorize_strings(pa.array(["12", "-3", "12", "7"]))
    core = kernels.compiled()

    class NoParsing:
        def __getattr__(self, name):
            assert name != "canonical_integers", "the text parsed again"
            return getattr(core, name)

    monkeypatch.setattr(kernels, "compiled", lambda: NoParsing())
    assert integer_strings(distinct).tolist() == [12, -3, 7]
    with pytest.raises(AssertionError, match="parsed again"):
        integer_strings(pa.array(["12", "-3", "7"], pa.large_string()))  # the same text
    key = id(distinct)
    assert key in _string_buffers._INTEGERS_OF_TEXTS
    del distinct
    gc.collect()
    assert key not in _string_buffers._INTEGERS_OF_TEXTS  # gone with its array


def test_the_distinct_ids_of_batches_coded_as_integers_are_their_union():
    # the union of batches' ids written as text from integers is found by the
    # integers; a batch of other text joins them as text
    from receval.ranking.aggregate import Ids

    batches = (["5", "3", "5"], ["3", "10"], ["-1"])
    parts = [factorize_strings(pa.array(b))[1] for b in batches]
    got = Ids(list(parts)).distinct()
    assert got.to_pylist() == ["-1", "3", "5", "10"]
    assert integer_strings(got).tolist() == [-1, 3, 5, 10]
    other = pa.array(["007", "5"], pa.large_string())
    assert sorted(Ids([*parts, other]).distinct().to_pylist()) == ["-1", "007", "10", "3", "5"]
