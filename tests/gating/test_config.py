"""The gate's configuration: receval.toml and pyproject.toml, every mistake named."""

from __future__ import annotations

from pathlib import Path

import pytest

from receval.exceptions import InputValidationError, InvalidParameterError
from receval.gating.config import GateConfig, find_config, load_config, parse_config
from receval.gating.rules import GateRule

RULE = '[[gate.rules]]\nmetric = "ndcg@10"\nrule = "non_inferiority"\nmargin = 0.01\n'


def _write(tmp_path: Path, text: str, name: str = "receval.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_receval_toml_is_read():
    path = Path(__file__).resolve().parents[2] / "docs" / "examples" / "receval.toml"
    config = load_config(path)
    assert config.alpha == 0.05 and config.correction == "holm" and config.inconclusive == "fail"
    assert config.rules == (
        GateRule("ndcg@10", "non_inferiority", 0.01),
        GateRule("recall@20", "non_inferiority", 0.02, relative=True),
        GateRule("ndcg@10", "floor", threshold=0.1),
    )
    assert config.source == str(path)


def test_pyproject_table_is_read_and_found(tmp_path):
    text = (
        '[project]\nname = "x"\n\n[tool.receval.gate]\nalpha = 0.01\ncorrection = "none"\n\n'
        '[[tool.receval.gate.rules]]\nmetric = "gauc"\nrule = "floor"\nthreshold = 0.7\n'
    )
    path = _write(tmp_path, text, "pyproject.toml")
    assert find_config(tmp_path) == path
    config = load_config(path)
    assert config.alpha == 0.01 and config.correction is None
    assert config.rules == (GateRule("gauc", "floor", threshold=0.7),)
    _write(tmp_path, RULE)  # receval.toml first
    assert find_config(tmp_path) == tmp_path / "receval.toml"


def test_the_settings_alone_are_read_for_rules_given_elsewhere(tmp_path):
    # receval gate --rule: a file's settings, its rules neither read nor checked
    path = _write(tmp_path, '[gate]\nalpha = 0.01\n[[gate.rules]]\nmetric = "mrr"\nrule = "best"\n')
    config = load_config(path, rules=False)
    assert config.alpha == 0.01 and config.rules == () and config.source == str(path)
    with pytest.raises(InvalidParameterError, match=r"gate.rules\[0\].rule must be one of"):
        load_config(path)
    assert parse_config({"correction": "bh"}, rules=False).correction == "bh"
    with pytest.raises(InvalidParameterError, match=r"Unknown key 'gate\.alpah'"):
        parse_config({"alpah": 0.1}, rules=False)


def test_no_config_is_found(tmp_path):
    assert find_config(tmp_path) is None
    _write(tmp_path, '[project]\nname = "x"\n', "pyproject.toml")
    assert find_config(tmp_path) is None


def test_command_line_overrides_are_checked():
    config = parse_config({"rules": [{"metric": "mrr", "rule": "superiority"}]})
    changed = config.replace(alpha=0.1, correction="none", test="student", seed=None)
    assert (changed.alpha, changed.correction, changed.test) == (0.1, None, "student")
    assert changed.seed == 0 and changed.rules == config.rules
    with pytest.raises(
        InvalidParameterError,
        match=r"^The 'power' parameter of gate must be a real number in \(0.0, 1.0\)",
    ):
        config.replace(power=1.5)
    assert GateConfig().rules == ()


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("[gate]\nalpha = \n", 2),
        ("[gate]\nalpha = 0.05\n[[gate.rules]\nmetric = 'x'\n", 3),
        ('[gate]\ncorrection = "holm\n', 2),
        ("[gate]\nalpha = 0.05\nalpha = 0.1\n", 3),
    ],
)
def test_toml_syntax_errors_give_file_and_line(tmp_path, text, line):
    path = _write(tmp_path, text)
    with pytest.raises(InputValidationError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(f"{path}:{line}: not valid TOML: ")
    assert "(at line" not in message and message.endswith("(https://toml.io).")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            RULE + "[gate]\nalpha = 2\n",
            "gate.alpha must be a real number in (0.0, 0.5). Got 2 instead.",
        ),
        (
            '[gate]\ncorrection = "sidak"\n' + RULE,
            "gate.correction must be one of ['bh', 'bonferroni', 'holm', 'none']. Got 'sidak' "
            "instead.",
        ),
        ('[gate]\ntest = "ttest"\n' + RULE, "gate.test must be one of ['randomization'"),
        (
            "[gate]\npower = 0\n" + RULE,
            "gate.power must be a real number in (0.0, 1.0). Got 0 instead.",
        ),
        ('[gate]\ninconclusive = "warn"\n' + RULE, "gate.inconclusive must be one of"),
        ("[gate]\nn_permutations = 0\n" + RULE, "gate.n_permutations must be an integer"),
        ("[gate]\nseed = -1\n" + RULE, "gate.seed must be an integer in [0, 2**63 - 1]"),
        (
            "[gate]\nalpah = 0.05\n" + RULE,
            "Unknown key 'gate.alpah' in the gate's configuration; did you mean 'alpha'?",
        ),
        (
            "[gate]\nalpha = 0.05\n",
            "[gate] holds no rules; add a [[gate.rules]] table per rule, with its metric and "
            'rule (e.g. metric = "ndcg@10", rule = "non_inferiority", margin = 0.01).',
        ),
        ("[gate]\nrules = []\n", "gate.rules must be a non-empty array of tables"),
        (
            '[[gate.rules]]\nrule = "floor"\nthreshold = 1\n',
            "gate.rules[0].metric must be a metric string, e.g. 'ndcg@10'. Got None instead.",
        ),
        (
            RULE + '[[gate.rules]]\nmetric = "mrr"\nrule = "better"\n',
            "gate.rules[1].rule must be one of ['non_inferiority', 'superiority', 'floor', "
            "'ceiling']. Got 'better' instead.",
        ),
        (
            '[[gate.rules]]\nmetric = "mrr"\nrule = "superiority"\nmargin = -0.1\n',
            "gate.rules[0].margin must be a finite number >= 0. Got -0.1 instead.",
        ),
        (
            '[[gate.rules]]\nmetric = "mrr"\nrule = "superiority"\nmargin = "1%"\n',
            "gate.rules[0].margin must be a finite number >= 0. Got '1%' instead; write margin "
            "= 0.01 with relative = true (a share of the baseline's value).",
        ),
        (
            '[[gate.rules]]\nmetric = "mrr"\nrule = "superiority"\nmargin = "0.05"\n',
            "gate.rules[0].margin must be a finite number >= 0. Got '0.05' instead; write the "
            "number without quotes, margin = 0.05.",
        ),
        (
            '[[gate.rules]]\nmetric = "mrr"\nrule = "superiority"\nmargin = "a lot"\n',
            "gate.rules[0].margin must be a finite number >= 0. Got 'a lot' instead.",
        ),
        (
            RULE + RULE,
            "gate.rules[1] must be another rule than gate.rules[0]. Got 'ndcg@10: "
            "non-inferiority, margin 0.01' instead; remove one",
        ),
        (
            '[[gate.rules]]\nmetric = "mrr"\nrule = "floor"\nthreshold = inf\n',
            "gate.rules[0].threshold must be a finite number (the floor of mrr). Got inf instead.",
        ),
        (
            RULE + '[[gate.rules]]\nmetric = "ndgc@10"\nrule = "floor"\nthreshold = 0.1\n',
            "gate.rules[1].metric: Unknown metric 'ndgc'. Did you mean 'ndcg'? See "
            "receval.list_metrics().",
        ),
        (
            '[[gate.rules]]\nmetric = "ndcg@0"\nrule = "floor"\nthreshold = 0.1\n',
            "gate.rules[0].metric: Metric 'ndcg@0': the cut-off must be a positive integer. "
            "Got '0' instead.",
        ),
        (
            '[[gate.rules]]\nmetric = "mrr"\nrule = "superiority"\nrelative = "yes"\n',
            "gate.rules[0].relative must be true or false. Got 'yes' instead.",
        ),
        (
            '[[gate.rules]]\nmetric = "mrr"\nrule = "floor"\n',
            "gate.rules[0].threshold must be a finite number (the floor of mrr). Got None instead.",
        ),
        (
            '[[gate.rules]]\nmetric = "mrr"\nrule = "floor"\nthreshold = 0.2\nmargin = 0.1\n',
            "gate.rules[0].margin must be absent from a floor rule. Got 0.1 instead",
        ),
        (
            '[[gate.rules]]\nmetric = "mrr"\nrule = "superiority"\nthreshold = 0.2\n',
            "gate.rules[0].threshold must be absent from a superiority rule",
        ),
        (
            '[[gate.rules]]\nmetric = "mrr"\nrule = "superiority"\nmargn = 0.2\n',
            "gate.rules[0].margn must be one of the keys ['metric', 'rule', 'margin'",
        ),
        ("[gate]\nrules = 3\n", "gate.rules must be a non-empty array of tables"),
        ("gate = 3\n", "gate must be a table. Got 3 instead."),
    ],
)
def test_every_bad_value_names_its_key_path(tmp_path, text, message):
    path = _write(tmp_path, text)
    with pytest.raises(InvalidParameterError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: ")
    assert message in str(info.value)


def test_a_file_without_the_gate_table(tmp_path):
    path = _write(tmp_path, "[tool.other]\nx = 1\n", "pyproject.toml")
    with pytest.raises(InputValidationError, match=r"no \[tool.receval.gate\] table"):
        load_config(path)
    with pytest.raises(InputValidationError, match="cannot read the gate's configuration"):
        load_config(tmp_path / "missing.toml")
