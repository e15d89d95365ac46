use super::*;
use crate::encode::{InlineViews, Offset, OffsetRows, SliceRows, ViewRows, INLINE};
use crate::testing::lcg;

/// Codes, first rows and distinct ids (one `Vec` each).
pub(crate) type Named = (Vec<i32>, Vec<i64>, Vec<Vec<u8>>);

/// An encoding's distinct ids as byte strings.
fn named((codes, first, distinct): (Vec<i32>, Vec<i64>, Distinct)) -> Named {
    (codes, first, split(distinct))
}

/// The texts of distinct ids, one `Vec` each.
fn split(distinct: Distinct) -> Vec<Vec<u8>> {
    let (offsets, data) = distinct.texts();
    let at = |o: i64| o as usize;
    offsets
        .windows(2)
        .map(|w| data[at(w[0])..at(w[1])].to_vec())
        .collect()
}

/// A column's runs with their distinct ids as byte strings.
fn runs_named(r: Runs) -> (Vec<i64>, Vec<i32>, Vec<i64>, Vec<Vec<u8>>) {
    (r.0, r.1, r.2, split(r.3))
}

/// [`factorize_bytes`] of chunks given as (offsets, data).
fn chunked<O: Offset>(chunks: &[(&[O], &[u8])], n_chunks: usize) -> Named {
    let rows: Vec<OffsetRows<O>> = chunks
        .iter()
        .map(|&(offsets, data)| OffsetRows::checked(offsets, data).unwrap())
        .collect();
    let codes = named(factorize_bytes(&rows, n_chunks, 0));
    // a table made with room for fewer ids, or for more, numbers them alike
    for room in [7, 1 << 16] {
        let again = named(factorize_bytes(&rows, n_chunks, room));
        assert_eq!(again, codes, "room {room}");
    }
    codes
}

/// The views of `strings` (Arrow `string_view`): the long ones in two buffers.
pub(crate) fn views(strings: &[Vec<u8>]) -> (Vec<u8>, Vec<Vec<u8>>) {
    let mut views = vec![];
    let mut buffers = vec![vec![0xCD; 3], vec![]];
    for (i, s) in strings.iter().enumerate() {
        views.extend_from_slice(&(s.len() as u32).to_le_bytes());
        if s.len() <= INLINE {
            let mut inline = s.clone();
            inline.resize(INLINE, 0);
            views.extend_from_slice(&inline);
        } else {
            let b = i % 2;
            views.extend_from_slice(&s[..4]);
            views.extend_from_slice(&(b as u32).to_le_bytes());
            views.extend_from_slice(&(buffers[b].len() as u32).to_le_bytes());
            buffers[b].extend_from_slice(s);
        }
    }
    (views, buffers)
}

/// The oracle of [`factorize_bytes`] (and of every coder of strings in order of
/// first appearance): a map of owned strings, row by row.
pub(crate) fn naive_bytes(strings: &[Vec<u8>]) -> Named {
    let mut seen = std::collections::HashMap::new();
    let (mut codes, mut first, mut distinct) = (vec![], vec![], vec![]);
    for (i, s) in strings.iter().enumerate() {
        let next = first.len() as i32;
        let c = *seen.entry(s.clone()).or_insert(next);
        if c == next {
            first.push(i as i64);
            distinct.push(s.clone());
        }
        codes.push(c);
    }
    (codes, first, distinct)
}

/// Offsets (both widths) and data of `strings`, the data with `pad` bytes after.
fn arrow(strings: &[Vec<u8>], pad: usize) -> (Vec<i32>, Vec<i64>, Vec<u8>) {
    let mut data = vec![];
    let mut offsets = vec![0i64];
    for s in strings {
        data.extend_from_slice(s);
        offsets.push(data.len() as i64);
    }
    data.extend(std::iter::repeat_n(0xAB, pad));
    let narrow = offsets.iter().map(|&o| o as i32).collect();
    (narrow, offsets, data)
}

#[test]
fn factorize_bytes_numbers_strings_in_order_of_first_appearance() {
    let data = b"bazfoobarfoo";
    let offsets = [0i64, 3, 6, 6, 9, 12, 15];
    let data = [&data[..], b"baz"].concat();
    let (codes, first, distinct) = chunked(&[(&offsets[..], &data[..])], 4);
    assert_eq!(codes, vec![0, 1, 2, 3, 1, 0]);
    assert_eq!(first, vec![0, 1, 2, 3]);
    assert_eq!(distinct, [&b"baz"[..], b"foo", b"", b"bar"]);
    assert_eq!(chunked::<i64>(&[(&[0], b"")], 4), (vec![], vec![], vec![]));
    assert_eq!(chunked::<i32>(&[], 4), (vec![], vec![], vec![]));
}

#[test]
fn factorize_bytes_matches_a_map_of_strings_for_every_length() {
    // short (one word), middle (two words) and long (slices) strings; runs of
    // equal rows, the same string again after a run, empty strings, strings
    // that differ only in trailing zero bytes, non-ASCII bytes
    let mut seed = 3u64;
    let mut next = || lcg(&mut seed) as usize;
    for longest in [0usize, 1, 7, 8, 11, 12, 13, 15, 16, 40] {
        let alphabet: [&[u8]; 4] = [b"a", b"\0", "é".as_bytes(), b"7"];
        let mut pool: Vec<Vec<u8>> = (0..30)
            .map(|_| {
                let len = if longest == 0 {
                    0
                } else {
                    next() % (longest + 1)
                };
                let mut s = vec![];
                while s.len() < len {
                    s.extend_from_slice(alphabet[next() % 4]);
                }
                s.truncate(len);
                s
            })
            .collect();
        pool.push(vec![]);
        pool.push(vec![0; longest.min(3)]);
        let mut strings = vec![];
        for _ in 0..400 {
            let s = &pool[next() % pool.len()];
            // some runs longer than a block of rows compared at once
            let reps = if next() % 10 == 0 { 40 } else { 1 + next() % 4 };
            (0..reps).for_each(|_| strings.push(s.clone()));
        }
        let want = naive_bytes(&strings);
        let (v, buffers) = views(&strings);
        let buffers: Vec<&[u8]> = buffers.iter().map(|b| &b[..]).collect();
        let whole = ViewRows::checked(&v, &buffers).unwrap();
        assert_eq!(
            named(factorize_bytes(&[whole], 1, 0)),
            want,
            "views {longest}"
        );
        let (from, to) = (5, strings.len() - 3);
        let cut = [
            whole.part(0, from),
            whole.part(from, to),
            whole.part(to, strings.len()),
        ];
        assert_eq!(
            named(factorize_bytes(&cut, 1, 0)),
            want,
            "views in chunks {longest}"
        );
        // runs of equal views (a block passed whole) as runs of equal strings
        let (narrow, _, data) = arrow(&strings, 0);
        let offsets = [OffsetRows::checked(&narrow[..], &data[..]).unwrap()];
        let runs = runs_named(factorize_runs(&offsets, 1));
        let views = runs_named(factorize_runs(&[whole], 1));
        assert_eq!(views, runs, "view runs {longest}");
        assert_eq!(
            runs_named(factorize_runs(&cut, 1)),
            runs,
            "view runs in chunks {longest}"
        );
        for pad in [0, 16] {
            let (narrow, wide, data) = arrow(&strings, pad);
            assert_eq!(
                chunked(&[(&wide[..], &data[..])], 1),
                want,
                "longest {longest}"
            );
            assert_eq!(
                chunked(&[(&narrow[..], &data[..])], 1),
                want,
                "longest {longest}"
            );
            // a slice of the column: offsets that do not start at 0
            let (from, to) = (5, strings.len() - 3);
            let part = naive_bytes(&strings[from..to]);
            assert_eq!(chunked(&[(&wide[from..=to], &data[..])], 1), part);
        }
    }
}

#[test]
fn factorize_bytes_in_parts_numbers_as_in_one() {
    // a column long enough to be cut into parts: ids first seen in a later part,
    // ids of every part, runs that cross a part's boundary; short and long keys
    let mut seed = 11u64;
    let mut next = || lcg(&mut seed) as usize;
    for width in [3usize, 12, 20] {
        let mut strings = vec![];
        while strings.len() < PARALLEL_ROWS + 5000 {
            // the pool of ids widens along the column
            let id = next() % (50 + strings.len() / 20);
            let s = format!("{id:0width$}").into_bytes();
            (0..1 + next() % 5).for_each(|_| strings.push(s.clone()));
        }
        let want = naive_bytes(&strings);
        let (narrow, wide, data) = arrow(&strings, 0);
        for n_chunks in [1, 2, 3, 8] {
            let whole = chunked(&[(&wide[..], &data[..])], n_chunks);
            assert_eq!(whole, want, "{width}");
            assert_eq!(chunked(&[(&narrow[..], &data[..])], n_chunks), want);
            // in chunks (of the same data), one of them empty
            let cut = [5000, 5000, 40_000];
            let chunks = [
                (&wide[..=cut[0]], &data[..]),
                (&wide[cut[1]..=cut[1]], &data[..]),
                (&wide[cut[1]..=cut[2]], &data[..]),
                (&wide[cut[2]..], &data[..]),
            ];
            assert_eq!(chunked(&chunks, n_chunks), want, "{width}");
            // many chunks (row groups), windows across them
            let ends: Vec<usize> = (0..=9).map(|k| k * (strings.len() / 9)).collect();
            let mut many: Vec<(&[i64], &[u8])> = ends
                .windows(2)
                .map(|w| (&wide[w[0]..=w[1]], &data[..]))
                .collect();
            many.push((&wide[ends[9]..], &data[..]));
            assert_eq!(chunked(&many, n_chunks), want, "{width} in many chunks");
        }
    }
}

#[test]
fn ids_of_at_most_11_bytes_are_numbered_from_their_views_alone_and_longer_ones_stop_it() {
    // ids of 0 to 11 bytes (padding after an id's bytes, zero or not, is no part of
    // it), in chunks and in parallel parts; one longer id (12 bytes, inline; 13, in
    // a buffer) anywhere in the column, first, last or in a later part, gives None
    let mut strings: Vec<Vec<u8>> = (0..PARALLEL_ROWS + 9000)
        .map(|i| format!("{:0w$}", (i * 7919) % 5003, w = i % 12).into_bytes())
        .map(|mut s| {
            s.truncate(11);
            s
        })
        .collect();
    strings[7] = vec![];
    let (mut v, buffers) = views(&strings);
    // a view's unused bytes set: no part of its id
    v[16 * 3 + 4 + strings[3].len()..16 * 4].fill(0xEE);
    let buffers: Vec<&[u8]> = buffers.iter().map(|b| &b[..]).collect();
    let whole = ViewRows::checked(&v, &buffers).unwrap();
    let want = named(factorize_bytes(&[whole], 1, 0));
    assert_eq!(want, naive_bytes(&strings));
    let cut = 16 * 5000;
    let chunks = [
        InlineViews::new(&v[..cut]).unwrap(),
        InlineViews::new(&v[cut..cut]).unwrap(),
        InlineViews::new(&v[cut..]).unwrap(),
    ];
    for n_chunks in [1, 2, 8] {
        let got = factorize_inline(&chunks, n_chunks).map(named);
        assert_eq!(got.as_ref(), Some(&want), "{n_chunks} parts");
    }
    for (row, long) in [
        (0, 12),
        (strings.len() - 1, 12),
        (PARALLEL_ROWS + 5, 13),
        (40, 30),
    ] {
        let mut longer = strings.clone();
        longer[row] = vec![b'x'; long];
        let (v, _) = views(&longer);
        for n_chunks in [1, 2] {
            let column = [InlineViews::new(&v).unwrap()];
            assert!(factorize_inline(&column, n_chunks).is_none(), "row {row}");
        }
    }
    assert!(InlineViews::new(&v[..15]).is_none());
}

#[test]
fn runs_of_ids_of_at_most_11_bytes_are_found_from_their_views_alone() {
    // runs (some longer than a block of rows compared at once) across chunks and
    // parts; one longer id anywhere (a run's first row, a row inside a run of
    // longer ids, a part's first row, the last row) gives None
    let mut strings: Vec<Vec<u8>> = vec![];
    let mut i = 0;
    while strings.len() < PARALLEL_ROWS + 7000 {
        let s = format!("u-{}", (i * 7919) % 3001).into_bytes();
        (0..1 + (i * 13) % 40).for_each(|_| strings.push(s.clone()));
        i += 1;
    }
    let (v, buffers) = views(&strings);
    let buffers: Vec<&[u8]> = buffers.iter().map(|b| &b[..]).collect();
    let want = runs_named(factorize_runs(
        &[ViewRows::checked(&v, &buffers).unwrap()],
        1,
    ));
    let cut = 16 * 5000;
    let chunks = [
        InlineViews::new(&v[..cut]).unwrap(),
        InlineViews::new(&v[cut..]).unwrap(),
    ];
    for n_chunks in [1, 2, 8] {
        let got = factorize_inline_runs(&chunks, n_chunks).map(runs_named);
        assert_eq!(got.as_ref(), Some(&want), "{n_chunks} parts");
    }
    let n = strings.len();
    let part = n / 2;
    for rows in [vec![0], vec![200, 201, 202], vec![part], vec![n - 1]] {
        for long in [12, 13] {
            let mut longer = strings.clone();
            rows.iter().for_each(|&r| longer[r] = vec![b'x'; long]);
            let (v, _) = views(&longer);
            for n_chunks in [1, 2] {
                let column = [InlineViews::new(&v).unwrap()];
                let got = factorize_inline_runs(&column, n_chunks);
                assert!(got.is_none(), "rows {rows:?}, {long} bytes");
            }
        }
    }
}

#[test]
fn columns_of_many_ids_from_their_first_rows_on_are_numbered_as_one_pass_would() {
    // a group whose first rows are most of them new ids has its table made with
    // room for many ids at once: every slot kind, one part or several
    for width in [3usize, 12, 20] {
        let strings: Vec<Vec<u8>> = (0..PARALLEL_ROWS + 3000)
            .map(|i| format!("{:0width$}", (i * 7919) % 9973).into_bytes())
            .collect();
        let want = naive_bytes(&strings);
        let (_, wide, data) = arrow(&strings, 0);
        for n_chunks in [1, 2] {
            assert_eq!(
                chunked(&[(&wide[..], &data[..])], n_chunks),
                want,
                "{width}"
            );
        }
    }
}

#[test]
fn views_are_checked_and_their_longest_row_found_in_one_pass() {
    for n in [0usize, 5, 2 * PARALLEL_ROWS + 3] {
        let strings: Vec<Vec<u8>> = (0..n)
            .map(|i| format!("{i:0w$}", w = 1 + i % 19).into_bytes())
            .collect();
        let (mut v, buffers) = views(&strings);
        let buffers: Vec<&[u8]> = buffers.iter().map(|b| &b[..]).collect();
        let longest = strings.iter().map(Vec::len).max().unwrap_or(0);
        let rows = ViewRows::checked(&v, &buffers).unwrap();
        assert_eq!(
            rows.width(),
            if longest <= 11 {
                11
            } else if longest <= 15 {
                15
            } else {
                16
            }
        );
        assert!(ViewRows::checked(&v[..v.len().saturating_sub(1)], &buffers).is_none() || n == 0);
        if n > 0 {
            // a long row (the last) whose offset lies past its buffer
            let at = 16 * (n - 1);
            v[at..at + 4].copy_from_slice(&20u32.to_le_bytes());
            v[at + 12..at + 16].copy_from_slice(&u32::MAX.to_le_bytes());
            assert!(ViewRows::checked(&v, &buffers).is_none());
        }
    }
}

#[test]
fn a_block_repeats_only_when_each_row_equals_the_one_before() {
    // against a comparison of each row with the row before it: rows of one
    // length that differ in one byte anywhere, rows of another length, empty
    // rows, rows that repeat a pattern shorter than the row
    let cases: Vec<Vec<&[u8]>> = vec![
        vec![b"doc-7"; 17],
        vec![b""; 17],
        vec![b"abab"; 17],
        [vec![b"abab" as &[u8]; 9], vec![b"baba"; 8]].concat(),
        [vec![b"doc-7" as &[u8]; 16], vec![b"doc-8"]].concat(),
        [
            vec![b"doc-7" as &[u8]; 8],
            vec![b"dpc-7"],
            vec![b"doc-7"; 8],
        ]
        .concat(),
        [vec![b"doc-7" as &[u8]], vec![b"doc-70"; 16]].concat(),
        [vec![b"aa" as &[u8]; 16], vec![b"a"]].concat(),
        [vec![b"" as &[u8]; 16], vec![b"a"]].concat(),
        [vec![b"ab" as &[u8]], [b"a" as &[u8], b"ba"].repeat(8)].concat(),
        // empty and long ids (no short key of their own) beside each other
        [
            vec![b"" as &[u8]; 3],
            vec![b"an-id-of-twenty-byte"; 3],
            vec![b""; 2],
            vec![b"an-id-of-twenty-bytf"; 2],
            vec![b"an-id-of-twenty-byte"; 7],
        ]
        .concat(),
    ];
    for rows in cases {
        let strings: Vec<Vec<u8>> = rows.iter().map(|r| r.to_vec()).collect();
        let (narrow, wide, data) = arrow(&strings, 3);
        let want = strings[1..].iter().zip(&strings).all(|(a, b)| a == b);
        let n = strings.len();
        let (a, b) = (
            OffsetRows::checked(&narrow[..], &data[..]).unwrap(),
            OffsetRows::checked(&wide[..], &data[..]).unwrap(),
        );
        assert_eq!(a.repeats(1, n), want, "{rows:?}");
        assert_eq!(b.repeats(1, n), want, "{rows:?}");
        // the runs of the column: its rows compared in blocks
        let runs = factorize_runs(&[a], 1).0;
        let starts: Vec<i64> = (0..n)
            .filter(|&i| i == 0 || strings[i] != strings[i - 1])
            .map(|i| i as i64)
            .collect();
        assert_eq!(runs, starts, "{rows:?}");
    }
}

#[test]
fn factorize_runs_hashes_the_first_row_of_each_run_as_the_column_would() {
    // runs across parts and chunks, an id in two runs, short and long ids; width 0:
    // empty, short and long ids in turn (a long id after a short one after it)
    let mut seed = 5u64;
    let mut next = || lcg(&mut seed) as usize;
    for width in [3usize, 13, 20, 0] {
        let mut strings = vec![];
        while strings.len() < PARALLEL_ROWS + 7000 {
            let s = match (width, next() % 3) {
                (0, 0) => vec![],
                (0, 1) => format!("{}", next() % 3).into_bytes(),
                (0, _) => format!("{:020}", next() % 3).into_bytes(),
                _ => format!("{:0width$}", next() % 900).into_bytes(),
            };
            (0..1 + next() % 30).for_each(|_| strings.push(s.clone()));
        }
        let starts: Vec<i64> = (0..strings.len())
            .filter(|&i| i == 0 || strings[i] != strings[i - 1])
            .map(|i| i as i64)
            .collect();
        let heads: Vec<Vec<u8>> = starts
            .iter()
            .map(|&i| strings[i as usize].clone())
            .collect();
        let (codes, first, distinct) = naive_bytes(&heads);
        let (_, wide, data) = arrow(&strings, 0);
        for n_chunks in [1, 2, 3, 8] {
            let cut = [0, 5000, 5000, 40_000, strings.len()];
            let chunks: Vec<OffsetRows<i64>> = cut
                .windows(2)
                .map(|w| OffsetRows::checked(&wide[w[0]..=w[1]], &data).unwrap())
                .collect();
            let got = runs_named(factorize_runs(&chunks, n_chunks));
            let want = (
                starts.clone(),
                codes.clone(),
                first.clone(),
                distinct.clone(),
            );
            assert_eq!(got, want, "{width}");
        }
    }
    assert_eq!(
        runs_named(factorize_runs::<OffsetRows<i32>>(&[], 2)),
        (vec![], vec![], vec![], vec![])
    );
}

#[test]
fn lookup_rows_finds_the_first_dictionary_row_of_each_value_as_a_map_would() {
    // ids of every slot kind (at most 11, 12 to 15, 16 and more bytes), a
    // dictionary with repeated ids, values of which some are absent; enough values
    // to be looked up in parallel parts
    let mut words = crate::testing::stream(0x9e37_79b9_7f4a_7c15);
    let mut next = |m: u64| words() % m;
    for (width, n_values) in [(3, 300_000), (13, 200_000), (20, 150_000), (0, 1000)] {
        let id = |k: u64| format!("{k:0width$}").into_bytes();
        let dictionary: Vec<Vec<u8>> = (0..5000).map(|_| id(next(4000))).collect();
        let values: Vec<Vec<u8>> = (0..n_values).map(|_| id(next(8000))).collect();
        let mut at = std::collections::HashMap::new();
        for (i, d) in dictionary.iter().enumerate() {
            at.entry(d.clone()).or_insert(i as i32);
        }
        let want: Vec<i32> = values.iter().map(|v| *at.get(v).unwrap_or(&-1)).collect();
        let all: Vec<Vec<u8>> = dictionary.iter().chain(&values).cloned().collect();
        let (narrow, wide, data) = arrow(&all, 0);
        let n_dict = dictionary.len();
        // one chunk, and chunks cut inside the dictionary, at its end and after it
        for cuts in [
            vec![],
            vec![1234],
            vec![n_dict],
            vec![n_dict + 777, n_dict + 9000],
        ] {
            let mut bounds = vec![0];
            bounds.extend(cuts.iter().filter(|&&c| c < all.len()));
            bounds.push(all.len());
            let chunk = |w: &[usize]| {
                let o = &narrow[w[0]..=w[1]];
                OffsetRows::checked(o, &data).unwrap()
            };
            let rows: Vec<OffsetRows<i32>> = bounds.windows(2).map(chunk).collect();
            assert_eq!(lookup_rows(&rows, n_dict), want, "{width} {cuts:?}");
        }
        let rows = [OffsetRows::checked(&wide, &data).unwrap()];
        assert_eq!(lookup_rows(&rows, n_dict), want, "{width} large");
        let slices: Vec<&[u8]> = all.iter().map(|s| s.as_slice()).collect();
        assert_eq!(lookup_rows(&[SliceRows::new(&slices)], n_dict), want);
        // no values; no dictionary
        assert!(lookup_rows(&[SliceRows::new(&slices[..n_dict])], n_dict).is_empty());
        let none = lookup_rows(&[SliceRows::new(&slices[n_dict..])], 0);
        assert!(none.iter().all(|&f| f == -1) && none.len() == values.len());
    }
}

#[test]
fn windows_looked_up_in_parallel_number_new_ids_in_order_of_first_appearance() {
    // a column of several windows (factorize_parts): a first window of a few ids
    // (then windows looked up by every thread), ids new to the table in those (a few
    // rows each, some in the next window too), a burst of new ids (the next window
    // on one thread again), then few ids again; in chunks that cross the windows
    let mut seed = 23u64;
    let mut next = || lcg(&mut seed) as usize;
    let n = 5 * (1 << 18) + 777;
    for width in [3usize, 13, 20] {
        let mut strings: Vec<Vec<u8>> = Vec::with_capacity(n);
        let mut fresh = 1_000_000;
        while strings.len() < n {
            let at = strings.len();
            let burst = (2 << 18..(2 << 18) + 60_000).contains(&at);
            let id = if burst || next() % 200 == 0 {
                fresh += 1 + next() % 3; // a new id, or one of the last few
                fresh - next() % 4
            } else {
                next() % 3000
            };
            let s = format!("{id:0width$}").into_bytes();
            (0..1 + next() % 3).for_each(|_| strings.push(s.clone()));
        }
        let want = naive_bytes(&strings);
        let (_, wide, data) = arrow(&strings, 0);
        let cuts = [0, 1000, 300_000, 300_001, 700_000, strings.len()];
        let chunks: Vec<(&[i64], &[u8])> = cuts
            .windows(2)
            .map(|w| (&wide[w[0]..=w[1]], &data[..]))
            .collect();
        for n_chunks in [1, 2, 3] {
            assert_eq!(chunked(&chunks, n_chunks), want, "{width} {n_chunks}");
        }
    }
}

#[test]
fn rows_read_on_this_thread_are_coded_as_a_column_of_them_whatever_the_width_guessed() {
    let mut seed = 31u64;
    // ids of 1-7 bytes, 8-11, 12-15 (wide keys) and 16 or more, new ones all along,
    // the longer kinds only past the first rows (a guess from those is too narrow);
    // more rows than one thread codes alone
    let n = 3 * PARALLEL_ROWS + 123;
    let ids: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            let x = lcg(&mut seed) % (1 + i as u64 / 4);
            let kinds = if i < 5000 { 2 } else { 4 };
            match (x as usize + i) % kinds {
                0 => format!("{x}").into_bytes(),
                1 => format!("d-{x:09}").into_bytes(),
                2 => format!("doc-{x:011}").into_bytes(),
                _ => format!("a-long-document-{x}").into_bytes(),
            }
        })
        .collect();
    let guess = ids[..5000].iter().map(Vec::len).max().unwrap();
    assert!(guess <= 11);
    for width in [0, guess, 15, 40] {
        for n_chunks in [1, 2] {
            let (codes, first, distinct) = factorize_read(n, |i| &ids[i], width, n_chunks);
            let texts = distinct.texts();
            let got: Vec<Vec<u8>> = texts
                .0
                .windows(2)
                .map(|w| texts.1[w[0] as usize..w[1] as usize].to_vec())
                .collect();
            assert_eq!((codes, first, got), naive_bytes(&ids), "{width} {n_chunks}");
        }
    }
    let (codes, first, distinct) = factorize_read(0, |i| &ids[i], 0, 2);
    assert!(codes.is_empty() && first.is_empty() && distinct.texts() == (vec![0], vec![]));
}

#[test]
fn a_table_is_made_with_room_for_the_ids_its_first_rows_tell_of() {
    // the distinct ids that `seen` draws of `d` equally frequent ids hold on
    // average, read back as `d`
    for d in [10.0f64, 700.0, 5000.0, 20_000.0] {
        let new = d * -(-(SAMPLE as f64) / d).exp_m1();
        let back = distinct_of_draws(new.round() as usize, SAMPLE);
        assert!((back / d - 1.0).abs() < 0.02, "{d}: {back}");
    }
    assert!(distinct_of_draws(SAMPLE, SAMPLE).is_infinite());
    // half the first rows or fewer new: the table grows as it fills
    assert_eq!(many_new(10_000_000, SAMPLE / 2, SAMPLE), None);
    // 20,000 ids in 10M rows (3,706 new ids among 4,096 rows on average): room for
    // twice as many, not for the most (a table past the second-level cache)
    let room = many_new(10_000_000, 3706, SAMPLE).unwrap_or(0);
    assert!((38_000..42_000).contains(&room), "{room}");
    assert_eq!(many_new(10_000_000, SAMPLE, SAMPLE), Some(MOST_ROOM));
    assert_eq!(many_new(1000, SAMPLE, SAMPLE), Some(1000));
}

#[test]
fn a_column_of_more_ids_than_its_first_rows_tell_of_is_coded_as_a_map_would() {
    // the first rows drawn from 3,000 ids (a table made with room for about 6,000),
    // the rest from 60,000: the table grows while windows are looked up in parallel
    let mut seed = 11u64;
    let mut next = || lcg(&mut seed) as usize;
    let n = 3 * PARALLEL_ROWS;
    let strings: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            let ids = if i < SAMPLE { 3000 } else { 60_000 };
            format!("doc-{}", next() % ids).into_bytes()
        })
        .collect();
    let first_new = naive_bytes(&strings[..SAMPLE]).2.len();
    assert!(2 * first_new > SAMPLE && many_new(n, first_new, SAMPLE) < Some(10_000));
    let want = naive_bytes(&strings);
    let (_, wide, data) = arrow(&strings, 0);
    for n_chunks in [1, 2, 8] {
        let rows = [OffsetRows::checked(&wide, &data).unwrap()];
        assert_eq!(
            named(factorize_bytes(&rows, n_chunks, 0)),
            want,
            "{n_chunks}"
        );
    }
}
