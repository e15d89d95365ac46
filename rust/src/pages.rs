//! Large buffers backed by transparent huge pages where the system offers them
//! (Linux, `madvise` mode): their first touch then faults and zeroes 2 MiB at a
//! time instead of 4 KiB, which halves the kernel's share of writing a large output.

/// Bytes below which a buffer is left alone (a huge page or less).
const WORTH: usize = 4 << 20;

/// Advise the kernel to back the spare capacity of `v` (the part not yet written,
/// hence not yet faulted in) with huge pages; a hint, without effect elsewhere.
pub fn advise_huge<T>(v: &mut Vec<T>) {
    let spare = v.spare_capacity_mut();
    let bytes = std::mem::size_of_val(spare);
    if bytes < WORTH {
        return;
    }
    huge_hint(spare.as_mut_ptr() as usize, bytes);
    populate(spare);
}

/// Advise the kernel to back the whole huge pages of the `bytes` bytes from
/// `start` (memory the caller owns) with huge pages; a hint.
fn huge_hint(start: usize, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let (lo, hi) = (
            (start + HUGE - 1) & !(HUGE - 1),
            (start + bytes) & !(HUGE - 1),
        );
        if hi > lo {
            // SAFETY: the range lies inside an allocation of the caller's;
            // MADV_HUGEPAGE changes how its pages are backed, never their contents
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, bytes);
}

/// Have the kernel back the whole pages of `s` with memory now, in one call per
/// thread (`MADV_POPULATE_WRITE`, Linux 5.14+), leaving their contents as they are.
///
/// A large output written row by row otherwise takes one page fault per page on
/// first touch, which costs several times more than populating the range at once
/// (most on virtual machines, where the host backs each faulted page). Memory the
/// host has taken back while it lay free is backed again page by page, at a few
/// GB/s per thread: the range is split over the kernels' threads (pieces aligned
/// to huge pages). A hint: kernels without the call, and other systems, fault as
/// before.
pub fn populate<T>(s: &mut [T]) {
    let bytes = std::mem::size_of_val(s);
    if bytes < WORTH {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        const HUGE: usize = 2 << 20;
        let start = s.as_mut_ptr() as usize;
        let (lo, hi) = (
            (start + PAGE - 1) & !(PAGE - 1),
            (start + bytes) & !(PAGE - 1),
        );
        if hi <= lo {
            return;
        }
        let threads = crate::threads::num_threads()
            .min((hi - lo) / PARALLEL_BYTES)
            .max(1);
        let step = ((hi - lo) / threads + HUGE - 1) & !(HUGE - 1);
        let pieces: Vec<(usize, usize)> = (0..threads)
            .map(|t| (lo + t * step, (lo + (t + 1) * step).min(hi)))
            .filter(|(a, b)| a < b)
            .collect();
        let fault_in = |&(a, b): &(usize, usize)| {
            const MADV_POPULATE_WRITE: libc::c_int = 23;
            // SAFETY: the range lies inside the slice's own writable memory, which
            // the caller holds exclusively until this returns; MADV_POPULATE_WRITE
            // faults its pages in without changing their contents
            unsafe {
                libc::madvise(a as *mut libc::c_void, b - a, MADV_POPULATE_WRITE);
            }
        };
        if pieces.len() > 1 {
            use rayon::prelude::*;
            crate::threads::install(|| pieces.par_iter().for_each(fault_in));
        } else {
            pieces.iter().for_each(fault_in);
        }
    }
}

/// Bytes per thread below which [`populate`] is not split.
#[cfg(target_os = "linux")]
const PARALLEL_BYTES: usize = 64 << 20;

/// A vector of `n` zeros whose pages are faulted in at once ([`populate`]): for
/// outputs written row by row.
///
/// # Panics
/// When the memory cannot be had, as [`fresh_zeros`] (whose zeros are not written).
pub fn zeroed<T: Zero>(n: usize) -> Vec<T> {
    let mut v = fresh_zeros(n);
    populate(&mut v);
    v
}

/// A vector of `n` zeros as the allocator gives them (a large one on fresh pages,
/// zero already, not yet faulted in, and advised to be huge pages): for an output
/// whose writers fault in each their own part ([`populate`]), in parallel.
///
/// # Panics
/// When the memory cannot be had (a limit on the address space): a panic that
/// says how many bytes were asked for ([`try_zeros`]'s error), which the Python
/// layer raises as an exception (the CLI prints it as an `error:` line), where the
/// allocator would abort the process.
pub fn fresh_zeros<T: Zero>(n: usize) -> Vec<T> {
    try_zeros(n, 1).unwrap_or_else(|e| panic!("{e}"))
}

/// A vector of `rows * columns` zeros as the allocator gives them (see
/// [`fresh_zeros`]), or an error saying how many bytes it needed when the memory
/// cannot be had (a limit on the address space, `ulimit -v`) or the size
/// overflows: never an abort of the process.
pub fn try_zeros<T: Zero>(rows: usize, columns: usize) -> Result<Vec<T>, OutOfMemory> {
    let fail = OutOfMemory {
        bytes: (rows as u128) * (columns as u128) * (std::mem::size_of::<T>() as u128),
    };
    let n = rows.checked_mul(columns).ok_or(fail)?;
    let layout = std::alloc::Layout::array::<T>(n).map_err(|_| fail)?;
    if layout.size() == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: a layout of n elements of a sized type (not of size zero); every
    // element is initialized, all-zero bytes being a value of T (`Zero`), and the
    // vector owns the allocation, made with the layout it frees it with
    unsafe {
        let p = std::alloc::alloc_zeroed(layout).cast::<T>();
        if p.is_null() {
            return Err(fail);
        }
        if layout.size() >= WORTH {
            huge_hint(p as usize, layout.size());
        }
        Ok(Vec::from_raw_parts(p, n, n))
    }
}

/// Numbers, whose all-zero bytes are their zero (the elements of [`fresh_zeros`]).
///
/// # Safety
/// Only for types of nonzero size of which all-zero bytes are a valid value.
pub unsafe trait Zero: Copy {}
// SAFETY: all-zero bytes are 0
unsafe impl Zero for i32 {}
// SAFETY: all-zero bytes are 0.0
unsafe impl Zero for f64 {}
// SAFETY: all-zero bytes are 0
unsafe impl Zero for usize {}
// SAFETY: all-zero bytes are 0
unsafe impl Zero for i64 {}

/// An output the process could not allocate, and its size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfMemory {
    /// Bytes asked for.
    pub bytes: u128,
}

impl std::fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (size, unit) = if self.bytes >= 1 << 30 {
            (self.bytes as f64 / (1u64 << 30) as f64, "GiB")
        } else {
            (self.bytes as f64 / (1u64 << 20) as f64, "MiB")
        };
        write!(
            f,
            "could not allocate {} bytes ({size:.1} {unit})",
            self.bytes
        )
    }
}

impl std::error::Error for OutOfMemory {}

impl From<OutOfMemory> for std::io::Error {
    /// An error of kind `OutOfMemory` (readers, whose errors are `io::Error`).
    fn from(e: OutOfMemory) -> Self {
        std::io::Error::new(std::io::ErrorKind::OutOfMemory, e)
    }
}

/// Room for `additional` more elements in `v`, or an error saying how many bytes
/// the grown vector needed: [`Vec::try_reserve`] (amortized growth), for buffers
/// whose size depends on the input, which would otherwise abort the process when
/// the memory cannot be had.
#[inline]
pub fn try_reserve<T>(v: &mut Vec<T>, additional: usize) -> Result<(), OutOfMemory> {
    if v.capacity() - v.len() >= additional {
        return Ok(());
    }
    v.try_reserve(additional).map_err(|_| OutOfMemory {
        bytes: (v.len() as u128 + additional as u128) * std::mem::size_of::<T>() as u128,
    })
}

/// The items of `iter` (as many as it says) in a vector whose memory is had
/// fallibly ([`try_reserve_exact`]).
pub fn try_collect<T>(iter: impl ExactSizeIterator<Item = T>) -> Result<Vec<T>, OutOfMemory> {
    let mut v = Vec::new();
    try_reserve_exact(&mut v, iter.len())?;
    v.extend(iter);
    Ok(v)
}

/// [`try_reserve`] with no spare room asked beyond `additional` (an output whose
/// size is known).
pub fn try_reserve_exact<T>(v: &mut Vec<T>, additional: usize) -> Result<(), OutOfMemory> {
    if v.capacity() - v.len() >= additional {
        return Ok(());
    }
    v.try_reserve_exact(additional).map_err(|_| OutOfMemory {
        bytes: (v.len() as u128 + additional as u128) * std::mem::size_of::<T>() as u128,
    })
}

// ------------------------------------------------------------------ reserve
use std::alloc::{GlobalAlloc, Layout, System};

/// The allocator of the core: the system's, with an emergency reserve of address
/// space for the small allocations that are not checked one by one (a thread's
/// scratch vector, a message).
///
/// Buffers whose size depends on the input are reserved fallibly ([`try_reserve`],
/// [`try_zeros`]) and become a `MemoryError`; but when such a buffer just fits
/// under a limit on the address space (`ulimit -v`), a small allocation made after
/// it could fail, and Rust aborts the process on a failed allocation. So the core
/// holds [`RESERVE_BYTES`] of address space mapped without access (no memory is
/// used), and gives it back to the system the first time an allocation fails, then
/// tries once more: the work goes on, and its result is the same. The reserve is
/// taken again by [`rearm`] at the start of the next reading (when it can be).
/// The allocator never panics nor unwinds: when the second try fails too, it
/// returns null as the system's would.
pub struct Guarded;

/// Bytes of address space held in reserve.
pub const RESERVE_BYTES: usize = 64 << 20;

/// Address of the reserve, 0 when none is held.
static RESERVE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Take the reserve of address space if it is not held (at the start of work whose
/// memory depends on the input); without effect when it cannot be had (the
/// allocations that follow then fail as they would without it).
pub fn rearm() {
    use std::sync::atomic::Ordering;
    #[cfg(unix)]
    if RESERVE.load(Ordering::Acquire) == 0 {
        // SAFETY: a new private anonymous mapping without access: it uses no memory
        // and is never read nor written, only unmapped by `release`
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                RESERVE_BYTES,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return;
        }
        if RESERVE
            .compare_exchange(0, p as usize, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            // another thread took one first
            // SAFETY: the mapping was just made here and is not shared
            unsafe { libc::munmap(p, RESERVE_BYTES) };
        }
    }
}

/// Give the reserve back to the system; whether one was held.
fn release() -> bool {
    let at = RESERVE.swap(0, std::sync::atomic::Ordering::AcqRel);
    #[cfg(unix)]
    if at != 0 {
        // SAFETY: the mapping of `rearm`, now owned by this thread alone (swapped out)
        unsafe { libc::munmap(at as *mut libc::c_void, RESERVE_BYTES) };
    }
    at != 0
}

/// `alloc()`, once more after the reserve is given back when it fails.
#[inline]
fn or_retry(p: *mut u8, size: usize, alloc: impl FnOnce() -> *mut u8) -> *mut u8 {
    if !p.is_null() {
        return p;
    }
    if size > RESERVE_BYTES {
        return p; // more than the reserve could ever make room for
    }
    // another thread may have given the reserve back meanwhile: try again anyway
    release();
    alloc()
}

// SAFETY: every call goes to the system allocator with the caller's layout and
// pointer; a retry only repeats a call that returned null (nothing was allocated)
unsafe impl GlobalAlloc for Guarded {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        or_retry(System.alloc(layout), layout.size(), || System.alloc(layout))
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        or_retry(System.alloc_zeroed(layout), layout.size(), || {
            System.alloc_zeroed(layout)
        })
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        // a failed realloc leaves the block as it was: it may be tried again
        or_retry(System.realloc(ptr, layout, new), new, || {
            System.realloc(ptr, layout, new)
        })
    }
}

#[global_allocator]
static ALLOCATOR: Guarded = Guarded;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn try_zeros_gives_zeros_or_an_error() {
        assert_eq!(try_zeros::<f64>(3, 2).unwrap(), vec![0.0; 6]);
        assert!(try_zeros::<usize>(0, 5).unwrap().is_empty());
        assert_eq!(try_zeros::<usize>(2, 1 << 20).unwrap(), vec![0; 2 << 20]);
        let err = try_zeros::<f64>(usize::MAX / 2, 3).unwrap_err();
        assert!(err.to_string().starts_with("could not allocate"), "{err}");
        assert!(try_zeros::<f64>(1 << 62, 1).is_err());
        let panic = std::panic::catch_unwind(|| zeroed::<f64>(1 << 62)).unwrap_err();
        let text = panic.downcast_ref::<String>().unwrap();
        assert!(
            text.starts_with("could not allocate 36893488147419103232 bytes"),
            "{text}"
        );
        // the allocator's zeros: small, large (fresh pages), none
        for n in [0, 3, 3 << 20] {
            let z = fresh_zeros::<i32>(n);
            assert!(z.len() == n && z.iter().all(|&x| x == 0));
        }
        assert!(fresh_zeros::<f64>(5).iter().all(|&x| x == 0.0));
        for n in [1 << 62, usize::MAX] {
            let panic = std::panic::catch_unwind(|| fresh_zeros::<i32>(n)).unwrap_err();
            let text = panic.downcast_ref::<String>().unwrap();
            assert!(text.starts_with("could not allocate"), "{text}");
        }
    }

    #[test]
    fn try_reserve_is_room_or_an_error_and_the_reserve_is_taken_again() {
        let mut v = vec![1u32, 2];
        try_reserve(&mut v, 10).unwrap();
        assert!(v.capacity() >= 12 && v == [1, 2]);
        let err = try_reserve(&mut v, usize::MAX / 8).unwrap_err();
        assert!(err.to_string().starts_with("could not allocate"), "{err}");
        assert!(try_reserve_exact(&mut v, 1 << 62).is_err());
        assert_eq!(
            OutOfMemory { bytes: 3 << 20 }.to_string(),
            "could not allocate 3145728 bytes (3.0 MiB)"
        );
        rearm();
        #[cfg(unix)]
        assert_ne!(RESERVE.load(std::sync::atomic::Ordering::Acquire), 0);
        assert!(release());
        rearm();
        #[cfg(unix)]
        assert_ne!(RESERVE.load(std::sync::atomic::Ordering::Acquire), 0);
    }

    #[test]
    fn populate_keeps_contents_in_pieces_and_whole() {
        // large enough to be split over the threads (when there are several),
        // misaligned at both ends, and a small one left alone
        let n = (3 * PARALLEL_BYTES_OR_DEFAULT) / 8 + 12_345;
        let mut v: Vec<u64> = (0..n as u64).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
        populate(&mut v[3..n - 5]);
        assert!(v
            .iter()
            .enumerate()
            .all(|(i, &x)| x == (i as u64).wrapping_mul(0x9E37_79B9)));
        let z = zeroed::<f64>(n / 2 + 1);
        assert!(z.len() == n / 2 + 1 && z.iter().all(|&x| x == 0.0));
        let mut small = vec![7u8; 100];
        populate(&mut small);
        assert!(small.iter().all(|&x| x == 7));
    }

    #[cfg(target_os = "linux")]
    const PARALLEL_BYTES_OR_DEFAULT: usize = PARALLEL_BYTES;
    #[cfg(not(target_os = "linux"))]
    const PARALLEL_BYTES_OR_DEFAULT: usize = 64 << 20;
}
