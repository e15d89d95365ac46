"""Types of the compiled core (the Rust crate in ``rust/``, built by maturin): the
``#[pyfunction]`` signatures of ``rust/src/python*.rs``; tests/test_typing.py checks
this file against the built module (``mypy.stubtest``)."""

import os
from collections.abc import Sequence
from typing import Any, final

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "ACLT",
    "AFTER",
    "AP",
    "APLT",
    "ARP",
    "AVERAGE_GAIN",
    "AVERAGE_POPULARITY",
    "BEFORE",
    "BIN_G",
    "BPREF",
    "CG",
    "DCG",
    "DIVERSITY",
    "EE_DISPARITY",
    "EE_LOSS",
    "EE_RELEVANCE",
    "ERR",
    "EXPOSURE_KINDS",
    "F1",
    "HISTORY_KINDS",
    "HIT_RATIO",
    "IDCG",
    "ILS",
    "INFAP",
    "IPREC_AT_RECALL",
    "IPREC_AVG",
    "JUDGED",
    "LIST_KINDS",
    "MAX_GAIN_PAIRS",
    "MISCALIBRATION",
    "NAN",
    "NDCG",
    "NDCG_REL",
    "NEG_INF",
    "NERR",
    "NO_SIGNUP",
    "NUM_NONREL_JUDGED_RET",
    "NUM_Q",
    "NUM_REL",
    "NUM_REL_RET",
    "NUM_RET",
    "N_LIMBS",
    "N_PARAMS",
    "PFOUND",
    "POPULARITY_KINDS",
    "POS_INF",
    "PRECISION",
    "RANKING_KINDS",
    "RBP",
    "RBP_RESID",
    "RECALL",
    "RELATIVE_PRECISION",
    "RPREC_MULT",
    "RR",
    "R_NDCG",
    "R_PRECISION",
    "SERENDIPITY",
    "SET_AP",
    "SET_F",
    "SET_PRECISION",
    "SET_RECALL",
    "SET_RELATIVE_PRECISION",
    "SIZE",
    "SUCCESS",
    "TAIL_PERCENTAGE",
    "TREC_KINDS",
    "UNJUDGED",
    "UTILITY",
    "AucRuns",
    "G",
    "IdCodes",
    "OpenGroups",
    "OpenRows",
    "RankingSpec",
    "accumulate_bitsets",
    "accumulate_csr",
    "activity_bitsets",
    "add_exact",
    "add_histogram",
    "ascii_text_at",
    "binary_log_loss_exact",
    "binned_gaps",
    "bootstrap_means",
    "canonical_integers",
    "dense_codes_in_place",
    "distinct_users_per_item",
    "evaluate_users",
    "events_before_signup",
    "exact_dot",
    "exact_group_sums",
    "exact_products",
    "exact_sum",
    "exact_sums",
    "factorize_byte_runs",
    "factorize_bytes",
    "factorize_dense",
    "factorize_str",
    "factorize_str_runs",
    "factorize_view_runs",
    "factorize_views",
    "factorize_words",
    "gather",
    "gauc_checked",
    "gauc_rows_checked",
    "gini_sorted",
    "group_counts",
    "group_cumsum",
    "group_rows",
    "history_cosine_means",
    "integer_texts",
    "intra_list_similarity_csr",
    "intra_list_similarity_matrix_csr",
    "inverse_norms",
    "is_grouped",
    "item_counts_csr",
    "judged_segments",
    "list_means_csr",
    "log_loss_checked",
    "lookup_bytes",
    "lookup_str",
    "lookup_words",
    "multiclass_log_loss_exact",
    "normalize",
    "num_threads",
    "offsets_of_sorted",
    "pair_aucs",
    "pair_count_sorted",
    "pair_keys_csr",
    "pair_means_csr",
    "periods_by_user",
    "periods_of_instants",
    "personalization_csr",
    "populate",
    "probability_bins",
    "range_end",
    "rank_rows",
    "rank_rows_into",
    "read_trec",
    "roc_auc_checked",
    "rounded_sum",
    "row_dots",
    "runs",
    "sampled_rank_law",
    "seen_rows",
    "shift_ids",
    "sign_flip_sums",
    "signup_per_user",
    "slow_compress_store",
    "sort_numbers",
    "split_by_label",
    "split_by_label_weighted",
    "split_counts",
    "str_ranks",
    "threads_setting_error",
    "threshold_counts_sorted",
    "threshold_counts_sorted_weighted",
    "tie_segments",
    "topk_finish",
    "topk_scan",
    "totals_checked",
    "trec_eval_table",
    "trec_rank_table",
    "used_categories",
    "weighted_group_aucs",
    "weighted_range",
    "xauc_distinct",
    "xauc_pairs_counted",
    "xauc_pairs_weighted",
]

#: why a checked call refuses its input: (kind, argument, row, count, values)
_Refusal = tuple[str, int, int, int, list[float]]

SIZE: int
N_LIMBS: int
NAN: int
POS_INF: int
NEG_INF: int
BEFORE: int
AFTER: int
NO_SIGNUP: int
# the ranking kernel's codes (rust/src/python/codes.rs)
ACLT: int
AP: int
APLT: int
ARP: int
AVERAGE_GAIN: int
AVERAGE_POPULARITY: int
BIN_G: int
BPREF: int
CG: int
DCG: int
DIVERSITY: int
EE_DISPARITY: int
EE_LOSS: int
EE_RELEVANCE: int
ERR: int
F1: int
G: int
HIT_RATIO: int
IDCG: int
ILS: int
INFAP: int
IPREC_AT_RECALL: int
IPREC_AVG: int
JUDGED: int
MAX_GAIN_PAIRS: int
MISCALIBRATION: int
NDCG: int
NDCG_REL: int
NERR: int
NUM_NONREL_JUDGED_RET: int
NUM_Q: int
NUM_REL: int
NUM_REL_RET: int
NUM_RET: int
N_PARAMS: int
PFOUND: int
PRECISION: int
RBP: int
RBP_RESID: int
RECALL: int
RELATIVE_PRECISION: int
RPREC_MULT: int
RR: int
R_NDCG: int
R_PRECISION: int
SERENDIPITY: int
SET_AP: int
SET_F: int
SET_PRECISION: int
SET_RECALL: int
SET_RELATIVE_PRECISION: int
SUCCESS: int
TAIL_PERCENTAGE: int
UNJUDGED: int
UTILITY: int
EXPOSURE_KINDS: tuple[int, ...]
HISTORY_KINDS: tuple[int, ...]
LIST_KINDS: tuple[int, ...]
POPULARITY_KINDS: tuple[int, ...]
RANKING_KINDS: tuple[int, ...]
TREC_KINDS: tuple[int, ...]

@final
class AucRuns:
    def __new__(cls, weighted: bool) -> AucRuns: ...
    @property
    def weighted(self) -> bool: ...
    @property
    def rounded(self) -> tuple[tuple[int, float] | None, tuple[int, float] | None]: ...
    @property
    def entries(self) -> int: ...
    @property
    def nbytes(self) -> int: ...
    def add(
        self,
        labels: NDArray[np.int8],
        scores: NDArray[np.float64],
        weights: NDArray[np.float64] | None = None,
    ) -> None: ...
    def add_checked(self, y_true: Any, y_score: Any) -> bool | _Refusal: ...
    def scale_down(self, by: int) -> None: ...
    def absorb(self, other: AucRuns) -> None: ...
    def copy(self) -> AucRuns: ...
    def compact(self) -> None: ...
    def auc(self) -> float: ...
    def table(
        self,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], int]: ...
    def exact_arrays(
        self,
    ) -> tuple[
        NDArray[np.float64],
        NDArray[Any],
        NDArray[Any],
        tuple[int, int],
        tuple[tuple[int | None, int], tuple[int | None, int]],
    ]: ...
    @staticmethod
    def from_rows(
        scores: NDArray[np.float64], pos: NDArray[np.int64], neg: NDArray[np.int64]
    ) -> AucRuns: ...
    @staticmethod
    def from_weights(
        scores: NDArray[np.float64],
        pos: NDArray[np.uint64],
        neg: NDArray[np.uint64],
        quantum: tuple[int, int],
        rounding: tuple[tuple[int | None, int], tuple[int | None, int]],
    ) -> AucRuns: ...

def accumulate_bitsets(
    bits: NDArray[np.uint64],
    n_words: int,
    cohort: NDArray[np.int32],
    n_periods: int,
    drop_before: bool,
    n_parts: int,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]: ...
def accumulate_csr(
    offsets: NDArray[np.int64],
    values: NDArray[np.int32],
    cohort: NDArray[np.int32],
    n_periods: int,
    drop_before: bool,
    n_parts: int,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]: ...
def activity_bitsets(
    codes: NDArray[np.int32], periods: NDArray[np.int32], n_users: int, n_words: int, n_parts: int
) -> NDArray[np.uint64]: ...
def add_exact(a: list[NDArray[np.int64]], b: list[NDArray[np.int64]]) -> NDArray[np.int64]: ...
def add_histogram(
    scores: NDArray[np.float64],
    labels: NDArray[np.int8],
    shift: int,
    neg: NDArray[np.int64],
    pos: NDArray[np.int64],
) -> None: ...
def tie_segments(
    scores: NDArray[np.float64], offsets: NDArray[np.int64], single: bool
) -> NDArray[np.int64]: ...
def seen_rows(
    offsets: NDArray[np.int64],
    items: NDArray[np.int32],
    user_map: NDArray[np.int32],
    item_map: NDArray[np.int32],
    seen_offsets: NDArray[np.int64],
    seen_items: NDArray[np.int32],
) -> tuple[NDArray[np.bool_], NDArray[np.int64]]: ...
def split_counts(
    users: NDArray[np.int32],
    n_users: int,
    items: NDArray[np.int32] | None,
    n_items: int,
    train: NDArray[np.bool_],
    test: NDArray[np.bool_],
) -> list[int]: ...
def ascii_text_at() -> int | None: ...
def binary_log_loss_exact(
    labels: NDArray[np.int8],
    proba: NDArray[np.float64],
    weights: NDArray[np.float64],
    eps: float,
    n_chunks: int,
    carry_every: int = ...,
) -> NDArray[np.int64]: ...
def binned_gaps(
    labels: NDArray[np.int8],
    proba: NDArray[np.float64],
    weights: NDArray[np.float64],
    edges: NDArray[np.float64],
    upper: bool,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]: ...
def probability_bins(
    proba: NDArray[np.float64], edges: NDArray[np.float64], upper: bool
) -> NDArray[np.int64]: ...
def bootstrap_means(
    x: NDArray[np.float64], wm: NDArray[np.float64], n_resamples: int, seed: Any, n_chunks: int
) -> NDArray[np.float64]: ...
def dense_codes_in_place(
    codes: NDArray[np.int32], base: int, span: int, anchor: int, ascending: bool, n_chunks: int
) -> NDArray[np.int64]: ...
def distinct_users_per_item(
    user_codes: NDArray[np.int32], item_codes: NDArray[np.int32], n_users: int, n_items: int
) -> NDArray[np.int64]: ...

@final
class RankingSpec:
    def __new__(
        cls,
        kind: int,
        k: int = 0,
        threshold: float = 0.0,
        gain_threshold: float | None = None,
        params: Sequence[float] = ...,
        **conventions: str | int | bool | None,
    ) -> RankingSpec: ...

def evaluate_users(
    q_offsets: NDArray[np.int64],
    q_items: NDArray[np.int32],
    q_grades: NDArray[np.float64],
    q_desc: NDArray[np.float64],
    r_offsets: NDArray[np.int64],
    r_items: NDArray[np.int32],
    r_scores: NDArray[np.float64],
    r_keys: NDArray[np.float64],
    item_map: NDArray[np.int32],
    user_map: NDArray[np.int32],
    specs: Sequence[RankingSpec],
    max_len: int,
    n_chunks: int,
    disc: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...
def events_before_signup(
    codes: NDArray[np.int32],
    values: NDArray[np.int64],
    divisor: int,
    signup_seconds: NDArray[np.int64],
    has_signup: NDArray[np.bool_],
    n_chunks: int,
) -> tuple[int, NDArray[np.bool_], int]: ...
def exact_dot(
    x: NDArray[np.float64], w: NDArray[np.float64], n_chunks: int, carry_every: int = ...
) -> NDArray[np.int64]: ...
def exact_products(
    x: NDArray[np.float64],
    y: NDArray[np.float64],
    w: NDArray[np.float64] | None,
    n_chunks: int,
    carry_every: int = ...,
) -> tuple[NDArray[np.int64], float]: ...
def exact_sum(
    x: NDArray[np.float64], n_chunks: int, carry_every: int = ...
) -> NDArray[np.int64]: ...
def rounded_sum(acc: NDArray[np.int64]) -> float: ...
def exact_group_sums(x: NDArray[np.float64], offsets: NDArray[np.int64]) -> NDArray[np.int64]: ...
def group_cumsum(x: NDArray[np.float64], starts: NDArray[np.int64]) -> NDArray[np.float64]: ...
def exact_sums(
    terms: list[tuple[NDArray[np.float64], NDArray[np.float64] | None, str]],
    log_loss: tuple[NDArray[np.int8], NDArray[np.float64], NDArray[np.float64], float]
    | None = None,
) -> NDArray[np.int64]: ...
def factorize_bytes(
    offsets: list[NDArray[np.int32]] | list[NDArray[np.int64]],
    data: list[NDArray[np.uint8]],
    n_chunks: int,
) -> tuple[NDArray[np.int32], NDArray[np.int64], NDArray[np.int64], NDArray[np.uint8]]: ...
def factorize_byte_runs(
    offsets: list[NDArray[np.int32]] | list[NDArray[np.int64]],
    data: list[NDArray[np.uint8]],
    n_chunks: int,
) -> tuple[NDArray[np.int64], NDArray[np.int32], NDArray[np.int64], NDArray[np.uint8]]: ...
def factorize_dense(
    values: NDArray[np.int64], lo: int, span: int
) -> tuple[NDArray[np.int32], NDArray[np.int64]]: ...
def factorize_views(
    views: list[NDArray[np.uint8]],
    buffers: list[list[NDArray[np.uint8]]],
    n_chunks: int,
) -> tuple[NDArray[np.int32], NDArray[np.int64], NDArray[np.int64], NDArray[np.uint8]]: ...
def factorize_view_runs(
    views: list[NDArray[np.uint8]],
    buffers: list[list[NDArray[np.uint8]]],
    n_chunks: int,
) -> tuple[NDArray[np.int64], NDArray[np.int32], NDArray[np.int64], NDArray[np.uint8]]: ...
def factorize_words(
    values: NDArray[np.uint64], n_chunks: int
) -> tuple[NDArray[np.int32], NDArray[np.int64]]: ...
def factorize_str(
    values: NDArray[np.object_],
    n_chunks: int,
) -> tuple[NDArray[np.int32], NDArray[np.int64], NDArray[np.int64], NDArray[np.uint8]] | None: ...
def factorize_str_runs(
    values: NDArray[np.object_],
    n_chunks: int,
) -> tuple[NDArray[np.int64], NDArray[np.int32], NDArray[np.int64], NDArray[np.uint8]] | None: ...
def gather(
    scores: NDArray[np.float64],
    labels: NDArray[np.int8],
    weights: NDArray[np.float64] | None,
    shift: int,
    buckets: tuple[int, int],
    out: tuple[
        NDArray[np.float64] | NDArray[np.float32],
        NDArray[np.float64],
        NDArray[np.float64] | NDArray[np.float32],
        NDArray[np.float64],
        NDArray[np.int64],
    ],
) -> None: ...
def gauc_checked(
    y_true: Any, y_score: Any, groups: Any, sample_weight: Any, weighting: Any
) -> float | _Refusal | None: ...
def gauc_rows_checked(
    y_true: Any, y_score: Any, groups: Any
) -> (
    tuple[NDArray[np.int32], NDArray[np.int64], NDArray[np.int8], NDArray[Any]] | _Refusal | None
): ...
def gini_sorted(counts: NDArray[np.int64]) -> float: ...
def group_counts(
    codes: NDArray[np.int32], n_groups: int, labels: NDArray[np.int8]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]: ...
def group_rows(
    codes: NDArray[np.int32], n_groups: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]: ...
def history_cosine_means(
    features: NDArray[np.float64],
    left: NDArray[np.int32],
    groups: NDArray[np.int32],
    offsets: NDArray[np.int64],
    rows: NDArray[np.int32],
    n_chunks: int,
) -> NDArray[np.float64]: ...
def intra_list_similarity_csr(
    items: NDArray[np.int32],
    offsets: NDArray[np.int64],
    k: int,
    rows: NDArray[np.int32],
    features: Any,
    inv_norm: NDArray[np.float64],
    n_chunks: int,
) -> NDArray[np.float64]: ...
def intra_list_similarity_matrix_csr(
    items: NDArray[np.int32],
    offsets: NDArray[np.int64],
    k: int,
    rows: NDArray[np.int32],
    matrix: Any,
    n_chunks: int,
) -> NDArray[np.float64]: ...
def inverse_norms(
    features: Any, rows: NDArray[np.int32], used: NDArray[np.bool_], n_chunks: int
) -> NDArray[np.float64]: ...
def is_grouped(codes: NDArray[np.int32]) -> bool: ...
def item_counts_csr(
    items: NDArray[np.int32], offsets: NDArray[np.int64], k: int, n_items: int
) -> NDArray[np.int64]: ...
def judged_segments(
    offsets: NDArray[np.int64],
    rows: NDArray[np.int64],
    item_codes: NDArray[np.int32],
    grades: NDArray[np.float64],
    n_chunks: int,
) -> tuple[NDArray[np.int32], NDArray[np.float64], NDArray[np.float64], int]: ...
def list_means_csr(
    values: NDArray[np.float64],
    items: NDArray[np.int32],
    offsets: NDArray[np.int64],
    k: int,
    n_chunks: int,
) -> NDArray[np.float64]: ...
def log_loss_checked(
    y_true: Any, y_pred: Any, eps: float, sample_weight: Any = None
) -> float | _Refusal | None: ...
def lookup_bytes(
    offsets: list[NDArray[np.int32]] | list[NDArray[np.int64]],
    data: list[NDArray[np.uint8]],
    n_dict: int,
) -> NDArray[np.int32]: ...
def lookup_str(values: NDArray[Any], dictionary: NDArray[Any]) -> NDArray[np.int32] | None: ...
def lookup_words(
    values: NDArray[np.uint64], dictionary: NDArray[np.uint64]
) -> NDArray[np.int32]: ...
def multiclass_log_loss_exact(
    codes: NDArray[np.int64],
    proba: NDArray[np.float64],
    weights: NDArray[np.float64],
    eps: float,
    n_chunks: int,
) -> NDArray[np.int64]: ...
def normalize(acc: NDArray[np.int64]) -> None: ...
def num_threads() -> int: ...
def offsets_of_sorted(codes: NDArray[np.int32], n_groups: int) -> NDArray[np.int64]: ...
def pair_aucs(
    codes: NDArray[np.int32],
    n_groups: int,
    labels: NDArray[np.int8],
    scores: NDArray[np.float64] | NDArray[np.float32],
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]: ...
def pair_count_sorted(
    pos: NDArray[np.float64] | NDArray[np.float32], neg: NDArray[np.float64] | NDArray[np.float32]
) -> int: ...
def pair_keys_csr(
    items: NDArray[np.int32], offsets: NDArray[np.int64], k: int, n_items: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]: ...
def pair_means_csr(
    values: NDArray[np.float64], pair_offsets: NDArray[np.int64], n_chunks: int
) -> NDArray[np.float64]: ...
def periods_by_user(
    codes: NDArray[np.int32], periods: NDArray[np.int32], n_users: int, n_parts: int
) -> tuple[NDArray[np.int64], NDArray[np.int32]]: ...
def periods_of_instants(
    values: NDArray[np.int64],
    divisor: int,
    bounds: NDArray[np.int64],
    period_of_day: NDArray[np.int32],
    n_chunks: int,
) -> NDArray[np.int32]: ...
def personalization_csr(
    items: NDArray[np.int32], offsets: NDArray[np.int64], k: int, n_items: int
) -> float: ...
def populate(a: NDArray[np.uint8]) -> None: ...
def range_end(
    text: NDArray[np.uint8], at: int, header: bool, delimiter: int
) -> tuple[int, int]: ...
def rank_rows(
    offsets: NDArray[np.int64],
    rows: NDArray[np.int64],
    items: NDArray[np.int32],
    keys: NDArray[np.float64],
    n_items: int,
    own_items: bool,
    own_keys: bool,
    n_chunks: int,
) -> tuple[NDArray[np.int32], NDArray[np.float64], int]: ...
def rank_rows_into(
    offsets: NDArray[np.int64],
    items: NDArray[np.int32],
    keys: NDArray[np.float64],
    out_keys: NDArray[np.float64],
    n_items: int,
    n_chunks: int,
) -> tuple[int, bool]: ...
def read_trec(path: str | os.PathLike[str], kind: str, stream: Any = None) -> Any: ...
def trec_eval_table(
    qrels: str,
    run: str,
    specs: Sequence[RankingSpec],
    relstring: tuple[int, bool, int | None, bool] | None,
    streams: tuple[Any, Any] = ...,
) -> Any: ...
def roc_auc_checked(y_true: Any, y_score: Any) -> float | _Refusal | None: ...
def totals_checked(
    y_true: Any,
    y_prob: Any,
    eps: float,
    loss: bool,
    clicks: bool,
    sample_weight: Any = None,
    base: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]
    | None = None,
) -> NDArray[np.int64] | _Refusal | None: ...
def row_dots(a: NDArray[np.float32], b: NDArray[np.float32]) -> NDArray[np.float32]: ...
def runs(
    values: NDArray[np.int32] | NDArray[np.uint32] | NDArray[np.int64],
) -> tuple[NDArray[np.int64], NDArray[np.int64]]: ...
def shift_ids(
    values: NDArray[np.int64] | NDArray[np.int32] | NDArray[np.uint32],
    anchor: int,
    out: NDArray[np.int32],
) -> tuple[bool, int, int]: ...
def sampled_rank_law(size: int, n: int, first: int, last: int) -> NDArray[np.float64]: ...
def sign_flip_sums(
    x: NDArray[np.float64], n_permutations: int, seed: Any, n_chunks: int
) -> NDArray[np.float64]: ...
def signup_per_user(
    codes: NDArray[np.int32],
    values: NDArray[np.int64],
    divisor: int,
    valid: NDArray[np.bool_],
    n_users: int,
) -> tuple[NDArray[np.int64], NDArray[np.bool_], int]: ...
def slow_compress_store() -> bool: ...
def sort_numbers(a: NDArray[np.float64] | NDArray[np.float32] | NDArray[np.int64]) -> None: ...
def split_by_label(
    scores: NDArray[np.float64], labels: NDArray[np.int8]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...
def split_by_label_weighted(
    scores: NDArray[np.float64], labels: NDArray[np.int8], weights: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]: ...
def str_ranks(ids: NDArray[Any]) -> NDArray[np.float64] | None: ...
def threshold_counts_sorted(
    pos: NDArray[np.float64], neg: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]: ...
def threshold_counts_sorted_weighted(
    pos: NDArray[np.float64],
    pos_w: NDArray[np.float64],
    neg: NDArray[np.float64],
    neg_w: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]: ...
def threads_setting_error() -> str | None: ...
def topk_finish(
    heap_scores: NDArray[np.float32],
    heap_items: NDArray[np.int32],
    heap_len: NDArray[np.int64],
    k: int,
    keys: NDArray[np.uint32],
) -> None: ...
def topk_scan(
    users: NDArray[np.float32],
    items: NDArray[np.float32],
    col0: int,
    keys: NDArray[np.uint32],
    masked_offsets: NDArray[np.int64],
    masked_items: NDArray[np.int32],
    heap_scores: NDArray[np.float32],
    heap_items: NDArray[np.int32],
    heap_len: NDArray[np.int64],
    k: int,
) -> bool: ...
def used_categories(
    values: NDArray[np.int32] | NDArray[np.uint32] | NDArray[np.int64], span: int, n_chunks: int
) -> tuple[NDArray[np.int32], NDArray[np.int64]]: ...
def weighted_group_aucs(
    codes: NDArray[np.int32],
    n_groups: int,
    labels: NDArray[np.int8],
    scores: NDArray[np.float64],
    weights: NDArray[np.float64],
) -> tuple[
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    list[tuple[int, tuple[int, float] | None, tuple[int, float] | None]],
]: ...
def weighted_range(
    pos: NDArray[np.float64] | NDArray[np.float32],
    pos_w: NDArray[np.float64],
    neg: NDArray[np.float64] | NDArray[np.float32],
    neg_w: NDArray[np.float64],
) -> tuple[
    tuple[int, int],
    int,
    int,
    int,
    float,
    float,
    tuple[tuple[int, float] | None, tuple[int, float] | None],
]: ...
def xauc_distinct(
    codes: NDArray[np.int64],
    y: NDArray[np.float64],
    s: NDArray[np.float64],
    w: NDArray[np.float64],
    count: NDArray[np.int64],
) -> tuple[
    NDArray[np.int64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.int64],
]: ...
def xauc_pairs_counted(
    starts: NDArray[np.int64],
    y: NDArray[np.float64],
    s: NDArray[np.float64],
    count: NDArray[np.int64],
) -> tuple[NDArray[np.uint64], NDArray[np.uint64]]: ...
def xauc_pairs_weighted(
    starts: NDArray[np.int64],
    y: NDArray[np.float64],
    s: NDArray[np.float64],
    weight: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...
def trec_rank_table(
    qrels: str,
    run: str,
    specs: Sequence[RankingSpec],
    single: bool,
    streams: tuple[Any, Any] = ...,
) -> Any: ...

@final
class IdCodes:
    def __new__(cls) -> IdCodes: ...
    def add(self, offsets: NDArray[np.int32], data: NDArray[np.uint8]) -> NDArray[np.int32]: ...
    def distinct(self) -> tuple[NDArray[np.int64], NDArray[np.uint8]]: ...

@final
class OpenRows:
    def __new__(cls) -> OpenRows: ...
    def add(
        self,
        user_ids: NDArray[np.int64] | list[str],
        item_ids: NDArray[np.int64] | list[str],
        offsets: NDArray[np.int64],
        items: NDArray[np.int32],
        values: NDArray[np.float64],
    ) -> None: ...
    def absorb(self, other: OpenRows) -> None: ...
    def copy(self) -> OpenRows: ...
    @property
    def memory_bytes(self) -> int: ...
    @property
    def n_rows(self) -> int: ...
    @property
    def n_users(self) -> int: ...
    def user_ids(self) -> NDArray[np.int64] | tuple[bytes, int]: ...
    def item_ids(self) -> NDArray[np.int64] | tuple[bytes, int]: ...
    def rows(self) -> tuple[NDArray[np.uint32], NDArray[np.uint32], NDArray[Any]]: ...
    def grouped(
        self,
    ) -> tuple[NDArray[np.uint32], NDArray[np.int64], NDArray[np.int32], NDArray[np.float64]]: ...
    @staticmethod
    def from_rows(
        user_ids: NDArray[np.int64] | list[str],
        item_ids: NDArray[np.int64] | list[str],
        users: NDArray[np.uint32],
        items: NDArray[np.uint32],
        values: NDArray[Any],
    ) -> OpenRows: ...

def canonical_integers(
    offsets: list[NDArray[np.int32]] | list[NDArray[np.int64]], data: list[NDArray[np.uint8]]
) -> NDArray[np.int64] | None: ...
def integer_texts(values: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.uint8]]: ...

@final
class OpenGroups:
    def __new__(cls) -> OpenGroups: ...
    def add(
        self,
        ids: NDArray[np.int64] | list[str],
        codes: NDArray[np.int32],
        labels: NDArray[np.int8],
        scores: NDArray[np.float32] | NDArray[np.float64],
        weights: NDArray[np.float64] | None = None,
        group_weight: NDArray[np.float64] | None = None,
    ) -> None: ...
    def add_checked(self, y_true: Any, y_score: Any, groups: Any) -> bool | _Refusal: ...
    def absorb(self, other: OpenGroups) -> None: ...
    def copy(self) -> OpenGroups: ...
    @property
    def memory_bytes(self) -> int: ...
    @property
    def n_rows(self) -> int: ...
    @property
    def n_groups(self) -> int: ...
    def ids(self) -> NDArray[np.int64] | tuple[bytes, int]: ...
    def group_weights(self) -> tuple[NDArray[np.float64] | None, bool, NDArray[np.uint32]]: ...
    def rows(
        self,
    ) -> tuple[NDArray[np.uint32], NDArray[np.int8], NDArray[Any], NDArray[Any] | None]: ...
    def grouped(
        self,
    ) -> tuple[NDArray[np.int32], NDArray[np.int8], NDArray[Any], NDArray[np.float64] | None]: ...
    @staticmethod
    def from_rows(
        ids: NDArray[np.int64] | list[str],
        codes: NDArray[np.uint32],
        labels: NDArray[np.int8],
        scores: NDArray[np.float32] | NDArray[np.float64],
        weights: NDArray[np.float32] | NDArray[np.float64] | None = None,
        group_weight: NDArray[np.float64] | None = None,
    ) -> OpenGroups: ...
