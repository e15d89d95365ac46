"""retrieve() against the brute-force oracle: ties, masks, candidates, blocks, inputs."""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from receval import InputValidationError, InvalidParameterError, retrieve
from receval.exceptions import UnmatchedIdsWarning
from tests._dlpack import NUMPY_ASKS_A_COPY, DLPackArray
from tests._fresh import fresh
from tests.oracles.retrieval import scores, top_k


def _lists(run, user_ids):
    d = run.to_dict()
    return [list(d.get(u, {})) for u in user_ids]


def _tied_data(seed, n_users=13, n_items=29, dim=4):
    """Integer-valued vectors: exact float32 products, many equal scores."""
    rng = np.random.default_rng(seed)
    users = rng.integers(-2, 3, (n_users, dim)).astype(np.float32)
    items = rng.integers(-2, 3, (n_items, dim)).astype(np.float32)
    return users, items


def _masks(seed, n_users, n_items):
    rng = np.random.default_rng(seed + 100)
    excluded = {
        u: set(rng.choice(n_items, rng.integers(0, 6), replace=False).tolist())
        for u in range(n_users)
    }
    excluded[0] = set(range(n_items))  # a user with everything masked
    return excluded


@pytest.mark.parametrize("blocks", [(1, 1), (3, 5), (4, 16), (1000, 1000)])
@pytest.mark.parametrize("k", [1, 4, 40])
def test_equals_the_oracle_with_ties_masks_and_blocks(blocks, k):
    users, items = _tied_data(0)
    item_ids = np.random.default_rng(1).permutation(np.arange(100, 100 + len(items)))
    excluded = _masks(0, len(users), len(items))
    train = (
        [u for u, s in excluded.items() for _ in s],
        [int(item_ids[i]) for s in excluded.values() for i in s],
    )
    run = retrieve(
        users,
        items,
        k,
        item_ids=item_ids,
        exclude=train,
        block_users=blocks[0],
        block_items=blocks[1],
    )
    want = top_k(scores(users, items), k, list(item_ids), excluded=excluded)
    assert _lists(run, range(len(users))) == want
    assert run.n_users == len(users)
    assert want[0] == [] and run.offsets[1] == 0
    # scores are the products
    full = scores(users, items)
    d = run.to_dict()
    pos = {int(x): i for i, x in enumerate(item_ids)}
    for u, row in d.items():
        for item, s in row.items():
            assert s == full[u, pos[item]]


def test_many_users_and_wide_vectors_equal_the_oracle():
    """More users than one parallel task of the kernel and not a whole number of its
    tiles, vectors wider than its cache blocking, ties at every k-th score."""
    users, items = _tied_data(5, n_users=203, n_items=1100, dim=300)
    excluded = _masks(5, len(users), len(items))
    run = retrieve(users, items, 25, exclude={u: sorted(s) for u, s in excluded.items()},
                   block_items=700)  # fmt: skip
    want = top_k(scores(users, items), 25, list(range(len(items))), excluded=excluded)
    assert _lists(run, range(len(users))) == want


def test_string_ids_break_ties_in_string_order():
    users = np.ones((1, 2), dtype=np.float32)
    items = np.ones((4, 2), dtype=np.float32)
    run = retrieve(users, items, 3, user_ids=["u"], item_ids=["b", "d", "a", "c"])
    assert list(run.to_dict()["u"]) == ["a", "b", "c"]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "bfloat16"])
def test_every_input_dtype(dtype):
    users, items = _tied_data(3)
    want = top_k(scores(users, items), 5, list(range(len(items))))
    if dtype == "bfloat16":
        torch = pytest.importorskip("torch")
        u = torch.tensor(users, dtype=torch.bfloat16)
        i = torch.tensor(items, dtype=torch.bfloat16)
    else:
        u, i = users.astype(dtype), items.astype(dtype)
    run = retrieve(u, i, 5, block_users=4, block_items=7)
    assert _lists(run, range(len(users))) == want


def test_torch_float32_tensors():
    torch = pytest.importorskip("torch")
    users, items = _tied_data(4)
    run = retrieve(torch.from_numpy(users), torch.from_numpy(items), 3)
    assert _lists(run, range(len(users))) == top_k(scores(users, items), 3, list(range(len(items))))


@pytest.mark.skipif(not NUMPY_ASKS_A_COPY, reason="NumPy asks for a host copy from 2.1 on")
def test_arrays_on_a_device_through_dlpack():
    users, items = _tied_data(6)
    want = top_k(scores(users, items), 3, list(range(len(items))))
    run = retrieve(DLPackArray(users, (2, 0), copies=True), DLPackArray(items, (2, 0), True), 3)
    assert _lists(run, range(len(users))) == want
    with pytest.raises(InputValidationError, match=r"item_vectors is a DLPackArray on a device"):
        retrieve(users, DLPackArray(items, (2, 0)), 3)


def test_memmapped_npy_files(tmp_path):
    users, items = _tied_data(5, n_items=57)
    np.save(tmp_path / "u.npy", users)
    np.save(tmp_path / "i.npy", items.astype(np.float16))
    want = top_k(scores(users, items), 6, list(range(len(items))))
    run = retrieve(tmp_path / "u.npy", str(tmp_path / "i.npy"), 6, block_items=10)
    assert _lists(run, range(len(users))) == want
    np.save(tmp_path / "f.npy", np.asfortranarray(items))
    assert _lists(retrieve(users, tmp_path / "f.npy", 6, block_items=9), range(len(users))) == want
    mm = np.load(tmp_path / "i.npy", mmap_mode="r")
    assert isinstance(mm, np.memmap)
    assert _lists(retrieve(users, mm, 6, block_items=8), range(len(users))) == want


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"", "is not a .npy file as numpy.save writes one: EOF: reading magic string"),
        (b"user,item\n", "is not a .npy file as numpy.save writes one: the magic string"),
        ("cut", "is cut short: its header announces 57 x 4 float32 values"),
    ],
)
def test_a_file_that_is_no_whole_npy_file_is_refused_naming_it(tmp_path, content, says):
    # NumPy's ValueError came out raw ("the magic string is not correct"), and a file
    # cut short failed in the middle of the work ("cannot reshape array of size 3")
    users, items = _tied_data(5, n_items=57)
    path = tmp_path / "i.npy"
    np.save(path, items)
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) - 10] if content == "cut" else content)
    with pytest.raises(InputValidationError) as info:
        retrieve(users, path, 6)
    assert str(info.value).startswith(f"retrieve: item_vectors file {str(path)!r} {says}")
    assert str(info.value).endswith(".")


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"", "Parquet file size is 0 bytes."),
        (b"user,item\n1,2\n", "Parquet magic bytes not found in footer."),
        ("npy", "Parquet magic bytes not found in footer."),
    ],
)
@pytest.mark.parametrize("name", ["user_vectors", "item_vectors"])
def test_a_file_that_is_no_parquet_file_is_refused_naming_it(tmp_path, content, says, name):
    # Arrow's ArrowInvalid came out raw, naming neither the argument nor the file
    users, items = _tied_data(5, n_items=7)
    path = tmp_path / "vectors.parquet"
    if content == "npy":
        with open(path, "wb") as fh:
            np.save(fh, items)
    else:
        path.write_bytes(content)
    given = {"user_vectors": users, "item_vectors": items, name: path}
    with pytest.raises(InputValidationError) as info:
        retrieve(given["user_vectors"], given["item_vectors"], 3)
    text = str(info.value)
    assert text.startswith(f"retrieve: {name} file {str(path)!r} is not a Parquet file: {says}")
    assert text.endswith("(one fixed-size-list column), or pass a .npy file.")


def _fixed(x):
    flat = pa.array(x.reshape(-1))
    return pa.FixedSizeListArray.from_arrays(flat, x.shape[1])


def test_arrow_fixed_size_lists_and_parquet_in_batches(tmp_path):
    users, items = _tied_data(6, n_items=41)
    want = top_k(scores(users, items), 4, list(range(len(items))))
    chunked = pa.chunked_array([_fixed(items[:10]), _fixed(items[10:])])
    assert _lists(retrieve(_fixed(users), chunked, 4, block_items=7), range(len(users))) == want
    table = pa.table({"v": chunked})
    assert _lists(retrieve(users, table, 4), range(len(users))) == want
    pq.write_table(table, tmp_path / "items.parquet", row_group_size=8)
    pq.write_table(pa.table({"v": _fixed(users)}), tmp_path / "users.parquet", row_group_size=5)
    run = retrieve(
        tmp_path / "users.parquet", tmp_path / "items.parquet", 4, block_items=6, block_users=3
    )
    assert _lists(run, range(len(users))) == want


def test_candidates_and_exclude_together():
    users, items = _tied_data(7)
    rng = np.random.default_rng(8)
    cands = {u: set(rng.choice(len(items), 9, replace=False).tolist()) for u in range(len(users))}
    del cands[2]  # a user without candidates: an empty list
    excluded = _masks(7, len(users), len(items))
    run = retrieve(
        users,
        items,
        4,
        candidates={u: sorted(c) for u, c in cands.items()},
        exclude={u: sorted(s) for u, s in excluded.items()},
        block_users=5,
    )
    want = top_k(
        scores(users, items), 4, list(range(len(items))), excluded=excluded, candidates=cands
    )
    assert want[2] == []
    assert _lists(run, range(len(users))) == want


def test_k_larger_than_the_catalogue_lists_every_item():
    users, items = _tied_data(9, n_items=5)
    run = retrieve(users, items, 50)
    assert np.all(np.diff(run.offsets) == 5)
    assert _lists(run, range(len(users))) == top_k(scores(users, items), 50, list(range(5)))


def test_cosine_against_float64_scores():
    rng = np.random.default_rng(10)
    users = rng.normal(size=(20, 8)).astype(np.float32)
    items = rng.normal(size=(300, 8)).astype(np.float32)
    run = retrieve(users, items, 10, metric="cosine", block_items=64)
    full = scores(users, items, "cosine")
    _check_close(run, full, 10)


def _check_close(run, full, k):
    """Scores within float32 rounding of the float64 ones; the list holds the k best
    up to that tolerance."""
    d = run.to_dict()
    for u, row in d.items():
        got = np.array(list(row))
        np.testing.assert_allclose(list(row.values()), full[u, got], rtol=1e-5, atol=1e-5)
        kth = full[u, got[-1]]
        rest = np.delete(full[u], got)
        assert len(got) == k and (rest <= kth + 1e-5).all()


def test_random_floats_against_float64_oracle():
    rng = np.random.default_rng(11)
    users = rng.normal(size=(33, 16))
    items = rng.normal(size=(500, 16))
    _check_close(
        retrieve(users, items, 7, block_users=10, block_items=100), scores(users, items), 7
    )


@given(st.integers(0, 10_000), st.integers(1, 12), st.integers(1, 9), st.integers(1, 9))
def test_property_blocks_never_change_the_lists(seed, k, bu, bi):
    users, items = _tied_data(seed, n_users=7, n_items=15, dim=3)
    excluded = _masks(seed, len(users), len(items))
    assume(any(len(s) < len(items) for s in excluded.values()))
    run = retrieve(
        users,
        items,
        k,
        exclude={u: sorted(s) for u, s in excluded.items()},
        block_users=bu,
        block_items=bi,
    )
    assert _lists(run, range(len(users))) == top_k(
        scores(users, items), k, list(range(15)), excluded=excluded
    )


def test_bad_input_messages():
    u = np.ones((2, 3))
    with pytest.raises(InputValidationError, match=r"same number of columns\. Got 3 and 2"):
        retrieve(u, np.ones((4, 2)), 1)
    with pytest.raises(
        InputValidationError, match=r"item_vectors contains NaN or infinity \(row 1\)"
    ):
        retrieve(u, np.array([[1, 1, 1], [np.nan, 0, 0]]), 1)
    with pytest.raises(InputValidationError, match=r"item_ids must be distinct\. Got \[7\]"):
        retrieve(u, np.ones((2, 3)), 1, item_ids=[7, 7])
    with pytest.raises(InputValidationError, match=r"one id per row of the vectors \(2\)\. Got 3"):
        retrieve(u, np.ones((2, 3)), 1, user_ids=[1, 2, 3])
    with pytest.raises(InputValidationError, match="row 1 of item_vectors is a zero vector"):
        retrieve(u, np.array([[1, 0, 0], [0, 0, 0]]), 1, metric="cosine")
    with pytest.raises(InvalidParameterError, match="'k' parameter of retrieve"):
        retrieve(u, u, 0)
    with pytest.raises(InvalidParameterError, match="'metric' parameter of retrieve"):
        retrieve(u, u, 1, metric="l2")
    with pytest.raises(InputValidationError, match="user_vectors must be a 2-D matrix"):
        retrieve(np.ones(3), u, 1)
    with pytest.raises(InputValidationError, match="item_vectors must be a 2-D matrix: rows"):
        retrieve(u, [[1.0], [1.0, 2.0]], 1)
    with pytest.raises(InputValidationError, match="user_vectors must hold numbers"):
        retrieve(np.array([["a", "b"]]), u, 1)
    torch = pytest.importorskip("torch")
    empty = torch.zeros((2, 3), device="meta")  # a shape, no values
    with pytest.raises(InputValidationError, match="item_vectors is a tensor on the device 'meta'"):
        retrieve(u, empty, 1)
    with pytest.raises(InputValidationError, match="overflow float32"):
        retrieve(np.full((1, 2), 1e30), np.full((1, 2), 1e30), 1)


def test_exclude_or_candidates_matching_nothing_is_an_error():
    users, items = _tied_data(12)
    with pytest.raises(InputValidationError, match="no \\(user, item\\) pair of exclude= names"):
        retrieve(users, items, 3, exclude={"user0": ["item1"]})
    with pytest.raises(InputValidationError, match="pair of candidates= names"):
        retrieve(users, items, 3, candidates={0: [999]})
    # a partial match (training users without vectors) is no error, but it is counted
    with pytest.warns(UnmatchedIdsWarning, match=r"retrieve: 1 of the 2 distinct .* \(users "):
        run = retrieve(users, items, 3, exclude={0: [1], 999: [2]})
    assert run.n_users == len(users)


@pytest.mark.parametrize(
    "exclude", [{0: [], 1: []}, {}, ([], []), pd.DataFrame({"user": [], "item": []})]
)
def test_an_exclude_of_no_pair_masks_nothing(exclude):
    # it was refused: "retrieve: exclude is empty; pass at least one sample"
    users, items = _tied_data(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = retrieve(users, items, 3, exclude=exclude)
    assert run.to_dict() == retrieve(users, items, 3).to_dict()


def test_exclude_pairs_without_a_vector_are_counted():
    users = np.eye(2, dtype=np.float32)
    items = np.array([[1, 0], [0.9, 0], [0, 1]], dtype=np.float32)
    exclude = {0: [0, 7, 8, 9], 5: [1]}  # items 7, 8, 9 and user 5 have no vector
    with pytest.warns(UnmatchedIdsWarning) as caught:
        run = retrieve(users, items, 1, exclude=exclude)
    assert run.to_dict() == {0: {1: pytest.approx(0.9)}, 1: {2: 1.0}}
    (warning,) = caught
    assert str(warning.message) == (
        "retrieve: 4 of the 5 distinct (user, item) pairs of exclude mask nothing, since "
        "their user or item has no vector (users without one: 1 pair, e.g. [5]; items "
        "without one: 3 pairs, e.g. [7, 8, 9]); check their ids against user_ids and "
        "item_ids (type, prefix) if they should match."
    )
    # a pair whose user and item both lack a vector is counted once, by its user
    with pytest.warns(UnmatchedIdsWarning, match=r"2 of the 3 .*users without one: 2 pairs"):
        retrieve(users, items, 1, exclude=([0, 5, 5], [0, 9, 1]))
    with warnings.catch_warnings():  # every pair masks something: nothing to say
        warnings.simplefilter("error")
        retrieve(users, items, 1, exclude={0: [0], 1: [2]})


def test_arrow_item_vectors_taken_for_candidates_without_pandas(tmp_path):
    # the candidates' rows taken from Arrow vectors over NumPy positions (Arrow's take
    # of NumPy imports pandas)
    items = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0], [0.5, 0.0]], np.float32)
    pq.write_table(pa.table({"v": _fixed(items)}), tmp_path / "items.parquet")
    np.save(tmp_path / "users.npy", np.array([[1.0, 0.0]], np.float32))
    code = (
        "import pyarrow.parquet as pq\n"
        "import receval as rv\n"
        "items = pq.ParquetFile('items.parquet').read().column('v')\n"
        "run = rv.retrieve('users.npy', items, 2, candidates={0: [0, 1, 3]})\n"
        "print(*run.item_ids[run.items].tolist())\n"
    )
    printed, modules = fresh(code, tmp_path)
    assert printed == ["0", "3"]  # of the candidates, inner products 1, 0 and 0.5
    assert "pyarrow" in modules and "pandas" not in modules


@pytest.mark.parametrize(
    ("ids", "name", "position"),
    [
        ({"item_ids": [1, 2, np.nan]}, "item_ids", 2),
        ({"user_ids": [0, np.nan]}, "user_ids", 1),
        ({"user_ids": ["x", None]}, "user_ids", 1),
    ],
)
def test_missing_ids_are_refused(ids, name, position):
    users = np.array([[0, 0, 1.0], [0, 1.0, 0]], np.float32)
    items = np.eye(3, dtype=np.float32)
    message = (
        rf"retrieve: {name} contains 1 missing value \(None, NaN or null\), the first at "
        rf"position {position}; drop those rows or fill them with an id"
    )
    with pytest.raises(InputValidationError, match=message):
        retrieve(users, items, 1, **ids)


@pytest.mark.parametrize(
    ("ids", "name"),
    [({"item_ids": [1, "b", 3]}, "item_ids"), ({"user_ids": ["a", 2]}, "user_ids")],
)
def test_ids_of_two_types_are_refused_as_in_qrels(ids, name):
    # NumPy would spell [1, "b"] as ["1", "b"]: ids matching the qrels' 1 and "1" alike
    users = np.array([[0, 0, 1.0], [0, 1.0, 0]], np.float32)
    message = (
        rf"retrieve: {name} must hold ids of one type \(numbers or strings, not both\)\. "
        rf"Got types \['int', 'str'\]"
    )
    with pytest.raises(InputValidationError, match=message):
        retrieve(users, np.eye(3, dtype=np.float32), 1, **ids)


def test_whole_float_ids_are_integers_as_in_qrels():
    users = np.array([[0, 0, 1.0], [0, 1.0, 0]], np.float32)
    run = retrieve(users, np.eye(3, dtype=np.float32), 1, item_ids=[1.0, 2.0, 3.0])
    assert run.to_dict() == {0: {3: 1.0}, 1: {2: 1.0}}


def test_cosine_of_tiny_vectors_is_defined():
    users = np.array([[1e-30, 1e-30]], np.float32)  # its float32 squares underflow to 0
    items = np.array([[1.0, 0.0], [1e30, 1e30]], np.float32)  # ... and these overflow
    run = retrieve(users, items, 2, metric="cosine")
    assert list(run.to_dict()[0]) == [1, 0]
    assert run.to_dict()[0][1] == pytest.approx(1.0)
    assert run.to_dict()[0][0] == pytest.approx(np.sqrt(0.5))


@pytest.mark.parametrize("kind", ["numpy", "int32", "uint64", "arrow", "torch", "candidates"])
def test_integers_float32_would_round_are_refused(kind):
    users = np.array([[2**24 + 1, 1], [3, 4]])  # 2**24 + 1 rounds to 2**24 in float32
    items = np.array([[1, 0], [1, 1]])
    want = (
        r"retrieve: user_vectors must hold integers of magnitude at most 2\*\*24 \(16777216\), "
        r"which float32 holds exactly\. Got 16777217 \(first in row 0\); scale them down, or "
        r"convert them to float32 \(rounded\) yourself\."
    )
    options = {}
    if kind == "int32":
        users, items = users.astype(np.int32), items.astype(np.int32)
    elif kind == "uint64":
        users = users.astype(np.uint64)
    elif kind == "arrow":
        users, items = _fixed(users), _fixed(items)
    elif kind == "torch":
        torch = pytest.importorskip("torch")
        users, items = torch.from_numpy(users), torch.from_numpy(items)
    elif kind == "candidates":  # items taken row by row: the row is the matrix's
        users, items = items, np.array([[0, 0], [0, 0], [-(2**24) - 1, 1]])
        options = {"candidates": {0: [0, 2], 1: [1]}}
        want = want.replace("user_vectors", "item_vectors").replace("row 0", "row 2")
    with pytest.raises(InputValidationError, match=want):
        retrieve(users, items, 2, **options)


def test_integers_up_to_2_to_the_24_are_exact():
    users = np.array([[2**24, 0], [-(2**24), 1]], dtype=np.int64)
    items = np.array([[1, 0], [1, 1]], dtype=np.int8)
    run = retrieve(users, items, 2)
    assert run.to_dict() == {0: {0: 16777216.0, 1: 16777216.0}, 1: {1: -16777215.0, 0: -16777216.0}}


def test_a_bad_candidate_vector_is_named_by_its_row_of_the_matrix():
    items = np.array([[1.0, 0.0], [0.0, 1.0], [np.nan, 1.0]])
    want = r"item_vectors contains NaN or infinity \(row 2\)"
    with pytest.raises(InputValidationError, match=want):
        retrieve(np.ones((1, 2)), items, 1, candidates={0: [1, 2]})


def test_values_float32_cannot_hold_are_named_as_such(recwarn):
    users = np.array([[1.0, 2.0], [3.0, 1.0]])
    items = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    with pytest.raises(
        InputValidationError,
        match=r"retrieve: row 0 of user_vectors underflows to a zero vector in float32 \(its "
        r"largest magnitude is 2e-300\), whose cosine is undefined; scale the vectors up \(a "
        r"cosine does not change\), e\.g\. divide each row by its largest magnitude\.",
    ):
        retrieve(users * 1e-300, items, 2, metric="cosine")
    with pytest.raises(InputValidationError, match=r"row 2 of item_vectors underflows"):
        retrieve(users, items * 1e-300, 2, metric="cosine", candidates={0: [2]})
    with pytest.raises(
        InputValidationError,
        match=r"retrieve: user_vectors must hold values within float32's range \(magnitudes up "
        r"to 3\.4e38\)\. Got 2e\+300 in row 0; scale the vectors down \(a cosine does not "
        r"change\)\.",
    ):
        retrieve(users * 1e300, items, 2, metric="cosine")
    assert not recwarn.list  # no NumPy warning of the cast before the error
    with pytest.raises(InputValidationError, match=r"contains NaN or infinity \(row 1\)\.$"):
        retrieve(users, np.array([[1.0, 0.0], [np.inf, 0.0]]), 2)


def test_nulls_of_arrow_vectors_name_their_row(tmp_path):
    values = pa.array([1.0, 0.0, 0.5, None, 0.0, 1.0], pa.float64())
    items = pa.FixedSizeListArray.from_arrays(values, 2)
    with pytest.raises(
        InputValidationError,
        match=r"retrieve: item_vectors must hold a number in every place\. Got a null in row 1; "
        r"fill it \(e\.g\. pc\.fill_null\) or drop the row\.",
    ):
        retrieve(np.ones((1, 2)), items, 1)
    with pytest.raises(InputValidationError, match=r"Got a null in row 1;"):
        retrieve(np.ones((1, 2)), items, 1, candidates={0: [0, 1]})
    vectors = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], None, [0.5, 0.5]]
    column = pa.array(vectors, pa.list_(pa.float32(), 2))
    want = (
        r"retrieve: item_vectors must have a vector in every row\. Got 1 null vector, the "
        r"first in row 3; drop those rows or give them vectors\."
    )
    with pytest.raises(InputValidationError, match=want):
        retrieve(np.ones((1, 2)), column, 1)
    pq.write_table(pa.table({"v": column}), tmp_path / "items.parquet", row_group_size=2)
    with pytest.raises(InputValidationError, match=want):
        retrieve(np.ones((1, 2)), tmp_path / "items.parquet", 1, block_items=2)


@pytest.mark.parametrize("metric", ["dot", "cosine"])
def test_candidates_score_every_item_as_the_dense_search_does(metric):
    # fractional vectors of many dimensions: float sums that depend on their order, so
    # a candidate's score equals the dense search's only when both are the same chain
    # of fused multiply-adds (the 300 users of a block are scored in parallel)
    rng = np.random.default_rng(4)
    users = rng.standard_normal((300, 37)).astype(np.float32)
    items = rng.standard_normal((50, 37)).astype(np.float32)
    some = {u: sorted(rng.choice(50, 20, replace=False).tolist()) for u in range(300)}
    dense = retrieve(users, items, 50, metric=metric).to_dict()
    chosen = retrieve(users, items, 50, metric=metric, candidates=some).to_dict()
    assert chosen == {u: {i: dense[u][i] for i in some[u]} for u in range(300)}


def test_candidates_are_scored_in_the_memory_of_a_block_of_items():
    # the pairs' vectors were gathered whole (two float32 matrices of pairs x dim:
    # 2 x 128 MiB here) where the dense scan holds one block of items
    rng = np.random.default_rng(3)
    n_users, n_items, dim, per = 64, 4000, 256, 2000
    users = rng.normal(size=(n_users, dim)).astype(np.float32)
    items = rng.normal(size=(n_items, dim)).astype(np.float32)
    candidates = {u: rng.choice(n_items, per, replace=False) for u in range(n_users)}
    tracemalloc.start()
    try:
        run = retrieve(users, items, 5, candidates=candidates, block_items=1024)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20, f"peak {peak / 2**20:.0f} MiB"
    want = top_k(scores(users, items), 5, list(range(n_items)),
                 candidates={u: set(c.tolist()) for u, c in candidates.items()})  # fmt: skip
    assert _lists(run, range(n_users)) == want


@pytest.mark.parametrize(
    ("candidates", "says"),
    [
        ({0: [1, 1]}, "user 0 has item 1 more than once (1 repeated pair in all). Each (user, "),
        ({0: [1, None]}, "items contains 1 missing value (None, NaN or null)"),
        ({}, "users is empty"),
    ],
)
def test_bad_candidates_are_named_as_the_candidates_of_retrieve(candidates, says):
    # the message began "Candidates: ", naming neither the function nor its argument
    with pytest.raises(InputValidationError) as info:
        retrieve(np.eye(2), np.eye(2), 2, candidates=candidates)
    assert str(info.value).startswith(f"retrieve: candidates: {says}")


@pytest.mark.parametrize(
    "ids", [[True, False, True], np.array([True, False, True])], ids=["list", "array"]
)
def test_boolean_item_ids_read_as_evaluate_reads_them_and_say_so(ids):
    # evaluate reads boolean ids as the integers 1 and 0; the error for three rows
    # said "Got [1] more than once" without saying why
    with pytest.raises(InputValidationError) as caught:
        retrieve(np.eye(2), np.eye(3)[:, :2], 1, item_ids=ids)
    assert str(caught.value) == (
        "retrieve: item_ids must be distinct. Got [1] more than once (booleans, read as the "
        "integers 1 and 0); pass one id per row."
    )
    two = retrieve(np.eye(2), np.eye(2), 1, item_ids=[True, False])
    assert two.to_dict() == retrieve(np.eye(2), np.eye(2), 1, item_ids=[1, 0]).to_dict()


def test_a_series_of_row_arrays_is_refused_with_the_fix():
    pd = pytest.importorskip("pandas")
    rows = pd.Series([np.ones(2), np.zeros(2)])
    with pytest.raises(InputValidationError) as caught:
        retrieve(rows, np.eye(2), 1)
    assert str(caught.value) == (
        "retrieve: user_vectors must hold numbers (float32, float16, bfloat16, float64 or "
        "integers). Got dtype object, one array per row; stack them into a matrix first, "
        "e.g. np.stack(series.to_numpy()) for a pandas Series of arrays."
    )
    stacked = retrieve(np.stack(rows.to_numpy()), np.eye(2), 1)
    assert len(stacked.to_dict()) == 2
