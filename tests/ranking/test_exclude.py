"""evaluate(exclude=): seen items removed before the cut at k, on every backend."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import receval as rv
from receval import InputValidationError, InvalidParameterError, Qrels, Run, SeenItems
from receval.report import ranking_records

METRICS = [
    "ndcg@3", "recall@2", "p@2", "map", "mrr@3", "pooled_hit_ratio@2", "success@1", "r_precision",
]  # fmt: skip
UNMATCHED = dict(allow_unmatched=True)


def _masked_by_hand(rows, train):
    """The run's rows without the seen pairs, every user kept (an emptied list too),
    rows in input order."""
    seen = set(zip(*train, strict=True))
    lists = {}
    for u, i, s in rows:
        lists.setdefault(u, {})
        if (u, i) not in seen:
            lists[u][i] = s
    return Run.from_dict(lists), sum((u, i) in seen for u, i, _ in rows)


@st.composite
def protocols(draw):
    """Qrels, a run with tied scores and a training log over small id sets: users of
    the run or the qrels absent from the log, items of the log absent from the run."""
    judged = draw(
        st.lists(
            st.tuples(st.integers(0, 5), st.integers(0, 9), st.integers(0, 2)),
            min_size=1,
            max_size=25,
        )
    )
    judged = {(u, i): g for u, i, g in judged}
    rows = draw(
        st.lists(
            st.tuples(st.integers(0, 6), st.integers(0, 11), st.sampled_from([0.1, 0.5, 0.9])),
            min_size=1,
            max_size=40,
        )
    )
    rows = list({(u, i): (u, i, s) for u, i, s in rows}.values())
    train = draw(
        st.lists(st.tuples(st.integers(0, 7), st.integers(0, 13)), min_size=1, max_size=30)
    )
    qrels = Qrels([u for u, _ in judged], [i for _, i in judged], list(judged.values()))
    return qrels, rows, tuple(zip(*train, strict=True))


def _evaluate(qrels, run, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rv.evaluate(qrels, run, METRICS, **UNMATCHED, **kwargs)


@given(protocols(), st.sampled_from(["trec", "average", "input"]))
def test_masking_equals_removing_the_items_by_hand(protocol, ties):
    qrels, rows, train = protocol
    lists = {}
    for u, i, s in rows:
        lists.setdefault(u, {})[i] = s
    run = Run.from_dict(lists)
    assume(any((u, i) not in set(zip(*train, strict=True)) for u, i, _ in rows))
    by_hand, n_removed = _masked_by_hand(rows, train)
    got = _evaluate(qrels, run, exclude=train, ties=ties)
    want = _evaluate(qrels, by_hand, ties=ties)
    assert got.mean == pytest.approx(want.mean, nan_ok=True, rel=1e-12, abs=0)
    for m in METRICS:
        np.testing.assert_array_equal(got.values[m], want.values[m])
    assert got.n_users_missing == want.n_users_missing
    assert got.masking.n_rows_removed == n_removed


@given(protocols())
def test_counts_are_exact(protocol):
    qrels, rows, train = protocol
    lists = {}
    for u, i, s in rows:
        lists.setdefault(u, {})[i] = s
    seen = set(zip(*train, strict=True))
    report = _evaluate(qrels, Run.from_dict(lists), exclude=train)
    m = report.masking
    removed = {u: sum((u, i) in seen for i in items) for u, items in lists.items()}
    assert m.repeats is False
    assert m.n_rows_removed == sum(removed.values())
    assert m.n_users_masked == sum(n > 0 for n in removed.values())
    assert m.n_users_without_history == len(set(lists) - set(train[0]))
    q = qrels.to_dict()
    assert m.n_qrels_seen == sum((u, i) in seen for u, items in q.items() for i in items)
    assert report.n_seen_removed.tolist() == [removed.get(u, 0) for u in report.users]


def test_a_seen_item_leaves_the_list_before_the_cut():
    qrels = {"u1": {"b": 1, "c": 1}}
    run = {"u1": {"a": 0.9, "b": 0.8, "c": 0.7}}
    plain = rv.evaluate(qrels, run, ["recall@2", "p@1"])
    masked = rv.evaluate(qrels, run, ["recall@2", "p@1"], exclude={"u1": ["a"]})
    assert plain.mean == {"recall@2": 0.5, "p@1": 0.0}
    assert masked.mean == {"recall@2": 1.0, "p@1": 1.0}
    assert plain.masking is None and plain.n_seen_removed is None


def test_a_list_of_seen_items_only_is_empty_not_missing():
    qrels = {"u1": {"b": 1}, "u2": {"c": 1}}
    run = {"u1": {"a": 0.9}, "u2": {"c": 0.5}}
    report = rv.evaluate(qrels, run, ["mrr"], exclude={"u1": ["a"]}, missing_users="skip")
    assert report.n_users_missing == 0 and report.n_users_skipped["mrr"] == 0
    assert report.mean["mrr"] == 0.5


def test_a_relevant_seen_item_is_kept_in_the_qrels_and_counted():
    qrels = {"u1": {"a": 1, "b": 1}}
    run = {"u1": {"a": 0.9, "b": 0.8}}
    report = rv.evaluate(qrels, run, ["recall@10"], exclude={"u1": ["a"]})
    assert report.mean["recall@10"] == 0.5  # a still counts in R, and cannot be retrieved
    assert report.masking.n_qrels_seen == 1
    assert "1 judged item seen in training" in repr(report)


def test_repeats_declared_masks_nothing_and_says_so():
    qrels = {"u1": {"a": 1}}
    run = {"u1": {"a": 0.9, "b": 0.8}}
    report = rv.evaluate(qrels, run, ["p@1"], repeats=True)
    assert report.mean["p@1"] == 1.0
    assert report.masking.repeats is True and report.masking.n_rows_removed == 0
    assert "repeat consumption declared" in repr(report)
    assert report.n_seen_removed is None


def test_exclude_may_be_the_train_object():
    train = pd.DataFrame({"user": ["u1", "u2", "u2"], "item": ["a", "a", "c"]})
    qrels = {"u1": {"b": 1}, "u2": {"b": 1}}
    run = {"u1": {"a": 0.9, "b": 0.8}, "u2": {"c": 0.9, "b": 0.5}}
    report = rv.evaluate(qrels, run, ["p@1", "arp@1"], train=train, exclude=train)
    # popularity counts distinct users of each item in train (a: 2); masking leaves b first
    assert report.mean == {"p@1": 1.0, "arp@1": 0.0}
    seen = SeenItems.from_log(train)
    again = rv.evaluate(qrels, run, ["p@1", "arp@1"], train=train, exclude=seen)
    assert again.mean == report.mean and again.masking == report.masking


def test_lists_alone_are_masked_too():
    run = {"u1": {"a": 0.9, "b": 0.8}, "u2": {"a": 0.9, "c": 0.1}}
    report = rv.evaluate(
        None, run, ["arp@1"], popularity={"a": 10, "b": 2, "c": 4}, exclude={"u1": ["a"]}
    )
    assert report.mean["arp@1"] == (2 + 10) / 2
    assert report.n_seen_removed.tolist() == [1, 0]
    assert report.masking.n_users_without_history == 1


def test_frame_json_and_subset_carry_the_counts():
    qrels = {"u1": {"b": 1}, "u2": {"c": 1}, "u3": {"d": 1}}
    run = {"u1": {"a": 0.9, "b": 0.8}, "u2": {"a": 0.9, "c": 0.8, "e": 0.1}}
    report = rv.evaluate(qrels, run, ["p@1"], exclude=(["u1", "u2", "u2"], ["a", "a", "e"]))
    frame = report.to_frame()
    assert frame["n_seen_removed"].tolist() == [1, 2, 0]
    sub = report.subset(np.array([False, True, True]))
    assert sub.n_seen_removed.tolist() == [2, 0] and sub.masking == report.masking
    record = ranking_records({"run": report})[0]
    assert record["counts"]["masking"] == {
        "repeats": False,
        "n_rows_removed": 3,
        "n_users_masked": 2,
        "n_users_without_history": 0,
        "n_qrels_seen": 0,
    }


@pytest.mark.parametrize("whole_groups", [False, True])
@given(protocols())
def test_accumulator_equals_the_function(whole_groups, protocol):
    qrels, rows, train = protocol
    lists = {}
    for u, i, s in rows:
        lists.setdefault(u, {})[i] = s
    q = qrels.to_dict()
    want = _evaluate(q, lists, exclude=train, ties="average")
    users = sorted(set(q) | set(lists))
    assume(users)
    for metric in ("ndcg@3", "recall@2", "pooled_hit_ratio@2"):
        acc = rv.metric(metric, exclude=train, whole_groups=whole_groups, ties="average",
                        **UNMATCHED)  # fmt: skip
        half = len(users) // 2
        for part in (users[:half], users[half:]):
            qp = {u: q[u] for u in part if u in q}
            rp = {u: lists[u] for u in part if u in lists}
            if qp or (rp and not whole_groups):  # whole users: an update holds qrels
                acc.update(qp, rp)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = acc.compute()
        assert got == pytest.approx(want.mean[metric], nan_ok=True, rel=1e-12, abs=0)


def test_scan_equals_memory(tmp_path):
    rng = np.random.default_rng(3)
    n_users, per = 40, 12
    users = np.repeat(np.arange(n_users), per)
    items = np.concatenate([rng.choice(30, per, replace=False) for _ in range(n_users)])
    scores = rng.choice([0.1, 0.2, 0.3, 0.5], len(users))
    path = tmp_path / "run.parquet"
    pd.DataFrame({"user": users, "item": items, "score": scores}).to_parquet(path)
    keys = rng.choice((n_users + 5) * 30, 80, replace=False)
    qrels = Qrels(keys // 30, keys % 30, np.ones(80))
    train = (rng.integers(0, n_users + 3, 300), rng.integers(0, 35, 300))
    memory = _evaluate(qrels, Run(users, items, scores), exclude=train)
    scanned = _evaluate(qrels, rv.scan(path, batch_rows=50).as_run(), exclude=train)
    assert scanned.mean == memory.mean
    assert scanned.masking == memory.masking and memory.masking.n_rows_removed > 0
    np.testing.assert_array_equal(scanned.n_seen_removed, memory.n_seen_removed)
    np.testing.assert_array_equal(scanned.users, memory.users)


def test_bad_exclude_is_refused_naming_it():
    qrels, run = {"u": {"a": 1}}, {"u": {"a": 0.9}}
    with pytest.raises(InputValidationError, match=r"^evaluate: exclude must be a Qrels"):
        rv.evaluate(qrels, run, ["p@1"], exclude=3)
    with pytest.raises(InputValidationError, match="'user'"):
        rv.evaluate(qrels, run, ["p@1"], exclude=pd.DataFrame({"uid": ["u"], "item": ["a"]}))
    with pytest.raises(InputValidationError, match="same length"):
        rv.evaluate(qrels, run, ["p@1"], exclude=(["u", "u"], ["a"]))
    with pytest.raises(InvalidParameterError, match="not both"):
        rv.evaluate(qrels, run, ["p@1"], exclude={"u": ["a"]}, repeats=True)
    with pytest.raises(InvalidParameterError, match="'repeats' parameter of evaluate"):
        rv.evaluate(qrels, run, ["p@1"], repeats="yes")
    with pytest.raises(InputValidationError, match=r"receval.metric\('p@1'\): exclude must be"):
        rv.metric("p@1", exclude=3)


@pytest.mark.parametrize("whole_groups", [False, True])
def test_accumulator_state_round_trips_with_exclude(whole_groups):
    qrels = {"u1": {"b": 1, "c": 1}, "u2": {"a": 1}}
    run = {"u1": {"a": 0.9, "b": 0.8, "c": 0.7}, "u2": {"a": 0.5, "z": 0.4}}
    train = {"u1": ["a"], "u2": ["a"]}
    acc = rv.metric("recall@1", exclude=train, whole_groups=whole_groups).update(qrels, run)
    back = rv.metric("recall@1", exclude=train, whole_groups=whole_groups)
    back.load_state_dict(acc.state_dict())
    want = rv.evaluate(qrels, run, ["recall@1"], exclude=train).mean["recall@1"]
    assert acc.compute() == back.compute() == want == 0.25
    assert rv.metric("recall@1", repeats=True).update(qrels, run).compute() == 0.5


_TYPES = (
    " (the exclusions' are int64, the run's str: an integer id matches the string of its "
    "decimal digits, 7 matches '7' but not '07' or '7.0'; cast one side so that both hold "
    "the same ids (e.g. .astype(int) on numeric strings))"
)


@pytest.mark.parametrize("scanned", [False, True])
@pytest.mark.parametrize(
    ("train", "message"),
    [
        ((np.array([1, 2]), np.array(["a", "b"], dtype=object)),
         "none of the 2 users of the exclusions (exclude=) is a run user, e.g. excluded "
         f"users [1, 2], run users ['u1', 'u2']{_TYPES}"),
        ({"u1": [7], "u2": [7, 8]},
         "none of the 2 items of the exclusions (exclude=) is an item of the run or of the "
         "qrels, e.g. "
         f"excluded items [7, 8], run items ['a', 'b', 'c']{_TYPES}"),
    ],
    ids=["users", "items"],
)  # fmt: skip
def test_exclusions_that_match_no_user_or_no_item_warn(tmp_path, scanned, train, message):
    # int ids beside string ids masked nothing, silently: the values were unmasked
    qrels = {"u1": {"b": 1}, "u2": {"c": 1}}
    run = {"u1": {"a": 0.9, "b": 0.5}, "u2": {"a": 0.8, "c": 0.3}}
    source = run
    if scanned:
        path = tmp_path / "run.parquet"
        rows = [(u, i, s) for u, d in run.items() for i, s in d.items()]
        pd.DataFrame(rows, columns=["user", "item", "score"]).to_parquet(path)
        source = rv.scan(path, batch_rows=2).as_run()
    with pytest.warns(rv.UnmatchedIdsWarning) as caught:
        report = rv.evaluate(qrels, source, ["recall@1"], exclude=train)
    assert [str(w.message) for w in caught] == [
        f"evaluate: {message}, so they exclude nothing; check the ids for a prefix, a type or "
        f"a column mix-up."
    ]
    assert report.mean == rv.evaluate(qrels, run, ["recall@1"]).mean
    assert report.masking.n_rows_removed == 0


@pytest.mark.parametrize("exclude", [{"u1": [], "u2": []}, {}, ([], [])])
def test_an_exclude_of_no_pair_is_no_exclude(exclude):
    # it was refused: "evaluate: exclude is empty; pass at least one sample"
    qrels = {"u1": {"b": 1}, "u2": {"c": 1}}
    run = {"u1": {"a": 0.9, "b": 0.5}, "u2": {"a": 0.8, "c": 0.3}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = rv.evaluate(qrels, run, ["recall@1"], exclude=exclude)
        accumulated = rv.metric("recall@1", exclude=exclude).update(qrels, run).compute()
    plain = rv.evaluate(qrels, run, ["recall@1"])
    assert report.mean == plain.mean == {"recall@1": accumulated} == {"recall@1": 0.0}
    assert report.masking is plain.masking is None


def test_exclusions_that_match_some_users_and_items_do_not_warn():
    # training users absent from the test, items the run never shows: a usual log
    qrels = {"u1": {"b": 1}, "u2": {"c": 1}}
    run = {"u1": {"a": 0.9, "b": 0.5}, "u2": {"a": 0.8, "c": 0.3}}
    train = {"u1": ["z"], "u2": ["c"], "old": ["a", "y"]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = rv.evaluate(qrels, run, ["recall@1"], exclude=train)
        filtered = rv.evaluate(
            {"u1": {"b": 1}, "u2": {"a": 1}},
            {"u1": {"b": 0.5}},
            ["recall@1"],
            exclude={"u1": ["a"]},
            missing_users="zero",
        )
    assert report.masking.n_rows_removed == 1
    assert filtered.masking.n_rows_removed == 0  # a run that filtered its seen items
