"""compare_predictions and gate take 0/1 labels and no pos_label: labels of two other
values (0 and 2) are refused in their words, with a fix they take."""

from __future__ import annotations

import numpy as np
import pytest

import receval
from receval.exceptions import InputValidationError

Y = [0, 2, 0, 2, 0, 2]
A = [0.1, 0.9, 0.3, 0.6, 0.2, 0.7]
B = [0.2, 0.8, 0.4, 0.5, 0.3, 0.6]
GROUPS = [1, 1, 2, 2, 3, 3]
FAST = {"n_permutations": 20, "n_resamples": 20}


def _compare(metric, y):
    return receval.compare_predictions(y, {"a": A, "b": B}, groups=GROUPS, metrics=[metric],
                                       **FAST)  # fmt: skip


def _gate(metric, y, rule):
    rules = [{"metric": metric, "rule": rule, "margin": 0.1, "threshold": 0.1}]
    rules = [{k: x for k, x in r.items() if k != ("threshold" if rule != "floor" else "margin")}
             for r in rules]  # fmt: skip
    return receval.gate({"a": A}, {"b": B}, rules, y_true=y, groups=GROUPS, **FAST)


CALLS = {
    "compare_predictions gauc": (lambda y: _compare("gauc", y), "compare_predictions"),
    "compare_predictions roc_auc": (lambda y: _compare("roc_auc", y), "compare_predictions"),
    "compare_predictions pcoc": (lambda y: _compare("pcoc", y), "compare_predictions"),
    "gate gauc": (lambda y: _gate("gauc", y, "non_inferiority"), "gate"),
    "gate roc_auc": (lambda y: _gate("roc_auc", y, "non_inferiority"), "gate"),
    "gate pcoc floor": (lambda y: _gate("pcoc", y, "floor"), "gate"),
}


@pytest.mark.parametrize("case", sorted(CALLS))
def test_labels_of_two_other_values_name_a_fix_the_function_takes(case):
    call, func = CALLS[case]
    with pytest.raises(InputValidationError) as info:
        call(Y)
    said = str(info.value)
    assert said.startswith(f"{func}: y_true must hold 0/1 labels (1 = click). Got values [0")
    assert "pos_label" not in said
    assert said.endswith("binarise it first, e.g. y_true = (np.asarray(y_true) == 2).")
    assert info.value.classes is not None  # the command line words it for --label
    call((np.asarray(Y) == 2).astype(int))  # the fix named: it runs


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["compare", "--score", "a", "--score", "b", "--ctr-metric", "gauc"], "--score"),
        (["gate", "--candidate", "a", "--baseline", "b", "--rule", "gauc=non_inferiority:0.1"],
         "--candidate"),
    ],
)  # fmt: skip
def test_the_command_line_still_words_the_label_column(tmp_path, args, option):
    from typer.testing import CliRunner

    from receval.cli import app

    path = tmp_path / "imp.csv"
    path.write_text("click,a,b,user\n0,0.1,0.2,1\n2,0.9,0.8,1\n0,0.3,0.4,2\n2,0.6,0.5,2\n")
    given = ["--impressions", str(path), "--label", "click", "--group", "user"]
    result = CliRunner().invoke(app, [*args[:1], *given, *args[1:]])
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {path}:3: gauc of {option} a: --label must hold binary labels (0/1, -1/1 or "
        f"true/false). Got values [0, 2]; make the column 0/1 first (e.g. clicks > 0).\n"
    )
