//! The CSR containers of the ranking engine: qrels (each user's judged items by
//! item code, grades beside them, the grades sorted descending) and runs (each
//! user's items in ranked order: key descending, input order within ties).
//!
//! Rows are grouped by user with a counting sort ([`group_rows`]); each list is
//! then ranked on its own ([`rank_rows`], [`rank_rows_into`]) with a packed
//! integer sort checked against the real keys and an exact merge sort as fallback.
//! Every output is exact and does not depend on the number of chunks: the order of
//! a list is unique (stable in the input order) and the reported duplicate is the
//! first segment holding one.

use rayon::prelude::*;

use crate::short_sort;
use crate::threads;

/// Rows below which the kernels run on the calling thread.
pub const PARALLEL_ROWS: usize = 1 << 16;

/// The float order of NumPy's sorts: `a < b`, NaN after everything.
#[inline(always)]
pub fn lt_floats(a: f64, b: f64) -> bool {
    a < b || (b.is_nan() && !a.is_nan())
}

fn insertion_sort(a: &mut [f64], low: usize, high: usize) {
    if high <= low {
        return;
    }
    for i in low + 1..=high {
        let v = a[i];
        let mut j = i;
        while j > low && lt_floats(v, a[j - 1]) {
            a[j] = a[j - 1];
            j -= 1;
        }
        a[j] = v;
    }
}

fn partition(a: &mut [f64], low: usize, high: usize) -> usize {
    let mid = (low + high) >> 1;
    // median of three {low, middle, high}
    if lt_floats(a[mid], a[low]) {
        a.swap(low, mid);
    }
    if lt_floats(a[high], a[mid]) {
        a.swap(high, mid);
    }
    if lt_floats(a[mid], a[low]) {
        a.swap(low, mid);
    }
    let pivot = a[mid];
    a.swap(high, mid); // stash the pivot at the end
    let mut i = low as isize;
    let mut j = high as isize - 1;
    loop {
        while i < high as isize && lt_floats(a[i as usize], pivot) {
            i += 1;
        }
        while j >= low as isize && lt_floats(pivot, a[j as usize]) {
            j -= 1;
        }
        if i >= j {
            break;
        }
        a.swap(i as usize, j as usize);
        i += 1;
        j -= 1;
    }
    a.swap(i as usize, high);
    i as usize
}

/// Sort floats ascending (NaN last) with the quicksort of numba's `ndarray.sort`
/// (median-of-three partitions, insertion sort below 16 elements), so equal keys
/// of different bits (0.0 and -0.0) land where that sort puts them.
pub fn quicksort(a: &mut [f64]) {
    if a.len() < 2 {
        return;
    }
    let mut stack: Vec<(usize, usize)> = vec![(0, a.len() - 1)];
    while let Some((mut low, mut high)) = stack.pop() {
        // partition until an insertion sort is cheaper
        while high - low >= 15 {
            let i = partition(a, low, high);
            // push the larger side, go on with the smaller
            if high - i > i - low {
                if high > i {
                    stack.push((i + 1, high));
                }
                if i == 0 {
                    break;
                }
                high = i - 1;
            } else {
                if i > low {
                    stack.push((low, i - 1));
                }
                low = i + 1;
            }
            if high < low {
                break;
            }
        }
        if high >= low {
            insertion_sort(a, low, high);
        }
    }
}

/// Input row of CSR position `i`; an empty `rows` means the identity.
#[inline(always)]
fn row(rows: &[i64], i: usize) -> usize {
    if rows.is_empty() {
        i
    } else {
        rows[i] as usize
    }
}

/// Split `data` into the chunks `bounds[c]..bounds[c + 1]` (positions).
fn split_at_bounds<'a, T>(mut data: &'a mut [T], bounds: &[usize]) -> Vec<&'a mut [T]> {
    let mut out = Vec::with_capacity(bounds.len().saturating_sub(1));
    for w in bounds.windows(2) {
        let (head, tail) = data.split_at_mut(w[1] - w[0]);
        out.push(head);
        data = tail;
    }
    out
}

/// Segment bounds of `n_chunks` contiguous chunks of `n_seg` segments.
fn chunk_segments(n_seg: usize, n_chunks: usize) -> Vec<usize> {
    (0..=n_chunks).map(|c| n_seg * c / n_chunks).collect()
}

/// Run `f` over chunks, in parallel when `rows` is large.
fn for_chunks<C: Send, F: Fn(C) + Sync + Send>(chunks: Vec<C>, rows: usize, f: F) {
    if chunks.len() > 1 && rows >= PARALLEL_ROWS {
        threads::install(|| chunks.into_par_iter().for_each(f));
    } else {
        chunks.into_iter().for_each(f);
    }
}

/// Each user's judged items sorted by item code with their grades, the grades
/// sorted descending, and the first user with a repeated item (-1 if none).
///
/// Short segments (at most 32 rows) are sorted by counting ranks; longer ones are
/// sorted stably by item code and their grades with [`quicksort`]. `rows` maps CSR
/// positions to input rows (empty: identity).
pub fn judged_segments(
    offsets: &[i64],
    rows: &[i64],
    item_codes: &[i32],
    grades: &[f64],
    n_chunks: usize,
) -> (Vec<i32>, Vec<f64>, Vec<f64>, i64) {
    let n = offsets.last().map_or(0, |&x| x as usize);
    let mut items = crate::pages::zeroed::<i32>(n);
    let mut out_grades = crate::pages::zeroed::<f64>(n);
    let mut desc = crate::pages::zeroed::<f64>(n);
    let first = judged_segments_into(
        offsets,
        rows,
        item_codes,
        grades,
        n_chunks,
        &mut items,
        &mut out_grades,
        &mut desc,
    );
    (items, out_grades, desc, first)
}

/// Longest judged segment sorted by [`short_segment`].
const SHORT: usize = 32;

/// The rows of one short judged segment: item codes and grades, padded with
/// `i32::MAX` codes and -inf grades (which never sort before a row), and `m <=
/// SHORT` rows in use.
struct ShortSegment {
    it: [i32; SHORT],
    gr: [f64; SHORT],
    m: usize,
}

/// Where a segment goes: items ascending with their grades, and grades descending.
type SegmentOut<'a> = (&'a mut [i32], &'a mut [f64], &'a mut [f64]);

/// One short judged segment sorted: its items ascending with their grades, and its
/// grades descending, both stable. Each row goes straight to its rank, the number
/// of rows that sort before it (smaller, or equal and earlier), counted by compares
/// without branches over the padded arrays (no mispredicted shifts, as an
/// insertion sort has on random codes).
#[inline(always)]
fn short_segment_body(seg: &ShortSegment, out: SegmentOut<'_>) {
    let (items, out_grades, desc) = out;
    let (it, gr, m) = (&seg.it, &seg.gr, seg.m);
    let w = (m + 7) & !7;
    for i in 0..m {
        let (x, g) = (it[i], gr[i]);
        let mut ri = 0u32;
        for (j, &y) in it[..w].iter().enumerate() {
            ri += (y < x) as u32 + ((y == x) as u32 & (j < i) as u32);
        }
        let mut rg = 0u32;
        for (j, &h) in gr[..w].iter().enumerate() {
            rg += (h > g) as u32 + ((h == g) as u32 & (j < i) as u32);
        }
        // a rank counts only the other rows: below m however the keys compare
        items[ri as usize] = x;
        out_grades[ri as usize] = g;
        desc[rg as usize] = g;
    }
}

/// [`short_segment_body`], compiled for AVX2 where the CPU has it.
fn short_segment(seg: &ShortSegment, out: SegmentOut<'_>) {
    #[cfg(target_arch = "x86_64")]
    if crate::simd::avx2() {
        // SAFETY: the CPU supports AVX2, checked just above.
        unsafe { short_segment_avx2(seg, out) };
        return;
    }
    short_segment_body(seg, out);
}

/// [`short_segment_body`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn short_segment_avx2(seg: &ShortSegment, out: SegmentOut<'_>) {
    short_segment_body(seg, out);
}

/// [`judged_segments`] into the caller's arrays (each `offsets[-1]` long, as the
/// CSR): returns the first user with a repeated item (-1 if none).
#[allow(clippy::too_many_arguments)]
pub fn judged_segments_into(
    offsets: &[i64],
    rows: &[i64],
    item_codes: &[i32],
    grades: &[f64],
    n_chunks: usize,
    items: &mut [i32],
    out_grades: &mut [f64],
    desc: &mut [f64],
) -> i64 {
    let n_seg = offsets.len().saturating_sub(1);
    let n = items.len();
    let n_chunks = n_chunks.max(1);
    let seg_bounds = chunk_segments(n_seg, n_chunks);
    let pos: Vec<usize> = seg_bounds.iter().map(|&g| offsets[g] as usize).collect();
    let mut dup = vec![-1i64; n_chunks];
    let chunks: Vec<_> = split_at_bounds(items, &pos)
        .into_iter()
        .zip(split_at_bounds(out_grades, &pos))
        .zip(split_at_bounds(desc, &pos))
        .zip(dup.iter_mut())
        .enumerate()
        .collect();
    for_chunks(chunks, n, |(c, (((items, out_grades), desc), dup))| {
        let base = pos[c];
        let mut seg: Vec<(i32, f64)> = Vec::new();
        let mut seg_g: Vec<f64> = Vec::new();
        for g in seg_bounds[c]..seg_bounds[c + 1] {
            let a = offsets[g] as usize;
            let b = offsets[g + 1] as usize;
            let (la, lb) = (a - base, b - base);
            if b - a <= SHORT {
                let mut seg = ShortSegment {
                    it: [i32::MAX; SHORT],
                    gr: [f64::NEG_INFINITY; SHORT],
                    m: b - a,
                };
                for t in a..b {
                    let r = row(rows, t);
                    (seg.it[t - a], seg.gr[t - a]) = (item_codes[r], grades[r]);
                }
                let out = (
                    &mut items[la..lb],
                    &mut out_grades[la..lb],
                    &mut desc[la..lb],
                );
                short_segment(&seg, out);
            } else {
                seg.clear();
                seg_g.clear();
                for t in a..b {
                    let r = row(rows, t);
                    seg.push((item_codes[r], grades[r]));
                    seg_g.push(grades[r]);
                }
                seg.sort_by_key(|p| p.0); // stable, as the reference's merge sort
                for (t, &(it, gr)) in seg.iter().enumerate() {
                    items[la + t] = it;
                    out_grades[la + t] = gr;
                }
                quicksort(&mut seg_g);
                for t in 0..b - a {
                    desc[la + t] = seg_g[b - a - 1 - t];
                }
            }
            if *dup < 0 && items[la..lb].windows(2).any(|w| w[0] == w[1]) {
                *dup = g as i64;
            }
        }
    });
    dup.iter().copied().find(|&d| d >= 0).unwrap_or(-1)
}

/// The segments (ascending) in which two neighbours have equal scores (compared in
/// float32 if `single`): one pass, whose answer both says whether a run has ties and
/// which of its lists hold them.
pub fn tie_segments(scores: &[f64], offsets: &[i64], single: bool) -> Vec<i64> {
    let n_seg = offsets.len().saturating_sub(1);
    let tie_in = |g: &usize| {
        let s = &scores[offsets[*g] as usize..offsets[*g + 1] as usize];
        if single {
            s.windows(2).any(|w| w[1] as f32 == w[0] as f32)
        } else {
            s.windows(2).any(|w| w[1] == w[0])
        }
    };
    if scores.len() >= PARALLEL_ROWS && n_seg > 1 {
        // an indexed parallel iterator collects in order
        threads::install(|| {
            (0..n_seg)
                .into_par_iter()
                .filter(tie_in)
                .map(|g| g as i64)
                .collect()
        })
    } else {
        (0..n_seg).filter(tie_in).map(|g| g as i64).collect()
    }
}

/// True when equal codes are contiguous and ascending (rows already grouped).
pub fn is_grouped(codes: &[i32]) -> bool {
    codes.windows(2).all(|w| w[1] >= w[0])
}

/// CSR offsets of `n_groups` groups from codes in `[0, n_groups)`.
pub fn offsets_of_sorted(codes: &[i32], n_groups: usize) -> Vec<i64> {
    let mut offsets = vec![0i64; n_groups + 1];
    for &c in codes {
        offsets[c as usize + 1] += 1;
    }
    for g in 0..n_groups {
        offsets[g + 1] += offsets[g];
    }
    offsets
}

/// Stable counting sort of rows by code: `(offsets, rows)`.
pub fn group_rows(codes: &[i32], n_groups: usize) -> (Vec<i64>, Vec<i64>) {
    let offsets = offsets_of_sorted(codes, n_groups);
    let mut cursor: Vec<i64> = offsets[..n_groups].to_vec();
    let mut rows = vec![0i64; codes.len()];
    for (i, &c) in codes.iter().enumerate() {
        let g = c as usize;
        rows[cursor[g] as usize] = i as i64;
        cursor[g] += 1;
    }
    (offsets, rows)
}

/// Sort `keys[..n]` descending, carrying `pos`, stable, through the tmp buffers:
/// insertion sort on runs of 16, then bottom-up merges.
pub fn stable_sort_desc(
    keys: &mut [f64],
    pos: &mut [i64],
    tmp_keys: &mut [f64],
    tmp_pos: &mut [i64],
    n: usize,
) {
    let run = 16;
    let mut start = 0;
    while start < n {
        let stop = (start + run).min(n);
        for i in start + 1..stop {
            let (k, p) = (keys[i], pos[i]);
            let mut j = i;
            while j > start && keys[j - 1] < k {
                keys[j] = keys[j - 1];
                pos[j] = pos[j - 1];
                j -= 1;
            }
            keys[j] = k;
            pos[j] = p;
        }
        start += run;
    }
    let mut swapped = false;
    let mut width = run;
    while width < n {
        {
            let (src_k, src_p, dst_k, dst_p): (&[f64], &[i64], &mut [f64], &mut [i64]) = if swapped
            {
                (tmp_keys, tmp_pos, keys, pos)
            } else {
                (keys, pos, tmp_keys, tmp_pos)
            };
            let mut left = 0;
            while left < n {
                let mid = (left + width).min(n);
                let right = (left + 2 * width).min(n);
                let (mut i, mut j, mut o) = (left, mid, left);
                while i < mid && j < right {
                    // strictly greater: equal keys keep their order
                    if src_k[j] > src_k[i] {
                        dst_k[o] = src_k[j];
                        dst_p[o] = src_p[j];
                        j += 1;
                    } else {
                        dst_k[o] = src_k[i];
                        dst_p[o] = src_p[i];
                        i += 1;
                    }
                    o += 1;
                }
                dst_k[o..o + mid - i].copy_from_slice(&src_k[i..mid]);
                dst_p[o..o + mid - i].copy_from_slice(&src_p[i..mid]);
                o += mid - i;
                dst_k[o..o + right - j].copy_from_slice(&src_k[j..right]);
                dst_p[o..o + right - j].copy_from_slice(&src_p[j..right]);
                left += 2 * width;
            }
        }
        swapped = !swapped;
        width *= 2;
    }
    if swapped {
        keys[..n].copy_from_slice(&tmp_keys[..n]);
        pos[..n].copy_from_slice(&tmp_pos[..n]);
    }
}

/// An order-preserving map of float64 bits to u64 (ascending floats, ascending
/// integers).
#[inline(always)]
fn ascending_bits(u: u64) -> u64 {
    const SIGN: u64 = 1 << 63;
    if u & SIGN != 0 {
        !u
    } else {
        u | SIGN
    }
}

/// Scratch of one list's exact ranking: keys, positions, tmp buffers, packed keys.
pub struct SortBuffers {
    keys: Vec<f64>,
    pos: Vec<i64>,
    tmp_keys: Vec<f64>,
    tmp_pos: Vec<i64>,
    packed: Vec<u64>,
}

impl SortBuffers {
    /// Scratch for lists of up to `max_len` rows.
    pub fn new(max_len: usize) -> Self {
        SortBuffers {
            keys: vec![0.0; max_len],
            pos: vec![0; max_len],
            tmp_keys: vec![0.0; max_len],
            tmp_pos: vec![0; max_len],
            packed: vec![0; max_len],
        }
    }
}

/// A set of item codes in `[0, n_items)` for duplicate checks: one bit per item,
/// cleared after each segment.
struct Seen {
    bits: Vec<u64>,
}

impl Seen {
    fn new(n_items: usize) -> Self {
        Seen {
            bits: vec![0; n_items.div_ceil(64)],
        }
    }

    /// Whether the items hold a repeat; leaves the set empty.
    fn repeats<I: Iterator<Item = usize> + Clone>(&mut self, items: I) -> bool {
        let mut found = false;
        for it in items.clone() {
            found |= self.insert(it);
        }
        self.clear(items);
        found
    }

    /// Add an item; whether it was in already.
    #[inline(always)]
    fn insert(&mut self, it: usize) -> bool {
        let (w, b) = (it >> 6, 1u64 << (it & 63));
        let word = self.bits[w];
        self.bits[w] = word | b;
        word & b != 0
    }

    /// Empty the set, which holds no items but these.
    #[inline(always)]
    fn clear<I: Iterator<Item = usize>>(&mut self, items: I) {
        for it in items {
            self.bits[it >> 6] = 0;
        }
    }
}

/// Where a segment's rows are read from: input arrays (through `rows`), or the
/// output arrays themselves (ranked in place; `rows` must be the identity).
#[derive(Clone, Copy)]
pub enum Source<'a, T> {
    /// read through `rows` from these
    Input(&'a [T]),
    /// read from the output, which is overwritten
    InPlace,
}

/// Rank every segment into `out_items` and `out_keys` (positions as `offsets`),
/// in `n_chunks` chunks; returns the first segment with a repeated item, or -1.
#[allow(clippy::too_many_arguments)]
fn rank_into(
    rows: &[i64],
    offsets: &[i64],
    items: Source<'_, i32>,
    keys: Source<'_, f64>,
    out_items: &mut [i32],
    out_keys: &mut [f64],
    n_items: usize,
    max_len: usize,
    n_chunks: usize,
    check: bool,
) -> Ranked {
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

/// Rank one list whose rows are slices (`keys`, `items`): the packed sort, with the
/// exact merge sort where its check fails (key descending, input order within
/// ties). With `seen`, returns whether an item repeats (and leaves `seen` empty);
/// false without.
fn rank_list(
    keys: &[f64],
    items: &[i32],
    out_items: &mut [i32],
    out_keys: &mut [f64],
    bufs: &mut SortBuffers,
    mut seen: Option<&mut Seen>,
) -> bool {
    let n = keys.len();
    if keys.windows(2).all(|w| w[1] <= w[0]) {
        out_items.copy_from_slice(items);
        out_keys.copy_from_slice(keys);
    } else {
        match packed_list(
            keys,
            items,
            out_items,
            out_keys,
            &mut bufs.packed[..n],
            &mut seen,
        ) {
            Some(repeats) => return repeats,
            None => {
                let b = bufs;
                b.keys[..n].copy_from_slice(keys);
                for (t, p) in b.pos[..n].iter_mut().enumerate() {
                    *p = t as i64;
                }
                stable_sort_desc(&mut b.keys, &mut b.pos, &mut b.tmp_keys, &mut b.tmp_pos, n);
                for t in 0..n {
                    out_items[t] = items[b.pos[t] as usize];
                    out_keys[t] = b.keys[t];
                }
            }
        }
    }
    seen.is_some_and(|seen| seen.repeats(out_items.iter().map(|&i| i as usize)))
}

/// The packed sort of [`rank_list`], with the repeat check of `seen` (when given)
/// done while the output is written: whether an item repeats, or None when two
/// keys that differ only in the dropped bits came out of order (the output is then
/// incomplete; `seen` is left empty either way).
///
/// Each key becomes an order-preserving u64 (-0.0 as 0.0, so that equal keys pack
/// alike), inverted (descending), its lowest bits replaced by the position. Two
/// neighbours in the sorted words are in the wrong order only if their words agree
/// above the position bits while their keys differ, which one comparison of words
/// tells; the keys are compared only then. A list of up to 128 keys is first tried
/// with 32-bit words of [`short_sort::ranked_words`] (a bucket in place of the
/// key's bits), checked the same way.
fn packed_list(
    keys: &[f64],
    items: &[i32],
    out_items: &mut [i32],
    out_keys: &mut [f64],
    packed: &mut [u64],
    seen: &mut Option<&mut Seen>,
) -> Option<bool> {
    let n = keys.len();
    // lists of up to 128 keys: bucketed words sorted by AVX2 (a bucket shared by
    // two different keys, which the check finds, sends the list on to the packed
    // keys below)
    let mut words = [0u32; 128];
    if n <= 128 && short_sort::ranked_words(keys, &mut words) {
        for (p, &w) in packed.iter_mut().zip(&words[..n]) {
            *p = w as u64;
        }
        let low = (1u64 << short_sort::POSITION_BITS) - 1;
        if let Some(repeats) = unpack_list(keys, items, out_items, out_keys, packed, low, seen) {
            return Some(repeats);
        }
    }
    let mut bits = 1;
    while (1usize << bits) < n {
        bits += 1;
    }
    let low: u64 = (1u64 << bits) - 1;
    for (t, (p, &k)) in packed.iter_mut().zip(keys).enumerate() {
        // descending, then by position
        *p = (!ascending_bits((k + 0.0).to_bits()) & !low) | t as u64;
    }
    packed.sort_unstable();
    unpack_list(keys, items, out_items, out_keys, packed, low, seen)
}

/// The output of [`packed_list`] from sorted words (positions in their `low` bits):
/// whether an item repeats (with `seen`), or None when two neighbours share the
/// bits above the positions but not their key.
fn unpack_list(
    keys: &[f64],
    items: &[i32],
    out_items: &mut [i32],
    out_keys: &mut [f64],
    packed: &[u64],
    low: u64,
    seen: &mut Option<&mut Seen>,
) -> Option<bool> {
    let mut bad = false;
    let mut repeats = false;
    let mut prev_word = packed.first().map_or(0, |&p| p ^ !low);
    let mut prev_key = 0.0;
    let outputs = out_items.iter_mut().zip(out_keys.iter_mut());
    if let Some(seen) = seen.as_deref_mut() {
        for (&p, (oi, ok)) in packed.iter().zip(outputs) {
            let pos = (p & low) as usize;
            let (key, item) = (keys[pos], items[pos]);
            bad |= (p ^ prev_word) <= low && key != prev_key;
            (prev_word, prev_key) = (p, key);
            *oi = item;
            *ok = key;
            repeats |= seen.insert(item as usize);
        }
        seen.clear(out_items.iter().map(|&i| i as usize));
    } else {
        for (&p, (oi, ok)) in packed.iter().zip(outputs) {
            let pos = (p & low) as usize;
            let key = keys[pos];
            bad |= (p ^ prev_word) <= low && key != prev_key;
            (prev_word, prev_key) = (p, key);
            *oi = items[pos];
            *ok = key;
        }
    }
    (!bad).then_some(repeats)
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
    let max_len = offsets
        .windows(2)
        .map(|w| (w[1] - w[0]) as usize)
        .max()
        .unwrap_or(0);
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
    let dup = rank_into(
        rows, offsets, items_src, keys_src, out_items, out_keys, n_items, max_len, n_chunks, false,
    )
    .dup;
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
    let max_len = offsets
        .windows(2)
        .map(|w| (w[1] - w[0]) as usize)
        .max()
        .unwrap_or(0);
    rank_into(
        &[],
        offsets,
        Source::InPlace,
        Source::Input(keys),
        items,
        out_keys,
        n_items,
        max_len,
        n_chunks,
        true,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    fn reference_rank(keys: &[f64]) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..keys.len()).collect();
        idx.sort_by(|&i, &j| keys[j].partial_cmp(&keys[i]).unwrap());
        idx
    }

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
    fn quicksort_sorts_with_nan_last() {
        let mut seed = 7;
        for n in [0, 1, 2, 15, 16, 17, 100, 1000] {
            let mut v: Vec<f64> = (0..n).map(|_| (lcg(&mut seed) % 13) as f64).collect();
            if n > 3 {
                v[1] = f64::NAN;
            }
            quicksort(&mut v);
            let finite: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
            assert!(finite.windows(2).all(|w| w[0] <= w[1]));
            if n > 3 {
                assert!(v[n - 1].is_nan());
            }
        }
    }

    #[test]
    fn stable_sorts_keep_input_order_in_ties() {
        let mut seed = 3;
        for n in [0, 1, 5, 16, 17, 40, 300] {
            let keys: Vec<f64> = (0..n).map(|_| (lcg(&mut seed) % 7) as f64).collect();
            let want = reference_rank(&keys);
            let mut k = keys.clone();
            let mut p: Vec<i64> = (0..n as i64).collect();
            let (mut tk, mut tp) = (vec![0.0; n], vec![0; n]);
            stable_sort_desc(&mut k, &mut p, &mut tk, &mut tp, n);
            assert_eq!(p.iter().map(|&x| x as usize).collect::<Vec<_>>(), want);
        }
    }

    #[test]
    fn ranked_lists_and_duplicates() {
        // users 0: rows 0, 2; 1: rows 1, 3, 4 (item 7 twice)
        let codes = [0, 1, 0, 1, 1];
        let (offsets, rows) = group_rows(&codes, 2);
        assert_eq!(offsets, vec![0, 2, 5]);
        assert_eq!(rows, vec![0, 2, 1, 3, 4]);
        assert!(!is_grouped(&codes));
        let items = [1, 7, 2, 7, 3];
        let keys = [0.1, 0.5, 0.9, 0.5, 0.7];
        for chunks in [1, 2, 3] {
            let (oi, ok, dup) = rank_rows(
                &offsets,
                &rows,
                Buf::Read(&items),
                Buf::Read(&keys),
                8,
                chunks,
            );
            assert_eq!(oi, Some(vec![2, 1, 3, 7, 7]));
            assert_eq!(ok, Some(vec![0.9, 0.1, 0.7, 0.5, 0.5]));
            assert_eq!(dup, 1);
        }
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

    #[test]
    fn judged_segments_sort_items_and_grades() {
        let mut seed = 5;
        let n = 50;
        let offsets = [0i64, 3, 3, n as i64];
        let codes: Vec<i32> = (0..n).map(|_| (lcg(&mut seed) % 1000) as i32).collect();
        let grades: Vec<f64> = (0..n).map(|_| (lcg(&mut seed) % 4) as f64).collect();
        for chunks in [1, 2, 4] {
            let (items, g, desc, _) = judged_segments(&offsets, &[], &codes, &grades, chunks);
            for w in offsets.windows(2) {
                let (a, b) = (w[0] as usize, w[1] as usize);
                assert!(items[a..b].windows(2).all(|p| p[0] <= p[1]));
                assert!(desc[a..b].windows(2).all(|p| p[0] >= p[1]));
                let mut x: Vec<(i32, u64)> =
                    (a..b).map(|t| (codes[t], grades[t].to_bits())).collect();
                let mut y: Vec<(i32, u64)> = (a..b).map(|t| (items[t], g[t].to_bits())).collect();
                x.sort();
                y.sort();
                assert_eq!(x, y);
            }
        }
        let (_, _, _, dup) = judged_segments(&[0, 2, 4], &[], &[1, 2, 3, 3], &[1.0; 4], 2);
        assert_eq!(dup, 1);
    }

    #[test]
    fn judged_segments_are_stable_sorts_short_or_long() {
        // lengths 0..40 (both sides of the short path), few codes and grades (ties,
        // and 0.0 beside -0.0), read through a row map that reverses the rows
        let mut seed = 11;
        let mut offsets = vec![0i64];
        for len in (0..41).chain([1, 32, 33, 2]) {
            offsets.push(offsets[offsets.len() - 1] + len);
        }
        let n = offsets[offsets.len() - 1] as usize;
        let codes: Vec<i32> = (0..n).map(|_| (lcg(&mut seed) % 7) as i32).collect();
        let zeros = [0.0, -0.0, 1.0, 2.0, -1.0];
        let grades: Vec<f64> = (0..n)
            .map(|_| zeros[(lcg(&mut seed) % 5) as usize])
            .collect();
        let rows: Vec<i64> = (0..n as i64).rev().collect();
        let (items, g, desc, _) = judged_segments(&offsets, &rows, &codes, &grades, 3);
        for w in offsets.windows(2) {
            let (a, b) = (w[0] as usize, w[1] as usize);
            let input: Vec<(i32, f64)> = (a..b)
                .map(|t| (codes[rows[t] as usize], grades[rows[t] as usize]))
                .collect();
            let mut by_item = input.clone();
            by_item.sort_by_key(|p| p.0); // stable
            let mut by_grade: Vec<f64> = input.iter().map(|p| p.1).collect();
            by_grade.sort_by(|x, y| y.partial_cmp(x).unwrap()); // stable, descending
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            let want_items: Vec<i32> = by_item.iter().map(|p| p.0).collect();
            let want_grades: Vec<f64> = by_item.iter().map(|p| p.1).collect();
            assert_eq!(items[a..b].to_vec(), want_items);
            assert_eq!(bits(&g[a..b]), bits(&want_grades));
            // short lists keep input order in ties (0.0 beside -0.0); long ones
            // need not, and the value is all that counts
            if b - a <= SHORT {
                assert_eq!(bits(&desc[a..b]), bits(&by_grade));
            }
            assert_eq!(desc[a..b].to_vec(), by_grade);
        }
    }

    #[test]
    fn tie_segments_find_every_tied_segment() {
        let close = [0.5, 0.5, 1.0, 1.0 + 1e-12];
        assert_eq!(tie_segments(&close, &[0, 2, 4], false), vec![0]);
        assert_eq!(tie_segments(&close, &[0, 2, 4], true), vec![0, 1]);
        assert!(tie_segments(&close, &[0, 1, 3, 4], false).is_empty());
        assert!(tie_segments(&close[2..], &[0, 2], false).is_empty());
        assert_eq!(tie_segments(&close[2..], &[0, 2], true), vec![0]);
        // over the parallel threshold: every tied segment, in order
        let n = PARALLEL_ROWS + 10;
        let long: Vec<f64> = (0..n).map(|i| (i / 3 * 3) as f64).collect();
        let offs: Vec<i64> = (0..=n as i64).step_by(2).chain([n as i64]).collect();
        let want: Vec<i64> = (0..offs.len() as i64 - 1)
            .filter(|&g| {
                let (a, b) = (offs[g as usize] as usize, offs[g as usize + 1] as usize);
                long[a..b].windows(2).any(|w| w[0] == w[1])
            })
            .collect();
        assert!(!want.is_empty());
        assert_eq!(tie_segments(&long, &offs, false), want);
    }
}
