"""The gate's configuration: ``receval.toml`` or ``[tool.receval.gate]`` in ``pyproject.toml``.

The file lives in the repository beside the code it gates::

    # receval.toml (in pyproject.toml: [tool.receval.gate] and [[tool.receval.gate.rules]])
    [gate]
    alpha = 0.05
    correction = "holm"

    [[gate.rules]]
    metric = "ndcg@10"
    rule = "non_inferiority"
    margin = 0.01

A TOML mistake is reported with its file and line; a bad value with its key
path (``gate.rules[1].margin``). Every setting can be overridden on the
command line (:func:`GateConfig.replace`).
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._parameters import check_number, check_option, check_seed
from ..comparison.choices import CORRECTIONS, INTERVALS, TESTS, check_count
from ..exceptions import InputValidationError, InvalidParameterError
from .rules import INCONCLUSIVE, GateRule, as_rules

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = [
    "CONFIG_FILES",
    "SETTINGS_ONLY",
    "GateConfig",
    "find_config",
    "load_config",
    "parse_config",
]

#: The files searched, in this order, and the table each holds the gate in.
CONFIG_FILES = {"receval.toml": ("gate",), "pyproject.toml": ("tool", "receval", "gate")}


@dataclass(frozen=True)
class GateConfig:
    """The gate's rules and statistical settings (the keyword arguments of :func:`receval.gate`).

    Attributes
    ----------
    rules : tuple of GateRule
        One rule per metric (a metric may have several).
    alpha : float, default=0.05
        Level of the one-sided tests, after correction.
    correction : {"holm", "bonferroni", "bh"} or None, default="holm"
        Correction across every comparison of the gate (metrics x baselines x
        candidates).
    test : {"randomization", "student", "wilcoxon"}, default="randomization"
        The paired test (DeLong's for ``roc_auc``).
    power : float, default=0.8
        Power of the minimum detectable effect.
    inconclusive : {"fail", "pass"}, default="fail"
        What an inconclusive comparison (sample too small to detect the margin)
        counts as.
    interval : {"bca", "percentile"}, default="bca"
        Bootstrap interval of each difference.
    n_permutations, n_resamples : int, default=10_000
        Size of the randomization test and of the bootstrap.
    seed : int, default=0
        Seed of both.
    profile : str or None, default=None
        Conventions profile of the ranking metrics (as for :func:`receval.evaluate`).
    weighting : {"impressions", "clicks", "uniform"}, default="impressions"
        Weighting of ``gauc``'s users in the rules whose metric string sets none: a
        rule on ``gauc(weighting=impressions)`` keeps its own (a parameter written in
        the string wins, at its default too).
    source : str or None
        The file (and table) read, for the reports.
    """

    rules: tuple[GateRule, ...] = ()
    alpha: float = 0.05
    correction: str | None = "holm"
    test: str = "randomization"
    power: float = 0.8
    inconclusive: str = "fail"
    interval: str = "bca"
    n_permutations: int = 10_000
    n_resamples: int = 10_000
    seed: int = 0
    profile: str | None = None
    weighting: str = "impressions"
    source: str | None = None

    def settings(self) -> dict[str, Any]:
        """The settings as the keyword arguments of :func:`receval.gate`."""
        return {k: getattr(self, k) for k in _SETTINGS}

    def replace(self, **changes: Any) -> GateConfig:
        """A copy with the settings that are not None in ``changes`` replaced and checked
        (the command line's overrides)."""
        given = {k: val for k, val in changes.items() if val is not None}
        if given.get("correction") == "none":  # the command line's word for None
            given["correction"] = None
        raw = {k: getattr(self, k) for k in _SETTINGS} | given
        settings = check_settings(raw, None)
        return dataclasses.replace(self, **settings)


def _profile(value: Any, subject: str | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    who = subject if subject is not None else "The 'profile' parameter of gate"
    raise InvalidParameterError(
        f"{who} must be a profile name, e.g. 'trec_eval'. Got {value!r} instead."
    )


def _fraction(name: str, high: float) -> Any:
    def check(value: Any, subject: str | None) -> float:
        return float(check_number(value, name, "gate", low=0.0, high=high, low_inclusive=False,
                                  high_inclusive=False, subject=subject))  # fmt: skip

    return check


def _option(name: str, options: Any) -> Any:
    return lambda value, subject: check_option(value, name, "gate", list(options), subject=subject)


#: Each setting's check, ``check(value, subject)``: the checked value, or an error naming
#: ``subject`` (a configuration file's key path), else the parameter of :func:`receval.gate`.
_SETTINGS: dict[str, Any] = {
    "alpha": _fraction("alpha", 0.5),
    "correction": _option("correction", [*CORRECTIONS, None]),
    "test": _option("test", TESTS),
    "power": _fraction("power", 1.0),
    "inconclusive": _option("inconclusive", INCONCLUSIVE),
    "interval": _option("interval", INTERVALS),
    "n_permutations": lambda x, s: check_count(x, "n_permutations", "gate", subject=s),
    "n_resamples": lambda x, s: check_count(x, "n_resamples", "gate", subject=s),
    "seed": lambda x, s: check_seed(x, "gate", subject=s),
    "profile": _profile,
    "weighting": _option("weighting", ("impressions", "clicks", "uniform")),
}
_KEYS = ("rules", *_SETTINGS)


def check_settings(raw: Mapping[str, Any], prefix: str | None) -> dict[str, Any]:
    """The settings of ``raw`` checked, NumPy scalars as Python numbers.

    ``prefix``: their table's key path, for the messages of a configuration file,
    where ``correction = "none"`` is None (TOML has no null); None: the keyword
    arguments of :func:`receval.gate`, named as its parameters (None is a
    correction, "none" is not, as for :func:`receval.compare`).
    """
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "rules":
            continue
        if key not in _SETTINGS:
            close = difflib.get_close_matches(key, _KEYS, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else f"; the keys are {list(_KEYS)}"
            raise InvalidParameterError(
                f"Unknown key {(prefix or '') + key!r} in the gate's configuration{hint}"
                + ("" if close else ".")
            )
        if prefix is not None and key == "correction":  # the file's word for None
            words = [*CORRECTIONS, "none"]
            value = check_option(value, key, "gate", words, subject=prefix + key)
            out[key] = None if value == "none" else value
            continue
        out[key] = _SETTINGS[key](value, None if prefix is None else prefix + key)
    return out


def parse_config(
    table: Mapping[str, Any],
    where: str = "gate",
    source: str | None = None,
    *,
    rules: bool = True,
) -> GateConfig:
    """A checked :class:`GateConfig` from the gate's table.

    Parameters
    ----------
    table : mapping
        The gate's table, as TOML reads it: the settings and ``rules``, a list
        of tables (see :func:`receval.gating.rules.as_rule`).
    where : str, default="gate"
        The table's key path, for the messages.
    source : str, default=None
        The file read, for the messages and the report.
    rules : bool, default=True
        Whether to read the rules. False reads the settings alone, for rules
        given elsewhere (``receval gate --rule``): the table's ``rules`` are
        neither read nor checked, and the config has none.

    Returns
    -------
    config : GateConfig

    Raises
    ------
    InvalidParameterError
        An unknown key, a bad value, or no rule (when ``rules``); the message
        names the key path.

    Examples
    --------
    >>> from receval.gating.config import parse_config
    >>> config = parse_config({"alpha": 0.1, "rules": [{"metric": "mrr", "rule": "superiority"}]})
    >>> config.alpha, config.rules[0].kind
    (0.1, 'superiority')
    """
    file = f"{source}: " if source else ""
    try:
        settings = check_settings(table, f"{where}.")
        given: Any = table.get("rules") if rules else []
        if rules and "rules" not in table:
            raise InvalidParameterError(f"[{where}] holds no rules; {_add_rules(where)}.")
        if rules and (not isinstance(given, list) or not given):
            raise InvalidParameterError(
                f"{where}.rules must be a non-empty array of tables ([[{where}.rules]] with "
                f"metric and rule). Got {given!r} instead; {_add_rules(where)}."
            )
        weighting = settings.get("weighting", GateConfig.weighting)
        checked = as_rules(given, f"{where}.rules", weighting)
    except InvalidParameterError as exc:
        raise InvalidParameterError(file + str(exc)) from None
    return GateConfig(rules=checked, source=source, **settings)


#: Why a file read with ``rules=False`` is read for its settings alone.
SETTINGS_ONLY = "the rules are given elsewhere"


def _add_rules(name: str) -> str:
    """What to add to a file without rules, in the table ``name`` (``gate``)."""
    return (
        f"add a [[{name}.rules]] table per rule, with its metric and rule (e.g. metric = "
        f'"ndcg@10", rule = "non_inferiority", margin = 0.01)'
    )


def find_config(directory: str | Path = ".") -> Path | None:
    """The configuration file of ``directory``: ``receval.toml``, else a ``pyproject.toml``
    with a ``[tool.receval.gate]`` table; None when neither is there."""
    base = Path(directory)
    if (base / "receval.toml").is_file():
        return base / "receval.toml"
    pyproject = base / "pyproject.toml"
    if pyproject.is_file() and re.search(
        r"^\s*\[+\s*tool\.receval\.gate\b", pyproject.read_text(encoding="utf-8"), re.M
    ):
        return pyproject
    return None


def load_config(path: str | Path, *, rules: bool = True) -> GateConfig:
    """Read the gate's configuration from a TOML file.

    ``pyproject.toml`` holds it in ``[tool.receval.gate]``, any other file
    (``receval.toml``) in ``[gate]``.

    Parameters
    ----------
    path : str or path
        The file.
    rules : bool, default=True
        Whether to read the rules; False reads the settings alone (see
        :func:`parse_config`).

    Returns
    -------
    config : GateConfig

    Raises
    ------
    InputValidationError
        The file cannot be read, is not valid TOML (the message gives
        ``file:line``), or has no gate table.
    InvalidParameterError
        A bad value: the message gives the file and the key path.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from receval.gating.config import load_config
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "receval.toml"
    >>> _ = path.write_text('[[gate.rules]]\\nmetric = "ndcg@10"\\nrule = "non_inferiority"\\n'
    ...                     'margin = 0.01\\n')
    >>> load_config(path).rules[0].describe()
    'non-inferiority, margin 0.01'
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputValidationError(
            f"{p}: cannot read the gate's configuration: {exc.strerror or exc}."
        ) from None
    except UnicodeDecodeError as exc:
        raise InputValidationError(
            f"{p}: cannot read the gate's configuration: byte {exc.object[exc.start]:#04x} at "
            f"byte {exc.start} is not UTF-8; save the file as UTF-8."
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = re.search(r"\(at line (\d+), column (\d+)\)", message)
        line = f":{found.group(1)}" if found else ""
        reason = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", message)
        raise InputValidationError(
            f"{p}{line}: not valid TOML: {reason}; fix the file's syntax (https://toml.io)."
        ) from None
    keys = CONFIG_FILES.get(p.name, CONFIG_FILES["receval.toml"])
    table: Any = data
    name = ".".join(keys)
    for depth, key in enumerate(keys):
        if not isinstance(table, dict) or key not in table:
            missing = f"{p}: no [{name}] table (no {'.'.join(keys[: depth + 1])!r})"
            if rules:
                raise InputValidationError(f"{missing}; {_add_rules(name)}.")
            raise InputValidationError(  # the rules are given elsewhere: settings only
                f"{missing}, so no settings to read ({SETTINGS_ONLY}); add [{name}] with the "
                f"settings (e.g. alpha = 0.05), or read no file."
            )
        table = table[key]
    if not isinstance(table, dict):
        raise InvalidParameterError(
            f"{p}: {'.'.join(keys)} must be a table. Got {table!r} instead."
        )
    return parse_config(table, ".".join(keys), str(p), rules=rules)
