//! trec_eval's command in one pass: the qrels and run files read ([`crate::trec`]),
//! each query's documents ranked as trec_eval 10.0 ranks them (score descending,
//! ties by document id descending), every requested measure computed by the
//! ranking kernel ([`crate::ranking`]) for every query of the qrels, in byte order
//! of the query ids, and each query's `relstring`.
//!
//! The measures come as the kernel's specs, built by the caller from its table of
//! trec_eval's measures (`receval.registry.trec_eval`) under trec_eval's options:
//! nothing here names a measure. The caller prints the values (means over the
//! queries, absent queries without `-c`).

use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;

use crate::checks::smallest_distinct;
use crate::encode::{Key, TextIds};
use crate::pages::{try_collect, try_zeros, OutOfMemory};
use crate::ranking::{evaluate_users_columns_into, trec_order_into, Inputs, Judged, Ranked};
use crate::spec::{Spec, Ties};
use crate::threads::PARALLEL_ROWS;
use crate::trec::{Parsed, Users};

/// The relstrings asked: their length, whether `-m relstring` came without one
/// (`bare`), and trec_eval's options that cut the ranked list first.
#[derive(Clone, Copy, Debug, Default)]
pub struct Relstring {
    /// documents shown
    pub length: usize,
    /// `-m relstring` without a length
    pub bare: bool,
    /// `-M`: only the first this many documents count (None: all; `Some(0)`: none)
    pub depth: Option<usize>,
    /// `-J`: documents absent from the qrels or with a negative grade are removed first
    pub judged_only: bool,
}

/// The file that cannot be evaluated as it is (a repeated (query, document) pair, no
/// line, an id that is not UTF-8): the caller reads it again for the message; or the
/// memory that could not be had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// the qrels
    Qrels,
    /// the run
    Run,
    /// a buffer of the files' rows
    Memory(OutOfMemory),
}

impl From<OutOfMemory> for Refused {
    fn from(e: OutOfMemory) -> Self {
        Refused::Memory(e)
    }
}

/// What the files give: every query of the qrels in byte order of its id, whether the
/// run ranks documents for it, the value of each spec for it (a column per spec), its
/// relstring (when asked), the run's tag (its last line's) and the qrels' grades above 0
/// (trec_eval's `num_rel` with `-c`).
#[derive(Debug, Default)]
pub struct Table {
    /// query ids, in byte order
    pub queries: Vec<Vec<u8>>,
    /// whether the run holds the query
    pub in_run: Vec<bool>,
    /// per spec, the value of each query
    pub columns: Vec<Vec<f64>>,
    /// per query, its relstring (empty when not asked)
    pub relstrings: Vec<String>,
    /// the tag of the run's last line (trec_eval's `runid`)
    pub tag: Option<Vec<u8>>,
    /// grades above 0 in the qrels
    pub positive_grades: usize,
    /// how the ids match: the qrels' queries, those in the run, the run's documents
    /// judged in the qrels, the run's documents, the qrels' documents (all distinct)
    pub matching: [usize; 5],
    /// the smallest ids (at most [`crate::checks::SHOWN`], in byte order) of the qrels' queries, the
    /// run's queries, the qrels' documents and the run's documents, for messages
    pub examples: [Vec<Vec<u8>>; 4],
    /// the run's queries absent from the qrels (trec_eval ignores them)
    pub run_only: usize,
}

/// The qrels as the kernel reads them: each query's judged documents by code, their
/// grades, and the grades descending; None when a query judges a document twice.
struct QrelsCsr {
    offsets: Vec<i64>,
    items: Vec<i32>,
    grades: Vec<f64>,
    desc: Vec<f64>,
}

/// The rows of each user, stable: `(offsets, rows)`. The buffers of as many
/// elements as rows (here and below) are had fallibly: a file that does not fit in
/// memory is refused, never aborts the process.
fn group(
    users: &Users,
    n_users: usize,
    n_rows: usize,
) -> Result<(Vec<i64>, Vec<usize>), OutOfMemory> {
    Ok(match users {
        Users::Offsets(o) => (o.clone(), try_collect(0..n_rows)?),
        Users::Codes(codes) => {
            let mut offsets = vec![0i64; n_users + 1];
            for &c in codes {
                offsets[c as usize + 1] += 1;
            }
            for u in 0..n_users {
                offsets[u + 1] += offsets[u];
            }
            let mut next: Vec<usize> = offsets[..n_users].iter().map(|&x| x as usize).collect();
            let mut rows = try_zeros::<usize>(n_rows, 1)?;
            for (row, &c) in codes.iter().enumerate() {
                rows[next[c as usize]] = row;
                next[c as usize] += 1;
            }
            (offsets, rows)
        }
    })
}

/// The qrels' [`QrelsCsr`]; refused when a query judges a document twice.
fn qrels_csr(q: &Parsed) -> Result<QrelsCsr, Refused> {
    let (offsets, rows) = group(&q.users, q.user_ids.len(), q.items.len())?;
    let mut pairs = try_collect(rows.iter().map(|&r| (q.items[r], q.grades[r] as f64)))?;
    drop(rows);
    let mut desc = try_zeros::<f64>(pairs.len(), 1)?;
    for w in offsets.windows(2) {
        let (a, b) = (w[0] as usize, w[1] as usize);
        let seg = &mut pairs[a..b];
        seg.sort_by_key(|p| p.0);
        if seg.windows(2).any(|p| p[0].0 == p[1].0) {
            return Err(Refused::Qrels);
        }
        for (d, p) in desc[a..b].iter_mut().zip(&*seg) {
            *d = p.1;
        }
        desc[a..b].sort_by(|a: &f64, b| b.total_cmp(a));
    }
    Ok(QrelsCsr {
        offsets,
        items: try_collect(pairs.iter().map(|p| p.0))?,
        grades: try_collect(pairs.iter().map(|p| p.1))?,
        desc,
    })
}

/// The run as the kernel reads it: each query's documents by score descending (file
/// order within equal scores), and per query whether two of its scores are equal, and
/// whether two are equal in single precision.
struct RunCsr {
    offsets: Vec<i64>,
    items: Vec<i32>,
    scores: Vec<f64>,
    tied: Vec<bool>,
    tied_single: Vec<bool>,
}

/// The run's [`RunCsr`]; refused when a query ranks a document twice.
fn run_csr(r: &Parsed) -> Result<RunCsr, Refused> {
    let (offsets, rows) = group(&r.users, r.user_ids.len(), r.items.len())?;
    let mut last = vec![-1i64; r.item_ids.len()];
    for (u, w) in offsets.windows(2).enumerate() {
        for &row in &rows[w[0] as usize..w[1] as usize] {
            let item = r.items[row] as usize;
            if last[item] == u as i64 {
                return Err(Refused::Run);
            }
            last[item] = u as i64;
        }
    }
    let mut pairs = try_collect(rows.iter().map(|&row| (r.scores[row], r.items[row])))?;
    drop(rows);
    // each query's list cut off the rest, sorted on its own (stable: file order in ties)
    let mut lists = crate::threads::split_at_bounds(&mut pairs, &offsets);
    // descending in double precision is descending in single precision: equal
    // scores of either are neighbours
    let sort = |list: &mut &mut [(f64, i32)]| {
        list.sort_by(|a, b| b.0.total_cmp(&a.0));
        let tied = list.windows(2).any(|p| p[0].0 == p[1].0);
        let single = list.windows(2).any(|p| p[0].0 as f32 == p[1].0 as f32);
        (tied, single)
    };
    let flags: Vec<(bool, bool)> = if pairs_len(&offsets) < PARALLEL_ROWS {
        lists.iter_mut().map(sort).collect()
    } else {
        crate::threads::install(|| lists.par_iter_mut().map(sort).collect())
    };
    Ok(RunCsr {
        items: try_collect(pairs.iter().map(|p| p.1))?,
        scores: try_collect(pairs.iter().map(|p| p.0))?,
        offsets,
        tied: flags.iter().map(|f| f.0).collect(),
        tied_single: flags.iter().map(|f| f.1).collect(),
    })
}

/// The rows of a CSR.
fn pairs_len(offsets: &[i64]) -> usize {
    offsets.last().map_or(0, |&n| n as usize)
}

/// The position of each of `ids` among `other`'s ids (-1: absent), looked up in
/// `other`'s table.
fn lookup(ids: &TextIds, other: &TextIds) -> Vec<i32> {
    let code = |id: &[u8]| other.get(id, &Key::new(id, 0, id.len()));
    ids.iter()
        .map(|id| code(id).map_or(-1, |c| c as i32))
        .collect()
}

/// The rank of every id in byte order, as the kernel's tie-break keys: sorted by
/// their first 16 bytes (as a big-endian integer, zero-padded), then the rest.
fn byte_ranks(ids: &TextIds) -> Vec<f64> {
    let prefix = |s: &[u8]| {
        let mut b = [0u8; 16];
        let n = s.len().min(16);
        b[..n].copy_from_slice(&s[..n]);
        u128::from_be_bytes(b)
    };
    let mut order: Vec<(u128, usize)> = (0..ids.len()).map(|c| (prefix(ids.text(c)), c)).collect();
    let rest = |c: usize| ids.text(c).get(16..).unwrap_or(&[]);
    // a shorter id that is a prefix of a longer one sorts first (its padding is 0, and
    // then its rest is shorter); equal ids do not occur
    let cmp = |a: &(u128, usize), b: &(u128, usize)| {
        (a.0.cmp(&b.0))
            .then_with(|| {
                ids.text(a.1)
                    .len()
                    .min(16)
                    .cmp(&ids.text(b.1).len().min(16))
            })
            .then_with(|| rest(a.1).cmp(rest(b.1)))
    };
    if order.len() < PARALLEL_ROWS {
        order.sort_unstable_by(cmp);
    } else {
        crate::threads::install(|| order.par_sort_unstable_by(cmp));
    }
    let mut keys = vec![0.0; ids.len()];
    for (rank, &(_, code)) in order.iter().enumerate() {
        keys[code] = rank as f64;
    }
    keys
}

fn utf8(ids: &TextIds) -> bool {
    ids.iter().all(|id| std::str::from_utf8(id).is_ok())
}

/// trec_eval's character of a document in a relstring: its grade 0-9, `>` above 9,
/// `-` absent from the qrels, `.` a negative grade.
fn relchar(grade: Option<f64>) -> char {
    match grade {
        None => '-',
        Some(g) if g < 0.0 => '.',
        Some(g) if g > 9.0 => '>',
        Some(g) => char::from(b'0' + g as u8),
    }
}

/// The files as the kernel reads them: the qrels and run CSRs, the tie-break keys of
/// the run's documents, the maps of qrels ids to run ids and the discounts.
struct Prepared {
    judged: QrelsCsr,
    ranked: RunCsr,
    keys: Vec<f64>,
    item_map: Vec<i32>,
    user_map: Vec<i32>,
    max_len: usize,
    disc: Vec<f64>,
}

impl Prepared {
    /// The qrels `q` and run `r` prepared; refused as [`evaluate`] refuses them.
    fn new(q: &Parsed, r: &Parsed) -> Result<Self, Refused> {
        if q.items.is_empty() || !utf8(&q.user_ids) || !utf8(&q.item_ids) {
            return Err(Refused::Qrels);
        }
        if r.items.is_empty() || !utf8(&r.user_ids) || !utf8(&r.item_ids) {
            return Err(Refused::Run);
        }
        let judged = qrels_csr(q)?;
        let ranked = run_csr(r)?;
        // ties are broken by document id: ranks only where a query has two scores
        // equal (in single precision, as `ties="trec"` compares them)
        let keys = if ranked.tied_single.iter().any(|&t| t) {
            byte_ranks(&r.item_ids)
        } else {
            Vec::new()
        };
        let item_map = lookup(&q.item_ids, &r.item_ids);
        let user_map = lookup(&q.user_ids, &r.user_ids);
        let longest = |offsets: &[i64]| {
            offsets
                .windows(2)
                .map(|w| (w[1] - w[0]) as usize)
                .max()
                .unwrap_or(0)
        };
        let max_len = longest(&ranked.offsets).max(1);
        let depth = max_len.max(longest(&judged.offsets));
        let disc: Vec<f64> = (0..depth).map(|j| 1.0 / (j as f64 + 2.0).log2()).collect();
        Ok(Prepared {
            judged,
            ranked,
            keys,
            item_map,
            user_map,
            max_len,
            disc,
        })
    }

    /// How the ids match (see [`Table::matching`]).
    fn matching(&self, q: &Parsed, r: &Parsed) -> [usize; 5] {
        [
            self.user_map.len(),
            self.user_map.iter().filter(|&&u| u >= 0).count(),
            self.item_map.iter().filter(|&&i| i >= 0).count(),
            r.item_ids.len(),
            q.item_ids.len(),
        ]
    }

    /// The kernel's view of the files.
    fn inputs(&self) -> Inputs<'_> {
        Inputs {
            judged: Judged {
                offsets: &self.judged.offsets,
                items: &self.judged.items,
                grades: &self.judged.grades,
                desc: &self.judged.desc,
            },
            ranked: Ranked {
                offsets: &self.ranked.offsets,
                items: &self.ranked.items,
                scores: &self.ranked.scores,
                keys: &self.keys,
            },
            item_map: &self.item_map,
            user_map: &self.user_map,
            max_len: self.max_len,
            disc: &self.disc,
        }
    }

    /// Every spec's value and auxiliary value (the user's relevant items) for every
    /// qrels user, a column per spec, users in the qrels' order.
    fn columns(&self, specs: &[Spec]) -> (Vec<f64>, Vec<f64>) {
        let n_chunks = 4 * crate::threads::num_threads();
        let n_users = self.user_map.len();
        let mut values = vec![0.0; n_users * specs.len()];
        let mut aux = vec![0.0; n_users * specs.len()];
        evaluate_users_columns_into(&self.inputs(), specs, n_chunks, &mut values, &mut aux);
        (values, aux)
    }
}

/// Every spec for every query of the qrels `q` against the run `r`, with each query's
/// relstring when `relstring` asks for them.
pub fn evaluate(
    q: &Parsed,
    r: &Parsed,
    specs: &[Spec],
    relstring: Option<Relstring>,
) -> Result<Table, Refused> {
    let p = Prepared::new(q, r)?;
    let (judged, item_map, user_map) = (&p.judged, &p.item_map, &p.user_map);
    let n_users = q.user_ids.len();
    // a column per measure, users in the qrels' order
    let (values, aux) = p.columns(specs);
    drop(aux);
    let mut order: Vec<usize> = (0..n_users).collect();
    order.sort_by(|&a, &b| q.user_ids.text(a).cmp(q.user_ids.text(b)));
    let columns = match n_users {
        0 => vec![Vec::new(); specs.len()],
        n => values
            .chunks(n)
            .map(|col| order.iter().map(|&u| col[u]).collect())
            .collect(),
    };
    let relstrings = match relstring {
        None => Vec::new(),
        Some(asked) => {
            let lists = Relstrings {
                q: judged,
                item_map,
                r: p.inputs().ranked,
                asked,
            };
            order.iter().map(|&u| lists.of(u, user_map[u])).collect()
        }
    };
    Ok(Table {
        queries: order.iter().map(|&u| q.user_ids.text(u).to_vec()).collect(),
        in_run: order.iter().map(|&u| user_map[u] >= 0).collect(),
        columns,
        relstrings,
        tag: r.tag.clone(),
        positive_grades: q.grades.iter().filter(|&&g| g > 0).count(),
        matching: p.matching(q, r),
        run_only: r.user_ids.len() - user_map.iter().filter(|&&u| u >= 0).count(),
        examples: [&q.user_ids, &r.user_ids, &q.item_ids, &r.item_ids].map(|ids| {
            smallest_distinct(ids.iter())
                .into_iter()
                .map(<[u8]>::to_vec)
                .collect()
        }),
    })
}

/// What the files give `receval rank`: every query of the qrels in the qrels' order,
/// the value and auxiliary value (the query's relevant documents) of each spec for
/// it, whether the run holds it, whether its list holds tied scores, and the counts
/// of the run and of the ids that match.
#[derive(Debug, Default)]
pub struct UserTable {
    /// query ids, in the qrels' order (of first appearance)
    pub queries: Vec<Vec<u8>>,
    /// whether the run holds the query
    pub in_run: Vec<bool>,
    /// whether the query's list holds two equal scores (in single precision when
    /// asked)
    pub tied: Vec<bool>,
    /// per spec, the value of each query
    pub columns: Vec<Vec<f64>>,
    /// per spec, the auxiliary value of each query
    pub aux: Vec<Vec<f64>>,
    /// the run's queries and lines
    pub run_size: [usize; 2],
    /// as [`Table::matching`]
    pub matching: [usize; 5],
}

/// Every spec for every query of the qrels `q` against the run `r`, queries in the
/// qrels' order, with the auxiliary values and which lists hold tied scores
/// (`single`: scores equal in single precision).
pub fn evaluate_users(
    q: &Parsed,
    r: &Parsed,
    specs: &[Spec],
    single: bool,
) -> Result<UserTable, Refused> {
    let p = Prepared::new(q, r)?;
    let n_users = q.user_ids.len();
    let (values, aux) = p.columns(specs);
    let split = |flat: Vec<f64>| match n_users {
        0 => vec![Vec::new(); specs.len()],
        n => flat.chunks(n).map(<[f64]>::to_vec).collect(),
    };
    let ties = if single {
        &p.ranked.tied_single
    } else {
        &p.ranked.tied
    };
    Ok(UserTable {
        queries: q.user_ids.iter().map(<[u8]>::to_vec).collect(),
        in_run: p.user_map.iter().map(|&u| u >= 0).collect(),
        tied: p
            .user_map
            .iter()
            .map(|&u| u >= 0 && ties[u as usize])
            .collect(),
        columns: split(values),
        aux: split(aux),
        run_size: [r.user_ids.len(), r.items.len()],
        matching: p.matching(q, r),
    })
}

/// What the relstrings are made of: the qrels, the run ranked by score with the
/// tie-break keys of its documents, and what is asked.
struct Relstrings<'a> {
    q: &'a QrelsCsr,
    item_map: &'a [i32],
    r: Ranked<'a>,
    asked: Relstring,
}

impl Relstrings<'_> {
    /// The relstring of qrels query `u` (run query `ru`, -1 when absent): the first
    /// `length` documents in trec_eval's order after `-M` and `-J`.
    fn of(&self, u: usize, ru: i32) -> String {
        let (q, r, o) = (self.q, &self.r, &self.asked);
        if ru < 0 {
            // -c: trec_eval ranks one document absent from the qrels for the query
            // (which -J removes and -M 0 cuts), and clears the string only under the
            // bare name relstring
            return if o.bare || o.judged_only || o.depth == Some(0) || o.length == 0 {
                String::new()
            } else {
                "-".to_string()
            };
        }
        let (a, b) = (q.offsets[u] as usize, q.offsets[u + 1] as usize);
        let grades: HashMap<i32, f64> = (a..b)
            .filter(|&j| self.item_map[q.items[j] as usize] >= 0)
            .map(|j| (self.item_map[q.items[j] as usize], q.grades[j]))
            .collect();
        let ru = ru as usize;
        let (ra, rb) = (r.offsets[ru] as usize, r.offsets[ru + 1] as usize);
        let (scores, items) = (&r.scores[ra..rb], &r.items[ra..rb]);
        let mut perm = vec![0usize; items.len()];
        let mut block = Vec::new();
        let rule = Ties::IdDescending;
        trec_order_into(scores, items, r.keys, rule, &mut perm, &mut block);
        let mut ranked: Vec<i32> = perm.iter().map(|&j| items[j]).collect();
        if let Some(depth) = o.depth {
            ranked.truncate(depth);
        }
        ranked
            .iter()
            .map(|item| grades.get(item).copied())
            .filter(|g| !o.judged_only || g.is_some_and(|g| g >= 0.0))
            .take(o.length)
            .map(relchar)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Missing, NUM_RET, PRECISION};
    use crate::trec::{parse, Kind};

    /// A measure as trec_eval's command asks the kernel for it (relevance from grade 1).
    fn spec(kind: i64, k: i64) -> Spec {
        Spec {
            kind,
            k,
            threshold: 1.0,
            gain_threshold: 1.0,
            ties: Ties::IdDescending,
            missing: Missing::Complete,
            ..Spec::default()
        }
    }

    fn table(qrels: &str, run: &str, specs: &[Spec]) -> Table {
        let q = parse(qrels.as_bytes(), Kind::Qrels).unwrap();
        let r = parse(run.as_bytes(), Kind::Run).unwrap();
        let asked = Relstring {
            length: 10,
            bare: true,
            ..Relstring::default()
        };
        evaluate(&q, &r, specs, Some(asked)).unwrap()
    }

    #[test]
    fn queries_in_byte_order_ties_by_id_descending() {
        let qrels = "q2 0 a 1\nq10 0 b 1\nq10 0 c 0\n";
        let run = "q10 Q0 b 1 1.0 sys\nq10 Q0 c 2 1.0 sys\nq2 Q0 a 1 0.5 sys\n";
        let t = table(qrels, run, &[spec(PRECISION, 1), spec(NUM_RET, 0)]);
        assert_eq!(t.queries, vec![b"q10".to_vec(), b"q2".to_vec()]);
        // q10: c (grade 0) before b (grade 1), ids descending within the tie
        assert_eq!(t.columns[0], vec![0.0, 1.0]);
        assert_eq!(t.columns[1], vec![2.0, 1.0]);
        assert_eq!(t.relstrings, vec!["01".to_string(), "1".to_string()]);
        assert_eq!(t.tag.as_deref(), Some(&b"sys"[..]));
        assert_eq!(t.positive_grades, 2);
        assert_eq!(t.matching, [2, 2, 3, 3, 3]);
        assert_eq!(t.examples[0], vec![b"q10".to_vec(), b"q2".to_vec()]);
    }

    #[test]
    fn examples_are_the_smallest_ids_in_byte_order() {
        // met first: q9..q4, d9..d4 (qrels), r9..r4, e9..e6b (run); the smallest come
        // later ("Q1": upper case before lower case, as Python orders str)
        let qrels: String = ["q9", "q8", "q7", "q6", "q5", "q4", "q3", "q10", "q2", "Q1"]
            .iter()
            .enumerate()
            .map(|(i, q)| format!("{q} 0 d{} 1\n", 9 - i as i64))
            .collect();
        let run: String = (3..10)
            .rev()
            .chain([10, 2])
            .map(|i| format!("r{i} Q0 e{i} 1 1.0 s\nr{i} Q0 e{i}b 2 0.5 s\n"))
            .collect();
        let t = table(&qrels, &run, &[spec(NUM_RET, 0)]);
        let ids = |v: &[&str]| v.iter().map(|s| s.as_bytes().to_vec()).collect::<Vec<_>>();
        assert_eq!(t.examples[0], ids(&["Q1", "q10", "q2", "q3", "q4", "q5"]));
        assert_eq!(t.examples[1], ids(&["r10", "r2", "r3", "r4", "r5", "r6"]));
        assert_eq!(t.examples[2], ids(&["d0", "d1", "d2", "d3", "d4", "d5"]));
        assert_eq!(
            t.examples[3],
            ids(&["e10", "e10b", "e2", "e2b", "e3", "e3b"])
        );
        // the whole ids, in order, when there are fewer than shown
        let t = table("b 0 x 1\na 0 x 1\n", "b Q0 x 1 1 s\n", &[]);
        assert_eq!(t.examples[0], ids(&["a", "b"]));
    }

    #[test]
    fn absent_queries_and_repeated_pairs() {
        let ap = spec(crate::spec::AP, 0);
        let t = table("q1 0 a 1\nq2 0 a 1\n", "q1 Q0 a 1 1 s\n", &[ap]);
        assert_eq!(t.in_run, vec![true, false]);
        assert_eq!(t.columns[0], vec![1.0, 0.0]);
        let q = parse(b"q1 0 a 1\nq1 0 a 2\n", Kind::Qrels).unwrap();
        let r = parse(b"q1 Q0 a 1 1 s\n", Kind::Run).unwrap();
        assert_eq!(evaluate(&q, &r, &[], None).err(), Some(Refused::Qrels));
        let q = parse(b"q1 0 a 1\n", Kind::Qrels).unwrap();
        let r = parse(b"q1 Q0 a 1 1 s\nq1 Q0 a 2 0 s\n", Kind::Run).unwrap();
        assert_eq!(evaluate(&q, &r, &[], None).err(), Some(Refused::Run));
    }

    #[test]
    fn depth_zero_keeps_no_document() {
        // -M 0: every list empty, the absent query's (-c) too; the queries still count
        // with their relevant documents. "x" is a run query absent from the qrels
        let none = |kind| Spec {
            depth: Some(0),
            ..spec(kind, 0)
        };
        let specs = [
            none(NUM_RET),
            none(crate::spec::AP),
            none(crate::spec::NUM_REL),
        ];
        let t = table(
            "q1 0 a 1\nq2 0 a 1\n",
            "q1 Q0 a 1 1 s\nx Q0 a 1 1 s\n",
            &specs,
        );
        assert_eq!(t.in_run, vec![true, false]);
        assert_eq!(
            t.columns,
            vec![vec![0.0, 0.0], vec![0.0, 0.0], vec![1.0, 1.0]]
        );
        assert_eq!(t.run_only, 1);
        let all = table("q1 0 a 1\n", "q1 Q0 a 1 1 s\n", &[spec(NUM_RET, 0)]);
        assert_eq!((all.columns[0][0], all.run_only), (1.0, 0));
    }

    #[test]
    fn relstrings_cut_the_list_first() {
        let q = parse(b"q1 0 a 1\nq1 0 c 0\n", Kind::Qrels).unwrap();
        let r = parse(b"q1 Q0 a 1 3 s\nq1 Q0 b 2 2 s\nq1 Q0 c 3 1 s\n", Kind::Run).unwrap();
        let strings = |depth, judged_only| {
            let asked = Relstring {
                length: 10,
                bare: false,
                depth,
                judged_only,
            };
            evaluate(&q, &r, &[], Some(asked)).unwrap().relstrings
        };
        assert_eq!(strings(None, false), vec!["1-0".to_string()]);
        assert_eq!(strings(Some(2), false), vec!["1-".to_string()]);
        assert_eq!(strings(None, true), vec!["10".to_string()]);
        assert_eq!(strings(Some(2), true), vec!["1".to_string()]);
        assert_eq!(strings(Some(0), false), vec![String::new()]);
    }

    #[test]
    fn users_in_the_qrels_order_with_their_ties() {
        // q2 first in the qrels; q2's scores are equal in single precision only, q1's
        // in double precision; "x" is a run user absent from the qrels
        let q = parse(b"q2 0 a 1\nq2 0 b 0\nq1 0 a 0\nq3 0 a 1\n", Kind::Qrels).unwrap();
        let run = "q1 Q0 a 1 1.0 s\nq1 Q0 b 2 1.0 s\nq2 Q0 a 1 1.0000000001 s\n\
                   q2 Q0 b 2 1.0 s\nx Q0 a 1 1.0 s\n";
        let r = parse(run.as_bytes(), Kind::Run).unwrap();
        let specs = [spec(PRECISION, 1), spec(NUM_RET, 0)];
        let t = evaluate_users(&q, &r, &specs, false).unwrap();
        assert_eq!(
            t.queries,
            vec![b"q2".to_vec(), b"q1".to_vec(), b"q3".to_vec()]
        );
        assert_eq!(t.in_run, vec![true, true, false]);
        assert_eq!(t.tied, vec![false, true, false]);
        // q2: a first (id_descending compares scores in double precision)
        assert_eq!(t.columns[0], vec![1.0, 0.0, 0.0]);
        assert_eq!(t.columns[1], vec![2.0, 2.0, 0.0]);
        assert_eq!(t.aux[0], vec![1.0, 0.0, 1.0]);
        assert_eq!(t.run_size, [3, 5]);
        assert_eq!(t.matching, [3, 2, 2, 2, 2]);
        let single = evaluate_users(&q, &r, &specs, true).unwrap();
        assert_eq!(single.tied, vec![true, true, false]);
    }

    #[test]
    fn ids_rank_in_byte_order() {
        let long = |last: &str| format!("{}{last}", "a".repeat(20));
        let words = ["b", "a", "ab", &long("z"), &long("b"), "a\u{0}", "\u{e9}"];
        let run: String = words
            .iter()
            .enumerate()
            .map(|(i, w)| format!("q Q0 {w} {i} 1.0 s\n"))
            .collect();
        let r = parse(run.as_bytes(), Kind::Run).unwrap();
        let mut sorted: Vec<&str> = words.to_vec();
        sorted.sort_unstable();
        let expected: Vec<f64> = words
            .iter()
            .map(|w| sorted.iter().position(|s| s == w).unwrap() as f64)
            .collect();
        assert_eq!(byte_ranks(&r.item_ids), expected);
    }
}
