"""The ranking kernel's code of each metric of :func:`receval.evaluate`: which kernel
of the compiled core computes it. A metric's code is the one named after it in upper
case (``precision``: ``receval._core.PRECISION``) unless it is computed by another
metric's kernel (:data:`SHARED`: ``map`` by ``AP``'s).

The metric registry's rows (:mod:`receval.registry.ranking`) and trec_eval's table of
measures (:mod:`receval.registry.trec_eval`, which ``receval trec-eval`` loads without
the rest of the registry) both read the codes here; this module imports nothing else.
"""

from __future__ import annotations

from .._kernels import codes

__all__ = ["SHARED", "kind_of"]

#: The metrics computed by another metric's kernel: each to the name of that kernel's
#: code (the geometric means, ``iprec`` of one recall level, the pooled hit ratio).
SHARED: dict[str, str] = {
    "pooled_hit_ratio": "HIT_RATIO", "map": "AP", "gm_map": "AP", "mrr": "RR",
    "gm_bpref": "BPREF", "iprec": "IPREC_AT_RECALL", "hits": "NUM_REL_RET",
}  # fmt: skip


def kind_of(metric: str) -> int:
    """The ranking kernel's code of a metric of :func:`receval.evaluate`.

    Parameters
    ----------
    metric : str
        The metric's canonical name (``"precision"``, ``"map"``), without
        parameters or cut-off.

    Returns
    -------
    int
        Its code among ``receval._core.RANKING_KINDS``.

    Raises
    ------
    AttributeError
        The compiled core has no kernel of that name.

    Examples
    --------
    >>> from receval._kernels import codes
    >>> from receval.registry.kinds import kind_of
    >>> kind_of("ndcg") == codes().NDCG, kind_of("map") == codes().AP
    (True, True)
    """
    code: int = getattr(codes(), SHARED.get(metric, metric.upper()))
    return code
