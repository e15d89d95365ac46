"""trec_eval's judgment groups (``receval trec-eval -R qrels_jg``): the reader, and
map_avgjg, P_avgjg and Rprec_mult_avgjg against a slow reference.

The reference follows trec_eval's description of the measures: rank the query's
documents (score descending, ties by document id descending), apply ``-M`` and
``-J`` (judged by that group), take the measure of the ranking against one group's
judgments, average over the query's groups, then over the queries. The quicktest's
two qrels_jg commands are compared byte for byte in
peers/test_trec_eval_quicktest.py.
"""

from __future__ import annotations

import gzip
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from receval.exceptions import InputValidationError, InvalidParameterError
from receval.registry.trec_eval import measure_values, select_measures
from receval.trec.jg import evaluate_groups, read_judgment_groups
from receval.trec.trec_eval import (
    NICKNAMES,
    evaluate_options,
    kernel_specs,
    parse_trec_eval_args,
    trec_eval,
    trec_eval_metrics,
)
from tests.oracles import trec_measures as oracle


# ------------------------------------------------------------------ the reference
def ranking(scores: dict[str, float]) -> list[str]:
    """Documents best first: score descending, then id descending (byte order)."""
    by_id = sorted(scores, key=lambda d: d.encode(), reverse=True)
    return sorted(by_id, key=lambda d: -scores[d])


def group_measures(ranked_docs, judgments, threshold, depth, judged_only, cuts, mults):
    """Every value of one group: {printed name: value}."""
    grades = [judgments.get(d) for d in ranked_docs]
    # -M N keeps the first N documents (None: no -M, all of them; 0: none), then -J
    # the judged ones (the oracle's depth 0 keeps all)
    ranked = oracle.prepare(grades if depth is None else grades[:depth], 0, judged_only)
    judged = list(judgments.values())
    big_r = oracle.relevant_count(judged, threshold)
    hits, total = 0, 0.0
    for i, g in enumerate(ranked, 1):
        if oracle.is_relevant(g, threshold):
            hits += 1
            total += hits / i
    out = {"map_avgjg": total / big_r if big_r else 0.0}
    for k in cuts:
        out[f"P_avgjg_{k}"] = sum(oracle.is_relevant(g, threshold) for g in ranked[:k]) / k
    for x in mults:
        out[f"Rprec_mult_avgjg_{x:3.2f}"] = oracle.rprec_mult(ranked, judged, threshold, x)
    return out


def reference(lines, run, threshold=1, depth=None, judged_only=False, complete=False,
              cuts=(5, 10), mults=(0.5, 1.0, 2.0)):  # fmt: skip
    """{query: {name: value}} and the means over queries, from the qrels_jg lines."""
    groups: dict[str, dict[str, dict[str, int]]] = {}
    for query, group, doc, grade in lines:
        groups.setdefault(query, {}).setdefault(group, {})[doc] = grade
    per_query = {}
    for query in sorted(groups, key=str.encode):
        if query not in run and not complete:
            continue
        docs = ranking(run.get(query, {}))
        values = [
            group_measures(docs, groups[query][g], threshold, depth, judged_only, cuts, mults)
            for g in sorted(groups[query], key=str.encode)
        ]
        per_query[query] = {name: sum(v[name] for v in values) / len(values) for name in values[0]}
    names = next(iter(per_query.values()))
    means = {name: sum(v[name] for v in per_query.values()) / len(per_query) for name in names}
    return per_query, means


def write(directory: Path, lines, run) -> tuple[str, str]:
    qrels_path, run_path = directory / "qrels_jg", directory / "run"
    qrels_path.write_text("".join(f"{q} {g} {d} {x}\n" for q, g, d, x in lines))
    run_path.write_text(
        "".join(f"{q} Q0 {d} 0 {s!r} sys\n" for q, scores in run.items() for d, s in scores.items())
    )
    return str(qrels_path), str(run_path)


def printed(text: str) -> dict[tuple[str, str], str]:
    out = {}
    for line in text.splitlines():
        name, query, value = line.split("\t")
        out[name.rstrip(), query] = value
    return out


def options(threshold, depth, judged_only, complete):
    argv = ["-q", "-R", "qrels_jg", f"-l{threshold}", "-m", "map_avgjg", "-m", "P_avgjg.5,10"]
    argv += ["-m", "Rprec_mult_avgjg.0.5,1.0,2.0", "-m", "num_q"]
    if depth is not None:
        argv.append(f"-M{depth}")
    if judged_only:
        argv.append("-J")
    if complete:
        argv.append("-c")
    return argv


# ------------------------------------------------------------------ the measures
def test_two_groups_of_one_query_by_hand(tmp_path: Path) -> None:
    # d1 d2 d3 ranked in this order; amy judges d2 relevant (AP 1/2, P_5 1/5), bob d1
    # and d3 (AP (1 + 2/3) / 2, P_5 2/5): means 0.66666..., 0.3
    lines = [("q", "bob", "d1", 1), ("q", "amy", "d2", 1), ("q", "bob", "d3", 2),
             ("q", "amy", "d1", 0)]  # fmt: skip
    run = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    text = trec_eval(["-q", "-R", "qrels_jg", "-m", "map_avgjg", "-m", "P_avgjg.5",
                      *write(tmp_path, lines, run)])  # fmt: skip
    got = printed(text)
    assert got["map_avgjg", "q"] == f"{(0.5 + (1 + 2 / 3) / 2) / 2:6.4f}" == "0.6667"
    assert got["P_avgjg_5", "q"] == "0.3000"


@given(
    st.data(),
    st.integers(0, 2),
    st.sampled_from([None, None, 0, 2, 4]),
    st.booleans(),
    st.booleans(),
)
def test_trec_eval_jg_equals_the_reference(data, threshold, depth, judged_only, complete):
    docs = [f"d{i}" for i in range(8)]
    queries = data.draw(st.lists(st.sampled_from(["1", "10", "2", "q"]), min_size=1,
                                 max_size=3, unique=True))  # fmt: skip
    lines, run = [], {}
    for query in queries:
        groups = data.draw(st.lists(st.sampled_from(["0", "1", "10", "9", "amy"]), min_size=1,
                                    max_size=4, unique=True))  # fmt: skip
        for group in groups:
            judged = data.draw(st.lists(st.sampled_from(docs), min_size=1, unique=True))
            for doc in judged:
                lines.append((query, group, doc, data.draw(st.integers(-1, 3))))
        if query != queries[0] and data.draw(st.booleans()):
            continue  # absent from the run
        ranked = data.draw(st.lists(st.sampled_from(docs), min_size=1, unique=True))
        # few distinct scores: ties everywhere
        run[query] = {d: data.draw(st.sampled_from([0.0, 0.5, 1.0])) for d in ranked}
    lines = data.draw(st.permutations(lines))
    with tempfile.TemporaryDirectory() as directory:
        files = write(Path(directory), lines, run)
        argv = [*options(threshold, depth, judged_only, complete), *files]
        if not complete and set(queries) - set(run):
            with pytest.raises(InvalidParameterError, match="pass -c"):
                trec_eval(argv)
            return
        got = printed(trec_eval(argv))
    per_query, means = reference(lines, run, threshold, depth, judged_only, complete)
    assert got["num_q", "all"] == str(len(per_query))
    for query, values in per_query.items():
        for name, value in values.items():
            # printed with 4 decimals (the exact values: the quicktest, the parity script)
            assert float(got[name, query]) == pytest.approx(value, abs=5.0001e-5), (name, query)
    for name, value in means.items():
        assert float(got[name, "all"]) == pytest.approx(value, abs=5.0001e-5), name


@given(st.data(), st.sampled_from([[], ["-J"], ["-M2"], ["-J", "-M1", "-l2"], ["-l0"]]))
def test_evaluate_groups_is_the_mean_of_the_groups_metrics(data, flags):
    """Each group's value is evaluate's metric of that group's judgments alone, under
    the conventions trec-eval's options give evaluate."""
    import receval

    docs = [f"d{i}" for i in range(6)]
    groups = data.draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, unique=True))
    lines = [
        ("q", g, d, data.draw(st.integers(-1, 2)))
        for g in groups
        for d in data.draw(st.lists(st.sampled_from(docs), min_size=1, unique=True))
    ]
    scores = {d: data.draw(st.sampled_from([0.0, 1.0])) for d in docs[:4]}
    o = parse_trec_eval_args(
        [*flags, "-m", "map_avgjg", "-m", "P_avgjg.3", "-m", "Rprec_mult_avgjg.1.5", "q", "r"]
    )
    values = [v for m, g in select_measures(o.measures) for v in measure_values(m, g)]
    metrics = [v.metric for v in values]
    with tempfile.TemporaryDirectory() as directory:
        qrels_path, run_path = write(Path(directory), lines, {"q": scores})
        jg = read_judgment_groups(qrels_path)
        run = receval.Run.from_file(run_path, file_format="trec")
        report = evaluate_groups(jg, run, kernel_specs(o, values))
    for k, group in enumerate(jg.group_ids.tolist()):
        alone = {d: x for _, g, d, x in lines if g == group}
        one = receval.evaluate({"q": alone}, {"q": scores}, metrics, profile="trec_eval",
                               allow_unmatched=True, **evaluate_options(o, metrics))  # fmt: skip
        for v in values:
            assert report.group_values[v.name][k] == one.values[v.metric][0], v.name
    for v in values:
        col = report.group_values[v.name]
        assert report.values[v.name][0] == pytest.approx(col.mean(), abs=1e-15)


def test_judged_only_and_depth_are_per_group(tmp_path: Path) -> None:
    # ranked d3 d2 d1; amy judges only d1 (relevant): with -J her list is [d1], P_1 = 1;
    # bob judges d3 (relevant): P_1 = 1 with or without -J; -M1 keeps only d3
    lines = [("q", "amy", "d1", 1), ("q", "bob", "d3", 1)]
    run = {"q": {"d1": 1.0, "d2": 2.0, "d3": 3.0}}
    files = write(tmp_path, lines, run)
    base = ["-q", "-R", "qrels_jg", "-m", "P_avgjg.1", "-m", "map_avgjg"]
    assert printed(trec_eval([*base, *files]))["P_avgjg_1", "q"] == "0.5000"
    assert printed(trec_eval([*base, "-J", *files]))["P_avgjg_1", "q"] == "1.0000"
    got = printed(trec_eval([*base, "-M1", *files]))
    assert got["map_avgjg", "q"] == "0.5000"  # bob 1, amy 0


def test_a_query_absent_from_the_run_counts_0_with_c(tmp_path: Path) -> None:
    lines = [("1", "a", "d1", 1), ("2", "a", "d1", 1), ("2", "b", "d2", 1)]
    files = write(tmp_path, lines, {"1": {"d1": 1.0}})
    with pytest.raises(InvalidParameterError, match=r"query '2' of the qrels.*pass -c"):
        trec_eval(["-R", "qrels_jg", "-m", "qrels_jg", *files])
    got = printed(trec_eval(["-c", "-q", "-R", "qrels_jg", "-m", "qrels_jg", *files]))
    assert got["map_avgjg", "2"] == "0.0000"
    assert got["map_avgjg", "all"] == "0.5000"
    assert got["num_q", "all"] == "2"
    # no query of the qrels in the run at all
    files = write(tmp_path, lines, {"3": {"d1": 1.0}})
    got = printed(trec_eval(["-c", "-R", "qrels_jg", "-m", "map_avgjg", *files]))
    assert got["map_avgjg", "all"] == "0.0000"


def test_runid_alone(tmp_path: Path) -> None:
    # trec_eval 10.0 prints the run's tag, whatever the judgment groups hold
    files = write(tmp_path, [("1", "a", "d1", 1)], {"1": {"d1": 1.0}, "2": {"d2": 0.5}})
    for depth in ([], ["-M", "0"]):
        assert trec_eval(["-R", "qrels_jg", *depth, "-m", "runid", *files]) == (
            "runid                 \tall\tsys\n"
        )


def test_the_nickname_and_the_metrics() -> None:
    assert NICKNAMES["qrels_jg"] == ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
    metrics = trec_eval_metrics(["map_avgjg", "P_avgjg.5", "Rprec_mult_avgjg.0.5"])
    assert metrics == {
        "map_avgjg": "map",
        "P_avgjg_5": "precision@5",
        "Rprec_mult_avgjg_0.50": "rprec_mult(mult=0.5)",
    }


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-R", "qrels_jg"], r"'num_ret' is not computed from judgment groups"),
        (["-R", "qrels_jg", "-m", "P.5"], r"'P' is not computed from judgment groups"),
        (["-m", "map_avgjg"], r"-m map_avgjg: it needs judgment groups; pass -R qrels_jg"),
        (["-m", "qrels_jg"], r"-m map_avgjg: it needs judgment groups"),
        (
            ["-R", "jg"],
            r"-R jg: unknown relevance format; use -R qrels, -R qrels_jg, -R prefs or",
        ),
    ],
)
def test_measures_the_format_cannot_give_are_refused(tmp_path, argv, message) -> None:
    files = write(tmp_path, [("q", "a", "d1", 1)], {"q": {"d1": 1.0}})
    with pytest.raises(InvalidParameterError, match=message):
        trec_eval([*argv, *files])


def test_the_command_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from receval.cli import app

    files = write(tmp_path, [("q", "a", "d1", 1), ("q", "b", "d1", 0)], {"q": {"d1": 1.0}})
    result = CliRunner().invoke(app, ["trec-eval", "-R", "qrels_jg", "-m", "qrels_jg", *files])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:3] == [
        "runid                 \tall\tsys",
        "num_q                 \tall\t1",
        "map_avgjg             \tall\t0.5000",
    ]
    result = CliRunner().invoke(app, ["trec-eval", "-R", "qrels_jg", *files])
    assert result.exit_code == 4  # trec_eval 10.0: "Can't calculate measure 'num_ret'"
    assert result.stderr.startswith("error: trec-eval -R qrels_jg: 'num_ret' is not computed")


# ------------------------------------------------------------------ the reader
TEXT = """\
# judgments of two assessors
10 bob d2 1
10 amy d1 2

10 amy d2 0
9 amy d1#x 1
10 9 d3 -1
"""


def check_text(groups) -> None:
    # queries and groups in byte order ('10' < '9'), each group's own judgments
    assert groups.user_ids.tolist() == ["10", "9"]
    assert groups.group_ids.tolist() == ["9", "amy", "bob", "amy"]
    assert groups.group_query.tolist() == [0, 0, 0, 1]
    assert groups.qrels.to_dict() == {
        0: {"d3": -1},
        1: {"d1": 2, "d2": 0},
        2: {"d2": 1},
        3: {"d1#x": 1},
    }


def test_reader_groups_and_comments(tmp_path: Path) -> None:
    path = tmp_path / "qrels_jg"
    path.write_text(TEXT)
    check_text(read_judgment_groups(path))


def test_reader_gzip(tmp_path: Path) -> None:
    path = tmp_path / "qrels_jg.gz"
    path.write_bytes(gzip.compress(TEXT.encode()))
    check_text(read_judgment_groups(path))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q a d1 1\nq a d2\n", r"qrels_jg:2: expected 4 whitespace-separated fields "
         r"\(query group document grade\), got 3: 'q a d2'"),
        ("q a d1 1\nq a d2 1 x\n", r"qrels_jg:2: expected 4 .* got 5"),
        ("q a d1 1\n\nq a d2 high\n", r"qrels_jg:3: the grade 'high' is not an integer"),
        ("q a d1 1\nq b d1 1\n# c\nq a d1 0\n", r"qrels_jg:4: group 'a' of query 'q' judges "
         r"document 'd1' again \(also on line 1\); each group may judge a document once"),
        ("# nothing\n\n", r"qrels_jg: no judgments; expected lines of 4"),
        ("", r"qrels_jg: no judgments"),
    ],
)  # fmt: skip
def test_reader_errors_name_the_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "qrels_jg"
    path.write_text(text)
    with pytest.raises(InputValidationError, match=message):
        read_judgment_groups(path)


@pytest.mark.parametrize("line", ["  # an indented comment", "\t#q a d1 1"])
def test_a_hash_after_white_space_is_not_a_comment(tmp_path: Path, line: str) -> None:
    # it was skipped as a comment; trec_eval's get_qrels_jg takes '#' for a comment only
    # as a line's first character, and reads the line as query '#...' (4 fields) or
    # reports a malformed line
    path = tmp_path / "qrels_jg"
    path.write_text(f"# a comment\nq a d1 1\n{line}\n")
    with pytest.raises(InputValidationError) as info:
        read_judgment_groups(path)
    assert str(info.value) == (
        f"{path}:3: a comment line begins with '#', got white space before it: {line!r}; "
        f"trec_eval's qrels readers take '#' for a comment only as a line's first character "
        f"(here they read a query {line.split()[0]!r} or a malformed line): remove the white "
        f"space before '#'."
    )


def test_reader_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputValidationError, match="no such file"):
        read_judgment_groups(tmp_path / "absent")


def test_the_same_document_in_two_groups_is_two_judgments(tmp_path: Path) -> None:
    path = tmp_path / "qrels_jg"
    path.write_text("q a d1 1\nq b d1 0\n")
    groups = read_judgment_groups(path)
    assert groups.qrels.to_dict() == {0: {"d1": 1}, 1: {"d1": 0}}
    assert groups.group_ids.tolist() == ["a", "b"]
