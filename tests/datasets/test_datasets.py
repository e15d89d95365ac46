"""The bundled synthetic datasets: a pure function of their arguments, in the documented shapes."""

from __future__ import annotations

import numpy as np
import pytest

from receval import datasets


def _flat(data):
    """Every column of a dataset, by a path of keys."""
    if isinstance(data, tuple):
        data = dict(enumerate(data))
    out = {}
    for key, value in data.items():
        if isinstance(value, dict):
            out |= {(key, *k): v for k, v in _flat(value).items()}
        else:
            out[(key,)] = value
    return out


@pytest.mark.parametrize(
    "make", [datasets.make_impressions, datasets.make_recommendations, datasets.make_events]
)
def test_same_seed_same_rows_other_seed_other_rows(make):
    a, b, c = (_flat(make(seed=s)) for s in (3, 3, 4))
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(np.asarray(a[key]), np.asarray(b[key]))
    assert any(not np.array_equal(np.asarray(a[k]), np.asarray(c[k])) for k in a)


@pytest.mark.parametrize(
    "make", [datasets.make_impressions, datasets.make_recommendations, datasets.make_events]
)
def test_seed_none_draws_fresh_rows_as_documented(make):
    assert "None draws fresh randomness" in make.__doc__
    a, b = (_flat(make(50, seed=None)) for _ in range(2))
    assert any(not np.array_equal(np.asarray(a[k]), np.asarray(b[k])) for k in a)
    # an integer seed of NumPy's is taken as the same int
    one, same = _flat(make(50, seed=np.int64(7))), _flat(make(50, seed=7))
    assert all(np.array_equal(np.asarray(one[k]), np.asarray(same[k])) for k in one)


def test_impressions_are_a_click_log_with_two_models():
    log = datasets.make_impressions(200, seed=0)
    n = len(log["click"])
    assert n > 0 and all(len(v) == n for v in log.values())
    assert set(np.unique(log["click"])) <= {0, 1}
    for model in ("model_a", "model_b"):
        assert np.all((log[model] > 0) & (log[model] < 1))


def test_recommendations_are_lists_of_k_by_descending_score():
    qrels, runs = datasets.make_recommendations(50, n_items=200, k=10, seed=0)
    assert set(np.unique(qrels["grade"])) <= {1, 2}
    for run in runs.values():
        assert len(run["user"]) == 50 * 10
        scores = np.asarray(run["score"]).reshape(50, 10)
        assert np.all(np.diff(scores, axis=1) <= 0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: datasets.make_impressions(-1), "The 'n_users' parameter of make_impressions "
         "must be an integer in [1, inf). Got -1 instead."),
        (lambda: datasets.make_impressions(0), "The 'n_users' parameter of make_impressions "
         "must be an integer in [1, inf). Got 0 instead."),
        (lambda: datasets.make_impressions(2.5), "The 'n_users' parameter of make_impressions "
         "must be an integer. Got 2.5 instead."),
        (lambda: datasets.make_impressions(10, impressions_per_user=0), "The "
         "'impressions_per_user' parameter of make_impressions must be a real number in (0, "
         "inf). Got 0 instead."),
        (lambda: datasets.make_impressions(10, impressions_per_user=-5), "The "
         "'impressions_per_user' parameter of make_impressions must be a real number in (0, "
         "inf). Got -5 instead."),
        # NumPy's "repeats may not contain negative values" (int64 overflow), or its
        # MemoryError: the sizes are checked before any draw
        (lambda: datasets.make_impressions(impressions_per_user=1e30), "make_impressions: "
         "n_users * impressions_per_user (the expected number of rows, all in memory) must "
         "be at most 1,000,000,000. Got 2,000 * 1e+30 = 2e+33; pass a smaller n_users or "
         "impressions_per_user."),
        (lambda: datasets.make_impressions(10, impressions_per_user=1e12), "make_impressions: "
         "n_users * impressions_per_user (the expected number of rows, all in memory) must "
         "be at most 1,000,000,000. Got 10 * 1e+12 = 1e+13; pass a smaller n_users or "
         "impressions_per_user."),
        (lambda: datasets.make_recommendations(n_items=10**12, k=1), "make_recommendations: "
         "n_users * n_items (the user-item affinities, all in memory) must be at most "
         "1,000,000,000. Got 2,000 * 1,000,000,000,000 = 2e+15; pass a smaller n_users or "
         "n_items."),
        (lambda: datasets.make_events(10, days=10**12), "make_events: n_users * days (the "
         "user-days, all in memory) must be at most 1,000,000,000. Got 10 * "
         "1,000,000,000,000 = 1e+13; pass a smaller n_users or days."),
        (lambda: datasets.make_events(10, start="notadate"), "The 'start' parameter of "
         "make_events must be a date: a str such as '2024-01-01', a datetime.date or a "
         "numpy.datetime64. Got 'notadate' instead."),
        (lambda: datasets.make_events(10, start=None), "The 'start' parameter of make_events "
         "must be a date: a str such as '2024-01-01', a datetime.date or a numpy.datetime64. "
         "Got None instead."),
        (lambda: datasets.make_events(10, start=5), "The 'start' parameter of make_events "
         "must be a date: a str such as '2024-01-01', a datetime.date or a numpy.datetime64. "
         "Got 5 instead."),
        (lambda: datasets.make_events(10, start=True), "The 'start' parameter of make_events "
         "must be a date: a str such as '2024-01-01', a datetime.date or a numpy.datetime64. "
         "Got True instead."),
        (lambda: datasets.make_impressions(10, seed=-1), "The 'seed' parameter of "
         "make_impressions must be an integer in [0, 2**63 - 1]. Got -1 instead."),
        (lambda: datasets.make_impressions(10, seed=2**63), "The 'seed' parameter of "
         "make_impressions must be an integer in [0, 2**63 - 1]. Got 9223372036854775808 "
         "instead."),
        (lambda: datasets.make_events(10, seed=1.5), "The 'seed' parameter of make_events must "
         "be an integer. Got 1.5 instead."),
        (lambda: datasets.make_recommendations(10, seed="x"), "The 'seed' parameter of "
         "make_recommendations must be an integer. Got 'x' instead."),
        (lambda: datasets.make_recommendations(10, seed=True), "The 'seed' parameter of "
         "make_recommendations must be an integer. Got True instead."),
    ],
)  # fmt: skip
def test_bad_arguments_are_refused(call, message):
    # make_impressions took 0 users (empty arrays) and 0 impressions (1 per user, a warning
    # of log(0)); the others were NumPy's errors (bad seeds too; seed=True was taken as 1),
    # start=None NaT times, and an int or a bool start a day of 1970 (days since the epoch)
    from receval.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError) as error:
        call()
    assert str(error.value) == message
