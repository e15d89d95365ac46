"""The warnings and errors of the commands that evaluate and compare CTR models name
the commands' options, columns and metrics, never the library's parameters, and a
warning never stands in for an error."""

from __future__ import annotations

import warnings

import pytest

from receval.cli._impressions import column_warnings
from receval.cli._streams import Messages
from receval.exceptions import TieOrderWarning, UndefinedMetricWarning, warn
from tests.cli._helpers import invoke, make_runner

ZERO_WEIGHTS = "click,a,b,w,user\n1,0.9,0.8,0,u1\n0,0.2,0.3,0,u1\n1,0.7,0.6,0,u2\n0,0.4,0.1,0,u2\n"


def test_a_metric_error_wins_over_its_warnings_turned_errors():
    # the warnings were warned again in a `finally:`: with a filter "error", the warning
    # was raised in place of the metric's error
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="the metric's error"):
            with column_warnings(None, "a", "auc"):
                warnings.simplefilter("always")  # within: caught, to be warned again
                warn("roc_auc_score: y_true has a single class.", UndefinedMetricWarning)
                raise ValueError("the metric's error")


def test_a_warning_made_an_error_by_a_filter_is_an_error_line(capsys):
    # under `python -W error` a receval warning other than UndefinedMetricWarning was raised
    # through the command's guard as a traceback
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(SystemExit) as exit_:
            with Messages(quiet=False).guard():
                warn("map depends on the order of tied scores.", TieOrderWarning)
    assert exit_.value.code == 2
    assert capsys.readouterr().err == "error: map depends on the order of tied scores.\n"


def test_the_warnings_of_a_failing_metric_are_warned_before_its_error():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="the metric's error"):
            with column_warnings(None, "a", "auc"):
                warn("roc_auc_score: y_true has a single class.", UndefinedMetricWarning)
                raise ValueError("the metric's error")
    assert [str(w.message) for w in caught] == ["auc of --score a: --label has a single class."]


@pytest.mark.parametrize(
    ("command", "options", "code"),
    [
        ("compare", ["--score", "a", "--score", "b"], 0),
        ("gate", ["--candidate", "a", "--baseline", "b", "--rule", "log_loss=non_inferiority:0.1"],
         1),  # it fails: no user to test on
    ],
)  # fmt: skip
def test_comparing_ctr_models_warns_of_the_weight_and_score_columns(
    tmp_path, command, options, code
):
    # it read "log_loss: every sample weight is zero ...", the library's words, once for
    # both models
    path = tmp_path / "log.csv"
    path.write_text(ZERO_WEIGHTS)
    stderr = invoke(make_runner(), command, "--impressions", path, *options, "--label", "click",
                    "--weight", "w", "--group", "user", code=code).stderr  # fmt: skip
    columns = (
        ("--score a", "--score b") if command == "compare" else ("--candidate a", "--baseline b")
    )
    for column in columns:
        assert (
            f"warning: log_loss of {column}: every --weight w is zero, so the log loss is "
            "undefined (returned as nan).\n"
        ) in stderr
    assert "sample weight" not in stderr and "of model" not in stderr


def test_ctr_warns_of_the_weight_column(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text(ZERO_WEIGHTS)
    stderr = invoke(make_runner(), "ctr", path, "--label", "click", "--score", "a", "--weight",
                    "w", "-m", "logloss").stderr  # fmt: skip
    assert stderr == (
        "warning: logloss of --score a: every --weight w is zero, so the log loss is undefined "
        "(returned as nan).\n"
    )


@pytest.mark.parametrize(
    ("command", "weights", "code", "expected"),
    [
        (["ctr", "--score", "a", "-m", "logloss"], "0,0,0,0", 0,
         "warning: logloss of --score a: every --weight w\\d is zero"),
        (["compare", "--score", "a", "--score", "b", "--ctr-metric", "logloss"], "0,0,0,0", 0,
         "warning: logloss of --score b: every --weight w\\d is zero"),
        (["ctr", "--score", "a", "-m", "logloss"], "-1,1,1,1", 2,
         "logloss of --score a: --weight w\\d must be non-negative"),
    ],
)  # fmt: skip
def test_a_weight_column_is_named_as_given_backslashes_and_all(tmp_path, command, weights, code,
                                                               expected):  # fmt: skip
    # the name was read as a replacement template: "w\d" raised re.error, a traceback
    rows = zip(
        ["1,0.9,0.8", "0,0.2,0.3", "1,0.7,0.6", "0,0.4,0.1"], weights.split(","), strict=True
    )
    path = tmp_path / "log.csv"
    path.write_text("click,a,b,w\\d,user\n" + "".join(f"{r},{w},u{i % 2}\n" for i, (r, w) in
                                                       enumerate(rows)))  # fmt: skip
    if command[0] == "compare":
        command = [*command, "--impressions"]
    stderr = invoke(make_runner(), *command, path, "--label", "click", "--weight", "w\\d",
                    code=code).stderr  # fmt: skip
    assert expected in stderr


OK = "click,a,b,w,user\n1,0.9,0.8,1,u1\n0,0.2,0.3,1,u1\n1,0.7,0.6,1,u2\n0,0.4,0.1,1,u2\n"


@pytest.mark.parametrize(
    ("command", "options", "expected"),
    [
        ("compare", ["--score", "a", "--score", "b", "--ctr-metric", "auc"],
         "Got --weight; drop --weight or compare 'gauc'."),
        ("gate", ["--candidate", "a", "--baseline", "b", "--rule", "auc=non_inferiority:0.1"],
         "Got --weight with a non_inferiority rule on 'auc'; drop --weight, gate on 'gauc'"),
    ],
)  # fmt: skip
def test_a_weighted_auc_comparison_names_the_weight_option(tmp_path, command, options, expected):
    # it read "Got sample_weight; leave it None ...", the library's parameter
    path = tmp_path / "log.csv"
    path.write_text(OK)
    result = invoke(make_runner(), command, "--impressions", path, *options, "--label", "click",
                    "--weight", "w", code=2)  # fmt: skip
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: receval {command}: 'auc' is compared by DeLong's ")
    assert expected in result.stderr
    assert "sample_weight" not in result.stderr and "None" not in result.stderr


def test_an_auc_comparison_of_one_class_names_the_metric_given(tmp_path):
    # it read "'roc_auc' needs both classes in --label. Got only [1].", the registry's name
    path = tmp_path / "log.csv"
    path.write_text("click,a,b\n1,0.9,0.8\n1,0.2,0.3\n1,0.7,0.6\n")
    stderr = invoke(make_runner(), "compare", "--impressions", path, "--score", "a", "--score",
                    "b", "--label", "click", "--ctr-metric", "auc", code=2).stderr  # fmt: skip
    assert stderr == (
        f"error: {path}: receval compare: 'auc' is compared by DeLong's test, which needs both "
        "classes in --label. Got only [1]; compare on rows with both clicks and non-clicks.\n"
    )
