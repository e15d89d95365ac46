"""Shared helpers of receval.plot: model dicts, legend labels and the displays' base."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..exceptions import InputValidationError, InvalidParameterError

_MISSING = "receval.plot needs matplotlib; pip install 'receval[plot]'."


def as_models(
    data: Any,
    name: str,
    func: str,
    is_collection: Callable[[Any], bool] | None = None,
) -> list[tuple[str | None, Any]]:
    """Normalise one input or a dict ``{model name: input}`` to ``[(name, input), ...]``.

    Parameters
    ----------
    data : object
        One model's input (scores, a run, a report) or a mapping from model
        names to such inputs.
    name, func : str
        The argument and function names, for error messages.
    is_collection : callable, default=None
        Tells whether ``data`` is a dict of models. By default any mapping is
        one; inputs that may themselves be mappings (a run as a dict of dicts)
        pass a stricter test.

    Returns
    -------
    models : list of (str or None, object)
        The name of each model (None for a single unnamed input) and its input,
        in the mapping's order.
    """
    collection = is_collection(data) if is_collection else isinstance(data, Mapping)
    if not collection:
        return [(None, data)]
    if len(data) == 0:
        raise InvalidParameterError(
            f"The '{name}' parameter of {func} must hold at least one model. Got {{}} instead."
        )
    return [(str(key), value) for key, value in data.items()]


def binary_models(
    y_true: Any,
    scores: Any,
    sample_weight: Any,
    pos_label: Any,
    func: str,
    *,
    probabilities: bool = False,
    scans: bool = True,
) -> tuple[Any, list[tuple[str | None, Any]], Any]:
    """The labels to give the metrics, each model's scores and the ``pos_label`` to give
    with them, the input checked once with ``func``'s name.

    Arrays are checked as the curves check them (each model's scores named
    ``scores`` or ``scores['name']``; ``probabilities``: in [0, 1]) and the labels
    binarised by ``pos_label`` (the metrics then get 0/1 labels and no
    ``pos_label``); columns of a :func:`receval.scan` go to the metrics as they
    are, with ``pos_label``, the first pass over them checking them with ``func``'s
    name (:func:`receval.metrics._curves.binary_curve_counts`; the checks also name
    the file and line), or are refused where the drawing has no out-of-core form
    (``scans=False``).
    """
    from .. import _validation as v
    from ..engine.sources import scan_of
    from ..metrics._binary import check_binary_scores

    models = as_models(scores, "scores", func)
    labels = None
    for model, y_score in models:
        name = score_name(model)
        scan = scan_of(func, y_true=y_true, **{name: y_score}, sample_weight=sample_weight)
        if scan is not None and not scans:
            raise InputValidationError(
                f"{func}: y_true and scores are columns of a receval.scan, which {func} does "
                f"not draw out of core. Got columns of {scan.name}; read them into memory "
                f"first (e.g. pyarrow.csv.read_csv or pyarrow.parquet.read_table)."
            )
        if scan is not None:
            continue
        labels, values, _, _ = check_binary_scores(
            y_true, y_score, sample_weight, func, pos_label=pos_label, score_name=name, rank=False
        )
        if probabilities:
            v.check_probabilities(values, name, func)
    if labels is None:  # columns of one scan: read by the metrics
        return y_true, models, pos_label
    return labels, models, None


def score_name(model: str | None) -> str:
    """How errors name a model's scores: ``scores``, or ``scores['name']``."""
    return "scores" if model is None else f"scores[{model!r}]"


def check_ax(ax: Any, func: str) -> None:
    """``ax`` must be None or a matplotlib Axes: every function and display that draws
    checks it here, before any number is computed."""
    if ax is None:
        return
    try:
        from matplotlib.axes import Axes
    except ImportError as exc:
        raise ImportError(_MISSING) from exc
    if not isinstance(ax, Axes):
        raise InvalidParameterError(
            f"The 'ax' parameter of {func} must be a matplotlib Axes or None. Got "
            f"{type(ax).__name__} instead; e.g. fig, ax = matplotlib.pyplot.subplots(), or "
            f"leave it None to draw on a new figure."
        )


def label(model: str | None, text: str) -> str:
    """Legend label: ``"model (text)"``, or ``text`` alone for an unnamed model."""
    return text if model is None else f"{model} ({text})"


class Display:
    """What every display object of receval.plot shares: the artists of its last
    drawing (``ax_``, ``figure_``, ``lines_``), set by :meth:`start`. Each display is a
    dataclass of its numbers (keyword arguments)."""

    ax_: Any = None
    figure_: Any = None
    lines_: list[Any]

    def __post_init__(self) -> None:
        self.lines_ = []

    def start(self, ax: Any) -> Any:
        """``ax`` (a new figure's Axes when None), recorded as this drawing's, with
        no line drawn yet."""
        check_ax(ax, f"{type(self).__name__}.plot")
        if ax is None:
            try:
                import matplotlib.pyplot as plt
            except ImportError as exc:
                raise ImportError(_MISSING) from exc
            _, ax = plt.subplots()
        self.ax_, self.figure_, self.lines_ = ax, ax.figure, []
        return ax
