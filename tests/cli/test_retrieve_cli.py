"""receval retrieve, and receval rank --user-vectors --item-vectors."""

from __future__ import annotations

import json
import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from receval import Run, evaluate, evaluate_embeddings, retrieve
from receval.cli import app
from receval.exceptions import UnmatchedIdsWarning
from tests.cli._helpers import invoke, make_runner


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    users = rng.integers(-2, 3, (6, 3)).astype(np.float32)
    items = rng.integers(-2, 3, (20, 3)).astype(np.float32)
    np.save(tmp_path / "u.npy", users)
    np.save(tmp_path / "i.npy", items)
    (tmp_path / "users.txt").write_text("\n".join(f"u{i}" for i in range(6)) + "\n")
    np.save(tmp_path / "items_ids.npy", np.arange(100, 120))
    pq.write_table(
        pa.table({"user": ["u0", "u1", "u1"], "item": [100, 101, 102]}), tmp_path / "train.parquet"
    )
    (tmp_path / "qrels.tsv").write_text(
        "user\titem\tgrade\n" + "".join(f"u{u}\t{100 + (3 * u) % 20}\t1\n" for u in range(6))
    )
    return tmp_path, users, items


def test_retrieve_writes_the_run_of_receval_retrieve(files):
    path, users, items = files
    out = path / "run.parquet"
    result = invoke(
        make_runner(),
        "retrieve",
        "--users",
        path / "u.npy",
        "--items",
        path / "i.npy",
        "--k",
        4,
        "--user-ids",
        path / "users.txt",
        "--item-ids",
        path / "items_ids.npy",
        "--exclude",
        path / "train.parquet",
        "-o",
        out,
    )
    assert "wrote 24 rows for 6 users" in result.stderr
    want = retrieve(
        users,
        items,
        4,
        user_ids=[f"u{i}" for i in range(6)],
        item_ids=np.arange(100, 120),
        exclude=(["u0", "u1", "u1"], [100, 101, 102]),
    )
    table = pq.read_table(out)
    assert table.column_names == ["user", "item", "score", "rank"]
    got = Run.from_frame(table)
    assert got.to_dict() == want.to_dict()
    assert table.column("rank").to_pylist()[:4] == [1, 2, 3, 4]


def test_retrieve_trec_output_and_bad_input(files):
    path, _, _ = files
    out = path / "run.txt"
    invoke(
        make_runner(),
        "retrieve",
        "--users",
        path / "u.npy",
        "--items",
        path / "i.npy",
        "--k",
        2,
        "-o",
        out,
        "--quiet",
    )
    first = out.read_text().splitlines()[0].split()
    assert first[1] == "Q0" and first[3] == "1" and first[5] == "i.npy"
    bad = invoke(
        make_runner(),
        "retrieve",
        "--users",
        path / "u.npy",
        "--items",
        path / "nothere.npy",
        "-o",
        out,
        code=2,
    )
    assert "error:" in bad.stderr and "nothere.npy" in bad.stderr


def test_rank_from_vectors_equals_evaluate_embeddings(files):
    path, users, items = files
    result = invoke(
        make_runner(),
        "rank",
        "--qrels",
        path / "qrels.tsv",
        "--user-vectors",
        path / "u.npy",
        "--item-vectors",
        path / "i.npy",
        "--user-ids",
        path / "users.txt",
        "--item-ids",
        path / "items_ids.npy",
        "-m",
        "ndcg@5",
        "-m",
        "recall@3",
        "--format",
        "json",
    )
    (row,) = json.loads(result.stdout)
    ids = dict(user_ids=[f"u{i}" for i in range(6)], item_ids=np.arange(100, 120))
    qrels = {f"u{u}": {100 + (3 * u) % 20: 1} for u in range(6)}
    metrics = ["ndcg@5", "recall@3"]
    want = evaluate_embeddings(qrels, users, items, metrics, **ids).mean
    # each tie at the 5th item kept whole, ordered by the evaluation: the metrics of
    # the whole ranking (the integer vectors tie)
    assert want == evaluate(qrels, retrieve(users, items, 20, **ids), metrics).mean
    assert want != evaluate(qrels, retrieve(users, items, 5, **ids), metrics).mean
    assert row["run"] == "i.npy"
    assert row["ndcg@5"] == pytest.approx(want["ndcg@5"])
    assert row["recall@3"] == pytest.approx(want["recall@3"])


def test_rank_needs_a_run_or_both_vector_files(files):
    path, _, _ = files
    result = invoke(
        make_runner(),
        "rank",
        "--qrels",
        path / "qrels.tsv",
        "--user-vectors",
        path / "u.npy",
        code=2,
    )
    assert "--item-vectors" in result.stderr


def test_rank_from_vectors_with_a_metric_of_the_whole_list_names_rank_and_its_k(files):
    # it said "evaluate_embeddings: the metrics ...", a function the command line never called
    path, _, _ = files
    result = invoke(make_runner(), "rank", "--qrels", path / "qrels.tsv", "--user-vectors",
                    path / "u.npy", "--item-vectors", path / "i.npy", "-m", "mrr",
                    code=2)  # fmt: skip
    assert result.stderr.strip() == (
        "error: receval rank: the metrics ['mrr'] read the whole list; pass --k 100 (the "
        "items to retrieve per user) or give them a cutoff (e.g. 'mrr@100')."
    )


def test_rank_from_vectors_refuses_a_k_below_a_metrics_cutoff(files):
    # it scored ndcg@10 on lists of 5 items, where evaluate_embeddings refuses k=5
    path, _, _ = files
    result = invoke(make_runner(), "rank", "--qrels", path / "qrels.tsv", "--user-vectors",
                    path / "u.npy", "--item-vectors", path / "i.npy", "-m", "ndcg@10",
                    "--k", 5, code=2)  # fmt: skip
    assert result.stderr.strip() == (
        "error: receval rank: --k 5 retrieves fewer items than the cutoff of the metrics "
        "['ndcg@10']; pass --k 10 (their largest cutoff) or more; without --k their largest "
        "cutoff is retrieved."
    )


def test_rank_from_vectors_masks_the_exclude_items_in_the_retrieval(files):
    path, users, items = files
    result = invoke(
        make_runner(),
        "rank",
        "--qrels",
        path / "qrels.tsv",
        "--user-vectors",
        path / "u.npy",
        "--item-vectors",
        path / "i.npy",
        "--user-ids",
        path / "users.txt",
        "--item-ids",
        path / "items_ids.npy",
        "--exclude",
        path / "train.parquet",
        "-m",
        "ndcg@5",
        "--format",
        "json",
    )
    (row,) = json.loads(result.stdout)
    train = (["u0", "u1", "u1"], [100, 101, 102])
    options = dict(
        user_ids=[f"u{i}" for i in range(6)], item_ids=np.arange(100, 120), exclude=train
    )
    qrels = {f"u{u}": {100 + (3 * u) % 20: 1} for u in range(6)}
    want = evaluate_embeddings(qrels, users, items, ["ndcg@5"], **options).mean["ndcg@5"]
    assert want == evaluate(qrels, retrieve(users, items, 20, **options), ["ndcg@5"]).mean["ndcg@5"]
    assert row["ndcg@5"] == pytest.approx(want)


def test_exclude_pairs_without_a_vector_are_noted_and_counted(files):
    path, _, _ = files
    # u9 has no user vector, item 999 no item vector: 2 of the 4 pairs mask nothing
    (path / "excl.csv").write_text("user,item\nu0,105\nu0,110\nu9,103\nu1,999\n")
    common = ["--user-ids", path / "users.txt", "--item-ids", path / "items_ids.npy",
              "--exclude", path / "excl.csv"]  # fmt: skip
    note = (
        f"note: 2 of the 4 distinct (user, item) pairs of --exclude {path / 'excl.csv'} mask "
        "nothing, since their user or item has no vector (users without one: 1 pair, e.g. "
        "['u9']; items without one: 1 pair, e.g. [999]); check their ids against --user-ids "
        "and --item-ids (type, prefix) if they should match."
    )
    result = invoke(make_runner(), "retrieve", "--users", path / "u.npy", "--items",
                    path / "i.npy", "--k", 4, *common, "-o", path / "run.csv")  # fmt: skip
    assert note in result.stderr
    result = invoke(make_runner(), "rank", "--qrels", path / "qrels.tsv", "--user-vectors",
                    path / "u.npy", "--item-vectors", path / "i.npy", *common, "-m", "ndcg@5",
                    "-f", "json")  # fmt: skip
    assert note in result.stderr
    (row,) = json.loads(result.stdout)
    assert row["counts"]["n_exclude_unmatched"] == 2


def test_rank_from_vectors_retrieves_from_the_candidates_and_counts_those_without_a_vector(
    files,
):
    # the run was retrieved from every item and then cut to the candidates by evaluate,
    # and the candidates without a vector were neither noted nor counted
    path, users, items = files
    candidates = {f"u{u}": [100 + (3 * u + d) % 20 for d in (0, 5, 9, 13)] for u in range(6)}
    candidates["u0"].append(999)  # item 999 and user u9 have no vector
    candidates["u9"] = [103]
    (path / "cands.csv").write_text(
        "user,item\n" + "".join(f"{u},{i}\n" for u, its in candidates.items() for i in its)
    )
    result = invoke(make_runner(), "rank", "--qrels", path / "qrels.tsv", "--user-vectors",
                    path / "u.npy", "--item-vectors", path / "i.npy", "--user-ids",
                    path / "users.txt", "--item-ids", path / "items_ids.npy", "--candidates",
                    path / "cands.csv", "-m", "ndcg@2", "-f", "json")  # fmt: skip
    note = (
        f"note: 2 of the 26 distinct (user, item) pairs of --candidates {path / 'cands.csv'} are "
        "never scored, since their user or item has no vector (users without one: 1 pair, "
        "e.g. ['u9']; items without one: 1 pair, e.g. [999]); check their ids against "
        "--user-ids and --item-ids (type, prefix) if they should match."
    )
    assert note in result.stderr
    (row,) = json.loads(result.stdout)
    assert row["counts"]["n_candidates_unmatched"] == 2
    qrels = {f"u{u}": {100 + (3 * u) % 20: 1} for u in range(6)}
    with pytest.warns(UnmatchedIdsWarning, match="2 of the 26 distinct"):
        want = evaluate_embeddings(qrels, users, items, ["ndcg@2"], candidates=candidates,
                                   user_ids=[f"u{i}" for i in range(6)],
                                   item_ids=np.arange(100, 120))  # fmt: skip
    assert want.n_candidates_unmatched == 2
    assert row["ndcg@2"] == pytest.approx(want.mean["ndcg@2"])


_EXCLUDE = "user,item\nu0,105\nu0,110\nu9,103\nu1,999\n"
_CANDIDATES = "user,item\n" + "".join(
    f"u{u},{100 + i}\n" for u in range(6) for i in range(0, 20, 2)
)


def _rank_vectors(path, exclude, candidates, *more):
    result = invoke(make_runner(), "rank", "--qrels", path / "qrels.tsv", "--user-vectors",
                    path / "u.npy", "--item-vectors", path / "i.npy", "--user-ids",
                    path / "users.txt", "--item-ids", path / "items_ids.npy", "--exclude",
                    exclude, "--candidates", candidates, *more, "-m", "ndcg@5", "-f",
                    "json")  # fmt: skip
    return json.loads(result.stdout)


@pytest.mark.parametrize("with_run", [False, True])
def test_rank_from_vectors_reads_each_input_once(files, monkeypatch, with_run):
    # --exclude and --candidates were read for the retrieval and again for the
    # evaluation, and the qrels twice
    from receval.data import io

    path, _, _ = files
    (path / "excl.csv").write_text(_EXCLUDE)
    (path / "cands.csv").write_text(_CANDIDATES)
    (path / "run.tsv").write_text("user\titem\tscore\nu0\t100\t1.0\nu1\t104\t0.5\n")
    more = ["--run", path / "run.tsv"] if with_run else []
    read, original = [], io.read_table
    monkeypatch.setattr(io, "read_table", lambda p, *a, **k: read.append(os.path.basename(p))
                        or original(p, *a, **k))  # fmt: skip
    rows = _rank_vectors(path, path / "excl.csv", path / "cands.csv", *more)
    assert sorted(read) == sorted(["excl.csv", "cands.csv", "qrels.tsv", *(["run.tsv"] * with_run)])
    counts = rows[-1]["counts"]
    assert (counts["n_exclude_unmatched"], counts["n_candidates_unmatched"]) == (2, 0)


def test_rank_from_vectors_takes_exclude_from_standard_input(files):
    path, _, _ = files
    (path / "excl.csv").write_text(_EXCLUDE)
    (path / "cands.csv").write_text(_CANDIDATES)
    want = _rank_vectors(path, path / "excl.csv", path / "cands.csv")
    runner = make_runner()
    args = ["rank", "--qrels", path / "qrels.tsv", "--user-vectors", path / "u.npy",
            "--item-vectors", path / "i.npy", "--user-ids", path / "users.txt", "--item-ids",
            path / "items_ids.npy", "--exclude", "-", "--candidates", path / "cands.csv",
            "-m", "ndcg@5", "-f", "json"]  # fmt: skip
    result = runner.invoke(app, [str(a) for a in args], input=_EXCLUDE)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == want
    assert "pairs of --exclude <stdin> mask nothing" in result.stderr


@pytest.mark.parametrize("spelling", ["00{}", "{}e0", "+{}"])
def test_id_files_keep_ids_an_integer_would_respell(files, spelling):
    # an id file is read as a CSV id column: ints only where every id is written as
    # its digits, so 001 stays "001" and matches the qrels' "001" (not the number 1)
    path, users, items = files
    ids = [spelling.format(i + 1) for i in range(6)]
    (path / "odd.txt").write_text("\n".join(ids) + "\n")
    (path / "odd.tsv").write_text(
        "user\titem\tgrade\n"
        + "".join(f"{u}\t{100 + (3 * i) % 20}\t1\n" for i, u in enumerate(ids))
    )
    common = ["--user-ids", path / "odd.txt", "--item-ids", path / "items_ids.npy"]
    out = path / "run.parquet"
    invoke(make_runner(), "retrieve", "--users", path / "u.npy", "--items", path / "i.npy",
           "--k", 3, "-o", out, *common)  # fmt: skip
    want = retrieve(users, items, 3, user_ids=ids, item_ids=np.arange(100, 120))
    assert Run.from_frame(pq.read_table(out)).to_dict() == want.to_dict()
    result = invoke(make_runner(), "rank", "--qrels", path / "odd.tsv", "--user-vectors",
                    path / "u.npy", "--item-vectors", path / "i.npy", *common, "-m",
                    "recall@20", "--format", "json")  # fmt: skip
    (row,) = json.loads(result.stdout)
    assert row["recall@20"] == 1.0


def test_an_output_that_cannot_be_written_fails_before_the_work(files):
    # it was found after the retrieval ("error: [Errno 2] Failed to open local file"),
    # and -o naming an input (the item vectors) overwrote it with the run
    path, _, _ = files
    before = (path / "i.npy").read_bytes()
    for output, what in [
        (path / "no" / "run.csv", f"the output path's folder '{path / 'no'}' does not exist"),
        (path, "the output path must be a regular file or a new name"),
        (path / "i.npy", "the output path must not be one of the inputs"),
    ]:
        result = invoke(make_runner(), "retrieve", "--users", path / "u.npy", "--items",
                        path / "i.npy", "-o", output, code=2)  # fmt: skip
        assert result.stderr.startswith(f"error: receval retrieve -o/--output: {what}")
    assert (path / "i.npy").read_bytes() == before


def test_an_id_file_with_an_empty_line_is_refused_naming_its_line(files):
    # the empty line was dropped: "--user-ids must have one id per row of the vectors
    # (6). Got 5.", no line named (and with one more id, every id after it shifted)
    path, _, _ = files
    (path / "gap.txt").write_text("u0\nu1\n\nu3\nu4\nu5\n")
    result = invoke(make_runner(), "retrieve", "--users", path / "u.npy", "--items",
                    path / "i.npy", "--user-ids", path / "gap.txt", "-o", path / "r.csv",
                    code=2)  # fmt: skip
    assert result.stderr.startswith(
        f"error: --user-ids {path / 'gap.txt'}:3: an empty line. Expected one id on every line"
    )


def test_exclude_matching_nothing_names_the_option(files):
    # it said "no (user, item) pair of exclude names a user of --user-ids": the
    # library's parameter, not the command's option
    path, _, _ = files
    (path / "other.csv").write_text("user,item\nq,7\n")
    result = invoke(make_runner(), "retrieve", "--users", path / "u.npy", "--items",
                    path / "i.npy", "--user-ids", path / "users.txt", "--item-ids",
                    path / "items_ids.npy", "--exclude", path / "other.csv", "-o",
                    path / "r.csv", code=2)  # fmt: skip
    assert "no (user, item) pair of --exclude FILE names a user of --user-ids and an item " in (
        result.stderr
    )


def test_rank_from_vectors_of_a_poor_model_scores_0_and_a_foreign_catalogue_is_refused(tmp_path):
    # every user's top 1 is item 0, which no qrels user judged: a poor model, not an id
    # mix-up (the catalogue holds the judged item 1), as evaluate_embeddings reads it
    np.save(tmp_path / "u.npy", np.ones((3, 2), dtype=np.float32))
    np.save(tmp_path / "i.npy", np.array([[1, 1], [0, 0]], dtype=np.float32))
    (tmp_path / "qrels.tsv").write_text("user\titem\tgrade\n0\t1\t1\n1\t1\t1\n2\t1\t1\n")
    args = ["rank", "--qrels", tmp_path / "qrels.tsv", "--user-vectors", tmp_path / "u.npy",
            "--item-vectors", tmp_path / "i.npy", "-m", "recall@1", "--format", "json"]  # fmt: skip
    (row,) = json.loads(invoke(make_runner(), *args).stdout)
    users, items = np.ones((3, 2), dtype=np.float32), np.array([[1, 1], [0, 0]], np.float32)
    want = evaluate_embeddings({u: {1: 1} for u in range(3)}, users, items, ["recall@1"])
    assert row["recall@1"] == want.mean["recall@1"] == 0.0
    # a catalogue none of whose ids the qrels judge is refused, naming --item-ids
    np.save(tmp_path / "ids.npy", np.array([10, 11]))
    bad = invoke(make_runner(), *args, "--item-ids", tmp_path / "ids.npy", code=2)
    assert "none of --item-ids' 2 items is judged in the qrels" in bad.stderr


def test_a_trec_run_tag_has_no_whitespace_and_reads_back(files):
    # the tag was the --items file's name as it is: "my items.npy" added a field to every
    # line, read back as the tag "my" and a field after it
    path, _, _ = files
    (path / "my items.npy").write_bytes((path / "i.npy").read_bytes())
    (path / "items.txt").write_text("".join(f"i{i}\n" for i in range(20)))
    args = ["retrieve", "--users", path / "u.npy", "--items", path / "my items.npy", "--k", 3,
            "--user-ids", path / "users.txt", "--item-ids", path / "items.txt",
            "--quiet"]  # fmt: skip
    invoke(make_runner(), *args, "-o", path / "run.txt")
    invoke(make_runner(), *args, "-o", path / "run.parquet")
    lines = (path / "run.txt").read_text().splitlines()
    assert {len(line.split()) for line in lines} == {6}
    trec = Run.from_trec(path / "run.txt")
    assert trec.name == "my_items.npy"
    assert trec.to_dict() == Run.from_file(path / "run.parquet").to_dict()


def test_bytes_ids_are_written_to_a_trec_run_as_their_text(files):
    # a .npy file of NumPy bytes ids: the TREC run held b'u0' (Python's repr of the
    # bytes), while the .csv run held u0 and the evaluation matched the qrels' u0
    path, _, _ = files
    np.save(path / "users.npy", np.array([f"u{i}".encode() for i in range(6)]))
    np.save(path / "items.npy", np.array([f"i{i}".encode() for i in range(20)]))
    args = ["retrieve", "--users", path / "u.npy", "--items", path / "i.npy", "--k", 2,
            "--user-ids", path / "users.npy", "--item-ids", path / "items.npy",
            "--quiet"]  # fmt: skip
    invoke(make_runner(), *args, "-o", path / "run.txt")
    invoke(make_runner(), *args, "-o", path / "run.csv")
    trec = Run.from_file(path / "run.txt", file_format="trec")
    table = Run.from_file(path / "run.csv")
    assert trec.user_ids.tolist() == table.user_ids.tolist() == [f"u{i}" for i in range(6)]
    assert sorted(trec.item_ids.tolist()) == sorted(table.item_ids.tolist())
    assert all(i.startswith("i") for i in trec.item_ids.tolist())


@pytest.mark.parametrize(
    ("option", "ids", "name", "where"),
    [
        ("--user-ids", "u0\nu 1\nu2\nu3\nu4\nu5\n", "users.txt", "users.txt:2"),
        ("--item-ids", "".join(f"i{i}\n" for i in range(19)) + "i\t19\n", "items.txt",
         "items.txt:20"),
        ("--user-ids", np.array(["u0", "u1", "", "u3", "u4", "u5"]), "users.npy",
         "users.npy (row 2)"),
    ],
)  # fmt: skip
def test_an_id_a_trec_run_cannot_hold_is_refused_before_the_work(files, option, ids, name, where):
    # 'u 1' was written as the line "u 1 Q0 i 1 s tag": read back as user u, item Q0,
    # the scores from the ranks (a wrong run, without a word); an empty id shifted
    # the fields the other way. A table file holds them: it is written.
    path, _, _ = files
    if isinstance(ids, str):
        (path / name).write_text(ids)
    else:
        np.save(path / name, ids)
    args = ["retrieve", "--users", path / "u.npy", "--items", path / "i.npy", "--k", 2,
            option, path / name]  # fmt: skip
    result = invoke(make_runner(), *args, "-o", path / "run.txt", code=2)
    assert result.stdout == "" and not (path / "run.txt").exists()
    assert result.stderr.startswith(
        f"error: retrieve: {option} must hold ids without spaces, tabs or line breaks, nor "
        f"empty ones, to be written to the TREC run file -o {path / 'run.txt'}"
    )
    assert f"at {path / where}; write the run as a .parquet, .csv or .tsv file" in result.stderr
    invoke(make_runner(), *args, "-o", path / "run.parquet", "--quiet")
    written = pq.read_table(path / "run.parquet").column(option[2:6]).to_pylist()
    assert set(written) <= set(ids.split("\n") if isinstance(ids, str) else ids.tolist())


@pytest.mark.parametrize("content", [b"", b"u0\nu1\n", "objects"])
def test_an_id_file_numpy_cannot_read_is_refused_naming_it(files, content):
    # np.load's ValueError came out as a traceback (an object array, which it loads
    # only with pickles allowed, or a file that is no .npy file)
    path, _, _ = files
    ids = path / "ids.npy"
    if content == "objects":
        np.save(ids, np.array(["u0", 1, "u2", "u3", "u4", "u5"], dtype=object))
    else:
        ids.write_bytes(content)
    result = invoke(make_runner(), "retrieve", "--users", path / "u.npy", "--items",
                    path / "i.npy", "--user-ids", ids, "-o", path / "r.csv", code=2)  # fmt: skip
    assert result.stderr.startswith(
        f"error: --user-ids {ids}: expected a .npy file of ids (numbers or text) as numpy.save "
        f"writes one. NumPy cannot read it: "
    )
    assert result.stderr.endswith(
        "Write the ids with numpy.save (not as objects), or one id per line in a text file.\n"
    )
    assert "Traceback" not in result.stderr and not (path / "r.csv").exists()


def test_a_vector_file_that_is_no_parquet_file_is_refused_naming_the_option(files):
    # Arrow's message came alone ("error: Parquet magic bytes not found in footer. ..."),
    # naming neither the option nor the file
    path, _, _ = files
    vectors = path / "i.parquet"
    vectors.write_bytes(b"user,item\n1,2\n")
    result = invoke(make_runner(), "retrieve", "--users", path / "u.npy", "--items", vectors,
                    "-o", path / "r.csv", code=2)  # fmt: skip
    assert result.stderr.startswith(
        f"error: retrieve: --items file {str(vectors)!r} is not a Parquet file: Parquet magic "
        f"bytes not found in footer."
    )
    assert "Traceback" not in result.stderr and not (path / "r.csv").exists()
