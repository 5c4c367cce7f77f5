# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""What the searches from histories sampled from a belief share: the same in
Python and in C, so that the searches in C (:mod:`players.imperfect._ismcts`,
:mod:`players.imperfect._infotree`) make the simulations of the Python ones of
:mod:`players.imperfect.search` for the same seed.

- Information-state keys: a 64-bit splitmix64 hash of a role's own moves and
  percepts, extended a step at a time (:func:`extend_key`, ``_extend``), and
  the key of a decision (the state's key and the legal moves:
  :func:`decision_key`, ``_decision``).  Moves and percepts are the compiled
  reasoner's numbers; the reference reasoner's terms are taken by their
  Python hash (the same within a process), folded to 32 bits.
- Random numbers: :class:`Draws`, the xorshift64 stream of the network
  kernel (:mod:`ggp.reasoners._propnet`) and the ways the searches draw from it.
- :class:`Sampler`, the base of the searches in C: the belief's histories and
  their cumulative weights, a history drawn by weight and loaded into the
  kernel, the rewards of a terminal state or of a playout in C, and the loop
  that simulates for a budget or until a deadline.
"""
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy

from ggp.reasoners._propnet cimport Kernel, _below, _seed
from players._policy cimport Policy


cdef void* _grown(void* p, size_t size) except NULL nogil:
    cdef void* q = realloc(p, size + 8)
    if q == NULL:
        with gil:
            raise MemoryError()
    return q


cdef void* _zeroed(size_t count, size_t size) except NULL nogil:
    """``count`` items of ``size`` bytes, zeroed (calloc: fresh pages from the
    system are zero already and are not written until used)."""
    cdef void* p = calloc(count, size)
    if p == NULL:
        with gil:
            raise MemoryError()
    return p


# --- keys ---------------------------------------------------------------------------

cdef inline int32_t _number(x):
    """A move's or percept's number: itself when an int, else its hash folded to 32 bits."""
    cdef int64_t h
    if type(x) is int:
        return <int32_t> x
    h = hash(x)
    return <int32_t> (h ^ (h >> 32))


def extend_key(uint64_t key, move, seen) -> int:
    """The key of an information state after the role played ``move`` and saw
    ``seen`` (a tuple, in a fixed order)."""
    return _keyed(key, move, seen, False)


def decision_key(uint64_t key, legal) -> int:
    """The key of the decision at an information state: its key and the legal
    moves (in order)."""
    return _keyed(key, None, legal, True)


cdef uint64_t _keyed(uint64_t key, move, items, bint decision) except? 0:
    cdef int n = len(items), i
    cdef int32_t[32] small
    cdef int32_t* ids = &small[0]
    cdef uint64_t out
    if n > 32:
        ids = <int32_t*> malloc(n * sizeof(int32_t))
        if ids == NULL:
            raise MemoryError()
    try:
        for i in range(n):
            ids[i] = _number(items[i])
        if decision:
            out = _decision(key, ids, n)
        else:
            out = _extend(key, <uint64_t> <int64_t> _number(move), ids, n)
    finally:
        if n > 32:
            free(ids)
    return out


# --- random numbers -----------------------------------------------------------------

cdef int _pick(uint64_t* rng, const double* weights, int k) noexcept nogil:
    """An index drawn in proportion to ``weights``."""
    cdef double total = 0.0, x, acc = 0.0
    cdef int i
    for i in range(k):
        total += weights[i]
    x = _uniform(rng) * total
    for i in range(k - 1):
        acc += weights[i]
        if x < acc:
            return i
    return k - 1


cdef int _bisect(uint64_t* rng, const double* cumulative, int n) noexcept nogil:
    """An index drawn by the cumulative weights ``cumulative`` (``n`` of them)."""
    cdef double x = _uniform(rng) * cumulative[n - 1]
    cdef int lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) // 2
        if x < cumulative[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo if lo < n else n - 1


cdef class Draws:
    """The random numbers of a Python search: the stream a search in C draws
    from with the same seed, drawn the same ways."""

    cdef uint64_t rng

    def __init__(self, unsigned long long seed):
        self.rng = _seed(seed)

    def below(self, int k) -> int:
        """An integer in [0, k)."""
        return _below(&self.rng, k)

    def pick(self, const double[:] weights) -> int:
        """An index drawn in proportion to ``weights``."""
        return _pick(&self.rng, &weights[0], weights.shape[0])

    def sample(self, const double[:] cumulative) -> int:
        """An index drawn by the cumulative weights ``cumulative``."""
        return _bisect(&self.rng, &cumulative[0], cumulative.shape[0])


# --- the searches' base -------------------------------------------------------------

cdef class Sampler:
    """A search from histories drawn from a belief, on the network kernel
    ``kernel`` with playouts by ``policy``; rewards are ``(goal - offset) /
    scale``; ``seed`` seeds its :class:`Draws` stream.  Subclasses define
    ``_simulate``."""

    def __cinit__(self):
        self.states = NULL
        self.keys = NULL
        self.cumulative = self.rewards = NULL
        self.anchor = NULL

    def __init__(self, Kernel kernel, Policy policy, double scale, double offset,
                 unsigned long long seed):
        self.K, self.policy = kernel, policy
        self.nroles, self.nbase = kernel.nroles, kernel.nbase
        self.scale, self.offset = scale, offset
        self.rng = _seed(seed)
        self.rewards = <double*> _grown(NULL, self.nroles * sizeof(double))
        self.hypotheses = 0
        self.typical = 0.0

    def __dealloc__(self):
        free(self.states); free(self.keys); free(self.cumulative); free(self.rewards)
        free(self.anchor)

    cdef int _start(self) except -1 nogil:
        """Draw a history by weight (no draw when there is one) and load its
        state; returns its index."""
        cdef int h = 0
        if self.hypotheses > 1:
            h = _bisect(&self.rng, self.cumulative, self.hypotheses)
        if self.anchor != NULL:
            self.K._restore(self.anchor)
        self.K._load(self.states + <int64_t> h * self.nbase)
        return h

    cdef bint _terminal(self) noexcept nogil:
        return self.K.term_node >= 0 and self.K.val[self.K.term_node]

    cdef void _goals(self) noexcept nogil:
        """The rewards of the (terminal) state: each role's best true goal, else 0."""
        cdef int r
        self.K._best_goals(self.rewards)
        for r in range(self.nroles):
            self.rewards[r] = (self.rewards[r] - self.offset) / self.scale

    cdef int _playout(self) except -1 nogil:
        """A playout in C from the kernel's state, as ``Policy.playout`` plays
        one from a loaded state (the legal moves sorted as a load sorts them);
        the rewards of where it ends (each role's last true goal, else 0)."""
        cdef bint cut = False
        cdef int n, r
        self.policy._reserve(MAX_PLAYOUT)
        self.K._sort_legal()
        n = self.policy._run(0, MAX_PLAYOUT, &cut)
        self.K._last_goals(self.rewards)
        self.policy._credit(0, n, self.rewards)
        for r in range(self.nroles):
            self.rewards[r] = (self.rewards[r] - self.offset) / self.scale
        return 0

    cdef int _simulate(self) except -1 nogil:
        return 0

    def believe(self, states, keys, cumulative):
        """The histories the next simulations sample from: their states
        (bytes), every role's key in each (a flat list, role by role), and
        their cumulative weights."""
        cdef int n = len(states), i
        cdef const uint8_t[:] state
        if n == 0 or len(keys) != n * self.nroles or len(cumulative) != n:
            raise ValueError("believe() needs at least one history, with a key per role "
                             "and a weight")
        self.states = <uint8_t*> _grown(self.states, <size_t> n * self.nbase)
        self.keys = <uint64_t*> _grown(self.keys, n * self.nroles * sizeof(uint64_t))
        self.cumulative = <double*> _grown(self.cumulative, n * sizeof(double))
        for i in range(n):
            state = states[i]
            if self.nbase:
                memcpy(self.states + <int64_t> i * self.nbase, &state[0], self.nbase)
            self.cumulative[i] = cumulative[i]
        for i in range(n * self.nroles):
            self.keys[i] = keys[i]
        self.hypotheses = n
        # each simulation loads its history's state into the kernel settled at
        # the first: flipping what differs from it, not from the last playout's end
        free(self.anchor)
        self.anchor = self.K._anchor(self.states, ANCHOR_BYTES)

    def run(self, long long budget=-1, double until=0.0) -> int:
        """Simulate ``budget`` times, or (budget -1) while the slowest
        simulation of this call would still end before ``until`` (a
        ``time.monotonic()`` time); before the first, the last call's mean
        simulation stands in for it (halved if that call made none), so that
        one slow outlier does not stop later searches.  Returns the number of
        simulations."""
        cdef long long done = 0
        cdef double started, took, slowest = self.typical, spent = 0.0
        if self.hypotheses == 0:
            raise ValueError("run() before believe()")
        with nogil:
            while (done < budget) if budget >= 0 else (_now() + slowest < until):
                started = _now()
                self._simulate()
                took = _now() - started
                spent += took
                if took > slowest or done == 0:
                    slowest = took
                done += 1
        self.typical = spent / done if done else self.typical / 2
        return done
