# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""A planner for one-player games of perfect information (puzzles), on the
network kernel (:mod:`ggp.reasoners._propnet`).

A one-player GDL-I game is deterministic: a path to a terminal state is a
plan that scores that state's goal for certain, and once one scoring the
game's highest goal is found there is nothing left to search for (Sancho
commits to such a path as a plan as soon as it sees one: S. Draper and A.
Rose, "Puzzling it out", the Sancho GGP player blog, 1 August 2014).  Two
searches of the state graph share the work, in rounds of 4,096 expansions (the first three
quarters breadth first, the last depth first: the depth-first search finds
what it finds quickly or not at all, the breadth-first one is the one to
finish), each with its own transposition table (a state is expanded once per
search):

* **breadth first**: finds the shortest path to each ending, so a puzzle
  that scores best at its shortest solution (eightPuzzle scores 100 only for
  an ending at step 30, its optimum) is solved once the graph up to that
  depth is expanded;
* **depth first**, children ordered by their goal (highest first) and then
  by how few legal moves they leave (fewest first: Warnsdorff's rule for the
  knight's tour, "fail first" in constraint search; H. C. von Warnsdorf,
  "Des Rösselsprunges einfachste und allgemeinste Lösung", 1823; Haralick
  and Elliott, "Increasing tree search efficiency for constraint
  satisfaction problems", Artificial Intelligence 14, 1980): finds long
  solutions in graphs too large to exhaust.

Each search stops at the game's highest goal, when its table is full, or
when it has expanded every state it can reach; the latter proves the best
ending found optimal.  Work is counted in expansions, so a run with a budget
of expansions finds the same plan on any machine; the clock only stops it
early.
"""
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free
from libc.string cimport memcpy, memcmp, memset

from ggp.reasoners._propnet cimport Kernel
from players._sampling cimport _grown, _now, _zeroed

cdef enum:
    SLICE = 4096  # expansions in a round: breadth first, then depth first
    WIDE = 4      # the depth-first search makes the last 1 / WIDE of a round
    CHECK = 16    # expansions between two readings of the clock


cdef struct Table:
    # the states a search has reached: their bytes, how they were reached
    int64_t count, capacity, limit
    uint8_t* states
    int64_t* parent
    int32_t* move
    uint64_t* hash
    int64_t* slots        # open addressing: node + 1, 0 empty
    int64_t nslots        # a power of two


cdef uint64_t _hash(const uint8_t* s, int n) noexcept nogil:
    """FNV-1a over the state's bytes, finished by a multiply-xorshift."""
    cdef uint64_t h = 0xCBF29CE484222325ULL
    cdef int i
    for i in range(n):
        h = (h ^ s[i]) * 0x100000001B3ULL
    h ^= h >> 29
    return h * 0xBF58476D1CE4E5B9ULL


cdef int _reserve(Table* t, int64_t more, int nbase, double until) except -1 nogil:
    """Room in ``t`` for ``more`` new states, made now unless the copying it
    takes, counted at a gigabyte a second, would run past ``until``: then 0,
    else 1.  A table full to its limit needs no room."""
    cdef int64_t need = min(t.count + more, t.limit)
    cdef double seconds = 0
    if need > t.capacity:
        seconds += t.capacity * (nbase + 20.0) * 1e-9
    if 2 * need > t.nslots:
        seconds += t.count * 24.0 * 1e-9
    if seconds and _now() + seconds >= until:
        return 0
    while need > t.capacity:
        _grow(t, nbase)
    while 2 * need > t.nslots:
        _rehash(t)
    return 1


cdef int _grow(Table* t, int nbase) except -1 nogil:
    cdef int64_t cap = t.capacity * 2 if t.capacity else 1024
    t.states = <uint8_t*> _grown(t.states, cap * nbase + 1)
    t.parent = <int64_t*> _grown(t.parent, cap * sizeof(int64_t))
    t.move = <int32_t*> _grown(t.move, cap * sizeof(int32_t))
    t.hash = <uint64_t*> _grown(t.hash, cap * sizeof(uint64_t))
    t.capacity = cap
    return 0


cdef int _rehash(Table* t) except -1 nogil:
    cdef int64_t n = t.nslots * 2 if t.nslots else 2048
    cdef int64_t i, j
    free(t.slots)
    t.slots = <int64_t*> _zeroed(n, sizeof(int64_t))
    t.nslots = n
    for i in range(t.count):
        j = t.hash[i] & (n - 1)
        while t.slots[j]:
            j = (j + 1) & (n - 1)
        t.slots[j] = i + 1
    return 0


cdef int64_t _add(Table* t, const uint8_t* s, int nbase, int64_t parent, int32_t move) except -2 nogil:
    """The new node of state ``s``; -1 if the table holds it already or is full."""
    cdef uint64_t h = _hash(s, nbase)
    cdef int64_t j, node
    if 2 * (t.count + 1) > t.nslots:
        _rehash(t)
    j = h & (t.nslots - 1)
    while t.slots[j]:
        node = t.slots[j] - 1
        if t.hash[node] == h and memcmp(t.states + node * nbase, s, nbase) == 0:
            return -1
        j = (j + 1) & (t.nslots - 1)
    if t.count >= t.limit:
        return -1
    if t.count == t.capacity:
        _grow(t, nbase)
    node = t.count
    t.count += 1
    memcpy(t.states + node * nbase, s, nbase)
    t.parent[node] = parent
    t.move[node] = move
    t.hash[node] = h
    t.slots[j] = node + 1
    return node


cdef void _free(Table* t) noexcept nogil:
    free(t.states)
    free(t.parent)
    free(t.move)
    free(t.hash)
    free(t.slots)
    memset(t, 0, sizeof(Table))


cdef class Planner:
    """The two searches from ``root`` (the kernel's state bytes) for role 0,
    each table holding at most ``limit`` states.  :meth:`run` searches on;
    :attr:`best` is the highest goal of an ending found (-1: none),
    :meth:`plan` the moves to it, :attr:`solved` whether nothing better can
    be found (it is the game's highest goal, or a search expanded every
    state it could reach)."""

    cdef Kernel K
    cdef int nbase, top, width         # width: role 0's moves, the most children a state has
    cdef Table wide, deep
    cdef int64_t head                 # breadth first: the next node to expand
    # depth first: a stack of frames, each its node and its children still
    # to try (node numbers in ``deep``, best first) in a pool
    cdef int64_t* frame_node
    cdef int64_t* frame_next
    cdef int64_t* frame_end
    cdef int64_t frames, frame_capacity
    cdef int64_t* pool
    cdef int64_t pool_count, pool_capacity
    cdef uint8_t* child
    cdef int32_t* moves
    cdef double* keys
    cdef readonly int best
    cdef readonly bint solved
    cdef readonly int64_t expanded
    cdef int best_table               # 0: wide, 1: deep
    cdef int64_t best_node
    cdef bint wide_done, deep_done

    def __init__(self, Kernel kernel, root, int64_t limit):
        cdef const uint8_t[:] view = root
        cdef int g
        if kernel.nroles != 1:
            raise ValueError("the planner is for one-player games")
        self.K = kernel
        self.nbase = kernel.nbase
        self.width = kernel.role_start[1] - kernel.role_start[0]
        self.top = 0
        for g in range(kernel.ngoals):
            if kernel.goal_role[g] == 0 and kernel.goal_value[g] > self.top:
                self.top = kernel.goal_value[g]
        self.best = -1
        self.wide.limit = self.deep.limit = max(limit, 1)
        self.child = <uint8_t*> _zeroed(self.nbase + 1, 1)
        self.moves = <int32_t*> _zeroed(2 * kernel.nmoves + 1, sizeof(int32_t))
        self.keys = <double*> _zeroed(kernel.nmoves + 1, sizeof(double))
        _add(&self.wide, &view[0] if self.nbase else self.child, self.nbase, -1, -1)
        _add(&self.deep, &view[0] if self.nbase else self.child, self.nbase, -1, -1)
        self._push(0)

    def __dealloc__(self):
        _free(&self.wide)
        _free(&self.deep)
        free(self.frame_node)
        free(self.frame_next)
        free(self.frame_end)
        free(self.pool)
        free(self.child)
        free(self.moves)
        free(self.keys)

    # --- the kernel ---------------------------------------------------------------
    cdef int _goal(self) noexcept nogil:
        """Role 0's highest true goal in the loaded state, else 0."""
        cdef int g, v = 0
        self.K._settle_goals()
        for g in range(self.K.ngoals):
            if self.K.goal_role[g] == 0 and self.K.val[self.K.goal_node[g]] and self.K.goal_value[g] > v:
                v = self.K.goal_value[g]
        return v

    cdef bint _ending(self, const uint8_t* state, int table, int64_t node) noexcept nogil:
        """Load ``state``; if it is terminal, score it as an ending and say so."""
        cdef int v
        self.K._load(state)
        if not (self.K.term_node >= 0 and self.K.val[self.K.term_node]):
            return False
        v = self._goal()
        if v > self.best:
            self.best, self.best_table, self.best_node = v, table, node
            if v >= self.top:
                self.solved = True
        return True

    # --- breadth first -----------------------------------------------------------
    cdef int _wide(self, int64_t budget) except -1 nogil:
        cdef int64_t node, done = 0
        cdef int k, i
        cdef Table* t = &self.wide
        while done < budget and not self.solved:
            if self.head >= t.count:
                self.wide_done = True
                if t.count < t.limit:  # every reachable state expanded
                    self.solved = True
                break
            node = self.head
            self.head += 1
            done += 1
            if self._ending(t.states + node * self.nbase, 0, node):
                continue
            k = self.K._legal(0, self.moves)
            for i in range(k):
                self.K.chosen[0] = self.moves[i]
                self.K._do()
                self.K._read_next(self.child)
                _add(t, self.child, self.nbase, node, self.moves[i])
        self.expanded += done
        return 0

    # --- depth first -------------------------------------------------------------
    cdef int _push(self, int64_t node) except -1 nogil:
        """A frame for ``node`` (loaded, not terminal) with its new children,
        ordered best first; endings among them are scored, not pushed."""
        cdef Table* t = &self.deep
        cdef int k, i, j, n = 0, legal
        cdef int64_t c
        cdef double key
        self.K._load(t.states + node * self.nbase)
        k = self.K._legal(0, self.moves)
        if self.pool_count + k > self.pool_capacity:
            self.pool_capacity = max(2 * self.pool_capacity, self.pool_count + k + 1024)
            self.pool = <int64_t*> _grown(self.pool, self.pool_capacity * sizeof(int64_t))
        for i in range(k):
            self.K._load(t.states + node * self.nbase)
            self.K.chosen[0] = self.moves[i]
            self.K._do()
            self.K._read_next(self.child)
            c = _add(t, self.child, self.nbase, node, self.moves[i])
            if c < 0:
                continue
            if self._ending(t.states + c * self.nbase, 1, c):
                continue
            legal = self.K._legal(0, self.moves + k)  # past this node's own moves
            key = self._goal() * 1000.0 - legal
            # insertion, best first; equal keys keep move order
            j = n
            while j > 0 and self.keys[j - 1] < key:
                self.pool[self.pool_count + j] = self.pool[self.pool_count + j - 1]
                self.keys[j] = self.keys[j - 1]
                j -= 1
            self.pool[self.pool_count + j] = c
            self.keys[j] = key
            n += 1
        if self.frames == self.frame_capacity:
            self.frame_capacity = max(2 * self.frame_capacity, 256)
            self.frame_node = <int64_t*> _grown(self.frame_node, self.frame_capacity * sizeof(int64_t))
            self.frame_next = <int64_t*> _grown(self.frame_next, self.frame_capacity * sizeof(int64_t))
            self.frame_end = <int64_t*> _grown(self.frame_end, self.frame_capacity * sizeof(int64_t))
        self.frame_node[self.frames] = node
        self.frame_next[self.frames] = self.pool_count
        self.frame_end[self.frames] = self.pool_count + n
        self.frames += 1
        self.pool_count += n
        return 0

    cdef int _deep(self, int64_t budget) except -1 nogil:
        cdef int64_t done = 0, f, c
        while done < budget and not self.solved:
            if self.frames == 0:
                self.deep_done = True
                if self.deep.count < self.deep.limit:
                    self.solved = True
                break
            f = self.frames - 1
            if self.frame_next[f] == self.frame_end[f]:
                self.frames -= 1
                self.pool_count = self._frame_start(f)
                continue
            c = self.pool[self.frame_next[f]]
            self.frame_next[f] += 1
            self._push(c)
            done += 1
        self.expanded += done
        return 0

    cdef int64_t _frame_start(self, int64_t f) noexcept nogil:
        """Where frame ``f``'s children begin in the pool (its parent's end)."""
        return self.frame_end[f - 1] if f > 0 else 0

    # --- Python ------------------------------------------------------------------
    def run(self, int64_t budget, double until):
        """Search on for at most ``budget`` expansions (-1: no limit) or until the
        ``until`` instant (``time.monotonic()``); returns the expansions made.
        Which search makes an expansion depends only on how many were made
        before it, so runs that add up to one budget find the same plan."""
        cdef int64_t before = self.expanded, share, pos
        with nogil:
            while not self.solved and not (self.wide_done and self.deep_done):
                pos = self.expanded % SLICE
                if self.deep_done or self.wide_done:
                    share = SLICE - pos
                elif pos < SLICE - SLICE // WIDE:
                    share = SLICE - SLICE // WIDE - pos
                else:
                    share = SLICE - pos
                if budget >= 0:
                    share = min(share, budget - (self.expanded - before))
                    if share <= 0:
                        break
                share = min(share, CHECK)
                if _now() >= until:
                    break
                if self.deep_done or (not self.wide_done and pos < SLICE - SLICE // WIDE):
                    if not _reserve(&self.wide, share * self.width, self.nbase, until):
                        break
                    self._wide(share)
                else:
                    if not _reserve(&self.deep, share * self.width, self.nbase, until):
                        break
                    self._deep(share)
        return self.expanded - before

    def plan(self):
        """The moves (kernel move numbers) from the root to the best ending found."""
        if self.best < 0:
            return []
        cdef Table* t = &self.wide if self.best_table == 0 else &self.deep
        cdef int64_t node = self.best_node
        path = []
        while t.parent[node] >= 0:
            path.append(t.move[node])
            node = t.parent[node]
        path.reverse()
        return path

    @property
    def states(self):
        """States held by the two tables."""
        return self.wide.count + self.deep.count
