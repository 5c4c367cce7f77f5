"""The C-level interface of the playout policies (:mod:`players._policy`),
for the search tree in C (:mod:`players.perfect._tree`): pick a move among candidates
(``_pick``), play out from the kernel's state (``_run``) and credit a
simulation (``_credit``), the simulation's joint moves in ``seq``."""
cimport cython
from libc.stdint cimport uint8_t, uint64_t, int32_t

from ggp.reasoners._propnet cimport Kernel


cdef struct Stat:
    float mean          # average reward (kept as a mean: decay leaves it alone)
    float count         # visits (weights after decay; exact up to 2**24)


cdef union Value:
    Stat stat           # N-gram table
    int32_t reply       # reply table: the stored reply, -1 when forgotten


cdef struct Slot:       # 16 bytes: four slots a cache line
    uint64_t key        # 0: empty
    Value v


# A hash table: open addressing with linear probing, 64-bit keys (never 0),
# grown to twice its capacity when two thirds full.  Slots are never deleted.
cdef struct Table:
    Slot* slots
    uint64_t mask       # capacity - 1
    int shift           # 64 - log2(capacity), for Fibonacci hashing
    size_t used


@cython.final
cdef class Policy:
    cdef Kernel kernel
    cdef readonly str kind, select, fallback, replies
    cdef readonly double epsilon, tau
    cdef readonly int k, max_n
    cdef readonly bint forget, decisive
    cdef int nroles, nmoves, scorer
    cdef bint gibbs, keep_mast, keep_ngrams, keep_replies, lgr1, lgr2
    cdef uint64_t rng, width
    cdef double* mast_sum       # per move: reward sum and count (the 1-grams)
    cdef double* mast_count
    cdef double* q              # per move: mast_sum / mast_count, UNSEEN when unseen
    cdef Table ngrams           # 2- and 3-grams, keyed by _key(c2, c1, m)
    cdef Table reply2           # LGR-2, keyed by _key(-1, c2, c1)
    cdef int32_t* reply1        # LGR-1, per move c1: the reply, or -1
    cdef int32_t* prev          # per role r: roles (r-1) mod n, (r-2) mod n
    cdef int32_t* seq           # the simulation's joint moves, nroles per step
    cdef int seq_steps          # capacity of seq, in steps
    cdef double* score          # scratch, per candidate: its score (Gibbs: its weight)
    cdef int32_t* parts         # scratch, per candidate: N-grams counted in its score
    cdef int32_t* cand          # scratch for choose(): the candidates
    cdef int32_t* cand_pos      # scratch for choose(): index of m in cand, or -1
    cdef double greed           # probability of playing a capture when there is one
    cdef int32_t* vstart        # per move m: its victims are victims[vstart[m]:vstart[m + 1]]
    cdef int32_t* victims       # base propositions a move has been seen to take
    cdef int32_t* caps          # scratch for _run: the mover's captures
    cdef uint8_t* wins          # per move: 1 when it was seen to win at once every time
    cdef double* worth          # per base proposition: what taking it is worth (NULL: alike)
    cdef uint8_t* threat        # per base proposition: 1 when a learned win moves it (NULL: none)

    cdef uint64_t _key(self, int c2, int c1, int m) noexcept nogil
    cdef void _context(self, const int32_t* row, int t, int r, int* c1, int* c2) noexcept nogil
    cdef double _uniform(self) noexcept nogil
    cdef void _scores(self, const int32_t* cand, int k, int c1, int c2) noexcept nogil
    cdef int _greedy(self, const int32_t* cand, int k) noexcept nogil
    cdef int _boltzmann(self, const int32_t* cand, int k) noexcept nogil
    cdef int _pick(self, int r, const int32_t* cand, int k, const int32_t* pos,
                   int c1, int c2) noexcept nogil
    cdef int _reserve(self, int steps) except -1 nogil
    cdef int _run(self, int t, int max_steps, bint* cut) noexcept nogil
    cdef int _capture(self, const int32_t* cand, int k, bint take) noexcept nogil
    cdef int _credit(self, int t0, int t1, const double* goals) except -1 nogil
    cdef int _put(self, int t, joint) except -1
    cdef int _path(self, path, int credit_from, int room) except -1
