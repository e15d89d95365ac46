//! One list ranked: its keys descending, equal keys in input order, by a packed
//! integer sort checked against the real keys, with an exact merge sort where the
//! check fails; a repeated item is found while the output is written.

use crate::sort::short;
use crate::sort::{order_key, stable_sort_desc};

/// Scratch of one list's exact ranking: keys, positions, tmp buffers, packed keys.
pub(super) struct SortBuffers {
    keys: Vec<f64>,
    pos: Vec<i64>,
    tmp_keys: Vec<f64>,
    tmp_pos: Vec<i64>,
    packed: Vec<u64>,
}

impl SortBuffers {
    /// Scratch for lists of up to `max_len` rows.
    pub(super) fn new(max_len: usize) -> Self {
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
pub(super) struct Seen {
    bits: Vec<u64>,
}

impl Seen {
    pub(super) fn new(n_items: usize) -> Self {
        Seen {
            bits: vec![0; n_items.div_ceil(64)],
        }
    }

    /// Whether the items hold a repeat; leaves the set empty.
    pub(super) fn repeats<I: Iterator<Item = usize> + Clone>(&mut self, items: I) -> bool {
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

/// Rank one list whose rows are slices (`keys`, `items`): the packed sort, with the
/// exact merge sort where its check fails (key descending, input order within
/// ties). With `seen`, returns whether an item repeats (and leaves `seen` empty);
/// false without.
pub(super) fn rank_list(
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
/// with 32-bit words of [`short::ranked_words`] (a bucket in place of the
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
    if n <= 128 && short::ranked_words(keys, &mut words) {
        for (p, &w) in packed.iter_mut().zip(&words[..n]) {
            *p = w as u64;
        }
        let low = (1u64 << short::POSITION_BITS) - 1;
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
        *p = (!order_key(k) & !low) | t as u64;
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
