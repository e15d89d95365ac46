"""Exceptions and warnings raised by receval.

Every error receval raises derives from :class:`RecevalError`, so a caller can
catch all of them at once, and each also derives from the built-in exception a
Python user would expect (``ValueError`` for bad data, ``ValueError`` and
``TypeError`` for a bad keyword argument).
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

__all__ = [
    "DEFAULT_MIN_MATCH",
    "InputValidationError",
    "InvalidParameterError",
    "MissingDependencyError",
    "RecevalError",
    "RecevalWarning",
    "TieOrderWarning",
    "UndefinedMetricWarning",
    "UnknownMetricError",
    "UnmatchedIdsWarning",
]


class RecevalError(Exception):
    """Base class of every error raised by receval."""


class InvalidParameterError(RecevalError, ValueError, TypeError):
    """A keyword argument has a value that is not allowed.

    Examples
    --------
    >>> from receval import gauc_score
    >>> from receval.exceptions import InvalidParameterError
    >>> try:
    ...     gauc_score([1, 0], [0.2, 0.1], groups=[1, 1], weighting="views")
    ... except InvalidParameterError as exc:
    ...     print(exc)
    The 'weighting' parameter of gauc_score must be one of ['clicks', 'impressions', 'uniform']. Got 'views' instead.
    """


class UnknownMetricError(InvalidParameterError):
    """A metric string that names no metric: an unknown name (with the closest
    spelling, if any) or a string of no form receval reads. A known metric with a bad
    parameter raises :class:`InvalidParameterError` itself.

    Examples
    --------
    >>> from receval import parse_metric
    >>> from receval.exceptions import UnknownMetricError
    >>> try:
    ...     parse_metric("ndgc@10")
    ... except UnknownMetricError as exc:
    ...     print(exc)
    Unknown metric 'ndgc'. Did you mean 'ndcg'? See receval.list_metrics().
    """


class InputValidationError(RecevalError, ValueError):
    """The data passed to a metric is malformed (length, values, NaN, ...).

    ``row`` is the 0-based position of the first offending value when the check
    knows it (None otherwise), and ``pair`` the (user, item) ids of a repeated
    pair: the file readers turn them into ``path:line``. ``classes`` holds the
    labels found where a metric needs two classes (0/1 clicks) and they are not
    (None otherwise). ``scored`` holds the metric (as the caller named it) and the
    model whose scores it was computing when the error was raised, where models
    are compared (:func:`receval.compare_predictions`, :func:`receval.gate`; None
    otherwise): the command line names the model's score column by its option.
    """

    row: int | None = None
    pair: tuple[object, object] | None = None
    #: the message with ``{at}`` where it states the place of the first offending value
    #: (``at position 2`` of an array) and ``{count}`` where it counts the values found
    #: (``count``, as stated), so that :meth:`moved` and :meth:`restated` can restate it
    template: str | None = None
    count: str | None = None
    #: what ``count`` counts, in the plural and without a number: the count :meth:`moved`
    #: states once the part's count is no longer the column's
    counted: str = "missing values"
    classes: list[object] | None = None
    scored: tuple[str, str] | None = None
    #: what the check refused, counted in a part of the data (a Spark partition) and
    #: mergeable with the other parts' (``tally.merge(other)``) into the whole's error
    #: (``tally.error()``); None where the message states no count a part can add to
    tally: Any = None

    def __init__(
        self, *args: object, row: int | None = None, classes: list[object] | None = None
    ) -> None:
        super().__init__(*args)
        self.row, self.classes = row, classes

    def moved(self, offset: int) -> InputValidationError:
        """This error, found in a part of a column (a row group, a batch) whose first
        row is ``offset``, as of the whole column: its ``row`` and the position its
        message states are moved by ``offset``; a count of the part's values, which
        need not be the column's, is no longer stated.

        Examples
        --------
        >>> from receval import roc_auc_score
        >>> from receval.exceptions import InputValidationError
        >>> try:
        ...     roc_auc_score([0, 1, None], [0.1, 0.2, 0.3])
        ... except InputValidationError as exc:
        ...     print(exc)
        ...     print(exc.moved(1000))
        roc_auc_score: y_true contains 1 missing value (None, NA or NaN), the first at position 2; drop or fill them first.
        roc_auc_score: y_true contains missing values (None, NA or NaN), the first at position 1002; drop or fill them first.
        >>> try:
        ...     roc_auc_score([0, 1, float("inf")], [0.1, 0.2, 0.3])
        ... except InputValidationError as exc:
        ...     print(exc.moved(1000))
        roc_auc_score: y_true must hold labels such as 0 and 1. Got infinite values (inf), the first at position 1002; drop those rows or fix their labels first.
        """
        row = None if self.row is None else self.row + offset
        if self.template is None or row is None:
            error = self._again(str(self))
            error.row = row
            return error
        error = self.positioned(self.template, row, self.counted, self.counted)
        error.pair, error.classes, error.scored = self.pair, self.classes, self.scored
        return error

    @classmethod
    def positioned(
        cls, template: str, row: int, count: str | None = None, counted: str = "missing values"
    ) -> InputValidationError:
        """The error of the first offending value at position ``row`` of an array: the
        message of ``template`` (see :attr:`template`), the values counted ``count``
        (``"2 missing values"``; ``counted``: the same without their number)."""
        error = cls(template.format(at=f"at position {row}", count=count), row=row)
        error.template, error.count, error.counted = template, count, counted
        return error

    def restated(self, at: str) -> InputValidationError:
        """This error, its message stating the place of the first offending value as
        ``at`` (``"in this row"`` of a file, which the message names in front) rather
        than as its position; itself where the message states no place.

        Examples
        --------
        >>> from receval import roc_auc_score
        >>> from receval.exceptions import InputValidationError
        >>> try:
        ...     roc_auc_score([0, 1, None], [0.1, 0.2, 0.3])
        ... except InputValidationError as exc:
        ...     print(exc.restated("in this row"))
        roc_auc_score: y_true contains 1 missing value (None, NA or NaN), the first in this row; drop or fill them first.
        """
        if self.template is None or self.row is None:
            return self
        return self._again(self.template.format(at=at, count=self.count))

    def named(self, said: str, by: str) -> InputValidationError:
        """This error in the words of the function called, where its message begins with
        ``said`` (the reader that checked the data) rather than ``by``; itself where it
        does not begin so.

        Examples
        --------
        >>> from receval.exceptions import InputValidationError
        >>> print(InputValidationError("Run: users is empty.").named("Run: ", "evaluate: run: "))
        evaluate: run: users is empty.
        """
        if not str(self).startswith(said):
            return self
        error = self._again(by + str(self)[len(said) :])
        if self.template is not None and self.template.startswith(said):
            error.template = by + self.template[len(said) :]
        return error

    def named_reader(self, reader: str, by: str) -> InputValidationError:
        """:meth:`named` for a message that begins with the reader class ``reader``
        (``"Run: "``, or one of its methods: ``"Run.from_dict: "``).

        Examples
        --------
        >>> from receval.exceptions import InputValidationError
        >>> error = InputValidationError("Run.from_dict: users is empty.")
        >>> print(error.named_reader("Run", "evaluate: run: "))
        evaluate: run: users is empty.
        """
        said = re.match(rf"{re.escape(reader)}(?:\.\w+)?: ", str(self))
        return self if said is None else self.named(said[0], by)

    def _again(self, message: str) -> InputValidationError:
        """An error of this type with ``message`` and this error's attributes."""
        error = type(self)(message, row=self.row, classes=self.classes)
        error.pair, error.template, error.count = self.pair, self.template, self.count
        error.counted, error.scored, error.tally = self.counted, self.scored, self.tally
        return error


class MissingDependencyError(RecevalError, ImportError):
    """An optional dependency that this function needs is not installed.

    The message names the package and the ``pip install`` command that adds it.

    Examples
    --------
    >>> from receval.exceptions import MissingDependencyError
    >>> issubclass(MissingDependencyError, ImportError)
    True
    """


class RecevalWarning(UserWarning):
    """Base class of every warning receval emits, so a caller can filter all of them."""


class UndefinedMetricWarning(RecevalWarning):
    """The metric is undefined for this input; the returned value is ``nan``."""


class TieOrderWarning(RecevalWarning):
    """A profile's peer orders the run's tied scores by no fixed rule.

    ranx (lists over 15 items), RecBole, torchmetrics and TorchRec sort with unstable
    sorts, so on tied scores their numbers depend on the sort's internals; receval orders
    the ties by the ``ties`` convention in effect (the message names it) and cannot
    promise the peer's value for the users concerned. Break the ties to compare
    numbers exactly.
    """


class UnmatchedIdsWarning(RecevalWarning):
    """Few of the run's users or items match the qrels' (below ``min_match``, by default
    :data:`DEFAULT_MIN_MATCH`).

    A prefix, a type or a column mix-up in the ids makes every metric 0 without
    anything being wrong with the model; :func:`receval.evaluate` refuses a run
    that matches nothing at all (``allow_unmatched=True`` scores it anyway) and
    warns when only a small share matches. :func:`receval.retrieve` and
    :func:`receval.evaluate_embeddings` warn when some pairs of ``exclude`` name
    a user or an item without a vector (they mask nothing), with their number;
    :func:`receval.evaluate` and :func:`receval.sample_negatives` warn when
    ``exclude`` names none of the users or none of the items it is matched
    against (it excludes nothing).

    Examples
    --------
    >>> import warnings
    >>> from receval import evaluate
    >>> from receval.exceptions import UnmatchedIdsWarning
    >>> qrels = {u: {"a": 1} for u in "uvwxyz"}
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = evaluate(qrels, {"u": {"a": 0.5}}, ["mrr"], min_match=0.5)
    >>> [w.category.__name__ for w in caught]
    ['UnmatchedIdsWarning']
    """


#: The share of the qrels' users found in the run, and of the run's items judged in the
#: qrels, below which :func:`receval.evaluate` (its ``min_match``) and ``receval
#: trec-eval`` warn with :class:`UnmatchedIdsWarning`.
DEFAULT_MIN_MATCH = 0.1


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message: str, category: type[Warning] = RecevalWarning) -> None:
    """Warn, the warning attributed to the line that called into receval.

    The frame a warning names is the first one outside the package, found by
    walking the stack, so that it is the caller's line whatever path (a function,
    an accumulator, a scan, a CLI command) led to it, and a filter on the caller's
    module (``-W``, :func:`warnings.filterwarnings`) applies to it.

    Examples
    --------
    >>> import warnings
    >>> from receval.exceptions import UndefinedMetricWarning, warn
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("undefined", UndefinedMetricWarning)
    >>> caught[0].category.__name__, caught[0].filename.endswith("exceptions.py")
    ('UndefinedMetricWarning', False)
    """
    frame = sys._getframe(1)  # the caller's, warnings.warn's stack level 2
    level = 2
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)


@contextmanager
def restated_warnings(restate: Callable[[str], str]) -> Iterator[None]:
    """Catch the warnings raised meanwhile and warn them again (:func:`warn`, each of its
    category) in the words ``restate`` gives each message, once the block is done.

    Where the block raises, they are warned before its exception goes on, and the
    exception wins: a warning that a filter turns into an error (``python -W error``)
    is left out rather than raised in its place.

    Examples
    --------
    >>> import warnings
    >>> from receval.exceptions import restated_warnings, warn
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     with restated_warnings(lambda text: "model 'b': " + text):
    ...         warn("undefined")
    >>> str(caught[0].message)
    "model 'b': undefined"
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error")
    ...     try:
    ...         with restated_warnings(str.upper):
    ...             warnings.simplefilter("always")  # within the block: caught
    ...             warn("undefined")
    ...             raise ValueError("the error")
    ...     except ValueError as exc:
    ...         print(exc)
    the error
    """
    try:
        with warnings.catch_warnings(record=True) as caught:
            yield
    except BaseException:
        for w in caught:
            with suppress(Warning):
                warn(restate(str(w.message)), w.category)
        raise
    for w in caught:
        warn(restate(str(w.message)), w.category)
