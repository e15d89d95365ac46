"""The corrections over catalogues of any size they take (up to 2**63 - 1 items), and
a clear refusal beyond: the "rank" estimate overflowed int64 (a negative MRR, a
recall@10 summing to thousands, a nan NDCG) and a catalogue of 2**64 raised a raw
OverflowError from the core."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import receval
from receval.exceptions import InvalidParameterError

#: the greatest catalogue the corrections take
MOST = 2**63 - 1


def _estimates(n: int, size: int) -> np.ndarray:
    """floor(1 + (r~ - 1)(N - 1) / n) for r~ = 1..n+1, in Python's integers."""
    return np.array([float(1 + s * (size - 1) // max(n, 1)) for s in range(n + 1)])


@pytest.mark.parametrize("size", [10**14, 2**53 + 7, 3 * 10**18 + 1, MOST])
@pytest.mark.parametrize("n", [1, 3, 7, 100_000])
def test_the_rank_estimate_is_exact_for_every_catalogue_size(n, size):
    got = receval.corrected_metric("mrr", n, size, "rank")
    np.testing.assert_array_equal(got, 1.0 / _estimates(n, size))
    assert (got > 0).all()


def test_the_rank_correction_of_a_huge_catalogue_is_a_metric():
    # it gave mrr -1.18e-14, a recall@10 summing to 7768 and an ndcg of nan
    n, size = 100_000, 10**14
    assert receval.corrected_metric("mrr", n, size, "rank")[-1] == 1.0 / size
    assert receval.corrected_metric("recall@10", n, size, "rank").sum() == 1.0
    ndcg = receval.corrected_metric("ndcg", n, size, "rank")
    assert ndcg[-1] == pytest.approx(1.0 / np.log2(size + 1.0), rel=1e-15)
    assert np.isfinite(ndcg).all() and (np.diff(ndcg) <= 0).all()


def _refusal(func: str, size: int, low: int = 2) -> str:
    return (
        f"The 'catalog_size' parameter of {func} must be an integer in [{low}, 2**63 - 1] (the "
        f"corrections count the catalogue's ranks in 64-bit integers). Got {size} instead; "
        f"pass the number of items a full ranking ranks."
    )


@pytest.mark.parametrize("correction", ["rank", "minimal_bias", "bv"])
@pytest.mark.parametrize("size", [MOST + 1, 2**64, 10**30])
def test_corrected_metric_refuses_a_catalogue_beyond_the_corrections(correction, size):
    with pytest.raises(InvalidParameterError) as info:
        receval.corrected_metric("recall@10", 10, size, correction)
    assert str(info.value) == _refusal("corrected_metric", size)


QRELS = {"u": {"a": 1}}
RUN = {"u": {"a": 1.0, "b": 0.5}}


def test_evaluate_refuses_a_catalogue_beyond_the_corrections():
    size = 2**64
    sets = receval.Candidates.from_dict({"u": ["a", "b"]})
    with pytest.raises(InvalidParameterError) as info:
        receval.evaluate(QRELS, RUN, ["mrr"], candidates=sets, correction="rank",
                         catalog_size=size)  # fmt: skip
    assert str(info.value) == _refusal("evaluate", size)


@pytest.mark.parametrize("size", [MOST + 1, 2**64, 10**30])
@pytest.mark.parametrize(
    "build",
    [
        lambda size: receval.Candidates(["u", "u"], ["a", "b"], catalog_size=size),
        lambda size: receval.Candidates.from_dict({"u": ["a", "b"]}, catalog_size=size),
    ],
    ids=["init", "from_dict"],
)
def test_candidates_refuse_a_catalogue_beyond_the_corrections_when_built(build, size):
    # it was kept, and refused only when evaluate read it for a correction
    with pytest.raises(InvalidParameterError) as info:
        build(size)
    assert str(info.value) == _refusal("Candidates", size, low=1)


def test_candidates_take_the_greatest_catalogue_and_the_least():
    # 1: the catalogue sample_negatives gives of one item, which its sets carry
    for size in (1, MOST):
        assert receval.Candidates.from_dict({"u": ["a"]}, catalog_size=size).catalog_size == size
    drawn = receval.sample_negatives({"u": {"a": 1}}, ["a"], n=1, seed=0)
    back = receval.Candidates.from_dict(drawn.to_dict(), catalog_size=drawn.catalog_size)
    assert back.catalog_size == drawn.catalog_size == 1


def test_evaluate_takes_the_greatest_catalogue():
    sets = receval.Candidates.from_dict({"u": ["a", "b"]})
    report = receval.evaluate(QRELS, {"u": {"a": 0.5, "b": 1.0}}, ["ndcg"], candidates=sets,
                              correction="rank", catalog_size=MOST)  # fmt: skip
    # one negative of one above: the full rank 1 + (N - 1) = N
    assert report.mean["ndcg"] == pytest.approx(1.0 / np.log2(MOST + 1.0), rel=1e-12)


def test_sampled_report_names_itself_in_its_warnings():
    # it said "evaluate: the 'minimal_bias' correction ..."
    items = ["a", "b", *(f"x{i}" for i in range(2000))]
    qrels = {"u": {"a": 1}, "v": {"b": 1}}
    run = {u: {item: float(j) for j, item in enumerate(items)} for u in qrels}
    sets = receval.sample_negatives(qrels, items, n=60, seed=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        receval.sampled_report(qrels, run, ["recall@1"], candidates=sets,
                               corrections=["minimal_bias"])  # fmt: skip
    said = [str(w.message) for w in caught]
    assert said and all(m.startswith("sampled_report: ") for m in said), said
