//! The metric codes and the typed spec of the ranking kernel: what a metric is
//! (`kind`, the `*` constants) and how it is computed for every user ([`Spec`]).
//!
//! A leaf: it imports nothing of the crate, and every other module reads the codes
//! from here. `receval._core` exports the codes to Python (the registry reads
//! them) and takes the specs as [`Spec`] values, one per metric.

// metric kinds computed by the top-K kernel (`ranking`)
/// precision@k
pub const PRECISION: i64 = 0;
/// recall@k
pub const RECALL: i64 = 1;
/// F1@k
pub const F1: i64 = 2;
/// hit ratio (hits, pooled over users by the caller)
pub const HIT_RATIO: i64 = 3;
/// success@k (a hit in the top k)
pub const SUCCESS: i64 = 4;
/// average precision
pub const AP: i64 = 5;
/// cumulative gain
pub const CG: i64 = 6;
/// discounted cumulative gain
pub const DCG: i64 = 7;
/// ideal DCG
pub const IDCG: i64 = 8;
/// normalized DCG
pub const NDCG: i64 = 9;
/// reciprocal rank
pub const RR: i64 = 10;
/// R-precision
pub const R_PRECISION: i64 = 11;

// metric kinds of trec_eval (and ir_measures' ERR, nERR and Judged), computed by
// `trec::measures` from the same grades
/// retrieved items
pub const NUM_RET: i64 = 14;
/// relevant items of the user
pub const NUM_REL: i64 = 15;
/// relevant items retrieved
pub const NUM_REL_RET: i64 = 16;
/// judged non-relevant items retrieved
pub const NUM_NONREL_JUDGED_RET: i64 = 17;
/// 1 for every user evaluated
pub const NUM_Q: i64 = 18;
/// binary preference (P0 = 1: ranx's reading, negative grades judged non-relevant)
pub const BPREF: i64 = 19;
/// inferred average precision
pub const INFAP: i64 = 20;
/// interpolated precision at a recall level (P0)
pub const IPREC_AT_RECALL: i64 = 21;
/// interpolated precision averaged over recall levels (P0: count, 0 = 11 levels)
pub const IPREC_AVG: i64 = 22;
/// precision at a multiple (P0) of R
pub const RPREC_MULT: i64 = 23;
/// set utility (P0..P3: the gains a, b, c, d; P4: documents in the collection)
pub const UTILITY: i64 = 24;
/// binary G
pub const BIN_G: i64 = 25;
/// normalized gain G
pub const G: i64 = 26;
/// nDCG averaged over the relevant items
pub const NDCG_REL: i64 = 27;
/// nDCG averaged at the R levels
pub const R_NDCG: i64 = 28;
/// relative precision (at k)
pub const RELATIVE_PRECISION: i64 = 29;
/// set precision
pub const SET_PRECISION: i64 = 30;
/// set relative precision
pub const SET_RELATIVE_PRECISION: i64 = 31;
/// set recall
pub const SET_RECALL: i64 = 32;
/// set average precision
pub const SET_AP: i64 = 33;
/// set F (P0: beta)
pub const SET_F: i64 = 34;
/// rank-biased precision (P0: persistence; P1 = 0: trec_eval's graded gains, 1: binary
/// gains at the threshold, 2: the grades themselves, ranx's; the graded variants earn from
/// the spec's gain threshold on)
pub const RBP: i64 = 35;
/// residual of rank-biased precision (P0: persistence)
pub const RBP_RESID: i64 = 36;
/// share of unjudged items in the top k (trec_eval's unj)
pub const UNJUDGED: i64 = 37;
/// share of judged items in the top k (ir_measures' Judged)
pub const JUDGED: i64 = 38;
/// expected reciprocal rank (gdeval's ERR; P0: the largest grade, 0 = 4; P1 = 1: the
/// grade itself is the stopping probability, CatBoost's ERR)
pub const ERR: i64 = 39;
/// ndeval's nERR of one intent (P0: alpha, 0 = 0.5)
pub const NERR: i64 = 40;
/// CatBoost's PFound: the cascade of ERR with the grade as the stopping probability and
/// the chance of looking on decaying by P0 at each rank, without 1 / rank
pub const PFOUND: i64 = 41;
/// CatBoost's AverageGain: the mean grade of the top min(k, n) items
pub const AVERAGE_GAIN: i64 = 42;
/// first kind computed here
pub const FIRST_KIND: i64 = NUM_RET;
/// last kind computed here
pub const LAST_KIND: i64 = AVERAGE_GAIN;

// the registry's ranking-family kinds that the top-K kernel does not compute (beyond
// accuracy, popularity, history and exposure metrics), beside the kernel's so that no
// two kinds share a code
// beyond accuracy: computed from the run and item similarities, not by the top-K kernel
/// intra-list similarity
pub const ILS: i64 = 12;
/// intra-list diversity
pub const DIVERSITY: i64 = 13;
// popularity bias: computed from the run and item popularity, not by the top-K kernel
/// average recommendation popularity
pub const ARP: i64 = 100;
/// average percentage of long-tail items
pub const APLT: i64 = 101;
/// average coverage of long-tail items
pub const ACLT: i64 = 102;
/// average popularity of the recommended items
pub const AVERAGE_POPULARITY: i64 = 103;
/// share of long-tail items
pub const TAIL_PERCENTAGE: i64 = 104;
// the users' histories: computed from the run and the train log, not by the top-K kernel
/// serendipity
pub const SERENDIPITY: i64 = 110;
/// miscalibration
pub const MISCALIBRATION: i64 = 111;
// expected exposure: per qrels user, beside the kernel's metrics
/// expected exposure: disparity
pub const EE_DISPARITY: i64 = 120;
/// expected exposure: relevance
pub const EE_RELEVANCE: i64 = 121;
/// expected exposure: loss
pub const EE_LOSS: i64 = 122;

/// The kinds computed by the top-K kernel itself (`ranking`).
pub const RANKING_KINDS: [i64; 12] = [
    PRECISION,
    RECALL,
    F1,
    HIT_RATIO,
    SUCCESS,
    AP,
    CG,
    DCG,
    IDCG,
    NDCG,
    RR,
    R_PRECISION,
];

/// Whether the kind is one of trec_eval's (computed by `trec::measures`).
#[inline]
pub fn is_trec_kind(kind: i64) -> bool {
    (FIRST_KIND..=LAST_KIND).contains(&kind)
}

/// Whether the kind is a count, which the rules for users without a relevant item
/// leave alone.
#[inline]
pub fn is_count_kind(kind: i64) -> bool {
    matches!(
        kind,
        NUM_RET | NUM_REL | NUM_REL_RET | NUM_NONREL_JUDGED_RET | NUM_Q
    )
}

/// float parameters of a metric ([`Spec::params`])
pub const N_PARAMS: usize = 16;
/// (grade, gain) pairs of a custom gain table (P0 = count, then grade, gain, ...)
pub const MAX_GAIN_PAIRS: usize = 7;

/// A convention of the kernel: an enum whose variants have a name (the convention's
/// value in `receval`, which Python passes).
macro_rules! convention {
    (
        $(#[$doc:meta])*
        $name:ident {
            $( $(#[$vdoc:meta])* $variant:ident, $text:literal; )*
        }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub enum $name {
            #[default]
            $( $(#[$vdoc])* $variant, )*
        }

        impl $name {
            /// Every value (the first is the default).
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The value named `name` (as `receval` spells it), or None.
            pub fn from_name(name: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.name() == name)
            }

            /// The name of the value, as `receval` spells it.
            pub fn name(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )*
                }
            }
        }
    };
}

convention! {
    /// How a grade earns its gain (`gain=`).
    Gain {
        /// gain = grade
        Linear, "linear";
        /// gain = 2^grade - 1
        Exponential, "exponential";
        /// gain = 1
        Binary, "binary";
        /// trec_eval's gain table: (grade, gain) pairs in the parameters (P0 pairs, then
        /// grade, gain, ...), every other grade its own gain (DCG family and the trec kinds)
        Custom, "custom";
    }
}

convention! {
    /// What a user without a relevant item scores (`empty_users=`).
    Empty {
        /// users without a relevant item score 0
        Zero, "zero";
        /// users without a relevant item are skipped (nan)
        Skip, "skip";
        /// users without a relevant item score 1
        One, "one";
    }
}

convention! {
    /// What a user absent from the run scores (`missing_users=`).
    Missing {
        /// a user absent from the run scores 0 on every metric
        Zero, "zero";
        /// ... is left out (nan)
        Skip, "skip";
        /// ... is evaluated as trec_eval -c evaluates it (counts still count the user)
        Complete, "complete";
    }
}

convention! {
    /// The denominator of average precision (`ap_normalizer=`).
    ApNorm {
        /// AP over the relevant items
        Relevant, "relevant";
        /// AP over min(R, k)
        MinK, "min_k";
        /// AP over the hits
        Hits, "hits";
        /// AP over min(R, the items retrieved in the top k) (LensKit)
        MinRetrieved, "min_retrieved";
    }
}

convention! {
    /// The rank discount of the DCG family (`discount=`).
    Discount {
        /// the gain at rank i is divided by log2(i + 1)
        Offset, "offset";
        /// ... by log2(max(i, 2)): ranks 1 and 2 both undiscounted (LensKit, the original
        /// definition of Jarvelin and Kekalainen)
        Clipped, "clipped";
        /// ... by i: the reciprocal rank (CatBoost's `denominator=Position`)
        Rank, "rank";
    }
}

convention! {
    /// The denominator of precision at a cut-off (`precision_normalizer=`).
    PrecisionNorm {
        /// precision@k divides by k
        K, "k";
        /// ... by min(k, the length of the list) (LensKit)
        Retrieved, "retrieved";
    }
}

convention! {
    /// The denominator of recall at a cut-off (`recall_normalizer=`).
    RecallNorm {
        /// recall@k divides by R
        Relevant, "relevant";
        /// ... by min(R, k) (LensKit)
        MinK, "min_k";
    }
}

convention! {
    /// How interpolated precision turns a recall level into a number of relevant items
    /// (`recall_rounding=`).
    RecallRounding {
        /// round(level * R), halves away from zero (trec_eval 10.0)
        Nearest, "nearest";
        /// trunc(level * R + 0.9) (trec_eval 9 and before: pytrec_eval, ir_measures)
        Trec9, "trec9";
    }
}

impl RecallRounding {
    /// The number of relevant items that recall `level` of `n_rel` relevant items
    /// asks for.
    #[inline]
    pub fn relevant_count(self, level: f64, n_rel: i64) -> i64 {
        let x = level * n_rel as f64;
        match self {
            RecallRounding::Nearest => x.round() as i64,
            RecallRounding::Trec9 => (x + 0.9) as i64,
        }
    }
}

convention! {
    /// The ideal order of the ideal DCG (`ideal=`).
    Ideal {
        /// ideal DCG from the judged grades
        Judged, "judged";
        /// ideal DCG from the ranked candidates' grades
        Candidates, "candidates";
    }
}

convention! {
    /// The order of tied scores (`ties=`).
    Ties {
        /// ties broken by item id descending, scores compared in float32 (trec_eval)
        Trec, "trec";
        /// expected value over the orders of tied blocks
        Average, "average";
        /// ties in input order
        Input, "input";
        /// ties broken by item id ascending
        IdAscending, "id_ascending";
        /// ties broken by item id descending, scores compared as doubles (trec_eval 10.0)
        IdDescending, "id_descending";
        /// tied items ordered by grade ascending, the least relevant first (CatBoost)
        Worst, "worst";
    }
}

/// One metric of the ranking kernel: its kind, cut-off, conventions and float
/// parameters. The default is precision over the whole list with every convention
/// at its first value and the thresholds at 0.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spec {
    /// metric kind (the kind constants of this module)
    pub kind: i64,
    /// cut-off (<= 0: none)
    pub k: i64,
    /// relevance threshold: a grade at least this is relevant
    pub threshold: f64,
    /// threshold from which gains are earned
    pub gain_threshold: f64,
    /// gain convention
    pub gain: Gain,
    /// AP normalisation
    pub ap_norm: ApNorm,
    /// ideal order of the IDCG
    pub ideal: Ideal,
    /// tie rule
    pub ties: Ties,
    /// rule for users absent from the run
    pub missing: Missing,
    /// rule for users without a relevant item
    pub empty: Empty,
    /// items scored <= 0 are never hits
    pub positive_scores: bool,
    /// depth (trec_eval's `-M`): only the first this many items of the list, in the
    /// metric's order, count (None: all of them; `Some(0)`: none, as trec_eval's
    /// `-M 0`)
    pub depth: Option<usize>,
    /// items absent from the qrels or with a negative grade are removed from the
    /// list before any metric (trec_eval's `-J`, ir_measures' `judged_only`)
    pub judged_only: bool,
    /// rank discount of the DCG family
    pub discount: Discount,
    /// denominator of precision at a cut-off
    pub precision_norm: PrecisionNorm,
    /// denominator of recall at a cut-off
    pub recall_norm: RecallNorm,
    /// recall level to relevant items of interpolated precision
    pub recall_rounding: RecallRounding,
    /// float parameters of the kind (P0, P1, ...; 0 where not given)
    pub params: [f64; N_PARAMS],
}

impl Spec {
    /// Whether the kind is DCG, IDCG or nDCG with a custom gain table.
    #[inline]
    pub fn custom_dcg(&self) -> bool {
        self.gain == Gain::Custom && matches!(self.kind, DCG | IDCG | NDCG)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REGISTRY_KINDS: [i64; 12] = [
        ILS,
        DIVERSITY,
        ARP,
        APLT,
        ACLT,
        AVERAGE_POPULARITY,
        TAIL_PERCENTAGE,
        SERENDIPITY,
        MISCALIBRATION,
        EE_DISPARITY,
        EE_RELEVANCE,
        EE_LOSS,
    ];

    #[test]
    fn no_two_kinds_share_a_code() {
        let mut kinds: Vec<i64> = RANKING_KINDS.to_vec();
        kinds.extend(FIRST_KIND..=LAST_KIND);
        kinds.extend(REGISTRY_KINDS);
        let n = kinds.len();
        kinds.sort_unstable();
        kinds.dedup();
        assert_eq!(kinds.len(), n);
    }

    #[test]
    fn the_kernel_kinds_run_from_zero_without_gaps() {
        let mut kinds: Vec<i64> = RANKING_KINDS.to_vec();
        kinds.extend(FIRST_KIND..=LAST_KIND);
        kinds.extend([ILS, DIVERSITY]);
        kinds.sort_unstable();
        assert_eq!(kinds, (0..=LAST_KIND).collect::<Vec<_>>());
    }

    #[test]
    fn conventions_round_trip_by_name() {
        for &t in Ties::ALL {
            assert_eq!(Ties::from_name(t.name()), Some(t));
        }
        assert_eq!(Gain::from_name("exponential"), Some(Gain::Exponential));
        assert_eq!(Gain::from_name("views"), None);
        assert_eq!(Empty::default(), Empty::Zero);
    }

    #[test]
    fn custom_dcg_is_the_dcg_family_with_a_gain_table() {
        let custom = |kind| Spec {
            kind,
            gain: Gain::Custom,
            ..Spec::default()
        };
        assert!(custom(NDCG).custom_dcg());
        assert!(!custom(G).custom_dcg());
        assert!(!Spec {
            kind: NDCG,
            ..Spec::default()
        }
        .custom_dcg());
    }
}
