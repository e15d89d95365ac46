//! The integer codes of the ranking kernel, exported to Python as constants of
//! `receval._core`: the metric kinds and the sizes of a spec's parameters. Each is
//! defined once, in `spec.rs`; the registry reads them from here. The specs
//! themselves cross as `RankingSpec` values (`python_ranking.rs`).

use pyo3::prelude::*;
use pyo3::types::PyTuple;

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
    add_all!(m, s: N_PARAMS, MAX_GAIN_PAIRS, NUM_RET, NUM_REL, NUM_REL_RET,
        NUM_NONREL_JUDGED_RET, NUM_Q, BPREF, INFAP, IPREC_AT_RECALL, IPREC_AVG, RPREC_MULT,
        UTILITY, BIN_G, G, NDCG_REL, R_NDCG, RELATIVE_PRECISION, SET_PRECISION,
        SET_RELATIVE_PRECISION, SET_RECALL, SET_AP, SET_F, RBP, RBP_RESID, UNJUDGED, JUDGED,
        ERR, NERR, PFOUND, AVERAGE_GAIN);
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
