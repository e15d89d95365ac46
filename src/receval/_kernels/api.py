"""The kernels the Python layer calls, by name: from the compiled core where they
are ported, from numba otherwise (or with ``RECEVAL_KERNELS=numba``).

Each name is resolved on first use, so importing this module imports neither
numba nor the core:

==========================  ==============================  ======================
name                        what                            numba twin
==========================  ==============================  ======================
``exact_sum(x, n_chunks,    fixed-point accumulator of      ``_sums._exact_sum``
carry_every)``              ``sum(x)``
``exact_dot(x, w, ...)``    of ``sum(x * w)``               ``_sums._exact_dot``
``normalize(acc)``          carries the digits in place     ``_sums._normalize``
``binary_log_loss_exact``   of the clipped log losses       ``_sums._binary_log_loss_exact``
``split_by_label``          scores of positives, negatives  ``_auc._split_by_label``
``split_by_label_weighted`` the same with weights           ``_auc._split_by_label_weighted``
``pair_count_sorted``       twice the Mann-Whitney U        ``_auc._pair_count_sorted``
``pair_weight_sorted``      the weighted U                  ``_auc._pair_weight_sorted``
``threshold_counts_sorted`` ROC/PR counts per threshold     ``_auc._threshold_counts_sorted``
``group_counts``            rows, positives per group       ``_gauc._group_counts``
``gather_minority``         minority scores per group       ``_gauc._gather_minority``
``sort_segments``           sorts each group's segment      ``_gauc._sort_segments``
``stream_pair_counts``      per-group 2U                    ``_gauc._stream_pair_counts``
``weighted_group_aucs``     per-group weighted U, weights   ``_gauc._weighted_group_aucs``
``factorize_dense``         int ids to first-seen codes     ``_encode._factorize_dense``
``factorize_dense_sorted``  int ids to ascending codes      ``_encode._factorize_dense_sorted``
``runs``                    runs of equal neighbours        ``_encode._runs``
``add_histogram``           rows per score bucket           ``_streaming._add_histogram``
``gather``                  the rows of a bucket range      ``_streaming._gather``
``sign_flip_sums(x, b,      signed sums of b random sign    ``_stats._sign_flip_sums``
seed, n_chunks)``           vectors of the users
``bootstrap_means(x, wm,    weighted column means of b      ``_stats._bootstrap_means``
b, seed, n_chunks)``        resamples of the users
``flip_tables``             sums of a byte's sign patterns  ``_stats._flip_tables``
``draw_block``              a stream's draws in [0, n)      ``_stats._draw_block``
``seed_key``                a seed's key for one use        ``_stats._seed_key``
``stream_start``            replicate b's stream state      ``_stats._stream_start``
``stream_word``             word t of a stream              ``_stats._stream_word``
``mix64``                   SplitMix64's output function    ``_stats._mix64``
``evaluate_users``          every top-K metric of every     ``_topk.evaluate_users``
                            user (the core takes no
                            ``slots``)
``user_metric``             one metric of one user, every   ``_topk._user_metric``
                            position (``ties='average'``)
``metric_from_hits``        one metric from the hit ranks   ``_topk._metric_from_hits``
``idcg``                    the ideal DCG                   ``_topk._idcg``
``expected_first_hit``      first-hit law of a tied block   ``_topk._expected_first_hit``
``trec_order``              tie-break permutation by id     ``_topk._trec_order``
``lookup``                  position in a sorted segment    ``_topk._lookup``
``judged_segments``         qrels CSR: items, grades, the   ``_ranked_csr._judged_segments``
                            grades descending
``tie_segments``            segments holding a tie          ``_ranked_csr._tie_segments``
``is_grouped``              codes already grouped           ``_ranked_csr._is_grouped``
``offsets_of_sorted``       CSR offsets of grouped codes    ``_ranked_csr._offsets_of_sorted``
``group_rows``              counting sort of rows by code   ``_ranked_csr._group_rows``
``stable_sort_desc``        exact stable descending sort    ``_ranked_csr._stable_sort_desc``
``packed_sort_desc``        its packed fast path            ``_ranked_csr._packed_sort_desc``
``build_ranked``            run CSR: ranked lists           ``_ranked_csr._build_ranked``
``first_duplicate_segment`` first list with a repeat        ``_ranked_csr._first_duplicate_segment``
``pack_keys``               packed u64 sort keys            ``_ranked_csr._pack_keys``
``unpack_ranked``           decodes them                    ``_ranked_csr._unpack_ranked``
``unpack_grouped``          decodes them in place           ``_ranked_csr._unpack_grouped``
``pack_block``              packs a block of segments       ``_ranked_csr._pack_block``
``unpack_block``            decodes a block                 ``_ranked_csr._unpack_block``
``redo_segments``           exact re-sort of segments       ``_ranked_csr._redo_segments``
``item_counts_csr``         lists holding each item         ``_lists._item_counts_csr``
``gini_sorted``             Gini index of sorted counts     ``_lists._gini_sorted``
``inverse_norms``           inverse norms of feature rows   ``_lists._inverse_norms``
``intra_list_similarity_``  per-user ILS from features      ``_lists._intra_list_similarity_csr``
``csr``
``intra_list_similarity_``  per-user ILS from a similarity  ``_lists._intra_list_``
``matrix_csr``              matrix                          ``similarity_matrix_csr``
``pair_keys_csr``           co-listed pairs of each user    ``_lists._pair_keys_csr``
``pair_means_csr``          mean of each user's pair values ``_lists._pair_means_csr``
``personalization_csr``     sum of cosines of user pairs    ``_lists._personalization_csr``
``distinct_users_per_item`` distinct users of each item     ``_lists._distinct_users_per_item``
``list_means_csr``          per-user mean of item values    ``_lists._list_means_csr``
``periods_of_instants``     period index of timestamps      ``_retention._periods_of_instants``
``signup_per_user``         each user's signup second       ``_retention._signup_per_user``
``events_before_signup``    events before their signup      ``_retention._events_before_signup``
``activity_bitsets``        active periods per user (bits)  ``_retention._activity_bitsets``
``accumulate_bitsets``      cohort counts from the bits     ``_retention._accumulate_bitsets``
``periods_by_user``         active periods per user (CSR)   ``_retention._periods_by_user``
``accumulate_csr``          cohort counts from the CSR      ``_retention._accumulate_csr``
==========================  ==============================  ======================

The core's ``rank_rows`` (every run list ranked in one call, in place where the
caller allows) has no numba twin: it replaces the packed-sort driver of
:mod:`receval.data._ranked`, and its output is that of ``_build_ranked``. Nor
have the kernels of columns read chunk by chunk (:mod:`receval.data._columns`):
``shift_ids``, ``dense_codes_in_place`` and ``rank_rows_into``; with the numba
kernels those columns are read whole.
"""

from __future__ import annotations

import importlib
from typing import Any

from . import compiled

__all__ = ["NUMBA", "numba_kernel"]  # and every name of NUMBA, resolved on first use

# name -> (numba module, numba name)
NUMBA: dict[str, tuple[str, str]] = {
    "SIZE": ("_sums", "SIZE"),
    "N_LIMBS": ("_sums", "N_LIMBS"),
    "NAN": ("_sums", "NAN"),
    "POS_INF": ("_sums", "POS_INF"),
    "NEG_INF": ("_sums", "NEG_INF"),
    "exact_sum": ("_sums", "_exact_sum"),
    "exact_dot": ("_sums", "_exact_dot"),
    "normalize": ("_sums", "_normalize"),
    "binary_log_loss_exact": ("_sums", "_binary_log_loss_exact"),
    "split_by_label": ("_auc", "_split_by_label"),
    "split_by_label_weighted": ("_auc", "_split_by_label_weighted"),
    "pair_count_sorted": ("_auc", "_pair_count_sorted"),
    "pair_weight_sorted": ("_auc", "_pair_weight_sorted"),
    "threshold_counts_sorted": ("_auc", "_threshold_counts_sorted"),
    "threshold_counts_sorted_weighted": ("_auc", "_threshold_counts_sorted_weighted"),
    "group_counts": ("_gauc", "_group_counts"),
    "gather_minority": ("_gauc", "_gather_minority"),
    "sort_segments": ("_gauc", "_sort_segments"),
    "stream_pair_counts": ("_gauc", "_stream_pair_counts"),
    "weighted_group_aucs": ("_gauc", "_weighted_group_aucs"),
    "factorize_dense": ("_encode", "_factorize_dense"),
    "factorize_dense_sorted": ("_encode", "_factorize_dense_sorted"),
    "runs": ("_encode", "_runs"),
    "add_histogram": ("_streaming", "_add_histogram"),
    "gather": ("_streaming", "gather"),
    "FLIPS": ("_stats", "_FLIPS"),
    "RESAMPLES": ("_stats", "_RESAMPLES"),
    "mix64": ("_stats", "_mix64"),
    "seed_key": ("_stats", "_seed_key"),
    "stream_start": ("_stats", "_stream_start"),
    "stream_word": ("_stats", "_stream_word"),
    "draw_block": ("_stats", "_draw_block"),
    "flip_tables": ("_stats", "_flip_tables"),
    "sign_flip_sums": ("_stats", "_sign_flip_sums"),
    "bootstrap_means": ("_stats", "_bootstrap_means"),
    "evaluate_users": ("_topk", "evaluate_users"),
    "user_metric": ("_topk", "_user_metric"),
    "metric_from_hits": ("_topk", "_metric_from_hits"),
    "idcg": ("_topk", "_idcg"),
    "expected_first_hit": ("_topk", "_expected_first_hit"),
    "trec_order": ("_topk", "_trec_order"),
    "lookup": ("_topk", "_lookup"),
    "judged_segments": ("_ranked_csr", "_judged_segments"),
    "tie_segments": ("_ranked_csr", "_tie_segments"),
    "is_grouped": ("_ranked_csr", "_is_grouped"),
    "offsets_of_sorted": ("_ranked_csr", "_offsets_of_sorted"),
    "group_rows": ("_ranked_csr", "_group_rows"),
    "stable_sort_desc": ("_ranked_csr", "_stable_sort_desc"),
    "packed_sort_desc": ("_ranked_csr", "_packed_sort_desc"),
    "build_ranked": ("_ranked_csr", "_build_ranked"),
    "first_duplicate_segment": ("_ranked_csr", "_first_duplicate_segment"),
    "pack_keys": ("_ranked_csr", "_pack_keys"),
    "unpack_ranked": ("_ranked_csr", "_unpack_ranked"),
    "unpack_grouped": ("_ranked_csr", "_unpack_grouped"),
    "pack_block": ("_ranked_csr", "_pack_block"),
    "unpack_block": ("_ranked_csr", "_unpack_block"),
    "redo_segments": ("_ranked_csr", "_redo_segments"),
    "PAIRWISE_MAX": ("_lists", "PAIRWISE_MAX"),
    "item_counts_csr": ("_lists", "_item_counts_csr"),
    "gini_sorted": ("_lists", "_gini_sorted"),
    "inverse_norms": ("_lists", "_inverse_norms"),
    "intra_list_similarity_csr": ("_lists", "_intra_list_similarity_csr"),
    "intra_list_similarity_matrix_csr": ("_lists", "_intra_list_similarity_matrix_csr"),
    "pair_keys_csr": ("_lists", "_pair_keys_csr"),
    "pair_means_csr": ("_lists", "_pair_means_csr"),
    "personalization_csr": ("_lists", "_personalization_csr"),
    "distinct_users_per_item": ("_lists", "_distinct_users_per_item"),
    "list_means_csr": ("_lists", "_list_means_csr"),
    "BEFORE": ("_retention", "BEFORE"),
    "AFTER": ("_retention", "AFTER"),
    "NO_SIGNUP": ("_retention", "NO_SIGNUP"),
    "periods_of_instants": ("_retention", "_periods_of_instants"),
    "signup_per_user": ("_retention", "_signup_per_user"),
    "events_before_signup": ("_retention", "_events_before_signup"),
    "activity_bitsets": ("_retention", "_activity_bitsets"),
    "accumulate_bitsets": ("_retention", "_accumulate_bitsets"),
    "periods_by_user": ("_retention", "_periods_by_user"),
    "accumulate_csr": ("_retention", "_accumulate_csr"),
}


def numba_kernel(name: str) -> Any:
    """The numba implementation of a ported kernel."""
    module, attr = NUMBA[name]
    return getattr(importlib.import_module(f"{__package__}.{module}"), attr)


def __getattr__(name: str) -> Any:
    if name not in NUMBA:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    core = compiled()
    value = getattr(core, name) if core is not None else numba_kernel(name)
    globals()[name] = value
    return value
