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
                    .total_cmp(&row[a as usize])
                    .then(keys[a as usize].cmp(&keys[b as usize]))
            });
            c.truncate(k);
            c
        })
        .collect()
}

fn run(
    scores: &[f32],
    rows: usize,
    width: usize,
    keys: &[u32],
    masked: &[Vec<i32>],
    k: usize,
    step: usize,
) -> Vec<Vec<i32>> {
    let mut offsets = vec![0i64];
    let mut flat = vec![];
    for m in masked {
        let mut m = m.clone();
        m.sort();
        flat.extend(m);
        offsets.push(flat.len() as i64);
    }
    let mut hs = vec![0f32; rows * k];
    let mut hi = vec![0i32; rows * k];
    let mut hl = vec![0i64; rows];
    let mut col0 = 0;
    while col0 < width {
        let w = step.min(width - col0);
        let block: Vec<f32> = (0..rows)
            .flat_map(|r| {
                scores[r * width + col0..r * width + col0 + w]
                    .iter()
                    .copied()
            })
            .collect();
        let nan = merge_block(
            &Block {
                scores: &block,
                width: w,
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
    let (rows, width) = (37, 203);
    let mut x: u64 = 7;
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) as u32
    };
    let scores: Vec<f32> = (0..rows * width).map(|_| (next() % 7) as f32).collect();
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
    for k in [1, 3, 10, 250] {
        let want = brute(&scores, width, &keys, &masked, k);
        for step in [1, 7, 16, 64, 1000] {
            assert_eq!(
                run(&scores, rows, width, &keys, &masked, k, step),
                want,
                "k={k} step={step}"
            );
        }
    }
}

#[test]
fn a_nan_score_is_reported_and_never_kept() {
    let scores = [1.0, f32::NAN, 0.5];
    let keys = [0u32, 1, 2];
    let (mut hs, mut hi, mut hl) = (vec![0f32; 3], vec![0i32; 3], vec![0i64; 1]);
    let nan = merge_block(
        &Block {
            scores: &scores,
            width: 3,
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
