"""Live parity on random inputs: receval against ir_measures, ranx and pytrec_eval.

Every case is drawn from a seeded generator: graded qrels with grades -1, 0, 1, 2, 3 (a
negative grade is a judged non-relevant item), users without any relevant item, unjudged
run items, many tied scores, users missing on each side and users with an empty ranking.
Per-user values and means must agree to 1e-12 (gdeval prints 5 decimals: 5e-6).

What each peer does, from its source (see the report of issue 13):

- ir_measures 0.4.3 routes P, R, AP, AP@k, nDCG, nDCG@k, RR, Success, Rprec, SetP/R/F to
  pytrec_eval (trec_eval 9.0.8: scores compared as C floats, ties by docno descending), RR@k
  to its MS MARCO script (scores as doubles, ties by docno ascending), nDCG(dcg='exp-log2')@k
  to gdeval.pl and nDCG(dcg='exp-log2') to ranx; every qrels query that a provider does not
  score (absent from the run, or without a relevant document for MS MARCO / gdeval) gets the
  measure's DEFAULT, 0, and counts in the mean.
- ranx 0.3.21 sorts each ranking with numba's np.argsort (quicksort): lists of at most 15
  items are insertion-sorted, so tied items keep their input order; longer lists are
  partitioned and tied items come out in no fixed relation to the input. Ties are therefore
  only drawn for lists of at most 15 items.
- pytrec_eval reads stale state for a query whose judgments are all negative (trec_eval's
  form_res_rels leaves num_rel_levels from the previous query; its ndcg can then loop for a
  very long time), so every generated user has at least one grade >= 0.
"""

import warnings

import numpy as np
import pytest

from receval import InputValidationError, TieOrderWarning, evaluate

# ranx compiles its kernels with numba on first use (about two minutes of a fresh
# machine's CPU, cached on disk after): one worker of a parallel run takes every
# module that calls ranx, so that they are compiled once
pytestmark = pytest.mark.xdist_group("ranx")

SEEDS = range(24)
TOL = 1e-12


# ------------------------------------------------------------------------ the generator


def random_case(
    seed,
    *,
    n_users=30,
    n_items=50,
    max_len=30,
    scores="tied",
    negative=True,
    empty_rankings=True,
    same_users=False,
):
    """``(qrels, run)`` dicts; user ids are digit strings (gdeval needs numeric topics).

    scores: "tied" (4 distinct values), "near" (values 1e-10 apart: tied in single precision
    only) or "distinct".
    """
    rng = np.random.default_rng(seed)
    grades = [-1, 0, 0, 1, 2, 3] if negative else [0, 0, 1, 2, 3]
    qrels, run = {}, {}
    for u in range(n_users):
        user = str(u)
        in_qrels = same_users or rng.random() < 0.9
        in_run = same_users or rng.random() < 0.85
        if in_qrels:
            n = int(rng.integers(1, 12))
            judged = rng.choice(n_items, n, replace=False)
            g = rng.choice(grades, n)
            if rng.random() < 0.15:  # a user without a relevant item
                g = np.minimum(g, 0)
            if g.max() < 0:  # see the module docstring: pytrec_eval needs one grade >= 0
                g[0] = 0
            qrels[user] = {f"d{i}": int(x) for i, x in zip(judged, g, strict=True)}
        if in_run:
            n = int(rng.integers(1, max_len + 1))
            if empty_rankings and rng.random() < 0.05:
                n = 0
            items = rng.choice(n_items, n, replace=False)
            if scores == "tied":
                s = rng.choice([0.1, 0.2, 0.3, 0.5], n)
            elif scores == "near":
                s = rng.choice([0.1, 0.2, 0.3], n) + rng.integers(0, 2, n) * 1e-10
            else:
                s = rng.random(n)
            run[user] = {f"d{i}": float(x) for i, x in zip(items, s, strict=True)}
    if not any(run.values()):  # receval refuses a run without a single row
        run["0"] = {"d0": 1.0}
    return qrels, run


def _values(report, metric):
    return dict(zip([str(u) for u in report.users], report.values[metric].tolist(), strict=True))


# ------------------------------------------------------------------ (a) ir_measures


def _ir_measures():
    import ir_measures

    return ir_measures


def _trec_side():
    """Measures ir_measures gives to pytrec_eval, with their receval strings."""
    im = _ir_measures()
    P, R, AP, nDCG, RR, Success = im.P, im.R, im.AP, im.nDCG, im.RR, im.Success
    Rprec, SetP, SetR, SetF = im.Rprec, im.SetP, im.SetR, im.SetF
    pairs = [
        (P @ 1, "precision@1"),
        (P @ 5, "precision@5"),
        (P @ 10, "precision@10"),
        (R @ 5, "recall@5"),
        (R @ 20, "recall@20"),
        (AP, "map"),
        (AP @ 5, "map@5"),
        (AP @ 20, "map@20"),
        (nDCG, "ndcg"),
        (nDCG @ 5, "ndcg@5"),
        (nDCG @ 10, "ndcg@10"),
        (RR, "mrr"),
        (Success @ 1, "success@1"),
        (Success @ 5, "success@5"),
        (Rprec, "r_precision"),
        (SetP, "precision"),
        (SetR, "recall"),
        (SetF, "f1"),
        (P(rel=2) @ 5, "precision(rel_threshold=2)@5"),
        (R(rel=2) @ 10, "recall(rel_threshold=2)@10"),
        (AP(rel=2), "map(rel_threshold=2)"),
        (AP(rel=2) @ 10, "map(rel_threshold=2)@10"),
        (RR(rel=2), "mrr(rel_threshold=2)"),
        (Success(rel=2) @ 5, "success(rel_threshold=2)@5"),
        (Rprec(rel=2), "r_precision(rel_threshold=2)"),
        (SetP(rel=2), "precision(rel_threshold=2)"),
        (SetR(rel=2), "recall(rel_threshold=2)"),
        (SetF(rel=2), "f1(rel_threshold=2)"),
    ]
    for measure, _ in pairs:
        assert im.pytrec_eval.supports(measure)
    return pairs


def _rr_cutoff_side():
    """RR@k: ir_measures' MS MARCO provider."""
    im = _ir_measures()
    pairs = [
        (im.RR @ 5, "mrr@5"),
        (im.RR @ 10, "mrr@10"),
        (im.RR(rel=2) @ 5, "mrr(rel_threshold=2)@5"),
    ]
    for measure, _ in pairs:
        assert not im.pytrec_eval.supports(measure) and im.msmarco.supports(measure)
    return pairs


def _peer_values(provider, pairs, qrels, run):
    measures = [m for m, _ in pairs]
    per = {m: {} for m in measures}
    for metric in provider.iter_calc(measures, qrels, run):
        per[metric.measure][metric.query_id] = metric.value
    return per, provider.calc_aggregate(measures, qrels, run)


def _compare(report, pairs, per, aggregate, qrels, tol=TOL):
    for measure, text in pairs:
        got = _values(report, text)
        assert sorted(per[measure]) == sorted(qrels), text  # every qrels query, none else
        for query, value in per[measure].items():
            assert got[query] == pytest.approx(value, abs=tol, rel=0), (text, query)
        assert report.mean[text] == pytest.approx(aggregate[measure], abs=tol, rel=0), text


def _scores_of(seed):
    return ("tied", "near", "distinct")[seed % 3]


@pytest.mark.parametrize("seed", SEEDS)
def test_ir_measures_pytrec_eval_measures(seed):
    pairs = _trec_side()
    qrels, run = random_case(seed, scores=_scores_of(seed))
    per, aggregate = _peer_values(_ir_measures(), pairs, qrels, run)
    report = evaluate(qrels, run, [t for _, t in pairs], profile="ir_measures")
    _compare(report, pairs, per, aggregate, qrels)


@pytest.mark.parametrize("seed", SEEDS)
def test_ir_measures_pytrec_eval_measures_by_conventions(seed):
    # what profile="ir_measures" must set for these measures, spelled out: trec_eval's
    # conventions, except that queries absent from the run count 0 (ir_measures fills them
    # with the measure's DEFAULT)
    pairs = _trec_side()
    qrels, run = random_case(seed, scores=_scores_of(seed))
    per, aggregate = _peer_values(_ir_measures(), pairs, qrels, run)
    report = evaluate(qrels, run, [t for _, t in pairs], profile="trec_eval", missing_users="zero")
    _compare(report, pairs, per, aggregate, qrels)


@pytest.mark.parametrize("seed", SEEDS)
def test_ir_measures_rr_at_k(seed):
    # MS MARCO: ties by doc id ascending, scores compared as doubles ("near" seeds tell
    # this apart from trec_eval's single precision), and RR (no cutoff) of the same run
    # still goes to pytrec_eval
    im = _ir_measures()
    pairs = [*_rr_cutoff_side(), (im.RR, "mrr")]
    qrels, run = random_case(seed, scores=_scores_of(seed))
    per, aggregate = _peer_values(im, pairs, qrels, run)
    report = evaluate(qrels, run, [t for _, t in pairs], profile="ir_measures")
    _compare(report, pairs, per, aggregate, qrels)


@pytest.mark.parametrize("seed", SEEDS)
def test_ir_measures_rr_at_k_by_conventions(seed):
    pairs = _rr_cutoff_side()
    qrels, run = random_case(seed, scores=_scores_of(seed))
    per, aggregate = _peer_values(_ir_measures(), pairs, qrels, run)
    report = evaluate(
        qrels,
        run,
        [t for _, t in pairs],
        ties="id_ascending",
        missing_users="zero",
        empty_users="zero",
    )
    _compare(report, pairs, per, aggregate, qrels)


@pytest.mark.parametrize("seed", range(8))
def test_ir_measures_ndcg_exp_at_k_gdeval(seed):
    # gdeval.pl: gain 2^g - 1 of the grades > 0, ideal over the judged items, ties by doc id
    # descending with scores as doubles (no "near" seeds here), values printed with %.5f
    im = _ir_measures()
    if not im.gdeval.is_available():
        pytest.skip("gdeval needs perl")
    pairs = [
        (im.nDCG(dcg="exp-log2") @ 5, "ndcg(gain=exponential)@5"),
        (im.nDCG(dcg="exp-log2") @ 10, "ndcg(gain=exponential)@10"),
    ]
    for measure, _ in pairs:
        assert not im.pytrec_eval.supports(measure) and im.gdeval.supports(measure)
    qrels, run = random_case(seed, scores=("tied", "distinct")[seed % 2])
    per, aggregate = _peer_values(im, pairs, qrels, run)
    report = evaluate(qrels, run, [t for _, t in pairs], profile="ir_measures")
    _compare(report, pairs, per, aggregate, qrels, tol=5e-6 + TOL)


def _ranx_provider_ndcg_exp(seed):
    """``(measure, qrels, run, per, aggregate)``: nDCG(dcg='exp-log2') without a cutoff, which
    ir_measures gives to its ranx provider. The provider fails with pandas >= 3 (ranx's
    Qrels.from_df asserts an object dtype); this computes what it computes
    (ranx_provider.py): ranx's ndcg_burges on the raw grades, a Run built from the run in its
    input order, and the same query ids on both sides (it asserts that)."""
    im = _ir_measures()
    import ranx

    measure = im.nDCG(dcg="exp-log2")
    assert im.ranx.supports(measure)
    for provider in im.DefaultPipeline.providers:
        if provider is im.ranx:
            break
        assert not (provider.supports(measure) and provider.is_available()), provider.NAME
    qrels, run = random_case(seed, max_len=15, scores="tied", same_users=True, empty_rankings=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "ndcg_burges", return_mean=False)
    per = {measure: dict(zip(sorted(qrels), values.tolist(), strict=True))}
    aggregate = {measure: float(np.mean(values))}
    return measure, qrels, run, per, aggregate


@pytest.mark.parametrize("seed", range(8))
def test_ir_measures_ndcg_exp_whole_list_ranx(seed):
    measure, qrels, run, per, aggregate = _ranx_provider_ndcg_exp(seed)
    report = evaluate(qrels, run, ["ndcg(gain=exponential)"], profile="ir_measures")
    _compare(report, [(measure, "ndcg(gain=exponential)")], per, aggregate, qrels)


@pytest.mark.parametrize("seed", range(8))
def test_ir_measures_ndcg_exp_whole_list_ranx_by_conventions(seed):
    # what profile="ir_measures" must set for this measure, spelled out: ranx's ties (input
    # order: lists of at most 15 items, see the module docstring); the rest is trec_eval's
    measure, qrels, run, per, aggregate = _ranx_provider_ndcg_exp(seed)
    report = evaluate(qrels, run, ["ndcg(gain=exponential)"], profile="ir_measures", ties="input")
    _compare(report, [(measure, "ndcg(gain=exponential)")], per, aggregate, qrels)


# ------------------------------------------------------------------------ (b) ranx

RANX_METRICS = {
    # receval metric string -> ranx metric string
    "hits@5": "hits@5",
    "hits@10": "hits@10",
    "hit_rate@1": "hit_rate@1",
    "hit_rate@5": "hit_rate@5",
    "precision@5": "precision@5",
    "precision@10": "precision@10",
    "precision": "precision",
    "recall@5": "recall@5",
    "recall": "recall",
    "f1@5": "f1@5",
    "f1": "f1",
    "r_precision": "r-precision",
    "mrr": "mrr",
    "mrr@3": "mrr@3",
    "map": "map",
    "map@5": "map@5",
    "dcg": "dcg",
    "dcg@5": "dcg@5",
    "dcg(gain=exponential)": "dcg_burges",
    "dcg(gain=exponential)@5": "dcg_burges@5",
    "ndcg": "ndcg",
    "ndcg@5": "ndcg@5",
    "ndcg_burges": "ndcg_burges",
    "ndcg_burges@10": "ndcg_burges@10",
    # ranx's "-l2": relevance level 2 (clean_qrels keeps grades >= 2; ndcg's gains too)
    "hit_rate(rel_threshold=2)@5": "hit_rate@5-l2",
    "precision(rel_threshold=2)@5": "precision@5-l2",
    "recall(rel_threshold=2)@10": "recall@10-l2",
    "f1(rel_threshold=2)": "f1-l2",
    "r_precision(rel_threshold=2)": "r-precision-l2",
    "mrr(rel_threshold=2)": "mrr-l2",
    "map(rel_threshold=2)@10": "map@10-l2",
    "ndcg(rel_threshold=2)@10": "ndcg@10-l2",
    "ndcg_burges(rel_threshold=2)@10": "ndcg_burges@10-l2",
    # rbp.p: graded RBP, the grades themselves from the threshold on, over the whole list
    # (the ranx profile's grades="raw")
    "rbp(p=0.8)": "rbp.8",
    "rbp(p=0.95)": "rbp.95",
    "rbp(p=0.5,rel_threshold=2)": "rbp.5-l2",
}
# bpref (a negative grade judged non-relevant: grades="raw") is asked of ranx one query at a
# time, and only of queries with a relevant item: for a query without one, _bpref divides by
# R = 0 inside a numba prange loop, which leaves that query and the rest of the thread's
# chunk of queries at 0 (so a batch's values depend on the thread count) and the
# ZeroDivisionError pending, to surface as a SystemError in a later numba call. receval
# gives such a query 0 (empty_users="zero"), the value ranx leaves in its array.
RANX_PER_QUERY = {"bpref": ("bpref", 1), "bpref(rel_threshold=2)": ("bpref-l2", 2)}


def _ranx_per_query(ranx, qrels, run, order):
    out = {}
    for name, threshold in RANX_PER_QUERY.values():
        out[name] = []
        for user in order:
            relevant = any(g >= threshold for g in qrels[user].values())
            if not relevant or not run.get(user):  # ranx.Run refuses an empty ranking
                out[name].append(0.0)  # nothing retrieved: 0, as make_comparable's
                continue
            one = ranx.evaluate(ranx.Qrels({user: qrels[user]}), ranx.Run({user: run[user]}), name)
            out[name].append(float(one))
    return out


def _ranx_bpref_where_undefined(metric, values, qrels, run, order):
    """ranx's bpref divides 0 by 0 (nan) for a user with a relevant item retrieved and no
    judged grade below the threshold; receval scores each relevant item retrieved 1 there
    (trec_eval's value, the limit of ranx's 1 - 0 / min(R, N)): relevant retrieved / R."""
    values = np.asarray(values, dtype=float)
    undefined = np.isnan(values)
    if not undefined.any():
        return values
    assert metric.startswith("bpref"), metric
    t = 2 if "rel_threshold=2" in metric else 1
    for i in np.flatnonzero(undefined):
        grades = qrels[order[i]]
        assert min(grades.values()) >= t  # N = 0
        relevant = {d for d, g in grades.items() if g >= t}
        values[i] = len(relevant & set(run.get(order[i], {}))) / len(relevant)
    return values


def _ranx_case(seed):
    # even seeds: ties, lists of at most 15 items (ranx's order is then the input order);
    # odd seeds: distinct scores, lists up to 40 items
    if seed % 2 == 0:
        return random_case(seed, max_len=15, scores="tied")
    return random_case(seed, max_len=40, scores="distinct")


@pytest.mark.parametrize("seed", SEEDS)
def test_ranx(seed):
    import ranx

    qrels, run = _ranx_case(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = ranx.evaluate(
            ranx.Qrels(qrels),
            ranx.Run(run),  # a Run object: tied items in input order (a plain dict reverses them)
            list(RANX_METRICS.values()),
            return_mean=False,
            make_comparable=True,  # queries absent from the run: empty, scored 0
        )
        order = sorted(qrels)  # ranx's query order
        expected |= _ranx_per_query(ranx, qrels, run, order)
    with warnings.catch_warnings():  # ties only in lists of at most 15 items: no warning
        warnings.simplefilter("error", TieOrderWarning)
        report = evaluate(qrels, run, [*RANX_METRICS, *RANX_PER_QUERY], profile="ranx")
    names = RANX_METRICS | {metric: name for metric, (name, _) in RANX_PER_QUERY.items()}
    for metric, name in names.items():
        got = _values(report, metric)
        ours = np.array([got[u] for u in order])
        want = _ranx_bpref_where_undefined(metric, expected[name], qrels, run, order)
        np.testing.assert_allclose(ours, want, rtol=0, atol=TOL, err_msg=metric)
        assert report.mean[metric] == pytest.approx(float(np.mean(want)), abs=TOL)


@pytest.mark.parametrize("seed", range(8))
def test_ranx_rbp_bpref_differ_from_trec_eval(seed):
    # the cases above exercise what sets ranx apart: graded RBP gains (grades above 1) and
    # negative grades retrieved; profile="trec_eval" keeps trec_eval's reading
    qrels, run = _ranx_case(seed)
    metrics = ["rbp(p=0.8)", "bpref"]
    ranx_side = evaluate(qrels, run, metrics, profile="ranx")
    trec_side = evaluate(qrels, run, metrics, profile="trec_eval")
    assert ranx_side.conventions["bpref"].grades == "raw"
    assert trec_side.conventions["bpref"].grades == "trec"
    for metric in metrics:
        ours, theirs = _values(ranx_side, metric), _values(trec_side, metric)
        assert any(abs(ours[u] - theirs[u]) > 1e-9 for u in run if u in qrels), metric
    # and grades="raw" spelled out (with ranx's ties and missing users) gives the ranx
    # profile's values from trec_eval's
    spelled = evaluate(
        qrels, run, metrics, profile="trec_eval", grades="raw", ties="input", missing_users="zero"
    )
    for metric in metrics:
        ours, theirs = _values(ranx_side, metric), _values(spelled, metric)
        assert all(ours[u] == pytest.approx(theirs[u], abs=TOL) for u in qrels), metric


def test_ranx_keeps_input_order_of_ties_only_up_to_15_items():
    # the reason test_ranx draws ties only in short lists: numba's quicksort insertion-sorts
    # up to 15 items (stable) and partitions longer ones (tied items move)
    import ranx

    for n, stable in [(15, True), (16, False)]:
        items = [f"d{i:02d}" for i in range(n)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            order = list(ranx.Run({"q": dict.fromkeys(items, 1.0)}).run["q"].keys())
        assert (order == items) is stable, n
        # and profile="ranx" warns exactly where ranx's order is not the input order
        qrels = {"q": {"d00": 1}}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", TieOrderWarning)
            evaluate(qrels, {"q": dict.fromkeys(items, 1.0)}, ["ndcg"], profile="ranx")
        warned = any(issubclass(w.category, TieOrderWarning) for w in caught)
        assert warned is not stable, n


# ---------------------------------------------------------------- (c) pytrec_eval

TREC_MEASURES = {
    # receval metric string -> trec_eval measure
    "p@5": "P_5",
    "p@10": "P_10",
    "recall@5": "recall_5",
    "recall@100": "recall_100",
    "map": "map",
    "map@5": "map_cut_5",
    "map@100": "map_cut_100",
    "ndcg": "ndcg",
    "ndcg@5": "ndcg_cut_5",
    "ndcg@10": "ndcg_cut_10",
    "mrr": "recip_rank",
    "r_precision": "Rprec",
    "success@1": "success_1",
    "success@5": "success_5",
}
NDCG = {"ndcg", "ndcg@5", "ndcg@10"}


def _trec(qrels, run, measures=TREC_MEASURES, relevance_level=1):
    import pytrec_eval

    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, set(measures.values()), relevance_level=relevance_level
    )
    return evaluator.evaluate(run)


def _compare_trec(report, expected, measures=TREC_MEASURES):
    evaluated = sorted(expected)
    for metric, measure in measures.items():
        got = _values(report, metric)
        assert sorted(u for u, x in got.items() if x == x) == evaluated, metric
        for user in evaluated:
            assert got[user] == pytest.approx(expected[user][measure], abs=TOL), (metric, user)
        mean = np.mean([expected[u][measure] for u in evaluated])
        assert report.mean[metric] == pytest.approx(mean, abs=TOL), metric


@pytest.mark.parametrize("seed", range(10))
def test_trec_eval_negative_grades(seed):
    # trec_eval reads a negative grade as "in the pool, unjudged" (RELVALUE_UNJUDGED): never
    # relevant, no gain, not counted in any relevance level
    qrels, run = random_case(seed, scores="tied", empty_rankings=False)
    assert any(g < 0 for docs in qrels.values() for g in docs.values())
    report = evaluate(qrels, run, list(TREC_MEASURES), profile="trec_eval")
    _compare_trec(report, _trec(qrels, run))


@pytest.mark.parametrize("seed", range(10))
def test_trec_eval_rel_threshold_2(seed):
    # -l 2: the binary measures need grade >= 2; ndcg and ndcg_cut ignore -l (every positive
    # grade is its own gain, m_ndcg.c / m_ndcg_cut.c)
    qrels, run = random_case(seed, scores="tied", empty_rankings=False)
    report = evaluate(qrels, run, list(TREC_MEASURES), profile="trec_eval", rel_threshold=2)
    _compare_trec(report, _trec(qrels, run, relevance_level=2))


@pytest.mark.parametrize("seed", range(10))
def test_trec_eval_missing_users_as_with_c(seed):
    # trec_eval -c: the mean over every qrels query, those absent from the run scoring 0
    # (pytrec_eval has no -c: its values of the evaluated queries, summed over all of them)
    qrels, run = random_case(seed, scores="tied", empty_rankings=False)
    expected = _trec(qrels, run)
    assert set(qrels) - set(expected)  # some qrels users are absent from the run
    report = evaluate(qrels, run, list(TREC_MEASURES), profile="trec_eval", missing_users="zero")
    for metric, measure in TREC_MEASURES.items():
        got = _values(report, metric)
        assert sorted(got) == sorted(qrels)
        for user in qrels:
            value = expected[user][measure] if user in expected else 0.0
            assert got[user] == pytest.approx(value, abs=TOL), (metric, user)
        mean = sum(expected[u][measure] for u in expected) / len(qrels)
        assert report.mean[metric] == pytest.approx(mean, abs=TOL), metric


@pytest.mark.parametrize("seed", range(10))
def test_trec_eval_ties_in_single_precision(seed):
    # scores 1e-10 apart: distinct doubles, equal C floats; trec_eval orders them by docno
    # descending (the existing test checks only map)
    qrels, run = random_case(seed, scores="near", empty_rankings=False)
    report = evaluate(qrels, run, list(TREC_MEASURES), profile="trec_eval")
    _compare_trec(report, _trec(qrels, run))


def test_trec_eval_scores_an_empty_ranking():
    # pytrec_eval evaluates a query whose ranking is empty ({}): 0 for every measure, counted
    # in the mean; a TREC run file cannot say this, a dict can
    qrels = {"a": {"d1": 1, "d2": 2}, "b": {"d1": 1, "d3": 0}, "c": {"d4": 1}}
    run = {"a": {"d1": 0.5, "d2": 0.4}, "b": {}}
    expected = _trec(qrels, run)
    assert sorted(expected) == ["a", "b"]
    assert all(v == 0.0 for v in expected["b"].values())
    report = evaluate(qrels, run, list(TREC_MEASURES), profile="trec_eval")
    _compare_trec(report, expected)


LEVELS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
IPREC_MEASURES = {
    **{f"iprec(recall={x})": f"iprec_at_recall_{x:.2f}" for x in LEVELS},
    "iprec_avg": "11pt_avg",
}


@pytest.mark.parametrize("seed", range(10))
def test_trec_eval_interpolated_precision_at_every_level(seed):
    # pytrec_eval (trec_eval 9) asks a recall level for trunc(level * R + 0.9) relevant
    # documents, trec_eval 10.0 for round(level * R): the profile follows pytrec_eval
    qrels, run = random_case(seed, scores="tied", empty_rankings=False)
    expected = _trec(qrels, run, IPREC_MEASURES)
    report = evaluate(qrels, run, list(IPREC_MEASURES), profile="trec_eval")
    _compare_trec(report, expected, IPREC_MEASURES)


def test_trec_eval_recall_levels_round_as_trec_eval_9():
    # R = 2: level 0.6 is 2 relevant documents in trec_eval 9 (trunc(2.1)), 1 in 10.0
    qrels, run = {"q": {"a": 1, "b": 1}}, {"q": {"a": 0.9, "x": 0.8, "b": 0.7}}
    expected = _trec(qrels, run, IPREC_MEASURES)["q"]
    assert expected["iprec_at_recall_0.60"] == pytest.approx(2 / 3)
    report = evaluate(qrels, run, list(IPREC_MEASURES), profile="trec_eval")
    assert report.mean["iprec(recall=0.6)"] == pytest.approx(2 / 3)
    assert report.mean["iprec_avg"] == pytest.approx(expected["11pt_avg"])
    nearest = evaluate(qrels, run, list(IPREC_MEASURES), recall_rounding="nearest")
    assert nearest.mean["iprec(recall=0.6)"] == 1.0
    assert nearest.mean["iprec_avg"] == pytest.approx(10 / 11)


def _trec_side_new():
    """ir_measures' measures beyond the core ones that it gives to pytrec_eval (and
    Judged@k, its own), each evaluated by receval from ir_measures' own spelling."""
    im = _ir_measures()
    measures = [
        im.Bpref,
        im.Bpref(rel=2),
        im.infAP,
        im.IPrec @ 0.1,
        im.IPrec @ 0.3,
        im.IPrec @ 0.5,
        im.IPrec @ 0.6,
        im.IPrec @ 0.7,
        im.SetAP,
        im.SetRelP,
        im.NumQ,
        im.NumRel,
        im.NumRet,
        im.NumRelRet,
        im.SetF(beta=0.5),
        im.Judged @ 10,
        im.nDCG(judged_only=True) @ 10,
        im.P(judged_only=True) @ 5,
        im.AP(judged_only=True),
    ]
    return [(m, str(m)) for m in measures]


@pytest.mark.parametrize("seed", SEEDS)
def test_ir_measures_new_measures_from_their_spellings(seed):
    # bpref, infAP, IPrec, SetAP, SetRelP, the counts (summed over queries), SetF(beta),
    # Judged@k and judged_only: each string as ir_measures writes it, read by receval's
    # spelling table, with ir_measures' profile
    pairs = _trec_side_new()
    # ir_measures' Judged@k divides by zero on an empty ranking
    qrels, run = random_case(seed, scores=_scores_of(seed), empty_rankings=False)
    # asked together, ir_measures answers NumRet with NumRelRet's values: apart
    for group in ([p for p in pairs if p[1] != "NumRet"], [p for p in pairs if p[1] == "NumRet"]):
        per, aggregate = _peer_values(_ir_measures(), group, qrels, run)
        report = evaluate(qrels, run, [t for _, t in group], profile="ir_measures")
        _compare(report, group, per, aggregate, qrels)


# ------------------------------------------------------------------ fractional grades

_FRACTIONAL = {"q": {"a": 1.5, "b": 0.5, "c": -1.5, "d": 2}}
_FRACTIONAL_RUN = {"q": {"b": 2.0, "a": 1.0, "d": 0.5, "e": 0.2}}


def test_ranx_truncates_fractional_grades_which_the_ranx_profile_refuses():
    import ranx

    assert ranx.Qrels(_FRACTIONAL).to_dict()["q"] == {"a": 1, "b": 0, "c": -1, "d": 2}
    with pytest.raises(InputValidationError, match=r"ranx truncates them.*np\.trunc"):
        evaluate(_FRACTIONAL, _FRACTIONAL_RUN, ["ndcg"], profile="ranx")
    # the fix the message gives reproduces ranx
    truncated = {"q": {i: float(np.trunc(g)) for i, g in _FRACTIONAL["q"].items()}}
    metrics = {"ndcg": "ndcg", "dcg": "dcg", "map": "map", "precision@2": "precision@2"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = ranx.evaluate(ranx.Qrels(_FRACTIONAL), ranx.Run(_FRACTIONAL_RUN),
                                 list(metrics.values()))  # fmt: skip
    report = evaluate(truncated, _FRACTIONAL_RUN, list(metrics), profile="ranx")
    for metric, name in metrics.items():
        assert report.mean[metric] == pytest.approx(float(expected[name]), abs=TOL), metric


@pytest.mark.parametrize("profile", ["trec_eval", "ir_measures"])
def test_pytrec_eval_refuses_fractional_grades_as_its_profiles_do(profile):
    import pytrec_eval

    im = _ir_measures()
    with pytest.raises(TypeError, match="Expected relevance to be integer"):
        pytrec_eval.RelevanceEvaluator(_FRACTIONAL, {"map"})
    with pytest.raises(TypeError, match="Expected relevance to be integer"):
        im.calc_aggregate([im.nDCG], [im.Qrel("q", "a", 1.5)], [im.ScoredDoc("q", "a", 1.0)])
    with pytest.raises(InputValidationError, match="takes integer grades only"):
        evaluate(_FRACTIONAL, _FRACTIONAL_RUN, ["map", "P@5"], profile=profile)
    integers = {"q": {"a": 1, "b": 0, "c": -1, "d": 2}}
    assert evaluate(integers, _FRACTIONAL_RUN, ["map"], profile=profile).mean["map"] > 0
