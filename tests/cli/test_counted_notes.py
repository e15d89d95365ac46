"""The notes and errors of the commands count in words that agree with the count: a
count of 1 reads "1 run user is", never "1 run users are"."""

from __future__ import annotations

import pytest

from tests.cli._helpers import invoke, make_runner

QRELS = "u1 0 a 1\nu1 0 b 1\nu2 0 c 1\n"
# u1's a is in its training history; u2 is absent from the run; u9 is not in the qrels
RUN = "u1 Q0 a 1 0.9 s\nu1 Q0 b 2 0.5 s\nu9 Q0 a 1 0.9 s\n"


@pytest.fixture
def files(tmp_path):
    paths = {"qrels": tmp_path / "qrels", "run": tmp_path / "r.run", "train": tmp_path / "train"}
    paths["qrels"].write_text(QRELS)
    paths["run"].write_text(RUN)
    paths["train"].write_text("u1 0 a 1\n")
    return {k: str(v) for k, v in paths.items()}


def test_rank_notes_count_one_user(files):
    args = ["rank", "--qrels", files["qrels"], "--run", files["run"], "-m", "p@1"]
    stderr = invoke(make_runner(), *args).stderr
    assert "note: r.run: 1 of 2 qrels users is absent from the run." in stderr
    assert "note: r.run: 1 run user is not in the qrels (ignored)." in stderr
    stderr = invoke(make_runner(), *args, "--exclude", files["train"]).stderr
    assert (
        "note: r.run: 1 seen item removed from 1 user's list, 1 judged item seen in training "
        "(kept in the qrels); 1 run user has no history.\n"
    ) in stderr


def test_rank_missing_users_error_counts_one(files):
    args = ["rank", "--qrels", files["qrels"], "--run", files["run"], "-m", "p@1"]
    stderr = invoke(make_runner(), *args, "--missing-users", "error", code=2).stderr
    assert stderr.startswith("error: receval rank: 1 qrels user is absent from the run, e.g.")


def test_trec_eval_note_counts_one_run_query(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 0.9 s\nq2 Q0 d1 1 0.9 s\n")
    args = ["trec-eval", "-m", "map", tmp_path / "qrels", tmp_path / "run"]
    stderr = invoke(make_runner(), *args).stderr
    assert stderr == (
        f"note: {tmp_path / 'run'}: 1 run query is not in the qrels (ignored, as trec_eval "
        f"ignores them).\n"
    )


def test_retention_notes_count_one_event_of_one_user(tmp_path):
    events = tmp_path / "events.csv"
    events.write_text(
        "user,time,signup\na,2024-01-01,2024-01-02\na,2024-01-03,2024-01-02\n"
        "b,2024-01-02,2024-01-02\nc,2024-01-02,\n"
    )
    args = ["retention", events, "--signup", "signup", "--days", "1"]
    stderr = invoke(make_runner(), *args).stderr
    assert "1 event of 1 user is earlier than their user's signup" in stderr
    assert "1 user has events but no signup time" in stderr


RULES_QRELS = "u1 0 a 1\nu2 0 c 1\nu3 0 d 0\nu4 0 e 1\n"
# u2 is absent from the run, u3 has no relevant item, u4 scores 0
RULES_RUN = "u1 Q0 a 1 0.9 s\nu3 Q0 d 1 0.9 s\nu4 Q0 x 1 0.9 s\n"


@pytest.mark.parametrize(
    ("options", "why"),
    [
        ({}, "1 without a relevant item"),
        ({"missing_users": "skip", "empty_users": "zero"}, "1 by --missing-users skip"),
        ({"missing_users": "skip"}, "1 without a relevant item, 1 by --missing-users skip"),
        ({"zero_users": "skip"}, "1 without a relevant item, 2 by --zero-users skip"),
    ],
)
def test_rank_note_says_which_rule_left_each_user_out(tmp_path, options, why):
    """The users a mean leaves out are counted alike by evaluate, the JSON counts and
    the note, which gives each its rule (never a user without a relevant item that
    --empty-users zero kept)."""
    import json

    from receval import Qrels, Run, evaluate

    (tmp_path / "qrels").write_text(RULES_QRELS)
    (tmp_path / "r.run").write_text(RULES_RUN)
    qrels, run = (
        Qrels.from_file(tmp_path / "qrels", file_format="trec"),
        Run.from_file(tmp_path / "r.run", file_format="trec"),
    )
    report = evaluate(qrels, run, ["ndcg@2"], **options)
    flags = [x for k, v in options.items() for x in (f"--{k.replace('_', '-')}", v)]
    args = ["rank", "--qrels", tmp_path / "qrels", "--run", tmp_path / "r.run", "-m", "ndcg@2"]
    result = invoke(make_runner(), *args, *flags, "-f", "json")
    (record,) = json.loads(result.stdout)
    skipped = report.n_users_skipped["ndcg@2"]
    assert record["counts"]["n_users_skipped"] == {"ndcg@2": skipped}
    assert record["counts"]["n_users_skipped_by"] == report.n_users_skipped_by
    assert record["ndcg@2"] == report.mean["ndcg@2"]
    assert (
        f"note: r.run: ndcg@2 leaves {skipped} of 4 users out of its mean ({why}; see "
        f"--missing-users, --empty-users and --zero-users).\n"
    ) in result.stderr


@pytest.mark.parametrize("options", [[], ["--zero-users", "skip"], ["--missing-users", "skip"]])
def test_rank_note_counts_a_list_metric_by_its_own_rule(tmp_path, options):
    """A metric of the lists alone follows none of the rules: the user absent from the
    run has no value, whatever --zero-users and --missing-users say."""
    import json

    (tmp_path / "qrels").write_text(RULES_QRELS)
    (tmp_path / "r.run").write_text(RULES_RUN)
    (tmp_path / "pop.csv").write_text("item,count\na,3\nd,2\nx,1\n")
    args = ["rank", "--qrels", tmp_path / "qrels", "--run", tmp_path / "r.run", "-m", "arp@2",
            "-m", "ndcg@2", "--popularity", tmp_path / "pop.csv", *options]  # fmt: skip
    result = invoke(make_runner(), *args, "-f", "json")
    (record,) = json.loads(result.stdout)
    by = record["counts"]["n_users_skipped_by"]["arp@2"]
    assert by == {"empty_users": 0, "missing_users": 0, "zero_users": 0, "no_value": 1}
    assert (
        "note: r.run: arp@2 leaves 1 of 4 users out of its mean (1 without a value; see "
        "--missing-users, --empty-users and --zero-users).\n"
    ) in result.stderr


@pytest.mark.parametrize(
    ("options", "why"),
    [
        (["--missing-users", "skip"], "2 without a relevant item, 1 by --missing-users skip"),
        (["--missing-users", "skip", "--empty-users", "zero"], "2 by --missing-users skip"),
    ],
)
def test_rank_counts_a_user_absent_and_without_a_relevant_item_once(tmp_path, options, why):
    """On TREC files (read by the core) as in evaluate: under empty_users first."""
    import json

    from receval import Qrels, Run, evaluate

    (tmp_path / "qrels").write_text(RULES_QRELS + "u5 0 f 0\n")  # u5: absent, none relevant
    (tmp_path / "r.run").write_text(RULES_RUN)
    args = ["rank", "--qrels", tmp_path / "qrels", "--run", tmp_path / "r.run", "-m", "ndcg@2"]
    result = invoke(make_runner(), *args, *options, "-f", "json")
    (record,) = json.loads(result.stdout)
    conventions = dict(zip(options[::2], options[1::2], strict=True))
    report = evaluate(
        Qrels.from_file(tmp_path / "qrels", file_format="trec"),
        Run.from_file(tmp_path / "r.run", file_format="trec"), ["ndcg@2"],
        **{k.strip("-").replace("-", "_"): v for k, v in conventions.items()},
    )  # fmt: skip
    assert record["counts"]["n_users_skipped_by"] == report.n_users_skipped_by
    assert f"out of its mean ({why}; see" in result.stderr
