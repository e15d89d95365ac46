"""Every pointwise metric against its oracle on hard values: scores drawn from a few
values so ties are frequent, at the ends of the input dtype's range (float64's
+-1e300, +-1e-300 and 5e-324; float32's and float16's largest, smallest normal and
smallest subnormal), in float16, float32 and float64 arrays, with weights of one
scale from 5e-324 to 2**997 (and zeros).

Each metric is computed three times, by ``receval.compute(name, ...)``, by its own
function (the registry row's) and by ``receval.metric(name)`` over two batches, and
each must equal the oracle: exact rationals rounded once where the definition is
rational, ``math.log`` of each row then exact sums where it takes a logarithm.
"""

from __future__ import annotations

import importlib
import itertools
import math
import re
import warnings
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import receval
from receval.exceptions import UndefinedMetricWarning
from tests.oracles import offpolicy as offpolicy_oracle
from tests.oracles import pointwise as oracle
from tests.oracles import xauc as xauc_oracle

DTYPES = [np.float16, np.float32, np.float64]
# a common scale of every weight: the smallest subnormal, 2**-997 (7.5e-301), 1 and
# 2**997 (1.3e300), powers of two, so that every weight is a few units of its scale
# (weights of more than 53 bits, rounded as they are summed: tests/metrics/test_weight_units)
SCALES = [5e-324, 2.0**-997, 1.0, 2.0**997]


def _extremes(dtype):
    """(largest, smallest normal, smallest subnormal) of ``dtype``; float64's are the
    round +-1e300 and +-1e-300 beside 5e-324."""
    if dtype is np.float64:
        return 1e300, 1e-300, 5e-324
    info = np.finfo(dtype)
    return float(info.max), float(info.tiny), float(info.smallest_subnormal)


def _scores(dtype):
    big, small, sub = _extremes(dtype)
    return [-big, -small, -sub, 0.0, sub, small, 0.5, big]


def _probabilities(dtype):
    _, small, sub = _extremes(dtype)
    return [0.0, sub, small, 0.5, 1.0 - float(np.finfo(dtype).epsneg), 1.0]


@st.composite
def hard_rows(draw, values, weighted=True, regression=False):
    """(y_true, values as ``dtype``, float64 weights or None): n in [2, 10], values
    from ``values(dtype)``; labels 0 and 1, the first two rows of each, or (for
    ``regression``) targets of ``dtype`` from the same values."""
    dtype = draw(st.sampled_from(DTYPES))
    n = draw(st.integers(2, 10))
    x = np.array(draw(st.lists(st.sampled_from(values(dtype)), min_size=n, max_size=n)), dtype)
    if regression:
        y = np.array(draw(st.lists(st.sampled_from(values(dtype)), min_size=n, max_size=n)), dtype)
    else:
        y = np.array(draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n)))
        y[0], y[1] = 0, 1
    w = None
    if weighted and draw(st.booleans()):
        scale = draw(st.sampled_from(SCALES))
        units = draw(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=n, max_size=n))
        units[0] = units[1] = 1
        w = np.array(units, dtype=np.float64) * scale
    return y, x, w


def _round(x):
    """A Fraction rounded once to a float (an infinity past the range)."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


# ---------------------------------------------------------------- oracles
def _unit(y, w):
    """The weights, or ones."""
    return np.ones(len(y)) if w is None else w


def _auc(y, s, w):
    return oracle.pair_auc_exact(y, s, _unit(y, w))


def _average_precision(y, s, w):
    return oracle.average_precision_exact(y, s, _unit(y, w))


def _pr_auc(y, s, w):
    return oracle.pr_auc_exact(y, s, _unit(y, w))


def _break_even_point(y, s, w):
    return oracle.break_even_exact(y, s, _unit(y, w))


def _ece(y, p, w):
    return oracle.ece_exact(y, p, 10, _unit(y, w))


def _partial_auc(y, s, w, max_fpr=Fraction(1, 2)):
    """McClish's standardised area under the ROC curve up to ``max_fpr``: the
    trapezoids of the (FPR, TPR) points from (0, 0), cut at ``max_fpr`` by linear
    interpolation, in exact rationals."""
    tps, fps = oracle.exact_sweep(y, s, _unit(y, w))
    points = [(Fraction(0), Fraction(0))]
    points += [(f / fps[-1], t / tps[-1]) for t, f in zip(tps, fps, strict=True)]
    area = Fraction(0)
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        if x0 >= max_fpr:
            break
        if x1 > max_fpr:  # cut the segment at max_fpr
            y1 = y0 + (y1 - y0) * (max_fpr - x0) / (x1 - x0)
            x1 = max_fpr
        area += (x1 - x0) * (y0 + y1) / 2
    low, high = max_fpr * max_fpr / 2, max_fpr
    return float((1 + (area - low) / (high - low)) / 2)


def _losses(y, p, dtype, rows=None):
    """Each row's log loss ``-ln q``, q its probability of the true label clipped to
    [eps, 1 - eps] (eps of ``dtype``), as exact rationals of the floats."""
    eps = float(np.finfo(dtype).eps)
    out = []
    for yi, pi in zip(y, p, strict=True):
        if rows is not None and not rows(yi):
            out.append(Fraction(0))
            continue
        q = float(pi) if yi == 1 else 1.0 - float(pi)
        out.append(Fraction(-math.log(min(max(q, eps), 1.0 - eps))))
    return out


def _mean(values, w):
    return sum(v * c for v, c in zip(values, w, strict=True)) / sum(w)


def _entropy(rate):
    r, q = float(rate), float(1 - rate)  # each share rounded once
    return Fraction(-r * math.log(r) - q * math.log(q))


def _log_loss(y, p, w):
    (we,) = oracle.exact(_unit(y, w))
    return float(_mean(_losses(y, p, p.dtype.type), we))


def _ne(y, p, w):
    (we,) = oracle.exact(_unit(y, w))
    rate = _mean([Fraction(int(v)) for v in y], we)
    return float(_mean(_losses(y, p, p.dtype.type), we) / _entropy(rate))


def _ne_positive(y, p, w):
    (we,) = oracle.exact(_unit(y, w))
    rate = _mean([Fraction(int(v)) for v in y], we)
    positive = _losses(y, p, p.dtype.type, rows=lambda label: label == 1)
    return float(_mean(positive, we) / _entropy(rate))


def _calibration_free_ne(y, p, w):
    """NE over ``C = W (-b log2 q - (1 - b) log2(1 - q))``: W the total weight, b the
    base rate and q the (unclipped) mean prediction."""
    pe, we = oracle.exact(p, _unit(y, w))
    rate = float(_mean([Fraction(int(v)) for v in y], we))
    mean = float(_mean(pe, we))
    if not 0 < mean < 1:
        return math.nan
    per_weight = -rate * math.log2(mean) - (1 - rate) * math.log2(1 - mean)
    return _round(Fraction(_ne(y, p, w)) / (Fraction(per_weight) * sum(we)))


def _pcoc(y, p, w):
    pe, we = oracle.exact(p, _unit(y, w))
    clicks = sum(c for v, c in zip(y, we, strict=True) if v == 1)
    return float(sum(a * c for a, c in zip(pe, we, strict=True)) / clicks)


def _copc(y, p, w):
    pe, we = oracle.exact(p, _unit(y, w))
    predicted = sum(a * c for a, c in zip(pe, we, strict=True))
    clicks = sum(c for v, c in zip(y, we, strict=True) if v == 1)
    return _round(clicks / predicted) if predicted else math.nan  # a zero denominator


def _sqrt(x):
    """The square root of a non-negative Fraction to at least 64 significant bits, as a
    float."""
    n, d = x.numerator, x.denominator
    shift = max(0, 128 - (n.bit_length() - d.bit_length()))
    shift += shift % 2
    return float(Fraction(math.isqrt((n << shift) // d), 1 << shift // 2))


def _rmse(y, x, w):
    return _sqrt(oracle.mean_errors_exact(y, x, _unit(y, w))[0])


def _mae(y, x, w):
    return _round(oracle.mean_errors_exact(y, x, _unit(y, w))[1])


def _xauc(y, s, w):
    value = xauc_oracle.pair_xauc(y, s, w)
    return value if isinstance(value, float) else float(value)


def _regression_auc(y, s, w):
    return float(xauc_oracle.pair_regression_auc(y, s))


def _group_rows(groups):
    """The rows of each group, in order of first appearance."""
    return [groups == key for key in dict.fromkeys(groups.tolist())]


def _gauc(y, s, w, groups):
    """Each group's exact AUC weighted by its total weight (impressions), one-class
    groups left out, in exact rationals rounded once."""
    w = _unit(y, w)
    # each group's AUC as the kernel rounds it, then the weighted mean exactly
    aucs = oracle.group_aucs_exact(y, s, groups, w).tolist()
    weights = [sum(next(oracle.exact(w[rows]))) for rows in _group_rows(groups)]
    kept = [(Fraction(a), c) for a, c in zip(aucs, weights, strict=True) if c and not math.isnan(a)]
    den = sum(c for _, c in kept)
    return float(sum(a * c for a, c in kept) / den) if den else math.nan


def _grouped_xauc(y, s, w, groups):
    return xauc_oracle.pair_grouped_xauc(y.tolist(), s.tolist(), groups.tolist(), w)


def _grouped_auprc(y, s, w, groups):
    """The plain mean of each group's average precision, groups without a positive
    of positive weight left out."""
    w = _unit(y, w)
    values = [oracle.average_precision_exact(y[rows], s[rows], w[rows])
              for rows in _group_rows(groups)]  # fmt: skip
    kept = [v for v in values if not math.isnan(v)]
    return float(sum(Fraction(v) for v in kept) / len(kept)) if kept else math.nan


def _grouped_regression_auc(y, s, w, groups):
    """The plain mean of each group's regression AUC, groups of one row left out."""
    kept = [xauc_oracle.pair_regression_auc(y[rows], s[rows]) for rows in _group_rows(groups)
            if rows.sum() > 1]  # fmt: skip
    return float(sum(kept) / len(kept)) if kept else math.nan


# name: (the values of the second column, the oracle, options)
POINTWISE = {
    "roc_auc": (_scores, _auc, {}),
    "average_precision": (_scores, _average_precision, {}),
    "pr_auc": (_scores, _pr_auc, {}),
    "break_even_point": (_scores, _break_even_point, {}),
    "partial_auc": (_scores, _partial_auc, {"max_fpr": 0.5}),
    "xauc": (_scores, _xauc, {}),
    "log_loss": (_probabilities, _log_loss, {}),
    "normalized_entropy": (_probabilities, _ne, {}),
    "normalized_entropy_positive": (_probabilities, _ne_positive, {}),
    "calibration_free_normalized_entropy": (_probabilities, _calibration_free_ne, {}),
    "brier_score": (_probabilities, oracle.brier, {}),
    "pcoc": (_probabilities, _pcoc, {}),
    "copc": (_probabilities, _copc, {}),
    "expected_calibration_error": (_probabilities, _ece, {}),
}
# regression metrics: targets and predictions both from the hard values
REGRESSION = {
    "r2": (oracle.r2, {}),
    "explained_variance": (oracle.explained_variance, {}),
    "mean_absolute_error": (_mae, {}),
    "root_mean_squared_error": (_rmse, {}),
    "regression_auc": (_regression_auc, {}),
}
# grouped metrics: (the oracle, whether y_true holds regression targets)
GROUPED = {
    "gauc": (_gauc, False),
    "grouped_xauc": (_grouped_xauc, True),
    "grouped_auprc": (_grouped_auprc, False),
    "grouped_regression_auc": (_grouped_regression_auc, True),
}
# off-policy estimators: their columns beside reward (DR's reward model too)
OFF_POLICY = {
    "ips": ("pscore", "action_dist"),
    "snips": ("pscore", "action_dist"),
    "dr": ("pscore", "action_dist", "estimated_rewards", "estimated_value"),
}


def _function(name):
    row = next(m for m in receval.list_metrics() if m.name == name)
    module, _, attribute = row.function_path.partition(":")
    return getattr(importlib.import_module(module), attribute)


def _values(name, options, *columns, sample_weight, **keywords):
    """``[(value, bound)]`` of the metric by ``receval.compute(name, ...)``, by its
    function, and by ``receval.metric(name)`` over two batches (the rows cut in two).

    ``bound`` is None, or the ``(low, high)`` that the warning of a moment metric whose
    products fell below float64's range (5e-324 squared) states; no other warning is
    allowed but that of an undefined value."""
    weights = keywords if sample_weight is None else {"sample_weight": sample_weight, **keywords}
    cut = len(columns[0]) // 2
    halves = [{k: c[a:b] for k, c in weights.items()} for a, b in ((0, cut), (cut, None))]

    def run(compute):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            value = compute()
        bounds = [_SPAN.search(str(w.message)) for w in caught]
        assert all(bounds), [str(w.message) for w in caught]
        return value, (float(bounds[0][1]), float(bounds[0][2])) if bounds else None

    def batches():
        accumulator = receval.metric(name, **options)
        for half, (a, b) in zip(halves, ((0, cut), (cut, None)), strict=True):
            accumulator.update(*(c[a:b] for c in columns), **half)
        return accumulator.compute()

    return [run(lambda: receval.compute(name, *columns, **weights, **options)),
            run(lambda: _function(name)(*columns, **weights, **options)),
            run(batches)]  # fmt: skip


_SPAN = re.compile(r"span more than float64's range .* lies between (\S+) and (\S+): ")


def _assert_equal(result, want, name):
    got, bound = result
    if bound is not None:  # a value given with its bound
        assert bound[0] <= want <= bound[1], (name, bound, want)
    elif math.isnan(want):
        assert math.isnan(got), name
    elif math.isinf(want):
        assert got == want, name
    else:
        assert got == pytest.approx(want, rel=1e-12, abs=1e-300), name


def test_every_pointwise_metric_is_in_a_test():
    families = ("pointwise", "grouped", "off_policy")
    pointwise = {m.name for m in receval.list_metrics() if m.family in families}
    assert pointwise == set(POINTWISE) | set(REGRESSION) | set(GROUPED) | set(OFF_POLICY)


@pytest.mark.parametrize("name", sorted(POINTWISE))
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_hard_scores_and_probabilities_equal_the_oracle(name, data):
    values, reference, options = POINTWISE[name]
    y, x, w = data.draw(hard_rows(values))
    want = reference(y, x, w)
    for got in _values(name, options, y, x, sample_weight=w):
        _assert_equal(got, want, name)


@pytest.mark.parametrize("name", sorted(REGRESSION))
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_hard_targets_and_predictions_equal_the_oracle(name, data):
    reference, options = REGRESSION[name]
    y, x, w = data.draw(hard_rows(_scores, weighted=name != "regression_auc", regression=True))
    assume(len(set(y.tolist())) > 1)  # a constant target: tests/metrics/test_regression.py
    want = reference(y, x, w)
    for got in _values(name, options, y, x, sample_weight=w):
        _assert_equal(got, want, name)


@pytest.mark.parametrize("name", sorted(GROUPED))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_grouped_metrics_of_hard_scores_equal_the_group_loop(name, data):
    reference, regression = GROUPED[name]
    weighted = name != "grouped_regression_auc"
    y, s, w = data.draw(hard_rows(_scores, weighted=weighted, regression=regression))
    g = np.array(data.draw(st.lists(st.integers(0, 2), min_size=len(y), max_size=len(y))))
    want = reference(y, s, w, g)
    for got in _values(name, {}, y, s, sample_weight=w, groups=g):
        _assert_equal(got, want, name)


@pytest.mark.parametrize("name", sorted(OFF_POLICY))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_off_policy_estimates_of_hard_values_equal_the_exact_oracle(name, data):
    dtype = data.draw(st.sampled_from(DTYPES))
    big, small, sub = _extremes(dtype)
    n = data.draw(st.integers(1, 8))
    pools = {  # a pscore is positive; the others any value of the dtype
        "reward": [-big, -1.0, 0.0, sub, small, 1.0, big],
        "pscore": [sub, small, 0.5, 1.0],
        "action_dist": [0.0, sub, small, 0.5, 1.0],
        "estimated_rewards": [-big, 0.0, small, 1.0, big],
        "estimated_value": [-1.0, 0.0, sub, 0.5, big],
    }
    columns = {k: np.array(data.draw(st.lists(st.sampled_from(pools[k]), min_size=n,
                                               max_size=n)), dtype)
               for k in ("reward", *OFF_POLICY[name])}  # fmt: skip
    exact_columns = {k: c.tolist() for k, c in columns.items()}  # Python floats
    reward, pscore, target = (exact_columns.pop(k) for k in ("reward", "pscore", "action_dist"))
    exact = offpolicy_oracle.exact_estimate(name, reward, pscore, target, **exact_columns)
    want = math.nan if exact is None else offpolicy_oracle.to_float(exact)
    cut = n // 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        accumulator = receval.metric(name)
        for a, b in ((0, cut), (cut, None)):
            accumulator.update(**{k: c[a:b] for k, c in columns.items()})
        results = [receval.compute(name, **columns), _function(name)(**columns),
                   accumulator.compute()]  # fmt: skip
    for got in results:
        _assert_equal((got, None), want, name)


@pytest.mark.parametrize(
    "name, options, want",
    [("log_loss", {}, math.log(2)), ("log_loss", {"normalize": False}, 5e-324),
     ("normalized_entropy", {}, 1.0), ("normalized_entropy_positive", {}, 0.5),
     ("pcoc", {}, 1.0), ("copc", {}, 1.0), ("calibration_free_normalized_entropy", {}, math.inf)],
)  # fmt: skip
def test_sums_of_subnormal_weights_keep_their_products(name, options, want):
    # weights of 5e-324 times 0.5 fell below float64's range, each product rounded to 0
    # or 5e-324 on its own: the batches' log loss was 1.0, PCOC 0.0, and the
    # calibration-free NE nan ("the mean prediction is 0.0") even in one call
    y, p, w = np.array([0, 1]), np.array([0.5, 0.5]), np.array([5e-324, 5e-324])
    for got, bound in _values(name, options, y, p, sample_weight=w):
        assert bound is None
        assert got == pytest.approx(want, rel=1e-15, abs=0), name


def _ne_digits(y, p, w):
    """NE, NE on positives and calibration-free NE of float64 rows in 1300 significant
    digits: the base rate's entropy of the positives' and the negatives' exact weights,
    each share's log its own (a share of 1e-600 beside one of 1 - 1e-600 keeps both)."""
    with localcontext() as context:
        context.prec = 1300
        weights, probabilities = [Decimal(x) for x in w], [Decimal(x) for x in p]
        total = sum(weights)
        shares = [sum(x for x, label in zip(weights, y, strict=True) if label == c) / total
                  for c in (0, 1)]  # fmt: skip
        entropy = -sum(s * s.ln() for s in shares)
        eps = Decimal(float(np.finfo(np.float64).eps))
        losses = [-(q if label else 1 - q).ln()
                  for label, q in zip(y, (min(max(x, eps), 1 - eps) for x in probabilities),
                                      strict=True)]  # fmt: skip
        terms = list(zip(weights, losses, y, strict=True))
        ne = sum(x * v for x, v, _ in terms) / total / entropy
        positive = sum(x * v for x, v, label in terms if label) / total / entropy
        mean = sum(x * q for x, q in zip(weights, probabilities, strict=True)) / total
        per_weight = -(shares[1] * mean.ln() + shares[0] * (1 - mean).ln()) / Decimal(2).ln()
        values = {"normalized_entropy": ne, "normalized_entropy_positive": positive,
                  "calibration_free_normalized_entropy": ne / (total * per_weight)}  # fmt: skip
        return {name: _round(Fraction(x)) for name, x in values.items()}


@pytest.mark.parametrize(
    "y, p, w",
    [([1, 0], [0.7, 0.2], [1e16, 1.0]), ([0, 1], [0.3, 0.8], [1e16, 1.0]),
     ([1, 0], [0.7, 0.2], [1e12, 1.0]), ([0, 1], [0.3, 0.8], [1e12, 1.0]),
     ([1, 0, 1], [0.5, 0.5, 0.9], [1e17, 1.0, 3.0]), ([1, 0], [0.5, 0.5], [1e-300, 1e300]),
     ([0, 1], [0.5, 0.5], [1e-300, 1e300]), ([1, 0], [0.5, 0.5], [1e300, 1e-300])],
)  # fmt: skip
def test_ne_of_one_class_outweighing_the_other_by_far(y, p, w):
    """NE and its variants take each class's share of the weight from the exact sums, the
    same whichever class is the larger (y -> 1 - y, p -> 1 - p): a positives' share rounded
    to 1.0 gave nan with a false "single class" warning, one of 1 - 1e-12 lost digits (NE
    1.24579056e10 for 1.24576397e10), and shares or NE on positives below float64's range
    were nan. Weights of 1e-300 in one call only: a batch of 1e-300 alone merged with one
    of 1e300 keeps the bits of the larger's scale (engine.totals.Totals)."""
    wants = _ne_digits(y, p, w)
    y, p, w = np.array(y), np.array(p), np.array(w)
    calls = 3 if w.min() >= 1 else 2
    for name, want in wants.items():
        assert 0 <= want, name
        for got, bound in _values(name, {}, y, p, sample_weight=w)[:calls]:
            assert bound is None
            assert got == pytest.approx(want, rel=1e-14, abs=0), name


@pytest.mark.parametrize("weighted", [[5e-324, 5e-324, 0.0], [1e-300, 1e-300, 0.0]])
def test_rows_of_weight_zero_set_no_scale(weighted):
    # the row of weight 0 and y_true -1e300 scaled y_true by 2**-997, which took the
    # others (-1e-300, -5e-324) below float64's range: R^2 was 0.0 with a warning that
    # it lies in [-inf, 1], not the exact -inf
    y, p = np.array([-1e-300, -5e-324, -1e300]), np.full(3, -1e300)
    want = {"r2": oracle.r2(y, p, weighted), "explained_variance": 0.0}
    assert want["r2"] == -math.inf
    for name, value in want.items():
        by_compute, by_function, by_batches = _values(name, {}, y, p,
                                                      sample_weight=np.array(weighted))  # fmt: skip
        assert by_compute == by_function == (value, None), name
        _assert_equal(by_batches, value, name)  # batches of other scales: a bound


@pytest.mark.parametrize(
    "name, options, p, w",
    [("copc", {}, [0.0, 5e-324], None),
     ("log_loss", {"normalize": False}, [0.9, 0.1], [1e308, 1e308])],
)  # fmt: skip
def test_a_value_past_float64s_range_is_an_infinity_without_numpys_warning(name, options, p, w):
    # clicks over predicted clicks of 5e-324 is 2**1074, a summed log loss of weights
    # near 1e308 is past 1e308: numpy's "overflow encountered in ldexp" RuntimeWarning
    # came with the infinity
    y, w = np.array([0, 1]), None if w is None else np.array(w)
    for got, bound in _values(name, options, y, np.array(p), sample_weight=w):
        assert (got, bound) == (math.inf, None)


@pytest.mark.parametrize("interpolation", ["step", "davis_goadrich"])
def test_grouped_auprc_of_batches_of_subnormal_weights(interpolation):
    # a group's rows in two batches keep their weights of 5e-324 (no scaling of every
    # row reaches them): its true positives times precision 1/2 underflowed to 0
    y, s, g = np.array([0, 1]), np.array([-1.0, -1.0]), np.array([7, 7])
    w = np.array([5e-324, 5e-324])
    options = {"interpolation": interpolation}
    for got, bound in _values("grouped_auprc", options, y, s, sample_weight=w, groups=g):
        assert (got, bound) == (0.5, None)


def test_grouped_auprc_of_a_group_of_weights_far_apart():
    # each group's weights were scaled to put the largest in [0.5, 1): a weight 2**2000
    # below it in the same group fell to 0, and the AUPRC with it (nan for 1.0)
    y, s, g = np.array([1, 0, 0]), np.array([0.9, 0.5, 0.1]), np.array([1, 1, 1])
    w = np.array([2.0**-1000, 2.0**1000, 1.0])
    want = receval.average_precision_score(y, s, sample_weight=w)
    for got, _ in _values("grouped_auprc", {}, y, s, sample_weight=w, groups=g):
        assert got == want == 1.0


def test_grouped_auprc_of_a_group_whose_largest_weight_is_one():
    # a largest weight of exactly 1 was halved with the group's (into [0.5, 1)) though
    # its weights of 5e-324 then fell to 0: the group had no positive left (nan)
    y, s, g = np.array([1, 0, 1]), np.array([0.9, 0.5, 0.1]), np.array([1, 1, 1])
    w = np.array([5e-324, 1.0, 5e-324])
    want = _grouped_auprc(y, s, w, g)
    for got, _ in _values("grouped_auprc", {}, y, s, sample_weight=w, groups=g):
        assert got == want == 0.5


def test_grouped_auprc_of_tiny_positives_tied_with_a_negative():
    # a threshold's weight of positives times its precision, both near 5e-324, underflowed
    # to 0 (a silent 0.0); each threshold's share of the positives is taken first
    y, s, g = np.array([0, 1, 0]), np.array([-1.0, -1.0, -2.0]), np.array([1, 1, 1])
    w = np.array([5e-324, 5e-324, 1.0])
    want = _grouped_auprc(y, s, w, g)
    for got, _ in _values("grouped_auprc", {}, y, s, sample_weight=w, groups=g):
        assert got == want == 0.5


def test_grouped_auprc_of_small_weights_after_a_group_of_large_ones():
    # the running sums of every group were one running sum less the groups before it:
    # group b's positive of weight 1e-17 after group a's total of 2 cancelled to 0, and
    # its AUPRC with it (0.5 for 1.0)
    y, s = np.array([1, 0, 1, 0]), np.array([0.9, 0.1, 0.9, 0.1])
    g, w = np.array([1, 1, 2, 2]), np.array([1.0, 1.0, 1e-17, 1.0])
    for interpolation in ("step", "davis_goadrich"):
        options = {"interpolation": interpolation}
        for got, _ in _values("grouped_auprc", options, y, s, sample_weight=w, groups=g):
            assert got == _grouped_auprc(y, s, w, g) == 1.0
