//! The integer codes of the ranking kernel, exported to Python as constants of
//! `receval._core`: the metric kinds, the columns of `specs` and the codes of the
//! conventions inside it. Each is defined once, in `spec.rs`; the registry reads
//! them from here.

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::python_ranking::columns;
use crate::spec::{self as s, *};

macro_rules! add_all {
    ($m:expr, $module:ident: $($name:ident),* $(,)?) => {
        $( $m.add(stringify!($name), $module::$name)?; )*
    };
}

fn add_tuple(m: &Bound<'_, PyModule>, name: &str, kinds: &[i64]) -> PyResult<()> {
    m.add(name, PyTuple::new(m.py(), kinds)?)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_all!(m, s: PRECISION, RECALL, F1, HIT_RATIO, SUCCESS, AP, CG, DCG, IDCG, NDCG, RR,
        R_PRECISION);
    add_all!(m, columns: S_KIND, S_K, S_THRESHOLD, S_GAIN, S_AP_NORM, S_IDEAL, S_TIES,
        S_MISSING_SKIP, S_EMPTY, S_GAIN_THRESHOLD, S_POSITIVE_SCORES, S_DEPTH, S_JUDGED_ONLY,
        S_DISCOUNT, S_PRECISION_NORM, S_RECALL_NORM, S_PARAMS, N_SPEC_COLUMNS);
    add_all!(m, s: GAIN_LINEAR, GAIN_EXPONENTIAL, GAIN_BINARY, GAIN_CUSTOM, EMPTY_ZERO,
        EMPTY_SKIP, EMPTY_ONE, MISSING_ZERO, MISSING_SKIP, MISSING_COMPLETE, AP_RELEVANT,
        AP_MIN_K, AP_HITS, AP_MIN_RETRIEVED, DISCOUNT_OFFSET, DISCOUNT_CLIPPED, PRECISION_K,
        PRECISION_RETRIEVED, RECALL_RELEVANT, RECALL_MIN_K, IDEAL_JUDGED, IDEAL_CANDIDATES,
        TIES_TREC, TIES_AVERAGE, TIES_INPUT, TIES_ID_ASCENDING, TIES_ID_DESCENDING);
    add_all!(m, s: N_PARAMS, MAX_GAIN_PAIRS, NUM_RET, NUM_REL, NUM_REL_RET,
        NUM_NONREL_JUDGED_RET, NUM_Q, BPREF, INFAP, IPREC_AT_RECALL, IPREC_AVG, RPREC_MULT,
        UTILITY, BIN_G, G, NDCG_REL, R_NDCG, RELATIVE_PRECISION, SET_PRECISION,
        SET_RELATIVE_PRECISION, SET_RECALL, SET_AP, SET_F, RBP, RBP_RESID, UNJUDGED, JUDGED,
        ERR, NERR);
    add_all!(m, s: ILS, DIVERSITY, ARP, APLT, ACLT, AVERAGE_POPULARITY, TAIL_PERCENTAGE,
        SERENDIPITY, MISCALIBRATION, EE_DISPARITY, EE_RELEVANCE, EE_LOSS);
    add_tuple(m, "RANKING_KINDS", &RANKING_KINDS)?;
    let trec: Vec<i64> = (FIRST_KIND..=LAST_KIND).collect();
    add_tuple(m, "TREC_KINDS", &trec)?;
    add_tuple(m, "LIST_KINDS", &[ILS, DIVERSITY])?;
    add_tuple(
        m,
        "POPULARITY_KINDS",
        &[ARP, APLT, ACLT, AVERAGE_POPULARITY, TAIL_PERCENTAGE],
    )?;
    add_tuple(m, "HISTORY_KINDS", &[SERENDIPITY, MISCALIBRATION])?;
    add_tuple(m, "EXPOSURE_KINDS", &[EE_DISPARITY, EE_RELEVANCE, EE_LOSS])?;
    Ok(())
}
