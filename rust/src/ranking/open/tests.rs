//! Tests of the open rows: id tables, values, grouping.

use super::*;

#[test]
fn ints_turn_into_strings_keeping_codes_and_rows_group_by_first_row() {
    let mut rows = OpenRows::default();
    let u: Vec<u32> = [5i64, 7, 5]
        .iter()
        .map(|&id| rows.users.code_any_int(id).unwrap())
        .collect();
    let i: Vec<u32> = [1i64, 2, 3]
        .iter()
        .map(|&id| rows.items.code_any_int(id).unwrap())
        .collect();
    rows.push(u.into_iter(), &i, &[0.5, 0.1, 2.0]);
    assert!(matches!(rows.values, Values::Double(_)));
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
    assert_eq!(rows.users.code_text(b"7").unwrap(), 1);
    assert_eq!(
        rows.users
            .code_text(b"a-long-user-id-of-many-bytes")
            .unwrap(),
        2
    );
    assert_eq!(
        rows.users
            .code_text(b"a-long-user-id-of-many-bytes")
            .unwrap(),
        2
    );
    assert_eq!(rows.users.text(0), b"5");
    let g = rows.grouped();
    assert_eq!(g.order, vec![0, 1, 2]);
    assert_eq!(g.offsets, vec![0, 2, 3, 3]);
    assert_eq!(g.items, vec![0, 2, 1]);
    assert_eq!(g.values, vec![0.5, 2.0, 0.1]);
    let mut other = OpenRows::default();
    other.absorb(&rows).unwrap();
    other.absorb(&rows).unwrap();
    assert_eq!(other.user.to_vec(), vec![0, 1, 0, 0, 1, 0]);
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
    let mut big = Chunked::default();
    big.extend(0..(3 * CHUNK as u32 + 5));
    assert_eq!(big.get(2 * CHUNK + 1), 2 * CHUNK as u32 + 1);
    assert_eq!(big.to_vec().len(), 3 * CHUNK + 5);
    let mut f = Values::default();
    f.extend(&[1.0, 0.25]);
    assert!(matches!(f, Values::Single(_)));
}
