"""The C-level interface of the bit-parallel playouts (:mod:`ggp.reasoners._lanes`), for
the search trees that run many playouts from one leaf (:mod:`players.perfect._tree`):
``_run`` plays ``count`` random playouts from a state, 64 at a time."""
cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t


ctypedef struct Record:
    # what traces() keeps of each playout p (numbered in the order they start)
    int32_t* moves      # move of role r at depth d: moves[(p * max_steps + d) * nroles + r]
    uint8_t* end        # 1 terminal, 2 cut short
    int64_t* goals      # goals[p * nroles + r]
    int64_t* depth
    int64_t[64] row     # per lane: p * max_steps - the step its playout started


ctypedef struct GoalCheck:
    # the first terminal state whose goals break GDL's rule (see Lanes.playouts)
    int free_role       # the role that may have no goal (GDL-II's random), or -1
    int role            # the role whose goals break it, or -1 while none has
    int nvalues         # its goal values: values[0:nvalues]
    int32_t* values     # room for ngoals values
    uint64_t* seen      # scratch, per role: the lanes where it has a goal
    uint64_t* many      # scratch, per role: the lanes where it has two, or one past 100


@cython.final
cdef class Lanes:
    cdef int n, nbase, nmoves, nroles, ngoals, term_node
    cdef int len1, len2, leng, nfront, nbuffered, ndirect
    cdef int blocks1, blocks2, blocksg
    cdef uint64_t* val           # per node, its 64 lanes
    cdef int32_t* prog1          # phase 1, phase 2 and goal gate programs (see _sweep)
    cdef int32_t* prog2
    cdef int32_t* progg
    cdef int32_t* front          # phase-1 gates read in the rest of a step
    cdef uint64_t* front_root    # their values at the root (all lanes alike)
    cdef int32_t* base_node
    cdef int32_t* next_node
    cdef int32_t* direct         # bases whose next node is a gate or a constant
    cdef int32_t* buffered       # bases whose next node is an input (read before writing)
    cdef uint64_t* buffer
    cdef int32_t* does_node
    cdef int32_t* legal_node
    cdef int32_t* role_start
    cdef int32_t* goal_node
    cdef int32_t* goal_role
    cdef int32_t* goal_value
    cdef int32_t* scratch        # per role: its moves legal in some active lane
    cdef int32_t* dset           # moves whose does word is set
    cdef int ndset

    cdef inline void _clear_does(self) noexcept nogil
    cdef inline void _set_does(self, int m, uint64_t lanes) noexcept nogil
    cdef uint64_t _no_legal(self, uint64_t active) noexcept nogil
    cdef void _choose(self, uint64_t active, uint64_t* rng, Record* rec, int64_t t) noexcept nogil
    cdef inline void _advance(self) noexcept nogil
    cdef inline void _reset(self, const uint8_t* root, uint64_t lanes) noexcept nogil
    cdef int _root(self, const uint8_t* root, int max_steps) noexcept nogil
    cdef void _run(self, const uint8_t* root, int64_t count, uint64_t* rng, int max_steps,
                   int64_t* out, Record* rec, GoalCheck* check) noexcept nogil
    cdef void _check_goals(self, uint64_t lanes, GoalCheck* check) noexcept nogil
