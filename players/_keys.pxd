"""Information-state keys in C (:mod:`players._keys`), for the searches that
follow a role's key along sampled histories without Python."""
from libc.stdint cimport int32_t, int64_t, uint64_t


cdef inline uint64_t _mix(uint64_t z) noexcept nogil:
    """The splitmix64 finalizer (Steele, Lea and Flood, OOPSLA 2014)."""
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t _extend(uint64_t key, uint64_t move, const int32_t* seen,
                             int n) noexcept nogil:
    """The key after a step where the role played ``move`` and saw the ``n``
    numbers of ``seen`` (in order)."""
    cdef uint64_t h = _mix(key + 0x9E3779B97F4A7C15ULL * (move + 1))
    cdef int i
    for i in range(n):
        h = _mix(h ^ (<uint64_t> <int64_t> seen[i] + 0xD1B54A32D192ED03ULL))
    return _mix(h + <uint64_t> n)
