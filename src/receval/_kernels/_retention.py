"""Numba kernels for retention: local periods of timestamps and cohort counts.

Layout: every event has a dense user code (int32) and a timestamp given as
raw int64 values with a divisor (``floor(value / divisor)`` = UTC seconds).
The caller passes ``bounds``, the UTC second at which each local day of the
observation window starts (DST-correct, one more entry than days), and
``period_of_day``, the period index of each of those days.

Per-user activity is collected without sorting the events: either as a bitset
of the window's periods (one or a few uint64 words per user), or, when that
would need more memory, as a CSR of each user's periods built by a counting
sort, each user's few periods then sorted in place. Parallel kernels split the
*users* into ranges, one per part, and every part scans all events and writes
only its own users, so no two threads write the same memory.

Cohort codes (``cohort[u]``): ``0 <= c < n_periods`` the period of the user's
signup; ``NO_SIGNUP`` (-3): the cohort is the user's first active period;
``BEFORE`` (-1) / ``AFTER`` (-2): the signup lies before / after the window.
"""

from __future__ import annotations

import numba as nb
import numpy as np

BEFORE = -1
AFTER = -2
NO_SIGNUP = -3


def _n_threads() -> int:
    """Threads numba's parallel kernels run on."""
    return max(1, int(nb.get_num_threads()))


@nb.njit(cache=True, nogil=True, parallel=True)
def _periods_of_instants(values, divisor, bounds, period_of_day, n_chunks):
    """Period index of every timestamp; every timestamp lies in ``[bounds[0], bounds[-1])``."""
    n = values.shape[0]
    out = np.empty(n, dtype=np.int32)
    b0 = bounds[0]
    last = bounds.shape[0] - 2  # index of the last day
    for chunk in nb.prange(n_chunks):
        lo = chunk * n // n_chunks
        hi = (chunk + 1) * n // n_chunks
        for i in range(lo, hi):
            s = values[i] // divisor  # floor division, also for times before 1970
            g = (s - b0) // 86400  # exact for UTC; off by at most one day around DST
            if g < 0:
                g = 0
            elif g > last:
                g = last
            while g < last and s >= bounds[g + 1]:
                g += 1
            while g > 0 and s < bounds[g]:
                g -= 1
            out[i] = period_of_day[g]
    return out


@nb.njit(cache=True, nogil=True)
def _signup_per_user(codes, values, divisor, valid, n_users):
    """Each user's signup second from rows (a signup column or table).

    Rows with ``valid[i] == False`` (missing) are ignored. Returns the
    seconds, whether the user has one, and the first row whose value differs
    from an earlier value of the same user (-1 if none).
    """
    seconds = np.zeros(n_users, dtype=np.int64)
    has = np.zeros(n_users, dtype=np.bool_)
    for i in range(codes.shape[0]):
        if not valid[i]:
            continue
        u = codes[i]
        s = values[i] // divisor
        if not has[u]:
            has[u] = True
            seconds[u] = s
        elif seconds[u] != s:
            return seconds, has, i
    return seconds, has, -1


@nb.njit(cache=True, nogil=True, parallel=True)
def _events_before_signup(codes, values, divisor, signup_seconds, has_signup, n_chunks):
    """Events strictly before their user's signup (to the second).

    Returns the number of such events, a per-user flag, and the first such row
    (-1 if none).
    """
    n = codes.shape[0]
    counts = np.zeros(n_chunks, dtype=np.int64)
    firsts = np.full(n_chunks, -1, dtype=np.int64)
    flagged = np.zeros(signup_seconds.shape[0], dtype=np.bool_)
    for chunk in nb.prange(n_chunks):
        lo = chunk * n // n_chunks
        hi = (chunk + 1) * n // n_chunks
        count = 0
        first = -1
        for i in range(lo, hi):
            u = codes[i]
            if has_signup[u] and values[i] // divisor < signup_seconds[u]:
                count += 1
                flagged[u] = True  # every writer stores the same value
                if first < 0:
                    first = i
        counts[chunk] = count
        firsts[chunk] = first
    first_row = -1
    for chunk in range(n_chunks):
        if firsts[chunk] >= 0:
            first_row = firsts[chunk]
            break
    return counts.sum(), flagged, first_row


# ------------------------------------------------------------------ bitsets
@nb.njit(cache=True, nogil=True, parallel=True)
def _activity_bitsets(codes, periods, n_users, n_words, n_parts):
    """Per user, ``n_words`` uint64 words with bit p set iff the user has an event in period p."""
    bits = np.zeros(n_users * n_words, dtype=np.uint64)
    one = np.uint64(1)
    low6 = np.int64(63)
    for part in nb.prange(n_parts):
        lo = part * n_users // n_parts
        hi = (part + 1) * n_users // n_parts
        for i in range(codes.shape[0]):
            u = codes[i]
            if u >= lo and u < hi:
                p = np.int64(periods[i])
                k = np.int64(u) * n_words + (p >> 6)
                bits[k] |= one << np.uint64(p & low6)
    return bits


@nb.njit(cache=True, nogil=True)
def _lowest_bit(bits, start, n_words):
    """Index of the lowest set bit of words ``[start, start + n_words)`` (-1 if none)."""
    zero = np.uint64(0)
    one = np.uint64(1)
    for w in range(n_words):
        x = bits[start + w]
        if x != zero:
            p = w * 64
            while (x & one) == zero:
                x >>= one
                p += 1
            return p
    return -1


@nb.njit(cache=True, nogil=True)
def _count_period(p, c, drop_before, login, table):
    """Add one active (user, period p) pair for a user of cohort code ``c``."""
    if drop_before and (c == AFTER or (c >= 0 and p < c)):
        return
    login[p] += 1
    if c >= 0 and p >= c:
        table[c, p - c] += 1


@nb.njit(cache=True, nogil=True, parallel=True)
def _accumulate_bitsets(bits, n_words, cohort, n_periods, drop_before, n_parts):
    """New users, login users and the cohort x offset counts from per-user bitsets.

    Returns arrays with a leading axis of ``n_parts`` (one slice per part).
    """
    n_users = cohort.shape[0]
    new = np.zeros((n_parts, n_periods), dtype=np.int64)
    login = np.zeros((n_parts, n_periods), dtype=np.int64)
    table = np.zeros((n_parts, n_periods, n_periods), dtype=np.int64)
    zero = np.uint64(0)
    one = np.uint64(1)
    byte = np.uint64(0xFF)
    eight = np.uint64(8)
    for part in nb.prange(n_parts):
        lo = part * n_users // n_parts
        hi = (part + 1) * n_users // n_parts
        new_p = new[part]
        login_p = login[part]
        table_p = table[part]
        for u in range(lo, hi):
            start = np.int64(u) * n_words
            c = cohort[u]
            if c == NO_SIGNUP:
                c = _lowest_bit(bits, start, n_words)
            for w in range(n_words):
                x = bits[start + w]
                if c >= 0 and (c >> 6) == w:  # the signup counts as an activity
                    x |= one << np.uint64(c & 63)
                p = w * 64
                while x != zero:
                    if (x & byte) == zero:
                        x >>= eight
                        p += 8
                        continue
                    if (x & one) != zero:
                        _count_period(p, c, drop_before, login_p, table_p)
                    x >>= one
                    p += 1
            if c >= 0:
                new_p[c] += 1
    return new, login, table  # one slice per part: the caller sums them


# ------------------------------------------------------------------ CSR
@nb.njit(cache=True, nogil=True, parallel=True)
def _periods_by_user(codes, periods, n_users, n_parts):
    """CSR (offsets, values) of each user's event periods, each segment sorted."""
    n = codes.shape[0]
    offsets = np.zeros(n_users + 1, dtype=np.int64)
    for i in range(n):
        offsets[codes[i] + 1] += 1
    for u in range(n_users):
        offsets[u + 1] += offsets[u]
    values = np.empty(n, dtype=np.int32)
    cursor = offsets[:-1].copy()
    for part in nb.prange(n_parts):
        lo = part * n_users // n_parts
        hi = (part + 1) * n_users // n_parts
        for i in range(n):
            u = codes[i]
            if u >= lo and u < hi:
                values[cursor[u]] = periods[i]
                cursor[u] += 1
    for u in nb.prange(n_users):
        a = offsets[u]
        b = offsets[u + 1]
        if b - a > 1:
            values[a:b].sort()
    return offsets, values


@nb.njit(cache=True, nogil=True, parallel=True)
def _accumulate_csr(offsets, values, cohort, n_periods, drop_before, n_parts):
    """Same counts as ``_accumulate_bitsets`` from sorted per-user segments (one slice per part)."""
    n_users = cohort.shape[0]
    new = np.zeros((n_parts, n_periods), dtype=np.int64)
    login = np.zeros((n_parts, n_periods), dtype=np.int64)
    table = np.zeros((n_parts, n_periods, n_periods), dtype=np.int64)
    for part in nb.prange(n_parts):
        lo = part * n_users // n_parts
        hi = (part + 1) * n_users // n_parts
        new_p = new[part]
        login_p = login[part]
        table_p = table[part]
        for u in range(lo, hi):
            a = offsets[u]
            b = offsets[u + 1]
            c = cohort[u]
            if c == NO_SIGNUP:
                c = values[a]  # sorted: the first period; such users have events
            marked = c < 0  # the signup period still has to be counted
            prev = -1
            for j in range(a, b):
                p = np.int64(values[j])
                if p == prev:
                    continue  # another event in the same period
                prev = p
                if not marked and c < p:
                    _count_period(c, c, drop_before, login_p, table_p)
                    marked = True
                if p == c:
                    marked = True
                _count_period(p, c, drop_before, login_p, table_p)
            if not marked:
                _count_period(c, c, drop_before, login_p, table_p)
            if c >= 0:
                new_p[c] += 1
    return new, login, table  # one slice per part: the caller sums them
