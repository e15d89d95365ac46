//! The kinds of the registry's ranking-family metrics that the top-K kernel does
//! not compute (beyond accuracy, popularity, history and exposure metrics), defined
//! beside the kernel's (`ranking.rs`, `trec_measures.rs`) so that no two kinds share
//! a code. `receval._core` exports all of them to Python.

use crate::ranking as r;
#[cfg(test)]
use crate::trec_measures as t;

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

/// The kinds computed by the top-K kernel itself (`ranking.rs`).
pub const RANKING_KINDS: [i64; 12] = [
    r::PRECISION,
    r::RECALL,
    r::F1,
    r::HIT_RATIO,
    r::SUCCESS,
    r::AP,
    r::CG,
    r::DCG,
    r::IDCG,
    r::NDCG,
    r::RR,
    r::R_PRECISION,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_two_kinds_share_a_code() {
        let mut kinds: Vec<i64> = RANKING_KINDS.to_vec();
        kinds.extend(t::FIRST_KIND..=t::LAST_KIND);
        kinds.extend([
            ILS,
            DIVERSITY,
            ARP,
            APLT,
            ACLT,
            AVERAGE_POPULARITY,
            TAIL_PERCENTAGE,
        ]);
        kinds.extend([
            SERENDIPITY,
            MISCALIBRATION,
            EE_DISPARITY,
            EE_RELEVANCE,
            EE_LOSS,
        ]);
        let n = kinds.len();
        kinds.sort_unstable();
        kinds.dedup();
        assert_eq!(kinds.len(), n);
    }

    #[test]
    fn the_kernel_kinds_run_from_zero_without_gaps() {
        let mut kinds: Vec<i64> = RANKING_KINDS.to_vec();
        kinds.extend(t::FIRST_KIND..=t::LAST_KIND);
        kinds.extend([ILS, DIVERSITY]);
        kinds.sort_unstable();
        assert_eq!(kinds, (0..=t::LAST_KIND).collect::<Vec<_>>());
    }
}
