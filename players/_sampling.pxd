"""What the searches in C share (:mod:`players._sampling`): the clock,
information-state keys, random numbers, and the :class:`Sampler` base of the
searches from a belief's histories of :mod:`players.imperfect._ismcts` and
:mod:`players.imperfect._infotree`."""
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t

from ggp.reasoners._propnet cimport Kernel, _xorshift
from players._policy cimport Policy


cdef extern from "<time.h>" nogil:
    ctypedef long time_t
    cdef struct timespec:
        time_t tv_sec
        long tv_nsec
    int clock_gettime(int, timespec*)
    int CLOCK_MONOTONIC


cdef enum:
    MAX_PLAYOUT = 10000     # playout steps at most (as Policy.playout's default)
    ANCHOR_BYTES = 1 << 20  # the largest kernel copy a search restores before each load


cdef inline double _now() noexcept nogil:
    """``time.monotonic()``, without the interpreter."""
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec + t.tv_nsec * 1e-9


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


cdef inline uint64_t _decision(uint64_t key, const int32_t* legal, int n) noexcept nogil:
    """The key of the decision at information state ``key`` with the ``n``
    legal moves ``legal`` (in order)."""
    return _extend(key ^ 0xA0761D6478BD642FULL, <uint64_t> n, legal, n)


cdef inline double _uniform(uint64_t* rng) noexcept nogil:
    """A double in [0, 1) from the top 53 bits of xorshift64."""
    return (_xorshift(rng) >> 11) * (1.0 / 9007199254740992.0)


cdef void* _grown(void* p, size_t size) except NULL nogil
cdef void* _zeroed(size_t count, size_t size) except NULL nogil
cdef int _pick(uint64_t* rng, const double* weights, int k) noexcept nogil


cdef class Sampler:
    cdef Kernel K
    cdef Policy policy
    cdef int nroles, nbase
    cdef double scale, offset
    cdef uint64_t rng
    cdef uint8_t* states
    cdef uint64_t* keys             # nroles a history
    cdef double* cumulative
    cdef int hypotheses
    cdef char* anchor               # the kernel settled at the first history (NULL: too large)
    cdef double* rewards            # per role, of the simulation under way
    cdef readonly double typical   # seconds, the last run's mean simulation

    cdef int _start(self) except -1 nogil
    cdef bint _terminal(self) noexcept nogil
    cdef void _goals(self) noexcept nogil
    cdef int _playout(self) except -1 nogil
    cdef int _simulate(self) except -1 nogil
