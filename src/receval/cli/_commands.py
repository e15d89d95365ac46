"""The commands of ``receval``: each one's name, module and one-line summary, as data.

``receval --help`` lists the commands from this table without loading a
command's module (:class:`receval.cli._params.Group`); each command's own help
page starts with the same summary (:class:`receval.cli._params.Command`).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["COMMANDS", "CommandEntry"]


class CommandEntry(NamedTuple):
    """A command's module (in :mod:`receval.cli`), the sentence that sums it up, and the
    options that take its files (``files``): for a command given its files as
    arguments, the options they go to in the order written (``ordered``; the last
    one takes the rest when it may be repeated), else the options to name."""

    module: str
    summary: str
    files: tuple[str, ...] = ()
    ordered: bool = True


#: Every command, in the order ``receval --help`` lists them.
COMMANDS: dict[str, CommandEntry] = {
    "compare": CommandEntry(
        "_compare",
        "Compare runs (--qrels, --run) or CTR models (--impressions, --score) with paired tests.",
        files=("--qrels", "--run"),
    ),
    "gate": CommandEntry(
        "_gate",
        "Gate candidates against baselines: exit 0 if all pass, 1 if one fails, 2 on bad input.",
        files=("--qrels", "--impressions", "--candidate", "--baseline", "--config"),
        ordered=False,
    ),
    "ctr": CommandEntry(
        "_ctr", "Pointwise CTR metrics (AUC, GAUC, log loss, PCOC, ...) of score columns."
    ),
    "rank": CommandEntry(
        "_rank",
        "Top-K ranking metrics of one or more runs against qrels (receval.evaluate).",
        files=("--qrels", "--run"),
    ),
    "retrieve": CommandEntry(
        "_retrieve",
        "Each user's exact top k items by inner product (or cosine) of embeddings "
        "(receval.retrieve), written as a run file.",
        files=("--users", "--items", "--output"),
    ),
    "report": CommandEntry(
        "_report",
        "Write an HTML report: metric tables and figures of CTR models, runs and retention.",
        files=("--qrels", "--run", "--impressions", "--events", "--out"),
        ordered=False,
    ),
    "demo": CommandEntry(
        "_report",
        "Evaluate CTR models, recommenders and retention on bundled sample data.",
        files=("--out",),
    ),
    "retention": CommandEntry(
        "_retention",
        "New, login and returning users and day-N cohort retention (receval.retention).",
    ),
    "off-policy": CommandEntry(
        "_offpolicy",
        "Off-policy estimates of a target policy's value from logged feedback (IPS, SNIPS, DR).",
    ),
    "trec-eval": CommandEntry(
        "_trec_eval", "trec_eval 10.0's options and output, byte for byte (see -h)."
    ),
    "metrics": CommandEntry(
        "_metrics",
        "Every metric receval computes: names, aliases, definition; NAME shows one in full.",
    ),
    "split": CommandEntry(
        "_split", "Split an interaction log into train and test files (receval.split)."
    ),
    "audit": CommandEntry(
        "_audit",
        "Check an evaluation protocol: its split, its test set and a run (receval.audit).",
        files=("--train", "--test", "--run"),
    ),
}
