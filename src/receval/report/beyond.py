"""The "beyond accuracy" section of the HTML report: popularity bias, exposure, the long tail."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Any

__all__ = ["beyond_records", "beyond_section"]

#: ``progress(text)``: a context manager around each slow step of a section
#: (e.g. a spinner saying ``text``); the sections run without one by default.
Progress = Callable[[str], AbstractContextManager[Any]]


def step(progress: Progress | None, text: str) -> AbstractContextManager[Any]:
    """``progress(text)``, or nothing to do without ``progress``."""
    return nullcontext() if progress is None else progress(text)


def beyond_records(
    runs: Mapping[str, Any],
    *,
    popularity: Any = None,
    train: Any = None,
    qrels: Any = None,
    k: int = 10,
) -> list[dict[str, Any]]:
    """One record per run: the popularity-bias and concentration metrics at ``k``.

    ``arp``, ``aplt``, ``aclt``, RecBole's ``average_popularity`` and
    ``tail_percentage``, ``item_coverage``, ``shannon_entropy``,
    ``distributional_coverage`` and ``gini_index`` of the top-``k`` lists;
    with ``train``, PopRSP and (with ``qrels`` too) PopREO.
    """
    import receval as rv

    from ..metrics.beyond.popularity import known_item_coverage

    pop = {"popularity": popularity, "train": train}
    out = []
    for name, run in runs.items():
        record: dict[str, Any] = {"run": name}
        record[f"arp@{k}"] = float(rv.average_recommendation_popularity(run, k=k, **pop))
        record[f"aplt@{k}"] = float(rv.average_percentage_long_tail(run, k=k, **pop))
        record[f"aclt@{k}"] = float(rv.average_coverage_long_tail(run, k=k, **pop))
        record[f"average_popularity@{k}"] = float(rv.average_popularity(run, k=k, **pop))
        record[f"tail_percentage@{k}"] = float(rv.tail_percentage(run, k=k, **pop))
        if train is not None:
            record[f"pop_rsp@{k}"] = rv.popularity_statistical_parity(run, train=train, k=k)
            if qrels is not None:
                record[f"pop_reo@{k}"] = rv.popularity_equal_opportunity(
                    qrels, run, train=train, k=k
                )
        record[f"item_coverage@{k}"] = known_item_coverage(run, popularity, train, k, "report")
        record[f"shannon_entropy@{k}"] = rv.shannon_entropy(run, k=k)
        record[f"distributional_coverage@{k}"] = rv.distributional_coverage(run, k=k)
        record[f"gini_index@{k}"] = rv.gini_index(run, k=k)
        out.append(record)
    return out


def beyond_section(
    doc: Any,
    runs: Mapping[str, Any],
    *,
    popularity: Any = None,
    train: Any = None,
    qrels: Any = None,
    item_groups: Any = None,
    k: int = 10,
    figures: bool = True,
    progress: Progress | None = None,
) -> None:
    """Add the "beyond accuracy" section: popularity bias, exposure by item group, long tail.

    Parameters
    ----------
    doc : HTMLReport
        The report to add to.
    runs : mapping of str to Run
        The runs, by name.
    popularity, train : default=None
        The items' popularity (as for
        :func:`receval.average_recommendation_popularity`): the popularity
        table and the long-tail plot need one of them.
    qrels : Qrels, default=None
        With ``train``, adds PopREO.
    item_groups : mapping or pair (items, groups), default=None
        The group of each item (provider, category): adds each group's
        expected exposure per run (:func:`receval.group_exposure`).
    k : int, default=10
        Depth of the lists.
    figures : bool, default=True
        Whether to draw the long-tail plot (Plotly's when ``doc.interactive``,
        else matplotlib's).
    progress : callable, default=None
        ``progress(text)`` returns a context manager around each slow step.

    Examples
    --------
    >>> from receval.report import HTMLReport, beyond_section
    >>> doc = HTMLReport("Runs")
    >>> runs = {"a": {"u": {"x": 0.9, "y": 0.5}}, "b": {"u": {"z": 0.9, "y": 0.1}}}
    >>> beyond_section(doc, runs, popularity={"x": 9, "y": 3, "z": 1}, k=2, figures=False)
    >>> "Beyond accuracy" in doc.to_html() and "arp@2" in doc.to_html()
    True
    """
    import receval as rv

    popular = popularity is not None or train is not None
    doc.add_heading("Beyond accuracy")
    if popular:
        doc.add_text(
            f"Popularity bias and concentration of the top-{k} lists: ARP (mean popularity), "
            "APLT and ACLT (share and number of long-tail items; the head holds 80% of the "
            "interactions), PopRSP and PopREO (how unequally head and tail items are "
            "recommended; 0 is parity), item coverage, Shannon entropy, distributional "
            "coverage and the Gini index of exposure."
        )
        with step(progress, "Computing popularity bias"):
            records = beyond_records(runs, popularity=popularity, train=train, qrels=qrels, k=k)
        doc.add_table(records, caption="Popularity bias, one row per run")
    if item_groups is not None:
        rows = []
        with step(progress, "Computing exposure by item group"):
            for name, run in runs.items():
                report = rv.group_exposure(run, item_groups=item_groups, k=k)
                for j, group in enumerate(report.groups.tolist()):
                    rows.append(
                        {"run": name, "group": group, "exposure": report.exposure[j],
                         "share": report.share[j], "n_items": int(report.n_items[j]),
                         "exposure_per_item": report.exposure_per_item[j]}
                    )  # fmt: skip
                rows.append(
                    {"run": name, "group": "(disparity)", "max_min_ratio": report.max_min_ratio,
                     "gini": report.gini}
                )  # fmt: skip
        doc.add_text(
            "Expected exposure of each item group (RBP patience 0.5), its share, and the "
            "exposure per item of the group; the disparity rows give the largest over the "
            "smallest exposure per item and their Gini index (0: parity of exposure)."
        )
        doc.add_table(rows, caption="Exposure by item group")
    if figures and popular:
        caption = (
            f"Long tail: cumulative share of interactions and of each run's top-{k} slots, "
            "items by popularity"
        )
        with step(progress, "Drawing the long tail"):
            if doc.interactive:
                from ..plot._popularity import long_tail_curves
                from .interactive import long_tail_figure

                curves = long_tail_curves(dict(runs), popularity=popularity, train=train, k=k)
                doc.add_plotly(long_tail_figure(curves), caption=caption)
            else:
                from ..plot import long_tail
                from .figures import new_axes

                ax = new_axes(figsize=(7.0, 4.5))
                long_tail(dict(runs), popularity=popularity, train=train, k=k, ax=ax)
                doc.add_figure(ax, caption=caption)
