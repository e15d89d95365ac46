"""``receval trec-eval`` on parameters as trec_eval 10.0 takes them: those given to a
measure without parameters, ``utility``'s count of coefficients, ``-l``, ``-v``, and
``num_rel`` under ``-c -Z``.

The expected outputs and statuses are trec_eval 10.0's (usnistgov/trec_eval at
v10.0, built by benchmarks/build_trec_eval.sh), recorded on the files below.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from receval.cli import app
from receval.registry.trec_eval import MEASURES, PREFS_MEASURES
from tests.cli._helpers import make_runner

QRELS = "a 0 d1 1\na 0 d2 0\na 0 d3 2\nb 0 d1 0\nb 0 d4 1\n"
RUN = "a Q0 d1 1 0.9 r\na Q0 d3 2 0.5 r\na Q0 d9 3 0.5 r\nb Q0 d4 1 0.3 r\nb Q0 d1 2 0.2 r\n"
PREFS = "a u s1 d1 2\na u s1 d2 0\nb u s1 d4 1\nb u s1 d1 0\n"


def _invoke(tmp_path: Path, *options: str, qrels: str = QRELS, run: str = RUN, **files: str):
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    argv = ["trec-eval", *options, str(tmp_path / "qrels"), str(tmp_path / "run")]
    return make_runner().invoke(app, [a.format(tmp=tmp_path) for a in argv])


def test_parameters_of_a_measure_without_parameters_leave_its_name(tmp_path: Path) -> None:
    # trec_eval 10.0 ignores them: -m map.5 prints map
    result = _invoke(tmp_path, "-m", "map.5", "-m", "num_q.3", "-m", "Rprec.abc", "-m", "num_rel.1")
    assert result.exit_code == 0
    assert result.stdout == (
        "num_q                 \tall\t2\n"
        "num_rel               \tall\t3\n"
        "map                   \tall\t0.9167\n"
        "Rprec                 \tall\t0.7500\n"
    )


def test_a_gain_table_skips_keys_that_are_not_integer_grades(tmp_path: Path) -> None:
    # trec_eval 10.0's gain_init.c skips a key that is not a sign then digits (valid_int);
    # receval read 'a' as grade 0 (atol) and refused an empty key
    options = ("-q", "-m", "G.=4", "-m", "ndcg.2a=5,1=3", "-m", "ndcg_rel.x=3,+2=0.5",
               "-m", "Rndcg.-=2,2=9")  # fmt: skip
    result = _invoke(tmp_path, *options)
    assert result.exit_code == 0
    assert result.stdout == (
        "G_=4                  \ta\t0.6309\n"
        "ndcg_2a=5,1=3         \ta\t0.9386\n"
        "ndcg_rel_x=3,+2=0.5   \ta\t1.0000\n"
        "Rndcg_-=2,2=9         \ta\t0.1075\n"
        "G_=4                  \tb\t1.0000\n"
        "ndcg_2a=5,1=3         \tb\t1.0000\n"
        "ndcg_rel_x=3,+2=0.5   \tb\t1.0000\n"
        "Rndcg_-=2,2=9         \tb\t1.0000\n"
        "G_=4                  \tall\t0.8155\n"
        "ndcg_2a=5,1=3         \tall\t0.9693\n"
        "ndcg_rel_x=3,+2=0.5   \tall\t1.0000\n"
        "Rndcg_-=2,2=9         \tall\t0.5537\n"
    )
    # a value of a skipped key is not read: trec_eval 10.0 prints 0.8239
    result = _invoke(tmp_path, "-m", "ndcg.a=inf,2=4")
    assert result.exit_code == 0
    assert result.stdout == "ndcg_a=inf,2=4        \tall\t0.8239\n"


_BARE = [
    m.name
    for m in MEASURES
    if not m.params and m.name not in PREFS_MEASURES and m.name not in ("runid", "map_avgjg")
]


@pytest.mark.parametrize("name", _BARE)
def test_every_measure_without_parameters_prints_the_same_with_some(
    tmp_path: Path, name: str
) -> None:
    bare = _invoke(tmp_path, "-q", "-m", name)
    given = _invoke(tmp_path, "-q", "-m", f"{name}.5")
    assert bare.exit_code == given.exit_code == 0
    assert given.stdout == bare.stdout and f"{name} " in bare.stdout


def test_a_preference_measure_given_parameters_is_printed(tmp_path: Path) -> None:
    # trec_eval 10.0 prints prefs_simp and prefs_pair; receval printed nothing
    options = ("-R", "prefs", "-m", "prefs_simp.5", "-m", "prefs_pair.x")
    result = _invoke(tmp_path, *options, qrels=PREFS)
    assert result.exit_code == 0
    assert (
        result.stdout
        == "prefs_simp            \tall\t1.0000\nprefs_pair            \tall\t1.0000\n"
    )


def test_a_judgment_group_measure_given_parameters_keeps_its_name(tmp_path: Path) -> None:
    groups = "a g1 d1 1\na g1 d2 0\nb g1 d4 1\n"
    bare = _invoke(tmp_path, "-R", "qrels_jg", "-m", "map_avgjg", qrels=groups)
    given = _invoke(tmp_path, "-R", "qrels_jg", "-m", "map_avgjg.5", qrels=groups)
    assert bare.exit_code == given.exit_code == 0
    assert given.stdout == bare.stdout and bare.stdout.startswith("map_avgjg ")


@pytest.mark.parametrize("coefficients", ["1,2", "a", "1,-1,0,0,0", "inf,1,1"])
def test_utility_without_four_coefficients_exits_4(tmp_path: Path, coefficients: str) -> None:
    # trec_eval 10.0: "calc_utility: improper number of coefficients" at the first
    # query, status 4, nothing printed; it reads inf (atof): the count is what it refuses
    result = _invoke(tmp_path, "-q", "-m", f"utility.{coefficients}", "-m", "map")
    assert result.exit_code == 4
    assert result.stdout == ""
    assert "utility: expected 4 comma-separated numbers" in result.stderr


@pytest.mark.parametrize("coefficients", ["1,2", "inf,1,1"])
def test_utility_without_four_coefficients_comes_after_the_files(
    tmp_path: Path, coefficients: str
) -> None:
    # trec_eval reads the files first: a malformed run stops it with status 2
    result = _invoke(tmp_path, "-m", f"utility.{coefficients}", run="a Q0 d1 1 0.9 r\nbroken\n")
    assert result.exit_code == 2
    assert f"{tmp_path / 'run'}:2:" in result.stderr


def test_a_negative_relevance_level_is_refused(tmp_path: Path) -> None:
    # trec_eval 10.0 counts the unjudged documents as relevant retrieved but not as
    # relevant: num_rel 2, num_rel_ret 2, map 1.5 on these files
    options = ("-l", "-1", "-m", "num_rel", "-m", "num_rel_ret", "-m", "map")
    qrels, run = "q1 0 d1 1\nq1 0 d2 0\n", "q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq1 Q0 d9 3 1 r\n"
    result = _invoke(tmp_path, *options, qrels=qrels, run=run)
    assert result.exit_code == 1  # as a negative -M
    assert result.stdout == ""
    assert result.stderr == (
        "error: trec-eval -l: expected a relevance level >= 0 (grade >= N is relevant; "
        "default 1), got '-1'.\n"
    )
    assert _invoke(tmp_path, "-l", "0", "-m", "map", qrels=qrels, run=run).exit_code == 0


def test_num_rel_under_complete_and_zscores_is_the_qrels_count(tmp_path: Path) -> None:
    # trec_eval 10.0 overwrites the summary of num_rel under -c with the qrels' grades
    # above 0, z-scores or not
    options = ("-c", "-Z", "{tmp}/z", "-m", "num_rel")
    qrels, run = "q1 0 d1 1\nq1 0 d2 1\n", "q1 Q0 d1 1 1 r\n"
    result = _invoke(tmp_path, *options, qrels=qrels, run=run, z="q1 num_rel 1 1\n")
    assert result.exit_code == 0
    assert result.stdout == "Znum_rel               \tall\t2.0000\n"


@pytest.mark.parametrize(
    "argv",
    [["-v"], ["--version"], ["-q", "-v", "qrels"], ["-v", "-h"], ["-v", "-x"],
     ["qrels", "-v", "run", "--nosuch"], ["-v", "-m", "nosuch"], ["-m", "yaap", "-v"],
     ["-vx"], ["-qvx", "qrels"], ["-qv"], ["-vl"], ["-vl", "qrels", "run"]],
)  # fmt: skip
def test_version_goes_to_stderr(argv: list[str]) -> None:
    # trec_eval reads its options in order and stops at -v: an unknown option after it,
    # in the same argument too (-vx), exited 1
    # trec_eval 10.0: "trec_eval version 10.0-rc3" on stderr, stdout empty, status 0
    result = make_runner().invoke(app, ["trec-eval", *argv])
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr.startswith("receval ") and "trec_eval 10.0" in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("flag", ["-v", "-h"])
@pytest.mark.parametrize("measure", ["nosuch", "P.", "P_10"])
def test_an_illegal_measure_before_version_or_help_is_refused(flag: str, measure: str) -> None:
    # trec_eval refuses an illegal -m as it reads it (status 1); -v or -h after it exited 0
    result = make_runner().invoke(app, ["trec-eval", "-m", measure, flag])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"error: trec-eval -m {measure}: ")


def test_a_parameter_out_of_range_is_quoted_as_typed(tmp_path: Path) -> None:
    result = _invoke(tmp_path, "-m", "rbp.p=abc")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("error: trec-eval -m rbp.p=abc: ")
    assert "p must be a number in (0, 1)" in result.stderr


@pytest.mark.parametrize("cluster", ["-qx", "-xv", "-hx"])
def test_a_cluster_with_an_unknown_letter_before_v_is_refused(cluster: str) -> None:
    # trec_eval 10.0: "invalid option -- 'x'" and the usage, status 1 (-h acts after)
    result = make_runner().invoke(app, ["trec-eval", cluster, "qrels", "run"])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("error: trec-eval: option -x not recognized.")


@pytest.mark.parametrize(
    ("cluster", "apart"), [(["-qn"], ["-q", "-n"]), (["-ql2"], ["-q", "-l", "2"])]
)
def test_clustered_short_options_read_as_apart(
    tmp_path: Path, cluster: list[str], apart: list[str]
) -> None:
    together, separate = _invoke(tmp_path, *cluster), _invoke(tmp_path, *apart)
    assert together.exit_code == separate.exit_code == 0
    assert together.stdout == separate.stdout and "\ta\t" in together.stdout
