"""trec_eval's measures in the compiled core's ranking kernel (kinds 14..42, depth,
judged-only, float parameters, custom gain tables).

Two references: trec_eval's own expected outputs of its test suite (the per-query
lines of out.test.aq, out.test.aql, out.test.aqcM and out.test.meas_params, printed
with ``%.4f``: the core's value must print the same), and the slow oracles of
``tests/oracles/trec_measures.py`` on random lists with ties, items absent from the
qrels and negative grades (hypothesis).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval
from receval._kernels import codes as core_codes
from receval._kernels import compiled
from receval.data._lookup import lookup
from tests.oracles import trec_measures as oracle

codes = core_codes()

core = compiled()

DATA = Path(__file__).parents[1] / "peers" / "data" / "trec_eval"


# ---------------- spec rows
def spec_row(
    kind: int,
    *,
    k: int = 0,
    threshold: int = 1,
    params: tuple[float, ...] = (),
    depth: int = 0,
    judged_only: bool = False,
    gain: str = "linear",
    missing: str = "complete",
    empty: str = "zero",
    ties: str = "trec",
    ap_norm: str = "relevant",
    gain_threshold: int | None = None,
    recall_rounding: str = "nearest",
) -> Any:
    """The kernel's spec of a metric; users absent from the run get trec_eval -c's
    values (``missing="complete"``) unless told otherwise."""
    return core.RankingSpec(
        kind,
        k=k,
        threshold=threshold,
        gain_threshold=threshold if gain_threshold is None else gain_threshold,
        params=params,
        gain=gain,
        ties=ties,
        ap_normalizer=ap_norm,
        missing_users=missing,
        empty_users=empty,
        depth=depth or None,  # the tests' 0 is the whole list, as -M's absence
        judged_only=judged_only,
        recall_rounding=recall_rounding,
    )


def gain_params(pairs: dict[int, float]) -> tuple[float, ...]:
    out: list[float] = [float(len(pairs))]
    for grade, g in pairs.items():
        out += [float(grade), float(g)]
    return tuple(out)


def run_core(q: receval.Qrels, r: receval.Run, rows: list[Any], n_chunks: int = 3):
    """(values, aux) of the core for every qrels user and row."""
    item_map = lookup(q.item_ids, r.item_ids)
    user_map = lookup(q.user_ids, r.user_ids)
    max_len = max(int(np.diff(r.offsets).max()) if r.n_users else 0, 1)
    depth = max(max_len, int(np.diff(q.offsets).max()))
    disc = 1.0 / np.log2(np.arange(depth, dtype=np.float64) + 2.0)
    return core.evaluate_users(
        q.offsets, q.items.astype(np.int32), q.grades, q.grades_desc,
        r.offsets, r.items.astype(np.int32), r.scores, r.trec_keys,
        item_map.astype(np.int32), user_map.astype(np.int32), rows, max_len, n_chunks, disc,
    )  # fmt: skip


# ---------------- trec_eval's test files
DEFAULT_LEVELS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
RPREC_MULTS = [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0]
RELATIVE_P = [5, 10, 15, 20, 30, 100, 200, 500, 1000]
COUNTS = {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}


def all_trec_rows(**common) -> dict[str, Any]:
    """trec_eval's name of each measure of ``-m all_trec`` computed by the new kinds."""
    c = codes
    rows = {
        "num_ret": spec_row(c.NUM_RET, **common),
        "num_rel": spec_row(c.NUM_REL, **common),
        "num_rel_ret": spec_row(c.NUM_REL_RET, **common),
        "num_nonrel_judged_ret": spec_row(c.NUM_NONREL_JUDGED_RET, **common),
        "bpref": spec_row(c.BPREF, **common),
        "infAP": spec_row(c.INFAP, **common),
        "11pt_avg": spec_row(c.IPREC_AVG, **common),
        "utility": spec_row(c.UTILITY, params=(1.0, -1.0, 0.0, 0.0), **common),
        "binG": spec_row(c.BIN_G, **common),
        "G": spec_row(c.G, **common),
        "ndcg_rel": spec_row(c.NDCG_REL, **common),
        "Rndcg": spec_row(c.R_NDCG, **common),
        "set_P": spec_row(c.SET_PRECISION, **common),
        "set_relative_P": spec_row(c.SET_RELATIVE_PRECISION, **common),
        "set_recall": spec_row(c.SET_RECALL, **common),
        "set_map": spec_row(c.SET_AP, **common),
        "set_F": spec_row(c.SET_F, params=(1.0,), **common),
        # trec_eval's rbp earns every grade's gain whatever -l is (gain_grades="positive")
        "rbp": spec_row(c.RBP, params=(0.9,), gain_threshold=1, **common),
        "rbp_resid": spec_row(c.RBP_RESID, params=(0.9,), **common),
    }
    for level in DEFAULT_LEVELS:
        rows[f"iprec_at_recall_{level:.2f}"] = spec_row(
            c.IPREC_AT_RECALL, params=(level,), **common
        )
    for mult in RPREC_MULTS:
        rows[f"Rprec_mult_{mult:.2f}"] = spec_row(c.RPREC_MULT, params=(mult,), **common)
    for k in RELATIVE_P:
        rows[f"relative_P_{k}"] = spec_row(c.RELATIVE_PRECISION, k=k, **common)
    for k in (5, 10, 20):
        rows[f"unj_{k}"] = spec_row(c.UNJUDGED, k=k, **common)
    return rows


def old_kind_rows(**common) -> dict[str, Any]:
    """Measures of the original kinds, for the depth rule (-M) on them."""
    c = codes
    rows = {
        "map": spec_row(c.AP, **common),
        "recip_rank": spec_row(c.RR, **common),
        "Rprec": spec_row(c.R_PRECISION, **common),
    }
    for k in RELATIVE_P:
        rows[f"P_{k}"] = spec_row(c.PRECISION, k=k, **common)
        rows[f"recall_{k}"] = spec_row(c.RECALL, k=k, **common)
    for k in (1, 5, 10):
        rows[f"success_{k}"] = spec_row(c.SUCCESS, k=k, **common)
    return rows


def expected_lines(name: str) -> dict[tuple[str, str], str]:
    out = {}
    for line in (DATA / name).read_text().splitlines():
        measure, qid, value = line.split()
        if qid != "all":
            out[(measure, qid)] = value
    return out


def printed(measure: str, value: float) -> str:
    if measure in COUNTS:
        return str(int(value))
    return f"{value:.4f}"


def compare(expected_file, qrels_file, run_file, rows, threshold=1) -> set[str]:
    q = receval.Qrels.from_file(DATA / qrels_file, file_format="trec")
    r = receval.Run.from_file(DATA / run_file, file_format="trec")
    names = list(rows)
    values, _ = run_core(q, r, [rows[m] for m in names])
    users = [str(u) for u in q.user_ids]
    expected = expected_lines(expected_file)
    checked = set()
    mismatches = []
    for j, name in enumerate(names):
        for i, user in enumerate(users):
            want = expected.get((name, user))
            if want is None:
                continue
            got = printed(name, values[i, j])
            checked.add(name)
            if got != want:
                mismatches.append((name, user, got, want))
    assert not mismatches, mismatches[:20]
    return checked


def test_all_trec_per_query():
    rows = all_trec_rows()
    checked = compare("out.test.aq", "qrels.test", "results.test", rows)
    assert checked == set(rows)  # every measure has lines in the expected file


def test_all_trec_relevance_level_2():
    rows = all_trec_rows(threshold=2)
    checked = compare("out.test.aql", "qrels.rel_level", "results.test", rows)
    assert checked == set(rows)


def test_all_trec_depth_100():
    rows = {**all_trec_rows(depth=100), **old_kind_rows(depth=100)}
    checked = compare("out.test.aqcM", "qrels.test", "results.trunc", rows)
    assert checked == set(rows)


def test_depth_changes_values():
    # without the depth rule the same lines differ: the test above can fail
    rows = {"num_ret": spec_row(codes.NUM_RET), "P_200": spec_row(codes.PRECISION, k=200)}
    with pytest.raises(AssertionError):
        compare("out.test.aqcM", "qrels.test", "results.trunc", rows)


def test_parameterised_measures():
    c = codes
    rows = {
        "utility_2,-1,0,0": spec_row(c.UTILITY, params=(2.0, -1.0, 0.0, 0.0)),
        "11pt_avg_.25,.5,.75": spec_row(c.IPREC_AVG, params=(3.0, 0.25, 0.5, 0.75)),
        "ndcg_1=3,2=9,4=4.5": spec_row(
            c.NDCG, gain="custom", params=gain_params({1: 3.0, 2: 9.0, 4: 4.5})
        ),
    }
    for level in (0.1, 0.2, 0.25, 0.5, 0.75):
        rows[f"iprec_at_recall_{level:.2f}"] = spec_row(c.IPREC_AT_RECALL, params=(level,))
    for mult in (0.2, 0.35, 5.0):
        rows[f"Rprec_mult_{mult:.2f}"] = spec_row(c.RPREC_MULT, params=(mult,))
    checked = compare("out.test.meas_params", "qrels.test", "results.test", rows)
    assert checked == set(rows)


# ---------------- slow oracles
ITEMS = [f"d{i:02d}" for i in range(12)]
GRADES = [-1, 0, 1, 2, 3]
SCORES = [0.0, 0.25, 0.5, 1.0]  # few values: ties everywhere


@st.composite
def users(draw, max_users=4):
    """(qrels, run) dicts: negative grades, items absent from the qrels, tied scores and
    users absent from the run."""
    n_items = draw(st.integers(1, len(ITEMS)))
    pool = st.sampled_from(ITEMS[:n_items])
    qrels, run = {}, {}
    for u in range(draw(st.integers(1, max_users))):
        judged = draw(st.lists(pool, min_size=1, unique=True))
        qrels[f"u{u}"] = {i: draw(st.sampled_from(GRADES)) for i in judged}
        if draw(st.integers(0, 5)) == 0:
            continue  # absent from the run
        ranked = draw(st.lists(pool, min_size=1, unique=True))
        run[f"u{u}"] = {i: draw(st.sampled_from(SCORES)) for i in ranked}
    if not run:
        run["u0"] = {ITEMS[0]: 1.0}
    return qrels, run


def trec_ranked(scores: dict[str, float]) -> list[str]:
    """trec_eval's order: score descending, then item id descending."""
    return sorted(scores, key=lambda i: (scores[i], i), reverse=True)


def close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def check_against_oracle(qrels, run, rows, calls, *, depth, judged_only):
    """Every user's value of every row equals the oracle's (``calls``: kind, k, params,
    pairs, threshold of each row)."""
    q = receval.Qrels.from_dict(qrels)
    r = receval.Run.from_dict(run)
    values, _ = run_core(q, r, rows, n_chunks=2)
    for i, user in enumerate(q.user_ids):
        judged = list(qrels[user].values())
        for j, (kind, k, params, pairs, threshold) in enumerate(calls):
            if user in run:
                grades = [qrels[user].get(item) for item in trec_ranked(run[user])]
                ranked = oracle.prepare(grades, depth, judged_only)
                want = oracle.measure(kind, ranked, judged, threshold, k, params, pairs)
            else:
                want = oracle.missing_user(kind, judged, threshold, k, params, pairs, judged_only)
            got = float(values[i, j])
            assert close(got, want), (user, kind, k, params, pairs, threshold, got, want)


PLAIN_KINDS = [
    codes.NUM_RET, codes.NUM_REL, codes.NUM_REL_RET, codes.NUM_NONREL_JUDGED_RET, codes.NUM_Q,
    codes.BPREF, codes.INFAP, codes.BIN_G, codes.RELATIVE_PRECISION, codes.SET_PRECISION,
    codes.SET_RELATIVE_PRECISION, codes.SET_RECALL, codes.SET_AP, codes.UNJUDGED,
    codes.JUDGED,
]  # fmt: skip


@st.composite
def measure_calls(draw):
    """(kind, k, params, pairs, threshold) of every trec kind, parameters drawn."""
    threshold = draw(st.sampled_from([0, 1, 1, 2]))
    k = draw(st.sampled_from([0, 0, 1, 3, 10]))
    out = [(kind, k, (), None, threshold) for kind in PLAIN_KINDS]
    level = draw(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.7, 1.0]))
    out.append((codes.IPREC_AT_RECALL, k, (level,), None, threshold))
    levels = draw(
        st.lists(st.sampled_from([0.0, 0.2, 0.35, 0.5, 0.9, 1.0]), max_size=4, unique=True)
    )
    out.append((codes.IPREC_AVG, k, (float(len(levels)), *levels), None, threshold))
    mult = draw(st.sampled_from([0.2, 0.5, 1.0, 1.5, 3.0]))
    out.append((codes.RPREC_MULT, k, (mult,), None, threshold))
    u = tuple(draw(st.lists(st.sampled_from([-1.0, 0.0, 0.5, 2.0]), min_size=4, max_size=4)))
    out.append((codes.UTILITY, k, (*u, float(draw(st.sampled_from([0, 50])))), None, threshold))
    out.append((codes.SET_F, k, (draw(st.sampled_from([0.5, 1.0, 2.0])),), None, threshold))
    p = draw(st.sampled_from([0.5, 0.8, 0.95]))
    out.append((codes.RBP, k, (p,), None, threshold))
    out.append((codes.RBP, k, (p, 1.0), None, threshold))
    out.append((codes.RBP, k, (p, 2.0), None, threshold))  # grades="raw" (ranx)
    out.append((codes.BPREF, k, (1.0,), None, threshold))  # grades="raw" (ranx)
    out.append((codes.RBP_RESID, k, (p,), None, threshold))
    max_grade = draw(st.sampled_from([0.0, 3.0]))
    out.append((codes.ERR, k, (max_grade,), None, threshold))
    out.append((codes.ERR, k, (max_grade, 1.0), None, threshold))  # probability=true
    out.append((codes.PFOUND, k, (draw(st.sampled_from([0.0, 0.5, 1.0])),), None, threshold))
    out.append((codes.AVERAGE_GAIN, k, (), None, threshold))
    out.append((codes.NERR, k, (draw(st.sampled_from([0.0, 0.3, 0.5])),), None, threshold))
    # gains: the grades, or a custom table of integer gains (distinct grades)
    grades = draw(st.lists(st.sampled_from([0, 1, 2, 3, 5]), max_size=3, unique=True))
    pairs = tuple((g, float(draw(st.sampled_from([-2, 0, 1, 3, 7])))) for g in grades)
    for kind in (codes.G, codes.NDCG_REL, codes.R_NDCG):
        out.append((kind, k, (), None, threshold))
        out.append((kind, k, (), pairs, threshold))
    out.append((codes.NDCG, k, (), pairs, threshold))
    return out


def rows_of(calls, depth, judged_only):
    rows = []
    for kind, k, params, pairs, threshold in calls:
        if pairs is not None:
            params = gain_params(dict(pairs))
        gain = "custom" if pairs is not None else "linear"
        rows.append(
            spec_row(
                kind,
                k=k,
                threshold=threshold,
                params=params,
                depth=depth,
                judged_only=judged_only,
                gain=gain,
            )
        )
    return rows


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=users(),
    calls=measure_calls(),
    depth=st.sampled_from([0, 0, 1, 2, 5]),
    judged_only=st.booleans(),
)
def test_trec_kinds_match_the_oracles(data, calls, depth, judged_only):
    qrels, run = data
    rows = rows_of(calls, depth, judged_only)
    check_against_oracle(qrels, run, rows, calls, depth=depth, judged_only=judged_only)


def test_oracle_check_can_fail():
    # a wrong expectation is caught: the oracle comparison is not vacuous
    qrels = {"u0": {"d00": 1, "d01": 0}}
    run = {"u0": {"d01": 1.0, "d00": 0.5}}
    calls = [(codes.SET_PRECISION, 0, (), None, 1)]
    check_against_oracle(qrels, run, rows_of(calls, 0, False), calls, depth=0, judged_only=False)
    with pytest.raises(AssertionError):  # the kernel cut at depth 1, the oracle not
        check_against_oracle(
            qrels, run, rows_of(calls, 1, False), calls, depth=0, judged_only=False
        )


LEVELS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]


@settings(max_examples=200, deadline=None)
@given(
    data=users(),
    rounding=st.sampled_from(["nearest", "trec9"]),
    threshold=st.sampled_from([0, 1, 2]),
    k=st.sampled_from([0, 0, 3]),
)
def test_recall_levels_round_as_the_oracle(data, rounding, threshold, k):
    # a recall level asks for round(level * R) relevant items (trec_eval 10.0) or for
    # trunc(level * R + 0.9) (trec9): at every level and in the 11-point average
    qrels, run = data
    rows = [
        spec_row(codes.IPREC_AT_RECALL, k=k, threshold=threshold, params=(x,),
                 recall_rounding=rounding)
        for x in LEVELS
    ] + [spec_row(codes.IPREC_AVG, k=k, threshold=threshold, recall_rounding=rounding)]  # fmt: skip
    q = receval.Qrels.from_dict(qrels)
    values, _ = run_core(q, receval.Run.from_dict(run), rows, n_chunks=2)
    for i, user in enumerate(q.user_ids):
        if user not in run:
            continue
        judged = list(qrels[user].values())
        ranked = [qrels[user].get(item) for item in trec_ranked(run[user])]
        ranked = ranked[:k] if k else ranked
        want = [oracle.iprec_at_recall(ranked, judged, threshold, x, rounding) for x in LEVELS]
        want.append(oracle.iprec_avg(ranked, judged, threshold, [], rounding))
        for got, value in zip(values[i], want, strict=True):
            assert close(float(got), value), (user, rounding, values[i], want)


def test_recall_rounding_tells_the_rules_apart():
    # R = 2 relevant; level 0.6 asks for 1 of them (nearest) or 2 (trec9)
    qrels, run = {"u": {"a": 1, "b": 1}}, {"u": {"a": 0.9, "x": 0.8, "b": 0.7}}
    q, r = receval.Qrels.from_dict(qrels), receval.Run.from_dict(run)
    rows = [spec_row(codes.IPREC_AT_RECALL, params=(0.6,), recall_rounding=x)
            for x in ("nearest", "trec9")]  # fmt: skip
    values, _ = run_core(q, r, rows)
    assert values[0].tolist() == [1.0, pytest.approx(2 / 3)]


# ---------------- depth and judged-only on the original kinds
ORIGINAL_KINDS = [codes.PRECISION, codes.RECALL, codes.F1, codes.SUCCESS, codes.AP, codes.CG,
                  codes.DCG, codes.IDCG, codes.NDCG, codes.RR, codes.R_PRECISION]  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(
    data=users(max_users=3),
    depth=st.sampled_from([0, 1, 2, 5]),
    judged_only=st.booleans(),
    k=st.sampled_from([0, 1, 3]),
    threshold=st.sampled_from([0, 1, 2]),
)
def test_depth_and_judged_only_cut_the_list_first(data, depth, judged_only, k, threshold):
    # the original kinds with depth / judged-only equal the same kinds on the run cut
    # beforehand (in trec_eval's order, then scored by rank)
    qrels, run = data
    cut = {}
    for user, scores in run.items():
        items = trec_ranked(scores)
        items = items[:depth] if depth else items
        if judged_only:
            items = [i for i in items if qrels.get(user, {}).get(i, -1) >= 0]
        cut[user] = {item: float(len(items) - rank) for rank, item in enumerate(items)}
    cut["not in the qrels"] = {ITEMS[0]: 1.0}  # a run of only emptied lists is refused
    q = receval.Qrels.from_dict(qrels)
    rows = [
        spec_row(kind, k=k, threshold=threshold, depth=depth, judged_only=judged_only)
        for kind in ORIGINAL_KINDS
    ]
    plain = [spec_row(kind, k=k, threshold=threshold) for kind in ORIGINAL_KINDS]
    got, got_aux = run_core(q, receval.Run.from_dict(run), rows)
    want, want_aux = run_core(q, receval.Run.from_dict(cut), plain)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_aux, want_aux)


# ---------------- rules for empty and absent users
def test_counts_ignore_the_empty_user_rules():
    qrels = {"u0": {"d00": 0}, "u1": {"d00": 1}}
    run = {"u0": {"d00": 1.0, "d01": 0.5}, "u1": {"d00": 1.0}}
    q, r = receval.Qrels.from_dict(qrels), receval.Run.from_dict(run)
    rows = []
    for kind in (codes.NUM_RET, codes.NUM_REL, codes.NUM_Q, codes.BPREF):
        for empty in ("skip", "one"):
            rows.append(spec_row(kind, empty=empty))
    values, aux = run_core(q, r, rows)
    # u0 has no relevant item: counts are computed, bpref skipped (nan) or set to 1
    assert values[0].tolist()[:6] == [2.0, 2.0, 0.0, 0.0, 1.0, 1.0]
    assert math.isnan(values[0, 6]) and values[0, 7] == 1.0
    assert values[1].tolist() == [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    assert aux[:, 0].tolist() == [0.0, 1.0]


def test_missing_users():
    qrels = {"u0": {"d00": 1, "d01": 2, "d02": 0}, "u1": {"d00": 1}}
    run = {"u1": {"d00": 1.0}}
    q, r = receval.Qrels.from_dict(qrels), receval.Run.from_dict(run)
    kinds = [codes.NUM_RET, codes.NUM_REL, codes.NUM_Q, codes.UTILITY, codes.RBP_RESID,
             codes.UNJUDGED, codes.SET_RECALL, codes.BPREF]  # fmt: skip
    rows = [spec_row(kind, params=(1.0, -1.0, -1.0, 0.0)) for kind in kinds]
    values, _ = run_core(q, r, rows)
    assert values[0].tolist() == [0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    skipped, _ = run_core(q, r, [spec_row(codes.NUM_REL, missing="skip")])
    assert math.isnan(skipped[0, 0]) and skipped[1, 0] == 1.0
    # missing_users="zero": every metric 0, the counts too (ir_measures)
    zero_rows = [spec_row(kind, params=(1.0, -1.0, -1.0, 0.0), missing="zero") for kind in kinds]
    zeros, _ = run_core(q, r, zero_rows)
    assert zeros[0].tolist() == [0.0] * len(kinds)
    assert zeros[1].tolist() == values[1].tolist()


# ---------------- ir_measures' Judged and gdeval's ERR
def test_judged_matches_ir_measures():
    import ir_measures
    from ir_measures.providers.judged_provider import JudgedProvider

    rng = np.random.default_rng(5)
    qrels = {
        f"q{u}": {f"d{i}": int(rng.choice(GRADES)) for i in rng.permutation(30)[:12]}
        for u in range(20)
    }
    run = {
        f"q{u}": {f"d{i}": float(rng.choice(SCORES)) for i in rng.permutation(30)[:15]}
        for u in range(20)
    }
    q, r = receval.Qrels.from_dict(qrels), receval.Run.from_dict(run)
    for k in (None, 3, 10, 40):
        measure = ir_measures.Judged if k is None else ir_measures.Judged @ k
        want = {m.query_id: m.value for m in JudgedProvider().iter_calc([measure], qrels, run)}
        values, _ = run_core(q, r, [spec_row(codes.JUDGED, k=k or 0, ties="id_ascending")])
        for i, user in enumerate(q.user_ids):
            assert close(values[i, 0], want[user]), (k, user)


def test_err_matches_gdeval():
    import shutil

    import ir_measures

    if shutil.which("perl") is None:
        pytest.skip("gdeval needs perl")
    from ir_measures.providers.gdeval_provider import GdevalProvider

    rng = np.random.default_rng(9)
    qrels = {
        str(u): {f"d{i}": int(rng.choice([0, 1, 2, 3, 4])) for i in rng.permutation(30)[:12]}
        for u in range(1, 15)
    }
    run = {
        str(u): {f"d{i}": float(rng.random()) for i in rng.permutation(30)[:15]}
        for u in range(1, 15)
    }
    q, r = receval.Qrels.from_dict(qrels), receval.Run.from_dict(run)
    for k in (3, 10):
        want = {
            m.query_id: m.value
            for m in GdevalProvider().iter_calc([ir_measures.ERR @ k], qrels, run)
        }
        values, _ = run_core(q, r, [spec_row(codes.ERR, k=k)])
        for i, user in enumerate(q.user_ids):
            if user in want:  # gdeval prints 5 decimals
                assert abs(values[i, 0] - want[user]) <= 5e-6, (k, user)


def test_nerr_matches_ndeval():
    # ir_measures' nERR_IA@k through pyndeval (ndeval), on qrels of one intent
    import ir_measures
    import pyndeval  # noqa: F401  (a test dependency: the provider runs it)
    from ir_measures.providers.pyndeval_provider import PyNdEvalProvider

    rng = np.random.default_rng(11)
    qrels = {
        str(u): {f"d{i}": int(rng.choice([0, 0, 1, 2, 3])) for i in rng.permutation(30)[:12]}
        for u in range(1, 15)
    }
    run = {
        str(u): {f"d{i}": float(rng.random()) for i in rng.permutation(30)[:15]}
        for u in range(1, 15)
    }
    q, r = receval.Qrels.from_dict(qrels), receval.Run.from_dict(run)
    for k, rel in ((5, 1), (10, 1), (20, 2)):
        measure = ir_measures.nERR_IA(rel=rel) @ k
        want = {m.query_id: m.value for m in PyNdEvalProvider().iter_calc([measure], qrels, run)}
        values, _ = run_core(q, r, [spec_row(codes.NERR, k=k, threshold=rel)])
        for i, user in enumerate(q.user_ids):
            assert close(values[i, 0], want.get(user, 0.0)), (k, rel, user)
