"""What ``Accumulator.sync`` refuses when the ranks' states are not of one accumulator.

The ranks are simulated: ``gather_plain`` (the collective) returns this rank's part
beside the parts that other accumulators would send, so that each refusal is
checked on one process.
"""

from __future__ import annotations

from typing import Any

import pytest

import receval
from receval.engine import run
from receval.engine.group_ids import Seen
from receval.exceptions import InputValidationError, InvalidParameterError
from receval.metrics.retention.state import RetentionState
from tests.engine._messages import given_twice

QRELS = {"u1": {"a": 1}}
RUN = {"u1": {"a": 0.9, "b": 0.1}}


def _part(acc: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """What ``acc.sync()`` sends to the other ranks."""
    sent = []

    def stop(plain: Any, group: Any, func: str) -> list[Any]:
        sent.append(plain)
        raise KeyboardInterrupt

    monkeypatch.setattr(run, "gather_plain", stop)
    with pytest.raises(KeyboardInterrupt):
        acc.sync()
    return sent[0]


def _synced_with(acc: Any, others: list[Any], monkeypatch: pytest.MonkeyPatch) -> Any:
    """``acc.sync()`` as rank 0 of ranks that hold ``others`` (ranks 1, 2, ...)."""
    parts = [_part(other, monkeypatch) for other in others]
    monkeypatch.setattr(run, "gather_plain", lambda plain, group, func: [plain, *parts])
    return acc.sync()


@pytest.mark.parametrize(
    ("mine", "theirs", "expected"),
    [
        (
            lambda: receval.metric("ndcg@10"),
            lambda: receval.metric("ndcg@5"),
            "rank 1 holds 'ndcg@5', this rank 'ndcg@10';",
        ),
        (
            lambda: receval.metric("ndcg@10"),
            lambda: receval.metric("ndcg@10", gain="exponential"),
            "rank 1 holds 'ndcg@10' with gain='exponential', this rank 'ndcg@10' with no gain;",
        ),
        (
            lambda: receval.metric("ndcg@10"),
            lambda: receval.metric("ndcg@10", whole_groups=True),
            "rank 1 holds 'ndcg@10' with whole_groups=True, this rank 'ndcg@10' with "
            "whole_groups=False;",
        ),
        (
            lambda: receval.metric("auc"),
            lambda: receval.metric("roc_auc", bins=10),
            "rank 1 holds 'roc_auc' with bins=10, low=0.0, high=1.0, this rank 'auc' with "
            "bins=None, no low, no high;",
        ),
        (
            lambda: receval.metric("roc_auc"),
            lambda: receval.metric("log_loss"),
            "rank 1 holds 'log_loss', this rank 'roc_auc';",
        ),
    ],
)
def test_ranks_of_other_metrics_or_options_are_named_as_made(
    mine: Any, theirs: Any, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # before: 'rank 1 holds 'ranking' with options {'metric': 'ndcg@5', 'conventions':
    # {}, 'kind': 'users', ...}': the definition the ranking metrics share, and every
    # option, internal ones among them
    acc = mine()
    with pytest.raises(InvalidParameterError) as raised:
        _synced_with(acc, [theirs()], monkeypatch)
    message = str(raised.value)
    assert message == (
        f"Accumulator.sync of {acc.name!r}: {expected} make the accumulator alike on every "
        f"rank (receval.metric of the same metric and options) and sync them in the same "
        f"order."
    )
    assert "ranking" not in message
    assert acc.n_updates == 0  # left as it was


def test_a_rank_whose_state_is_of_another_kind_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    # the same metric and options, a state of another class (another version of receval
    # on that rank): before, 'Accumulator: a loaded state is invalid: rank 1's state
    # must be a OpenUsers. Got RankingState RankingState(n_users=1, ...); unpickle only
    # accumulators this code made'
    acc = receval.metric("ndcg@10").update(QRELS, RUN)
    other = _part(receval.metric("ndcg@10", whole_groups=True).update(QRELS, RUN), monkeypatch)
    other["options"] = _part(acc, monkeypatch)["options"]
    monkeypatch.setattr(run, "gather_plain", lambda plain, group, func: [plain, other])
    with pytest.raises(InvalidParameterError) as raised:
        acc.sync()
    assert str(raised.value) == (
        "Accumulator.sync of 'ndcg@10': rank 1 holds a state of another kind (RankingState, "
        "this rank OpenUsers) for the same metric and options; run one version of receval "
        "on every rank."
    )
    assert acc.compute() == 1.0


def test_a_state_that_breaks_its_invariants_still_names_its_field(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    acc = receval.metric("log_loss").update([1, 0], [0.8, 0.3])
    other = _part(receval.metric("log_loss").update([1, 0], [0.8, 0.3]), monkeypatch)
    other["state"]["state"]["n_rows"] = -1
    monkeypatch.setattr(run, "gather_plain", lambda plain, group, func: [plain, other])
    with pytest.raises(InputValidationError, match=r"rank 1's state\.n_rows must be a count"):
        acc.sync()


def _given_twice(func: str, what: str, argument: str, example: str) -> str:
    """The message of one group given twice, without its last stop (more may follow)."""
    return given_twice(func, 1, what, argument, example)[:-1]


WHOLE = [
    (
        lambda: receval.metric("gauc", whole_groups=True),
        lambda acc: acc.update([1, 0], [0.9, 0.2], groups=["g", "g"]),
        ("groups", "groups", "['g']"),
    ),
    (
        lambda: receval.metric("ndcg@10", whole_groups=True),
        lambda acc: acc.update(QRELS, RUN),
        ("users", "qrels and run", "['u1']"),
    ),
]


@pytest.mark.parametrize(("make", "add", "named"), WHOLE)
def test_a_group_on_two_ranks_is_refused_by_the_sync(
    make: Any, add: Any, named: tuple[str, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    acc = add(make())
    with pytest.raises(InputValidationError) as raised:
        _synced_with(acc, [add(make())], monkeypatch)
    assert str(raised.value).startswith(_given_twice(f"Accumulator.sync of {acc.name!r}", *named))
    assert acc.n_updates == 1  # left as it was


@pytest.mark.parametrize(("make", "add", "named"), WHOLE)
def test_a_group_given_again_after_a_sync_is_refused_where_the_states_join(
    make: Any, add: Any, named: tuple[str, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # before: a synced accumulator merged another's rows of a synced group silently (found
    # at compute, named 'Accumulator.state of'), and compute named the state, not itself
    monkeypatch.setattr(run, "gather_plain", lambda plain, group, func: [plain])
    synced = add(make()).sync()
    with pytest.raises(InputValidationError) as raised:
        synced.merge(add(make()))
    assert str(raised.value).startswith(
        _given_twice(f"Accumulator.merge of {synced.name!r}", *named)
    )
    assert synced.n_updates == 1 and synced.compute() == 1.0  # left as it was
    again = add(synced)  # (the update joins the rows since the sync only)
    for call, refused in [
        ("merge", lambda: make().merge(again)),
        ("sync", again.sync),
        ("compute", again.compute),
    ]:
        with pytest.raises(InputValidationError) as raised:
            refused()
        assert str(raised.value).startswith(
            _given_twice(f"Accumulator.{call} of {again.name!r}", *named)
        )


@pytest.mark.parametrize(("make", "add", "named"), WHOLE)
def test_rows_given_again_after_a_sync_stay_until_reset_and_the_error_says_so(
    make: Any, add: Any, named: tuple[str, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the update takes the rows of a synced group; every later call refuses them, and
    # the message said neither that they stay nor how to be rid of them
    monkeypatch.setattr(run, "gather_plain", lambda plain, group, func: [plain])
    again = add(add(make()).sync())
    kept = (
        ". The accumulator keeps the rows given since its last sync, so it refuses them "
        "again at every compute, state, merge and sync: reset() it (which forgets the "
        "synced rows too) and give its batches again."
    )
    for call, refused in [("compute", again.compute), ("sync", again.sync)]:
        for _ in range(2):  # the rows stay: refused again
            with pytest.raises(InputValidationError) as raised:
                refused()
            message = str(raised.value)
            assert message.startswith(_given_twice(f"Accumulator.{call} of {again.name!r}", *named))
            assert message.endswith(kept)
    with pytest.raises(InputValidationError) as raised:
        make().merge(again)
    assert str(raised.value).endswith(kept)
    assert add(again.reset()).compute() == 1.0


GAUC_SPLIT = (
    "; or leave out whole_groups=True: receval.metric('gauc') takes a group's rows in any "
    "number of updates and accumulators."
)
EVERY_WHOLE = {  # a maker, an update of one user (group), the named ids, the message's end
    "gauc": (
        lambda: receval.metric("gauc", whole_groups=True),
        lambda acc, u: acc.update([1, 0], [0.9, 0.2], groups=[u, u]),
        ("groups", "groups"),
        GAUC_SPLIT,
    ),
    "ndcg": (
        lambda: receval.metric("ndcg@10", whole_groups=True),
        lambda acc, u: acc.update({u: {"a": 1}}, {u: {"a": 0.9}}),
        ("users", "qrels and run"),
        ".",
    ),
    "retention": (
        lambda: receval.metric("retention", days=1),
        lambda acc, u: acc.update({"user": [u], "time": ["2024-01-01"]}),
        ("users", "events"),
        ".",
    ),
    "pop_rsp": (
        lambda: receval.metric("pop_rsp", train=(["u", "w"], ["a", "b"]), k=2),
        lambda acc, u: acc.update({u: {"a": 0.9}}),
        ("users", "run"),
        ".",
    ),
    "shannon": (
        lambda: receval.metric("shannon_entropy@2"),
        lambda acc, u: acc.update({u: {"a": 0.9}}),
        ("users", "run"),
        ".",
    ),
}


@pytest.mark.parametrize(
    ("make", "add", "named", "end"), list(EVERY_WHOLE.values()), ids=list(EVERY_WHOLE)
)
def test_a_state_of_whole_groups_checks_a_merge_without_joining(
    make: Any, add: Any, named: tuple[str, str], end: str
) -> None:
    mine, again, other = (add(make(), u).state for u in ("u", "u", "w"))
    assert mine.seen_as == named  # the one place merge and check_disjoint read the names
    with pytest.raises(InputValidationError) as merged:
        mine.merge(again, "f")
    with pytest.raises(InputValidationError) as checked:
        mine.check_disjoint(again, "f")
    message = given_twice("f", 1, *named, "['u']")[:-1] + end
    assert str(checked.value) == str(merged.value) == message
    assert mine.check_disjoint(other, "f") is None
    mine.check_disjoint(other, "f")  # nor did the first check add the other's users


@pytest.mark.parametrize(
    ("make", "add", "named", "end"), list(EVERY_WHOLE.values()), ids=list(EVERY_WHOLE)
)
def test_a_merge_after_a_sync_checks_the_synced_ids_without_joining_the_synced_state(
    make: Any, add: Any, named: tuple[str, str], end: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # before: the merge joined the synced state with the new rows (copying every id and
    # row held) only to see whether a group was in both, and threw the join away
    monkeypatch.setattr(run, "gather_plain", lambda plain, group, func: [plain])
    synced = add(make(), "u").sync()
    joins: list[set[Any]] = []
    for name in ("merge", "absorb"):
        join = getattr(Seen, name)

        def spy(self: Seen, other: Seen, *args: Any, join: Any = join) -> Seen:
            joins.append(self.ids | other.ids)
            result: Seen = join(self, other, *args)
            return result

        monkeypatch.setattr(Seen, name, spy)
    synced.merge(add(make(), "w"))
    assert joins and all("u" not in ids for ids in joins)  # the synced users joined nothing
    with pytest.raises(InputValidationError) as raised:
        synced.merge(add(make(), "u"))
    assert str(raised.value) == (
        given_twice(f"Accumulator.merge of {synced.name!r}", 1, *named, "['u']")[:-1] + end
    )
    assert synced.n_updates == 2  # left as it was
    monkeypatch.undo()
    state = synced.state  # retention names its users' ids ``users``, the others ``seen``
    held = state.users if isinstance(state, RetentionState) else state.seen
    assert held.ids == {"u", "w"}  # the synced user and the merged one
