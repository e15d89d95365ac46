//! Inner products of a tile of `MR` users by `NR` items, kept in registers and
//! screened there against each user's floor: only the tiles where some score can
//! enter a top k leave the kernel.
//!
//! Items are packed in panels of `NR`, dimension by dimension (`pack`), so a tile
//! reads one panel row per dimension and broadcasts one number of each user. Every
//! score is the same chain of fused multiply-adds, `s = fma(u[d], v[d], s)` for
//! `d = 0, 1, ...` from `s = 0`, on every path: the AVX2 kernel and its scalar
//! twin give the same floats, whatever the blocks, threads or CPU.

/// Users per tile.
pub const MR: usize = 6;
/// Items per tile (two AVX registers).
pub const NR: usize = 16;

/// The scores of one tile, row by row.
pub type Scores = [[f32; NR]; MR];

/// `items` (`n` rows of `dim`) packed in panels of `NR` items: panel `p`, dimension
/// `d`, lane `l` at `(p * dim + d) * NR + l` is item `p * NR + l`'s `d`-th number
/// (zero past the last item).
pub fn pack(items: &[f32], dim: usize) -> Vec<f32> {
    let n = items.len() / dim;
    let panels = n.div_ceil(NR);
    let mut out = vec![0f32; panels * dim * NR];
    for (i, row) in items.chunks_exact(dim).enumerate() {
        let (p, l) = (i / NR, i % NR);
        let panel = &mut out[p * dim * NR..(p + 1) * dim * NR];
        for (d, &x) in row.iter().enumerate() {
            panel[d * NR + l] = x;
        }
    }
    out
}

/// One tile's inputs: `MR` users (`MR` rows of `dim`), one packed panel of items,
/// and each user's floor.
pub struct Tile<'a> {
    /// The users' vectors.
    pub users: &'a [f32],
    /// One panel of [`pack`].
    pub panel: &'a [f32],
    /// The numbers per vector.
    pub dim: usize,
    /// The score below which a user's score is not wanted.
    pub floors: &'a [f32; MR],
}

/// The scores of a tile into `out`; bit `l` of entry `i` of the result is set
/// where score `(i, l)` is not below `floors[i]` (or is NaN).
#[inline]
pub fn tile(t: &Tile<'_>, out: &mut Scores) -> [u32; MR] {
    #[cfg(target_arch = "x86_64")]
    if crate::simd::avx_fma() {
        // SAFETY: the CPU has AVX and FMA (checked just above).
        return unsafe { tile_avx(t, out) };
    }
    tile_scalar(t, out)
}

/// [`tile`] one number at a time.
fn tile_scalar(t: &Tile<'_>, out: &mut Scores) -> [u32; MR] {
    let (dim, floors) = (t.dim, t.floors);
    let users = &t.users[..MR * dim];
    let panel = &t.panel[..dim * NR];
    *out = [[0f32; NR]; MR];
    for d in 0..dim {
        let v = &panel[d * NR..(d + 1) * NR];
        for (i, row) in out.iter_mut().enumerate() {
            let u = users[i * dim + d];
            for (s, &x) in row.iter_mut().zip(v) {
                *s = u.mul_add(x, *s);
            }
        }
    }
    let mut hits = [0u32; MR];
    for ((h, row), &floor) in hits.iter_mut().zip(out.iter()).zip(floors) {
        for (l, &s) in row.iter().enumerate() {
            *h |= u32::from(s >= floor || s.is_nan()) << l;
        }
    }
    hits
}

/// [`tile`] in AVX registers: 12 accumulators of 8 scores.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,fma")]
fn tile_avx(t: &Tile<'_>, out: &mut Scores) -> [u32; MR] {
    use std::arch::x86_64::*;

    let (dim, floors) = (t.dim, t.floors);
    assert!(t.users.len() >= MR * dim && t.panel.len() >= dim * NR);
    let (u, v) = (t.users.as_ptr(), t.panel.as_ptr());
    let mut acc = [[_mm256_setzero_ps(); 2]; MR];
    for d in 0..dim {
        // SAFETY: d < dim, so the panel row d * NR .. d * NR + 16 and the users'
        // numbers i * dim + d (i < MR) lie inside the slices (asserted above).
        unsafe {
            let b0 = _mm256_loadu_ps(v.add(d * NR));
            let b1 = _mm256_loadu_ps(v.add(d * NR + 8));
            for (i, a) in acc.iter_mut().enumerate() {
                let x = _mm256_broadcast_ss(&*u.add(i * dim + d));
                a[0] = _mm256_fmadd_ps(x, b0, a[0]);
                a[1] = _mm256_fmadd_ps(x, b1, a[1]);
            }
        }
    }
    let mut hits = [0u32; MR];
    for ((h, (a, row)), &floor) in hits
        .iter_mut()
        .zip(acc.iter().zip(out.iter_mut()))
        .zip(floors)
    {
        let f = _mm256_set1_ps(floor);
        let lo = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_NLT_UQ>(a[0], f)) as u32;
        let hi = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_NLT_UQ>(a[1], f)) as u32;
        *h = lo | hi << 8;
        // SAFETY: a row of out holds 16 floats.
        unsafe {
            _mm256_storeu_ps(row.as_mut_ptr(), a[0]);
            _mm256_storeu_ps(row.as_mut_ptr().add(8), a[1]);
        }
    }
    hits
}
