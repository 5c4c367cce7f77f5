# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Single-observer information-set MCTS (``ismcts``, :mod:`players.imperfect.search`)
in C, on the network kernel (:mod:`ggp.reasoners._propnet`) and a playout policy
(:mod:`players._policy`).

The algorithm is the one the Python search of :class:`players.imperfect.search.
ISMCTSPlayer` runs (whose docstring gives it and its sources: Cowling, Powley
and Whitehouse 2012 with availability counts; regret matching with gamma of
uniform, Lisy et al. 2013): a simulation samples a history from the belief by
weight, follows the searching role's information-state key down its tree,
adds one node, plays out in C and backs the rewards up (the sampling, the keys
and the playout are :mod:`players._sampling`'s).  Both draw their random
numbers from the same xorshift64 stream (:class:`players._sampling.Draws` in
Python), so with the same seed they make the same simulations
(``tests/test_imperfect.py``); only Python is gone from the loop.

Storage: the tree's nodes are the searching role's keys, in an open-addressing
set; a node's statistics are rows keyed by (node key, role, move), made the
first time the move is legal at the node, each with its visits, availability,
reward sum, cumulative regret and mean-strategy weight, in an open-addressing
table (linear probing, at most half full, doubled when it would be more).

Memory is bounded: no node is added once the tree holds ``max_rows`` rows or
nodes (``MAX_ROWS``, 2^22, about 240 MB of rows, unless told; a simulation then
plays out from the first node missing, as it does after adding one), and a
search that begins with the tree full empties it first, as the nodes of
earlier moves would otherwise keep the current one from growing.  Both tables
are made at the size that bound needs (zeroed pages the system hands out as
they are first touched), the rows' for twice the bound, as nodes already in
the tree may still get rows for moves first seen there, so that they are not
rehashed during a search: doubling a table of 8 million rows took 1.2 s in the
middle of one simulation, on mastermind448 (256 moves a node) at a 1 s clock.  The Python
search has no bound; the two make the same simulations until the C tree
reaches it.
"""
from libc.math cimport log, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free
from libc.string cimport memcpy

from ggp.reasoners._propnet cimport Kernel, _below
from players._policy cimport Policy
from players._sampling cimport Sampler, _extend, _grown, _mix, _pick, _zeroed

MAX_ROWS = 1 << 22          # rows (and nodes) beyond which no node is added


cdef struct Row:
    uint64_t key        # the node's key
    int32_t role, move
    int64_t visits, available
    double total, regret, weight


cdef class Search(Sampler):
    """One role's IS-MCTS tree and simulations (module docstring).

    ``sees``: the role's ``sees`` nodes in order (GDL-II), or None for a GDL-I
    game, where the role sees the joint move; ``chance``: per role, whether it
    is the ``random`` role; ``rm``: regret matching instead of UCB; rewards
    are ``(goal - offset) / scale``."""

    cdef int me, nsees
    cdef bint rm, imperfect
    cdef double c, gamma
    cdef uint8_t* chance
    cdef int32_t* sees
    # the tree
    cdef uint64_t* nodes        # open addressing: key + 1 (0: empty)
    cdef uint64_t node_mask
    cdef readonly int64_t size  # nodes
    cdef Row* rows
    cdef readonly int64_t nrows
    cdef readonly int64_t max_rows
    cdef int64_t row_capacity
    cdef int64_t* slots         # open addressing: row + 1 (0: empty)
    cdef uint64_t slot_mask
    # scratch for one simulation
    cdef int levels
    cdef uint64_t* path_key     # per level
    cdef int32_t* path_joint    # nroles a level
    cdef int64_t* mix_at        # nroles a level: where its mix starts in mix_move, -1: none
    cdef int32_t* mix_k         # nroles a level: its length
    cdef int32_t* mix_move
    cdef double* mix_prob
    cdef int64_t mix_count, mix_capacity
    cdef int32_t* legal         # per role, its legal moves (nmoves each)
    cdef int32_t* count         # per role, how many
    cdef int32_t* seen
    cdef int64_t* found         # rows of one role's legal moves
    cdef double* weights

    def __cinit__(self):
        self.chance = NULL
        self.sees = self.path_joint = self.mix_move = self.mix_k = NULL
        self.legal = self.count = self.seen = NULL
        self.nodes = self.path_key = NULL
        self.rows = NULL
        self.slots = self.mix_at = self.found = NULL
        self.mix_prob = self.weights = NULL

    def __init__(self, Kernel kernel, Policy policy, int me, chance, sees, bint rm,
                 double c, double gamma, double scale, double offset,
                 unsigned long long seed, int64_t max_rows=MAX_ROWS):
        cdef int r, i
        Sampler.__init__(self, kernel, policy, scale, offset, seed)
        self.me, self.rm, self.c, self.gamma = me, rm, c, gamma
        self.imperfect = sees is not None
        self.nsees = len(sees) if sees is not None else 0
        self.chance = <uint8_t*> _grown(NULL, self.nroles)
        for r in range(self.nroles):
            self.chance[r] = bool(chance[r])
        self.sees = <int32_t*> _grown(NULL, (self.nsees + self.nroles) * sizeof(int32_t))
        for i in range(self.nsees):
            self.sees[i] = sees[i]
        self.seen = <int32_t*> _grown(NULL, (self.nsees + self.nroles) * sizeof(int32_t))
        self.legal = <int32_t*> _grown(NULL, self.nroles * (kernel.nmoves + 1) * sizeof(int32_t))
        self.count = <int32_t*> _grown(NULL, self.nroles * sizeof(int32_t))
        self.found = <int64_t*> _grown(NULL, (kernel.nmoves + 1) * sizeof(int64_t))
        self.weights = <double*> _grown(NULL, (kernel.nmoves + 1) * sizeof(double))
        if max_rows < 1 or max_rows & (max_rows - 1):
            raise ValueError(f"max_rows must be a power of 2, got {max_rows}")
        self.max_rows = max_rows
        self.row_capacity, self.nrows = 1024, 0
        self.rows = <Row*> _grown(NULL, 1024 * sizeof(Row))
        self._empty()
        self.levels = 0
        self._levels(64)
        self.mix_capacity, self.mix_count = 256, 0
        self.mix_move = <int32_t*> _grown(NULL, 256 * sizeof(int32_t))
        self.mix_prob = <double*> _grown(NULL, 256 * sizeof(double))

    def __dealloc__(self):
        free(self.chance); free(self.sees); free(self.seen); free(self.legal); free(self.count)
        free(self.found); free(self.weights); free(self.nodes)
        free(self.rows); free(self.slots); free(self.path_key); free(self.path_joint)
        free(self.mix_at); free(self.mix_k); free(self.mix_move); free(self.mix_prob)

    cdef int _levels(self, int levels) except -1 nogil:
        self.path_key = <uint64_t*> _grown(self.path_key, levels * sizeof(uint64_t))
        self.path_joint = <int32_t*> _grown(self.path_joint, levels * self.nroles * sizeof(int32_t))
        self.mix_at = <int64_t*> _grown(self.mix_at, levels * self.nroles * sizeof(int64_t))
        self.mix_k = <int32_t*> _grown(self.mix_k, levels * self.nroles * sizeof(int32_t))
        self.levels = levels
        return 0

    # --- the tree -------------------------------------------------------------------
    cdef bint _full(self) noexcept nogil:
        return self.nrows >= self.max_rows or self.size >= self.max_rows

    cdef int _empty(self) except -1:
        """No node and no row; both tables at the size the bound needs."""
        free(self.nodes)
        free(self.slots)
        self.nodes, self.slots = NULL, NULL
        self.node_mask = 2 * self.max_rows - 1
        self.slot_mask = 4 * self.max_rows - 1
        self.nodes = <uint64_t*> _zeroed(self.node_mask + 1, sizeof(uint64_t))
        self.slots = <int64_t*> _zeroed(self.slot_mask + 1, sizeof(int64_t))
        self.size = self.nrows = 0
        return 0

    cdef bint _has(self, uint64_t key) noexcept nogil:
        cdef uint64_t i = _mix(key) & self.node_mask
        while self.nodes[i]:
            if self.nodes[i] == key + 1:
                return True
            i = (i + 1) & self.node_mask
        return False

    cdef int _add(self, uint64_t key) except -1 nogil:
        cdef uint64_t i, j, old_mask
        cdef uint64_t* old
        if 2 * (self.size + 1) > <int64_t> (self.node_mask + 1):
            old, old_mask = self.nodes, self.node_mask
            self.node_mask = 2 * (old_mask + 1) - 1
            self.nodes = <uint64_t*> _zeroed(self.node_mask + 1, sizeof(uint64_t))
            for j in range(old_mask + 1):
                if old[j]:
                    i = _mix(old[j] - 1) & self.node_mask
                    while self.nodes[i]:
                        i = (i + 1) & self.node_mask
                    self.nodes[i] = old[j]
            free(old)
        i = _mix(key) & self.node_mask
        while self.nodes[i]:
            i = (i + 1) & self.node_mask
        self.nodes[i] = key + 1
        self.size += 1
        return 0

    cdef inline uint64_t _slot(self, uint64_t key, int role, int move) noexcept nogil:
        return _mix(key ^ _mix((<uint64_t> role << 32) + <uint64_t> move + 1)) & self.slot_mask

    cdef int64_t _row(self, uint64_t key, int role, int move) noexcept nogil:
        """The row of (``key``, ``role``, ``move``), or -1."""
        cdef uint64_t i = self._slot(key, role, move)
        cdef Row* row
        while self.slots[i]:
            row = &self.rows[self.slots[i] - 1]
            if row.key == key and row.role == role and row.move == move:
                return self.slots[i] - 1
            i = (i + 1) & self.slot_mask
        return -1

    cdef int64_t _available(self, uint64_t key, int role, int move) except -1 nogil:
        """The row of (``key``, ``role``, ``move``), made empty if missing,
        counted once more as available."""
        cdef int64_t r = self._row(key, role, move), j
        cdef uint64_t i, old_mask
        cdef int64_t* old
        cdef Row* row
        if r < 0:
            if self.nrows == self.row_capacity:
                self.row_capacity *= 2
                self.rows = <Row*> _grown(self.rows, self.row_capacity * sizeof(Row))
            if 2 * (self.nrows + 1) > <int64_t> (self.slot_mask + 1):
                old, old_mask = self.slots, self.slot_mask
                self.slot_mask = 2 * (old_mask + 1) - 1
                self.slots = <int64_t*> _zeroed(self.slot_mask + 1, sizeof(int64_t))
                for j in range(<int64_t> old_mask + 1):
                    if old[j]:
                        row = &self.rows[old[j] - 1]
                        i = self._slot(row.key, row.role, row.move)
                        while self.slots[i]:
                            i = (i + 1) & self.slot_mask
                        self.slots[i] = old[j]
                free(old)
            r = self.nrows
            self.nrows += 1
            row = &self.rows[r]
            row.key, row.role, row.move = key, role, move
            row.visits = row.available = 0
            row.total = row.regret = row.weight = 0.0
            i = self._slot(key, role, move)
            while self.slots[i]:
                i = (i + 1) & self.slot_mask
            self.slots[i] = r + 1
        self.rows[r].available += 1
        return r

    # --- one simulation ---------------------------------------------------------------
    cdef int _ucb(self, uint64_t key, int role, const int32_t* moves, int k) except -1 nogil:
        """UCB with availability counts: every move counted as available, then
        an untried one at random or the best ``Q + c sqrt(ln A / N)``."""
        cdef int j, untried = 0, best = 0
        cdef double value, top = 0.0
        cdef Row* row
        for j in range(k):
            self.found[j] = self._available(key, role, moves[j])
        for j in range(k):
            if self.rows[self.found[j]].visits == 0:
                untried += 1
        if untried:
            untried = _below(&self.rng, untried)
            for j in range(k):
                if self.rows[self.found[j]].visits == 0:
                    if untried == 0:
                        return j
                    untried -= 1
        for j in range(k):
            row = &self.rows[self.found[j]]
            value = row.total / <double> row.visits + \
                self.c * sqrt(log(<double> row.available) / <double> row.visits)
            if j == 0 or value > top:
                best, top = j, value
        return best

    cdef int _regret_matching(self, uint64_t key, int role, const int32_t* moves, int k,
                              int64_t* at) except -1 nogil:
        """Regret matching mixed with gamma of uniform; the mix is kept (from
        ``at[0]``) for the update."""
        cdef int j
        cdef double total = 0.0, p
        for j in range(k):
            self.found[j] = self._available(key, role, moves[j])
            p = self.rows[self.found[j]].regret
            self.weights[j] = p if p > 0.0 else 0.0
            total += self.weights[j]
        for j in range(k):
            self.weights[j] = (1.0 - self.gamma) * \
                (self.weights[j] / total if total > 0 else 1.0 / k) + self.gamma / k
        if self.mix_count + k > self.mix_capacity:
            self.mix_capacity = 2 * (self.mix_count + k)
            self.mix_move = <int32_t*> _grown(self.mix_move, self.mix_capacity * sizeof(int32_t))
            self.mix_prob = <double*> _grown(self.mix_prob, self.mix_capacity * sizeof(double))
        at[0] = self.mix_count
        for j in range(k):
            self.mix_move[self.mix_count + j] = moves[j]
            self.mix_prob[self.mix_count + j] = self.weights[j]
        self.mix_count += k
        return _pick(&self.rng, self.weights, k)

    cdef int _simulate(self) except -1 nogil:
        cdef int nr = self.nroles, r, k, j, depth = 0, level, n
        cdef uint64_t key
        cdef bint added = False
        cdef int32_t* moves
        cdef int32_t* joint
        cdef int64_t* at
        cdef int64_t row, first
        cdef double reward, p
        cdef Row* s
        key = self.keys[<int64_t> self._start() * self.nroles + self.me]
        self.mix_count = 0
        while True:
            if self._terminal():
                self._goals()
                break
            if not self._has(key):
                if added or self._full():
                    self._playout()
                    break
                self._add(key)
                added = True
            if depth == self.levels:
                self._levels(2 * self.levels)
            self.path_key[depth] = key
            joint = self.path_joint + depth * nr
            at = self.mix_at + depth * nr
            for r in range(nr):
                moves = self.legal + r * (self.K.nmoves + 1)
                self.count[r] = self.K._legal(r, moves)
            for r in range(nr):
                moves = self.legal + r * (self.K.nmoves + 1)
                k = self.count[r]
                at[r] = -1
                if k == 1 or self.chance[r]:
                    j = _below(&self.rng, k)
                elif self.rm:
                    j = self._regret_matching(key, r, moves, k, &at[r])
                    self.mix_k[depth * nr + r] = k
                else:
                    j = self._ucb(key, r, moves, k)
                joint[r] = moves[j]
                self.K.chosen[r] = moves[j]
            self.K._do()
            if self.imperfect:
                n = 0
                for j in range(self.nsees):
                    if self.K.val[self.sees[j]]:
                        self.seen[n] = self.sees[j]
                        n += 1
            else:
                n = nr
                memcpy(self.seen, joint, nr * sizeof(int32_t))
            self.K._advance()
            key = _extend(key, <uint64_t> <int64_t> joint[self.me], self.seen, n)
            depth += 1
        for level in range(depth):
            key = self.path_key[level]
            joint = self.path_joint + level * nr
            at = self.mix_at + level * nr
            for r in range(nr):
                reward = self.rewards[r]
                row = self._row(key, r, joint[r])
                if row >= 0:
                    s = &self.rows[row]
                    s.visits += 1
                    s.total += reward
                if at[r] < 0:
                    continue
                first = at[r]               # the importance-weighted regrets, and the mean strategy
                for j in range(self.mix_k[level * nr + r]):
                    s = &self.rows[self._row(key, r, self.mix_move[first + j])]
                    p = self.mix_prob[first + j]
                    s.regret += ((reward / p) if self.mix_move[first + j] == joint[r] else 0.0) \
                        - reward
                    s.weight += p
        return 0

    # --- Python -------------------------------------------------------------------------
    def run(self, long long budget=-1, double until=0.0) -> int:
        """:meth:`Sampler.run`, after emptying a full tree."""
        if self._full():
            self._empty()
        return Sampler.run(self, budget, until)

    def stats(self, key, int role, moves):
        """Per move of ``moves``: (visits, availability, reward sum, regret,
        mean-strategy weight) at the node of ``key``; None when the node or
        one of the moves is not in the tree."""
        cdef uint64_t k = key
        cdef int64_t row
        cdef Row* s
        out = []
        if not self._has(k):
            return None
        for m in moves:
            row = self._row(k, role, m)
            if row < 0:
                return None
            s = &self.rows[row]
            out.append((s.visits, s.available, s.total, s.regret, s.weight))
        return out
