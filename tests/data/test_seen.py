"""SeenItems: each user's training items, masked out of runs and score matrices."""

import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from receval import InputValidationError, InvalidParameterError, Qrels, Run, SeenItems
from receval.data.seen import MaskingSummary, as_seen


def _pairs(seen):
    users = np.repeat(np.arange(seen.n_users), np.diff(seen.offsets))
    return {(seen.user_ids[u], seen.item_ids[i]) for u, i in zip(users, seen.items, strict=True)}


@pytest.mark.parametrize(
    "log",
    [
        {"u1": ["a", "b", "a"], "u2": ["c"]},
        (["u1", "u1", "u2", "u1"], ["a", "b", "c", "a"]),
        pd.DataFrame({"user": ["u1", "u1", "u2"], "item": ["a", "b", "c"], "x": [1, 2, 3]}),
        Qrels.from_dict({"u1": {"a": 1, "b": 0}, "u2": {"c": 5}}),
        Run.from_dict({"u1": {"a": 0.1, "b": 0.2}, "u2": {"c": 0.3}}),
    ],
)
def test_every_log_shape_gives_the_same_pairs(log):
    seen = SeenItems.from_log(log)
    assert _pairs(seen) == {("u1", "a"), ("u1", "b"), ("u2", "c")}
    assert seen.n_pairs == 3
    assert SeenItems.from_log(seen) is seen
    # codes ascending and distinct within each user
    for u in range(seen.n_users):
        part = seen.items[seen.offsets[u] : seen.offsets[u + 1]]
        assert (np.diff(part) > 0).all()


def test_items_of():
    seen = SeenItems.from_log(([1, 1, 2], [10, 30, 20]))
    assert sorted(seen.items_of(1).tolist()) == [10, 30]
    assert seen.items_of(5).tolist() == []


def test_mask_keeps_order_and_counts():
    seen = SeenItems.from_log({"u1": ["b", "z"], "u2": ["a"]})
    run = Run.from_dict({"u1": {"a": 0.9, "b": 0.8, "c": 0.8}, "u2": {"a": 1.0}, "u3": {"b": 0.5}})
    masked = seen.mask(run)
    assert masked.run.to_dict() == {"u1": {"a": 0.9, "c": 0.8}, "u2": {}, "u3": {"b": 0.5}}
    assert masked.removed.tolist() == [1, 1, 0]
    assert masked.n_removed == 2
    assert masked.run.n_users == run.n_users


def test_mask_without_a_seen_row_returns_the_run():
    run = Run.from_dict({"u1": {"a": 0.9}})
    masked = SeenItems.from_log({"u1": ["b"]}).mask(run)
    assert masked.run is run and masked.n_removed == 0


def test_int_and_string_ids_match_as_in_evaluate():
    # an int id 7 and a string id "7" are the same id (TREC files hold strings)
    seen = SeenItems.from_log(([7, 7], [1, 2]))
    run = Run(["7", "7", "8"], ["1", "3", "2"], [0.5, 0.4, 0.3])
    assert seen.mask(run).run.to_dict() == {"7": {"3": 0.4}, "8": {"2": 0.3}}


@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 8)), min_size=1, max_size=30),
    st.lists(
        st.tuples(st.integers(0, 7), st.integers(0, 10), st.sampled_from([0.0, 0.5, 1.0])),
        min_size=1,
        max_size=40,
    ),
)
def test_mask_equals_removing_by_hand(train, rows):
    rows = list({(u, i): s for u, i, s in rows}.items())
    seen = SeenItems.from_log(tuple(zip(*train, strict=True)))
    run = Run([u for (u, _), _ in rows], [i for (_, i), _ in rows], [s for _, s in rows])
    masked = seen.mask(run)
    pairs = set(train)
    expected = {
        u: {i: s for i, s in items.items() if (u, i) not in pairs}
        for u, items in run.to_dict().items()
    }
    assert masked.run.to_dict() == expected
    assert masked.n_removed == sum((u, i) in pairs for (u, i), _ in rows)
    per_user = [sum((u, i) in pairs for i in items) for u, items in run.to_dict().items()]
    assert masked.removed.tolist() == per_user
    # the order within each list is the run's
    for u, items in masked.run.to_dict().items():
        order = [i for i in run.to_dict()[u] if i in items]
        assert list(items) == order


@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 8)), min_size=1, max_size=30),
    st.lists(st.integers(0, 7), max_size=8),
    st.lists(st.integers(0, 10), unique=True, max_size=10),
)
def test_item_indices_are_the_seen_columns(train, users, columns):
    assume(len(columns) > 0)
    seen = SeenItems.from_log(tuple(zip(*train, strict=True)))
    offsets, indices = seen.item_indices(users, columns)
    assert offsets[0] == 0 and len(offsets) == len(users) + 1
    for j, u in enumerate(users):
        got = indices[offsets[j] : offsets[j + 1]].tolist()
        want = sorted(c for c, item in enumerate(columns) if (u, item) in set(train))
        assert got == want


def test_pickle_round_trip():
    seen = SeenItems.from_log({"u1": ["a", "b"], "u2": ["c"]})
    back = pickle.loads(pickle.dumps(seen))
    assert back == seen and _pairs(back) == _pairs(seen)
    assert back != SeenItems.from_log({"u1": ["a"]})


def test_bad_logs_raise_naming_the_argument():
    with pytest.raises(InputValidationError, match=r"^evaluate: exclude must be a Qrels"):
        SeenItems.from_log(42, func="evaluate")
    with pytest.raises(InputValidationError, match="'user'"):
        SeenItems.from_log(pd.DataFrame({"u": [1], "item": [2]}), func="evaluate")
    with pytest.raises(InputValidationError, match="same length"):
        SeenItems.from_log(([1, 2], [3]), func="evaluate")
    with pytest.raises(InputValidationError, match="wrap a single item"):
        SeenItems.from_log({"u1": "a"}, func="evaluate")


@pytest.mark.parametrize(
    "log", [([], []), {}, {"u1": [], "u2": []}, pd.DataFrame({"user": [], "item": []})]
)
def test_a_log_of_no_pair_masks_nothing(log):
    # it was refused ("exclude is empty; pass at least one sample"), and the empty
    # SeenItems failed to give the columns to mask (an IndexError)
    seen = SeenItems.from_log(log, func="evaluate")
    assert seen == SeenItems.empty() and seen.n_pairs == 0
    offsets, indices = seen.item_indices(["u1", "u2"], ["a", "b"])
    assert offsets.tolist() == [0, 0, 0] and indices.tolist() == []
    assert seen.seen_rows(np.array([0, 1]), np.array(["u1", "u2"]), np.array([0, 1]),
                          np.array(["a", "b"])).tolist() == [False, False]  # fmt: skip
    assert as_seen(log, False, "evaluate") is None  # evaluate's: as no exclude=


def test_exclude_and_repeats_exclude_each_other():
    assert as_seen(None, False, "evaluate") is None
    assert as_seen(None, True, "evaluate") is None
    assert as_seen({"u": ["a"]}, False, "evaluate").n_pairs == 1
    with pytest.raises(InvalidParameterError, match="not both"):
        as_seen({"u": ["a"]}, True, "evaluate")
    with pytest.raises(InvalidParameterError, match="'repeats' parameter of evaluate"):
        as_seen(None, "yes", "evaluate")


def test_summary_merges_and_describes():
    a = MaskingSummary(n_rows_removed=2, n_users_masked=1, n_qrels_seen=1)
    b = MaskingSummary(n_rows_removed=3, n_users_masked=2, n_users_without_history=1)
    assert a.merge(b) == MaskingSummary(False, 5, 3, 1, 1)
    assert "5 seen items removed from 3 users" in a.merge(b).describe()
    assert "repeat consumption" in MaskingSummary(repeats=True).describe()


def test_the_kernel_refuses_inconsistent_arrays():
    from receval._kernels import compiled

    core = compiled()
    i64, i32 = np.int64, np.int32

    def call(offsets, items, user_map, item_map, seen_offsets, seen_items):
        return core.seen_rows(
            np.asarray(offsets, i64), np.asarray(items, i32), np.asarray(user_map, i32),
            np.asarray(item_map, i32), np.asarray(seen_offsets, i64), np.asarray(seen_items, i32),
        )  # fmt: skip

    rows, counts = call([0, 2], [0, 1], [0], [1, 0], [0, 1], [0])
    assert rows.tolist() == [False, True] and counts.tolist() == [1]
    with pytest.raises(ValueError, match="offsets must ascend from 0 to 2"):
        call([0, 3], [0, 1], [0], [1, 0], [0, 1], [0])
    with pytest.raises(ValueError, match="items must hold codes below 2"):
        call([0, 2], [0, 2], [0], [1, 0], [0, 1], [0])
    with pytest.raises(ValueError, match="user_map must hold codes below 1"):
        call([0, 2], [0, 1], [1], [1, 0], [0, 1], [0])
    with pytest.raises(ValueError, match="user_map must hold one code per list"):
        call([0, 2], [0, 1], [0, 0], [1, 0], [0, 1], [0])
    with pytest.raises(ValueError, match="seen_offsets must ascend"):
        call([0, 2], [0, 1], [0], [1, 0], [0, 2], [0])


@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 8)), min_size=1, max_size=30),
    st.lists(st.tuples(st.integers(0, 6), st.integers(0, 9)), max_size=30),
)
def test_seen_rows_of_rows_in_any_order(train, rows):
    seen = SeenItems.from_log(tuple(zip(*train, strict=True)))
    user_ids, item_ids = np.arange(7) * 1, np.arange(10)
    users = np.asarray([u for u, _ in rows], dtype=np.int64)
    items = np.asarray([i for _, i in rows], dtype=np.int64)
    got = seen.seen_rows(users, user_ids, items, item_ids)
    assert got.tolist() == [(u, i) in set(train) for u, i in rows]


@given(
    st.lists(st.integers(-50, 50), min_size=1, max_size=40),
    st.sampled_from(["int64", "float64", "str", "arrow", "arrow_view", "object"]),
    st.sampled_from([None, -3000, 100]),
    st.integers(0, 2**32 - 1),
)
def test_smallest_ids_of_every_array_kind_are_the_six_smallest_distinct(values, kind, more, seed):
    # the one rule of the examples in messages: any array, Arrow ones too (the ids of
    # a run or qrels as they are encoded), without a sort of a large one (``more``:
    # 1500 other ids from there, in a shuffled array: the smallest anywhere in it)
    import pyarrow as pa

    from receval.data.seen import smallest_ids

    if more is not None:
        values = np.random.default_rng(seed).permutation(values + list(range(more, more + 1500)))
        values = values.tolist()
    text = [f"i{x:+05d}" for x in values]
    ids = {
        "int64": np.array(values),
        "float64": np.array(values, dtype=float),
        "str": np.array(text),
        "arrow": pa.chunked_array([text[: len(text) // 2], text[len(text) // 2 :]], pa.string()),
        "arrow_view": pa.array(text, pa.string_view()),
        "object": np.array(text, dtype=object),
    }[kind]
    expected = sorted(set(values if kind in ("int64", "float64") else text))[:6]
    assert list(smallest_ids(ids)) == expected
