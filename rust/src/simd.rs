//! SIMD dispatch, written once: whether the kernels compiled for AVX2 (or AVX with
//! FMA, or AVX-512) may run. Every such kernel has a scalar twin of the same code that gives the
//! same result, so the choice changes speed only.
//!
//! `RECEVAL_FORCE_SCALAR=1` in the environment (read once, at the first kernel that
//! asks) forces the scalar paths on any CPU; CI runs `cargo test` that way too.
//! Tests run a closure on every path the CPU has with `for_each_path` (a helper
//! of the tests).

use std::sync::OnceLock;

/// The environment variable that forces the scalar paths (any value but empty or `0`).
pub const FORCE_SCALAR_VAR: &str = "RECEVAL_FORCE_SCALAR";

#[derive(Clone, Copy)]
struct Features {
    avx2: bool,
    avx_fma: bool,
    avx512: bool,
}

/// What the CPU has, with the scalar switch applied; detected once.
fn features() -> Features {
    static FEATURES: OnceLock<Features> = OnceLock::new();
    *FEATURES.get_or_init(|| {
        if scalar_forced() {
            return Features {
                avx2: false,
                avx_fma: false,
                avx512: false,
            };
        }
        cpu()
    })
}

/// Whether `RECEVAL_FORCE_SCALAR` asks for the scalar paths.
fn scalar_forced() -> bool {
    std::env::var_os(FORCE_SCALAR_VAR).is_some_and(|v| !v.is_empty() && v != "0")
}

/// What the CPU has, whatever the switch says.
fn cpu() -> Features {
    #[cfg(target_arch = "x86_64")]
    {
        Features {
            avx2: std::arch::is_x86_feature_detected!("avx2"),
            avx_fma: std::arch::is_x86_feature_detected!("avx")
                && std::arch::is_x86_feature_detected!("fma"),
            avx512: std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512dq")
                && std::arch::is_x86_feature_detected!("avx512vl"),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Features {
            avx2: false,
            avx_fma: false,
            avx512: false,
        }
    }
}

/// Whether the paths compiled for AVX2 may run: the CPU has AVX2 and the scalar
/// paths are not forced. A call site runs its `#[target_feature(enable = "avx2")]`
/// function only where this is true.
#[inline]
pub fn avx2() -> bool {
    #[cfg(test)]
    if let Some(simd) = testing::chosen() {
        return simd && cpu().avx2;
    }
    features().avx2
}

/// Whether the paths compiled for AVX-512 (`avx512f`, `avx512bw`, `avx512dq` and
/// `avx512vl`, with AVX2) may run (as [`avx2`]); a kernel that has such a path tries
/// it before its AVX2 one.
#[inline]
pub fn avx512() -> bool {
    #[cfg(test)]
    if let Some(simd) = testing::chosen() {
        return simd && testing::wide() && cpu().avx512;
    }
    features().avx512
}

/// Whether this CPU microcodes AVX-512 compress stores to memory (AMD family 19h
/// with AVX-512, Zen 4: over 100 cycles each), which NumPy's AVX-512 sorts issue on
/// every vector: there they run several times slower than its AVX2 sorts, and the
/// binary metrics sort their classes with [`crate::sort::sort_floats`] instead.
/// Detected once; the scalar switch does not change it (it names the CPU, not a path).
pub fn slow_compress_store() -> bool {
    static SLOW: OnceLock<bool> = OnceLock::new();
    *SLOW.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::__cpuid;
            let vendor = __cpuid(0);
            let amd =
                (vendor.ebx, vendor.edx, vendor.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163);
            let eax = __cpuid(1).eax;
            let base = (eax >> 8) & 0xF;
            let family = if base == 0xF {
                base + ((eax >> 20) & 0xFF)
            } else {
                base
            };
            amd && family == 0x19 && std::arch::is_x86_feature_detected!("avx512f")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    })
}

/// Whether the paths compiled for AVX and FMA may run (as [`avx2`]).
#[inline]
pub fn avx_fma() -> bool {
    #[cfg(test)]
    if let Some(simd) = testing::chosen() {
        return simd && cpu().avx_fma;
    }
    features().avx_fma
}

/// Run `f` on the scalar paths, then (where the CPU has AVX2 and the scalar paths
/// are not forced) on the SIMD paths without AVX-512, then (where the CPU has it) on
/// them with it; `f` gets whether the SIMD paths are on. The
/// tests that call it run one at a time; other tests running meanwhile may take
/// either path, which gives them the same results.
#[cfg(test)]
pub fn for_each_path(mut f: impl FnMut(bool)) {
    let _lock = testing::LOCK
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut paths = vec![(false, false)];
    if features().avx2 {
        paths.push((true, false));
    }
    if features().avx512 {
        paths.push((true, true));
    }
    for (simd, wide) in paths {
        let _chosen = testing::Chosen::new(simd, wide);
        f(simd);
    }
}

#[cfg(test)]
mod testing {
    use std::sync::atomic::{AtomicU8, Ordering};
    use std::sync::Mutex;

    pub static LOCK: Mutex<()> = Mutex::new(());
    /// 0: no test chose; 1: the scalar paths; 2: the SIMD paths but AVX-512; 3: every
    /// SIMD path.
    static CHOSEN: AtomicU8 = AtomicU8::new(0);

    pub fn chosen() -> Option<bool> {
        match CHOSEN.load(Ordering::SeqCst) {
            1 => Some(false),
            2 | 3 => Some(true),
            _ => None,
        }
    }

    /// Whether the chosen paths include AVX-512.
    pub fn wide() -> bool {
        CHOSEN.load(Ordering::SeqCst) == 3
    }

    /// The path a test chose, until it is dropped (a failing test resets it too).
    pub struct Chosen;

    impl Chosen {
        pub fn new(simd: bool, wide: bool) -> Self {
            let chosen = match (simd, wide) {
                (false, _) => 1,
                (true, false) => 2,
                (true, true) => 3,
            };
            CHOSEN.store(chosen, Ordering::SeqCst);
            Chosen
        }
    }

    impl Drop for Chosen {
        fn drop(&mut self) {
            CHOSEN.store(0, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_on_only_where_chosen_and_the_cpu_has_it() {
        let mut seen = Vec::new();
        for_each_path(|simd| {
            assert_eq!(avx2(), simd);
            assert!(!avx_fma() || simd);
            assert!(!avx512() || simd);
            seen.push((simd, avx512()));
        });
        assert_eq!(seen[0], (false, false));
        let paths = 1 + features().avx2 as usize + features().avx512 as usize;
        assert_eq!(seen.len(), paths);
        assert_eq!(seen.last(), Some(&(paths > 1, features().avx512)));
        if !cpu().avx2 || scalar_forced() {
            assert!(!features().avx2 && !features().avx512);
        }
    }
}
