"""Types of the compiled core (the Rust crate in ``rust/``, built by maturin): the
``#[pyfunction]`` signatures of ``rust/src/python*.rs``; tests/test_typing.py checks
this file against the built module (``mypy.stubtest``)."""

import os
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "AFTER",
    "BEFORE",
    "CARRY_EVERY",
    "FLIPS",
    "NAN",
    "NEG_INF",
    "NO_SIGNUP",
    "N_LIMBS",
    "PAIRWISE_MAX",
    "POS_INF",
    "RESAMPLES",
    "SIZE",
    "accumulate_bitsets",
    "accumulate_csr",
    "activity_bitsets",
    "add_histogram",
    "binary_log_loss_exact",
    "bootstrap_means",
    "build_ranked",
    "dense_codes_in_place",
    "distinct_users_per_item",
    "draw_block",
    "evaluate_users",
    "events_before_signup",
    "exact_dot",
    "exact_sum",
    "expected_first_hit",
    "factorize_dense",
    "factorize_dense_sorted",
    "first_duplicate_segment",
    "flip_tables",
    "gather",
    "gather_minority",
    "gauc_checked",
    "gini_sorted",
    "group_counts",
    "group_rows",
    "idcg",
    "intra_list_similarity_csr",
    "intra_list_similarity_matrix_csr",
    "inverse_norms",
    "is_grouped",
    "item_counts_csr",
    "judged_segments",
    "list_means_csr",
    "log_loss_checked",
    "lookup",
    "lookup_str",
    "metric_from_hits",
    "mix64",
    "multiclass_log_loss_exact",
    "normalize",
    "num_threads",
    "offsets_of_sorted",
    "pack_block",
    "pack_keys",
    "packed_sort_desc",
    "pair_count_sorted",
    "pair_keys_csr",
    "pair_means_csr",
    "pair_weight_sorted",
    "periods_by_user",
    "periods_of_instants",
    "personalization_csr",
    "populate",
    "rank_rows",
    "rank_rows_into",
    "read_trec",
    "redo_segments",
    "roc_auc_checked",
    "runs",
    "seed_key",
    "shift_ids",
    "sign_flip_sums",
    "signup_per_user",
    "sort_segments",
    "split_by_label",
    "split_by_label_weighted",
    "stable_sort_desc",
    "str_ranks",
    "stream_pair_counts",
    "stream_start",
    "stream_word",
    "threads_setting_error",
    "threshold_counts_sorted",
    "threshold_counts_sorted_weighted",
    "tie_segments",
    "trec_order",
    "unpack_block",
    "unpack_grouped",
    "unpack_ranked",
    "user_metric",
    "weighted_group_aucs",
]

SIZE: int
N_LIMBS: int
CARRY_EVERY: int
NAN: int
POS_INF: int
NEG_INF: int
PAIRWISE_MAX: int
BEFORE: int
AFTER: int
NO_SIGNUP: int
FLIPS: int
RESAMPLES: int

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
def binary_log_loss_exact(
    labels: NDArray[np.int8],
    proba: NDArray[np.float64],
    weights: NDArray[np.float64],
    eps: float,
    n_chunks: int,
    carry_every: int = ...,
) -> NDArray[np.int64]: ...
def bootstrap_means(
    x: NDArray[np.float64], wm: NDArray[np.float64], n_resamples: int, seed: Any, n_chunks: int
) -> NDArray[np.float64]: ...
def build_ranked(
    rows: NDArray[np.int64],
    offsets: NDArray[np.int64],
    items: NDArray[np.int32],
    keys: NDArray[np.float64],
    n_items: int,
    max_len: int,
    n_chunks: int,
) -> tuple[NDArray[np.int32], NDArray[np.float64], int]: ...
def dense_codes_in_place(
    codes: NDArray[np.int32], base: int, span: int, anchor: int, ascending: bool, n_chunks: int
) -> NDArray[np.int64]: ...
def distinct_users_per_item(
    user_codes: NDArray[np.int32], item_codes: NDArray[np.int32], n_users: int, n_items: int
) -> NDArray[np.int64]: ...
def draw_block(start: int, k0: int, count: int, n: int, idx: NDArray[np.int64]) -> None: ...
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
    specs: NDArray[np.int64],
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
def exact_sum(
    x: NDArray[np.float64], n_chunks: int, carry_every: int = ...
) -> NDArray[np.int64]: ...
def expected_first_hit(m: int, h: int, t: int) -> NDArray[np.float64]: ...
def factorize_dense(
    values: NDArray[np.int64], lo: int, span: int
) -> tuple[NDArray[np.int32], NDArray[np.int64]]: ...
def factorize_dense_sorted(
    values: NDArray[np.int64], lo: int, span: int, n_chunks: int
) -> tuple[NDArray[np.int32], NDArray[np.int64]]: ...
def first_duplicate_segment(
    offsets: NDArray[np.int64],
    rows: NDArray[np.int64],
    items: NDArray[np.int32],
    n_items: int,
    n_chunks: int,
) -> int: ...
def flip_tables(x: NDArray[np.float64], i0: int, i1: int, table: NDArray[np.float64]) -> None: ...
def gather(
    scores: NDArray[np.float64],
    labels: NDArray[np.int8],
    weights: NDArray[np.float64] | None,
    shift: int,
    first: int,
    last: int,
    pos: NDArray[np.float64],
    pos_w: NDArray[np.float64],
    neg: NDArray[np.float64],
    neg_w: NDArray[np.float64],
    filled: NDArray[np.int64],
) -> None: ...
def gather_minority(
    codes: NDArray[np.int32],
    n_groups: int,
    labels: NDArray[np.int8],
    scores: NDArray[np.float64],
    minority: int,
    counts: NDArray[np.int64],
) -> tuple[NDArray[np.int64], NDArray[np.float64]]: ...
def gauc_checked(
    y_true: Any, y_score: Any, groups: Any, sample_weight: Any, weighting: Any
) -> float | None: ...
def gini_sorted(counts: NDArray[np.int64]) -> float: ...
def group_counts(
    codes: NDArray[np.int32], n_groups: int, labels: NDArray[np.int8]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]: ...
def group_rows(
    codes: NDArray[np.int32], n_groups: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]: ...
def idcg(
    ideal: int,
    k: int,
    k_eff: int,
    threshold: float,
    gain: int,
    grades: NDArray[np.float64],
    n: int,
    q_desc: NDArray[np.float64],
    qa: int,
    qb: int,
    cand: NDArray[np.float64],
    disc: NDArray[np.float64],
) -> float: ...
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
def log_loss_checked(y_true: Any, y_pred: Any, eps: float) -> float | None: ...
def lookup(sorted_items: NDArray[np.int32], a: int, b: int, item: int) -> int: ...
def lookup_str(values: NDArray[Any], dictionary: NDArray[Any]) -> NDArray[np.int32] | None: ...
def metric_from_hits(
    kind: int,
    k: int,
    threshold: float,
    gain: int,
    ap_norm: int,
    ideal: int,
    grades: NDArray[np.float64],
    n: int,
    hpos: NDArray[np.int64],
    hgr: NDArray[np.float64],
    h: int,
    n_rel: int,
    q_desc: NDArray[np.float64],
    qa: int,
    qb: int,
    cand: NDArray[np.float64],
    disc: NDArray[np.float64],
) -> float: ...
def mix64(z: int) -> int: ...
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
def pack_block(
    offsets: NDArray[np.int64],
    rows: NDArray[np.int64],
    key_bits: NDArray[np.uint64],
    g0: int,
    g1: int,
    seg_bits: int,
    pos_bits: int,
    buf: NDArray[np.uint64],
) -> int: ...
def pack_keys(
    offsets: NDArray[np.int64],
    rows: NDArray[np.int64],
    key_bits: NDArray[np.uint64],
    seg_bits: int,
    pos_bits: int,
    n_chunks: int,
) -> NDArray[np.uint64]: ...
def packed_sort_desc(
    keys: NDArray[np.float64], pos: NDArray[np.int64], buf: NDArray[np.uint64], n: int
) -> bool: ...
def pair_count_sorted(pos: NDArray[np.float64], neg: NDArray[np.float64]) -> int: ...
def pair_keys_csr(
    items: NDArray[np.int32], offsets: NDArray[np.int64], k: int, n_items: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]: ...
def pair_means_csr(
    values: NDArray[np.float64], pair_offsets: NDArray[np.int64], n_chunks: int
) -> NDArray[np.float64]: ...
def pair_weight_sorted(
    pos: NDArray[np.float64],
    pos_w: NDArray[np.float64],
    neg: NDArray[np.float64],
    neg_w: NDArray[np.float64],
) -> float: ...
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
def read_trec(path: str | os.PathLike[str], kind: str) -> Any: ...
def redo_segments(
    segments: NDArray[np.int64],
    offsets: NDArray[np.int64],
    rows: NDArray[np.int64],
    items: NDArray[np.int32],
    keys: NDArray[np.float64],
    out_items: NDArray[np.int32],
    out_keys: NDArray[np.float64],
    max_len: int,
) -> None: ...
def roc_auc_checked(y_true: Any, y_score: Any) -> float | None: ...
def runs(values: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]: ...
def seed_key(seed: Any, domain: int) -> int: ...
def shift_ids(
    values: NDArray[np.int64], anchor: int, out: NDArray[np.int32]
) -> tuple[bool, int, int]: ...
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
def sort_segments(values: NDArray[np.float64], offsets: NDArray[np.int64]) -> None: ...
def split_by_label(
    scores: NDArray[np.float64], labels: NDArray[np.int8]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...
def split_by_label_weighted(
    scores: NDArray[np.float64], labels: NDArray[np.int8], weights: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]: ...
def stable_sort_desc(
    keys: NDArray[np.float64],
    pos: NDArray[np.int64],
    tmp_keys: NDArray[np.float64],
    tmp_pos: NDArray[np.int64],
    n: int,
) -> None: ...
def str_ranks(ids: NDArray[Any]) -> NDArray[np.float64] | None: ...
def stream_pair_counts(
    codes: NDArray[np.int32],
    n_groups: int,
    labels: NDArray[np.int8],
    scores: NDArray[np.float64],
    minority: int,
    offsets: NDArray[np.int64],
    seg: NDArray[np.float64],
    n_chunks: int,
) -> NDArray[np.int64]: ...
def stream_start(key: int, b: int) -> int: ...
def stream_word(start: int, t: int) -> int: ...
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
def trec_order(
    scores: NDArray[np.float64],
    items: NDArray[np.int32],
    item_keys: NDArray[np.float64],
    a: int,
    n: int,
    ascending: bool = False,
) -> NDArray[np.int64]: ...
def unpack_block(
    buf: NDArray[np.uint64],
    offsets: NDArray[np.int64],
    rows: NDArray[np.int64],
    items: NDArray[np.int32],
    keys: NDArray[np.float64],
    g0: int,
    g1: int,
    pos_bits: int,
    out_items: NDArray[np.int32],
    out_keys: NDArray[np.float64],
    bad: NDArray[np.bool_],
    stamp: NDArray[np.int64],
    seg_items: NDArray[np.int32],
    seg_keys: NDArray[np.float64],
) -> int: ...
def unpack_grouped(
    packed: NDArray[np.uint64],
    offsets: NDArray[np.int64],
    items: NDArray[np.int32],
    keys: NDArray[np.float64],
    pos_bits: int,
    n_items: int,
    max_len: int,
    n_chunks: int,
) -> tuple[Any, NDArray[np.bool_], int]: ...
def unpack_ranked(
    packed: NDArray[np.uint64],
    offsets: NDArray[np.int64],
    rows: NDArray[np.int64],
    items: NDArray[np.int32],
    keys: NDArray[np.float64],
    pos_bits: int,
    n_chunks: int,
) -> tuple[NDArray[np.int32], Any, NDArray[np.bool_]]: ...
def user_metric(
    kind: int,
    k: int,
    threshold: float,
    gain_threshold: float,
    gain: int,
    ap_norm: int,
    ideal: int,
    ties: int,
    grades: NDArray[np.float64],
    scores: NDArray[np.float64],
    a: int,
    n: int,
    q_desc: NDArray[np.float64],
    qa: int,
    qb: int,
    rel: NDArray[np.float64],
    gains: NDArray[np.float64],
    cand: NDArray[np.float64],
    disc: NDArray[np.float64],
) -> tuple[float, float]: ...
def weighted_group_aucs(
    codes: NDArray[np.int32],
    n_groups: int,
    labels: NDArray[np.int8],
    scores: NDArray[np.float64],
    weights: NDArray[np.float64],
    rows: NDArray[np.int64],
    positives: NDArray[np.int64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]: ...
