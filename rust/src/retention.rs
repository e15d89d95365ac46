//! Retention kernels: local periods of timestamps and cohort counts.
//!
//! Every event has a dense user code and a timestamp given as a raw `i64` value
//! with a positive divisor (`floor(value / divisor)` = UTC seconds). `bounds` holds
//! the UTC second at which each local day of the observation window starts
//! (DST-correct, one more entry than days) and `period_of_day` the period index
//! of each of those days.
//!
//! Per-user activity is collected without sorting the events: either as a bitset
//! of the window's periods (`n_words` u64 words per user), or as a CSR of each
//! user's periods built by a counting sort, each user's few periods then sorted.
//! Every output is an integer count or index, so it does not depend on the number
//! of threads or chunks; inputs below 64Ki events (or users) run on the calling
//! thread.
//!
//! Cohort codes (`cohort[u]`): `0 <= c < n_periods` the period of the user's
//! signup; [`NO_SIGNUP`]: the cohort is the user's first active period;
//! [`BEFORE`] / [`AFTER`]: the signup lies before / after the window.

use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::threads;

/// Cohort code of a signup before the window.
pub const BEFORE: i32 = -1;
/// Cohort code of a signup after the window.
pub const AFTER: i32 = -2;
/// Cohort code of a user without a signup: the first active period.
pub const NO_SIGNUP: i32 = -3;

/// Below this many events (or users), the kernels run on the calling thread.
const PARALLEL_MIN: usize = 1 << 16;

/// Seconds in a UTC day.
const DAY: i64 = 86_400;

/// `floor(a / b)` for `b > 0`.
#[inline(always)]
fn floor_div(a: i64, b: i64) -> i64 {
    a.div_euclid(b)
}

/// Whether `n` items are worth `n_chunks` threads.
#[inline]
fn parallel(n: usize, n_chunks: usize) -> bool {
    n_chunks > 1 && n >= PARALLEL_MIN
}

/// `[lo, hi)` of part `c` of `n` items in `n_parts` parts.
#[inline]
fn part(n: usize, c: usize, n_parts: usize) -> (usize, usize) {
    (n * c / n_parts, n * (c + 1) / n_parts)
}

/// Period index of every timestamp; timestamps outside `[bounds[0], bounds[-1])`
/// take the first or the last day's period. `bounds` has at least 2 entries and
/// `period_of_day` one per day.
pub fn periods_of_instants(
    values: &[i64],
    divisor: i64,
    bounds: &[i64],
    period_of_day: &[i32],
    n_chunks: usize,
) -> Vec<i32> {
    let b0 = bounds[0];
    let last = bounds.len() as i64 - 2; // index of the last day
    let period = |v: i64| {
        let s = floor_div(v, divisor); // also for times before 1970
                                       // exact for UTC; off by at most one day around DST
        let mut g = floor_div(s.wrapping_sub(b0), DAY).clamp(0, last);
        while g < last && s >= bounds[g as usize + 1] {
            g += 1;
        }
        while g > 0 && s < bounds[g as usize] {
            g -= 1;
        }
        period_of_day[g as usize]
    };
    let mut out = vec![0i32; values.len()];
    let fill = |out: &mut [i32], values: &[i64]| {
        for (o, &v) in out.iter_mut().zip(values) {
            *o = period(v);
        }
    };
    if parallel(values.len(), n_chunks) {
        let size = values.len().div_ceil(n_chunks);
        threads::install(|| {
            out.par_chunks_mut(size)
                .zip(values.par_chunks(size))
                .for_each(|(o, v)| fill(o, v))
        });
    } else {
        fill(&mut out, values);
    }
    out
}

/// Each user's signup second from rows of a signup column or table; rows with
/// `valid[i] == false` are ignored. Returns the seconds, whether the user has
/// one, and the first row whose value differs from an earlier value of the same
/// user (-1 if none; the scan stops there).
pub fn signup_per_user(
    codes: &[i32],
    values: &[i64],
    divisor: i64,
    valid: &[bool],
    n_users: usize,
) -> (Vec<i64>, Vec<bool>, i64) {
    let mut seconds = vec![0i64; n_users];
    let mut has = vec![false; n_users];
    for (i, ((&u, &v), &ok)) in codes.iter().zip(values).zip(valid).enumerate() {
        if !ok {
            continue;
        }
        let (u, s) = (u as usize, floor_div(v, divisor));
        if !has[u] {
            has[u] = true;
            seconds[u] = s;
        } else if seconds[u] != s {
            return (seconds, has, i as i64);
        }
    }
    (seconds, has, -1)
}

/// Events strictly before their user's signup (to the second): their number, a
/// flag per user, and the first such row (-1 if none).
pub fn events_before_signup(
    codes: &[i32],
    values: &[i64],
    divisor: i64,
    signup_seconds: &[i64],
    has_signup: &[bool],
    n_chunks: usize,
) -> (i64, Vec<bool>, i64) {
    let n = codes.len();
    let flagged: Vec<AtomicBool> = (0..signup_seconds.len())
        .map(|_| AtomicBool::new(false))
        .collect();
    let scan = |(lo, hi): (usize, usize)| {
        let mut count = 0i64;
        let mut first = -1i64;
        for i in lo..hi {
            let u = codes[i] as usize;
            if has_signup[u] && floor_div(values[i], divisor) < signup_seconds[u] {
                count += 1;
                flagged[u].store(true, Ordering::Relaxed); // every writer stores true
                if first < 0 {
                    first = i as i64;
                }
            }
        }
        (count, first)
    };
    let parts: Vec<(i64, i64)> = if parallel(n, n_chunks) {
        threads::install(|| {
            (0..n_chunks)
                .into_par_iter()
                .map(|c| scan(part(n, c, n_chunks)))
                .collect()
        })
    } else {
        vec![scan((0, n))]
    };
    let count = parts.iter().map(|p| p.0).sum();
    let first = parts.iter().map(|p| p.1).find(|&f| f >= 0).unwrap_or(-1);
    let flagged = flagged.into_iter().map(AtomicBool::into_inner).collect();
    (count, flagged, first)
}

// ------------------------------------------------------------------ bitsets
/// Per user, `n_words` words with bit p set iff the user has an event in period
/// p (`periods` in `[0, 64 n_words)`). Many events are split into `n_parts`
/// chunks whose bits are or-ed in.
pub fn activity_bitsets(
    codes: &[i32],
    periods: &[i32],
    n_users: usize,
    n_words: usize,
    n_parts: usize,
) -> Vec<u64> {
    let slot = |u: i32, p: i32| (u as usize * n_words + (p as usize >> 6), 1u64 << (p & 63));
    if !parallel(codes.len(), n_parts) {
        let mut bits = vec![0u64; n_users * n_words];
        for (&u, &p) in codes.iter().zip(periods) {
            let (k, bit) = slot(u, p);
            bits[k] |= bit;
        }
        return bits;
    }
    let bits: Vec<AtomicU64> = (0..n_users * n_words).map(|_| AtomicU64::new(0)).collect();
    let size = codes.len().div_ceil(n_parts);
    threads::install(|| {
        codes
            .par_chunks(size)
            .zip(periods.par_chunks(size))
            .for_each(|(codes, periods)| {
                for (&u, &p) in codes.iter().zip(periods) {
                    let (k, bit) = slot(u, p);
                    if bits[k].load(Ordering::Relaxed) & bit == 0 {
                        bits[k].fetch_or(bit, Ordering::Relaxed);
                    }
                }
            })
    });
    bits.into_iter().map(AtomicU64::into_inner).collect()
}

/// One part's counts: new users and login users per period, and the cohort x
/// offset table (row-major, `n_periods` x `n_periods`).
struct Counts<'a> {
    new: &'a mut [i64],
    login: &'a mut [i64],
    table: &'a mut [i64],
    n_periods: usize,
    drop_before: bool,
}

impl Counts<'_> {
    /// One active (user, period p) pair for a user of cohort code `c`.
    #[inline(always)]
    fn period(&mut self, p: i64, c: i64) {
        if self.drop_before && (c == AFTER as i64 || (c >= 0 && p < c)) {
            return;
        }
        self.login[p as usize] += 1;
        if c >= 0 && p >= c {
            self.table[c as usize * self.n_periods + (p - c) as usize] += 1;
        }
    }
}

/// The counts of `n_parts` parts of the users, each by `count(part, lo, hi)`, in
/// parallel when there are many users: `(new, login, table)`, each with a leading
/// axis of `n_parts` (one slice per part; the caller sums them).
fn by_parts<F>(
    n_users: usize,
    n_periods: usize,
    drop_before: bool,
    n_parts: usize,
    count: F,
) -> (Vec<i64>, Vec<i64>, Vec<i64>)
where
    F: Fn(&mut Counts<'_>, usize, usize) + Sync,
{
    let np = n_periods;
    let mut new = vec![0i64; n_parts * np];
    let mut login = vec![0i64; n_parts * np];
    let mut table = vec![0i64; n_parts * np * np];
    let run = |c: usize, new: &mut [i64], login: &mut [i64], table: &mut [i64]| {
        let (lo, hi) = part(n_users, c, n_parts);
        let mut counts = Counts {
            new,
            login,
            table,
            n_periods,
            drop_before,
        };
        count(&mut counts, lo, hi);
    };
    if np == 0 {
        return (new, login, table); // no period, nothing to count
    }
    if parallel(n_users, n_parts) {
        threads::install(|| {
            new.par_chunks_mut(np)
                .zip(login.par_chunks_mut(np))
                .zip(table.par_chunks_mut(np * np))
                .enumerate()
                .for_each(|(c, ((n, l), t))| run(c, n, l, t))
        });
    } else {
        for (c, ((n, l), t)) in new
            .chunks_mut(np)
            .zip(login.chunks_mut(np))
            .zip(table.chunks_mut(np * np))
            .enumerate()
        {
            run(c, n, l, t);
        }
    }
    (new, login, table)
}

/// Index of the lowest set bit of `words` (-1 if none).
#[inline]
fn lowest_bit(words: &[u64]) -> i64 {
    for (w, &x) in words.iter().enumerate() {
        if x != 0 {
            return (w * 64) as i64 + x.trailing_zeros() as i64;
        }
    }
    -1
}

/// New users, login users and the cohort x offset counts from per-user bitsets
/// (`n_words` words per user; every set bit and every cohort below `n_periods`).
///
/// The signup period counts as an activity; a user without a signup
/// ([`NO_SIGNUP`]) joins the cohort of their first active period (none if they
/// have none). With `drop_before`, activity before the signup is not counted.
/// Returns `(new, login, table)` with a leading axis of `n_parts`, one slice per
/// contiguous part of the users.
pub fn accumulate_bitsets(
    bits: &[u64],
    n_words: usize,
    cohort: &[i32],
    n_periods: usize,
    drop_before: bool,
    n_parts: usize,
) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
    by_parts(
        cohort.len(),
        n_periods,
        drop_before,
        n_parts,
        |counts, lo, hi| {
            for (u, &code) in cohort.iter().enumerate().take(hi).skip(lo) {
                let words = &bits[u * n_words..(u + 1) * n_words];
                let mut c = code as i64;
                if code == NO_SIGNUP {
                    c = lowest_bit(words);
                }
                for (w, &x) in words.iter().enumerate() {
                    let mut x = x;
                    if c >= 0 && (c >> 6) as usize == w {
                        x |= 1 << (c & 63); // the signup counts as an activity
                    }
                    while x != 0 {
                        counts.period((w * 64) as i64 + x.trailing_zeros() as i64, c);
                        x &= x - 1;
                    }
                }
                if c >= 0 {
                    counts.new[c as usize] += 1;
                }
            }
        },
    )
}

// ------------------------------------------------------------------ CSR
/// CSR `(offsets, values)` of each user's event periods, each segment sorted.
/// Many events are placed by `n_parts` contiguous parts of the users, each
/// scanning every event and writing only its own users' segments.
pub fn periods_by_user(
    codes: &[i32],
    periods: &[i32],
    n_users: usize,
    n_parts: usize,
) -> (Vec<i64>, Vec<i32>) {
    let n = codes.len();
    let mut offsets = vec![0i64; n_users + 1];
    for &u in codes {
        offsets[u as usize + 1] += 1;
    }
    for u in 0..n_users {
        offsets[u + 1] += offsets[u];
    }
    let mut values = vec![0i32; n];
    // place the events of users lo..hi into their segments (`out` starts at lo's)
    let place = |lo: usize, hi: usize, out: &mut [i32]| {
        let base = offsets[lo];
        let mut cursor: Vec<usize> = offsets[lo..hi]
            .iter()
            .map(|&o| (o - base) as usize)
            .collect();
        for (&u, &p) in codes.iter().zip(periods) {
            let u = u as usize;
            if u >= lo && u < hi {
                out[cursor[u - lo]] = p;
                cursor[u - lo] += 1;
            }
        }
        for u in lo..hi {
            let (a, b) = (
                (offsets[u] - base) as usize,
                (offsets[u + 1] - base) as usize,
            );
            if b - a > 1 {
                out[a..b].sort_unstable();
            }
        }
    };
    if parallel(n, n_parts) {
        let mut pieces = Vec::with_capacity(n_parts);
        let mut rest = &mut values[..];
        for c in 0..n_parts {
            let (lo, hi) = part(n_users, c, n_parts);
            let (piece, tail) = rest.split_at_mut((offsets[hi] - offsets[lo]) as usize);
            pieces.push((lo, hi, piece));
            rest = tail;
        }
        threads::install(|| {
            pieces
                .into_par_iter()
                .for_each(|(lo, hi, piece)| place(lo, hi, piece))
        });
    } else {
        place(0, n_users, &mut values);
    }
    (offsets, values)
}

/// The counts of [`accumulate_bitsets`] from sorted per-user segments of periods
/// (`offsets` of n_users + 1 into `values`, every period below `n_periods`). A
/// user without a signup and without events joins no cohort.
pub fn accumulate_csr(
    offsets: &[i64],
    values: &[i32],
    cohort: &[i32],
    n_periods: usize,
    drop_before: bool,
    n_parts: usize,
) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
    by_parts(
        cohort.len(),
        n_periods,
        drop_before,
        n_parts,
        |counts, lo, hi| {
            for (u, &code) in cohort.iter().enumerate().take(hi).skip(lo) {
                let seg = &values[offsets[u] as usize..offsets[u + 1] as usize];
                let mut c = code as i64;
                if code == NO_SIGNUP {
                    c = seg.first().map_or(-1, |&p| p as i64); // sorted: the first period
                }
                let mut marked = c < 0; // the signup period still has to be counted
                let mut prev = -1i64;
                for &p in seg {
                    let p = p as i64;
                    if p == prev {
                        continue; // another event in the same period
                    }
                    prev = p;
                    if !marked && c < p {
                        counts.period(c, c);
                        marked = true;
                    }
                    if p == c {
                        marked = true;
                    }
                    counts.period(p, c);
                }
                if !marked {
                    counts.period(c, c);
                }
                if c >= 0 {
                    counts.new[c as usize] += 1;
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_follow_the_local_days() {
        // days start at 0, 86400, 2 * 86400 - 3600 (a DST change), 3 * 86400
        let bounds = [0, DAY, 2 * DAY - 3600, 3 * DAY];
        let period_of_day = [0, 0, 1];
        let values = [0, DAY - 1, 2 * DAY - 3601, 2 * DAY - 3600, -5, 10 * DAY];
        for chunks in [1, 4] {
            let got = periods_of_instants(&values, 1, &bounds, &period_of_day, chunks);
            assert_eq!(got, vec![0, 0, 0, 1, 0, 1]);
        }
        // milliseconds, floored also before 1970
        let ms = [-1, 1000 * DAY];
        assert_eq!(
            periods_of_instants(&ms, 1000, &bounds, &period_of_day, 1),
            vec![0, 0]
        );
    }

    #[test]
    fn signups_and_events_before_them() {
        let codes = [0, 1, 0, 2];
        let (s, has, conflict) =
            signup_per_user(&codes, &[10, 20, 10, 5], 1, &[true, true, true, false], 3);
        assert_eq!(
            (s, has, conflict),
            (vec![10, 20, 0], vec![true, true, false], -1)
        );
        let (_, _, conflict) = signup_per_user(&codes, &[10, 20, 11, 5], 1, &[true; 4], 3);
        assert_eq!(conflict, 2);
        let (n, flagged, first) = events_before_signup(
            &[1, 0, 0, 2],
            &[19, 9, 10, 0],
            1,
            &[10, 20, 0],
            &[true, true, false],
            1,
        );
        assert_eq!((n, flagged, first), (2, vec![true, true, false], 0));
    }

    /// users: 0 signs up in period 1 and is active in 0, 1, 3; 1 has no signup and
    /// is active in 2, 2, 3; 2 signed up after the window; 3 has nothing.
    fn events() -> (Vec<i32>, Vec<i32>, Vec<i32>) {
        let codes = vec![0, 1, 0, 1, 0, 2, 1];
        let periods = vec![3, 2, 0, 3, 1, 1, 2];
        (codes, periods, vec![1, NO_SIGNUP, AFTER, NO_SIGNUP])
    }

    #[test]
    fn bitsets_and_csr_give_the_same_counts() {
        let (codes, periods, cohort) = events();
        let bits = activity_bitsets(&codes, &periods, 4, 1, 1);
        assert_eq!(bits, vec![0b1011, 0b1100, 0b10, 0]);
        let (offsets, values) = periods_by_user(&codes, &periods, 4, 1);
        assert_eq!(offsets, vec![0, 3, 6, 7, 7]);
        assert_eq!(values, vec![0, 1, 3, 2, 2, 3, 1]);
        for drop in [false, true] {
            for parts in [1, 3] {
                let a = accumulate_bitsets(&bits, 1, &cohort, 4, drop, parts);
                let b = accumulate_csr(&offsets, &values, &cohort, 4, drop, parts);
                assert_eq!(a, b);
                let sum = |v: &[i64], n: usize| -> Vec<i64> {
                    (0..n).map(|i| v.iter().skip(i).step_by(n).sum()).collect()
                };
                assert_eq!(sum(&a.0, 4), vec![0, 1, 1, 0]);
                let login = if drop {
                    vec![0, 1, 1, 2]
                } else {
                    vec![1, 2, 1, 2]
                };
                assert_eq!(sum(&a.1, 4), login);
                let table = sum(&a.2, 16);
                assert_eq!(&table[4..8], &[1, 0, 1, 0]); // cohort 1: offsets 0 and 2
                assert_eq!(&table[8..12], &[1, 1, 0, 0]); // cohort 2: offsets 0 and 1
            }
        }
    }
}
