"""The retention kernels of the compiled core (``receval._core``) against slow
NumPy oracles on the same inputs, bit for bit (every output is an integer count,
index or flag): timestamps inside and outside the window in several units (before
1970 too), irregular (DST) days, repeated and conflicting signups, users without
events or signup, windows of 1 to 150 periods (bitsets of 1 to 3 words), every
cohort code, and inputs large enough for the parallel paths. The cohort tables
are checked through the public functions against ``tests/oracles/retention.py``;
here the two layouts (bitsets, CSR) must count alike for any number of parts.
"""

from __future__ import annotations

import numpy as np
import pytest

from receval._kernels import compiled

core = compiled()

DAY = 86_400
NO_SIGNUP, BEFORE, AFTER = core.NO_SIGNUP, core.BEFORE, core.AFTER


def _same(a, b):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert np.array_equal(a, b), (a, b)


def _window(rng, n_days):
    """Day bounds (some days an hour short or long) and each day's period."""
    lengths = DAY + rng.choice([0, 0, 0, 3600, -3600], n_days)
    bounds = np.concatenate([[0], np.cumsum(lengths)]) + int(rng.integers(-(10**9), 10**9))
    period_of_day = (np.arange(n_days) // int(rng.integers(1, 8))).astype(np.int32)
    return bounds.astype(np.int64), period_of_day


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("n", [0, 1, 1000, 70_000])
def test_periods_of_instants_equal_the_day_lookup(seed, n):
    rng = np.random.default_rng(seed)
    bounds, period_of_day = _window(rng, int(rng.integers(1, 60)))
    divisor = int(rng.choice([1, 1000, 10**9]))
    span = bounds[-1] - bounds[0]
    seconds = bounds[0] + rng.integers(-span // 10 - 2, span + span // 10 + 2, n)
    seconds[: n // 10] = rng.choice(bounds, n // 10)  # on the day boundaries
    values = seconds * divisor + rng.integers(0, divisor, n)  # floored to the second
    # the day of each second; before the window the first day, after it the last
    day = np.searchsorted(bounds, values // divisor, side="right") - 1
    want = period_of_day[np.clip(day, 0, len(period_of_day) - 1)]
    for n_chunks in (1, 4):
        _same(core.periods_of_instants(values, divisor, bounds, period_of_day, n_chunks), want)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("n", [0, 1, 500, 70_000])
def test_signup_kernels_equal_a_loop_over_rows(seed, n):
    rng = np.random.default_rng(seed)
    n_users = int(rng.integers(1, 300))
    codes = rng.integers(0, n_users, n).astype(np.int32)
    divisor = int(rng.choice([1, 1000]))
    per_user = rng.integers(-(10**6), 10**6, n_users)
    values = per_user[codes] * divisor + rng.integers(0, divisor, n)  # one time per user
    if seed % 3 == 0 and n:
        values[rng.integers(0, n)] += divisor * 7  # a conflict
    valid = rng.random(n) < 0.8
    seconds, has, conflict = core.signup_per_user(codes, values, divisor, valid, n_users)
    want_seconds, want_has, want_conflict = {}, np.zeros(n_users, bool), -1
    for i in np.flatnonzero(valid).tolist():
        u, second = int(codes[i]), int(values[i]) // divisor
        if u in want_seconds and want_seconds[u] != second:
            want_conflict = i  # the scan stops at the first conflict
            break
        want_seconds[u], want_has[u] = second, True
    assert conflict == want_conflict
    if want_conflict < 0:
        _same(has, want_has)
        _same(seconds[has], [want_seconds[u] for u in np.flatnonzero(has).tolist()])
    else:
        has = np.asarray(has, bool) & False
        for u, second in want_seconds.items():
            seconds[u], has[u] = second, True
    events = rng.integers(-(10**6), 10**6, n) * divisor
    before = np.asarray(has, bool)[codes] & (events // divisor < np.asarray(seconds)[codes])
    users = np.zeros(n_users, bool)
    users[codes[before]] = True
    first = int(np.flatnonzero(before)[0]) if before.any() else -1
    for n_chunks in (1, 3):
        got = core.events_before_signup(codes, events, divisor, seconds, has, n_chunks)
        _same(got, (int(before.sum()), users, first))


def _activity(seed, n, n_users, n_periods):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_users, n).astype(np.int32)  # some users without events
    periods = rng.integers(0, n_periods, n).astype(np.int32)
    cohort = rng.choice([NO_SIGNUP, BEFORE, AFTER, *range(n_periods)], n_users, p=None).astype(
        np.int32
    )
    active = np.bincount(codes, minlength=n_users) > 0
    cohort[(cohort == NO_SIGNUP) & ~active] = BEFORE  # (such users: see the test below)
    return codes, periods, cohort


@pytest.mark.parametrize(
    ("seed", "size"), [(seed, "small") for seed in range(10)] + [(0, "large"), (1, "large")]
)
@pytest.mark.parametrize("n_periods", [1, 5, 64, 65, 150])
def test_cohort_counts_of_both_layouts_agree(seed, size, n_periods):
    n, n_users = (3000, 400) if size == "small" else (150_000, 70_000)
    codes, periods, cohort = _activity(seed, n, n_users, n_periods)
    n_words = (n_periods + 63) // 64
    want_bits = np.zeros((n_users, n_words), np.uint64)
    np.bitwise_or.at(
        want_bits,
        (codes, periods // 64),
        np.left_shift(np.uint64(1), (periods % 64).astype(np.uint64)),
    )
    order = np.lexsort((periods, codes))
    want_offsets = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=n_users))])
    totals = []
    for n_parts in (1, 4):
        bits = core.activity_bitsets(codes, periods, n_users, n_words, n_parts)
        _same(np.asarray(bits).reshape(n_users, n_words), want_bits)
        csr = core.periods_by_user(codes, periods, n_users, n_parts)
        _same(csr, (want_offsets, periods[order]))
        for drop in (False, True):
            from_bits = core.accumulate_bitsets(bits, n_words, cohort, n_periods, drop, n_parts)
            from_csr = core.accumulate_csr(*csr, cohort, n_periods, drop, n_parts)
            for a, b in zip(from_bits, from_csr, strict=True):
                _same(a.sum(axis=0), b.sum(axis=0))  # the two layouts count alike
            totals.append(tuple(a.sum(axis=0) for a in from_bits))
    _same(totals[0], totals[2])  # any number of parts counts alike
    _same(totals[1], totals[3])


def test_a_user_without_events_or_signup_joins_no_cohort():
    cohort = np.array([NO_SIGNUP, 0], np.int32)
    offsets = np.array([0, 0, 1], np.int64)
    values = np.array([1], np.int32)
    new, login, table = core.accumulate_csr(offsets, values, cohort, 2, False, 1)
    _same(new[0], np.array([1, 0]))
    _same(login[0], np.array([1, 1]))
    bits = np.array([0, 0b10], np.uint64)
    _same((new, login, table), core.accumulate_bitsets(bits, 1, cohort, 2, False, 1))


def test_bad_inputs_raise_value_errors():
    codes = np.array([0, 2], np.int32)
    periods = np.array([0, 1], np.int32)
    with pytest.raises(ValueError, match=r"codes must lie in \[0, 2\)"):
        core.activity_bitsets(codes, periods, 2, 1, 1)
    with pytest.raises(ValueError, match=r"periods must lie in \[0, 64\)"):
        core.activity_bitsets(codes, np.array([0, 64], np.int32), 3, 1, 1)
    with pytest.raises(ValueError, match="periods has 1 elements but codes has 2"):
        core.periods_by_user(codes, periods[:1], 3, 1)
    with pytest.raises(ValueError, match="divisor must be positive"):
        core.periods_of_instants(np.zeros(2, np.int64), 0, np.array([0, DAY]), periods[:1], 1)
    with pytest.raises(ValueError, match="period_of_day one per day"):
        core.periods_of_instants(np.zeros(2, np.int64), 1, np.array([0, 1, 2]), periods[:1], 1)
    bits = np.array([0b100], np.uint64)
    cohort = np.array([NO_SIGNUP], np.int32)
    with pytest.raises(ValueError, match=r"bits must only mark periods in \[0, 2\)"):
        core.accumulate_bitsets(bits, 1, cohort, 2, False, 1)
    with pytest.raises(ValueError, match="n_words words per user"):
        core.accumulate_bitsets(bits, 2, cohort, 2, False, 1)
    with pytest.raises(ValueError, match=r"cohort codes must lie in \[-3, 2\)"):
        core.accumulate_bitsets(bits, 1, np.array([2], np.int32), 2, False, 1)
    with pytest.raises(ValueError, match="n_parts must be at least 1"):
        core.accumulate_bitsets(bits, 1, cohort, 3, False, 0)
    offsets = np.array([0, 2], np.int64)
    with pytest.raises(ValueError, match="offsets must hold n_users"):
        core.accumulate_csr(offsets, np.array([0], np.int32), cohort, 2, False, 1)
    with pytest.raises(ValueError, match=r"values must lie in \[0, 2\)"):
        core.accumulate_csr(offsets, np.array([0, 2], np.int32), cohort, 2, False, 1)
