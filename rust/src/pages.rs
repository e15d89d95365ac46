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
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = spare.as_mut_ptr() as usize;
        let (lo, hi) = (
            (start + HUGE - 1) & !(HUGE - 1),
            (start + bytes) & !(HUGE - 1),
        );
        if hi > lo {
            // SAFETY: the range lies inside the vector's own allocation; MADV_HUGEPAGE
            // changes how its pages are backed, never their contents
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
    populate(spare);
}

/// Have the kernel back the whole pages of `s` with memory now, in one call
/// (`MADV_POPULATE_WRITE`, Linux 5.14+), leaving their contents as they are.
///
/// A large output written row by row otherwise takes one page fault per page on
/// first touch, which costs several times more than populating the range at once
/// (most on virtual machines, where the host backs each faulted page). A hint:
/// kernels without the call, and other systems, fault as before.
pub fn populate<T>(s: &mut [T]) {
    let bytes = std::mem::size_of_val(s);
    if bytes < WORTH {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        const MADV_POPULATE_WRITE: libc::c_int = 23;
        let start = s.as_mut_ptr() as usize;
        let (lo, hi) = (
            (start + PAGE - 1) & !(PAGE - 1),
            (start + bytes) & !(PAGE - 1),
        );
        if hi > lo {
            // SAFETY: the range lies inside the slice's own writable memory;
            // MADV_POPULATE_WRITE faults its pages in without changing their contents
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, MADV_POPULATE_WRITE);
            }
        }
    }
}

/// A vector of `n` zeros whose pages are faulted in at once ([`populate`]): for
/// outputs written row by row.
pub fn zeroed<T: Clone + Default>(n: usize) -> Vec<T> {
    let mut v = vec![T::default(); n];
    populate(&mut v);
    v
}
