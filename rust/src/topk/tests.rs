use super::*;

/// The rows' top k by brute force: score descending, key ascending, masked skipped.
fn brute(
    scores: &[f32],
    width: usize,
    keys: &[u32],
    masked: &[Vec<i32>],
    k: usize,
) -> Vec<Vec<i32>> {
    scores
        .chunks(width)
        .zip(masked)
        .map(|(row, m)| {
            let mut c: Vec<i32> = (0..width as i32).filter(|i| !m.contains(i)).collect();
            c.sort_by(|&a, &b| {
                row[b as usize]
                    .partial_cmp(&row[a as usize])
                    .unwrap()
                    .then(keys[a as usize].cmp(&keys[b as usize]))
            });
            c.truncate(k);
            c
        })
        .collect()
}

/// The scores of every user row against every item row (exact: small integers).
fn products(users: &[f32], items: &[f32], dim: usize) -> Vec<f32> {
    users
        .chunks(dim)
        .flat_map(|u| {
            items
                .chunks(dim)
                .map(|v| u.iter().zip(v).map(|(a, b)| a * b).sum::<f32>())
                .collect::<Vec<_>>()
        })
        .collect()
}

fn flat(masked: &[Vec<i32>]) -> (Vec<i64>, Vec<i32>) {
    let mut offsets = vec![0i64];
    let mut flat = vec![];
    for m in masked {
        let mut m = m.clone();
        m.sort();
        flat.extend(m);
        offsets.push(flat.len() as i64);
    }
    (offsets, flat)
}

fn run(
    users: &[f32],
    items: &[f32],
    dim: usize,
    keys: &[u32],
    masked: &[Vec<i32>],
    k: usize,
    step: usize,
) -> Vec<Vec<i32>> {
    let rows = users.len() / dim;
    let width = items.len() / dim;
    let (offsets, flat) = flat(masked);
    let mut hs = vec![0f32; rows * k];
    let mut hi = vec![0i32; rows * k];
    let mut hl = vec![0i64; rows];
    let mut col0 = 0;
    while col0 < width {
        let w = step.min(width - col0);
        let nan = scan_block(
            &Block {
                users,
                items: &items[col0 * dim..(col0 + w) * dim],
                dim,
                col0,
            },
            keys,
            &Masked {
                offsets: &offsets,
                items: &flat,
            },
            Heaps {
                scores: &mut hs,
                items: &mut hi,
                len: &mut hl,
                k,
            },
        );
        assert!(!nan);
        col0 += w;
    }
    finish(
        Heaps {
            scores: &mut hs,
            items: &mut hi,
            len: &mut hl,
            k,
        },
        keys,
    );
    (0..rows)
        .map(|r| hi[r * k..r * k + hl[r] as usize].to_vec())
        .collect()
}

#[test]
fn blocks_of_any_width_give_the_brute_force_top_k_with_ties() {
    let mut x: u64 = 7;
    let mut next = move || crate::testing::lcg(&mut x) as u32;
    // many users (more than a task) and items (more than a group of panels), and
    // integer vectors: exact products, many ties
    // (100 rows: two tasks; 768 numbers: 4 panels a group, 2 groups)
    for (rows, width, dim, ks, steps) in [
        (37, 203, 3, &[1, 3, 10, 250][..], &[1, 7, 16, 64, 1000][..]),
        (100, 120, 768, &[1, 10][..], &[7, 1000][..]),
        (13, 3000, 5, &[4, 100][..], &[50, 3000][..]),
    ] {
        let mut values =
            |n: usize| -> Vec<f32> { (0..n).map(|_| (next() % 5) as f32 - 2.0).collect() };
        let users = values(rows * dim);
        let items = values(width * dim);
        let scores = products(&users, &items, dim);
        let mut keys: Vec<u32> = (0..width as u32).collect();
        keys.reverse();
        let masked: Vec<Vec<i32>> = (0..rows)
            .map(|r| {
                if r % 5 == 0 {
                    (0..width as i32).collect()
                } else {
                    (0..width as i32)
                        .filter(|i| i % (r + 2) as i32 == 1)
                        .collect()
                }
            })
            .collect();
        for &k in ks {
            let want = brute(&scores, width, &keys, &masked, k);
            for &step in steps {
                crate::simd::for_each_path(|simd| {
                    let got = run(&users, &items, dim, &keys, &masked, k, step);
                    let bad = (0..rows).find(|&r| got[r] != want[r]);
                    assert!(
                        bad.is_none(),
                        "rows={rows} k={k} step={step} simd={simd} row {bad:?}"
                    );
                });
            }
        }
    }
}

#[test]
fn every_path_gives_the_same_fused_products() {
    let dim = 37;
    let mut x: u64 = 3;
    let mut next = move || ((crate::testing::lcg(&mut x) >> 7) as f32 / (1u64 << 24) as f32) - 0.5;
    let users: Vec<f32> = (0..tile::MR * dim).map(|_| next()).collect();
    let items: Vec<f32> = (0..tile::NR * dim).map(|_| next()).collect();
    let packed = tile::pack(&items, dim);
    let floors = [0.0f32; tile::MR];
    let want: Vec<f32> = users
        .chunks(dim)
        .flat_map(|u| {
            items
                .chunks(dim)
                .map(|v| u.iter().zip(v).fold(0f32, |s, (a, b)| a.mul_add(*b, s)))
                .collect::<Vec<_>>()
        })
        .collect();
    crate::simd::for_each_path(|simd| {
        let mut out = [[0f32; tile::NR]; tile::MR];
        let t = tile::Tile {
            users: &users,
            panel: &packed,
            dim,
            floors: &floors,
        };
        let hits = tile::tile(&t, &mut out);
        let got: Vec<f32> = out.iter().flatten().copied().collect();
        assert_eq!(got, want, "simd={simd}");
        for (h, row) in hits.iter().zip(&out) {
            for (l, s) in row.iter().enumerate() {
                assert_eq!(h >> l & 1 == 1, *s >= 0.0, "simd={simd}");
            }
        }
    });
}

#[test]
fn row_dots_are_the_tiles_scores_on_every_path() {
    // every (user, item) pair of a tile as a row of a and of b, repeated past the
    // rows a thread scores alone
    let dim = 37;
    let mut x: u64 = 5;
    let mut next = move || ((crate::testing::lcg(&mut x) >> 7) as f32 / (1u64 << 24) as f32) - 0.5;
    let users: Vec<f32> = (0..tile::MR * dim).map(|_| next()).collect();
    let items: Vec<f32> = (0..tile::NR * dim).map(|_| next()).collect();
    let packed = tile::pack(&items, dim);
    let mut scores = [[0f32; tile::NR]; tile::MR];
    let t = tile::Tile {
        users: &users,
        panel: &packed,
        dim,
        floors: &[0.0f32; tile::MR],
    };
    tile::tile(&t, &mut scores);
    let copies = crate::threads::PARALLEL_ROWS / (tile::MR * tile::NR) + 1;
    let (mut a, mut b, mut want) = (vec![], vec![], vec![]);
    for _ in 0..copies {
        for (i, row) in scores.iter().enumerate() {
            for (l, &s) in row.iter().enumerate() {
                a.extend_from_slice(&users[i * dim..(i + 1) * dim]);
                b.extend_from_slice(&items[l * dim..(l + 1) * dim]);
                want.push(s);
            }
        }
    }
    crate::simd::for_each_path(|simd| {
        let mut got = vec![f32::NAN; want.len()];
        row_dots(&a, &b, dim, &mut got);
        assert_eq!(got, want, "simd={simd}");
        let mut few = vec![f32::NAN; 5];
        row_dots(&a[..5 * dim], &b[..5 * dim], dim, &mut few);
        assert_eq!(few, want[..5], "simd={simd}");
    });
    let mut empty = vec![f32::NAN; 3];
    row_dots(&[], &[], 0, &mut empty);
    assert_eq!(empty, [0.0; 3]);
}

#[test]
fn a_score_equal_to_the_floor_enters_by_its_tie_key() {
    // one user, items all scoring 1: the kept ones are the smallest keys, found
    // after the heap is full (the floor equals every later score)
    let dim = 2;
    let users = [1.0f32, 0.0];
    let width = 40;
    let items: Vec<f32> = (0..width).flat_map(|_| [1.0f32, 5.0]).collect();
    let keys: Vec<u32> = (0..width as u32).rev().collect();
    for step in [1, 3, 40] {
        crate::simd::for_each_path(|simd| {
            let got = run(&users, &items, dim, &keys, &[vec![]], 4, step);
            assert_eq!(got, vec![vec![39, 38, 37, 36]], "step={step} simd={simd}");
        });
    }
}

#[test]
fn a_nan_score_is_reported_and_never_kept() {
    // the products 1, 1 + 0 * inf = NaN, 0.5
    let users = [1.0f32, 0.0];
    let items = [1.0f32, 0.0, 1.0, f32::INFINITY, 0.5, 0.0];
    let keys = [0u32, 1, 2];
    let (mut hs, mut hi, mut hl) = (vec![0f32; 3], vec![0i32; 3], vec![0i64; 1]);
    let nan = scan_block(
        &Block {
            users: &users,
            items: &items,
            dim: 2,
            col0: 0,
        },
        &keys,
        &Masked {
            offsets: &[0, 0],
            items: &[],
        },
        Heaps {
            scores: &mut hs,
            items: &mut hi,
            len: &mut hl,
            k: 3,
        },
    );
    assert!(nan);
    assert_eq!(hl[0], 2);
}

#[test]
fn minus_zero_and_zero_are_one_score_ordered_by_tie_key() {
    // a product that underflows to -0 ties with +0: the smaller key comes first
    let (mut hs, mut hi, mut hl) = (vec![0.0f32, -0.0], vec![1i32, 0], vec![2i64]);
    finish(
        Heaps {
            scores: &mut hs,
            items: &mut hi,
            len: &mut hl,
            k: 2,
        },
        &[0, 1],
    );
    assert_eq!(hi, [0, 1]);
}
