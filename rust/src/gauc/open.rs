//! GAUC's rows of groups that may be split across updates and accumulators, held
//! until the end on the pieces of [`crate::held`]: a table of the group ids grown
//! by every update (an update codes its distinct ids only) and per row its group
//! code (u32), its label (i8), its score (f32 while every score so far is one
//! exactly, f64 from the first that is not: widening copies nothing) and, once an
//! update gives sample weights, its weight (f32 while exact; the rows before weigh
//! 1): 9 bytes a row, 13 with f64 scores, 4 or 8 more with weights, in chunks of
//! 64K rows (no update copies the rows before it). A per-row `weighting` (each
//! group's own weight) is held per group, checked to be the same in every update
//! that gives the group.
//!
//! [`OpenGroups::absorb`] codes the other's distinct ids in this table in one pass
//! and appends its rows; [`OpenGroups::grouped`] gives the rows grouped by group
//! in a counting sort (groups in order of their first row, each group's rows in
//! the order they came), as the kernels of [`crate::gauc`] read them.

use crate::held::{Chunked, Ids, TooMany, Values};

/// The rows of every update of a GAUC accumulator whose groups may be split.
#[derive(Clone, Default)]
pub struct OpenGroups {
    pub ids: Ids,
    pub group: Chunked<u32>,
    pub label: Chunked<i8>,
    pub scores: Values,
    /// None while no update gave sample weights (each row weighs 1)
    pub weights: Option<Values>,
    pub custom: GroupWeights,
}

/// The per-row `weighting`s given (each group's own weight).
#[derive(Clone, Default)]
pub struct GroupWeights {
    /// per group code: its weight, NaN where no update gave one (empty: none given)
    pub weight: Vec<f64>,
    /// some update gave one
    pub given: bool,
    /// some update gave none
    pub without: bool,
    /// the codes of the groups given two different weights, in the order found
    /// (a group once each time: see [`OpenGroups::differ`])
    pub differ: Vec<u32>,
}

impl GroupWeights {
    /// Group `code` given `w`: held, or (another held) a group that differs.
    fn give(&mut self, code: u32, w: f64) {
        let c = code as usize;
        if self.weight.len() <= c {
            self.weight.resize(c + 1, f64::NAN);
        }
        let held = &mut self.weight[c];
        if held.is_nan() {
            *held = w;
        } else if *held != w {
            self.differ.push(code);
        }
    }

    fn memory_bytes(&self) -> usize {
        self.weight.capacity() * 8 + self.differ.capacity() * 4
    }
}

/// Scores of a batch, in the float width given.
#[derive(Clone, Copy)]
pub enum Scores<'a> {
    F32(&'a [f32]),
    F64(&'a [f64]),
}

impl Scores<'_> {
    pub fn len(&self) -> usize {
        match self {
            Scores::F32(s) => s.len(),
            Scores::F64(s) => s.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One update's checked rows: each row's code into the update's distinct ids, its
/// label (0 or 1), score and sample weight (None: 1 each), and the per-row
/// `weighting`'s weight of each distinct id (None: not given).
pub struct Batch<'a> {
    pub codes: &'a [i32],
    pub labels: &'a [i8],
    pub scores: Scores<'a>,
    pub weights: Option<&'a [f64]>,
    pub group_weight: Option<&'a [f64]>,
}

/// Scores grouped: f32 while every one held is an f32, else f64.
pub enum GroupedScores {
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// The rows grouped by group code: each position's code (each code repeated over
/// its rows), label, score and weight (None: no update gave weights).
pub struct Grouped {
    pub codes: Vec<i32>,
    pub labels: Vec<i8>,
    pub scores: GroupedScores,
    pub weights: Option<Vec<f64>>,
}

impl OpenGroups {
    /// Rows held.
    pub fn len(&self) -> usize {
        self.group.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Add an update's rows, `codes[r]` the code in this table of its distinct id
    /// `r` (see [`Ids`]); the rows must be checked.
    pub fn add(&mut self, codes: &[u32], batch: Batch<'_>) {
        let n = batch.codes.len();
        let held = self.len();
        let group: Vec<u32> = batch.codes.iter().map(|&c| codes[c as usize]).collect();
        self.group.extend_from_slice(&group);
        self.label.extend_from_slice(batch.labels);
        match batch.scores {
            Scores::F32(s) => self.scores.extend_f32(s),
            Scores::F64(s) => self.scores.extend(s),
        }
        match (&mut self.weights, batch.weights) {
            (Some(mine), Some(w)) => mine.extend(w),
            (Some(mine), None) => mine.extend_ones(n),
            (None, Some(w)) => {
                let mut mine = Values::default();
                mine.extend_ones(held);
                mine.extend(w);
                self.weights = Some(mine);
            }
            (None, None) => {}
        }
        match batch.group_weight {
            Some(gw) => {
                self.custom.given = true;
                for (&c, &w) in codes.iter().zip(gw) {
                    self.custom.give(c, w);
                }
            }
            None => self.custom.without |= n > 0,
        }
    }

    /// Add an update's checked rows whose group ids come as `i64`s, coded straight
    /// into this table (a row of the group of the row before reuses its code: rows
    /// come grouped in most loops), without sample weights or a per-row weighting.
    pub fn add_ids(
        &mut self,
        ids: &[i64],
        labels: &[i8],
        scores: Scores<'_>,
    ) -> Result<(), TooMany> {
        let mut group = Vec::with_capacity(ids.len());
        let mut last: Option<(i64, u32)> = None;
        for &id in ids {
            let code = match last {
                Some((at, code)) if at == id => code,
                _ => self.ids.code_any_int(id)?,
            };
            last = Some((id, code));
            group.push(code);
        }
        self.group.extend_from_slice(&group);
        self.label.extend_from_slice(labels);
        match scores {
            Scores::F32(s) => self.scores.extend_f32(s),
            Scores::F64(s) => self.scores.extend(s),
        }
        if let Some(mine) = &mut self.weights {
            mine.extend_ones(ids.len());
        }
        self.custom.without |= !ids.is_empty();
        Ok(())
    }

    /// Add another's rows after these, its ids coded in this table.
    pub fn absorb(&mut self, other: &OpenGroups) -> Result<(), TooMany> {
        let codes = self.ids.codes_of(&other.ids)?;
        let held = self.len();
        for c in other.group.chunks() {
            let group: Vec<u32> = c.iter().map(|&g| codes[g as usize]).collect();
            self.group.extend_from_slice(&group);
        }
        for c in other.label.chunks() {
            self.label.extend_from_slice(c);
        }
        self.scores.append(&other.scores);
        match (&mut self.weights, &other.weights) {
            (Some(mine), Some(w)) => mine.append(w),
            (Some(mine), None) => mine.extend_ones(other.len()),
            (None, Some(w)) => {
                let mut mine = Values::default();
                mine.extend_ones(held);
                mine.append(w);
                self.weights = Some(mine);
            }
            (None, None) => {}
        }
        let theirs = &other.custom;
        self.custom.given |= theirs.given;
        self.custom.without |= theirs.without;
        for (&c, &w) in codes.iter().zip(&theirs.weight) {
            if !w.is_nan() {
                self.custom.give(c, w);
            }
        }
        let differ = theirs.differ.iter().map(|&c| codes[c as usize]);
        self.custom.differ.extend(differ);
        Ok(())
    }

    /// Each group's per-row `weighting` weight, in code order (NaN where none was
    /// given; None when no update gave one).
    pub fn group_weights(&self) -> Option<Vec<f64>> {
        if !self.custom.given {
            return None;
        }
        let mut out = self.custom.weight.clone();
        out.resize(self.ids.len(), f64::NAN);
        Some(out)
    }

    /// The codes of the groups given two different per-row `weighting` weights, each
    /// once, in the order found.
    pub fn differ(&self) -> Vec<u32> {
        let mut seen = vec![false; self.ids.len()];
        let mut out = Vec::new();
        for &c in &self.custom.differ {
            if !std::mem::replace(&mut seen[c as usize], true) {
                out.push(c);
            }
        }
        out
    }

    /// Bytes held: the id table, the rows' chunks and the groups' weights.
    pub fn memory_bytes(&self) -> usize {
        self.ids.memory_bytes()
            + self.group.memory_bytes()
            + self.label.memory_bytes()
            + self.scores.memory_bytes()
            + self.weights.as_ref().map_or(0, Values::memory_bytes)
            + self.custom.memory_bytes()
    }

    /// CSR offsets of the rows by group code.
    fn offsets(&self) -> Vec<i64> {
        let n_groups = self.ids.len();
        let mut offsets = vec![0i64; n_groups + 1];
        for c in self.group.chunks() {
            for &g in c {
                offsets[g as usize + 1] += 1;
            }
        }
        for i in 0..n_groups {
            offsets[i + 1] += offsets[i];
        }
        offsets
    }

    /// The rows grouped by group code (see the module).
    pub fn grouped(&self) -> Grouped {
        let offsets = self.offsets();
        let mut codes = Vec::with_capacity(self.len());
        for (g, w) in offsets.windows(2).enumerate() {
            codes.extend(std::iter::repeat_n(g as i32, (w[1] - w[0]) as usize));
        }
        if let (Values::Single(v), None) = (&self.scores, &self.weights) {
            // the common case in one pass: each row's label and score put in place
            let (labels, scores) = self.scatter(&offsets, v.chunks(), 0f32);
            return Grouped {
                codes,
                labels,
                scores: GroupedScores::F32(scores),
                weights: None,
            };
        }
        // each row's position found once, then each column put in place
        let (labels, scores, weights) = if self.len() <= u32::MAX as usize {
            self.columns(&self.positions::<u32>(&offsets))
        } else {
            self.columns(&self.positions::<usize>(&offsets))
        };
        Grouped {
            codes,
            labels,
            scores,
            weights,
        }
    }

    /// Each row's position in the grouped order.
    fn positions<P: Pos>(&self, offsets: &[i64]) -> Vec<P> {
        let mut at: Vec<usize> = offsets[..offsets.len() - 1]
            .iter()
            .map(|&o| o as usize)
            .collect();
        let mut out = Vec::with_capacity(self.len());
        for c in self.group.chunks() {
            for &g in c {
                let slot = &mut at[g as usize];
                out.push(P::of(*slot));
                *slot += 1;
            }
        }
        out
    }

    /// The labels, scores and weights put at the positions `at`.
    #[allow(clippy::type_complexity)]
    fn columns<P: Pos>(&self, at: &[P]) -> (Vec<i8>, GroupedScores, Option<Vec<f64>>) {
        let values = |v: &Values| {
            let mut out = vec![0f64; at.len()];
            match v {
                Values::Single(v) => put(&mut out, at, 0, v.chunks()),
                Values::Double(v) => {
                    let r = put(&mut out, at, 0, v.narrow.chunks());
                    put(&mut out, at, r, v.wide.chunks())
                }
            };
            out
        };
        let mut labels = vec![0i8; at.len()];
        put(&mut labels, at, 0, self.label.chunks());
        let scores = match &self.scores {
            Values::Single(v) => {
                let mut out = vec![0f32; at.len()];
                put(&mut out, at, 0, v.chunks());
                GroupedScores::F32(out)
            }
            Values::Double(_) => GroupedScores::F64(values(&self.scores)),
        };
        (labels, scores, self.weights.as_ref().map(values))
    }

    /// The labels and the values of the rows (`values`: in chunks of `CHUNK` rows,
    /// in row order) put in the order of their groups, in one pass.
    fn scatter<'a, T: Copy + 'a>(
        &self,
        offsets: &[i64],
        values: impl Iterator<Item = &'a [T]>,
        zero: T,
    ) -> (Vec<i8>, Vec<T>) {
        let mut at: Vec<usize> = offsets[..offsets.len() - 1]
            .iter()
            .map(|&o| o as usize)
            .collect();
        let n = self.len();
        let (mut labels, mut out) = (vec![0i8; n], vec![zero; n]);
        let chunks = self.group.chunks().zip(self.label.chunks()).zip(values);
        for ((groups, ls), xs) in chunks {
            debug_assert!(groups.len() == ls.len() && groups.len() == xs.len());
            for ((&g, &l), &x) in groups.iter().zip(ls).zip(xs) {
                let slot = &mut at[g as usize];
                labels[*slot] = l;
                out[*slot] = x;
                *slot += 1;
            }
        }
        (labels, out)
    }
}

/// A row's position: u32 while the rows are that few, else usize.
trait Pos: Copy {
    fn of(at: usize) -> Self;
    fn at(self) -> usize;
}

impl Pos for u32 {
    #[inline(always)]
    fn of(at: usize) -> Self {
        at as u32
    }
    #[inline(always)]
    fn at(self) -> usize {
        self as usize
    }
}

impl Pos for usize {
    #[inline(always)]
    fn of(at: usize) -> Self {
        at
    }
    #[inline(always)]
    fn at(self) -> usize {
        self
    }
}

/// The values of rows `r..` (in chunks, in row order) put at their positions in
/// `out`; returns the row after them.
fn put<'a, S: Copy + Into<T> + 'a, T, P: Pos>(
    out: &mut [T],
    at: &[P],
    mut r: usize,
    chunks: impl Iterator<Item = &'a [S]>,
) -> usize {
    for c in chunks {
        for (&x, p) in c.iter().zip(&at[r..r + c.len()]) {
            out[p.at()] = x.into();
        }
        r += c.len();
    }
    r
}

#[cfg(test)]
mod tests;
