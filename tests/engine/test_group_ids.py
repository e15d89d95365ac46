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
from tests.engine._messages import given_twice


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
            a.merge(b, "f", "groups", "groups")
    else:
        merged = a.merge(b, "f", "groups", "groups")
        assert merged.ints.tolist() == sorted(ids_a | ids_b)
        assert a.ints.tolist() == sorted(ids_a)  # merge leaves both as they were
        a.absorb(b, "f", "groups", "groups")
        assert pickle.loads(pickle.dumps(a)).ints.tolist() == sorted(ids_a | ids_b)


def test_a_merge_leaves_both_states_as_they_were():
    # merge absorbs into a copy: the integer runs and the other ids of neither change
    a, b = Seen(), Seen()
    for held, batch in [(a, [3, 1]), (a, [5]), (a, ["x", 2.5]), (b, [7, 4]), (b, ["y"])]:
        held.add(np.array(batch, dtype=object if "x" in batch else None), "f", "groups")
    runs_a, runs_b = [r.copy() for r in a._runs], [r.copy() for r in b._runs]
    merged = a.merge(b, "f", "groups", "groups")
    assert merged.ints.tolist() == [1, 3, 4, 5, 7]
    assert merged.ids == {"x", 2.5, "y"}
    assert a.ids == {"x", 2.5} and b.ids == {"y"}
    assert len(a._runs) == len(runs_a) and all(map(np.array_equal, a._runs, runs_a))
    assert len(b._runs) == len(runs_b) and all(map(np.array_equal, b._runs, runs_b))
    with pytest.raises(InputValidationError, match="given twice"):
        a.merge(merged, "f", "groups", "groups")
    assert a.ids == {"x", 2.5} and a.ints.tolist() == [1, 3, 5]


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


def _gauc_given_twice(func: str, n: int, examples: str) -> str:
    """The message of a gauc made with ``whole_groups=True``, with its fix."""
    return given_twice(func, n, "groups", "groups", examples)[:-1] + (
        "; or leave out whole_groups=True: receval.metric('gauc') takes a group's rows in any "
        "number of updates and accumulators."
    )


QRELS = {"u": {"a": 1}, "v": {"b": 1}}
RUN = {"u": {"a": 0.9, "b": 0.1}, "v": {"a": 0.8, "b": 0.2}}
EVENTS = {"user": ["a", "a", "b"], "time": ["2024-01-01", "2024-01-02", "2024-01-01"]}


def _gauc(**options: object) -> rv.Accumulator:
    return rv.metric("gauc", whole_groups=True, **options).update(
        [1, 0, 1, 0], [0.9, 0.2, 0.3, 0.6], groups=[1, 1, 2, 2]
    )


@pytest.mark.parametrize(
    ("make", "again", "message"),
    [
        (_gauc, lambda acc: acc.update([1, 0], [0.5, 0.4], groups=[2, 2]),
         _gauc_given_twice("Accumulator.update of 'gauc'", 1, "[2]")),
        (lambda: _gauc(window=2), lambda acc: acc.update([1, 0], [0.5, 0.4], groups=[2, 2]),
         _gauc_given_twice("Accumulator.update of 'gauc'", 1, "[2]")),
        (_gauc, lambda acc: acc.merge(_gauc()),
         _gauc_given_twice("Accumulator.merge of 'gauc'", 2, "[1, 2]")),
        (lambda: rv.metric("ndcg@3", whole_groups=True).update(QRELS, RUN),
         lambda acc: acc.update({"v": {"a": 1}}, {"v": {"a": 0.5}}),
         given_twice("Accumulator.update of 'ndcg@3'", 1, "users", "qrels and run", "['v']")),
        (lambda: rv.metric("ndcg@3", whole_groups=True).update(QRELS, RUN),
         lambda acc: acc.merge(rv.metric("ndcg@3", whole_groups=True).update(QRELS, RUN)),
         given_twice("Accumulator.merge of 'ndcg@3'", 2, "users", "qrels and run",
                      "['u', 'v']")),
        (lambda: rv.metric("retention", days=1).update(EVENTS),
         lambda acc: acc.update({"user": ["a"], "time": ["2024-01-04"]}),
         given_twice("Accumulator.update of 'retention'", 1, "users", "events", "['a']")),
        (lambda: rv.metric("retention", days=1).update(EVENTS),
         lambda acc: acc.merge(rv.metric("retention", days=1).update(EVENTS)),
         given_twice("Accumulator.merge of 'retention'", 2, "users", "events", "['a', 'b']")),
        (lambda: rv.metric("shannon_entropy@2").update(RUN),
         lambda acc: acc.update({"v": {"b": 0.3}}),
         given_twice("Accumulator.update of 'shannon_entropy@2'", 1, "users", "run", "['v']")),
        (lambda: rv.metric("shannon_entropy@2").update(RUN),
         lambda acc: acc.merge(rv.metric("shannon_entropy@2").update({"u": {"a": 1.0}})),
         given_twice("Accumulator.merge of 'shannon_entropy@2'", 1, "users", "run", "['u']")),
    ],
)  # fmt: skip
def test_a_group_given_twice_names_the_accumulator_and_the_argument(make, again, message):
    acc = make()
    with pytest.raises(InputValidationError) as raised:
        again(acc)
    assert str(raised.value) == message


@pytest.mark.parametrize(
    "batches",
    [
        [({}, {"x": RUN["u"]}), ({"x": {"a": 1}}, {})],  # a batch of run users alone
        [({"u": {"a": 1}}, {"u": RUN["u"], "x": RUN["u"]}), ({"x": {"a": 1}}, {})],
    ],
)
def test_a_user_only_in_the_run_of_an_update_is_given_in_it(batches):
    # x's list was counted as a run-only user's and x's qrels as a missing user's:
    # compute() gave 0.5 where evaluate gives 1.0, as if x were two users
    acc = rv.metric("ndcg@3", whole_groups=True).update({"v": {"b": 1}}, {"v": RUN["u"]})
    acc.update(*batches[0])
    with pytest.raises(InputValidationError) as raised:
        acc.update(*batches[1])
    assert str(raised.value) == given_twice(
        "Accumulator.update of 'ndcg@3'", 1, "users", "qrels and run", "['x']"
    )


@pytest.mark.parametrize("saved", ["pkl", "pt"])
def test_states_saved_before_the_error_named_its_caller_load(saved):
    # saved by the code before (data/README.md): the state's format is unchanged
    import pathlib

    data = pathlib.Path(__file__).parent / "data"
    if saved == "pkl":
        gauc = pickle.loads((data / "gauc_whole_groups.pkl").read_bytes())
        ndcg = pickle.loads((data / "ndcg_whole_groups.pkl").read_bytes())
    else:
        torch = pytest.importorskip("torch")
        gauc = rv.metric("gauc", whole_groups=True).load_state_dict(
            torch.load(data / "gauc_whole_groups.pt", weights_only=True)
        )
        ndcg = rv.metric("ndcg@3", whole_groups=True).load_state_dict(
            torch.load(data / "ndcg_whole_groups.pt", weights_only=True)
        )
    with pytest.raises(InputValidationError) as raised:
        gauc.update([1, 0], [0.5, 0.4], groups=[2, 2])
    assert str(raised.value) == _gauc_given_twice("Accumulator.update of 'gauc'", 1, "[2]")
    gauc.update([1, 0], [0.5, 0.4], groups=[3, 3])
    y, s, g = [1, 0, 1, 0, 1, 0], [0.9, 0.2, 0.3, 0.6, 0.5, 0.4], [1, 1, 2, 2, 3, 3]
    assert gauc.compute() == rv.gauc_score(y, s, groups=g)
    with pytest.raises(InputValidationError) as raised:  # v: in RUN, only in the run
        ndcg.merge(rv.metric("ndcg@3", whole_groups=True).update({"u": {"a": 1}}, RUN))
    assert str(raised.value) == given_twice(
        "Accumulator.merge of 'ndcg@3'", 2, "users", "qrels and run", "['u', 'v']"
    )
    ndcg.update({"w": {"a": 1}}, {"w": {"a": 0.1, "b": 0.9}})
    qrels, run = {**QRELS, "w": {"a": 1}}, {**RUN, "w": {"a": 0.1, "b": 0.9}}
    assert ndcg.compute() == rv.evaluate(qrels, run, ["ndcg@3"]).mean["ndcg@3"]


def test_the_states_name_their_ids_by_seen_as_alone():
    # update spelt "users" (or "groups") beside the seen_as that merge and
    # check_disjoint read: a state named otherwise would say two words for one id
    import ast
    from pathlib import Path

    src = Path(rv.__file__).parent
    spelt = []
    for path in sorted(src.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add"
                and len(node.args) == 3
                and isinstance(node.args[2], ast.Constant)
            ):
                spelt.append(f"{path.relative_to(src)}:{node.lineno}")
    assert spelt == []
