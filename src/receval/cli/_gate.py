"""``receval gate``: pass or fail candidates against baselines, for CI.

Registered on the ``receval`` app when :mod:`receval.cli` is imported. The rules
and settings come from ``receval.toml`` or ``[tool.receval.gate]`` in
``pyproject.toml`` (:mod:`receval.gating.config`), each setting overridable by an
option; ``--rule`` gives the rules instead, and then no file is looked for (only
``--config FILE`` is read, for its settings). The decision comes from
:func:`receval.gate`. Exit status: 0 pass, 1 fail, 2 bad input.
"""

# No ``from __future__ import annotations``: Typer reads the parameters' annotations.

import dataclasses
import os
import sys
from enum import Enum
from typing import Annotated, Any

import typer

from ..comparison.choices import CORRECTIONS, INTERVALS, TESTS
from ..exceptions import InputValidationError, InvalidParameterError
from ..gating.rules import KINDS, repeated, rule_metric
from ._common import (
    AllowUnmatchedOption,
    DigitsOption,
    GradeOption,
    GroupOption,
    ImpressionsOption,
    InputFormatOption,
    ItemOption,
    LabelOption,
    Messages,
    ProfileOption,
    QrelsFormatOption,
    QrelsOption,
    QuietOption,
    RunFormatOption,
    RunScoreOption,
    UserOption,
    WeightOption,
    app,
    read_qrels_runs,
)
from ._impressions import column_warnings, ctr_metrics, read_impressions, scored_error
from ._output import OutputFormat, ResultTable, render
from ._params import Command, words


class GateFormat(str, Enum):
    """Output formats of ``receval gate``."""

    table = "table"
    markdown = "markdown"
    json = "json"
    junit = "junit"


_RULE_FORM = "METRIC=KIND[:MARGIN[%]] or METRIC=floor:VALUE / ceiling:VALUE"


def _split_rule(text: str) -> tuple[str, str, str]:
    """``text`` split at its last ``=`` outside parentheses, as :meth:`str.rpartition`
    splits: the metric's own options (``gauc(weighting=clicks)``) stay in the metric."""
    depth, at = 0, -1
    for i, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if char == "=" and depth == 0:
            at = i
    return ("", "", text) if at < 0 else (text[:at], "=", text[at + 1 :])


def parse_rule(text: str) -> dict[str, Any]:
    """A rule of ``--rule``: ``ndcg@10=non_inferiority:0.01``, ``recall@20=non_inferiority:2%``
    (relative), ``mrr=superiority``, ``gauc=floor:0.7``,
    ``gauc(weighting=clicks)=non_inferiority:0.01``."""
    import shlex

    metric, sep, spec = _split_rule(text)
    kind, _, number = spec.partition(":")
    kind = kind.strip().replace("-", "_")
    if sep and metric.strip() and kind not in KINDS:
        import difflib

        close = difflib.get_close_matches(kind, KINDS, n=1, cutoff=0.6)
        example = shlex.quote(f"{metric.strip()}=superiority")
        fix = f"did you mean {close[0]!r}?" if close else f"e.g. --rule {example}."
        raise InvalidParameterError(
            f"--rule {text!r}: the kind must be one of {list(KINDS)}. Got {kind!r}; {fix}"
        )
    rule: dict[str, Any] = {"metric": metric.strip(), "rule": kind}
    if sep and metric.strip() and kind in ("floor", "ceiling") and not number.strip():
        raise InvalidParameterError(
            f"--rule {text!r}: a {kind} needs its value. Got none; e.g. --rule "
            f"{shlex.quote(f'{metric.strip()}={kind}:0.5')}."
        )
    try:
        if not sep or not metric.strip():
            raise ValueError
        if number:
            relative = number.strip().endswith("%")
            value = float(number.strip().rstrip("%"))
            if kind in ("floor", "ceiling"):
                if relative:
                    raise ValueError
                rule["threshold"] = value
            else:
                rule["margin"] = value / 100 if relative else value
                rule["relative"] = relative
    except ValueError:
        given = (metric if sep else text).strip() or "ndcg@10"  # the metric given, if any
        bound = sep and kind in ("floor", "ceiling")
        example = shlex.quote(f"{given}={kind}:0.5" if bound else f"{given}=non_inferiority:0.01")
        raise InvalidParameterError(
            f"--rule must be {_RULE_FORM}. Got {text!r} instead; e.g. --rule {example}."
        ) from None
    return rule


def _rule(text: str) -> Any:
    """The checked rule of one ``--rule``; a bad value is named by the option and its
    key (``--rule 'mrr=non_inferiority:-1': margin must be ...``)."""
    from ..gating.rules import as_rule

    fields = parse_rule(text)
    try:
        return as_rule(fields, "rule")
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"--rule {text!r}: {str(exc).removeprefix('rule.')}") from None


def _models(names: list[str], role: str, say: Messages) -> None:
    if not names:
        raise say.fail(f"the gate needs at least one --{role}.")


@app.command(cls=Command)
def gate(
    candidate: Annotated[
        list[str] | None,
        typer.Option(
            "--candidate",
            metavar="RUN|COL",
            help="A candidate: a run file (with --qrels) or a score column of --impressions; "
            "repeat for several.",
            show_default=False,
            rich_help_panel="Input",
        ),
    ] = None,
    baseline: Annotated[
        list[str] | None,
        typer.Option(
            "--baseline",
            metavar="RUN|COL",
            help="A baseline, as --candidate; repeat for several (every candidate is compared "
            "with every baseline).",
            show_default=False,
            rich_help_panel="Input",
        ),
    ] = None,
    qrels: QrelsOption[str | None] = None,
    qrels_format: QrelsFormatOption = None,
    run_format: RunFormatOption = None,
    user: UserOption = "user",
    item: ItemOption = "item",
    grade: GradeOption = "grade",
    run_score: RunScoreOption = "score",
    allow_unmatched: AllowUnmatchedOption = False,
    impressions: ImpressionsOption = None,
    label: LabelOption[str | None] = None,
    group: GroupOption = None,
    weight: WeightOption = None,
    input_format: InputFormatOption = None,
    config: Annotated[
        str | None,
        typer.Option(
            "--config",
            metavar="FILE",
            help="The rules and settings: a TOML file with a [gate] table "
            "([tool.receval.gate] in pyproject.toml). Default: receval.toml, else "
            "pyproject.toml, in the current directory; none with --rule. With --rule, "
            "the file's settings alone are read.",
            show_default=False,
            rich_help_panel="Rules",
        ),
    ] = None,
    rule: Annotated[
        list[str] | None,
        typer.Option(
            "--rule",
            metavar="METRIC=KIND[:MARGIN]",
            help="A rule; repeat. KIND is non_inferiority or superiority with a MARGIN "
            "(absolute, or relative with %), or floor or ceiling with a value, e.g. "
            "ndcg@10=non_inferiority:0.01, gauc=floor:0.7. With --rule no file's rules are "
            "read: receval.toml and pyproject.toml are not looked for, and the settings are "
            "the options' (and --config FILE's, when given), else the defaults.",
            show_default=False,
            rich_help_panel="Rules",
        ),
    ] = None,
    alpha: Annotated[
        float | None,
        typer.Option(
            help="Level of the one-sided tests after correction (default 0.05).",
            show_default=False,
            rich_help_panel="Rules",
        ),
    ] = None,
    correction: Annotated[
        str | None,
        typer.Option(
            metavar=words((*CORRECTIONS, "none")),
            show_default=False,
            help="Correction across metrics x baselines x candidates (default holm).",
            rich_help_panel="Rules",
        ),
    ] = None,
    test: Annotated[
        str | None,
        typer.Option(
            metavar=words(TESTS),
            show_default=False,
            rich_help_panel="Rules",
            help="Paired test (default randomization; roc_auc: DeLong's).",
        ),
    ] = None,
    power: Annotated[
        float | None,
        typer.Option(
            help="Power of the minimum detectable effect (default 0.8).",
            show_default=False,
            rich_help_panel="Rules",
        ),
    ] = None,
    inconclusive: Annotated[
        str | None,
        typer.Option(
            metavar="[fail|pass]",
            show_default=False,
            rich_help_panel="Rules",
            help="What a row whose sample is too small to detect its margin counts "
            "as (default fail).",
        ),
    ] = None,
    interval: Annotated[
        str | None,
        typer.Option(
            metavar=words(INTERVALS),
            show_default=False,
            rich_help_panel="Rules",
            help="Bootstrap interval of the differences (default bca).",
        ),
    ] = None,
    permutations: Annotated[
        int | None,
        typer.Option(
            help="Sign flips of the randomization test (default 10000).",
            show_default=False,
            rich_help_panel="Rules",
        ),
    ] = None,
    resamples: Annotated[
        int | None,
        typer.Option(
            help="Bootstrap resamples (default 10000).", show_default=False, rich_help_panel="Rules"
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed of the tests and the bootstrap (default 0).",
            show_default=False,
            rich_help_panel="Rules",
        ),
    ] = None,
    profile: ProfileOption = None,
    weighting: Annotated[
        str | None,
        typer.Option(
            metavar="[impressions|clicks|uniform]",
            show_default=False,
            help="Weighting of gauc's groups where a rule's metric sets none, as "
            "gauc(weighting=clicks) does (default impressions).",
            rich_help_panel="Rules",
        ),
    ] = None,
    output_format: Annotated[
        GateFormat,
        typer.Option(
            "--format",
            "-f",
            case_sensitive=False,
            rich_help_panel="Output",
            help="table (terminal), markdown (a pull-request comment), json, or "
            "junit (XML: a test case per check).",
        ),
    ] = GateFormat.table,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            show_default=False,
            rich_help_panel="Output",
            help="Write the --format output to FILE instead of standard output ('-': it).",
        ),
    ] = None,
    step_summary: Annotated[
        bool,
        typer.Option(
            "--step-summary/--no-step-summary",
            rich_help_panel="Output",
            help="Append the Markdown table to the file named by $GITHUB_STEP_SUMMARY "
            "when it is set (GitHub Actions' job summary).",
        ),
    ] = True,
    digits: DigitsOption = 4,
    quiet: QuietOption = False,
) -> None:
    """Each rule's metric is compared user by user with a one-sided paired test
    (non-inferiority: no significant regression beyond the margin;
    superiority: a significant gain), corrected across every comparison; a
    floor or ceiling bounds the candidate's value. A comparison whose sample
    is too small to detect its margin is inconclusive (a failure unless
    --inconclusive pass). Runs: --qrels with --candidate and --baseline run
    files; CTR models: --impressions, --label (and --group) with score columns.
    The verdict line (receval gate PASSED: ...) heads the table and the
    Markdown; with json or junit, or --output FILE, it is a note on stderr.
    The notes (inconclusive rows, users left out) go on stderr, as every
    command's; a Markdown file (--output, $GITHUB_STEP_SUMMARY) lists them too.
    """
    from ..gating.config import GateConfig, find_config, load_config
    from ..gating.decision import gate as run_gate

    say = Messages(quiet)
    with say.guard():
        if rule:  # the rules of the command line: no file is looked for, and the file
            # of --config gives its settings alone (its rules are neither read nor checked)
            rules = tuple(map(_rule, rule))
            given = load_config(config, rules=False) if config is not None else GateConfig()
            settings = dataclasses.replace(given, rules=rules)
        else:
            path = config if config is not None else find_config(".")
            settings = load_config(path) if path is not None else GateConfig()
        if not settings.rules:
            raise say.fail(
                "no rules: write them in receval.toml ([[gate.rules]]) or pyproject.toml "
                "([[tool.receval.gate.rules]]), pass --config FILE, or pass --rule."
            )
        settings = settings.replace(
            alpha=alpha,
            correction=correction,
            test=test,
            power=power,
            inconclusive=inconclusive,
            interval=interval,
            n_permutations=permutations,
            n_resamples=resamples,
            seed=seed,
            profile=profile,
            weighting=weighting,
        )
        twice = repeated(settings.rules, settings.weighting) if rule else None
        if rule and twice is not None:  # a file's rules are checked as it is read
            i, j = twice
            first, again = settings.rules[j].metric, settings.rules[i].metric
            same = rule_metric(first, settings.weighting)
            raise say.fail(
                f"--rule {rule[i]!r} is given twice; pass each rule once."
                if rule[i] == rule[j]
                else f"--rule {rule[i]!r} repeats --rule {rule[j]!r} ({again!r} and "
                f"{first!r} name the same metric, {same}); pass each rule once."
            )
        _models(candidate or [], "candidate", say)
        if any(r.comparative for r in settings.rules) and not baseline:  # bounds need none
            raise say.fail(
                "the gate's non_inferiority and superiority rules need at least one "
                "--baseline (a floor or ceiling rule needs none)."
            )
        cands, bases = list(candidate or []), list(baseline or [])
        roles = ["--baseline"] * len(bases) + ["--candidate"] * len(cands)
        ranking, pointwise = qrels is not None, impressions is not None
        if ranking == pointwise:
            raise say.fail(
                "pass either --qrels (run files as --candidate and --baseline) or "
                "--impressions with --label (score columns as --candidate and --baseline)."
            )
        if pointwise and allow_unmatched:  # it would be ignored
            raise say.fail("--allow-unmatched goes with runs (--qrels); drop it.")
        if ranking:
            assert qrels is not None
            inputs = list(
                read_qrels_runs(
                    qrels,
                    qrels_format,
                    [*bases, *cands],
                    run_format,
                    say,
                    user=user,
                    item=item,
                    grade=grade,
                    score=run_score,
                    score_option="--run-score",
                    options=roles,
                )
            )
            named = [(name, r) for _, name, r in inputs]
            base_runs = dict(named[: len(bases)])
            cand_runs = dict(named[len(bases) :])
            with say.progress("Gating the runs…"):
                matching: dict[str, Any] = {"allow_unmatched": True} if allow_unmatched else {}
                report = run_gate(
                    cand_runs,
                    base_runs,
                    settings.rules,
                    qrels=inputs[0][0],
                    **settings.settings(),
                    **matching,
                )
        else:
            assert impressions is not None
            if label is None:
                raise say.fail("gating CTR models needs --label (the 0/1 click column).")
            ctr_metrics([r.metric for r in settings.rules], group, say, where="--rule")  # as ctr
            data = read_impressions(
                impressions,
                input_format,
                say,
                "receval gate",
                label=label,
                score=[*bases, *cands],
                group=group,
                weight=weight,
                score_options=roles,
            )
            scores = dict(data.scores)
            with (
                say.progress("Gating the models…"),
                column_warnings(data, None, metrics=[r.metric for r in settings.rules]),
            ):
                try:
                    report = run_gate(
                        {c: scores[c] for c in cands},
                        {b: scores[b] for b in bases},
                        settings.rules,
                        y_true=data.y_true,
                        groups=data.groups,
                        sample_weight=data.sample_weight,
                        **settings.settings(),
                    )
                except InputValidationError as exc:  # a data error: the file's line, the column
                    raise say.fail(scored_error(exc, say, data)) from None
        # the report names the file its rules came from
        report = dataclasses.replace(
            report, config=dataclasses.replace(report.config, source=settings.source)
        )
        _write(report, output_format, output, digits)
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if step_summary and summary:
            try:
                with open(summary, "a", encoding="utf-8") as f:
                    f.write(report.to_markdown(digits) + "\n")
            except OSError as exc:  # the gate's status stands: only the summary is lost
                say.warning(
                    f"$GITHUB_STEP_SUMMARY names {summary!r}, which cannot be written "
                    f"({exc.strerror or exc}); no summary written (--no-step-summary skips it)."
                )
        # the first note (the test and its correction) is in the Markdown on standard
        # output; the table, JSON and JUnit hold none of them
        in_markdown = output_format is GateFormat.markdown and output in (None, "-")
        shown = report.test_note() if in_markdown else None
        for note in report.notes():
            if note != shown:
                say.note(note)
        # the verdict once: the table and the Markdown on standard output head with it;
        # JSON and JUnit hold none, nor does standard output with --output FILE
        if output not in (None, "-") or output_format in (GateFormat.json, GateFormat.junit):
            say.note(report.summary())
    raise SystemExit(0 if report.passed else 1)


def _write(report: Any, fmt: GateFormat, output: str | None, digits: int) -> None:
    """The report in ``fmt`` on standard output, or in the file ``output`` (a table as
    Markdown). On standard output the Markdown lists the first note only (the test): the
    others go on stderr, as every command's notes; a file holds them all."""
    to_stdout = output in (None, "-")
    if fmt is GateFormat.table and to_stdout:
        header, rows = report.table_rows(digits)
        render(
            ResultTable(header, rows, title=report.summary(), keys=4),
            OutputFormat.table,
            digits=digits,
        )
        sys.stdout.flush()
        return
    if fmt is GateFormat.json:
        body = report.to_json()
    elif fmt is GateFormat.junit:
        body = report.to_junit()
    else:
        body = report.to_markdown(digits, notes=not to_stdout)
    if to_stdout:
        sys.stdout.write(body)
        sys.stdout.flush()
    else:
        assert output is not None
        with open(output, "w", encoding="utf-8") as f:
            f.write(body)
