"""The command and group classes of ``receval``: option coercion without pydantic, help
pages and usage errors.

The Typer versions that validate with pydantic turn each command-line value into
its parameter's type with a ``TypeAdapter`` built the first time the parameter is
processed, defaults and ``--help`` included: importing pydantic and building the
adapters of a command's thirty options takes longer than reading and evaluating
small files. :class:`Command` and :class:`Group` give each of their parameters a
coercion that returns what that adapter returns for the values these options
take (strings, integers and decimals written in digits within the option's
bounds, enum choices, lists of them) and hands every other value to Typer's own
coercion, so unusual spellings and every error message stay exactly Typer's.
With a Typer whose parameters have no such coercion, they are Typer's classes
with nothing changed.

Help is click's, wrapped to the terminal and never cut, with the options in
panels (each option's ``rich_help_panel``) and the values of every enumerated
option in its metavar (the conventions' choices, the profiles). An unknown
option gets a suggestion only when a known one is close to it.
"""

from __future__ import annotations

import difflib
import re
from enum import Enum
from typing import Any, get_args, get_origin

import typer
import typer.core
from typer.core import TyperCommand, TyperGroup

from ..conventions import CHOICES, PROFILES
from ._commands import COMMANDS
from ._stdin import accept_stdin

try:  # Typer's per-parameter coercion (pydantic TypeAdapters, built on first use)
    from typer._coercion import RuntimeParam, build_runtime_param
    from typer._param_types import coerce_cli_choice
except ImportError:  # a Typer that coerces with click types: nothing to replace
    RuntimeParam = build_runtime_param = coerce_cli_choice = None

__all__ = [
    "CLICK",
    "DECLINED",
    "Command",
    "Group",
    "UsageLine",
    "close_options",
    "files_as_arguments",
    "metric_option",
    "quick_value",
    "table_argument",
    "usage_line",
    "words",
]

#: The click Typer runs on: its own copy in newer Typers, else the click package.
CLICK: Any = getattr(typer.core, "_click", None) or typer.core.click

#: The values of the string options that take one of a few words, by parameter name.
_WORDS: dict[str, tuple[str, ...]] = {**CHOICES, "profile": tuple(PROFILES)}

#: What :func:`quick_value` returns for a value it leaves to Typer's coercion.
DECLINED: Any = object()

# numbers written in plain digits (no sign but '-', no exponent, no '_', no spaces), short
# enough that int() and float() give what pydantic gives
_INT = re.compile(r"-?[0-9]{1,18}")
_DECIMAL = re.compile(r"-?[0-9]{1,15}(?:\.[0-9]{1,15})?")


def _in_bounds(number: int | float, info: Any) -> bool:
    return (info.min is None or number >= info.min) and (info.max is None or number <= info.max)


def quick_value(annotation: Any, info: Any, value: Any, ctx: Any = None) -> Any:
    """The value Typer's coercion gives ``value``, or :data:`DECLINED`.

    Parameters
    ----------
    annotation : type
        The parameter's type as Typer resolved it (``str``, ``int``, ``float``, an
        ``Enum``, or ``list`` of one of these; ``X | None`` is ``X``).
    info : typer.models.ParameterInfo
        The parameter's declaration (bounds, case sensitivity, parser).
    value : object
        The value to coerce: a string from the command line or the default.
    ctx : click context, default=None
        The command's context (its token normalisation applies to choices).

    Returns
    -------
    value : object
        The coerced value, or :data:`DECLINED` where it is not one of the plain
        cases (then Typer's coercion decides, and names any error), and always
        with a Typer that coerces with click types.
    """
    if coerce_cli_choice is None:
        return DECLINED
    if get_origin(annotation) is list:
        if not isinstance(value, (list, tuple)):
            return DECLINED
        (item_type,) = get_args(annotation)
        items = [quick_value(item_type, info, item, ctx) for item in value]
        return DECLINED if any(item is DECLINED for item in items) else items
    if info.parser is not None:
        return DECLINED
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        try:
            return coerce_cli_choice(
                value, choices=list(annotation), case_sensitive=info.case_sensitive, ctx=ctx
            )
        except ValueError:
            return DECLINED
    if annotation is int or annotation is float:
        if info.clamp:
            return DECLINED
        number: int | float
        if type(value) is annotation:
            number = value
        elif type(value) is str and (_INT if annotation is int else _DECIMAL).fullmatch(value):
            number = annotation(value)
        else:
            return DECLINED
        return number if _in_bounds(number, info) else DECLINED
    if annotation is str:
        return value if type(value) is str else DECLINED
    return DECLINED


if RuntimeParam is not None:

    class _QuickParam(RuntimeParam):
        """:func:`quick_value`, else the parameter's Typer coercion (built only then)."""

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            quick = quick_value(self.annotation, self.parameter_info, value, ctx)
            if quick is not DECLINED:
                return quick
            full = build_runtime_param(param.type_descriptor)
            try:
                return full._coerce_value(value, param=param, ctx=ctx)
            except CLICK.exceptions.BadParameter as exc:  # say what was given, if it does not
                # (without the prefix of the validator's kind of error: "Value error, ")
                exc.message = exc.message.removeprefix("Value error, ")
                if isinstance(value, str) and repr(value) not in exc.message:
                    exc.message = f"{exc.message.rstrip('.')}. Got {value!r}."
                raise


def _quick(params: list[Any]) -> list[Any]:
    """Give each parameter without a coercion yet (Typer builds it on first use) a quick one."""
    if RuntimeParam is None:
        return params
    for param in params:
        descriptor = getattr(param, "type_descriptor", None)
        if (
            descriptor is None
            or getattr(param, "_runtime_param", True) is not None
            or descriptor.file_annotation is not None
        ):
            continue
        param._runtime_param = _QuickParam(
            annotation=descriptor.annotation, parameter_info=descriptor.parameter_info
        )
    return params


def metric_option(help: str, panel: str | None = None) -> Any:
    """The ``--metric`` / ``-m`` option of a command (``METRIC``, repeated for more), with
    its help and help panel."""
    return typer.Option("--metric", "-m", metavar="METRIC", help=help, show_default=False,
                        rich_help_panel=panel)  # fmt: skip


def metric_names(metric: list[str] | None, default: list[str]) -> list[str]:
    """The metrics a command's ``-m`` asks for, as written (trimmed, in lower case), each
    once in the order first given (a repeat would be a second column of the same value);
    ``default`` when none is given.

    Examples
    --------
    >>> metric_names(["ips", " SNIPS", "ips"], ["ips"])
    ['ips', 'snips']
    >>> metric_names(None, ["ips", "snips"])
    ['ips', 'snips']
    """
    names = [m.strip().lower() for m in metric] if metric else default
    return list(dict.fromkeys(names))


def time_value(text: str) -> Any:
    """A time given on the command line (``--cutoff``): the int or float it spells, else
    the text (an ISO 8601 time). An integer is read exactly, past 2**53 too (epoch
    nanoseconds), as the time column's integers are.

    Examples
    --------
    >>> time_value("1704067200000000001"), time_value("1.5"), time_value("2024-01-01")
    (1704067200000000001, 1.5, '2024-01-01')
    """
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def table_argument(what: str, row: str) -> Any:
    """The ``FILE`` argument of a command that reads one table: ``what`` it holds, a
    CSV, TSV or Parquet file with one row per ``row``."""
    text = f"{what}: a CSV, TSV or Parquet file with one row per {row}."
    return typer.Argument(metavar="FILE", help=text, show_default=False)


def words(values: tuple[str, ...] | list[str]) -> str:
    """The metavar of an option that takes one of ``values``: ``[a|b|c]``."""
    return "[" + "|".join(values) + "]"


def close_options(name: str, known: list[str]) -> list[str]:
    """The known options close to a mistyped ``name`` (compared without the dashes, so
    that ``--bogus`` is not "close" to ``--user`` for sharing ``--``)."""
    bare = {option.lstrip("-"): option for option in known if option.startswith("--")}
    return [bare[m] for m in difflib.get_close_matches(name.lstrip("-"), bare, cutoff=0.75)]


class UsageLine(CLICK.exceptions.UsageError):
    """A usage error shown as every other error of the command: ``error: <message>`` on
    one line of stderr (exit status 2), where click prints the usage, a hint and
    ``Error: <message>``."""

    def show(self, file: Any = None) -> None:
        CLICK.echo(f"error: {self.message}", file=file, err=True)


#: The help click shows for no argument, raised as a usage error from click 8.2 on (before,
#: it exits instead, and nothing matches this empty tuple).
_NO_ARGS_IS_HELP = getattr(CLICK.exceptions, "NoArgsIsHelpError", ())


def usage_line(exc: Any, ctx: Any) -> Any:
    """A usage error of click's (an option's bad value, a required one missing, an
    unknown option or command) as a :class:`UsageLine` that names the command and
    ends with where its options are told: ``receval ctr: Invalid value for
    '--digits': ... Got '20'; see receval ctr -h.`` Itself where it is one already,
    or is the help shown for no argument."""
    if isinstance(exc, (UsageLine, _NO_ARGS_IS_HELP)):
        return exc
    at = exc.ctx or ctx
    path = at.command_path if at is not None else "receval"
    text = " ".join(exc.format_message().split()).rstrip(".")
    see = f" See {path} -h." if text.endswith("?") else f"; see {path} -h."
    return UsageLine(f"{path}: {text}{see}", at)


def _checked(command: Any, ctx: Any, args: list[str], parse: Any) -> Any:
    """``parse(ctx, args)``, an unknown option's suggestions made by :func:`close_options`,
    files given as arguments to a command that takes them as options said so
    (:func:`files_as_arguments`), and every usage error on one line (:func:`usage_line`)."""
    given = list(args)  # click's parser consumes the list
    try:
        return parse(ctx, args)
    except CLICK.exceptions.NoSuchOption as exc:
        known = [o for p in command.get_params(ctx) for o in (*p.opts, *p.secondary_opts)]
        exc.possibilities = close_options(exc.option_name, known)
        raise usage_line(exc, ctx) from None
    except CLICK.exceptions.UsageError as exc:
        # a required option missing, or arguments the command does not take
        usage = CLICK.exceptions
        if type(exc) is usage.UsageError or isinstance(exc, usage.MissingParameter):
            text = files_as_arguments(command, ctx, given)
            if text is not None:
                raise UsageLine(text, ctx) from None
        raise usage_line(exc, ctx) from None


def files_as_arguments(command: Any, ctx: Any, args: list[str]) -> str | None:
    """What to type instead, when ``args`` give a command that takes its files as options
    (:attr:`CommandEntry.files`) some as arguments; None otherwise.

    The arguments go to the file options not given, in order (the last one takes the
    rest where it may be repeated), when their number says which goes where; else the
    message names the options.
    """
    import shlex

    entry = COMMANDS.get(ctx.info_name or "")
    params = command.get_params(ctx)
    if entry is None or not entry.files or any(p.param_type_name == "argument" for p in params):
        return None
    options = {o: p for p in params if p.param_type_name == "option" for o in p.opts}
    takes_value = {o for o, p in options.items() if not p.is_flag and not p.count}
    positional: list[int] = []
    named: set[str] = set()
    after_option = False
    for i, arg in enumerate(args):
        if after_option:
            after_option = False
        elif arg == "--":
            positional.extend(range(i + 1, len(args)))
            break
        elif arg.startswith("-") and arg != "-":
            name = arg.partition("=")[0]
            named.update(options[name].opts if name in options else [name])
            after_option = arg in takes_value
        else:
            positional.append(i)
    if not positional:
        return None
    files = [args[i] for i in positional]
    what, them = ("an argument", "it") if len(files) == 1 else ("arguments", "them")
    head = f"{ctx.command_path}: takes its files as options; got {shlex.join(files)} as {what}"
    missing = [o for o in entry.files if not named & set(options[o].opts)]
    last = options[entry.files[-1]]
    fits = len(files) == len(missing) or (len(files) > len(missing) and last.multiple)
    if not entry.ordered or not fits:
        names = " and ".join(filter(None, (", ".join(entry.files[:-1]), entry.files[-1])))
        return f"{head}; pass {them} with {names} (see {ctx.command_path} -h)."
    targets = missing + [entry.files[-1]] * (len(files) - len(missing))
    pairs = [x for target, file in zip(targets, files, strict=True) for x in (target, file)]
    rest = [arg for i, arg in enumerate(args) if i not in positional and arg != "--"]
    return f"{head}: {shlex.join([*ctx.command_path.split(), *pairs, *rest])}"


def _panels(command: Any, ctx: Any, formatter: Any) -> None:
    """The arguments, then the options by panel (``rich_help_panel``, else "Options")."""
    panels: dict[str, list[tuple[str, str]]] = {}
    for param in command.get_params(ctx):
        record = param.get_help_record(ctx)
        if record is not None and param.param_type_name == "argument":
            record = (param.metavar or param.name.upper(), record[1])  # without its type
        if record is not None:
            default = "Arguments" if param.param_type_name == "argument" else "Options"
            panels.setdefault(getattr(param, "rich_help_panel", None) or default, []).append(record)
    for name, records in panels.items():
        with formatter.section(name):
            formatter.write_dl(records)


class Command(TyperCommand):
    """Typer's command class whose parameters coerce plain values without pydantic,
    whose input files (``FILE`` parameters other than ``--out``) may be ``-``,
    standard input (:func:`receval.cli._stdin.stdin_input`), whose enumerated
    string options show their values, and whose help starts with the command's
    summary in :data:`~receval.cli._commands.COMMANDS` (its callback's docstring
    follows)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        entry = COMMANDS.get(kwargs.get("name") or "")
        if entry is not None:
            kwargs["help"] = "\n\n".join(filter(None, (entry.summary, kwargs.get("help"))))
        super().__init__(*args, **kwargs)

    def get_params(self, ctx: Any) -> list[Any]:
        params = accept_stdin(_quick(super().get_params(ctx)))
        for param in params:
            values = _WORDS.get(param.name or "")
            if values and param.param_type_name == "option" and param.metavar is None:
                param.metavar = words(values)
                if len(f"{param.opts[-1]} {param.metavar}") > 56:  # wider than 60 columns
                    param.metavar = "WORD"
                    param.help = f"{param.help} One of: {', '.join(values)}."
        return params

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return _checked(self, ctx, args, super().parse_args)  # type: ignore[no-any-return]

    def format_options(self, ctx: Any, formatter: Any) -> None:
        _panels(self, ctx, formatter)


class Group(TyperGroup):
    """Typer's group class whose parameters coerce plain values without pydantic, whose
    help lists every command of :data:`~receval.cli._commands.COMMANDS` with its
    summary, and whose error for an unknown command suggests the close ones: neither
    needs a command's module loaded."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.suggest_commands = False  # Typer's suggestions know the loaded commands only

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, entry.summary) for name, entry in COMMANDS.items()])

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)
        except CLICK.exceptions.UsageError as exc:
            close = difflib.get_close_matches(args[0], list(COMMANDS)) if args else []
            if close and args[0] not in COMMANDS:
                names = ", ".join(repr(name) for name in close)
                exc.message = f"{exc.message.rstrip('.')}. Did you mean {names}?"
            raise usage_line(exc, ctx) from None

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except CLICK.exceptions.UsageError as exc:  # a command's own, as it runs
            raise usage_line(exc, ctx) from None

    def get_params(self, ctx: Any) -> list[Any]:
        return _quick(super().get_params(ctx))

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return _checked(self, ctx, args, super().parse_args)  # type: ignore[no-any-return]
