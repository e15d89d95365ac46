//! What a TREC file parses to: its kind, its errors, and the users, items, grades
//! or scores of its rows with the ids encoded to dense codes.

use crate::encode::TextIds;
use crate::pages::{try_reserve, try_reserve_exact, OutOfMemory};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// `user iteration item grade`
    Qrels,
    /// `user Q0 item rank score tag`
    Run,
}

/// Why a file was refused, and where.
#[derive(Clone, PartialEq, Debug)]
pub enum TrecError {
    /// A line with another number of fields: (line, fields found, the line's text).
    Fields(usize, usize, Vec<u8>),
    /// A grade or score that does not parse: (line, the value's text).
    Number(usize, Vec<u8>),
    /// A score that parses but is not finite: (line, value).
    NotFinite(usize, f64),
}

impl TrecError {
    pub(super) fn rank(&self) -> (u8, usize) {
        match self {
            TrecError::Fields(line, ..) => (0, *line),
            TrecError::Number(line, _) => (1, *line),
            TrecError::NotFinite(line, _) => (2, *line),
        }
    }

    pub(super) fn shifted(self, lines: usize) -> Self {
        match self {
            TrecError::Fields(l, k, t) => TrecError::Fields(l + lines, k, t),
            TrecError::Number(l, t) => TrecError::Number(l + lines, t),
            TrecError::NotFinite(l, v) => TrecError::NotFinite(l + lines, v),
        }
    }
}

pub(super) fn keep_first(slot: &mut Option<TrecError>, e: TrecError) {
    if slot.as_ref().is_none_or(|old| e.rank() < old.rank()) {
        *slot = Some(e);
    }
}

/// The user of each row: CSR offsets when the rows are grouped by user in code order
/// (the rows of user `u` are `offsets[u]..offsets[u + 1]`), else a code per row.
#[derive(Debug, Clone, PartialEq)]
pub enum Users {
    /// `n_users + 1` offsets (grouped rows).
    Offsets(Vec<i64>),
    /// One code per row.
    Codes(Vec<i32>),
}

impl Users {
    /// The code of every row.
    pub fn codes(&self) -> Vec<i32> {
        self.try_codes().unwrap_or_else(|e| panic!("{e}"))
    }

    /// The code of every row, or the memory that could not be had.
    fn try_codes(&self) -> Result<Vec<i32>, OutOfMemory> {
        match self {
            Users::Codes(c) => {
                let mut out = Vec::new();
                try_reserve_exact(&mut out, c.len())?;
                out.extend_from_slice(c);
                Ok(out)
            }
            Users::Offsets(o) => {
                let mut out = Vec::new();
                try_reserve(&mut out, *o.last().unwrap_or(&0) as usize)?;
                for (u, w) in o.windows(2).enumerate() {
                    out.resize(w[1] as usize, u as i32);
                }
                Ok(out)
            }
        }
    }

    /// Append `n` rows of user `code`.
    pub(super) fn push_run(&mut self, code: u32, n: usize) -> Result<(), OutOfMemory> {
        if let Users::Offsets(o) = self {
            let users = o.len() - 1;
            let end = o[users];
            if users > 0 && code as usize == users - 1 {
                o[users] = end + n as i64; // the last user goes on
                return Ok(());
            }
            if code as usize == users {
                try_reserve(o, 1)?;
                o.push(end + n as i64); // the next new user
                return Ok(());
            }
            *self = Users::Codes(self.try_codes()?); // a user seen before: not grouped
        }
        if let Users::Codes(c) = self {
            try_reserve(c, n)?;
            c.resize(c.len() + n, code as i32);
        }
        Ok(())
    }
}

/// A parsed file: the user and item of each row, the distinct ids in order of first
/// appearance, the grades (qrels) or scores (run), and the run tag of the last line.
#[derive(Debug)]
pub struct Parsed {
    /// User of each row.
    pub users: Users,
    /// Item code of each row.
    pub items: Vec<i32>,
    /// Distinct user ids, by code.
    pub user_ids: TextIds,
    /// Distinct item ids, by code.
    pub item_ids: TextIds,
    /// Grades of a qrels file.
    pub grades: Vec<i64>,
    /// Scores of a run file.
    pub scores: Vec<f64>,
    /// The tag of the last run line (trec_eval's `runid`: it keeps the tag of each
    /// line it reads, so the last one's is printed).
    pub tag: Option<Vec<u8>>,
}
