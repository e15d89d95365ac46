"""receval.metric(..., item_vectors=...): batches of user vectors == evaluate_embeddings."""

from __future__ import annotations

import io
import itertools
import pickle
import re
import textwrap

import numpy as np
import pytest

import receval as rv
from receval import InputValidationError, InvalidParameterError
from receval.exceptions import UnmatchedIdsWarning
from receval.ranking.open_users import OpenUsers

from .test_embeddings import _data


def _batches(users, user_ids, qrels, cuts):
    """(qrels of the batch's users, their vectors, their ids) of consecutive row ranges."""
    edges = [0, *cuts, len(users)]
    for a, b in itertools.pairwise(edges):
        ids = user_ids[a:b]
        yield {u: qrels[u] for u in ids if u in qrels}, users[a:b], ids


@pytest.mark.parametrize("whole_groups", [False, True])
@pytest.mark.parametrize("score", ["dot", "cosine"])
def test_merged_batches_equal_evaluate_embeddings(whole_groups, score):
    users, items, user_ids, item_ids, qrels, train = _data()
    users[users.sum(axis=1) == 0, 0] = 1  # no zero vector (cosine)
    opts = dict(item_ids=item_ids, exclude=train, metric=score)
    for text in ["ndcg@10", "recall@5", "map@7"]:
        want = rv.evaluate_embeddings(qrels, users, items, [text], user_ids=user_ids, **opts)
        parts = list(_batches(users, user_ids, qrels, [5, 6, 15]))
        first = rv.metric(text, item_vectors=items, whole_groups=whole_groups, **opts)
        second = rv.metric(text, item_vectors=items, whole_groups=whole_groups, **opts)
        for q, vectors, ids in parts[:2]:
            first.update(q, vectors, user_ids=ids)
        for q, vectors, ids in parts[2:]:
            second.update(q, vectors, user_ids=ids)
        # "nobody" has judgments and no vector: a missing user
        second.update({"nobody": qrels["nobody"]}, None)
        assert first.merge(second).compute() == want.mean[text]


@pytest.mark.parametrize("whole_groups", [False, True])
def test_exclude_pairs_without_a_vector_are_counted_as_evaluate_embeddings_counts_them(
    whole_groups,
):
    # they masked nothing and were neither counted nor warned of
    users, items, user_ids, item_ids, qrels, train = _data()
    u3 = str(user_ids[3])
    train = {**train, "ghost": [int(item_ids[0]), 5], u3: [*train[u3], 1, 2]}  # 4 pairs
    opts = dict(item_ids=item_ids, exclude=train)
    message = (
        "4 of the 96 distinct (user, item) pairs of exclude mask nothing, since their user "
        "or item has no vector (users without one: 2 pairs{}; items without one: 2 pairs, "
        "e.g. [1, 2]); check their ids against user_ids and item_ids (type, prefix) if they "
        "should match."
    )
    # the accumulator names the users never given as the memory path does (it named
    # none: no update knew which users the others gave)
    memory = streaming = message.format(", e.g. ['ghost']")
    with pytest.warns(UnmatchedIdsWarning, match="evaluate_embeddings: " + re.escape(memory)):
        want = rv.evaluate_embeddings(qrels, users, items, ["ndcg@10"], user_ids=user_ids,
                                      **opts)  # fmt: skip
    assert want.n_exclude_unmatched == 4
    parts = list(_batches(users, user_ids, qrels, [5, 6, 15]))
    first = rv.metric("ndcg@10", item_vectors=items, whole_groups=whole_groups, **opts)
    second = rv.metric("ndcg@10", item_vectors=items, whole_groups=whole_groups, **opts)
    for q, vectors, ids in parts[:2]:
        first.update(q, vectors, user_ids=ids)
    for q, vectors, ids in parts[2:]:
        second.update(q, vectors, user_ids=ids)
    second.update({"nobody": qrels["nobody"]}, None)  # judged, without a vector
    # so far the 17 users of the other accumulator have no vector here: 68 more pairs
    assert first.skipped() == {"n_users_missing": 0, "n_exclude_unmatched": 4 + 4 * 17}
    merged = first.merge(second)
    with pytest.warns(UnmatchedIdsWarning) as caught:
        assert merged.compute() == want.mean["ndcg@10"]
    assert [str(w.message) for w in caught] == ["receval.metric('ndcg@10'): " + streaming]
    assert merged.skipped() == {
        "n_users_missing": want.n_users_missing,
        "n_exclude_unmatched": want.n_exclude_unmatched,
    }
    resumed = rv.metric("ndcg@10", item_vectors=items, whole_groups=whole_groups, **opts)
    state = merged.state_dict()
    assert resumed.load_state_dict(state).skipped() == merged.skipped()
    with pytest.warns(UnmatchedIdsWarning) as caught:  # the examples kept too
        resumed.compute()
    assert [str(w.message) for w in caught] == ["receval.metric('ndcg@10'): " + streaming]
    assert pickle.loads(pickle.dumps(merged)).skipped() == merged.skipped()
    if not whole_groups:  # the rows held, and the counts as plain integers
        state["state"]["state"]["exclude_unmatched"]["n_items_absent"] = -1
        with pytest.raises(InputValidationError, match="exclude_unmatched: expected the counts"):
            resumed.load_state_dict(state)
        state = merged.state_dict()
        state["state"]["state"]["exclude_unmatched"]["items_absent"] = list(range(7))
        with pytest.raises(InputValidationError, match=r"at most 6 ints or strings each"):
            resumed.load_state_dict(state)
    assert rv.metric("ndcg@10", item_vectors=items, **opts).skipped() == {
        "n_users_missing": 0,
        "n_exclude_unmatched": 96,  # no user given yet
    }
    assert rv.metric("ndcg@10", item_vectors=items).skipped() == {"n_users_missing": 0}


@pytest.mark.parametrize("whole_groups", [False, True])
def test_qrels_users_without_a_vector_are_counted_as_evaluate_embeddings_counts_them(
    whole_groups, monkeypatch
):
    # skipped() left them out, which evaluate_embeddings reports as n_users_missing,
    # counted from the users held (the rows retrieved are not joined into a run)
    def refused(*args, **kwargs):
        raise AssertionError("skipped() joined the rows held")

    users, items, user_ids, item_ids, qrels, _ = _data()
    del qrels[str(user_ids[2])]  # a user with a vector and no judgment: not missing
    qrels["ghost"] = {int(item_ids[0]): 1}  # judged, never given a vector
    want = rv.evaluate_embeddings(qrels, users, items, ["ndcg@10"], user_ids=user_ids,
                                  item_ids=item_ids)  # fmt: skip
    assert want.n_users_missing == 2  # nobody and ghost
    parts = list(_batches(users, user_ids, qrels, [5, 6, 15]))
    first = rv.metric("ndcg@10", item_vectors=items, item_ids=item_ids, whole_groups=whole_groups)
    second = rv.metric("ndcg@10", item_vectors=items, item_ids=item_ids, whole_groups=whole_groups)
    for q, vectors, ids in parts[:2]:
        first.update(q, vectors, user_ids=ids)
    for q, vectors, ids in parts[2:]:
        second.update(q, vectors, user_ids=ids)
    second.update({u: qrels[u] for u in ("nobody", "ghost")}, None)
    with monkeypatch.context() as patch:
        patch.setattr(OpenUsers, "joined", refused)
        assert second.skipped() == {"n_users_missing": 2}
    merged = first.merge(second)
    assert merged.compute() == want.mean["ndcg@10"]
    monkeypatch.setattr(OpenUsers, "joined", refused)
    assert merged.skipped() == {"n_users_missing": want.n_users_missing}


@pytest.mark.parametrize("whole_groups", [False, True])
def test_users_never_given_are_named_as_evaluate_embeddings_names_them(whole_groups):
    # users of exclude given in no update: the six smallest named, whatever the split,
    # the order of the merges, a checkpoint or a pickle; the accumulator named none
    users, items, user_ids, item_ids, qrels, train = _data()
    given = [0, 2, 4, 6, 8, 10, 12, 14, 16, 18]  # u1, u11, u13, ..., u20 never given
    opts = dict(item_ids=item_ids, exclude=train)
    with pytest.warns(UnmatchedIdsWarning) as caught:
        rv.evaluate_embeddings(qrels, users[given], items, ["ndcg@10"],
                               user_ids=user_ids[given], **opts)  # fmt: skip
    (memory,) = [str(w.message).split(": ", 1)[1] for w in caught]
    assert "(users without one: 52 pairs, e.g. ['u1', 'u11', 'u13', 'u15', 'u17', ...])" \
        in memory  # fmt: skip
    accs = [rv.metric("ndcg@10", item_vectors=items, whole_groups=whole_groups, **opts)
            for _ in range(3)]  # fmt: skip
    for n, row in enumerate(given):  # one user an update, dealt to three accumulators
        u = str(user_ids[row])
        accs[n % 3].update({u: qrels[u]}, users[row : row + 1], user_ids=[u])
    merged = accs[2].merge(accs[0]).merge(accs[1])
    resumed = rv.metric("ndcg@10", item_vectors=items, whole_groups=whole_groups, **opts)
    resumed.load_state_dict(merged.state_dict())
    for acc in (merged, resumed, pickle.loads(pickle.dumps(merged))):
        with pytest.warns(UnmatchedIdsWarning) as caught:
            acc.compute()
        assert [str(w.message) for w in caught] == ["receval.metric('ndcg@10'): " + memory]


@pytest.mark.parametrize(("ties", "want"), [(None, 1.0), ("average", 0.75), ("input", 0.5)])
def test_a_tie_across_the_cut_is_ordered_by_ties_as_in_evaluate_embeddings(ties, want):
    # items 0-3 tie for user 0 across the cut at 2; its relevant item is 3
    users = np.array([[1.0], [-1.0]])
    items = np.array([[1.0], [1.0], [1.0], [1.0], [0.5]])
    qrels = {0: {3: 1}, 1: {4: 1}}
    opts = {} if ties is None else {"ties": ties}
    acc = rv.metric("success@2", item_vectors=items, **opts)
    acc.update({0: qrels[0]}, users[:1], user_ids=[0])
    acc.update({1: qrels[1]}, users[1:], user_ids=[1])
    assert acc.compute() == want
    many = rv.evaluate_embeddings(qrels, users, items, ["success@2", "recall@4"], **opts)
    assert many.mean["success@2"] == want


def test_a_judged_user_in_another_update_and_k_for_a_whole_list_metric():
    users, items, user_ids, item_ids, qrels, train = _data(1)
    want = rv.evaluate_embeddings(qrels, users, items, ["mrr"], k=12, user_ids=user_ids,
                                  item_ids=item_ids, exclude=train)  # fmt: skip
    acc = rv.metric("mrr", item_vectors=items, item_ids=item_ids, exclude=train, k=12)
    acc.update({}, users[:10], user_ids=user_ids[:10])  # their judgments come later
    acc.update(qrels, users[10:], user_ids=user_ids[10:])
    assert acc.compute() == want.mean["mrr"]
    with pytest.raises(InvalidParameterError, match=r"receval.metric\('mrr'\): the metrics"):
        rv.metric("mrr", item_vectors=items)


def test_merge_needs_the_same_item_matrix_depth_and_score():
    _, items, *_ = _data()
    acc = rv.metric("ndcg@10", item_vectors=items)
    assert (
        acc.params["items"]
        == rv.metric("ndcg@10", item_vectors=items.astype(np.float64)).params["items"]
    )
    other = items.copy()
    other[3, 1] += 1
    for different in [
        rv.metric("ndcg@10", item_vectors=other),
        rv.metric("ndcg@10", item_vectors=items, k=11),
        rv.metric("ndcg@10", item_vectors=items, metric="cosine"),
        rv.metric("ndcg@10", item_vectors=items, item_ids=np.arange(len(items)) + 1),
        rv.metric("ndcg@10"),
    ]:
        with pytest.raises(InvalidParameterError, match="cannot merge"):
            acc.merge(different)


def test_checkpoints_and_pickles_hold_a_digest_and_the_ids_not_the_vectors():
    torch = pytest.importorskip("torch")
    users, items, user_ids, item_ids, qrels, train = _data()
    opts = dict(item_ids=item_ids, exclude=train)
    acc = rv.metric("ndcg@10", item_vectors=items, **opts)
    acc.update(qrels, users[:9], user_ids=user_ids[:9])
    state = acc.state_dict()
    held = state["options"]["items"]["state"]
    assert sorted(held) == ["digest", "dim", "func", "ids", "k", "metric", "n_items"]
    buffer = io.BytesIO()
    torch.save(state, buffer)
    buffer.seek(0)
    resumed = rv.metric("ndcg@10", item_vectors=items, **opts)
    resumed.load_state_dict(torch.load(buffer, weights_only=True))
    resumed.update({}, users[9:], user_ids=user_ids[9:])
    want = rv.evaluate_embeddings(qrels, users, items, ["ndcg@10"], user_ids=user_ids, **opts)
    assert resumed.compute() == want.mean["ndcg@10"]
    with pytest.raises(InputValidationError, match=r"load it into receval\.metric of the same"):
        rv.metric("ndcg@10", item_vectors=items[::-1], **opts).load_state_dict(state)
    # a pickle carries the digest: it merges, but cannot retrieve
    sent = pickle.loads(pickle.dumps(acc))
    assert len(pickle.dumps(acc)) < items.nbytes + 4096 or items.nbytes < 4096
    rest = rv.metric("ndcg@10", item_vectors=items, **opts)
    rest.update({}, users[9:], user_ids=user_ids[9:])
    assert rest.merge(sent).compute() == want.mean["ndcg@10"]
    with pytest.raises(InvalidParameterError, match="loaded from a pickle"):
        sent.update(qrels, users[:2], user_ids=user_ids[:2])


def test_a_loaded_item_matrix_is_checked_for_its_ids():
    from receval.retrieval.streaming import ItemMatrix

    _, items, *_ = _data()
    state = rv.metric("ndcg@10", item_vectors=items).params["items"].__getstate__()
    assert state["ids"].tolist() == list(range(40))
    fields = r"expected the fields \['digest', 'dim', 'func', 'ids', 'k', 'metric', 'n_items'\]"
    ids = r"ids must be a 1-d array of the 40 item ids \(integers, floats or strings\), got shape "
    for bad, message in [
        ({k: x for k, x in state.items() if k != "ids"}, fields),  # saved without them
        ({**state, "ids": state["ids"][:3]}, ids + r"\(3,\) and dtype int64"),
        ({**state, "ids": list(range(40))}, ids + r"\(40,\) and dtype list"),
        ({**state, "ids": state["ids"].astype(object)}, ids + r"\(40,\) and dtype object"),
    ]:
        with pytest.raises(InputValidationError, match="state is invalid: ItemMatrix: " + message):
            ItemMatrix.__new__(ItemMatrix).__setstate__(bad)


def test_bad_uses_name_the_option():
    users, items, *_ = _data()
    acc = rv.metric("ndcg@10", item_vectors=items)
    with pytest.raises(InvalidParameterError, match="needs user_ids"):
        acc.update({}, users)
    with pytest.raises(InvalidParameterError, match="takes user_ids only with user vectors"):
        rv.metric("ndcg@10").update({}, {}, user_ids=[1])
    for option in [{"item_ids": [1]}, {"k": 3}, {"metric": "cosine"}]:
        with pytest.raises(InvalidParameterError, match="pass item_vectors= too"):
            rv.metric("ndcg@10", **option)
    with pytest.raises(InvalidParameterError, match="candidates are not taken"):
        rv.metric("ndcg@10", item_vectors=items, candidates={0: [1]})
    with pytest.raises(InvalidParameterError, match="'metric' parameter"):
        rv.metric("ndcg@10", item_vectors=items, metric="l2")
    with pytest.raises(InputValidationError, match="same number of columns"):
        acc.update({}, users[:, :2], user_ids=np.arange(len(users)))


_RANK = textwrap.dedent(
    """
    import json, pickle, sys
    import numpy as np
    import torch.distributed as dist
    import receval
    from receval.exceptions import InputValidationError, InvalidParameterError

    rank, port, out, path = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=2)
    d = np.load(path)
    users, items, qrels = d["users"], d["items"], (d["q_users"], d["q_items"])
    mine = np.arange(len(users)) % 2 == rank
    ids = np.flatnonzero(mine)
    q = receval.Qrels(*(a[np.isin(qrels[0], ids)] for a in qrels))
    acc = receval.metric("ndcg@10", item_vectors=items, exclude=(d["t_users"], d["t_items"]))
    acc.update(q, users[mine], user_ids=ids).sync()
    other = items.copy()
    other[0, 0] += rank  # rank 1's item matrix differs
    try:
        receval.metric("ndcg@10", item_vectors=other).update(q, users[mine], user_ids=ids).sync()
        mismatch = ""
    except InvalidParameterError as error:
        mismatch = str(error)
    # loaded from a pickle, then synced: the catalogue (ids no qrels item is) still checked
    foreign = [f"x{i}" for i in range(len(items))]
    loaded = receval.metric("ndcg@10", item_vectors=items, item_ids=foreign)
    loaded = pickle.loads(pickle.dumps(loaded.update(q, users[mine], user_ids=ids)))
    try:
        loaded.sync().compute()
        refusal = ""
    except InputValidationError as error:
        refusal = str(error)
    dist.destroy_process_group()
    json.dump({"value": acc.compute(), "mismatch": mismatch, "refusal": refusal}, open(out, "w"))
    """
)


def test_sync_across_ranks_needs_the_same_item_matrix_and_checks_its_catalogue(tmp_path):
    from ..engine.test_torch_distributed import run_two_ranks  # skips without torch

    rng = np.random.default_rng(3)
    users = rng.normal(size=(40, 6)).astype(np.float32)
    items = rng.normal(size=(90, 6)).astype(np.float32)
    q_users = np.repeat(np.arange(40), 2)
    q_items = (np.arange(80) * 7) % 90
    t_users, t_items = np.repeat(np.arange(40), 3), (np.arange(120) * 11) % 90
    path = tmp_path / "data.npz"
    np.savez(path, users=users, items=items, q_users=q_users, q_items=q_items,
             t_users=t_users, t_items=t_items)  # fmt: skip
    script = tmp_path / "rank.py"
    script.write_text(_RANK)
    got = run_two_ranks(script, tmp_path, str(path))
    want = rv.evaluate_embeddings(rv.Qrels(q_users, q_items), users, items, ["ndcg@10"],
                                  exclude=(t_users, t_items)).mean["ndcg@10"]  # fmt: skip
    assert got[0]["value"] == got[1]["value"] == want
    assert all("with items=ItemMatrix(digest=" in r["mismatch"] for r in got)
    refusal = "receval.metric('ndcg@10'): none of item_ids' 90 items is judged in the qrels"
    assert all(r["refusal"].startswith(refusal) for r in got)


def test_update_names_the_user_vectors_where_the_run_would_be():
    _, items, *_ = _data()
    acc = rv.metric("ndcg@10", item_vectors=items)
    with pytest.raises(InvalidParameterError) as raised:
        acc.update({})
    assert str(raised.value) == (
        "Accumulator.update of 'ndcg@10' takes (qrels, user_vectors, user_ids): missing a "
        "required argument: 'user_vectors'."
    )
    with pytest.raises(InvalidParameterError) as raised:  # without item_vectors: the run
        rv.metric("ndcg@10").update({})
    assert str(raised.value) == (
        "Accumulator.update of 'ndcg@10' takes (qrels, run): missing a required argument: 'run'."
    )


def test_a_tensor_of_user_vectors_is_named_when_refused():
    torch = pytest.importorskip("torch")
    users, items, *_ = _data()
    acc = rv.metric("ndcg@10", item_vectors=items)
    with pytest.raises(InputValidationError) as raised:
        acc.update({}, torch.tensor(users).to_sparse(), user_ids=np.arange(len(users)))
    assert str(raised.value) == (
        "Accumulator.update of 'ndcg@10': user_vectors is a tensor of layout torch.sparse_coo; "
        "pass its dense values (user_vectors.to_dense())."
    )


def test_update_takes_the_user_vectors_by_keyword():
    users, items, user_ids, item_ids, qrels, _ = _data()
    want = rv.metric("ndcg@10", item_vectors=items, item_ids=item_ids)
    want.update(qrels, users, user_ids=user_ids)
    acc = rv.metric("ndcg@10", item_vectors=items, item_ids=item_ids)
    acc.update(qrels, user_vectors=users, user_ids=user_ids)
    assert acc.compute() == want.compute()
    with pytest.raises(InvalidParameterError) as raised:
        acc.update(user_vectors=users, user_ids=user_ids)
    assert str(raised.value) == (
        "Accumulator.update of 'ndcg@10' takes (qrels, user_vectors, user_ids): missing a "
        "required argument: 'qrels'."
    )


def test_a_user_given_twice_names_the_user_vectors_where_the_run_would_be():
    # before: '1 user of qrels and run was given twice' for updates of user vectors
    items, ids = np.eye(3), ["a", "b", "c"]

    def acc():
        made = rv.metric("ndcg@2", item_vectors=items, item_ids=ids, whole_groups=True)
        return made.update({"u": {"a": 1}}, np.array([[1.0, 0.0, 0.0]]), user_ids=["u"])

    given = "1 user of qrels and user_vectors was given twice"
    for call, again in [
        ("update", lambda a: a.update({"u": {"b": 1}}, np.array([[0.0, 1.0, 0.0]]), ["u"])),
        ("merge", lambda a: a.merge(acc())),
    ]:
        with pytest.raises(InputValidationError) as raised:
            again(acc())
        assert str(raised.value).startswith(f"Accumulator.{call} of 'ndcg@2': {given}")
    loaded = pickle.loads(pickle.dumps(acc()))  # the names travel with the state
    with pytest.raises(InputValidationError, match=f"^Accumulator.merge of 'ndcg@2': {given}"):
        acc().merge(loaded)
    with pytest.raises(InputValidationError, match="1 user of qrels and run was given twice"):
        rv.metric("ndcg@2", whole_groups=True).update({"u": {"a": 1}}, {"u": {"a": 0.5}}).merge(
            rv.metric("ndcg@2", whole_groups=True).update({"u": {"a": 1}}, {"u": {"a": 0.5}})
        )


def test_a_user_whose_vector_is_given_twice_is_named_as_such():
    # it was named as a (user, item) pair in two updates of the run, with the fix "keep
    # the highest score per pair", which vectors have no part in
    items = np.eye(3)
    acc = rv.metric("recall@2", item_vectors=items, item_ids=["a", "b", "c"])
    acc.update({}, items[:1], user_ids=["u1"])
    acc.update({"u1": {"a": 1}}, items[:1], user_ids=["u1"])
    with pytest.raises(InputValidationError) as raised:
        acc.compute()
    assert str(raised.value) == (
        "receval.metric('recall@2'): user 'u1' was given twice in user_vectors (in two "
        "updates, or in two merged accumulators). Each user's vector must be given once; "
        "give each user in one update only, e.g. drop the ids already given from a batch's "
        "user_ids and its rows from user_vectors."
    )


@pytest.mark.parametrize("whole_groups", [False, True])
def test_an_update_without_judgments_is_taken_with_or_without_whole_groups(whole_groups):
    # with whole_groups=True, update({}, ...) raised "qrels: users is empty"; without
    # it, {} is a batch of no judgments, as it now is with it
    users, items, user_ids, item_ids, qrels, train = _data()
    opts = dict(item_ids=item_ids, exclude=train)
    want = rv.evaluate_embeddings(qrels, users, items, ["ndcg@10"], user_ids=user_ids, **opts)
    acc = rv.metric("ndcg@10", item_vectors=items, whole_groups=whole_groups, **opts)
    judged = np.array([u in qrels for u in user_ids])
    acc.update({}, users[~judged], user_ids=user_ids[~judged])
    acc.update(qrels, users[judged], user_ids=user_ids[judged])
    assert acc.compute() == pytest.approx(want.mean["ndcg@10"])


def test_user_ids_of_two_types_are_refused_as_evaluate_embeddings_refuses_them():
    # NumPy would spell [0, "b"] as ["0", "b"]: users matching the qrels' 0 and "0" alike
    users, items = np.eye(2, dtype=np.float32), np.eye(2, dtype=np.float32)
    acc = rv.metric("recall@1", item_vectors=items, exclude={0: [0]})
    message = (
        r"receval.metric\('recall@1'\): user_ids must hold ids of one type \(numbers or "
        r"strings, not both\)\. Got types \['int', 'str'\]"
    )
    with pytest.raises(InputValidationError, match=message):
        acc.update({0: {1: 1}}, users, user_ids=[0, "b"])
