//! Tests of the open rows: grouping, absorbing another's rows.

use super::*;

#[test]
fn rows_group_by_first_row_and_absorb_in_code_order() {
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
    assert_eq!(rows.users.code_text(b"7").unwrap(), 1);
    assert_eq!(rows.users.code_text(b"u").unwrap(), 2);
    let g = rows.grouped();
    assert_eq!(g.order, vec![0, 1, 2]);
    assert_eq!(g.offsets, vec![0, 2, 3, 3]);
    assert_eq!(g.items, vec![0, 2, 1]);
    assert_eq!(g.values, vec![0.5, 2.0, 0.1]);
    let mut other = OpenRows::default();
    other.absorb(&rows).unwrap();
    other.absorb(&rows).unwrap();
    assert_eq!(other.user.to_vec(), vec![0, 1, 0, 0, 1, 0]);
}
