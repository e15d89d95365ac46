//! The inputs of the ranking kernel: the qrels and the run as CSRs over users, and
//! the maps between their codes.

/// The qrels CSR: per user `offsets[u]..offsets[u+1]` rows of judged `items`
/// (ascending codes) with their `grades`, and `desc`, each user's grades descending.
#[derive(Clone, Copy)]
pub struct Judged<'a> {
    /// user offsets (n_users + 1)
    pub offsets: &'a [i64],
    /// judged item codes, ascending within each user
    pub items: &'a [i32],
    /// grade of each judged item
    pub grades: &'a [f64],
    /// each user's grades, descending
    pub desc: &'a [f64],
}

/// The run CSR: per user `offsets[u]..offsets[u+1]` rows of `items` in ranked order
/// with their `scores`; `keys[item]` breaks ties for the trec and id-ascending rules
/// (may be empty when no metric needs them).
#[derive(Clone, Copy)]
pub struct Ranked<'a> {
    /// user offsets (n_users + 1)
    pub offsets: &'a [i64],
    /// ranked item codes
    pub items: &'a [i32],
    /// scores, descending within each user
    pub scores: &'a [f64],
    /// tie-break key per run item code (may be empty)
    pub keys: &'a [f64],
}

/// Everything the kernel (`evaluate_users`) reads besides the specs.
#[derive(Clone, Copy)]
pub struct Inputs<'a> {
    /// the qrels
    pub judged: Judged<'a>,
    /// the run
    pub ranked: Ranked<'a>,
    /// run item code of each qrels item code (-1 when no user was recommended the item)
    pub item_map: &'a [i32],
    /// run user of each qrels user (-1 when absent from the run)
    pub user_map: &'a [i32],
    /// at least the longest list of the run (the length of the scratch buffers)
    pub max_len: usize,
    /// `disc[j] = 1 / log2(j + 2)`, covering the longest list and the most judged
    /// items of a user
    pub disc: &'a [f64],
}
