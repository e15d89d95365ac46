"""The pairs of exclude= and candidates= without a vector: one count for every backend,
equal to the oracle's, whatever the split of the users."""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st

from receval import Candidates, SeenItems
from receval.data.seen import PairCounts
from receval.retrieval.masks import Unmatched, unmatched_pairs
from tests.oracles import retrieval as oracle


@st.composite
def _tables(draw):
    """(pairs, user ids with a vector, item ids with a vector, the users cut in batches)."""
    pairs = draw(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 8)), max_size=25))
    users = draw(st.lists(st.integers(0, 8), unique=True, max_size=7))
    items = draw(st.lists(st.integers(0, 10), unique=True, max_size=9))
    cuts = sorted(draw(st.lists(st.integers(0, len(users)), max_size=3)))
    return pairs, users, items, cuts


@given(_tables())
def test_counts_equal_the_oracle_in_one_pass_and_merged_over_batches(data):
    pairs, users, items, cuts = data
    assume(pairs)
    want = PairCounts(*oracle.unmatched_pairs(pairs, users, items))
    seen = SeenItems.from_log(tuple(np.array(x) for x in zip(*pairs, strict=True)))
    user_ids, item_ids = np.array(users, dtype=np.int64), np.array(items, dtype=np.int64)
    assert unmatched_pairs("exclude", seen, user_ids, item_ids).counts == want
    distinct = sorted(set(pairs))
    candidates = Candidates([u for u, _ in distinct], [i for _, i in distinct])
    assert unmatched_pairs("candidates", candidates, user_ids, item_ids).counts == want
    # batches of the users (an accumulator's updates, Spark's partitions), merged in
    # either order: the same counts and examples (the users without a vector, those of
    # no batch, named once all are in: each batch keeps which users it gave)
    parts = [unmatched_pairs("exclude", seen, batch, item_ids, some_users=True).counts
             for batch in np.split(user_ids, cuts)]  # fmt: skip
    for ordered in (parts, parts[::-1]):
        merged = PairCounts()
        for part in ordered:
            merged = merged.merge(part)
        assert merged.of_all(seen) == want


def test_examples_name_a_few_users_and_items_without_a_vector():
    seen = SeenItems.from_log({"a": [1, 2, 3], "b": [1], "ghost": [2]})
    unmatched = unmatched_pairs("exclude", seen, np.array(["a", "b"]), np.array([1, 2]))
    assert unmatched.counts == PairCounts(5, 1, 1, ("ghost",), (3,))
    assert unmatched.report_field == "n_exclude_unmatched"
    batch = unmatched_pairs("exclude", seen, np.array(["a"]), np.array([1, 2]), some_users=True)
    assert batch.counts == PairCounts(3, 0, 1, (), (3,))


def test_examples_are_the_six_smallest_ids_whatever_the_order_of_the_log():
    # the examples were the first ids of the log (a backend merging partitions could
    # not keep those): now the smallest, as Python values
    log = {u: [30 - i for i in range(12)] for u in ["z", "y", "x", "w", "v", "u", "t", "a"]}
    seen = SeenItems.from_log(log)
    unmatched = unmatched_pairs("exclude", seen, np.array(["a"]), np.array([30]))
    assert unmatched.counts.users_absent == ("t", "u", "v", "w", "x", "y")
    assert unmatched.counts.items_absent == (19, 20, 21, 22, 23, 24)
    assert type(unmatched.counts.items_absent[0]) is int
    assert "e.g. ['t', 'u', 'v', 'w', 'x', ...]" in unmatched.text()


def test_the_message_agrees_with_the_count_of_pairs():
    # one pair "masks nothing, since its user or item has no vector" (it said "mask",
    # "their"); several "are never scored, since their ..."
    one = Unmatched("exclude", PairCounts(3, 0, 1, items_absent=(9,)))
    assert one.text().startswith(
        "1 of the 3 distinct (user, item) pairs of exclude masks nothing, since its user or "
        "item has no vector (items without one: 1 pair, e.g. [9]); "
    )
    two = Unmatched("candidates", PairCounts(1, 1, 0, users_absent=("u",)))
    assert two.text().startswith(
        "1 of the 1 distinct (user, item) pair of candidates is never scored, since its user "
    )
    many = Unmatched("candidates", PairCounts(4, 2, 1))
    assert many.text().startswith(
        "3 of the 4 distinct (user, item) pairs of candidates are never scored, since their "
        "user or item has no vector (users without one: 2 pairs; items without one: 1 pair); "
    )
