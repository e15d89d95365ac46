"""list_differences and rank_biased_overlap: RBO against the rbo package's values and
Webber et al.'s bounds, overlap/Jaccard against sets, Kendall's tau against SciPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.stats import kendalltau

from receval import Run, list_differences, rank_biased_overlap
from receval.comparison import lists as lists_module
from receval.exceptions import InputValidationError, InvalidParameterError


def _run(lists: dict[str, str | list[str]]) -> dict[str, dict[str, float]]:
    """A run ranking each user's items in the order given."""
    return {u: {item: float(len(items) - i) for i, item in enumerate(items)}
            for u, items in lists.items()}  # fmt: skip


# RankingSimilarity(S, T).rbo_ext(p) of the `rbo` package 0.1.3 (PyPI, Webber et al.'s
# equation (32)), recorded with that version: S, T, p, value
RBO_PACKAGE = [
    ("abcdefg", "bacdfeg", 0.9, 0.886878),
    ("abcde", "abc", 0.9, 1.0),
    ("abcdefgh", "xbyaz", 0.8, 0.3377066666666667),
    ("abc", "cbaxyzw", 0.95, 0.92625),
    ("abcdef", "fedcba", 0.5, 0.0875),
    ("abcd", "wxyz", 0.9, 0.0),
]


@pytest.mark.parametrize(("a", "b", "p", "expected"), RBO_PACKAGE)
def test_rbo_ext_matches_the_rbo_package(a: str, b: str, p: float, expected: float) -> None:
    both = rank_biased_overlap(_run({"u": a}), _run({"u": b}), p=p)
    swapped = rank_biased_overlap(_run({"u": b}), _run({"u": a}), p=p)
    assert_allclose(both.values["rbo"], [expected], atol=1e-12)
    assert_allclose(swapped.values["rbo"], [expected], atol=1e-12)


def test_rbo_even_lists_by_hand() -> None:
    # X_1 = 1, X_2 = 1, X_3 = 2: (1-p)/p (p + p^2/2 + 2p^3/3) + 2/3 p^3 at p = 0.9
    r = rank_biased_overlap(_run({"u": "abc"}), _run({"u": "acd"}), p=0.9)
    assert_allclose(r.values["rbo"], [(0.1 / 0.9) * (0.9 + 0.405 + 0.486) + 0.486])


def _truncated_rbo(s: list[str], t: list[str], p: float, depth: int = 4000) -> float:
    """sum_d (1-p) p^(d-1) |S_:d & T_:d| / d over the first ``depth`` depths."""
    total, seen_s, seen_t, common = 0.0, set(), set(), 0
    for d in range(1, depth + 1):
        x, y = s[d - 1], t[d - 1]
        common += (x in seen_t) + (y in seen_s) + (x == y)
        seen_s.add(x)
        seen_t.add(y)
        total += (1 - p) * p ** (d - 1) * common / d
    return total


def _bounds(short: str, long: str, p: float) -> tuple[float, float]:
    """RBO of the lists continued so that they never agree again (the lower bound) and so
    that they agree as much as they can (the upper bound), summed to depth 4000."""
    fresh_s = [f"s{i}" for i in range(5000)]
    fresh_t = [f"t{i}" for i in range(5000)]
    low = _truncated_rbo(list(short) + fresh_s, list(long) + fresh_t, p)
    # each continues with the other's unseen items, then with the same new items
    s_more = list(short) + [x for x in long if x not in short]
    t_more = list(long) + [x for x in short if x not in long]
    s_more += fresh_s[: 4000 - len(s_more)]
    t_more += fresh_s[: 4000 - len(t_more)]
    high = _truncated_rbo(s_more, t_more, p)
    return low, high


@pytest.mark.parametrize(("a", "b", "p"), [("abcdefg", "bacdfeg", 0.9), ("abc", "cbaxyzw", 0.9),
                                           ("abcdefgh", "xbyaz", 0.8), ("ab", "ba", 0.5),
                                           ("abcd", "wxyz", 0.7)])  # fmt: skip
def test_rbo_min_and_residual_are_the_bounds(a: str, b: str, p: float) -> None:
    low, high = _bounds(*sorted((a, b), key=len), p)
    r = rank_biased_overlap(_run({"u": a}), _run({"u": b}), p=p)
    assert_allclose(r.values["rbo_min"], [low], atol=1e-9)
    assert_allclose(r.values["rbo_min"] + r.values["rbo_residual"], [high], atol=1e-9)
    assert r.values["rbo_min"][0] <= r.values["rbo"][0] <= high + 1e-12


def test_uneven_lengths_and_empty_lists() -> None:
    a = Run.from_dict({"u1": {"x": 2.0, "y": 1.0}, "u2": {}, "u3": {}, "u4": {"x": 1.0}})
    b = Run.from_dict({"u1": {"x": 1.0}, "u2": {"x": 1.0}, "u3": {}, "u5": {"z": 1.0}})
    r = list_differences(a, b)
    assert r.users.tolist() == ["u1", "u2", "u3"]
    assert (r.n_only_a, r.n_only_b) == (1, 1)
    assert_allclose(r.values["rbo"][:2], [1.0, 0.0])  # a prefix; nothing in common
    assert_allclose(r.values["rbo_residual"][1], 1.0)
    assert np.isnan(r.values["rbo"][2])  # both lists empty
    assert r.n_defined["rbo"] == 2
    assert_allclose(r.values["overlap"][:2], [0.5, 0.0])
    assert_allclose(r.values["jaccard"][:2], [0.5, 0.0])


def test_ties_in_input_order_follow_the_rows() -> None:
    tied = {"u": {"a": 1.0, "b": 1.0, "c": 1.0}}
    r = list_differences(tied, _run({"u": "abc"}), ties="input")
    assert_allclose(r.values["rbo"], [1.0])
    assert np.isnan(r.values["kendall_tau"][0])  # one run scores all shared items alike
    assert list_differences(tied, _run({"u": "cba"}), ties="input").values["rbo"][0] < 1.0


@pytest.mark.parametrize(
    ("ties", "order"),
    [("trec", "cba"), ("id_descending", "cba"), ("id_ascending", "abc"), ("input", "bca")],
)
def test_tied_scores_are_ordered_by_the_tie_rule(ties: str, order: str) -> None:
    # rows b, c, a, all tied: the rule orders them whatever the rows' order
    tied = {"u": {"b": 1.0, "c": 1.0, "a": 1.0}}
    for k in (1, 2, None):
        r = rank_biased_overlap(tied, _run({"u": order}), k=k, ties=ties)
        assert_allclose(r.values["rbo"], [1.0])
    rows = Run.from_dict(tied).in_tie_order(np.arange(3), ties)
    assert rows.tolist() == ["bca".index(x) for x in order]
    untied = np.arange(2)  # no tie: the rows as they are
    assert Run.from_dict({"u": {"b": 2.0, "c": 1.0}}).in_tie_order(untied, ties) is untied


@given(st.permutations(list("abcdef")), st.permutations(list("abcdef")))
def test_the_default_order_does_not_depend_on_the_rows(
    rows_a: list[str], rows_b: list[str]
) -> None:
    # scores with ties, given in two row orders: the same lists under ties="trec"
    scores = {"a": 2.0, "b": 2.0, "c": 1.0, "d": 1.0, "e": 1.0, "f": 0.0}
    first = {"u": {i: scores[i] for i in rows_a}}
    second = {"u": {i: scores[i] for i in rows_b}}
    for k in (1, 3, None):
        r = list_differences(first, second, k=k)
        assert_allclose(r.values["rbo"], [1.0])
        assert_allclose(r.values["overlap"], [1.0])


lists = st.lists(st.sampled_from("abcdefghij"), min_size=1, max_size=10, unique=True)


@given(lists, lists, st.integers(1, 12))
def test_overlap_and_jaccard_against_sets(a: list[str], b: list[str], k: int) -> None:
    r = list_differences(_run({"u": a}), _run({"u": b}), k=k)
    top_a, top_b = set(a[:k]), set(b[:k])
    both = len(top_a & top_b)
    assert_allclose(r.values["overlap"], [both / max(len(top_a), len(top_b))])
    assert_allclose(r.values["jaccard"], [both / len(top_a | top_b)])


@given(
    st.lists(
        st.tuples(st.sampled_from("abcdefghijkl"), st.integers(0, 4), st.integers(0, 4)),
        max_size=12,
        unique_by=lambda x: x[0],
    ),
    st.lists(st.sampled_from("mnop"), max_size=3, unique=True),
)
def test_kendall_tau_against_scipy(rows: list[tuple[str, int, int]], only_b: list[str]) -> None:
    assume(len(rows) >= 2)
    a = {"u": {item: float(x) for item, x, _ in rows} | {"z": -1.0}}
    b = {"u": {item: float(y) for item, _, y in rows} | {i: 9.0 for i in only_b}}
    tau = list_differences(a, b).values["kendall_tau"][0]
    xs = [x for _, x, _ in rows]
    ys = [y for _, _, y in rows]
    expected = kendalltau(xs, ys).statistic
    if np.isnan(expected):
        assert np.isnan(tau)
    else:
        assert_allclose(tau, expected, atol=1e-12)


def test_many_users_at_once_equal_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(0)
    runs = []
    for _ in range(2):
        runs.append({f"u{u}": {f"i{i}": float(rng.integers(0, 5)) for i in
                               rng.choice(30, size=rng.integers(1, 15), replace=False)}
                     for u in range(40)})  # fmt: skip
    together = list_differences(*runs, k=8, p=0.8)
    monkeypatch.setattr(lists_module, "_BLOCK_ROWS", 50)  # blocks of a few users
    blocked = list_differences(*runs, k=8, p=0.8)
    for name, values in together.values.items():
        assert_allclose(blocked.values[name], values, atol=1e-12)
    for j, user in enumerate(together.users):
        alone = list_differences({user: runs[0][user]}, {user: runs[1][user]}, k=8, p=0.8)
        for name, values in together.values.items():
            assert_allclose(values[j], alone.values[name][0], atol=1e-12)
    assert together.to_frame().shape == (40, 7)
    assert "40 users of both runs at depth 8" in together.summary()


def test_bad_parameters_and_disjoint_users() -> None:
    run = _run({"u": "ab"})
    with pytest.raises(InvalidParameterError, match="'p' parameter of list_differences"):
        list_differences(run, run, p=1.0)
    with pytest.raises(InvalidParameterError, match="'k' parameter of rank_biased_overlap"):
        rank_biased_overlap(run, run, k=0)
    with pytest.raises(InputValidationError, match="no user in common"):
        list_differences(run, _run({"v": "ab"}))
    with pytest.raises(InvalidParameterError, match="'ties' parameter of list_differences"):
        list_differences(run, run, ties="average")
