//! The counts of a train/test split of a log (`receval.split`): which users and items
//! each part holds, in one pass over the rows (and a second over the test rows'
//! items for the cold ones), where four boolean passes over the rows would do.

/// A row's part: a bit of a user's or item's flags.
const TRAIN: u8 = 1;
const TEST: u8 = 2;

/// What a split left in each part, counted over the rows' user and item codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SplitCounts {
    pub train_rows: u64,
    pub test_rows: u64,
    pub train_users: u64,
    pub test_users: u64,
    /// Users with no row in either part.
    pub users_dropped: u64,
    /// Users with train rows and no test row.
    pub users_without_test: u64,
    /// Users with test rows and no train row.
    pub cold_users: u64,
    /// Items with test rows and no train row.
    pub cold_items: u64,
    /// Test rows whose item has no train row.
    pub test_rows_cold_items: u64,
}

impl SplitCounts {
    /// The counts in the order `receval.split` reads them.
    pub fn to_array(self) -> [u64; 9] {
        [
            self.train_rows,
            self.test_rows,
            self.train_users,
            self.test_users,
            self.users_dropped,
            self.users_without_test,
            self.cold_users,
            self.cold_items,
            self.test_rows_cold_items,
        ]
    }
}

/// The flags (`TRAIN | TEST`) of each of `n` codes over the rows, or the first row
/// whose code lies outside `[0, n)`.
fn flags(codes: &[i32], n: usize, train: &[bool], test: &[bool]) -> Result<Vec<u8>, usize> {
    let mut seen = vec![0u8; n];
    for (row, ((&c, &a), &b)) in codes.iter().zip(train).zip(test).enumerate() {
        let flag = usize::try_from(c)
            .ok()
            .and_then(|c| seen.get_mut(c))
            .ok_or(row)?;
        *flag |= (u8::from(a) * TRAIN) | (u8::from(b) * TEST);
    }
    Ok(seen)
}

/// How many flags have exactly the bits `want` of `TRAIN | TEST`.
fn having(flags: &[u8], want: u8) -> u64 {
    flags.iter().filter(|&&f| f == want).count() as u64
}

/// The counts of the split of rows into `train` and `test` (disjoint masks, as long
/// as `users`): users are `users` codes in `[0, n_users)`, items `items` codes in
/// `[0, n_items)` (None: no item counts). `Err(row)`: the first row whose code is
/// out of range. The caller checks the lengths.
pub fn split_counts(
    users: &[i32],
    n_users: usize,
    items: Option<(&[i32], usize)>,
    train: &[bool],
    test: &[bool],
) -> Result<SplitCounts, usize> {
    let by_user = flags(users, n_users, train, test)?;
    let mut out = SplitCounts {
        train_rows: train.iter().filter(|&&t| t).count() as u64,
        test_rows: test.iter().filter(|&&t| t).count() as u64,
        users_dropped: having(&by_user, 0),
        users_without_test: having(&by_user, TRAIN),
        cold_users: having(&by_user, TEST),
        ..SplitCounts::default()
    };
    let both = having(&by_user, TRAIN | TEST);
    out.train_users = out.users_without_test + both;
    out.test_users = out.cold_users + both;
    if let Some((codes, n_items)) = items {
        let by_item = flags(codes, n_items, train, test)?;
        out.cold_items = having(&by_item, TEST);
        out.test_rows_cold_items = codes
            .iter()
            .zip(test)
            .filter(|&(&c, &t)| t && by_item[c as usize] & TRAIN == 0)
            .count() as u64;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_users_and_items_of_each_part() {
        // users 0..4, items 0..3; user 2 dropped, user 3 cold, user 1 without test
        let users = [0, 0, 1, 2, 3, 0];
        let items = [0, 1, 0, 2, 2, 2];
        let train = [true, false, true, false, false, false];
        let test = [false, true, false, false, true, true];
        let got = split_counts(&users, 4, Some((&items, 3)), &train, &test).unwrap();
        let want = SplitCounts {
            train_rows: 2,
            test_rows: 3,
            train_users: 2,
            test_users: 2,
            users_dropped: 1,
            users_without_test: 1,
            cold_users: 1,
            cold_items: 2,
            test_rows_cold_items: 3,
        };
        assert_eq!(got, want);
        let no_items = split_counts(&users, 4, None, &train, &test).unwrap();
        assert_eq!((no_items.cold_items, no_items.test_rows_cold_items), (0, 0));
        assert_eq!(no_items.cold_users, 1);
    }

    #[test]
    fn a_code_out_of_range_names_its_row() {
        let t = [true, false];
        let f = [false, true];
        assert_eq!(split_counts(&[0, 5], 2, None, &t, &f), Err(1));
        assert_eq!(split_counts(&[-1, 0], 2, None, &t, &f), Err(0));
        assert_eq!(split_counts(&[0, 1], 2, Some((&[0, 3], 3)), &t, &f), Err(1));
    }
}
