"""The fix of a file read in the wrong format names what the caller can do: a
function given the path (evaluate) takes no file_format, and a TSV line read as TREC
is named so where its tab-separated fields form no TREC line."""

import pytest

import receval as rv

QRELS_FIELDS = "4 whitespace-separated fields (user iteration item grade)"
RUN_FIELDS = "at least 6 whitespace-separated fields (user Q0 item rank score tag)"
CSV_QRELS = "user,item,grade\nu1,a,1\n"


def _error(call):
    with pytest.raises(rv.InputValidationError) as info:
        call()
    return str(info.value)


def _run(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("u1 Q0 a 1 0.9 r\n")
    return path


def test_evaluate_of_a_csv_qrels_named_as_trec_names_its_own_fix(tmp_path):
    # it said "so pass file_format='csv'", which evaluate does not take
    path = tmp_path / "qrels.txt"
    path.write_text(CSV_QRELS)
    assert _error(lambda: rv.evaluate(path, _run(tmp_path), ["ndcg@10"])) == (
        f"evaluate: qrels: {path}:1: expected {QRELS_FIELDS}, got 1: 'user,item,grade'; it "
        f"looks like a line "
        f"of a CSV file (3 fields separated by commas), so name the file .csv or pass "
        f"qrels=receval.Qrels.from_file(path, file_format='csv')."
    )
    # Qrels.from_file takes file_format: its own fix is left as it is
    assert _error(lambda: rv.Qrels.from_file(path)).endswith("so pass file_format='csv'.")


def test_evaluate_of_a_run_without_suffix_names_its_own_fix(tmp_path):
    # it said "Run: cannot tell the format ...": a class the caller never called
    path = tmp_path / "run"
    path.write_text("user,item,score\nu1,a,0.5\n")
    qrels = {"u1": {"a": 1}}
    assert _error(lambda: rv.evaluate(qrels, path, ["ndcg@10"])) == (
        f"evaluate: run: cannot tell the format of {str(path)!r}; name the file .csv, .tsv, "
        f".parquet or .trec, or pass run=receval.Run.from_file(path, file_format='csv') (or "
        f"'tsv', 'parquet' or 'trec')."
    )


def test_evaluate_of_qrels_without_suffix_names_evaluate_and_qrels(tmp_path):
    path = tmp_path / "qrels"
    path.write_text(CSV_QRELS)
    assert _error(lambda: rv.evaluate(qrels=path, run=_run(tmp_path), metrics=["mrr"])) == (
        f"evaluate: qrels: cannot tell the format of {str(path)!r}; name the file .csv, .tsv, "
        f".parquet or .trec, or pass qrels=receval.Qrels.from_file(path, file_format='csv') "
        f"(or 'tsv', 'parquet' or 'trec')."
    )


@pytest.mark.parametrize(
    ("reader", "text", "fields", "n"),
    [
        (rv.Qrels.from_file, "user\titem\tgrade\nu1\ta\t1\n", QRELS_FIELDS, 3),
        (rv.Qrels.from_file, "u1\ta\t1\n", QRELS_FIELDS, 3),
        (rv.Run.from_file, "user\tQ0\titem\trank\tscore\n", RUN_FIELDS, 5),  # a header
    ],
)
def test_a_tsv_file_read_as_trec_is_named_a_tsv_file(tmp_path, reader, text, fields, n):
    # it said "give every line these fields, separated by spaces or tabs"
    path = tmp_path / "x.txt"
    path.write_text(text)
    line = text.splitlines()[0]
    assert _error(lambda: reader(path)) == (
        f"{path}:1: expected {fields}, got {n}: {line!r}; it looks like a line of a TSV "
        f"file ({n} fields separated by tabs), so pass file_format='tsv'."
    )
    kind = rv.Run if reader == rv.Run.from_file else rv.Qrels
    assert _error(lambda: kind.from_trec(path)).endswith(
        f"({n} fields separated by tabs), not TREC text: give every line these fields, "
        f"separated by spaces or tabs."
    )


@pytest.mark.parametrize(
    ("reader", "text"),
    [
        (rv.Run.from_file, "u1\tQ0\ta\t1\t0.5\n"),  # a TREC run line short of its tag
        (rv.Qrels.from_file, "u1\t0\ta\t1\t2\n"),  # a TREC qrels line with a field too many
    ],
)
def test_a_trec_line_separated_by_tabs_is_no_tsv_line(tmp_path, reader, text):
    path = tmp_path / "x.txt"
    path.write_text(text)
    assert _error(lambda: reader(path)).endswith(
        "; give every line these fields, separated by spaces or tabs."
    )


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        # the score column is read as numbers (Arrow reads 'nan' as null), as scan reads it
        ("run.csv", "user,item,score\nu1,a,nan\n",
         "2: scores contains missing values (null), the first on this line; drop or fill "
         "them first."),
        ("run.trec", "u1 Q0 a 1 nan r\n",
         "1: the score 'nan' is not finite; scores must be finite numbers."),
    ],
)  # fmt: skip
def test_evaluate_of_a_run_file_with_a_nan_score_names_evaluate_and_the_line(
    tmp_path, name, text, said
):
    # it said "run.csv:2: Run: scores ..." and "run.trec:1: the score ...": neither
    # named evaluate, as the same run given as a dict does
    path = tmp_path / name
    path.write_text(text)
    got = _error(lambda: rv.evaluate({"u1": {"a": 1}}, path, ["ndcg@10"]))
    assert got == f"evaluate: run: {path}:{said}"
    in_memory = _error(lambda: rv.evaluate({"u1": {"a": 1}}, {"u1": {"a": float("nan")}}, ["mrr"]))
    assert in_memory.startswith("evaluate: run: scores ")
