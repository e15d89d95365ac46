"""The ids of the groups a whole-group metric has seen (``Seen``): many small batches
cost what few large ones cost, and repeats are found in every run held."""

import itertools
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval import InputValidationError
from receval.engine.group_ids import Seen


def test_many_small_batches_are_held_in_few_runs():
    # each batch was merged into one array of every id held: 10**4 updates of 10
    # groups copied 5 * 10**8 ids (quadratic: 40,000 updates took 33 s)
    seen = Seen()
    for i in range(10_000):
        seen.add(np.arange(10) + 10 * i, "gauc_score", "groups")
    runs = seen._runs
    assert len(runs) <= math.log2(100_000) + 1
    assert all(len(a) > 2 * len(b) for a, b in itertools.pairwise(runs))
    with pytest.raises(InputValidationError, match=r"group \[99995\] was already given"):
        seen.add([10**6, 99_995], "gauc_score", "groups")  # in the last, smallest run
    assert np.array_equal(seen.ints, np.arange(100_000))
    assert len(seen._runs) == 1


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 300), min_size=1, max_size=20, unique=True), max_size=12),
    st.lists(st.lists(st.integers(0, 300), min_size=1, max_size=20, unique=True), max_size=12),
)
def test_states_of_several_runs_merge_as_sets(first, second):
    # batches that repeat no id, each state in several runs: merged as Python sets
    def held(batches: list[list[int]]) -> tuple[Seen, set[int]]:
        seen, ids = Seen(), set()
        for batch in batches:
            if not ids & set(batch):
                seen.add(np.array(batch), "gauc_score", "groups")
                ids |= set(batch)
        return seen, ids

    (a, ids_a), (b, ids_b) = held(first), held(second)
    if ids_a & ids_b:
        with pytest.raises(InputValidationError, match="given twice"):
            a.merge(b)
    else:
        merged = a.merge(b)
        assert merged.ints.tolist() == sorted(ids_a | ids_b)
        assert a.ints.tolist() == sorted(ids_a)  # merge leaves both as they were
        a.absorb(b)
        assert pickle.loads(pickle.dumps(a)).ints.tolist() == sorted(ids_a | ids_b)


def test_gauc_of_many_updates_of_whole_groups_is_the_functions():
    rng = np.random.default_rng(0)
    y, s = rng.integers(0, 2, 20_000), rng.choice([0.1, 0.5, 0.9], 20_000)
    groups = np.repeat(rng.permutation(4_000), 5)
    acc = rv.metric("gauc", whole_groups=True)
    for part in np.array_split(np.arange(20_000), 2_000):
        acc.update(y[part], s[part], groups=groups[part])
    assert acc.compute() == rv.gauc_score(y, s, groups=groups)
    with pytest.raises(InputValidationError, match="given twice"):
        acc.update(y[:5], s[:5], groups=groups[:5])
