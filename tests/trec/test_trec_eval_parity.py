"""``receval trec-eval``'s text against ``receval.evaluate`` on random qrels and runs.

The command reads the files, ranks and scores in the compiled core; every value it
prints must be the one :func:`receval.evaluate` computes with the ``trec_eval``
profile and the command's options (:func:`evaluate_options`), printed as trec_eval
prints it: per query (``-q``), queries in byte order of their ids, then the mean
over the queries (the sum for counts, the geometric mean for ``gm_*``), with
``-c``, ``-n``, ``-l``, ``-M``, ``-J`` and ``-N``, ties in the scores (broken by
document id descending) and queries of the qrels absent from the run. The
``relstring`` of each query is rebuilt here from the ranked documents.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval
from receval import Qrels, Run
from receval.exceptions import InputValidationError
from receval.registry.trec_eval import measure_values, select_measures
from receval.trec.trec_eval import (
    TrecEvalAbort,
    evaluate_options,
    parse_trec_eval_args,
    trec_eval,
    trec_eval_metrics,
)

_QUERIES = ["q1", "q10", "q2", "Q3", "q\u00e94"]
_DOCS = [f"d{i}" for i in range(8)] + ["D1", "d10"]
_REQUESTS = [
    [], ["all_trec"], ["P.1,3", "map"], ["ndcg_cut.2,5", "recip_rank"], ["relstring"],
    ["relstring.3", "num_ret"], ["utility.2,-1,0,1"], ["11pt_avg.0.2,0.5", "set_F.0.5"],
    ["rbp.p=0.5", "rbp_resid"], ["ndcg.1=3,2=9", "G.1=2", "dcg", "ideal_dcg"],
    ["gm_bpref", "gm_map", "bpref", "infAP"], ["set", "num_nonrel_judged_ret"],
    ["unj.1,2", "success.1", "relative_P.2", "Rprec_mult.0.5,1.5", "iprec_at_recall.0.3"],
]  # fmt: skip


@st.composite
def _cases(draw: st.DrawFn) -> tuple[list[str], list[str], list[str]]:
    judged = draw(st.lists(st.sampled_from(_QUERIES), min_size=1, max_size=4, unique=True))
    qrels = []
    for q in judged:
        docs = draw(st.lists(st.sampled_from(_DOCS), min_size=1, max_size=6, unique=True))
        qrels += [f"{q} 0 {d} {draw(st.integers(-1, 3))}" for d in docs]
    ranked = draw(st.lists(st.sampled_from(_QUERIES), min_size=1, max_size=5, unique=True))
    run = []
    for q in ranked:
        docs = draw(st.lists(st.sampled_from(_DOCS), min_size=1, max_size=8, unique=True))
        scores = st.sampled_from([0.0, 0.5, 1.0, 2.5, -1.0])
        run += [f"{q} Q0 {d} {i} {draw(scores)} tag{len(q)}" for i, d in enumerate(docs)]
    options = draw(st.lists(st.sampled_from(["-q", "-c", "-n", "-J"]), unique=True))
    if draw(st.booleans()):
        options.append(f"-M{draw(st.integers(1, 4))}")
    if draw(st.booleans()):
        options.append(f"-l{draw(st.integers(0, 3))}")
    if draw(st.booleans()):
        options.append(f"-N{draw(st.integers(1, 30))}")
    for request in draw(st.sampled_from(_REQUESTS)):
        options += ["-m", request]
    return qrels, run, options


def _real(x: float) -> str:
    return f"{'-nan':>6}" if math.isnan(x) else f"{x:6.4f}"


def _relstring(run: list[str], qrels: dict[tuple[str, str], int], q: str, length: int,
               o) -> str:  # fmt: skip
    rows = [line.split() for line in run if line.split()[0] == q]
    docs = sorted((r[2] for r in rows), key=lambda d: d.encode(), reverse=True)
    score = {r[2]: float(r[4]) for r in rows}
    docs = sorted(docs, key=lambda d: -score[d])
    if o.max_retrieved:
        docs = docs[: o.max_retrieved]
    if o.judged_only:
        docs = [d for d in docs if qrels.get((q, d), -1) >= 0]
    out = ""
    for d in docs[:length]:
        g = qrels.get((q, d))
        out += "-" if g is None else "." if g < 0 else ">" if g > 9 else str(g)
    return out


def _expected(qrels_lines: list[str], run: list[str], args: list[str], paths: list[str]) -> str:
    """What trec-eval prints, from receval.evaluate's values."""
    o = parse_trec_eval_args([*args, *paths])
    names = trec_eval_metrics(o.measures or ["official"])
    if o.num_docs:
        names = {
            n: m[:-1] + f",n_docs={o.num_docs})" if m.startswith("utility") else m
            for n, m in names.items()
        }
    metrics = list(dict.fromkeys(names.values()))
    q, r = (
        Qrels.from_file(paths[0], file_format="trec"),
        Run.from_file(paths[1], file_format="trec"),
    )
    users = [str(u) for u in q.user_ids.tolist()]
    values = {}
    if metrics:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # qrels users absent from the run: tested apart
            report = receval.evaluate(
                q, r, metrics, profile="trec_eval", allow_unmatched=True,
                **evaluate_options(o, metrics),
            )  # fmt: skip
        values = {m: dict(zip(users, report.values[m].tolist(), strict=True)) for m in metrics}
    grades = {(f[0], f[2]): int(f[3]) for f in (line.split() for line in qrels_lines)}
    queries = sorted({qid for qid, _ in grades}, key=str.encode)
    selected = select_measures(o.measures)
    given = next((g for m, g in selected if m.name == "relstring"), None)
    length = int(given.split(",")[0]) if given else 10
    printed = [v for m, g in selected for v in measure_values(m, g)]
    kind = {v.name: v.measure.printed for v in printed}
    printed_names = [v.name for v in printed]
    lines = []
    if o.per_query:
        for qid in queries:
            for name in printed_names:
                if kind[name] in ("summary", "runid"):
                    continue
                if kind[name] == "relstring":
                    s = _relstring(run, grades, qid, length, o)
                    if not any(line.split()[0] == qid for line in run):
                        s = "" if given is None or o.judged_only else "-"[:length]
                    lines.append(f"{name:<22}\t{qid}\t'{s}'")
                    continue
                x = values[names[name]][qid]
                text = str(int(x)) if kind[name] == "count" else _real(x)
                lines.append(f"{name:<22}\t{qid}\t{text}")
    if o.summary:
        for name in printed_names:
            k = kind[name]
            if k == "runid":
                # trec_eval keeps the tag of each line it reads: the last line's is printed
                tag = run[-1].split()[5] if run else ""
                lines.append(f"{'runid':<22}\tall\t{tag}")
                continue
            if k == "relstring":
                continue
            if name == "num_q":
                total = float(len(queries))
            else:
                col = [values[names[name]][qid] for qid in queries]
                if name.startswith("gm_"):
                    col = [math.log(max(x, 1e-5)) for x in col]
                total = 0.0
                for x in col:
                    total += x
                if k != "count":
                    total /= len(queries)
                if name.startswith("gm_"):
                    total = math.exp(total)
                if name == "num_rel" and o.complete:
                    total = float(sum(g > 0 for g in grades.values()))
            if k == "count" or name == "num_q":
                lines.append(f"{name:<22}\tall\t{int(total)}")
            else:
                lines.append(f"{name:<22}\tall\t{_real(total)}")
    return "".join(line + "\n" for line in lines)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(case=_cases())
def test_the_text_holds_evaluates_values(case, tmp_path: Path) -> None:
    qrels, run, options = case
    paths = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    Path(paths[0]).write_text("".join(line + "\n" for line in qrels))
    Path(paths[1]).write_text("".join(line + "\n" for line in run))
    judged = {line.split()[0] for line in qrels}
    ranked = {line.split()[0] for line in run}
    try:
        text = trec_eval([*options, *paths])
    except TrecEvalAbort as exc:
        # a query of the qrels absent from the run, without -c: status 4, after the
        # -q lines of the queries before it (in byte order)
        assert exc.status == 4 and "-c" not in options
        missing = sorted(judged - ranked, key=str.encode)
        assert missing and f"query {missing[0]!r}" in str(exc)
        before = [q for q in sorted(judged, key=str.encode) if q.encode() < missing[0].encode()]
        expected = _expected(qrels, run, [*options, "-c", "-n"], paths)
        kept = [line for line in expected.splitlines(True) if line.split("\t")[1] in before]
        assert exc.output == ("".join(kept) if "-q" in options else "")
        return
    assert "-c" in options or judged <= ranked
    assert text == _expected(qrels, run, options, paths)


@pytest.mark.parametrize("request_", _REQUESTS)
def test_every_request_is_drawn(request_) -> None:
    # the requests above parse (a typo would only make the hypothesis test vacuous)
    trec_eval_metrics(request_ or ["official"])


def test_the_warning_of_unmatched_ids_is_evaluates(tmp_path: Path) -> None:
    # the core counts the ids that match; evaluate's check words the warning
    from receval.exceptions import UnmatchedIdsWarning

    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 1\n")
    run.write_text("q1 Q0 x1 1 1.0 s\nq1 Q0 x2 2 0.5 s\n")
    with pytest.warns(UnmatchedIdsWarning) as caught:
        text = trec_eval(["-c", "-m", "map", str(qrels), str(run)])
    assert text == "map                   \tall\t0.0000\n"
    with pytest.warns(UnmatchedIdsWarning) as expected:
        receval.evaluate(
            Qrels.from_file(qrels, file_format="trec"), Run.from_file(run, file_format="trec"),
            ["map"], profile="trec_eval", missing_users="complete", allow_unmatched=True,
        )  # fmt: skip
    assert [str(w.message) for w in caught] == [str(w.message) for w in expected]


@pytest.mark.parametrize(
    ("qrels", "run", "bad"),
    [
        ("q1 0 d1 1\nq1 0 d1 2\n", "q1 Q0 d1 1 1.0 s\n", "qrels"),  # a pair twice
        ("q1 0 d1 1\n", "q1 Q0 d1 1 1.0 s\nq1 Q0 d1 2 0.5 s\n", "run"),
        ("q1 0 d1 1\n", "", "run"),  # no line
        ("q1 0 d1 x\n", "q1 Q0 d1 1 1.0 s\n", "qrels"),  # does not parse
        ("q1 0 d1 1\n", "q1 Q0 d1 1 nan s\n", "run"),
    ],
)
def test_a_file_the_core_refuses_keeps_the_readers_message(tmp_path: Path, qrels, run, bad):
    paths = {"qrels": tmp_path / "qrels", "run": tmp_path / "run"}
    paths["qrels"].write_text(qrels)
    paths["run"].write_text(run)
    reader = Qrels if bad == "qrels" else Run
    with pytest.raises(InputValidationError) as expected:
        reader.from_file(paths[bad], file_format="trec")
    with pytest.raises(TrecEvalAbort) as caught:
        trec_eval([str(paths["qrels"]), str(paths["run"])])
    assert caught.value.status == 2 and str(caught.value) == str(expected.value)


def test_a_run_compressed_otherwise_is_decompressed_for_the_core(tmp_path: Path) -> None:
    import bz2

    qrels, run = tmp_path / "qrels", tmp_path / "run.bz2"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    text = b"q1 Q0 d2 1 0.9 s\nq1 Q0 d1 2 0.8 s\n"
    run.write_bytes(bz2.compress(text))
    (tmp_path / "plain").write_bytes(text)
    expected = trec_eval(["-q", str(qrels), str(tmp_path / "plain")])
    assert trec_eval(["-q", str(qrels), str(run)]) == expected


# ------------------------------------------------------------------ one table of measures
_QRELS = """q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq1 0 d4 -1\nq1 0 d5 3\nq1 0 d9 1
q2 0 d1 1\nq2 0 d6 0\nq2 0 d7 2\nq3 0 d8 1\nq4 0 d2 0
"""
_RUN = """q1 Q0 d3 1 0.5 t\nq1 Q0 d1 2 0.5 t\nq1 Q0 d6 3 0.5 t\nq1 Q0 d2 4 0.4 t
q1 Q0 d5 5 0.3 t\nq1 Q0 d4 6 0.2 t\nq1 Q0 d0 7 0.1 t\nq2 Q0 d7 1 2.0 t\nq2 Q0 d9 2 1.0 t
q2 Q0 d6 3 1.0 t\nq2 Q0 d1 4 0.0 t\nq4 Q0 d2 1 1.0 t\nq4 Q0 d3 2 0.5 t
"""


@pytest.mark.parametrize(
    "options",
    [[], ["-J"], ["-M", "3"], ["-J", "-M", "3", "-l", "2", "-N", "40"], ["-M", "1", "-l", "0"]],
)
def test_every_measure_of_the_core_is_evaluates(options, tmp_path: Path) -> None:
    # every measure the core computes, alone (where no other one reads -J or -M) and
    # with the others, under each option that changes values: the core's spec of it
    # is the one evaluate computes from the registry's metric
    from receval.registry.trec_eval import GROUP_MEASURES, MEASURES

    paths = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    Path(paths[0]).write_text(_QRELS)
    Path(paths[1]).write_text(_RUN)
    qrels, run = _QRELS.splitlines(), _RUN.splitlines()
    names = [
        m.name
        for m in MEASURES
        if measure_values(m, None)[0].kind is not None and m.name not in GROUP_MEASURES
    ]
    for requests in [[n] for n in names] + [names]:
        args = ["-q", "-c", *options, *(x for n in requests for x in ("-m", n))]
        assert trec_eval([*args, *paths]) == _expected(qrels, run, args, paths), requests
