"""Integer codes shared by the ranking kernels and the registry (no numba import)."""

# metric kinds (rows of ``specs``); receval._registry maps names to these codes
PRECISION, RECALL, F1, HIT_RATIO, SUCCESS, AP, CG, DCG, IDCG, NDCG, RR, R_PRECISION = range(12)
# beyond accuracy: computed from the run and item similarities, not by the top-K kernel
ILS, DIVERSITY = 12, 13
LIST_KINDS = (ILS, DIVERSITY)
# columns of ``specs``
(
    S_KIND,
    S_K,
    S_THRESHOLD,
    S_GAIN,
    S_AP_NORM,
    S_IDEAL,
    S_TIES,
    S_MISSING_SKIP,
    S_EMPTY,
    S_GAIN_THRESHOLD,
    S_POSITIVE_SCORES,
) = range(11)
N_SPEC_COLUMNS = 11
# codes of the conventions inside ``specs``
GAIN_LINEAR, GAIN_EXPONENTIAL, GAIN_BINARY = 0, 1, 2
# users without a relevant item: evaluated (every metric 0), skipped (nan) or given 1
EMPTY_ZERO, EMPTY_SKIP, EMPTY_ONE = 0, 1, 2
AP_RELEVANT, AP_MIN_K, AP_HITS = 0, 1, 2
IDEAL_JUDGED, IDEAL_CANDIDATES = 0, 1
TIES_TREC, TIES_AVERAGE, TIES_INPUT, TIES_ID_ASCENDING = 0, 1, 2, 3
