//! The top-K ranking metrics of every qrels user in one pass (the engine of
//! `evaluate`).
//!
//! Layout: the qrels are a CSR over users with each user's judged items sorted by
//! item code, their grades, and beside them the user's grades sorted descending
//! (for the ideal DCG). The run is a CSR over its users with the items of each user
//! in ranked order (score descending, input order within ties) and their scores
//! ([`inputs`]). [`evaluate_users`] looks up the grade of each recommended item once
//! and computes every requested metric (a [`crate::spec::Spec`] each) from that one
//! vector of grades, cut first by the metric's depth and judged-only rules
//! ([`users`]). trec_eval's measures and nDCG with a custom gain table are computed
//! by [`crate::trec::measures`] from the same grades; the others by [`measures`].
//!
//! Every float is computed with the operations of the reference kernels in the
//! same order (no reassociation, no fused multiply-add), and a user's values
//! depend on that user's rows only, so the results are the same for any number of
//! chunks or threads.

pub mod evaluate;
pub mod inputs;
pub mod measures;
pub mod open;
pub mod order;
mod users;

pub use evaluate::{evaluate_users, evaluate_users_columns_into};
pub use inputs::{Inputs, Judged, Ranked};
pub use measures::{
    gain, idcg, metric_from_hits, normalized_form, user_metric, UserList, UserMetric,
};
pub use order::{trec_order, trec_order_into};

#[cfg(test)]
mod tests;
