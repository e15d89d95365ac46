"""Figures of the HTML report: new Axes that pyplot does not track."""

from __future__ import annotations

from typing import Any

__all__ = ["new_axes"]


def new_axes(*, figsize: tuple[float, float] = (6.0, 4.5)) -> Any:
    """Create the Axes of a new figure that pyplot does not track.

    The figure has no GUI backend and needs no ``plt.close``: it is freed
    with its last reference. Use it to draw report figures from scripts and
    servers without touching pyplot's global state.

    Parameters
    ----------
    figsize : tuple of float, default=(6.0, 4.5)
        Width and height of the figure in inches.

    Returns
    -------
    ax : matplotlib Axes
        The only Axes of a new figure with the constrained layout.

    Raises
    ------
    ImportError
        matplotlib is not installed.

    Examples
    --------
    >>> from receval.report import new_axes
    >>> ax = new_axes(figsize=(4, 3))
    >>> ax.figure.get_size_inches().tolist()
    [4.0, 3.0]
    """
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(
            "receval.report needs matplotlib for figures; pip install 'receval[plot]'."
        ) from exc
    return Figure(figsize=figsize, layout="constrained").add_subplot()
