"""The library's error messages in the words of the command line.

The library names its own parameters and functions (``pass popularity= ... to
evaluate``, ``See receval.list_metrics()``); a command's error names its options and
the commands instead (``pass --popularity FILE``, ``See receval metrics``).
:func:`cli_text` rewrites a message with one mapping, :data:`OPTIONS`, applied where
the commands print errors (``Messages.guard``); the library's messages stay as they are.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from ..conventions import CHOICES
from ..data._open import EVERY_PAIR_GRADE_1

__all__ = ["OPTIONS", "audit_in_cli_words", "by_suffix", "cli_text"]

_FILE_OPTIONS = (
    "train", "popularity", "features", "item_categories", "reference", "candidates",
    "propensities", "exclude",
)  # fmt: skip

#: The option of each parameter of the library a command sets: ``--name VALUE`` for a
#: parameter written ``name=value``; ``""`` for one no command has (left out of the
#: message with the ``or`` before it).
OPTIONS: dict[str, str] = {
    **{name: "--" + name.replace("_", "-") for name in CHOICES},
    **{name: "--" + name.replace("_", "-") + " FILE" for name in _FILE_OPTIONS},
    "interactions": "--train FILE",
    "catalog": "--catalog N|FILE",
    "catalog_size": "--catalog N",
    "feature_items": "--features FILE",
    "similarity": "",
    "correction": "--correction",
    "profile": "--profile",
    "rel_threshold": "--rel-threshold",
    "depth": "--depth",
    "judged_only": "--judged-only",
    "propensity_clip": "--propensity-clip",
    "min_match": "--min-match",
    "allow_unmatched": "--allow-unmatched",
    "repeats": "--repeats",
    "time_unit": "--time-unit",
    "period": "--period",
    "days": "--days",
    "tz": "--tz",
    "before_signup": "--before-signup",
    "file_format": "--input-format",
    "labels": "--label",
    "groups": "--group COL",
    "time": "--time COL",
    "n_resamples": "--resamples",
    "n_permutations": "--permutations",
    "sample_weight": "--weight",
    "reward": "--reward COL",
    "pscore": "--pscore COL",
    "action_dist": "--target COL",
    "estimated_rewards": "--estimated-reward COL",
    "estimated_value": "--estimated-value COL",
    "baseline": "--baseline",
    "pairs": "--pairs",
    "alpha": "--alpha",
    "confidence": "--confidence",
    "test_fraction": "--test-fraction",
    "train_fraction": "--train-fraction",
    "min_train": "--min-train",
    "min_interactions": "--min-interactions",
    "seed": "--seed",
    "cutoff": "--cutoff",
    "quantile": "--quantile",
    "family": "--family",
    "user": "--user COL",
    "item": "--item COL",
    "grade": "--grade COL",
}

#: The option of a parameter whose name is another option's in other functions
#: (``function.parameter``), read first.
OWN_OPTIONS: dict[str, str] = {
    "list_differences.p": "--rbo-p",
    "list_differences.k": "--list-depth",
    "leave_last_out.n": "--n",
    "random_holdout.n": "--n",
    **{f"{func}.metric": "--similarity" for func in ("retrieve", "evaluate_embeddings")},
    **{f"{func}.k": "--k" for func in ("retrieve", "evaluate_embeddings", "rank")},
    "user_kfold.k": "--k",
    "audit.test": "--test FILE",
    "rolling.cutoffs": "--cutoffs",
    "rolling.end": "--end",
    "rolling.train_window": "--train-window",
    **{
        f"{func}.{name}": f"--{name}"
        for func in ("compare", "compare_by_segment", "compare_predictions", "gate")
        for name in ("test", "interval", "seed", "power", "inconclusive", "weighting")
    },
}

#: Arguments the library names bare in a message (``item_vectors file '...'``), as
#: each command's option (``None``: every command's).
_WORDS: dict[str | None, dict[str, str]] = {
    "retrieve": {"user_vectors": "--users", "item_vectors": "--items"},
    "split": {"train_path": "--train", "test_path": "--test"},
    None: {"user_vectors": "--user-vectors", "item_vectors": "--item-vectors",
           "user_ids": "--user-ids", "item_ids": "--item-ids", "feature_items": "--features"},
}  # fmt: skip
#: Any of those arguments, a word of its own.
_BARE = re.compile(
    rf"\b(?:{'|'.join(sorted({name for words in _WORDS.values() for name in words}))})\b"
)

#: The commands that read a table file's format from its suffix alone (no
#: ``--input-format``): a fix passing ``file_format=`` is the file's name there.
_SUFFIX_ONLY = frozenset({"audit", "split"})

#: The fix of a qrels file read without its grade column, every pair of grade 1.
_EVERY_PAIR_GRADE_1 = (
    "keep only the user, item and time columns in the file to give every pair grade 1"
)

#: The fix of recommended items absent from the --train log of novelty: no option leaves
#: them out, the library's function does.
_SKIP_UNSEEN = (
    "pass a --train log in which every recommended item occurs, or leave them out of each "
    "user's mean in Python with receval.novelty(run, interactions, unseen='skip')"
)

#: The command of a library function a fix names (the audit's findings).
_FUNCTIONS = {
    "receval.split.leave_last_out or temporal": "receval split --method leave-last-out or temporal",
    "receval.split.temporal": "receval split --method temporal",
    "receval.by_segment": "receval rank --by FILE",
    "evaluate(..., exclude=train)": "receval rank --exclude FILE",
}

#: The command that computes each family of metrics (``compute it with ...``).
COMMANDS = {
    "ranking": "receval rank -m {name}",
    "list": "receval rank -m {name}",
    "pointwise": "receval ctr -m {name}",
    "grouped": "receval ctr --group COL -m {name}",
    "retention": "receval retention",
    "off_policy": "receval off-policy -m {name}",
}

_NAMES = "|".join(
    sorted({*OPTIONS, *(key.split(".")[1] for key in OWN_OPTIONS)}, key=len, reverse=True)
)
# ``name= (what it is)`` or ``name='value'`` / ``name=value`` after a space, a quote or
# the start (not inside a metric string such as ``ndcg(gain=exponential)``)
_GIVEN = re.compile(
    rf"(?P<or> or )?(?<!\w)(?P<name>{_NAMES})="
    r"(?:(?P<what> \((?:[^()]|\([^()]*\))*\))|'(?P<quoted>[^']*)'|(?P<bare>\w[\w.]*))?"
)
# an argument refused where it was given (``Got sample_weight; leave it None``): the
# option given, to drop
_LEFT_OUT = re.compile(rf"\bGot (?P<name>{_NAMES})(?P<rest>[^=;][^;]*|); leave it None\b")
_PARAMETER = re.compile(r"[Tt]he '(?P<name>\w+)' parameter of (?:receval\.)?(?P<func>\w+)")
# the data of a FILE option, which a message names bare as its subject, after the function
# (and the place) it begins with: ``evaluate: propensities must ...`` (never ``name=``)
_DATA = "|".join(sorted((n for n, o in OPTIONS.items() if "FILE" in o), key=len, reverse=True))
_SUBJECT = re.compile(
    rf"^(?P<lead>(?:\S+(?:: row \d+)?: )?(?:receval\.)?(?P<func>\w+): )(?P<name>{_DATA})\b(?![\[=])"
)
_REFUSED = re.compile(
    r"'(?P<text>[^']+)' is (?P<name>\w+), (?P<family>an? [\w-]+) metric (?P<rest>.*?)"
    r"compute it with receval\.[\w]+(?:\([^)]*\))?"
)


def _in_call(text: str, at: int) -> bool:
    """Whether ``text[at]`` is inside the parentheses of a call or a metric string
    (``f(x=1)``, ``ndcg(gain=exponential)``): an open ``(`` after a word before it."""
    depth = 0
    for i in range(at - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(text[i], 0)
        if depth < 0:
            return i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")
    return False


def _option(func: str | None, name: str) -> str | None:
    """The option of the parameter ``name`` of ``func`` (None: no function named)."""
    return OWN_OPTIONS.get(f"{func}.{name}") or OPTIONS.get(name)


def _given(match: re.Match[str]) -> str:
    func = re.match(r"(\w+): ", match.string)  # the function a message starts with
    option = _option(func[1] if func else None, match["name"])
    if option is None or _in_call(match.string, match.start("name")):
        return match[0]
    if not option:
        return ""
    value = match["quoted"] if match["quoted"] is not None else match["bare"]
    if value is not None and value != "True":  # True: a flag, the option alone
        return f"{match['or'] or ''}{option.split()[0]} {value}"
    return (match["or"] or "") + option


def _left_out(match: re.Match[str]) -> str:
    func = re.match(r"(\w+): ", match.string)
    option = _option(func[1] if func else None, match["name"])
    if not option:
        return match[0]
    option = option.split()[0]
    return f"Got {option}{match['rest']}; drop {option}"


def _parameter(match: re.Match[str]) -> str:
    option = _option(match["func"], match["name"])
    return option.split()[0] if option else match[0]


def _subject(match: re.Match[str]) -> str:
    option = _option(match["func"], match["name"])
    return match["lead"] + option.split()[0] if option else match[0]


#: The fix where a command compares models of the other kind on a metric it refuses
#: (``receval gate --impressions`` on a ranking rule: gate runs on it).
_ELSEWHERE = {
    ("gate", "ranking"): "gate runs on it: pass --qrels with --candidate and --baseline run files",
    ("compare", "ranking"): "compare runs on it: pass --qrels with --run files and -m {name}",
}


def _refused(match: re.Match[str], command: str | None) -> str:
    family = match["family"].split()[1].replace("-", "_")  # "an off-policy": off_policy
    fix = _ELSEWHERE.get((command or "", family), f"compute it with {COMMANDS[family]}")
    return (
        f"{match['text']!r} is {match['name']}, {match['family']} metric {match['rest']}"
        f"{fix.format(name=match['text'])}"
    )


def cli_text(text: str, command: str | None = None) -> str:
    """``text``, a library message, with the options and commands of the command line in
    place of the library's parameters and functions (``command``: the command's name,
    e.g. ``"rank"``, in place of the function it calls).

    Examples
    --------
    >>> cli_text("pass popularity= (a mapping item -> count) to evaluate.", "rank")
    'pass --popularity FILE.'
    >>> cli_text("unit unknown; pass time_unit='s'.")
    'unit unknown; pass --time-unit s.'
    >>> cli_text("Unknown metric 'ndgc'. See receval.list_metrics().")
    "Unknown metric 'ndgc'. See receval metrics."
    >>> cli_text("use catalog_coverage(run, catalog=..., k=...)")  # a call stays one
    'use catalog_coverage(run, catalog=..., k=...)'

    """
    if command in _SUFFIX_ONLY:
        text = by_suffix(text)
    text = re.sub(r"file_format='(\w+)', '(\w+)' or '(\w+)'", r"file_format=\1, \2 or \3", text)
    if command == "gate":  # a --config FILE read for its settings alone, beside --rule
        from ..gating.config import SETTINGS_ONLY

        text = text.replace(SETTINGS_ONLY, "--rule gives the rules")
        text = text.replace("or read no file.", "or leave out --config.")
    if command == "split":  # a span of time as --train-window takes it
        from ..split._folds import WINDOW_EXAMPLE

        text = text.replace(WINDOW_EXAMPLE, "30d")
    if command is not None:  # the command reads its file with a scan of its own
        text = re.sub(r"^scan: ", "", text)
    text = _REFUSED.sub(lambda match: _refused(match, command), text)
    # qrels read without their grade column: no option says so, the file's columns do
    text = text.replace(EVERY_PAIR_GRADE_1, _EVERY_PAIR_GRADE_1)
    if "unseen=" in text:  # novelty's fix (its module loaded only for it)
        from ..metrics.beyond.diversity import SKIP_UNSEEN

        text = text.replace(SKIP_UNSEEN, _SKIP_UNSEEN)
    for function, command_words in _FUNCTIONS.items():
        text = text.replace(function, command_words)
    text = _LEFT_OUT.sub(_left_out, text)
    text = _PARAMETER.sub(_parameter, text)
    text = _GIVEN.sub(_given, text)
    text = _SUBJECT.sub(_subject, text)
    text = text.replace("receval.list_metrics()", "receval metrics")
    text = text.replace("receval.metric_info(name)", "receval metrics NAME")
    text = re.sub(r" to (?:receval\.)?evaluate\b", "", text)
    text = re.sub(
        r"receval\.parse_metrics\('[^']*'\), evaluate and compare", "rank and compare", text
    )
    words = {**_WORDS[None], **_WORDS.get(command, {})}
    text = _BARE.sub(lambda m: words[m[0]], text)
    text = _CHOICES.sub(_typeable, text)
    text = text.replace(", or a datetime.tzinfo.", ".")  # an object no option can give
    if command is not None:
        text = _in_command(text, command)
        text = text.replace(" metric of evaluate;", " metric;")
    return text


def by_suffix(text: str) -> str:
    """``text``, a library message, with a fix that passes ``file_format=`` as the name
    to give the file, for a file whose format its suffix alone gives.

    Examples
    --------
    >>> by_suffix("pass file_format='parquet' (or name the file .parquet).")
    'name the file .parquet.'
    >>> by_suffix("so pass file_format='csv'.")
    'so name the file .csv.'
    """
    text = re.sub(r"pass file_format='\w+' \(or (name the file \.\w+)\)", r"\1", text)
    text = re.sub(r"pass file_format='(\w+)', '(\w+)' or '(\w+)'",
                  r"name the file .\1, .\2 or .\3", text)  # fmt: skip
    return re.sub(r"pass file_format='(\w+)'", r"name the file .\1", text)


#: ``must be one of ['ms', 's', None]``: the choices of a parameter, None among them.
_CHOICES = re.compile(r"(must be one of \[)([^\]]*)(\])")


def _typeable(match: re.Match[str]) -> str:
    """The choices a user can type: None (the parameter left out) is no option's value."""
    kept = [c for c in match[2].split(", ") if c != "None"]
    return f"{match[1]}{', '.join(kept)}{match[3]}"


#: The first words of the metric grammar's errors (``Unknown metric 'ndgc'. ...``).
_GRAMMAR = re.compile(r"^(?:Unknown metric|Cannot parse metric) ")


#: The option of the metric strings of a command that names them otherwise than ``-m``.
_METRIC_OPTIONS = {"gate": "--rule"}


#: The library functions each command runs, whose name begins their errors
#: (``retention: ...``); every command evaluates as :func:`receval.evaluate` does
#: (``rank``: its retrieval from ``--user-vectors`` and ``--item-vectors``).
_RUNS = {
    "rank": ("rank",),
    "retention": ("retention",),
    "compare": ("compare", "compare_by_segment", "compare_predictions"),
    "gate": ("gate",),
    "audit": ("audit",),
    "split": ("leave_last_out", "random_holdout", "ratio", "rolling", "temporal", "user_kfold"),
}


#: The families of the metrics a command computes each by its own function, its
#: registry row's (``receval rank -m catalog_coverage@10``: ``catalog_coverage``).
_OWN_FUNCTIONS = ("list",)


@functools.cache
def _metric_functions(command: str) -> dict[str, str]:
    """The function of each metric that ``command`` computes by its own function, and
    the words of the command that compute the metric (``popularity_statistical_parity``:
    ``receval rank -m pop_rsp``), from the registry."""
    families = [family for family in _OWN_FUNCTIONS if COMMANDS[family].split()[1] == command]
    if not families:
        return {}
    from ..registry import list_metrics

    return {
        entry.function: COMMANDS[family].format(name=entry.name)
        for family in families
        for entry in list_metrics(family)
        if entry.function != "evaluate"
    }


def _in_command(text: str, command: str) -> str:
    """``text`` begun as every command begins its errors: ``receval <command>:`` in place
    of the library function the command runs (``retention: ...``), the metric's option
    in place of the function of a metric it computes by that function
    (``receval rank -m catalog_coverage: ...``), and a metric string's error as the
    error of its option (``receval rank -m: unknown metric ...``). The place of a data
    error, which the library puts before its function (``events.csv: retention: ...``,
    ``log.parquet: row 2: temporal: ...``), follows the command (``receval retention:
    events.csv: ...``)."""
    if _GRAMMAR.match(text):
        option = _METRIC_OPTIONS.get(command, "-m")
        return f"receval {command} {option}: {text[0].lower()}{text[1:]}"
    metrics = _metric_functions(command)
    names = "|".join(("evaluate", *_RUNS.get(command, ()), *metrics))
    func = re.match(rf"(\S+(?:: row \d+)?: )??(?:receval\.)?(?P<func>{names}): ", text)
    if func is not None:
        words = metrics.get(func["func"], f"receval {command}")
        return f"{words}: {func[1] or ''}{text[func.end() :]}"
    return text


def audit_in_cli_words(report: Any, command: str) -> Any:
    """``report`` (a :class:`~receval.protocol.AuditReport`) with each finding's message
    and fix in the words of ``command`` (``--repeats``, ``receval split --method
    temporal``), for every output format of the commands that show it."""
    from dataclasses import replace

    findings = [
        replace(f, message=cli_text(f.message, command), fix=cli_text(f.fix, command))
        for f in report.findings
    ]
    return replace(report, findings=findings)
