"""``restrict_run``: each run user's rows kept in its candidate set, in order, and
the counts of what the sets leave out, read from the candidates of the run's users
alone (a batch against a table of millions of rows costs what its users hold)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from receval import Candidates, Run
from receval.sampled.negatives import restrict_run

USERS, ITEMS = ["u", "v", "w", "x"], ["a", "b", "c", "d"]


def _counts(restriction: object) -> tuple[int, int, int, int]:
    return tuple(  # type: ignore[return-value]
        getattr(restriction, name)
        for name in ("n_rows_dropped", "n_candidates_absent", "n_users_without_candidates",
                     "n_rows_kept")
    )  # fmt: skip


def _rows(run: Run) -> list[tuple[object, object, float]]:
    users = np.repeat(run.user_ids, np.diff(run.offsets))
    return list(zip(users.tolist(), run.item_ids[run.items].tolist(), run.scores.tolist(),
                    strict=True))  # fmt: skip


@given(
    st.dictionaries(st.sampled_from(USERS), st.sets(st.sampled_from(ITEMS), min_size=1),
                    min_size=1),
    st.dictionaries(st.sampled_from(USERS), st.sets(st.sampled_from(ITEMS), min_size=1),
                    min_size=1),
)  # fmt: skip
def test_the_rows_kept_and_the_counts_are_those_of_each_users_set(sets, lists):
    c = Candidates.from_dict({u: sorted(items) for u, items in sets.items()})
    rows = [(u, i, float(n)) for u, items in lists.items() for n, i in enumerate(sorted(items))]
    run = Run(*(list(col) for col in zip(*rows, strict=True)))
    got = restrict_run(run, c)
    kept = [(u, i, s) for u, i, s in _rows(run) if i in sets.get(u, ())]
    assert _rows(got.run) == kept
    absent = sum(len(sets[u] - lists[u]) for u in lists if u in sets)
    without = sum(u not in sets for u in lists)
    assert _counts(got) == (run.n_rows - len(kept), absent, without, len(kept))


def test_the_candidates_of_users_absent_from_the_run_are_not_read():
    # every candidate row was mapped to the run's items (258 ms a batch of 100
    # users against 10M rows): here the other users' rows hold item codes past the
    # table of items, which raised IndexError when read
    c = Candidates.from_dict({"u": ["a", "b"], "v": ["a", "c"], "w": ["b", "d"]})
    run = Run(["u", "u", "u", "x"], ["a", "b", "c", "a"], [3.0, 2.0, 1.0, 1.0])
    expected = restrict_run(run, c)
    for user in ("v", "w"):
        at = c.user_ids.tolist().index(user)
        c.items[c.offsets[at] : c.offsets[at + 1]] = 2**40
    got = restrict_run(run, c)
    assert _rows(got.run) == _rows(expected.run) == [("u", "a", 3.0), ("u", "b", 2.0)]
    assert _counts(got) == _counts(expected) == (2, 0, 1, 2)
