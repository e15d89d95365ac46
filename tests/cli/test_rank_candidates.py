"""``receval rank --candidates FILE`` / ``--correction``: sampled evaluation's counts."""

from __future__ import annotations

import json

import pytest

import receval as rv
from tests.cli._helpers import invoke, make_runner

# v has no candidate set: its 10 rows are dropped, and so are u's 4 outside its set
QRELS = {"u": {0: 1}, "v": {1: 1}}
RUN = {"u": {i: float(10 - i) for i in range(10)}, "v": {i: float(i) for i in range(10)}}
CANDIDATES = {"u": [0, 5, 6, 7, 8, 9]}


@pytest.fixture
def files(tmp_path):
    qrels, run, cands = tmp_path / "q.csv", tmp_path / "r.csv", tmp_path / "c.csv"
    qrels.write_text("user,item,grade\n" + "".join(
        f"{u},{i},{g}\n" for u, d in QRELS.items() for i, g in d.items()))  # fmt: skip
    run.write_text("user,item,score\n" + "".join(
        f"{u},{i},{s}\n" for u, d in RUN.items() for i, s in d.items()))  # fmt: skip
    cands.write_text("user,item\n" + "".join(
        f"{u},{i}\n" for u, items in CANDIDATES.items() for i in items))  # fmt: skip
    return ["rank", "--qrels", qrels, "--run", run, "-m", "recall@1", "--candidates", cands]


@pytest.mark.parametrize("correction", [None, "rank"])
def test_rank_reports_what_the_candidates_left_out(files, correction):
    more = [] if correction is None else ["--correction", correction, "--catalog", "100"]
    result = invoke(make_runner(), *files, *more, "--format", "json")
    out = json.loads(result.stdout)[0]
    c = rv.Candidates.from_dict(CANDIDATES, catalog_size=100)
    want = rv.evaluate(QRELS, RUN, ["recall@1"], candidates=c, correction=correction)
    assert out["recall@1"] == want.mean["recall@1"] == 0.5
    assert out["counts"]["sampling"] == {
        "n_rows_dropped": 14,
        "n_candidates_absent": 0,
        "n_users_without_candidates": 1,
        "n_rows_kept": 6,
        "correction": correction,
        "catalog_size": None if correction is None else 100,
        "gamma": None,
    }
    tail = "" if correction is None else "; correction rank, catalog size 100"
    assert (
        "r.csv: candidates: 6 run rows kept, 14 outside them dropped, 1 run user without a "
        f"candidate set, 0 candidates the run does not score (ranked last){tail}."
    ) in " ".join(result.stderr.split())
    plain = json.loads(invoke(make_runner(), *files[:-2], "--format", "json").stdout)[0]
    assert "sampling" not in plain["counts"]


def test_rank_names_the_user_with_more_negatives_than_the_catalog(files):
    result = invoke(make_runner(), *files, "--correction", "rank", "--catalog", "4", code=2)
    assert " ".join(result.stderr.split()) == (
        "error: receval rank: the catalogue must hold more items than each user's sampled "
        "negatives (its candidates that are not relevant). Got --catalog 4, and user 'u' "
        "has 5 (users with 4 or more: 1); pass the catalogue's size as --catalog N."
    )


def test_candidates_of_other_users_exit_2_naming_the_options(tmp_path) -> None:
    # the table of 0.0 came with a note on stderr only
    (tmp_path / "q.txt").write_text("u1 0 a 1\nu2 0 c 1\n")
    (tmp_path / "r.txt").write_text("u1 Q0 a 1 0.9 r\nu2 Q0 c 1 0.3 r\n")
    (tmp_path / "c.csv").write_text("user,item\nU1,a\nU2,c\n")
    args = ["rank", "--qrels", tmp_path / "q.txt", "--run", tmp_path / "r.txt", "--candidates",
            tmp_path / "c.csv", "-m", "recall@1"]  # fmt: skip
    result = invoke(make_runner(), *args, code=2)
    assert result.stdout == ""
    assert result.stderr.startswith(
        "error: receval rank: none of the 2 run users has a candidate set (--candidates FILE), "
        "so every run row would be dropped and every metric would be 0; check the candidates' "
        "user ids for a prefix, a type or a column mix-up, or pass --allow-unmatched to score "
        "the run anyway.\n"
    )
    invoke(make_runner(), *args, "--allow-unmatched")


@pytest.mark.parametrize("candidate_items", [["1", "2"], ["A", "C"]])
def test_candidates_of_other_items_exit_2_naming_the_options(tmp_path, candidate_items):
    # the run's users, none of its items (ints or capitals): a table of 0.0 and a note
    (tmp_path / "q.txt").write_text("u1 0 a 1\nu2 0 c 1\n")
    (tmp_path / "r.txt").write_text("u1 Q0 a 1 0.9 r\nu2 Q0 c 1 0.3 r\n")
    (tmp_path / "c.csv").write_text(
        "user,item\n" + "".join(f"{u},{i}\n" for u in ("u1", "u2") for i in candidate_items)
    )
    args = ["rank", "--qrels", tmp_path / "q.txt", "--run", tmp_path / "r.txt", "--candidates",
            tmp_path / "c.csv", "-m", "recall@1"]  # fmt: skip
    result = invoke(make_runner(), *args, code=2)
    assert result.stdout == ""
    message = " ".join(result.stderr.split())
    assert message.startswith(
        "error: receval rank: none of the 2 run rows is in its user's candidate set "
        "(--candidates FILE), e.g. run items ['a', 'c'], candidate items "
    )
    assert message.endswith(
        "so every metric would be 0; check the candidates' item ids for a prefix, a type or "
        "a column mix-up, or pass --allow-unmatched to score the run anyway."
    )
    invoke(make_runner(), *args, "--allow-unmatched")
