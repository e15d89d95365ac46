"""Integer codes shared by the ranking kernels and the registry (no numba import)."""

# metric kinds (rows of ``specs``); receval._registry maps names to these codes
PRECISION, RECALL, F1, HIT_RATIO, SUCCESS, AP, CG, DCG, IDCG, NDCG, RR, R_PRECISION = range(12)
# beyond accuracy: computed from the run and item similarities, not by the top-K kernel
ILS, DIVERSITY = 12, 13
LIST_KINDS = (ILS, DIVERSITY)
# popularity bias: computed from the run and item popularity, not by the top-K kernel
ARP, APLT, ACLT, AVERAGE_POPULARITY, TAIL_PERCENTAGE = range(100, 105)
POPULARITY_KINDS = (ARP, APLT, ACLT, AVERAGE_POPULARITY, TAIL_PERCENTAGE)
# the users' histories: computed from the run and the train log, not by the top-K kernel
SERENDIPITY, MISCALIBRATION = 110, 111
HISTORY_KINDS = (SERENDIPITY, MISCALIBRATION)
# expected exposure (receval.expected_exposure): per qrels user, beside the kernel's metrics
EE_DISPARITY, EE_RELEVANCE, EE_LOSS = 120, 121, 122
EXPOSURE_KINDS = (EE_DISPARITY, EE_RELEVANCE, EE_LOSS)
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
    S_DEPTH,  # trec_eval's -M: only the first N items of the list (metric's order) count; 0: all
    S_JUDGED_ONLY,  # 1: items absent from the qrels or graded below 0 are removed first (-J)
    S_DISCOUNT,  # rank discount of the DCG family (DISCOUNT_*)
    S_PRECISION_NORM,  # denominator of precision@k (PRECISION_*)
    S_RECALL_NORM,  # denominator of recall@k (RECALL_*)
    S_PARAMS,  # first of N_PARAMS float parameters P0, P1, ...: np.float64(x).view(np.int64)
) = range(17)
N_PARAMS = 16
N_SPEC_COLUMNS = S_PARAMS + N_PARAMS
# codes of the conventions inside ``specs``
# GAIN_CUSTOM: trec_eval's gain table (-m ndcg.1=3,2=9): P0 = number of (grade, gain) pairs
# (at most MAX_GAIN_PAIRS), then P1, P2 = grade, gain of the first pair, P3, P4 of the
# second, ...; every other grade is its own gain. For ndcg, dcg, idcg and the trec kinds
# with gains (G, NDCG_REL, R_NDCG)
GAIN_LINEAR, GAIN_EXPONENTIAL, GAIN_BINARY, GAIN_CUSTOM = 0, 1, 2, 3
MAX_GAIN_PAIRS = 7
# users without a relevant item: evaluated (every metric 0), skipped (nan) or given 1
EMPTY_ZERO, EMPTY_SKIP, EMPTY_ONE = 0, 1, 2
# users absent from the run (S_MISSING_SKIP): every metric 0, left out, or evaluated as
# trec_eval -c does (one absent item ranked; num_q 1 and num_rel its relevant items)
MISSING_ZERO, MISSING_SKIP, MISSING_COMPLETE = 0, 1, 2
# AP_MIN_RETRIEVED: over min(R, the items retrieved in the top k) (LensKit)
AP_RELEVANT, AP_MIN_K, AP_HITS, AP_MIN_RETRIEVED = 0, 1, 2, 3
# gain at rank i over log2(i + 1), or over log2(max(i, 2)) (LensKit: ranks 1 and 2 undiscounted)
DISCOUNT_OFFSET, DISCOUNT_CLIPPED = 0, 1
# precision@k over k, or over min(k, list length) (LensKit)
PRECISION_K, PRECISION_RETRIEVED = 0, 1
# recall@k over R, or over min(R, k) (LensKit)
RECALL_RELEVANT, RECALL_MIN_K = 0, 1
IDEAL_JUDGED, IDEAL_CANDIDATES = 0, 1
TIES_TREC, TIES_AVERAGE, TIES_INPUT, TIES_ID_ASCENDING, TIES_ID_DESCENDING = 0, 1, 2, 3, 4

# trec_eval's measures (and ir_measures' that trec_eval lacks), computed by the core's
# ``trec_measures`` from a user's graded list (grades in the metric's order, -inf for
# an item absent from the qrels) and the user's judged grades; sums and geometric means
# over users are the registry's ``mean``, not the kernel's.
# As in trec_eval, a negative qrels grade marks an item in the pool but unjudged: it is
# neither relevant nor judged non-relevant, nor among the user's relevant items, and
# counts as unjudged (UNJUDGED, RBP_RESID); judged-only removes it. With @k (S_K > 0)
# every kind below reads the first k items of the list (after S_DEPTH and
# S_JUDGED_ONLY); RELATIVE_PRECISION, UNJUDGED and JUDGED take k as their cut-off.
# A user absent from the run (without S_MISSING_SKIP) gets trec_eval's -c values: the
# measure of a list of one item absent from the qrels, 0 for NUM_RET, UTILITY, UNJUDGED
# and RBP_RESID. The count kinds (NUM_*) ignore S_EMPTY. With TIES_AVERAGE the core
# computes the expected value over the orders of tied scores in closed form (the core's
# trec_ties); INFAP, IPREC_AT_RECALL, IPREC_AVG, G and ERR have none (nan), nor has
# NDCG_REL with a negative gain in its table.
(
    NUM_RET,  # retrieved items (in the top k with @k)
    NUM_REL,  # relevant items of the user (grade >= rel_threshold)
    NUM_REL_RET,  # relevant items retrieved (in the top k)
    NUM_NONREL_JUDGED_RET,  # judged items below rel_threshold retrieved
    NUM_Q,  # 1 for every user evaluated
    BPREF,  # P0: 0 = trec_eval's, 1 = ranx's reading (grades="raw"): a negative grade is
    #         judged non-relevant (in N, and counted above the relevant items below it)
    INFAP,
    IPREC_AT_RECALL,  # P0: the recall level; nan for a list emptied by judged-only (0 / 0)
    IPREC_AVG,  # P0: number of levels (0: trec_eval's 11 levels 0.0, 0.1, ..., 1.0, at most
    #             15); P1..: levels
    RPREC_MULT,  # P0: the multiple of R
    UTILITY,  # P0..P3: the gain of a relevant retrieved, of a non-relevant retrieved, of a
    #           relevant not retrieved, of a non-relevant not retrieved (trec_eval's a, b, c,
    #           d); P4: documents in the collection (trec_eval's -N, default 0)
    BIN_G,
    G,  # GAIN_CUSTOM: the gain table in the params
    NDCG_REL,  # GAIN_CUSTOM: the gain table in the params
    R_NDCG,  # GAIN_CUSTOM: the gain table in the params
    RELATIVE_PRECISION,  # @k: relative_P_k; without k, over the whole list
    SET_PRECISION,
    SET_RELATIVE_PRECISION,
    SET_RECALL,
    SET_AP,
    SET_F,  # P0: beta (trec_eval's default 1.0)
    RBP,  # P0: persistence p (trec_eval's default 0.9); P1: 0 = trec_eval's gains (the grade,
    #       over the user's largest grade when above 1), 1 = binary gains: a judged item whose
    #       grade (a negative one read as 0) is at least the threshold (ir_measures'
    #       RBP(rel=...), from cwl_eval), 2 = the grade itself (ranx's rbp.p, grades="raw");
    #       the graded variants (0, 2) earn from S_GAIN_THRESHOLD on, not S_THRESHOLD
    RBP_RESID,  # P0: persistence p (trec_eval's default 0.9)
    UNJUDGED,  # share of the top k absent from the qrels or graded < 0, over k (trec_eval's
    #            unj_k); without k, over the whole list
    JUDGED,  # ir_measures' Judged@k: share of the top min(k, n) present in the qrels (any
    #          grade), over min(k, n); so 1 - UNJUDGED only when the list has k items and no
    #          negative grade. ir_measures ranks ties by item id ascending (TIES_ID_ASCENDING)
    ERR,  # gdeval's ERR@k (ir_measures' ERR@k): stop at a grade g > 0 with probability
    #       (2^g - 1) / 2^P0, P0 the largest grade (0: gdeval's 4); rel_threshold plays no part
    NERR,  # ndeval's nERR-IA of one intent (ir_measures' nERR_IA@k on ordinary qrels): binary
    #        relevance (grade >= rel_threshold), the j-th relevant item at rank r earns
    #        (1 - alpha)^(j-1) / r, over the same sum of the ideal list (R relevant first,
    #        top k); P0: alpha (0: ndeval's 0.5)
) = range(14, 41)
TREC_KINDS = tuple(range(14, 41))
