"""The long-tail plot: how a run spreads its recommendations over popular and rare items."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._base import Display, as_models, check_ax
from ._ranking import is_run_dict

__all__ = ["LongTailDisplay", "long_tail", "long_tail_curves"]


def long_tail_curves(
    runs: Any,
    *,
    popularity: Any = None,
    train: Any = None,
    k: int | None = 10,
    head_share: float = 0.8,
) -> dict[str, Any]:
    """The numbers of :func:`long_tail`: items by popularity and each run's cumulative share.

    Returns
    -------
    curves : dict
        ``x`` the items' popularity rank as a share of the items (items the
        popularity does not know come last, at popularity 0),
        ``interactions`` the cumulative share of the popularity, ``runs`` a
        dict of name to the cumulative share of the top-``k`` slots given to
        the items up to that rank, and ``head`` the share of items in the
        head (the shortest prefix holding ``head_share`` of the popularity, as
        the popularity-bias metrics split it).
    """
    import numpy as np

    from ..data._lookup import lookup
    from ..metrics.beyond.lists import as_run, check_k, item_exposure
    from ..metrics.beyond.popularity_table import as_popularity, check_head_share

    func = "long_tail"
    table = as_popularity(popularity, train, func)
    share = check_head_share(head_share, func)
    depth = check_k(k, func)
    models = as_models(runs, "runs", func, is_run_dict)
    named = [(name or "run", as_run(run, func)) for name, run in models]
    # every item: the popularity's, then recommended items it does not know (popularity 0)
    recommended = (item for _, r in named for item in r.item_ids.tolist())
    ids = list(dict.fromkeys([*table.item_ids.tolist(), *recommended]))
    counts = np.zeros(len(ids), dtype=np.float64)
    counts[: table.n_items] = table.counts
    order = np.argsort(-counts, kind="stable")
    all_ids = np.asarray(ids, dtype=object)[order]
    total = counts.sum()
    x = np.arange(1, len(ids) + 1) / max(len(ids), 1)
    interactions = np.cumsum(counts[order]) / total if total > 0 else np.zeros(len(ids))
    curves: dict[str, np.ndarray] = {}
    for name, r in named:
        exposure = item_exposure(r, depth).astype(np.float64)
        slots = np.zeros(len(ids), dtype=np.float64)
        pos = lookup(r.item_ids, all_ids)
        np.add.at(slots, pos[pos >= 0], exposure[pos >= 0])
        shown = slots.sum()
        curves[name] = np.cumsum(slots) / shown if shown > 0 else np.zeros(len(ids))
    head = table.head(share)
    return {
        "x": x,
        "interactions": interactions,
        "runs": curves,
        "head": float(head.sum()) / max(len(ids), 1),
    }


def long_tail(
    runs: Any,
    *,
    popularity: Any = None,
    train: Any = None,
    k: int | None = 10,
    head_share: float = 0.8,
    ax: Any = None,
) -> Any:
    """Plot the long tail: cumulative share of interactions and of each run's recommendations.

    Items are sorted by popularity (most popular first) along x, as a share
    of all items; the black line is the cumulative share of the interactions
    (the popularity), each other line the cumulative share of a run's top-``k``
    slots that go to the items up to that rank. A run far above the black line
    in the head concentrates on popular items; the dotted line marks the end
    of the head (``head_share`` of the interactions, as the popularity-bias
    metrics split head and tail).

    Parameters
    ----------
    runs : Run, dict, DataFrame or path, or dict of str to those
        One run, or ``{model name: run}`` (as for :func:`metric_at_k`).
    popularity, train : default=None
        The items' popularity, as for
        :func:`receval.average_recommendation_popularity`: exactly one.
    k : int, default=10
        Depth of each list (None: the whole list).
    head_share : float, default=0.8
        Share of the interactions that the head holds.
    ax : matplotlib Axes, default=None
        Where to draw; a new figure when None.

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from receval.plot import long_tail
    >>> runs = {"popular": {"u": {"a": 0.9, "b": 0.5}}, "rare": {"u": {"c": 0.9, "d": 0.5}}}
    >>> ax = long_tail(runs, popularity={"a": 10, "b": 5, "c": 1, "d": 1}, k=2)
    >>> [line.get_label() for line in ax.get_lines()][:3]
    ['interactions', 'popular', 'rare']
    """
    check_ax(ax, "long_tail")
    return LongTailDisplay.from_runs(
        runs, popularity=popularity, train=train, k=k, head_share=head_share, ax=ax
    ).ax_


@dataclass(kw_only=True, eq=False, repr=False)
class LongTailDisplay(Display):
    """The long-tail curves of :func:`long_tail_curves`, kept with their drawing: the
    display behind :func:`long_tail`.

    Parameters
    ----------
    curves : dict
        :func:`long_tail_curves`' result: ``x``, ``interactions``, ``runs``
        (per run name) and ``head``.

    Attributes
    ----------
    ax_, figure_ : matplotlib Axes and Figure
        Where the last :meth:`plot` drew.
    lines_ : list of matplotlib Line2D
        The interactions' line, then one line per run.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from receval.plot import LongTailDisplay
    >>> runs = {"popular": {"u": {"a": 0.9, "b": 0.5}}, "rare": {"u": {"c": 0.9, "d": 0.5}}}
    >>> d = LongTailDisplay.from_runs(runs, popularity={"a": 10, "b": 5, "c": 1, "d": 1}, k=2)
    >>> sorted(d.curves["runs"]), len(d.lines_)
    (['popular', 'rare'], 3)
    """

    curves: dict[str, Any]

    @classmethod
    def from_runs(
        cls,
        runs: Any,
        *,
        popularity: Any = None,
        train: Any = None,
        k: int | None = 10,
        head_share: float = 0.8,
        ax: Any = None,
    ) -> LongTailDisplay:
        """The curves of ``runs`` (:func:`long_tail_curves`), drawn on ``ax``; the
        parameters are :func:`long_tail`'s."""
        check_ax(ax, "LongTailDisplay.from_runs")
        curves = long_tail_curves(runs, popularity=popularity, train=train, k=k,
                                  head_share=head_share)  # fmt: skip
        return cls(curves=curves).plot(ax=ax)

    def plot(self, ax: Any = None) -> LongTailDisplay:
        """Draw the interactions' curve, each run's and the end of the head on ``ax``
        (a new figure when None).

        Returns
        -------
        display : LongTailDisplay
            Itself, with ``ax_``, ``figure_`` and ``lines_`` set.
        """
        import numpy as np

        ax = self.start(ax)
        curves = self.curves
        x = np.concatenate([[0.0], curves["x"]])
        self.lines_ = list(ax.plot(x, np.concatenate([[0.0], curves["interactions"]]),
                                   color="black", label="interactions"))  # fmt: skip
        for name, y in curves["runs"].items():
            self.lines_.extend(ax.plot(x, np.concatenate([[0.0], y]), label=name))
        ax.axvline(curves["head"], color="grey", linestyle=":", label="end of the head")
        ax.set(xlabel="items by popularity (share of items)", ylabel="cumulative share",
               xlim=(0.0, 1.0), ylim=(0.0, 1.02))  # fmt: skip
        ax.legend(loc="lower right")
        return self
