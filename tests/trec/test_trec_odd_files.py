"""TREC qrels and run files as they come, read by ``Qrels``/``Run`` and
``receval trec-eval``: the run's tag (trec_eval's ``runid``), grades and scores
that are not numbers of the format, and ids that are not UTF-8, the same in plain
text and compressed (gzip, which the compiled reader decompresses; bzip2 and xz,
whose decompressed bytes are fed to it).

Expectations from trec_eval 10.0 where it reads the file: its ``runid`` is the tag
of the run's last line (it keeps each line's tag as it reads them).
"""

from __future__ import annotations

import bz2
import gzip
import lzma

import pytest

from receval import Qrels, Run
from receval.exceptions import InputValidationError, InvalidParameterError
from receval.trec.trec_eval import trec_eval

QRELS = b"1 0 d1 1\n1 0 d2 0\n2 0 d4 1\n"
RUN = b"1 Q0 d1 1 0.9 first\n1 Q0 d2 2 0.8 first\n2 Q0 d4 1 0.5 last\n# a comment\n"
COMPRESS = {"": lambda b: b, ".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}


def _write(tmp_path, name, data, suffix=""):
    path = tmp_path / (name + suffix)
    path.write_bytes(COMPRESS[suffix](data))
    return path


def test_trec_eval_prints_the_tag_of_the_last_run_line(tmp_path):
    # trec_eval 10.0 prints "runid ... last" (it printed "first")
    qrels, run = _write(tmp_path, "qrels", QRELS), _write(tmp_path, "run", RUN)
    assert trec_eval(["-m", "runid", str(qrels), str(run)]) == f"{'runid':<22}\tall\tlast\n"


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
def test_trec_eval_prints_a_tag_that_is_not_utf8_as_its_bytes(tmp_path, suffix):
    # trec_eval 10.0 prints the tag's bytes as the run holds them ("r\xe9n", Latin-1):
    # the command writes the same bytes (it wrote U+FFFD, three other bytes), the
    # function gives them as surrogates (bytes the text cannot hold, as os.fsdecode)
    from receval.cli import app
    from tests.cli._helpers import make_runner

    qrels = _write(tmp_path, "qrels", QRELS)
    run = _write(tmp_path, "run", b"1 Q0 d1 1 0.9 r\xe9n\n2 Q0 d4 1 0.5 r\xe9n\n", suffix)
    argv = ["-m", "runid", str(qrels), str(run)]
    assert trec_eval(argv) == f"{'runid':<22}\tall\tr\udce9n\n"
    result = make_runner().invoke(app, ["trec-eval", *argv])
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes == b"runid" + b" " * 17 + b"\tall\tr\xe9n\n"


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
def test_a_run_is_named_by_the_tag_of_its_last_line(tmp_path, suffix):
    # both readers, as trec_eval's runid; a tag per query is not read per query
    assert Run.from_trec(_write(tmp_path, "run", RUN, suffix)).name == "last"


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
@pytest.mark.parametrize("line", [b"  # a comment", b"\t#q 0 d9 1"])
def test_a_qrels_line_with_a_hash_after_white_space_is_refused(tmp_path, suffix, line):
    # the compiled reader skipped it as a comment; trec_eval's get_qrels takes '#' for a
    # comment only as a line's first character (a run's reader skips white space first)
    path = _write(tmp_path, "qrels", b"# a comment\n1 0 d1 1\n" + line + b"\n", suffix)
    with pytest.raises(InputValidationError) as info:
        Qrels.from_trec(path)
    text = line.decode()
    assert str(info.value).startswith(
        f"{path}:3: a comment line begins with '#', got white space before it: {text!r}; "
    )
    run = _write(tmp_path, "run", b"1 Q0 d1 1 0.9 r\n" + line + b"\n", suffix)
    assert Run.from_trec(run).n_rows == 1


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
def test_a_hexadecimal_grade_is_refused_with_its_decimal(tmp_path, suffix):
    # Arrow's cast read '0x2' as 2 (trec_eval's atol reads it as 0)
    path = _write(tmp_path, "qrels", b"1 0 d1 1\n1 0 d2 0x2\n", suffix)
    with pytest.raises(InputValidationError) as info:
        Qrels.from_trec(path)
    assert str(info.value) == (
        f"{path}:2: the grade '0x2' is not an integer; write it in decimal (2), receval does "
        f"not read hexadecimal."
    )


def test_a_hexadecimal_grade_of_judgment_groups_is_refused(tmp_path):
    qrels = _write(tmp_path, "jg", b"1 g1 d1 1\n1 g1 d2 0x1\n")
    run = _write(tmp_path, "run", RUN)
    with pytest.raises(InputValidationError, match=r":2: the grade '0x1' is not an integer; "):
        trec_eval(["-R", "qrels_jg", "-m", "qrels_jg", str(qrels), str(run)])


@pytest.mark.parametrize("score", ["0x10", "0x1p4", "0X10"])
def test_a_hexadecimal_score_is_refused_with_its_decimal(tmp_path, score):
    path = _write(tmp_path, "run", f"1 Q0 d1 1 {score} r\n".encode())
    with pytest.raises(InputValidationError) as info:
        Run.from_trec(path)
    assert str(info.value) == (
        f"{path}:1: the score {score!r} is not a number; write it in decimal (16), receval "
        f"does not read hexadecimal."
    )


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
def test_a_grade_out_of_int64_says_so(tmp_path, suffix):
    # the Arrow path named line 1 and its grade '1', which is an integer
    path = _write(tmp_path, "qrels", b"1 0 d1 1\n1 0 d2 99999999999999999999\n", suffix)
    with pytest.raises(InputValidationError) as info:
        Qrels.from_trec(path)
    assert str(info.value) == (
        f"{path}:2: the grade '99999999999999999999' is not an integer; grades are 64-bit "
        f"integers, at most 9223372036854775807 in magnitude."
    )


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
@pytest.mark.parametrize(
    ("grade", "fix"),
    [
        ("1e1", "it is 10 written in exponent notation: write it as the integer 10 "
                "(trec_eval's atol reads '1e1' as 1)"),
        ("2.0", "it is 2 written with a decimal point: write it as the integer 2 "
                "(trec_eval's atol reads '2.0' as 2)"),
        ("1.5E1", "it is 15 written in exponent notation: write it as the integer 15 "
                  "(trec_eval's atol reads '1.5E1' as 1)"),
        ("1e30", "grades are 64-bit integers, at most 9223372036854775807 in magnitude"),
        ("2.5", "TREC qrels hold integer grades, as trec_eval reads them: give real-valued "
                "grades (probabilities) in a CSV, TSV or Parquet file"),
    ],
)  # fmt: skip
def test_an_integer_grade_written_otherwise_is_refused_with_the_integer(
    tmp_path, suffix, grade, fix
):
    # '1e1' and '2.0' were told to go to a CSV file as real-valued grades; receval reads
    # TREC grades as integers only (trec_eval's atol would read '1e1' as 1, not 10)
    path = _write(tmp_path, "qrels", f"1 0 d1 1\n1 0 d2 {grade}\n".encode(), suffix)
    with pytest.raises(InputValidationError) as info:
        Qrels.from_trec(path)
    assert str(info.value) == f"{path}:2: the grade {grade!r} is not an integer; {fix}."


def test_a_grade_in_non_ascii_digits_is_not_said_to_be_an_integer_atol_reads(tmp_path):
    # '\u0661' (Arabic-Indic one) was said to be "1 written with a decimal point" that
    # atol reads as 1; C's atol reads ASCII digits only (0 here)
    path = _write(tmp_path, "qrels", "1 0 d1 1\n1 0 d2 \u0661\n".encode())
    with pytest.raises(InputValidationError) as info:
        Qrels.from_trec(path)
    assert str(info.value) == (
        f"{path}:2: the grade '\u0661' is not an integer; write grades as integers such as "
        f"0, 1 or 2 (is a column missing or out of order?)."
    )


def test_atol_and_atof_read_ascii_digits_as_c_does():
    from receval.registry.trec_eval import atof, atol

    assert [atol(t) for t in (" -12x", "\u0661", "+7", "x", "0x10")] == [-12, 0, 7, 0, 0]
    assert [atof(t) for t in (" 1.5e2x", "1_0", "\u0661", ".5", "1e")] == [
        150.0, 1.0, 0.0, 0.5, 1.0,
    ]  # fmt: skip


def test_atof_reads_what_strtod_reads():
    # atof read ASCII decimals only ('0x10' as 0) and an infinity or a nan as 0.0;
    # the values are glibc strtod's
    import math

    from receval.registry.trec_eval import atof

    texts = ("0x10", "0x1p-2", "-0X1.8P1", "0x", "0xg", " +0x1f.8p-1x", "0x.8", "0x1p",
             "0x1.00000000000008p0", "0x1.00000000000008000001p0", "0x1p-1075", "0x1p1024",
             "00x10", "inf", "-Infinity", "infinit", "1e999", "in")  # fmt: skip
    assert [atof(t) for t in texts] == [
        16.0, 0.25, -3.0, 0.0, 0.0, 15.75, 0.5, 1.0,
        1.0, 1.0000000000000002, 0.0, math.inf,
        0.0, math.inf, -math.inf, math.inf, math.inf, 0.0,
    ]  # fmt: skip
    assert all(math.isnan(atof(t)) for t in ("nan", "NaN(123)", "nan(", "-nan"))
    assert math.copysign(1.0, atof("-nan")) == -1.0


@pytest.mark.parametrize(
    ("measure", "name", "want"),
    [("ndcg.1=0x10", "ndcg_1=0x10", "1.0000"), ("rbp.p=0x.8", "rbp_p=0x.8", "0.5000")],
)
def test_trec_eval_reads_hexadecimal_measure_parameters(tmp_path, measure, name, want):
    # ndcg.1=0x10 gave grade 1 the gain 0 (atof read '0x10' as 0), and rbp.p=0x.8 was
    # refused as p=0
    qrels = _write(tmp_path, "qrels", b"1 0 d1 1\n1 0 d2 0\n")
    run = _write(tmp_path, "run", b"1 Q0 d1 1 0.9 r\n1 Q0 d2 2 0.8 r\n")
    assert trec_eval(["-m", measure, str(qrels), str(run)]).split() == [name, "all", want]


@pytest.mark.parametrize(
    "measure", ["iprec_at_recall.inf", "set_F.nan", "rbp.p=1e999", "utility.inf,1,1,1"]
)
def test_trec_eval_refuses_a_measure_parameter_that_is_not_finite(tmp_path, measure):
    # iprec_at_recall.inf computed iprec_at_recall_0.00 (atof read inf as 0); utility's
    # four coefficients were refused with the status of a count other than four (4)
    qrels, run = _write(tmp_path, "qrels", QRELS), _write(tmp_path, "run", RUN)
    part = measure.rpartition("=")[2].rpartition(".")[2].split(",")[0]
    with pytest.raises(InvalidParameterError) as info:
        trec_eval(["-m", measure, str(qrels), str(run)])
    assert str(info.value).startswith(f"trec-eval -m {measure}: {part!r} reads as ")
    assert str(info.value).endswith(
        " (C's atof), not a finite number; give finite numbers such as 0.5."
    )
    assert info.value.status == 2  # a bad input, as trec_eval's "Cannot initialize measure"


def test_trec_eval_and_rank_refuse_an_integer_grade_in_exponent_notation(tmp_path):
    qrels = _write(tmp_path, "qrels", b"1 0 d1 1\n1 0 d2 1e1\n")
    run = _write(tmp_path, "run", RUN)
    said = (
        f"{qrels}:2: the grade '1e1' is not an integer; it is 10 written in exponent "
        f"notation: write it as the integer 10 (trec_eval's atol reads '1e1' as 1)."
    )
    with pytest.raises(InputValidationError) as info:
        trec_eval(["-m", "ndcg", str(qrels), str(run)])
    assert str(info.value) == said
    from tests.cli._helpers import invoke, make_runner

    for args in (["trec-eval", qrels, run], ["rank", "--run", run, "--qrels", qrels, "-m", "ndcg"]):
        assert invoke(make_runner(), *args, code=2).stderr == f"error: {said}\n"


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
def test_an_id_that_is_not_utf8_is_named_with_its_line(tmp_path, suffix):
    # Arrow's reader said "cannot be read as text: In CSV column #0: CSV conversion
    # error to string: invalid UTF8 data." (no line, no fix)
    path = _write(tmp_path, "run", b"1 Q0 d1 1 0.5 r\n1 Q0 d\xff 2 0.4 r\n", suffix)
    with pytest.raises(InputValidationError) as info:
        Run.from_trec(path)
    assert str(info.value) == (
        f"{path}:2: the id b'd\\xff' is not UTF-8 text; receval reads ids as text, so save "
        f"the file as UTF-8 (or rewrite the id)."
    )


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
def test_a_qrels_file_given_as_the_run_says_so(tmp_path, suffix):
    path = _write(tmp_path, "qrels", QRELS, suffix)
    with pytest.raises(InputValidationError) as info:
        Run.from_trec(path)
    assert str(info.value) == (
        f"{path}:1: expected at least 6 whitespace-separated fields (user Q0 item rank score "
        f"tag), got 4: '1 0 d1 1'; it has the 4 fields of a qrels line: check that the qrels "
        f"file is not given as the run."
    )


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
def test_a_run_given_as_the_qrels_says_so(tmp_path, suffix):
    path = _write(tmp_path, "run", RUN, suffix)
    with pytest.raises(InputValidationError) as info:
        Qrels.from_trec(path)
    assert str(info.value) == (
        f"{path}:1: expected 4 whitespace-separated fields (user iteration item grade), got "
        f"6: '1 Q0 d1 1 0.9 first'; it has the 6 fields of a run line: check that the run is "
        f"not given as the qrels."
    )
