"""distinct and isin_ints: np.unique (by a direct-address table or a sort; of one array
or of several together) and np.isin
(by a direct-address or hash table); no module asks NumPy for distinct values
alone (NumPy 2.3+ hashes integers, strings and times for them, 10-40x slower)."""

import ast
from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from receval.data._lookup import distinct, isin_ints

EDGES = st.sampled_from([-(2**63), 2**63 - 1, -1, 0])
KEYS = st.lists(st.integers(-(2**62), 2**62) | st.integers(-3, 3) | EDGES, max_size=60)
SRC = Path(__file__).resolve().parents[2] / "src" / "receval"


@given(KEYS)
def test_distinct_is_np_unique_of_int64_keys(keys):
    x = np.array(keys, dtype=np.int64)
    np.testing.assert_array_equal(distinct(x), np.unique(x))


@given(
    hnp.arrays(
        st.sampled_from(["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8"]),
        hnp.array_shapes(min_dims=1, max_dims=2, min_side=0, max_side=30),
    )
)
def test_distinct_is_np_unique_of_integers_of_every_width(x):
    # compact ranges (the table) and the type's whole range (a sort) alike
    got = distinct(x)
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got, np.unique(x))


@given(
    st.sampled_from(["i1", "u2", "i8", "u8"]).flatmap(
        lambda kind: st.lists(hnp.arrays(kind, st.integers(0, 20)), min_size=1, max_size=5)
    ),
    st.booleans(),
)
def test_distinct_of_parts_is_np_unique_of_them_joined(parts, other_type):
    # parts of one type are marked one by one (not joined first); of several, joined
    if other_type:
        parts = [*parts, np.array([7, -3], dtype=np.int32)]
    got = distinct(*parts)
    want = np.unique(np.concatenate(parts))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@given(st.lists(st.text(max_size=4), max_size=40), st.booleans())
def test_distinct_is_np_unique_of_strings(values, as_bytes):
    x = np.array(values, dtype=str)
    if as_bytes:
        x = np.array([v.encode() for v in values], dtype=bytes)
    got = distinct(x)
    assert got.dtype == np.unique(x).dtype
    np.testing.assert_array_equal(got, np.unique(x))


@given(st.lists(st.integers(-(10**6), 10**6) | st.none(), max_size=40), st.sampled_from("DsmM"))
def test_distinct_is_np_unique_of_times_with_one_nat(values, unit):
    kind = "m8" if unit == "m" else "M8"
    x = np.array([np.iinfo(np.int64).min if v is None else v for v in values], dtype=np.int64)
    x = x.view(f"{kind}[{'s' if unit in 'mM' else unit}]")
    np.testing.assert_array_equal(distinct(x), np.unique(x))


@given(hnp.arrays(np.float64, st.integers(0, 30), elements=st.floats(allow_nan=True)))
def test_distinct_is_np_unique_of_floats(x):
    np.testing.assert_array_equal(distinct(x), np.unique(x))


def test_no_module_asks_numpy_for_distinct_values_alone():
    plain = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "unique"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "np"
            ):
                continue
            flags = {k.arg for k in node.keywords}
            if not flags & {"return_index", "return_inverse", "return_counts", "axis"}:
                plain.append(f"{path.relative_to(SRC)}:{node.lineno}")
    # distinct itself, for the kinds NumPy does not hash
    assert plain == ["data/_lookup.py:" + str(_line_of_own_call())]


def _line_of_own_call() -> int:
    text = (SRC / "data" / "_lookup.py").read_text(encoding="utf-8").splitlines()
    own = "return np.unique(np.concatenate(parts))"
    return next(i for i, line in enumerate(text, 1) if own in line)


@given(KEYS, KEYS)
def test_isin_ints_is_np_isin(values, test):
    a, b = np.array(values, dtype=np.int64), np.array(test, dtype=np.int64)
    np.testing.assert_array_equal(isin_ints(a, b), np.isin(a, b))


@given(KEYS, KEYS)
def test_isin_ints_keeps_the_shape_of_the_values(values, test):
    a = np.array(values + values, dtype=np.int64).reshape(2, -1)
    b = np.array(test, dtype=np.int64)
    np.testing.assert_array_equal(isin_ints(a, b), np.isin(a, b))
