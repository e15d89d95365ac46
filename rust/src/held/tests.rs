//! Tests of the held rows' pieces: id tables, chunks, values.

use super::ids::{IntCodes, MOVES};
use super::*;

#[test]
fn ints_turn_into_strings_keeping_codes() {
    let mut ids = Ids::default();
    for x in [5i64, 7, 5] {
        ids.code_any_int(x).unwrap();
    }
    assert_eq!(ids.code_text(b"7").unwrap(), 1);
    let long = b"a-long-user-id-of-many-bytes";
    assert_eq!(ids.code_text(long).unwrap(), 2);
    assert_eq!(ids.code_text(long).unwrap(), 2);
    assert_eq!(ids.text(0), b"5");
    // another table's ids coded here in its code order: ints beside strings as text
    let mut other = Ids::default();
    for x in [9i64, 5] {
        other.code_int(x).unwrap();
    }
    assert_eq!(ids.codes_of(&other).unwrap(), vec![3, 0]);
    assert_eq!(other.codes_of(&ids).unwrap(), vec![1, 2, 3, 0]);
    assert!(other.strings());
    assert_eq!(other.text(2), b"7");
}

#[test]
fn values_widen_once_keeping_those_before() {
    // the values before the first not an f32 stay as they were held
    let mut w = Values::default();
    w.extend(&[0.5, 2.0]);
    w.extend(&[0.1, 4.0]);
    match &w {
        Values::Double(v) => {
            assert_eq!((v.narrow.len(), v.wide.len()), (2, 2));
            assert_eq!(v.to_vec(), vec![0.5, 2.0, 0.1, 4.0]);
        }
        Values::Single(_) => panic!("0.1 is not an f32"),
    }
    assert_eq!((w.get(1), w.get(2)), (2.0, 0.1));
    let mut f = Values::default();
    f.extend(&[1.0, 0.25]);
    f.extend_ones(2);
    assert!(matches!(f, Values::Single(_)));
    f.append(&w);
    assert!(matches!(f, Values::Double(_)));
    let all: Vec<f64> = (0..f.len()).map(|i| f.get(i)).collect();
    assert_eq!(all, vec![1.0, 0.25, 1.0, 1.0, 0.5, 2.0, 0.1, 4.0]);
}

#[test]
fn chunks_take_items_one_by_one_or_by_slices() {
    let mut big = Chunked::default();
    big.extend(0..(3 * CHUNK as u32 + 5));
    assert_eq!(big.get(2 * CHUNK + 1), 2 * CHUNK as u32 + 1);
    assert_eq!(big.to_vec().len(), 3 * CHUNK + 5);
    let mut sliced = Chunked::default();
    let items: Vec<u32> = (0..(3 * CHUNK as u32 + 5)).collect();
    for part in items.chunks(40_000) {
        sliced.extend_from_slice(part);
    }
    assert_eq!(sliced.to_vec(), big.to_vec());
    assert!(sliced.chunks().all(|c| c.len() <= CHUNK));
    // no chunk holds more than a chunk's room
    assert!(sliced.memory_bytes() <= 4 * (4 * CHUNK) + 4 * 24);
}

#[test]
fn sparse_ints_turn_the_pages_into_a_hash_table() {
    // sparse ids turn the pages into a hash table, codes kept
    let mut ids = Ids::default();
    let far: Vec<i64> = (0..3000).map(|i| i * 1_000_003 - 7_000_000_000).collect();
    let codes: Vec<u32> = far.iter().map(|&x| ids.code_int(x).unwrap()).collect();
    assert!(matches!(ids.ints, IntCodes::Hashed { .. }));
    assert_eq!(codes, (0..3000).collect::<Vec<u32>>());
    assert_eq!(ids.ints(), far);
    assert_eq!(ids.code_int(far[1234]).unwrap(), 1234);
    // codes found through many doublings, in the middle of a move and after
    let mut grown = Ids::default();
    let mut moves = 0;
    let many: Vec<i64> = (0..200_000i64).map(|i| i * 7_919 - 3_000_000_000).collect();
    for (k, &x) in many.iter().enumerate() {
        assert_eq!(grown.code_int(x).unwrap(), k as u32);
        if let IntCodes::Hashed { old, moved, .. } = &grown.ints {
            moves += usize::from(!old.is_empty() && *moved == MOVES);
        }
        if k % 997 == 0 {
            for j in (0..=k).step_by(k / 50 + 1) {
                assert_eq!(grown.code_int(many[j]).unwrap(), j as u32);
            }
        }
    }
    assert!(matches!(grown.ints, IntCodes::Hashed { .. }));
    assert!(
        moves >= 10,
        "{moves} doublings moved their codes a few at a time"
    );
    for (k, &x) in many.iter().enumerate() {
        assert_eq!(grown.code_int(x).unwrap(), k as u32);
    }
    assert_eq!(grown.len(), many.len());
    assert_eq!(grown.ints(), many);
    let mut dense = Ids::default();
    for x in [5i64, -3, 9000, 4, -3] {
        dense.code_int(x).unwrap();
    }
    assert!(matches!(dense.ints, IntCodes::Pages { .. }));
    assert_eq!(dense.ints(), vec![5, -3, 9000, 4]);
}
