"""Shared helpers of receval.plot: model dicts, legend labels and the displays' base."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..exceptions import InvalidParameterError

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
