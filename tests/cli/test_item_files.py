"""The item data files of ``receval rank`` (features, categories, the catalogue, candidates,
popularity, propensities, a training log) are read as the logs and ``--by`` files are: a
missing column names the option that names it, a missing id is reported at its row."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.cli._helpers import invoke, make_runner

# option, the metric that reads its file, and the file's other columns (besides --item)
FILES = {
    "--features": ("ils@2", {"f1": [1.0, 0.0, 1.0]}),
    "--item-categories": ("miscalibration@2", {"user": ["u", "u", "v"], "category": list("xyx")}),
    "--catalog": ("catalog_coverage@2", {}),
    "--candidates": ("recall@2", {"user": ["u", "u", "v"]}),
    "--popularity": ("arp@2", {"count": [3, 1, 2]}),
    "--propensities": ("recall@2", {"propensity": [0.5, 0.5, 0.5]}),
    "--train": ("novelty@2", {"user": ["u", "v", "v"]}),
    "--exclude": ("recall@2", {"user": ["u", "v", "v"]}),
}


@pytest.fixture
def trec(tmp_path):
    qrels, run, train = tmp_path / "q.txt", tmp_path / "r.txt", tmp_path / "train.csv"
    qrels.write_text("u 0 a 1\nv 0 c 1\n")
    run.write_text("u Q0 a 1 0.9 m\nu Q0 b 2 0.5 m\nv Q0 c 1 0.3 m\nv Q0 a 2 0.2 m\n")
    train.write_text("user,item\nu,b\nv,a\n")
    return ["rank", "--qrels", qrels, "--run", run]


def _args(trec, option, path):
    metric, _ = FILES[option]
    train = ["--train", trec[2].parent / "train.csv"] if option == "--item-categories" else []
    return [*trec, "-m", metric, option, path, *train]


@pytest.mark.parametrize("option", sorted(FILES))
def test_a_missing_id_is_at_its_row(trec, tmp_path, option):
    # it was the library's "feature_items contains 1 missing value (None, NaN or null)"
    # (or "Candidates: users ..."), naming neither the file nor its row
    _, others = FILES[option]
    path = tmp_path / "data.parquet"
    pq.write_table(pa.table({"item": ["a", None, "c"], **others}), path)
    result = invoke(make_runner(), *_args(trec, option, path), code=2)
    assert result.stderr == (
        f"error: {path}: row 2: {option}: --item item contains 1 missing value (empty, null "
        "or NaN), the first in this row; drop those rows or fill them first.\n"
    )


@pytest.mark.parametrize("option", sorted(FILES))
def test_a_nested_id_column_names_its_file_and_option(trec, tmp_path, option):
    # it was the library's "popularity items must hold ids (integers or strings)", naming
    # neither the file nor its option
    _, others = FILES[option]
    path = tmp_path / "data.parquet"
    pq.write_table(pa.table({"item": [["a"], ["b"], ["c"]], **others}), path)
    result = invoke(make_runner(), *_args(trec, option, path), code=2)
    assert result.stderr == (
        f"error: {path}: {option}: --item item must hold one id or label per row (a number, "
        "a string or a boolean). Got values of type list<element: string>; write one value "
        "per row there.\n"
    )


@pytest.mark.parametrize("option", sorted(FILES))
def test_a_missing_column_names_its_option(trec, tmp_path, option):
    # "data.csv: no column 'item'." told no way to name another column
    _, others = FILES[option]
    path = tmp_path / "data.csv"
    columns = {"id": ["a", "b", "c"], **others}
    path.write_text(
        ",".join(columns) + "\n" + "".join(",".join(map(str, row)) + "\n"
                                           for row in zip(*columns.values(), strict=True))
    )  # fmt: skip
    stderr = invoke(make_runner(), *_args(trec, option, path), code=2).stderr
    assert stderr.startswith(f"error: {path}: no column 'item' (--item item). Got columns ")


def test_bad_popularity_counts_say_the_fix(trec, tmp_path):
    # it said "--popularity counts must be finite numbers >= 0. Got [-1.0]." with no fix
    path = tmp_path / "pop.csv"
    path.write_text("item,count\na,-1\nb,2\n")
    stderr = invoke(make_runner(), *trec, "-m", "arp@2", "--popularity", path, code=2).stderr
    assert stderr == (
        "error: receval rank: --popularity counts must be finite numbers >= 0. Got [-1.0] "
        "for 1 item ['a'] instead; correct their counts or leave those items out.\n"
    )


@pytest.mark.parametrize("metric", ["novelty@2", "arp@2", "ndcg@2"])
def test_popularity_and_train_together_are_refused_whatever_the_metric(trec, tmp_path, metric):
    # novelty (a list metric, whose function takes --train alone) dropped --popularity:
    # it exited 0 where arp@2 and ndcg@2 exit 2
    path = tmp_path / "pop.csv"
    path.write_text("item,count\na,1\nb,2\n")
    train = trec[2].parent / "train.csv"
    args = [*trec, "-m", metric, "--popularity", path, "--train", train]
    stderr = invoke(make_runner(), *args, code=2).stderr
    assert stderr == (
        "error: receval rank: the items' popularity must come from exactly one of --popularity "
        "FILE and --train FILE. Got both; pass one of --popularity FILE or --train FILE "
        "instead.\n"
    )
    path.write_text("item,count\na,-1\nb,2\n")  # its counts checked, as for every metric
    stderr = invoke(make_runner(), *trec, "-m", metric, "--popularity", path, code=2).stderr
    assert stderr.startswith("error: receval rank: --popularity counts must be finite numbers")


@pytest.mark.parametrize(
    ("metric", "said"),
    [
        ("ils@2", "every recommended item. Got none for 1 item ['b']; add them, or check "
                  "that --features holds the run's item ids.\n"),
        ("serendipity@2", "every item of a history. Got none for 1 item ['b']; add them, or "
                          "check that --features holds their ids.\n"),
    ],
)  # fmt: skip
def test_features_without_an_item_say_the_fix_in_the_commands_words(trec, tmp_path, metric, said):
    # the fix said "check that feature_items holds ..." (or "add them to features"):
    # the library's parameters, which the command gives as --features
    path = tmp_path / "features.csv"
    path.write_text("item,f1\na,1\nc,0\n")
    train = trec[2].parent / "train.csv"
    stderr = invoke(make_runner(), *trec, "-m", metric, "--features", path, "--train", train,
                    code=2).stderr  # fmt: skip
    assert stderr == f"error: receval rank: --features must have a row for {said}"
