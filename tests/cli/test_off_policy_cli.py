"""``receval off-policy``: its table of estimates and its errors, in the command line's
words (options, file:line)."""

from __future__ import annotations

import json

import pytest

from tests.cli._helpers import invoke, make_runner


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "ope.csv"
    path.write_text("reward,pscore,target\n1,0.5,1.0\n0,0.5,0.0\n1,0.25,0.5\n0,0.75,0.5\n")
    return path


@pytest.mark.parametrize("output", ["csv", "tsv", "json", "table"])
def test_a_repeated_metric_is_computed_once(log, output):
    # ips twice: an IndexError (table), a ValueError (json), or a header of three
    # columns over a row of two (csv, tsv), as ctr -m auc -m auc is one column
    runner = make_runner()
    repeated = invoke(runner, "off-policy", log, "-m", "ips", "-m", "snips", "-m", "IPS",
                      "-f", output)  # fmt: skip
    once = invoke(runner, "off-policy", log, "-m", "ips", "-m", "snips", "-f", output)
    assert repeated.stdout == once.stdout
    if output == "csv":
        assert repeated.stdout.splitlines() == ["rounds,ips,snips", "4,1.0,0.8571428571428571"]
    if output == "json":
        assert json.loads(repeated.stdout) == [{"rounds": 4, "ips": 1.0,
                                                "snips": 0.8571428571428571}]  # fmt: skip


@pytest.mark.parametrize(
    ("rows", "options", "message"),
    [
        ("1,0.5,1.0\n,0.5,0.0\n", [],
         "ope.csv:3: receval off-policy: --reward reward contains 1 missing value (empty or "
         "null), the first on this line; drop those rows or fill them first."),
        ("1,0.5,1.0\ninf,0.5,0.0\n", [],
         "ope.csv:3: receval off-policy: --reward reward contains NaN or infinity, the first "
         "on this line (inf); drop those rows or replace the values with finite numbers "
         "first."),
        ("1,0.5,1.0\n0,0.5,1.5\n", ["-m", "snips"],
         "ope.csv:3: receval off-policy: --target target must contain probabilities in [0, "
         "1]. Got values [1.5]; fix the value, or name the column of the target policy's "
         "probability of each logged action with --target."),
        ("1,0.5,1.0\n1,0,1.0\n0,0.5,0.0\n", [],
         "ope.csv:3: receval off-policy: --pscore pscore must hold the logging policy's "
         "probabilities, in (0, 1]. Got values [0.0]; fix the value, or name the column of "
         "the logging policy's probability of each logged action with --pscore."),
        ("1,0.5,1.0\n", ["--target", "tgt"],
         "ope.csv: no column 'tgt' (--target tgt). Got columns ['reward', 'pscore', "
         "'target']; name one of ['target'] with --target."),
        ("1,0.5,1.0\n", ["-m", "dr", "--estimated-reward", "target"],
         "receval off-policy -m 'dr': dr needs --estimated-value COL; pass it (see receval "
         "off-policy --help)."),
        # it read "not a off_policy metric"
        ("1,0.5,1.0\n", ["-m", "ndcg@10"],
         "receval off-policy -m: 'ndcg@10' is ndcg, a ranking metric (DCG / IDCG (0 when IDCG "
         "is 0)), not an off-policy metric; compute it with receval rank -m ndcg@10."),
    ],
)  # fmt: skip
def test_errors_name_the_option_and_line(tmp_path, rows, options, message):
    # they named the parameters of the library (action_dist), no line, and fixes the
    # command line cannot apply (apply a sigmoid; pass action_dist of shape (n_rounds, ...))
    path = tmp_path / "ope.csv"
    path.write_text("reward,pscore,target\n" + rows)
    result = invoke(make_runner(), "off-policy", path, *options, code=2)
    assert result.stderr == f"error: {message.replace('ope.csv', str(path))}\n"


def test_clipping_is_counted_on_stderr(log):
    # weights 2, 0, 2 and 2/3: two are above 1.5, and clipped to it (ips 0.75 = (1.5 +
    # 1.5) / 4); the estimate alone did not say how many rounds the clip changed. The
    # count is the estimator's own (policy_value_report), in the note and in the
    # rows' counts (csv, json), where it was in the note alone, recomputed by the CLI.
    # A clip that lowers no weight says so ("none of the 4 rounds"), not "0 of 4 rounds"
    runner = make_runner()
    result = invoke(runner, "off-policy", log, "-m", "ips(clip=1.5)", "-m", "ips(clip=4)",
                    "-m", "snips", "-f", "csv")  # fmt: skip
    header, row = result.stdout.splitlines()
    assert header.split(",")[4:] == [
        f"ips(clip={c}):{n}" for c in ("1.5", "4") for n in ("clip", "n_rounds", "n_rounds_clipped")
    ]
    assert row == "4,0.75,1.0,0.8571428571428571,1.5,4,2,4.0,4,0"
    assert result.stderr == (
        "note: ips(clip=1.5): 2 of the 4 rounds have an importance weight above 1.5, clipped "
        "to it.\n"
        "note: ips(clip=4): none of the 4 rounds has an importance weight above 4, so nothing "
        "is clipped.\n"
    )
    (counted,) = json.loads(invoke(runner, "off-policy", log, "-m", "ips(clip=1.5)",
                                   "-f", "json").stdout)  # fmt: skip
    assert counted["counts"] == {
        "ips(clip=1.5)": {"clip": 1.5, "n_rounds": 4, "n_rounds_clipped": 2}
    }
    quiet = invoke(runner, "off-policy", log, "-m", "ips(clip=1.5)", "-q")
    assert quiet.stderr == ""


@pytest.mark.parametrize(
    ("options", "given"),
    [
        (["--estimated-reward", "target"], "--estimated-reward"),
        (["-m", "ips", "--estimated-value", "target"], "--estimated-value"),
    ],
)
def test_a_reward_model_without_dr_is_refused(log, options, given):
    # it was read and left unused: ips and snips printed as if the model counted
    # (policy_value_report refuses estimated_rewards without estimator='dr')
    result = invoke(make_runner(), "off-policy", log, *options, code=2)
    metrics = "-m ips" if "-m" in options else "-m ips, -m snips"
    assert result.stderr == (
        f"error: receval off-policy: {given} is given, but no estimate is dr ({metrics}), "
        f"the one that reads the reward model; add -m dr, or drop {given}.\n"
    )
    assert result.stdout == ""
