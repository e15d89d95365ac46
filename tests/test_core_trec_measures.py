"""trec_eval's measures in the compiled core's ranking kernel (kinds 14..40, depth,
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

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval
from receval._kernels import _topk_codes as codes
from receval._kernels import compiled
from receval.data._encode import lookup

from .oracles import trec_measures as oracle

core = compiled()
pytestmark = pytest.mark.skipif(core is None, reason="receval._core is not built")

DATA = Path(__file__).parent / "peers" / "data" / "trec_eval"


# ------------------------------------------------------------------ spec rows
def spec_row(
    kind: int,
    *,
    k: int = 0,
    threshold: int = 1,
    params: tuple[float, ...] = (),
    depth: int = 0,
    judged_only: bool = False,
    gain: int = codes.GAIN_LINEAR,
    missing_skip: bool = False,
    empty: int = codes.EMPTY_ZERO,
    ties: int = codes.TIES_TREC,
    ap_norm: int = codes.AP_RELEVANT,
) -> np.ndarray:
    row = np.zeros(codes.N_SPEC_COLUMNS, dtype=np.int64)
    row[codes.S_KIND] = kind
    row[codes.S_K] = k
    row[codes.S_THRESHOLD] = threshold
    row[codes.S_GAIN_THRESHOLD] = threshold
    row[codes.S_GAIN] = gain
    row[codes.S_TIES] = ties
    row[codes.S_AP_NORM] = ap_norm
    row[codes.S_MISSING_SKIP] = int(missing_skip)
    row[codes.S_EMPTY] = empty
    row[codes.S_DEPTH] = depth
    row[codes.S_JUDGED_ONLY] = int(judged_only)
    p = np.zeros(codes.N_PARAMS, dtype=np.float64)
    p[: len(params)] = params
    row[codes.S_PARAMS :] = p.view(np.int64)
    return row


def gain_params(pairs: dict[int, float]) -> tuple[float, ...]:
    out: list[float] = [float(len(pairs))]
    for grade, g in pairs.items():
        out += [float(grade), float(g)]
    return tuple(out)


def run_core(q: receval.Qrels, r: receval.Run, rows: list[np.ndarray], n_chunks: int = 3):
    """(values, aux) of the core for every qrels user and row."""
    item_map = lookup(q.item_ids, r.item_ids)
    user_map = lookup(q.user_ids, r.user_ids)
    table = np.ascontiguousarray(np.stack(rows))
    max_len = max(int(np.diff(r.offsets).max()) if r.n_users else 0, 1)
    depth = max(max_len, int(np.diff(q.offsets).max()))
    disc = 1.0 / np.log2(np.arange(depth, dtype=np.float64) + 2.0)
    return core.evaluate_users(
        q.offsets, q.items.astype(np.int32), q.grades, q.grades_desc,
        r.offsets, r.items.astype(np.int32), r.scores, r.trec_keys,
        item_map.astype(np.int32), user_map.astype(np.int32), table, max_len, n_chunks, disc,
    )  # fmt: skip


# ------------------------------------------------------------------ trec_eval's test files
DEFAULT_LEVELS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
RPREC_MULTS = [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0]
RELATIVE_P = [5, 10, 15, 20, 30, 100, 200, 500, 1000]
COUNTS = {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}


def all_trec_rows(**common) -> dict[str, np.ndarray]:
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
        "rbp": spec_row(c.RBP, params=(0.9,), **common),
        "rbp_resid": spec_row(c.RBP_RESID, params=(0.9,), **common),
    }
    for level in DEFAULT_LEVELS:
        rows[f"iprec_at_recall_{level:.2f}"] = spec_row(c.IPREC_AT_RECALL, params=(level,), **common)
    for mult in RPREC_MULTS:
        rows[f"Rprec_mult_{mult:.2f}"] = spec_row(c.RPREC_MULT, params=(mult,), **common)
    for k in RELATIVE_P:
        rows[f"relative_P_{k}"] = spec_row(c.RELATIVE_PRECISION, k=k, **common)
    for k in (5, 10, 20):
        rows[f"unj_{k}"] = spec_row(c.UNJUDGED, k=k, **common)
    return rows


def old_kind_rows(**common) -> dict[str, np.ndarray]:
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
            c.NDCG, gain=c.GAIN_CUSTOM, params=gain_params({1: 3.0, 2: 9.0, 4: 4.5})
        ),
    }
    for level in (0.1, 0.2, 0.25, 0.5, 0.75):
        rows[f"iprec_at_recall_{level:.2f}"] = spec_row(c.IPREC_AT_RECALL, params=(level,))
    for mult in (0.2, 0.35, 5.0):
        rows[f"Rprec_mult_{mult:.2f}"] = spec_row(c.RPREC_MULT, params=(mult,))
    checked = compare("out.test.meas_params", "qrels.test", "results.test", rows)
    assert checked == set(rows)
