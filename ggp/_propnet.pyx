# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The propositional network's evaluation kernel, in C.

Nodes are numbered in topological order (inputs first; the nodes of a cycle
of positive dependencies numbered together as one block).  A node is an input
(a base or does proposition, or a constant), an AND or an OR of literals; a
literal is ``node * 2 + negated``.

Evaluation is incremental, as in the propnets of Sancho and ggplib: every gate
keeps the count of its input literals that are true (an AND is true when all
are, an OR when one is), and a node whose value changes adjusts the counts of
its readers and marks them dirty in a bit set.  ``propagate`` visits the dirty
nodes in index order (hence topological order) and settles each from its
count in O(1).  So a step costs what changed, not the network's size, however
wide the gates.  A dirty node that belongs to a cycle settles its whole block
from all false to the least fixpoint (monotone, since negation is stratified).

``playout`` runs whole random playouts without returning to Python.
"""
from libc.stdlib cimport malloc, free
from libc.string cimport memset, memcpy
from libc.stdint cimport uint8_t, uint32_t, uint64_t, int32_t

import numpy as np


cdef enum:
    INPUT = 0
    AND = 1
    OR = 2


cdef inline uint64_t _xorshift(uint64_t* s) noexcept nogil:
    cdef uint64_t x = s[0]
    x ^= x << 13
    x ^= x >> 7
    x ^= x << 17
    s[0] = x
    return x


cdef class Kernel:
    """Arrays of one network and its current values (see the module docstring).

    Built by :mod:`ggp.propnet` from numpy arrays:
    kind[n], in_start[n+1], in_lit[...], out_start[n+1], out_lit[...] (each
    reader of a node as ``reader * 2 + negated``),
    block_lo[n], block_hi[n] (-1 outside cycles), base_node[B] (the input node
    of each base proposition), next_node[B] (the node computing its next
    value, or -1: never true next), does_node[M], legal_node[M], move_role[M]
    (inputs: a move per role, legal in the same order), terminal_node,
    goal_node[G], goal_role[G], goal_value[G].
    """

    cdef int n, nwords, nbase, nmoves, nroles, ngoals, term_node
    cdef uint8_t* kind
    cdef int32_t* in_start
    cdef int32_t* in_lit
    cdef int32_t* out_start
    cdef int32_t* out_lit
    cdef int32_t* count
    cdef int32_t* nin
    cdef int32_t* block_lo
    cdef int32_t* block_hi
    cdef uint8_t* val
    cdef uint64_t* dirty
    cdef int32_t* base_node
    cdef int32_t* next_node
    cdef int32_t* does_node
    cdef int32_t* legal_node
    cdef int32_t* move_role
    cdef int32_t* role_start      # moves of role r: role_start[r] .. role_start[r+1]
    cdef int32_t* goal_node
    cdef int32_t* goal_role
    cdef int32_t* goal_value
    cdef uint8_t* scratch_state
    cdef int32_t* scratch_moves
    cdef int32_t* chosen
    cdef int32_t* current        # per role, the move whose does input is set (-1: none)

    def __cinit__(self):
        self.kind = NULL

    def __init__(self, kind, in_start, in_lit, out_start, out_lit, block_lo, block_hi,
                 base_node, next_node, does_node, legal_node, move_role, nroles,
                 terminal_node, goal_node, goal_role, goal_value, true_node):
        self.n = len(kind)
        self.nwords = (self.n + 63) // 64
        self.nbase = len(base_node)
        self.nmoves = len(does_node)
        self.nroles = nroles
        self.ngoals = len(goal_node)
        self.term_node = terminal_node
        self.kind = <uint8_t*> _copy(kind, np.uint8)
        self.in_start = <int32_t*> _copy(in_start, np.int32)
        self.in_lit = <int32_t*> _copy(in_lit, np.int32)
        self.out_start = <int32_t*> _copy(out_start, np.int32)
        self.out_lit = <int32_t*> _copy(out_lit, np.int32)
        self.block_lo = <int32_t*> _copy(block_lo, np.int32)
        self.block_hi = <int32_t*> _copy(block_hi, np.int32)
        self.base_node = <int32_t*> _copy(base_node, np.int32)
        self.next_node = <int32_t*> _copy(next_node, np.int32)
        self.does_node = <int32_t*> _copy(does_node, np.int32)
        self.legal_node = <int32_t*> _copy(legal_node, np.int32)
        self.move_role = <int32_t*> _copy(move_role, np.int32)
        self.goal_node = <int32_t*> _copy(goal_node, np.int32)
        self.goal_role = <int32_t*> _copy(goal_role, np.int32)
        self.goal_value = <int32_t*> _copy(goal_value, np.int32)
        starts = np.searchsorted(np.asarray(move_role, dtype=np.int32),
                                 np.arange(nroles + 1)).astype(np.int32)
        self.role_start = <int32_t*> _copy(starts, np.int32)
        self.val = <uint8_t*> malloc(self.n)
        self.count = <int32_t*> malloc(self.n * 4 + 4)
        self.nin = <int32_t*> malloc(self.n * 4 + 4)
        self.dirty = <uint64_t*> malloc(self.nwords * 8 + 8)
        self.scratch_state = <uint8_t*> malloc(self.nbase + 1)
        self.scratch_moves = <int32_t*> malloc((self.nmoves + 1) * 4)
        self.chosen = <int32_t*> malloc((nroles + 1) * 4)
        self.current = <int32_t*> malloc((nroles + 1) * 4)
        for role in range(nroles):
            self.current[role] = -1
        memset(self.val, 0, self.n)
        memset(self.dirty, 0, self.nwords * 8 + 8)
        # all values false: a gate's true inputs are its negated ones
        cdef int i, j
        for i in range(self.n):
            self.nin[i] = self.in_start[i + 1] - self.in_start[i]
            self.count[i] = 0
            for j in range(self.in_start[i], self.in_start[i + 1]):
                self.count[i] += self.in_lit[j] & 1
        if true_node >= 0:
            self._setval(true_node, 1)
        # every gate starts dirty: one full evaluation settles the network
        for i in range(self.n):
            if self.kind[i] != INPUT:
                self.dirty[i >> 6] |= (<uint64_t> 1) << (i & 63)
        self.propagate()

    def __dealloc__(self):
        if self.kind == NULL:
            return
        free(self.kind); free(self.in_start); free(self.in_lit); free(self.out_start)
        free(self.out_lit); free(self.count); free(self.nin); free(self.block_lo); free(self.block_hi); free(self.val)
        free(self.dirty); free(self.base_node); free(self.next_node)
        free(self.does_node); free(self.legal_node); free(self.move_role)
        free(self.role_start); free(self.goal_node); free(self.goal_role)
        free(self.goal_value); free(self.scratch_state); free(self.scratch_moves)
        free(self.chosen); free(self.current)

    # --- the core: set inputs, propagate -----------------------------------
    cdef inline void _setval(self, int node, uint8_t v) noexcept nogil:
        """Give ``node`` value ``v``: adjust its readers' counts, and mark dirty
        those whose value the new count would change (every reader in a cycle
        block, whose value is not a function of its count alone)."""
        cdef int j, lit, reader
        self.val[node] = v
        for j in range(self.out_start[node], self.out_start[node + 1]):
            lit = self.out_lit[j]
            reader = lit >> 1
            if v ^ (lit & 1):
                self.count[reader] += 1
            else:
                self.count[reader] -= 1
            if self._eval(reader) != self.val[reader] or self.block_lo[reader] >= 0:
                self.dirty[reader >> 6] |= (<uint64_t> 1) << (reader & 63)

    cdef inline void _set(self, int node, uint8_t v) noexcept nogil:
        if self.val[node] != v:
            self._setval(node, v)

    cdef inline uint8_t _eval(self, int i) noexcept nogil:
        if self.kind[i] == OR:
            return self.count[i] > 0
        return self.count[i] == self.nin[i]

    cdef void _block(self, int lo, int hi) noexcept nogil:
        """Least fixpoint of a cycle block, from all false."""
        cdef int i
        cdef bint changed = True
        cdef uint8_t v
        for i in range(lo, hi + 1):
            self._set(i, 0)
        while changed:
            changed = False
            for i in range(lo, hi + 1):
                v = self._eval(i)
                if v != self.val[i]:
                    self._setval(i, v)
                    changed = True
        for i in range(lo, hi + 1):
            self.dirty[i >> 6] &= ~((<uint64_t> 1) << (i & 63))

    cdef void propagate(self) noexcept nogil:
        cdef int w, i
        cdef uint64_t bits
        cdef uint8_t v
        for w in range(self.nwords):
            while self.dirty[w]:
                bits = self.dirty[w]
                i = (w << 6) + __builtin_ctzll(bits)
                self.dirty[w] = bits & (bits - 1)
                if self.block_lo[i] >= 0:
                    self._block(self.block_lo[i], self.block_hi[i])
                    continue
                v = self._eval(i)
                if v != self.val[i]:
                    self._setval(i, v)

    cdef void _load(self, const uint8_t* state, bint keep_does=False) noexcept nogil:
        """Make the base inputs equal ``state`` (one byte per base proposition),
        clear the does inputs unless ``keep_does``, then settle the network.

        Keeping the last joint move's inputs set is what a playout does: legal,
        goal and terminal never depend on does (the validator ensures it), so
        they are right either way, and the next move only flips what differs.
        """
        cdef int b
        for b in range(self.nbase):
            self._set(self.base_node[b], state[b])
        if not keep_does:
            for b in range(self.nroles):
                if self.current[b] >= 0:
                    self._set(self.does_node[self.current[b]], 0)
                    self.current[b] = -1
        self.propagate()

    cdef void _do(self) noexcept nogil:
        """Make the does inputs those of the moves in ``chosen``, then settle."""
        cdef int r
        for r in range(self.nroles):
            if self.current[r] != self.chosen[r]:
                if self.current[r] >= 0:
                    self._set(self.does_node[self.current[r]], 0)
                self._set(self.does_node[self.chosen[r]], 1)
                self.current[r] = self.chosen[r]
        self.propagate()

    cdef void _read_next(self, uint8_t* out) noexcept nogil:
        cdef int b, node
        for b in range(self.nbase):
            node = self.next_node[b]
            out[b] = self.val[node] if node >= 0 else 0

    cdef int _legal(self, int role, int32_t* out) noexcept nogil:
        """Indices of the legal moves of ``role`` (in order); returns how many."""
        cdef int m, k = 0
        for m in range(self.role_start[role], self.role_start[role + 1]):
            if self.val[self.legal_node[m]]:
                out[k] = m
                k += 1
        return k

    # --- Python-level questions (one call per question) ------------------------
    def load(self, const uint8_t[:] state):
        self._load(&state[0] if self.nbase else NULL)

    def legal(self, int role):
        cdef int k = self._legal(role, self.scratch_moves)
        return [self.scratch_moves[i] for i in range(k)]

    def terminal(self):
        return bool(self.val[self.term_node]) if self.term_node >= 0 else False

    def goals(self, int role):
        return [self.goal_value[g] for g in range(self.ngoals)
                if self.goal_role[g] == role and self.val[self.goal_node[g]]]

    def value(self, int node):
        return self.val[node]

    def next_state(self, const uint8_t[:] state, joint):
        """The next state after move indices ``joint`` (one per role)."""
        cdef int r
        self._load(&state[0] if self.nbase else NULL)
        for r in range(self.nroles):
            self.chosen[r] = joint[r]
        self._do()
        out = bytearray(self.nbase)
        cdef uint8_t[:] view = out
        if self.nbase:
            self._read_next(&view[0])
        return bytes(out)

    def playouts(self, const uint8_t[:] state, long count, unsigned long long seed,
                 int max_steps=100000):
        """Run ``count`` uniformly random playouts from ``state`` in C.

        Returns (total steps, the final goals summed per role, the number of
        playouts cut short by ``max_steps`` or by a role without legal moves).
        """
        cdef uint64_t rng = seed * 6364136223846793005ULL + 1442695040888963407ULL
        cdef long p, steps = 0, cut = 0
        cdef int depth, r, k, g
        cdef long[64] sums
        cdef uint8_t* cur = self.scratch_state
        if rng == 0:
            rng = 88172645463325252ULL
        for r in range(64):
            sums[r] = 0
        # Small networks restart each playout from a snapshot of the settled
        # root (values, counts, does inputs); large ones reload the root state.
        cdef bint snap = self.n <= 200000
        cdef uint8_t* root_val = NULL
        cdef int32_t* root_count = NULL
        cdef int32_t* root_current = NULL
        if self.nbase:
            memcpy(cur, &state[0], self.nbase)
        self._load(cur)
        if snap:
            root_val = <uint8_t*> malloc(self.n)
            root_count = <int32_t*> malloc(self.n * 4)
            root_current = <int32_t*> malloc(self.nroles * 4 + 4)
            if root_val == NULL or root_count == NULL or root_current == NULL:
                free(root_val); free(root_count); free(root_current)
                raise MemoryError()
            memcpy(root_val, self.val, self.n)
            memcpy(root_count, self.count, self.n * 4)
            memcpy(root_current, self.current, self.nroles * 4)
        with nogil:
            for p in range(count):
                if p > 0 and snap:       # the dirty set is empty once settled
                    memcpy(self.val, root_val, self.n)
                    memcpy(self.count, root_count, self.n * 4)
                    memcpy(self.current, root_current, self.nroles * 4)
                elif p > 0:
                    if self.nbase:
                        memcpy(cur, &state[0], self.nbase)
                    self._load(cur)
                depth = 0
                while not (self.term_node >= 0 and self.val[self.term_node]):
                    if depth >= max_steps:
                        cut += 1
                        break
                    for r in range(self.nroles):
                        k = self._legal(r, self.scratch_moves)
                        if k == 0:
                            break
                        self.chosen[r] = self.scratch_moves[_xorshift(&rng) % k]
                    if k == 0:
                        cut += 1
                        break
                    self._do()
                    self._read_next(cur)
                    self._load(cur, True)
                    depth += 1
                steps += depth
                for g in range(self.ngoals):
                    if self.val[self.goal_node[g]] and self.goal_role[g] < 64:
                        sums[self.goal_role[g]] += self.goal_value[g]
        free(root_val); free(root_count); free(root_current)
        return steps, [sums[r] for r in range(min(self.nroles, 64))], cut


cdef void* _copy(arr, dtype) except NULL:
    a = np.ascontiguousarray(arr, dtype=dtype)
    cdef size_t size = a.nbytes
    cdef void* p = malloc(size + 8)
    if p == NULL:
        raise MemoryError()
    cdef const uint8_t[:] view
    if size:
        view = a.view(np.uint8).reshape(-1)
        memcpy(p, &view[0], size)
    return p


cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil
