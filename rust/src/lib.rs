//! The compiled kernels of receval: plain functions over slices, grouped by family.
//!
//! Every kernel is exact where the Python layer promises it (integer pair counts,
//! fixed-point sums of 2^-1074 units) and its result does not depend on the number
//! of threads: parallel kernels cut their input into chunks fixed by the caller.
//! The `python` feature adds the `receval._core` module (`python/`).
//!
//! The crate is not published: its documentation is read with its private items
//! (`cargo doc --document-private-items`), which its public items' docs link to.
#![allow(rustdoc::private_intra_doc_links)]

pub mod auc;
pub mod calibration;
pub mod checks;
pub mod csr;
pub mod encode;
pub mod gauc;
pub mod held;
pub mod integer_ids;
pub mod lists;
pub mod ln;
pub mod loss;
pub mod pages;
pub mod quotes;
pub mod ranking;
pub mod retention;
pub mod runs;
pub mod scan;
pub mod seen;
pub mod simd;
pub mod sort;
pub mod spec;
pub mod split;
pub mod stats;
pub mod sums;
#[cfg(test)]
pub(crate) mod testing;
pub mod threads;
pub mod ties;
pub mod topk;
pub mod trec;
pub mod trec_eval;
pub mod xauc;

#[cfg(feature = "python")]
mod python;
