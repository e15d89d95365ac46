//! Every list of a run ranked, in chunks of lists run in parallel: read through a
//! row map, from grouped slices, or in place.

use super::list::{rank_list, Seen, SortBuffers};
use super::{chunk_segments, for_chunks, row};
use crate::threads::split_at_bounds;

/// Where a segment's rows are read from: input arrays (through `rows`), or the
/// output arrays themselves (ranked in place; `rows` must be the identity).
#[derive(Clone, Copy)]
enum Source<'a, T> {
    /// read through `rows` from these
    Input(&'a [T]),
    /// read from the output, which is overwritten
    InPlace,
}

/// The lists to rank: the segments `offsets` of rows read through `rows` (empty:
/// the identity), their item codes (in `[0, n_items)`) and their keys.
#[derive(Clone, Copy)]
struct Lists<'a> {
    offsets: &'a [i64],
    rows: &'a [i64],
    items: Source<'a, i32>,
    keys: Source<'a, f64>,
    n_items: usize,
}

/// Rank every segment into `out_items` and `out_keys` (positions as `offsets`),
/// in `n_chunks` chunks; returns the first segment with a repeated item, or -1.
fn rank_into(
    lists: Lists<'_>,
    out_items: &mut [i32],
    out_keys: &mut [f64],
    n_chunks: usize,
    check: bool,
) -> Ranked {
    let Lists {
        offsets,
        rows,
        items,
        keys,
        n_items,
    } = lists;
    let max_len = offsets
        .windows(2)
        .map(|w| (w[1] - w[0]) as usize)
        .max()
        .unwrap_or(0);
    let n_seg = offsets.len().saturating_sub(1);
    let n = out_items.len();
    let n_chunks = n_chunks.max(1);
    let seg_bounds = chunk_segments(n_seg, n_chunks);
    let pos: Vec<usize> = seg_bounds.iter().map(|&g| offsets[g] as usize).collect();
    let mut dup = vec![-1i64; n_chunks];
    let mut sound = vec![(true, true); n_chunks];
    let chunks: Vec<_> = split_at_bounds(out_items, &pos)
        .into_iter()
        .zip(split_at_bounds(out_keys, &pos))
        .zip(dup.iter_mut().zip(sound.iter_mut()))
        .enumerate()
        .collect();
    for_chunks(chunks, n, |(c, ((oi, ok), (dup, sound)))| {
        let base = pos[c];
        let mut seen = Seen::new(n_items);
        let mut bufs = SortBuffers::new(max_len);
        let mut seg_items: Vec<i32> = Vec::new();
        let mut seg_keys: Vec<f64> = Vec::new();
        for g in seg_bounds[c]..seg_bounds[c + 1] {
            let a = offsets[g] as usize;
            let m = offsets[g + 1] as usize - a;
            let (la, lb) = (a - base, a - base + m);
            if let (Source::InPlace, Source::InPlace) = (items, keys) {
                // ranked already (keys not increasing): nothing moves
                let k = &ok[la..lb];
                if k.windows(2).all(|w| w[1] <= w[0]) {
                    let seg = &oi[la..lb];
                    if *dup < 0 && seen.repeats(seg.iter().map(|&i| i as usize)) {
                        *dup = g as i64;
                    }
                    continue;
                }
            }
            if rows.is_empty() {
                // grouped rows: the list's keys and items are slices (copied when
                // ranked in place)
                let si: &[i32] = match items {
                    Source::Input(x) => &x[a..a + m],
                    Source::InPlace => {
                        seg_items.clear();
                        seg_items.extend_from_slice(&oi[la..lb]);
                        &seg_items
                    }
                };
                let sk: &[f64] = match keys {
                    Source::Input(x) => &x[a..a + m],
                    Source::InPlace => {
                        seg_keys.clear();
                        seg_keys.extend_from_slice(&ok[la..lb]);
                        &seg_keys
                    }
                };
                if check {
                    // on rows just read (in cache): no second pass over the arrays
                    let codes_ok = codes_in_range(si, n_items);
                    sound.0 &= codes_ok;
                    sound.1 &= sk.iter().fold(true, |all, &x| all & x.is_finite());
                    if !codes_ok {
                        continue; // the caller raises; the set takes no code outside it
                    }
                }
                let check = (*dup < 0).then_some(&mut seen);
                if rank_list(sk, si, &mut oi[la..lb], &mut ok[la..lb], &mut bufs, check) {
                    *dup = g as i64;
                }
                continue;
            }
            // the segment's rows gathered through the row map (copied when ranked
            // in place), then ranked as a grouped list
            debug_assert!(!check, "checked ranking takes grouped rows");
            seg_items.clear();
            seg_keys.clear();
            for t in 0..m {
                seg_items.push(match items {
                    Source::Input(x) => x[row(rows, a + t)],
                    Source::InPlace => oi[la + t],
                });
                seg_keys.push(match keys {
                    Source::Input(x) => x[row(rows, a + t)],
                    Source::InPlace => ok[la + t],
                });
            }
            let check = (*dup < 0).then_some(&mut seen);
            let (si, sk) = (&seg_items[..], &seg_keys[..]);
            if rank_list(sk, si, &mut oi[la..lb], &mut ok[la..lb], &mut bufs, check) {
                *dup = g as i64;
            }
        }
    });
    Ranked {
        dup: dup.iter().copied().filter(|&d| d >= 0).min().unwrap_or(-1),
        codes_ok: sound.iter().all(|s| s.0),
        finite: sound.iter().all(|s| s.1),
    }
}

/// What [`rank_into`] found: the first segment with a repeated item (-1 if none),
/// and, when asked to check, whether every item code lay in range and every key
/// was finite (true when not asked). With a code out of range, its segment is
/// left unranked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ranked {
    pub dup: i64,
    pub codes_ok: bool,
    pub finite: bool,
}

/// Whether every code lies in `[0, n_items)`.
#[inline]
fn codes_in_range(codes: &[i32], n_items: usize) -> bool {
    codes
        .iter()
        .fold(true, |all, &x| all & (x >= 0 && (x as usize) < n_items))
}

/// An input of [`rank_rows`]: read only, or ours to rank in place.
pub enum Buf<'a, T> {
    /// read through the row map; the ranked values go to a new vector
    Read(&'a [T]),
    /// ranked in place (grouped rows only)
    Write(&'a mut [T]),
}

impl<T> Buf<'_, T> {
    /// The values, read only.
    pub fn as_slice(&self) -> &[T] {
        match self {
            Buf::Read(x) => x,
            Buf::Write(x) => x,
        }
    }
}

/// Items and keys of every segment in key-descending order (stable), and the first
/// segment holding a duplicate item (-1 if none); `rows` maps CSR positions to
/// input rows (empty: the identity); item codes lie in `[0, n_items)`. An input
/// given as `Buf::Write` is ranked in place (with grouped rows, `rows` empty, one
/// segment at a time: no copy of the whole array). Returns the new items and keys
/// of the `Buf::Read` inputs. `Buf::Write` slices hold the first `offsets[-1]` rows.
pub fn rank_rows(
    offsets: &[i64],
    rows: &[i64],
    items: Buf<'_, i32>,
    keys: Buf<'_, f64>,
    n_items: usize,
    n_chunks: usize,
) -> (Option<Vec<i32>>, Option<Vec<f64>>, i64) {
    let n_seg = offsets.len().saturating_sub(1);
    let n = if n_seg > 0 {
        offsets[n_seg] as usize
    } else {
        0
    };
    let (mut new_items, mut new_keys) = (None, None);
    let (copy_items, copy_keys): (Vec<i32>, Vec<f64>);
    let (items_src, out_items) = match items {
        Buf::Read(x) => (
            Source::Input(x),
            new_items
                .insert(crate::pages::zeroed::<i32>(n))
                .as_mut_slice(),
        ),
        Buf::Write(x) if rows.is_empty() => (Source::InPlace, x),
        Buf::Write(x) => {
            copy_items = x.to_vec();
            (Source::Input(&copy_items[..]), x)
        }
    };
    let (keys_src, out_keys) = match keys {
        Buf::Read(x) => (
            Source::Input(x),
            new_keys
                .insert(crate::pages::zeroed::<f64>(n))
                .as_mut_slice(),
        ),
        Buf::Write(x) if rows.is_empty() => (Source::InPlace, x),
        Buf::Write(x) => {
            copy_keys = x.to_vec();
            (Source::Input(&copy_keys[..]), x)
        }
    };
    let lists = Lists {
        offsets,
        rows,
        items: items_src,
        keys: keys_src,
        n_items,
    };
    let dup = rank_into(lists, out_items, out_keys, n_chunks, false).dup;
    (new_items, new_keys, dup)
}

/// Rank grouped rows whose keys arrive in chunks (a row group of a Parquet file):
/// the segments of `offsets` (positions in `keys`, which need not start at 0) are
/// ranked into `out_keys`, and `items` (their codes) are reordered in place; both
/// hold the rows `offsets[0]..offsets[-1]`. Returns the first segment (an index into
/// `offsets`) holding a repeated item, or -1, as [`rank_rows`], and whether every
/// code lay in `[0, n_items)` and every key was finite: checked on each list as it
/// is ranked, no pass of its own (the output is meaningless when either is false).
pub fn rank_rows_into(
    offsets: &[i64],
    items: &mut [i32],
    keys: &[f64],
    out_keys: &mut [f64],
    n_items: usize,
    n_chunks: usize,
) -> Ranked {
    let lists = Lists {
        offsets,
        rows: &[],
        items: Source::InPlace,
        keys: Source::Input(keys),
        n_items,
    };
    rank_into(lists, items, out_keys, n_chunks, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sort::testing::reference_rank;
    use crate::testing::lcg;

    /// Each list read through `rows` (empty: the identity) and ranked by
    /// [`reference_rank`], and the first list holding a repeated item (-1 if none).
    fn reference_lists(
        offsets: &[i64],
        rows: &[i64],
        items: &[i32],
        keys: &[f64],
    ) -> (Vec<i32>, Vec<f64>, i64) {
        let (mut out_items, mut out_keys, mut dup) = (Vec::new(), Vec::new(), -1);
        for (g, w) in offsets.windows(2).enumerate() {
            let at: Vec<usize> = (w[0] as usize..w[1] as usize)
                .map(|t| row(rows, t))
                .collect();
            let list: Vec<i32> = at.iter().map(|&r| items[r]).collect();
            let k: Vec<f64> = at.iter().map(|&r| keys[r]).collect();
            for p in reference_rank(&k) {
                out_items.push(list[p]);
                out_keys.push(k[p]);
            }
            if dup < 0 && (1..list.len()).any(|t| list[..t].contains(&list[t])) {
                dup = g as i64;
            }
        }
        (out_items, out_keys, dup)
    }

    #[test]
    fn rank_rows_in_place_matches_the_reference() {
        let mut seed = 11;
        let sizes = [3usize, 0, 40, 1, 17, 5];
        let mut offsets = vec![0i64];
        for s in sizes {
            offsets.push(offsets[offsets.len() - 1] + s as i64);
        }
        let n = offsets[sizes.len()] as usize;
        let items: Vec<i32> = (0..n as i32).map(|i| (i * 7) % 101).collect();
        let keys: Vec<f64> = (0..n).map(|_| (lcg(&mut seed) % 5) as f64).collect();
        let (want_i, want_k, want_d) = reference_lists(&offsets, &[], &items, &keys);
        for (ii, ik) in [(true, true), (true, false), (false, true), (false, false)] {
            let (mut i2, mut k2) = (items.clone(), keys.clone());
            let bi = if ii {
                Buf::Write(&mut i2[..])
            } else {
                Buf::Read(&items[..])
            };
            let bk = if ik {
                Buf::Write(&mut k2[..])
            } else {
                Buf::Read(&keys[..])
            };
            let (ni, nk, d) = rank_rows(&offsets, &[], bi, bk, 101, 3);
            assert_eq!(ni.unwrap_or(i2), want_i);
            assert_eq!(nk.unwrap_or(k2), want_k);
            assert_eq!(d, want_d);
        }
    }

    #[test]
    fn grouped_lists_rank_as_a_stable_sort_and_find_the_first_repeat() {
        crate::simd::for_each_path(|_| {
            grouped_lists_rank_as_a_stable_sort_and_find_the_first_repeat_on_this_path()
        });
    }

    fn grouped_lists_rank_as_a_stable_sort_and_find_the_first_repeat_on_this_path() {
        // rank_rows in place (the packed sort with its repeat check fused) against a
        // stable sort of each list and a naive repeat search: signed zeros (equal
        // keys, kept in input order), keys one ulp apart (the exact fallback), and
        // lists with and without a repeated item
        let mut seed = 5;
        for round in 0..40 {
            let mut offsets = vec![0i64];
            for _ in 0..12 {
                let len = (lcg(&mut seed) % 140) as i64;
                offsets.push(offsets[offsets.len() - 1] + len);
            }
            let n = offsets[offsets.len() - 1] as usize;
            let up = f64::from_bits(0.25f64.to_bits() + 1);
            let tiny = f64::from_bits(1); // the smallest subnormal
                                          // lists up to 128 keys take the bucketed words first: ranges that
                                          // overflow, subnormal ranges and an outlier (buckets shared by
                                          // different keys) must fall back and still come out exact
            let keys: Vec<f64> = (0..n)
                .map(|_| {
                    let x = lcg(&mut seed);
                    let y = lcg(&mut seed);
                    match round % 8 {
                        0..=3 => match x % if round % 4 < 2 { 6 } else { 40 } {
                            0 => 0.0,
                            1 => -0.0,
                            2 => 0.25,
                            3 => up,
                            _ => (y % 100_000) as f64 / 7.0 - 5000.0,
                        },
                        4 => [f64::MAX, -f64::MAX, 1e300, -1e300, 0.0, 1.0][(x % 6) as usize],
                        5 => tiny * (x % 5) as f64,
                        6 if x.is_multiple_of(50) => 1e12,
                        _ => (y % (1 << 40)) as f64 / (1u64 << 40) as f64,
                    }
                })
                .collect();
            let n_items = 1000;
            let items: Vec<i32> = (0..n)
                .map(|_| (lcg(&mut seed) % if round % 2 == 0 { 1000 } else { 40000 }) as i32)
                .map(|i| i % n_items as i32)
                .collect();
            let mut want_items = items.clone();
            let mut want_keys = keys.clone();
            let mut want_dup = -1i64;
            for g in 0..offsets.len() - 1 {
                let (a, b) = (offsets[g] as usize, offsets[g + 1] as usize);
                let mut rows: Vec<usize> = (a..b).collect();
                rows.sort_by(|&x, &y| keys[y].partial_cmp(&keys[x]).unwrap());
                for (t, &r) in rows.iter().enumerate() {
                    want_items[a + t] = items[r];
                    want_keys[a + t] = keys[r];
                }
                let list = &items[a..b];
                if want_dup < 0 && (1..list.len()).any(|t| list[..t].contains(&list[t])) {
                    want_dup = g as i64;
                }
            }
            for chunks in [1, 4] {
                let (mut it, mut k) = (items.clone(), keys.clone());
                let (_, _, d) = rank_rows(
                    &offsets,
                    &[],
                    Buf::Write(&mut it),
                    Buf::Write(&mut k),
                    n_items,
                    chunks,
                );
                assert_eq!(it, want_items);
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&k), bits(&want_keys));
                assert_eq!(d, want_dup, "round {round}");
            }
        }
    }

    #[test]
    fn grouped_lists_rank_as_through_the_row_map() {
        crate::simd::for_each_path(|_| grouped_lists_rank_as_through_the_row_map_on_this_path());
    }

    fn grouped_lists_rank_as_through_the_row_map_on_this_path() {
        // rank_list on grouped rows (slices, read or ranked in place) and on rows
        // gathered through an explicit identity row map, against the reference:
        // ties, keys that differ only in the bits the packed sort drops (the exact
        // fallback), sorted lists, and every length up to 130
        let mut seed = 17;
        let mut offsets = vec![0i64];
        for len in (0..=130).chain([1, 2, 64, 65]) {
            offsets.push(offsets[offsets.len() - 1] + len);
        }
        let n = offsets[offsets.len() - 1] as usize;
        let close = f64::from_bits(0.5f64.to_bits() + 1);
        let keys: Vec<f64> = (0..n)
            .map(|i| match lcg(&mut seed) % 4 {
                0 => 0.5,
                1 => close,
                2 => (lcg(&mut seed) % 3) as f64,
                _ => -(i as f64),
            })
            .collect();
        let items: Vec<i32> = (0..n as i32).map(|i| (i * 13) % 197).collect();
        let identity: Vec<i64> = (0..n as i64).collect();
        for chunks in [1, 3] {
            let want = reference_lists(&offsets, &[], &items, &keys);
            for rows in [&identity[..], &[]] {
                let (ni, nk, d) = rank_rows(
                    &offsets,
                    rows,
                    Buf::Read(&items),
                    Buf::Read(&keys),
                    197,
                    chunks,
                );
                assert_eq!((ni.unwrap(), nk.unwrap(), d), want);
            }
            let (mut it, mut k) = (items.clone(), keys.clone());
            let (_, _, d) = rank_rows(
                &offsets,
                &[],
                Buf::Write(&mut it),
                Buf::Write(&mut k),
                197,
                chunks,
            );
            assert_eq!((it, k, d), want);
        }
    }

    #[test]
    fn ranking_into_checks_codes_and_keys_of_every_list() {
        // lists of 0..9 rows (a length-0 and a length-1 list among them), short or
        // long enough to run in parallel; one bad code or key anywhere is found
        for n_lists in [6usize, 1 << 15] {
            let mut offsets = vec![0i64];
            for g in 0..n_lists {
                offsets.push(offsets[g] + (g % 10) as i64);
            }
            let n = offsets[n_lists] as usize;
            let codes: Vec<i32> = (0..n as i32).map(|i| i % 97).collect();
            let keys: Vec<f64> = (0..n).map(|i| ((i * 31) % 17) as f64 - 8.0).collect();
            let run = |c: &[i32], k: &[f64]| {
                let (mut c, mut out) = (c.to_vec(), vec![0.0; n]);
                let r = rank_rows_into(&offsets, &mut c, k, &mut out, 97, 4);
                (r.codes_ok, r.finite)
            };
            assert_eq!(run(&codes, &keys), (true, true));
            for at in [0, 1, n / 2, n - 1] {
                let (mut c, mut k) = (codes.clone(), keys.clone());
                c[at] = 97;
                assert_eq!(run(&c, &keys), (false, true));
                c[at] = -1;
                k[at] = f64::NAN;
                assert_eq!(run(&c, &k), (false, false));
                k[at] = f64::NEG_INFINITY;
                assert_eq!(run(&codes, &k), (true, false));
                k[at] = f64::INFINITY;
                assert_eq!(run(&codes, &k), (true, false));
            }
        }
    }

    #[test]
    fn rank_rows_into_ranks_a_chunk_as_the_whole_call() {
        let mut seed = 13;
        let sizes = [3usize, 0, 40, 1, 17, 5, 2];
        let mut offsets = vec![0i64];
        for s in sizes {
            offsets.push(offsets[offsets.len() - 1] + s as i64);
        }
        let n = offsets[sizes.len()] as usize;
        let items: Vec<i32> = (0..n as i32).map(|i| (i * 7) % 101).collect();
        let keys: Vec<f64> = (0..n).map(|_| (lcg(&mut seed) % 5) as f64).collect();
        let (want_i, want_k, _) = reference_lists(&offsets, &[], &items, &keys);
        // segments 2, 3, 4 (rows 3..61) from a chunk of keys that starts at row 2
        let chunk = &keys[2..64];
        let rel: Vec<i64> = offsets[2..6].iter().map(|&o| o - 2).collect();
        let (a, b) = (offsets[2] as usize, offsets[5] as usize);
        let mut it = items[a..b].to_vec();
        for chunks in [1, 2, 7] {
            let (mut it2, mut out) = (it.clone(), vec![0.0; b - a]);
            let found = rank_rows_into(&rel, &mut it2, chunk, &mut out, 101, chunks);
            assert_eq!((found.dup, found.codes_ok, found.finite), (-1, true, true));
            assert_eq!(it2, want_i[a..b].to_vec());
            assert_eq!(out, want_k[a..b].to_vec());
        }
        // an item twice in segment 4: the call's segment 2
        it[45 - a] = it[44 - a];
        let mut out = vec![0.0; b - a];
        assert_eq!(
            rank_rows_into(&rel, &mut it, chunk, &mut out, 101, 2).dup,
            2
        );
    }

    #[test]
    fn rank_rows_in_place_keeps_ranked_lists_and_finds_their_repeats() {
        // lists ranked already (ties included), one not, and a repeat in a ranked list
        let mut seed = 5;
        let sizes = [4usize, 30, 6, 0, 12, 9, 1];
        let mut offsets = vec![0i64];
        for s in sizes {
            offsets.push(offsets[offsets.len() - 1] + s as i64);
        }
        let n = offsets[sizes.len()] as usize;
        for case in 0..20 {
            let mut items: Vec<i32> = (0..n as i32).map(|i| (i * 13 + case) % 97).collect();
            let mut keys: Vec<f64> = (0..n).map(|_| (lcg(&mut seed) % 4) as f64).collect();
            for (g, w) in offsets.windows(2).enumerate() {
                let seg = &mut keys[w[0] as usize..w[1] as usize];
                if g != 2 {
                    seg.sort_by(|a, b| b.total_cmp(a));
                }
            }
            if case % 3 == 0 {
                let a = offsets[4 + case as usize % 2] as usize;
                items[a + 3] = items[a + 1]; // a repeat in list 4 or 5 (ranked)
            }
            let (want_i, want_k, want_d) = reference_lists(&offsets, &[], &items, &keys);
            let (mut i2, mut k2) = (items.clone(), keys.clone());
            let (ni, nk, d) = rank_rows(
                &offsets,
                &[],
                Buf::Write(&mut i2),
                Buf::Write(&mut k2),
                97,
                3,
            );
            assert!(ni.is_none() && nk.is_none());
            assert_eq!((i2, k2, d), (want_i, want_k, want_d), "case {case}");
            assert_eq!(d >= 0, case % 3 == 0);
        }
    }
}
