"""IPS, SNIPS and DR estimates: hand values, the oracle, streaming, scans, errors, bias."""

import contextlib
import math
import pickle
import re
import warnings

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import receval as rv
from receval import (
    InputValidationError,
    InvalidParameterError,
    UndefinedMetricWarning,
    dr_estimate,
    ips_estimate,
    policy_value_interval,
    snips_estimate,
)
from tests.oracles import offpolicy as oracle

REWARD = [1, 0, 1, 0]
PSCORE = [0.5, 0.5, 0.25, 0.75]
DIST = [[0.9, 0.1], [0.9, 0.1], [0.2, 0.8], [0.5, 0.5]]
ACTION = [0, 1, 1, 0]
Q = [[0.6, 0.2], [0.6, 0.2], [0.4, 0.5], [0.3, 0.3]]


# ------------------------------------------------------------------ hand-computed values
def test_hand_values():
    # weights 0.9/0.5, 0.1/0.5, 0.8/0.25, 0.5/0.75 = 1.8, 0.2, 3.2, 2/3
    assert ips_estimate(REWARD, PSCORE, action_dist=DIST, action=ACTION) == 1.25
    assert snips_estimate(REWARD, PSCORE, action_dist=DIST, action=ACTION) == pytest.approx(
        5 / (1.8 + 0.2 + 3.2 + 2 / 3), rel=1e-15
    )
    # direct terms 0.56, 0.56, 0.48, 0.3; residual terms 0.72, -0.04, 1.6, -0.2
    got = dr_estimate(REWARD, PSCORE, action_dist=DIST, action=ACTION, estimated_rewards=Q)
    assert got == pytest.approx(3.98 / 4, rel=1e-15)
    # clipped at 2: weights 1.8, 0.2, 2, 2/3
    assert ips_estimate(REWARD, PSCORE, action_dist=DIST, action=ACTION, clip=2) == 0.95


def test_one_dimensional_target_equals_the_full_distribution():
    target = np.array(DIST)[np.arange(4), ACTION]
    for func in (ips_estimate, snips_estimate):
        assert func(REWARD, PSCORE, action_dist=target) == func(
            REWARD, PSCORE, action_dist=DIST, action=ACTION
        )


def test_positions_read_their_slot():
    dist = np.zeros((2, 2, 3))
    dist[:, 0, :] = [0.2, 0.6, 1.0]
    dist[:, 1, :] = [0.8, 0.4, 0.0]
    got = ips_estimate([1, 1], [0.5, 0.5], action_dist=dist, action=[0, 1], position=[1, 0])
    assert got == pytest.approx((0.6 / 0.5 + 0.8 / 0.5) / 2, rel=1e-15)
    # no position: slot 0 for every round
    got = ips_estimate([1, 1], [0.5, 0.5], action_dist=dist, action=[0, 1])
    assert got == pytest.approx((0.2 / 0.5 + 0.8 / 0.5) / 2, rel=1e-15)


def test_target_equal_to_logging_policy_gives_the_mean_reward():
    rng = np.random.default_rng(3)
    p = rng.uniform(0.1, 1, 50)
    r = rng.integers(0, 2, 50)
    assert ips_estimate(r, p, action_dist=p) == pytest.approx(r.mean(), rel=1e-15)
    assert snips_estimate(r, p, action_dist=p) == pytest.approx(r.mean(), rel=1e-15)


def test_dr_with_a_perfect_model_of_a_deterministic_reward_is_exact():
    dist = np.array(DIST)
    q = np.array(Q)
    reward = q[np.arange(4), ACTION]  # the model is right on the logged actions
    got = dr_estimate(reward, PSCORE, action_dist=dist, action=ACTION, estimated_rewards=q)
    assert got == pytest.approx(float(np.mean((dist * q).sum(1))), rel=1e-15)


def test_snips_of_zero_weights_is_nan_with_a_warning():
    with pytest.warns(UndefinedMetricWarning, match="every importance weight is zero"):
        assert math.isnan(snips_estimate([1, 0], [0.5, 0.5], action_dist=[0.0, 0.0]))
    assert ips_estimate([1, 0], [0.5, 0.5], action_dist=[0.0, 0.0]) == 0.0


# ------------------------------------------------------------------ the oracle
@st.composite
def logged(draw, slates=False):
    n = draw(st.integers(1, 25))
    n_actions = draw(st.integers(1, 4))
    len_list = draw(st.integers(1, 3)) if slates else 1
    raw = draw(
        st.lists(
            st.sampled_from([0.0, 0.1, 0.5, 1.0, 3.0]),
            min_size=n * n_actions * len_list,
            max_size=n * n_actions * len_list,
        )
    )
    w = np.array(raw).reshape(n, n_actions, len_list) + 1e-3
    dist = w / w.sum(axis=1, keepdims=True)
    q = np.array(
        draw(st.lists(st.sampled_from([0.0, 0.2, 0.5, 1.0]), min_size=dist.size,
                      max_size=dist.size))
    ).reshape(dist.shape)  # fmt: skip
    action = np.array(draw(st.lists(st.integers(0, n_actions - 1), min_size=n, max_size=n)))
    position = np.array(draw(st.lists(st.integers(0, len_list - 1), min_size=n, max_size=n)))
    reward = np.array(draw(st.lists(st.sampled_from([0.0, 1.0, 0.5]), min_size=n, max_size=n)))
    pscore = np.array(
        draw(st.lists(st.sampled_from([0.05, 0.25, 0.5, 1.0]), min_size=n, max_size=n))
    )
    clip = draw(st.sampled_from([None, 0.5, 2.0, 10.0]))
    if not slates:
        dist, q, position = dist[:, :, 0], q[:, :, 0], None
    return reward, pscore, dist, action, position, q, clip


def _close(got, expected):
    if math.isnan(expected):
        return math.isnan(got)
    return got == pytest.approx(expected, rel=1e-12, abs=1e-14)


@given(logged(slates=True))
def test_estimates_equal_the_oracle(data):
    reward, pscore, dist, action, position, q, clip = data
    kw = {"action_dist": dist, "action": action, "position": position, "clip": clip}
    assert _close(ips_estimate(reward, pscore, **kw), oracle.ips(reward, pscore, dist, action,
                                                                 position, clip))  # fmt: skip
    with _quiet():  # SNIPS of zero weights: nan and a warning, as the oracle's nan
        got = snips_estimate(reward, pscore, **kw)
    assert _close(got, oracle.snips(reward, pscore, dist, action, position, clip))
    got = dr_estimate(reward, pscore, estimated_rewards=q, **kw)
    assert _close(got, oracle.dr(reward, pscore, dist, q, action, position, clip))


@contextlib.contextmanager
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        yield


@given(logged(), st.data())
def test_streaming_and_merges_equal_one_call(data, draw):
    reward, pscore, dist, action, _, q, clip = data
    n = len(reward)
    cuts = sorted(draw.draw(st.lists(st.integers(0, n), max_size=4)))
    bounds = list(zip([0, *cuts], [*cuts, n], strict=True))
    columns = {"reward": reward, "pscore": pscore, "action_dist": dist, "action": action}
    for name, func, extra in (
        ("ips", ips_estimate, {}),
        ("snips", snips_estimate, {}),
        ("dr", dr_estimate, {"estimated_rewards": q}),
    ):
        every = {**columns, **extra}
        with _quiet():
            expected = func(**every, clip=clip)
            acc = rv.metric(name, clip=clip)
            parts = []
            for a, b in bounds:
                batch = {k: x[a:b] for k, x in every.items()}
                acc.update(**batch)
                parts.append(rv.metric(name, clip=clip).update(**batch))
            assert _same(acc.compute(), expected)
            merged = parts[-1]
            for part in parts[-2::-1]:
                merged.merge(part)
            assert _same(merged.compute(), expected)
            assert _same(pickle.loads(pickle.dumps(acc)).compute(), expected)
            # the rounds the clip lowered: counted by the state, merged exactly
            clipped = oracle.n_clipped(pscore, dist, action, None, clip)
            counts = {} if clip is None else {"clip": clip, "n_rounds": n,
                                              "n_rounds_clipped": clipped}  # fmt: skip
            assert acc.skipped() == merged.skipped() == counts
            report = rv.policy_value_report(**every, estimator=name, clip=clip)
            assert _same(report.value, expected) and report.counts() == counts


def _same(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


def test_scan_columns(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(5)
    r, p, t = rng.integers(0, 2, 60), rng.uniform(0.1, 1, 60), rng.random(60)
    pq.write_table(pa.table({"r": r, "p": p, "t": t}), tmp_path / "log.parquet")
    s = rv.scan(tmp_path / "log.parquet", batch_rows=7)
    for func in (ips_estimate, snips_estimate):
        assert func(s["r"], s["p"], action_dist=s["t"]) == func(r, p, action_dist=t)
        assert func(s["r"], s["p"], action_dist=s["t"], clip=1.5) == func(
            r, p, action_dist=t, clip=1.5
        )
    with pytest.raises(InvalidParameterError, match="The 'action' parameter of ips_estimate is"):
        ips_estimate(s["r"], s["p"], action_dist=s["t"], action=s["r"])


def test_doubly_robust_of_one_number_per_round(tmp_path):
    """DR from per-round columns (the target's probability of the logged action,
    the model's estimate of it and its value of the target policy) equals DR from
    every action's probability and estimate, in memory, batch by batch and on a scan."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(11)
    n, actions = 90, 4
    dist = rng.dirichlet(np.ones(actions), n)
    q = rng.random((n, actions))
    act = rng.integers(0, actions, n)
    ps, r = rng.uniform(0.1, 1, n), rng.integers(0, 2, n).astype(float)
    rows = np.arange(n)
    cols = {"t": dist[rows, act], "q": q[rows, act],
            "v": (dist * q).sum(axis=1) / dist.sum(axis=1)}  # fmt: skip
    for clip in (None, 1.5):
        full = dr_estimate(r, ps, action_dist=dist, estimated_rewards=q, action=act, clip=clip)
        one = dr_estimate(r, ps, action_dist=cols["t"], estimated_rewards=cols["q"],
                          estimated_value=cols["v"], clip=clip)  # fmt: skip
        assert one == pytest.approx(full, rel=1e-12)
        assert one == pytest.approx(oracle.dr(r, ps, dist, q, act, clip=clip), rel=1e-12)
    path = tmp_path / "log.parquet"
    pq.write_table(pa.table({"r": r, "p": ps, **cols}), path)
    s = rv.scan(path, batch_rows=13)
    in_memory = dr_estimate(r, ps, action_dist=cols["t"], estimated_rewards=cols["q"],
                            estimated_value=cols["v"])  # fmt: skip
    scanned = dr_estimate(s["r"], s["p"], action_dist=s["t"], estimated_rewards=s["q"],
                          estimated_value=s["v"])  # fmt: skip
    assert scanned == in_memory
    lo, hi = policy_value_interval(r, ps, action_dist=cols["t"], estimated_rewards=cols["q"],
                                   estimated_value=cols["v"], estimator="dr",
                                   n_resamples=200)[1:]  # fmt: skip
    assert lo <= in_memory <= hi
    with pytest.raises(rv.InputValidationError, match="needs estimated_rewards"):
        dr_estimate(r, ps, action_dist=cols["t"], estimated_rewards=cols["q"])
    with pytest.raises(rv.InputValidationError, match="estimated_value is given"):
        dr_estimate(r, ps, action_dist=dist, estimated_rewards=q, action=act,
                    estimated_value=cols["v"])  # fmt: skip


# ------------------------------------------------------------------ unbiased on a simulation
def test_estimates_are_unbiased_on_a_simulation():
    """A context-free bandit with known click rates: each estimate is within four
    standard errors of the target policy's true click rate (fixed seed)."""
    rng = np.random.default_rng(2026)
    n, mu = 40_000, np.array([0.05, 0.10, 0.20, 0.40])
    logging = np.array([0.4, 0.3, 0.2, 0.1])
    target = np.array([0.1, 0.1, 0.3, 0.5])
    truth = float(target @ mu)  # 0.285
    action = rng.choice(4, size=n, p=logging)
    reward = (rng.random(n) < mu[action]).astype(float)
    pscore = logging[action]
    dist = np.tile(target, (n, 1))
    q = np.tile(mu + 0.05, (n, 1))  # a biased reward model: DR stays unbiased
    w = target[action] / pscore
    se = float(np.std(reward * w) / np.sqrt(n))
    assert abs(ips_estimate(reward, pscore, action_dist=dist, action=action) - truth) < 4 * se
    assert abs(snips_estimate(reward, pscore, action_dist=dist, action=action) - truth) < 4 * se
    got = dr_estimate(reward, pscore, action_dist=dist, action=action, estimated_rewards=q)
    assert abs(got - truth) < 4 * se
    # the naive mean of the logged clicks is far off: the test can fail
    assert abs(reward.mean() - truth) > 10 * se
    _, low, high = policy_value_interval(
        reward, pscore, action_dist=dist, action=action, n_resamples=200
    )
    assert low < truth < high


# ------------------------------------------------------------------ intervals
def test_interval_is_reproducible_and_ordered():
    rng = np.random.default_rng(1)
    r, p, t = rng.integers(0, 2, 80), rng.uniform(0.2, 1, 80), rng.random(80)
    kw = {"action_dist": t, "n_resamples": 300}
    for est in ("ips", "snips"):
        a = policy_value_interval(r, p, estimator=est, seed=3, **kw)
        assert a == policy_value_interval(r, p, estimator=est, seed=3, **kw)
        assert a != policy_value_interval(r, p, estimator=est, seed=4, **kw)
        assert a.low <= a.value <= a.high
        func = ips_estimate if est == "ips" else snips_estimate
        assert a.value == func(r, p, action_dist=t)
    wide = policy_value_interval(r, p, confidence=0.99, seed=3, **kw)
    narrow = policy_value_interval(r, p, confidence=0.5, seed=3, **kw)
    assert wide.low <= narrow.low <= narrow.high <= wide.high


def test_interval_of_two_rounds_holds_its_estimate():
    # SNIPS resamples summed in float64 (w = 5 and 5/9: 15 + 5/9 over 5 + 5/9): the
    # resamples of both rounds gave 2.8000000000000003, so the interval [2.8000000000000003,
    # 2.8000000000000003] left out its own estimate 2.8
    r, p, t = [3, 1], [0.1, 0.9], [0.5, 0.5]
    got = policy_value_interval(r, p, action_dist=t, estimator="snips", confidence=0.5,
                                n_resamples=40)  # fmt: skip
    assert got == (2.8, 2.8, 2.8)
    assert got[1:] == oracle.exact_interval("snips", r, p, t, confidence=0.5, n_resamples=40)


@given(
    st.lists(st.tuples(st.sampled_from([0.0, 1.0, 3.0, 0.1, -2.5]),
                       st.sampled_from([1e-300, 0.1, 0.3, 0.9, 1.0]),
                       st.sampled_from([0.0, 0.2, 0.5, 0.7, 1.0])), min_size=1, max_size=4),
    st.sampled_from(["ips", "snips"]),
    st.sampled_from([1e-12, 0.5, 0.9, 1 - 1e-12]),
)  # fmt: skip
def test_interval_equals_the_exact_oracle_on_few_rounds(rounds, estimator, confidence):
    # each resample's estimate exact, the percentiles interpolated exactly, one rounding
    r, p, t = (list(x) for x in zip(*rounds, strict=True))
    assume(estimator != "snips" or any(t))  # SNIPS of zero weights only: no estimate
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        got = policy_value_interval(r, p, action_dist=t, estimator=estimator,
                                    confidence=confidence, n_resamples=30)  # fmt: skip
    want = oracle.exact_interval(estimator, r, p, t, confidence=confidence, n_resamples=30)
    assert got[1:] == want
    if len(rounds) == 1:  # every resample is the data: the estimate itself
        assert got.low == got.value == got.high


def test_snips_resamples_without_a_positive_weight_are_counted():
    # 356 of the 1000 resamples draw none of the one round of positive weight: they were
    # dropped without a word, and the interval [1, 1] looked certain
    r, p, t = [1] + [0] * 9, [0.5] * 10, [1.0] + [0.0] * 9
    with pytest.warns(rv.RecevalWarning) as caught:
        got = policy_value_interval(r, p, action_dist=t, n_resamples=1000, estimator="snips")
    assert got == (1.0, 1.0, 1.0)
    assert [str(w.message) for w in caught] == [
        "policy_value_interval: 356 of 1,000 resamples have no round with a positive importance "
        "weight, where SNIPS is undefined (0 / 0); the bounds are the percentiles of the other "
        "644 (1 of 10 rounds has a positive weight: the interval is unreliable); use more "
        "rounds, or estimator='ips'."
    ]
    assert not issubclass(caught[0].category, UndefinedMetricWarning)  # the bounds are numbers
    with pytest.warns(UndefinedMetricWarning, match="none of the 1 resample has") as caught:
        got = policy_value_interval(r, p, action_dist=t, n_resamples=1, seed=2, estimator="snips")
    assert got[0] == 1.0 and math.isnan(got[1]) and math.isnan(got[2])
    assert len(caught) == 1
    with warnings.catch_warnings():  # ips: every resample has an estimate
        warnings.simplefilter("error")
        policy_value_interval(r, p, action_dist=t, n_resamples=1000)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"estimator": "ipw"}, "The 'estimator' parameter of policy_value_interval must be one of"),
        ({"confidence": 1.0}, "confidence"),
        ({"n_resamples": 0}, "n_resamples"),
        ({"seed": -1}, "seed"),
        ({"estimated_rewards": [[1.0]]}, "pass estimator='dr'"),
        ({"clip": 0}, "The 'clip' parameter of policy_value_interval must be None or a positive"),
    ],
)
def test_interval_parameter_errors(kw, message):
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        policy_value_interval([1, 0], [0.5, 0.5], action_dist=[1.0, 0.0], **kw)


# ------------------------------------------------------------------ bad input
def _ips(**kw):
    args = {"reward": REWARD, "pscore": PSCORE, "action_dist": DIST, "action": ACTION, **kw}
    return ips_estimate(args.pop("reward"), args.pop("pscore"), **args)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"pscore": [0.5, 0.0, 0.25, 0.75]},
         "ips_estimate: pscore must hold the logging policy's probabilities, in (0, 1]. Got "
         "values [0.0]; pass the logging policy's probability of each logged action "
         "(positive: the action was taken)."),
        ({"pscore": [0.5, -0.1, 1.5, 0.75]}, "in (0, 1]. Got values [-0.1, 1.5]"),
        ({"action_dist": [[0.9, 0.2], [0.9, 0.1], [0.2, 0.8], [0.5, 0.5]]},
         "ips_estimate: every row of action_dist must sum to 1 over the actions (axis 1). Got "
         "sums [1.1]; pass the target policy's probabilities of every action."),
        ({"action_dist": DIST[:3]},
         "ips_estimate: reward, pscore and action_dist must have the same length. Got lengths "
         "[4, 4, 3]."),
        ({"pscore": PSCORE[:3]},
         "ips_estimate: reward and pscore must have the same length. Got lengths [4, 3]."),
        ({"action": ACTION[:3]},
         "ips_estimate: reward and action must have the same length. Got lengths [4, 3]."),
        ({"action": [0, 1, 2, 0]},
         "ips_estimate: action must hold action indices in [0, 1] (the size of action_dist's "
         "axis). Got values [2]."),
        ({"action": None}, "ips_estimate: action is None, but action_dist has shape (4, 2)"),
        ({"position": [0, 0, 0, 0]}, "position is given, but action_dist has shape (4, 2)"),
        ({"action_dist": [1.0, 0.5, 0.5, 0.2]},
         "ips_estimate: action is given, but action_dist is 1-dimensional"),
        ({"action_dist": np.ones((4, 1, 1, 1))}, "action_dist must have 1, 2 or 3 dimensions"),
        ({"action_dist": [[0.5, 0.5], [1.0], [0.5, 0.5], [0.5, 0.5]]},
         "ips_estimate: action_dist must be a rectangular array"),
        ({"action_dist": [[0.9, np.nan]] * 4}, "ips_estimate: action_dist contains NaN"),
        ({"reward": [1, np.inf, 0, 0]},
         "ips_estimate: reward contains NaN or infinity, the first at position 1 (inf); drop"),
        ({"action_dist": [[1.5, -0.5]] * 4},
         "ips_estimate: action_dist must contain probabilities in [0, 1]. Got values [-0.5, "
         "1.5]; pass the target policy's probabilities of every action."),
        ({"action_dist": [1.0, 1.5, 0.5, 0.5], "action": None},
         "ips_estimate: action_dist must contain probabilities in [0, 1]. Got values [1.5]; "
         "pass the target policy's probability of each logged action."),
        ({"reward": [], "pscore": [], "action_dist": [], "action": None},
         "ips_estimate: reward is empty; pass at least one sample."),
    ],
)  # fmt: skip
def test_bad_input_messages(kw, message):
    with pytest.raises(InputValidationError, match=re.escape(message)):
        _ips(**kw)


def test_position_errors():
    dist = np.full((2, 2, 3), 0.5)
    with pytest.raises(InputValidationError, match=re.escape("position indices in [0, 2]")):
        ips_estimate([1, 0], [0.5, 0.5], action_dist=dist, action=[0, 1], position=[0, 3])
    with pytest.raises(InputValidationError, match="reward, action and position must have"):
        ips_estimate([1, 0], [0.5, 0.5], action_dist=dist, action=[0, 1], position=[0])


def test_dr_input_errors():
    base = {"action_dist": DIST, "action": ACTION}
    with pytest.raises(InputValidationError, match=re.escape(
        "dr_estimate: estimated_rewards must have the shape of action_dist (4, 2). Got an "
        "array of shape (4, 3).")):  # fmt: skip
        dr_estimate(REWARD, PSCORE, estimated_rewards=np.zeros((4, 3)), **base)
    with pytest.raises(InputValidationError, match="the doubly robust estimate needs"):
        dr_estimate(REWARD, PSCORE, action_dist=[0.5] * 4, action=None, estimated_rewards=Q)
    with pytest.raises(InputValidationError, match="dr_estimate: estimated_rewards is None"):
        dr_estimate(REWARD, PSCORE, estimated_rewards=None, **base)


@pytest.mark.parametrize("clip", [0, -1, "2", float("nan"), True])
def test_bad_clip(clip):
    with pytest.raises(InvalidParameterError, match="The 'clip' parameter of snips_estimate"):
        snips_estimate(REWARD, PSCORE, action_dist=DIST, action=ACTION, clip=clip)
    with pytest.raises(InvalidParameterError, match="The 'clip' parameter of ips_estimate"):
        rv.metric("ips", clip=clip)


def test_registry_names():
    assert [e.name for e in rv.list_metrics("off_policy")] == ["dr", "ips", "snips"]
    assert rv.metric_info("ipw").name == "ips"
    assert rv.metric_info("self_normalized_ips").name == "snips"
    assert rv.metric_info("doubly_robust").function == "dr_estimate"
    acc = rv.metric("IPW").update(REWARD, PSCORE, action_dist=DIST, action=ACTION)
    assert acc.compute() == 1.25
    assert rv.compute("snips", REWARD, PSCORE, action_dist=DIST, action=ACTION) == (
        snips_estimate(REWARD, PSCORE, action_dist=DIST, action=ACTION)
    )
    with pytest.warns(UndefinedMetricWarning, match="no round was given"):
        empty = rv.metric("ips").update(np.array([]), np.array([]), action_dist=np.empty((0, 2, 1)),
                                        action=np.array([], dtype=int))  # fmt: skip
        assert math.isnan(empty.compute())
    with pytest.warns(UndefinedMetricWarning, match="'dr': no batch has been added"):
        assert math.isnan(rv.metric("dr").compute())


# ------------------------------------------------------------------ overflow
@pytest.mark.parametrize(
    ("func", "columns", "expected"),
    [
        (snips_estimate, {"reward": [1e308, 1e308], "pscore": [0.5, 0.5]}, 1e308),
        (snips_estimate, {"reward": [1e300, 1.0], "pscore": [1e-300, 0.5]}, 1e300),
        (ips_estimate, {"reward": [1e308, 0.0], "pscore": [0.5, 0.5]}, 1e308),
        (ips_estimate, {"reward": [1e300, 1.0], "pscore": [1e-300, 0.5]}, math.inf),
        (dr_estimate, {"reward": [1e300, -1e300], "pscore": [1e-10, 1e-10],
                       "estimated_rewards": [0.0, 0.0], "estimated_value": [0.0, 0.0]}, 0.0),
        (dr_estimate, {"reward": [1e308, 1.0], "pscore": [0.5, 0.5],
                       "estimated_rewards": [-1e308, 0.0], "estimated_value": [-1e308, 0.0]},
         1e308 * 0.75 * 2),  # (-1e308 + 2 (1e308 + 1e308) = 3e308, rounded; + 2) / 2
    ],
)  # fmt: skip
def test_terms_beyond_the_float_range(tmp_path, func, columns, expected):
    # w r and the DR terms were rounded to float64 first: inf (or inf - inf = nan) where
    # the estimate is a float; every backend sums them at a scale where they are finite
    import pyarrow as pa
    import pyarrow.parquet as pq

    every = {**columns, "action_dist": [1.0, 1.0]}
    assert func(**every) == expected
    acc = rv.metric(func.__name__.removesuffix("_estimate"))
    for i in range(2):  # one round a batch
        acc.update(**{k: v[i : i + 1] for k, v in every.items()})
    assert acc.compute() == expected
    pq.write_table(pa.table(every), tmp_path / "log.parquet")
    s = rv.scan(tmp_path / "log.parquet", batch_rows=1)
    assert func(**{k: s[k] for k in every}) == expected


# rounds whose pscore is subnormal (below about 5e-309: pi / pscore beyond float64):
# weights of 2.5e309 and 2e323, a reward of 1e-2 times the first (2.5e307, in range),
# terms of +-2e333 that cancel; the estimates are within float64's range
SUBNORMAL = {
    "reward": [1e-2, 0.0, 1e-300, -2.5, 0.3, 1e10, -1e10],
    "pscore": [4e-320, 5e-324, 0.5, 1e-310, 0.25, 5e-324, 5e-324],
    "action_dist": [1e-10, 1.0, 1.0, 1e-15, 0.5, 1.0, 1.0],
}
# the reward model: right but for the first round (a term of 2.5e307) and the last two
# (terms of +-2e323, which cancel)
MODEL = {
    "estimated_rewards": [0.0, 0.0, 1e-300, -2.5, 0.3, 1e10 - 1, -1e10 + 1],
    "estimated_value": [0.5] * 7,
}


def _exact(estimator, columns, **options):
    model = {k: columns[k] for k in MODEL if k in columns}
    return oracle.exact_estimate(estimator, columns["reward"], columns["pscore"],
                                 columns["action_dist"], **model, **options)  # fmt: skip


@pytest.mark.parametrize("estimator", ["ips", "snips", "dr"])
def test_subnormal_pscores_weigh_at_a_scale(tmp_path, estimator):
    # 1 / pscore was inf in float64: ips and dr were nan (0 * inf, inf - inf) or inf,
    # snips nan (inf / inf); each weight is now computed at a scale, as an overflowing
    # term is, and the estimate equals the exact one (every float64 operation of a term
    # rounded without an exponent limit) on every backend
    import pyarrow as pa
    import pyarrow.parquet as pq

    func = {"ips": ips_estimate, "snips": snips_estimate, "dr": dr_estimate}[estimator]
    every = {**SUBNORMAL, **(MODEL if estimator == "dr" else {})}
    expected = oracle.to_float(_exact(estimator, every))
    assert math.isfinite(expected) and abs(expected) > 1e-300
    assert func(**every) == expected
    acc = rv.metric(estimator)
    for i in range(len(every["reward"])):  # one round a batch
        acc.update(**{k: v[i : i + 1] for k, v in every.items()})
    assert acc.compute() == expected
    pq.write_table(pa.table(every), tmp_path / "log.parquet")
    s = rv.scan(tmp_path / "log.parquet", batch_rows=2)
    assert func(**{k: s[k] for k in every}) == expected
    # clipped, no weight is beyond float64: the plain float64 terms
    clipped = oracle.to_float(_exact(estimator, every, clip=1e300))
    assert func(**every, clip=1e300) == clipped != expected
    # beyond float64's range the estimate is inf, as the exact one rounds
    beyond = {**every, "reward": [1.0] * 7, "estimated_rewards": [0.0] * 7}
    beyond = {k: v for k, v in beyond.items() if k in every}
    assert func(**beyond) == oracle.to_float(_exact(estimator, beyond))
    if estimator != "snips":
        assert func(**beyond) == math.inf


@pytest.mark.parametrize("estimator", ["ips", "snips", "dr"])
@pytest.mark.parametrize("case", ["subnormal pscores", "terms of +-2e333", "terms near 1e308"])
def test_interval_bounds_beyond_float64_terms(estimator, case):
    # a resample whose float64 mean (or sums) overflowed made its replicate inf or nan,
    # and the bounds inf or nan where they are floats; such resamples are computed
    # exactly and the bounds are the exact percentiles (inf only beyond float64)
    every = {**SUBNORMAL, **MODEL}
    if case == "subnormal pscores":  # no term beyond float64: finite bounds
        every = {k: v[:5] for k, v in every.items()}
    elif case == "terms near 1e308":  # terms in range whose sums are not
        every = {"reward": [1.5e308, 1.5e308, 1.0, -1.0], "pscore": [1.0] * 4,
                 "action_dist": [1.0] * 4, "estimated_rewards": [0.0] * 4,
                 "estimated_value": [0.0] * 4}  # fmt: skip
    if estimator != "dr":
        every = {k: v for k, v in every.items() if k not in MODEL}
    model = {k: every[k] for k in MODEL if k in every}
    value, low, high = policy_value_interval(**every, estimator=estimator, n_resamples=200)
    assert value == oracle.to_float(_exact(estimator, every))
    want = oracle.exact_interval(estimator, every["reward"], every["pscore"],
                                 every["action_dist"], n_resamples=200, **model)  # fmt: skip
    assert [low, high] == pytest.approx(list(want), rel=1e-12)
    if case != "terms of +-2e333" or estimator == "snips":  # snips: within the rewards
        assert math.isfinite(low) and math.isfinite(high)
    else:  # resamples of one of the two rounds and not the other: beyond float64
        assert (low, high) == (-math.inf, math.inf)


def test_the_rounds_a_clip_lowers_are_counted_by_the_estimate():
    # receval off-policy counted them in a note, recomputing the weights; the library
    # said nothing: the estimate's own pass counts them (weights 2, 0, 2 and 2/3)
    r, p, t = [1, 0, 1, 0], [0.5, 0.5, 0.25, 0.75], [1.0, 0.0, 0.5, 0.5]
    report = rv.policy_value_report(r, p, action_dist=t, clip=1.5)
    assert report == rv.PolicyValueReport(0.75, "ips", 4, 1.5, 2)
    assert report.value == ips_estimate(r, p, action_dist=t, clip=1.5)
    assert report.counts() == {"clip": 1.5, "n_rounds": 4, "n_rounds_clipped": 2}
    assert rv.policy_value_report(r, p, action_dist=t).counts() == {}
    snips = rv.policy_value_report(r, p, action_dist=t, estimator="snips", clip=2)
    assert (snips.n_rounds_clipped, snips.value) == (0, snips_estimate(r, p, action_dist=t))
    acc = rv.metric("ips(clip=1.5)").update(r[:2], p[:2], action_dist=t[:2])
    acc.merge(rv.metric("ips", clip=1.5).update(r[2:], p[2:], action_dist=t[2:]))
    assert acc.skipped() == report.counts()
    assert rv.metric("ips").update(r, p, action_dist=t).skipped() == {}
    with pytest.raises(rv.InvalidParameterError, match="policy_value_report: estimated_value"):
        rv.policy_value_report(r, p, action_dist=t, estimated_value=[0.5] * 4)


@pytest.mark.parametrize("estimator", ["ips", "snips", "dr"])
@pytest.mark.parametrize("clip", [None, 2.0])
def test_interval_equals_a_bootstrap_by_hand(estimator, clip):
    """Open Bandit Pipeline's resampling (``RandomState(seed).choice(n, size=n)``) and
    NumPy's percentiles, of 2-D action distributions and a reward model."""
    rng = np.random.default_rng(4)
    n, k = 37, 4
    action = rng.integers(0, k, n)
    reward = (rng.random(n) < 0.4).astype(float)
    pscore = rng.dirichlet(np.ones(k), n)[np.arange(n), action]
    target = rng.dirichlet(np.full(k, 0.5), n)
    q = rng.random((n, k))
    w = target[np.arange(n), action] / pscore
    w = w if clip is None else np.minimum(w, clip)
    direct, logged = (target * q).sum(axis=1), q[np.arange(n), action]

    def estimate(i):
        if estimator == "snips":
            return np.sum(w[i] * reward[i]) / np.sum(w[i])
        return np.mean(
            w[i] * reward[i] + (direct[i] - w[i] * logged[i] if estimator == "dr" else 0)
        )

    state = np.random.RandomState(2**32 - 7)
    bootstrap = [estimate(state.choice(n, size=n)) for _ in range(300)]
    got = policy_value_interval(reward, pscore, action_dist=target, action=action,
                                estimated_rewards=q if estimator == "dr" else None,
                                estimator=estimator, clip=clip, confidence=0.9,
                                n_resamples=300, seed=2**32 - 7)  # fmt: skip
    want = [estimate(np.arange(n)), *np.percentile(bootstrap, [5, 95])]
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", ["ips", "snips", "dr"])
def test_a_clip_of_inf_in_a_metric_string_is_the_keyword_inf(name):
    every = {"reward": REWARD, "pscore": PSCORE, "action_dist": DIST, "action": ACTION}
    if name == "dr":
        every["estimated_rewards"] = Q
    by_keyword = rv.metric(name, clip=math.inf).update(**every)
    for text in (f"{name}(clip=inf)", f"{name}(clip=INF)"):
        by_string = rv.metric(text).update(**every)
        assert (
            by_string.compute() == by_keyword.compute() == rv.metric(name).update(**every).compute()
        )
        assert by_string.skipped() == by_keyword.skipped()
    for text in ("-inf", "nan", "0"):
        with pytest.raises(InvalidParameterError, match=r"clip must be a number > 0 or 'inf'"):
            rv.metric(f"{name}(clip={text})")
