# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The search tree of :mod:`players.perfect.mcts` in C, on the network kernel
(:mod:`ggp.reasoners._propnet`) and a playout policy (:mod:`players._policy`).

The same search as the Python tree of :mod:`players.perfect.tree` (whose docstring
gives the algorithm and its sources): decoupled UCB1 per role, untried moves
first (the policy picks which), one node added per simulation, a playout in C,
the discounted goals backed up, the policy crediting the whole simulation,
the tree kept between moves, optional transpositions.  With the same seed it
makes the same simulations and so chooses the same moves
(``tests/test_mcts.py``); only Python is gone from the loop.

Leaf parallelism (``leaf`` > 1, random playouts only): each new leaf is
played out ``leaf`` times at once in the bit-parallel lanes of
:mod:`ggp.reasoners._lanes` (64 playouts a sweep of the network), and the simulation
counts as ``leaf`` visits carrying the mean goals, discounted by the mean
depth (Cazenave and Jouandeau, "On the Parallelization of UCT", CGW 2007;
Chaslot, Winands and van den Herik, "Parallel Monte-Carlo Tree Search",
Computers and Games 2008, section 3.1).  A terminal node reached in the tree
counts ``leaf`` times too, as ``leaf`` playouts from it would all end there.

Storage is flat: per node its state (``nbase`` bytes), whether it is
terminal, its visits, its goals (terminal) and per role the start and count
of its legal moves in a pool of (move, visits, reward sum, best reward) rows;
a node's children are a linked list of edges (joint move index, child), the
joint move index being the mixed-radix number of the roles' picks.  When the
root moves on (:meth:`SearchTree.advance`), what the new root cannot reach is
dropped by copying its subtree into fresh storage.
"""
from libc.math cimport INFINITY, exp, log, pow, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free
from libc.string cimport memcmp, memcpy

from ggp.reasoners._lanes cimport Lanes
from ggp.reasoners._propnet cimport Kernel, _seed
from players._policy cimport Policy
from players._sampling cimport ANCHOR_BYTES, MAX_PLAYOUT, _grown, _now, _zeroed


cdef struct Store:
    # nodes
    int64_t count, capacity
    uint8_t* states         # nbase bytes a node
    uint8_t* terminal
    uint8_t* solved         # 0: value unknown; else (terminal, or the solver's) it is
                            # known, reached in solved - 1 plies under best play
                            # (the mover winning soonest, else losing latest; at most 254)
    int64_t* n              # visits
    double* goals           # nroles a node (terminal nodes)
    int64_t* first          # nroles a node: the role's first row in the pool
    int32_t* width          # nroles a node: its number of legal moves
    int64_t* edge           # the node's first edge, -1: none
    # the pool of (move, visits, sum, top) rows
    int64_t rows, row_capacity
    int32_t* move
    int64_t* visits
    double* sums
    double* tops            # the best reward seen
    int64_t* amaf_n         # RAVE: simulations through the node that played the move later
    double* amaf_sums       # and their rewards
    double* hrow            # nroles a row (imm): the minimax evaluation of the move's child
    double* hnode           # nroles a node (imm): the node's minimax evaluation
    # edges
    int64_t edges, edge_capacity
    int64_t* joint          # the joint move's index
    int64_t* child
    int64_t* next           # the node's next edge, -1: none
    # transpositions: open addressing from a state's hash to node + 1 (0: empty)
    int64_t* table
    uint64_t mask
    int64_t used


cdef void _free(Store* s) noexcept nogil:
    free(s.states); free(s.terminal); free(s.solved); free(s.n); free(s.goals); free(s.first)
    free(s.width); free(s.edge); free(s.move); free(s.visits); free(s.sums); free(s.tops)
    free(s.amaf_n); free(s.amaf_sums); free(s.hrow); free(s.hnode)
    free(s.joint); free(s.child); free(s.next); free(s.table)
    s.states = NULL


cdef inline uint64_t _hash(const uint8_t* state, int size) noexcept nogil:
    """FNV-1a over the state's bytes."""
    cdef uint64_t h = 1469598103934665603ULL
    cdef int i
    for i in range(size):
        h = (h ^ state[i]) * 1099511628211ULL
    return h


cdef class SearchTree:
    """The tree of one player's search (module docstring) from the state
    ``root``, with ``options`` (a :class:`players.perfect.searches.TreeOptions`:
    UCB1's constant, the discount, the nodes a move may add, the solver, RAVE,
    the evaluation and what uses it), read into the tree's fields here; with
    ``lanes``, a new leaf is played out ``options.leaf`` times in them, their
    random numbers seeded by ``seed``."""

    cdef Kernel K
    cdef Policy policy
    cdef Lanes lanes            # leaf parallelism (None: one playout on the kernel)
    cdef int64_t leaf           # playouts a leaf, and visits a simulation
    cdef uint64_t rng           # the lanes' random numbers
    cdef int64_t* lane_out      # their totals: steps, cut, goals per role
    cdef double rave            # RAVE's equivalence parameter k (0: no RAVE)
    cdef double alpha           # weight of the evaluation at a new leaf (0: none)
    cdef double* eval_w         # per role, a weight per base proposition
    cdef double* eval_b         # per role, a bias
    cdef int nlines             # the evaluation's goal lines (0: a linear evaluation alone)
    cdef int32_t* line_role     # per line, the role whose goal it is
    cdef int32_t* line_at       # per line, where its own and blocking propositions start
    cdef int32_t* line_props    # per line, its own propositions, then those that block it
    cdef double* line_gain      # per count of own propositions held, an open line's worth
    cdef int64_t prior          # virtual visits a new node's moves get from the evaluation
    cdef double scale           # the evaluation change a prior maps to 73 (of 100)
    cdef double imm             # weight of the implicit minimax value in selection (0: none)
    cdef int cutoff             # plies a playout runs before the evaluation scores it (0: to the end)
    cdef bint goal_cut          # a playout cut after ``cutoff`` plies is scored by the goals instead
    cdef int quiesce            # plies of captures played out before a capture is valued (imm)
    cdef uint8_t* qstates       # per quiescence ply, its state
    cdef int32_t* qmoves        # per quiescence ply, the mover's legal moves
    cdef int32_t* qfixed        # per quiescence ply, every role's one move
    cdef double* qvals          # per quiescence ply, a capture's values
    cdef int64_t* mark          # per move: the simulation that played it (RAVE)
    cdef int64_t stamp
    cdef int nroles, nbase
    cdef double c, gamma
    cdef bint transpositions, solver
    cdef bint tactics           # a new node's mover winning at once solves it
    cdef int64_t max_nodes
    cdef readonly int64_t root, added
    cdef Store s
    cdef int32_t* context       # the match's last two joint moves (nroles each)
    cdef int ncontext
    # scratch for one simulation
    cdef int64_t* path
    cdef int32_t* picks         # nroles a level
    cdef int32_t* joints        # context, then the tree's joint moves (nroles a step)
    cdef int levels             # capacity of path, picks and joints, in levels
    cdef uint8_t* state
    cdef int64_t loaded         # the node whose state the kernel holds as loaded, or -1
    cdef char* anchor           # the kernel settled at the root (NULL: too large a copy)
    cdef int32_t* legal
    cdef double* goals
    cdef double* exact          # per move of the mover at a node: its known value, or -1

    def __cinit__(self):
        self.s.states = NULL
        self.context = self.path = self.picks = self.joints = NULL
        self.state = NULL
        self.legal = NULL
        self.goals = self.exact = NULL
        self.lane_out = NULL
        self.mark = NULL
        self.eval_w = self.eval_b = NULL
        self.line_role = self.line_at = self.line_props = NULL
        self.line_gain = NULL
        self.nlines = 0
        self.anchor = NULL
        self.qstates = NULL
        self.qmoves = self.qfixed = NULL
        self.qvals = NULL

    def __init__(self, Kernel kernel, Policy policy, const uint8_t[:] root, options,
                 Lanes lanes=None, unsigned long long seed=0):
        cdef double rave = options.rave, alpha = options.heuristic, imm = options.imm
        cdef long prior = options.prior, leaf = options.leaf
        cdef int cutoff = options.cutoff, quiesce = options.quiesce, early = options.early
        cdef bint solver = options.solver, tactics = options.tactics
        evaluation = options.evaluation
        self.K, self.policy = kernel, policy
        self.nroles, self.nbase = kernel.nroles, kernel.nbase
        self.lanes, self.leaf = lanes, leaf if lanes is not None else 1
        self.rng = _seed(seed)
        self.lane_out = <int64_t*> _grown(NULL, (2 + kernel.nroles) * sizeof(int64_t))
        if rave > 0 and lanes is not None:
            raise ValueError("RAVE needs the playouts' moves, which the lanes do not keep")
        self.rave = rave
        self.mark = <int64_t*> _zeroed(kernel.nmoves + 1, sizeof(int64_t))
        self.stamp = 0
        self.alpha = alpha if evaluation is not None else 0.0
        self.prior = prior if evaluation is not None else 0
        self.imm = imm if evaluation is not None else 0.0
        if early > 0 and cutoff > 0:
            raise ValueError("a playout is cut by the evaluation (cutoff) or the goals (early)")
        self.goal_cut = early > 0
        self.cutoff = early if early > 0 else (cutoff if evaluation is not None else 0)
        self.quiesce = quiesce if self.imm > 0 else 0
        if self.quiesce > 0:
            self.qstates = <uint8_t*> _grown(NULL, (self.quiesce + 2) * self.nbase + 1)
            self.qmoves = <int32_t*> _grown(
                NULL, (self.quiesce + 1) * (kernel.nmoves + 1) * sizeof(int32_t))
            self.qfixed = <int32_t*> _grown(
                NULL, (self.quiesce + 1) * self.nroles * sizeof(int32_t))
            self.qvals = <double*> _grown(NULL, (self.quiesce + 2) * self.nroles * sizeof(double))
        if self.cutoff > 0 and lanes is not None:
            raise ValueError("early playout termination needs one playout a leaf, not the lanes")
        if self.alpha > 0 or self.prior > 0 or self.imm > 0 or (self.cutoff > 0 and not self.goal_cut):
            weights, bias, self.scale = evaluation[:3]
            if len(evaluation) > 3:
                self._lines(*evaluation[3])
            self.eval_w = <double*> _grown(NULL, (self.nroles * self.nbase + 1) * sizeof(double))
            self.eval_b = <double*> _grown(NULL, self.nroles * sizeof(double))
            for r in range(self.nroles):
                self.eval_b[r] = bias[r]
                for b in range(self.nbase):
                    self.eval_w[r * self.nbase + b] = weights[r][b]
        self.c, self.gamma = options.c, options.discount
        self.transpositions = options.transpositions
        self.solver = solver
        if tactics and not (solver and kernel.wins):
            raise ValueError("tactics need the solver and a kernel that reads wins")
        self.tactics = tactics
        self.max_nodes = options.max_nodes
        self.context = <int32_t*> _grown(NULL, 2 * self.nroles * sizeof(int32_t))
        self.state = <uint8_t*> _grown(NULL, self.nbase)
        self.legal = <int32_t*> _grown(NULL, (kernel.nmoves + 1) * sizeof(int32_t))
        self.goals = <double*> _grown(NULL, self.nroles * sizeof(double))
        self.exact = <double*> _grown(NULL, (kernel.nmoves + 1) * sizeof(double))
        self.levels = 0
        self._levels(64)
        self._init(&self.s, 1024)
        self.root = self._node(&root[0] if self.nbase else self.state)
        self.added = 0

    def __dealloc__(self):
        if self.s.states != NULL:
            _free(&self.s)
        free(self.context); free(self.path); free(self.picks); free(self.joints)
        free(self.state); free(self.legal); free(self.goals); free(self.exact)
        free(self.lane_out); free(self.mark); free(self.eval_w); free(self.eval_b)
        free(self.line_role); free(self.line_at); free(self.line_props); free(self.line_gain)
        free(self.anchor)
        free(self.qstates); free(self.qmoves); free(self.qfixed); free(self.qvals)

    # --- storage ------------------------------------------------------------------
    cdef int _init(self, Store* s, int64_t capacity) except -1 nogil:
        s.count = s.rows = s.edges = s.used = 0
        s.capacity = s.row_capacity = s.edge_capacity = 0
        s.states = s.terminal = s.solved = NULL
        s.n = s.first = s.edge = s.joint = s.child = s.next = s.visits = s.table = NULL
        s.goals = s.sums = s.tops = s.amaf_sums = s.hrow = s.hnode = NULL
        s.amaf_n = NULL
        s.width = s.move = NULL
        self._nodes(s, capacity)
        self._rows(s, capacity * 4)
        self._edges(s, capacity)
        s.mask = 0
        if self.transpositions:
            s.mask = 2 * capacity - 1
            s.table = <int64_t*> _zeroed(s.mask + 1, sizeof(int64_t))
        return 0

    cdef int _nodes(self, Store* s, int64_t capacity) except -1 nogil:
        cdef int r = self.nroles
        s.states = <uint8_t*> _grown(s.states, capacity * self.nbase)
        s.terminal = <uint8_t*> _grown(s.terminal, capacity)
        s.solved = <uint8_t*> _grown(s.solved, capacity)
        s.n = <int64_t*> _grown(s.n, capacity * sizeof(int64_t))
        s.goals = <double*> _grown(s.goals, capacity * r * sizeof(double))
        s.first = <int64_t*> _grown(s.first, capacity * r * sizeof(int64_t))
        s.width = <int32_t*> _grown(s.width, capacity * r * sizeof(int32_t))
        s.edge = <int64_t*> _grown(s.edge, capacity * sizeof(int64_t))
        if self.imm > 0:
            s.hnode = <double*> _grown(s.hnode, capacity * r * sizeof(double))
        s.capacity = capacity
        return 0

    cdef int _rows(self, Store* s, int64_t capacity) except -1 nogil:
        s.move = <int32_t*> _grown(s.move, capacity * sizeof(int32_t))
        s.visits = <int64_t*> _grown(s.visits, capacity * sizeof(int64_t))
        s.sums = <double*> _grown(s.sums, capacity * sizeof(double))
        s.tops = <double*> _grown(s.tops, capacity * sizeof(double))
        s.amaf_n = <int64_t*> _grown(s.amaf_n, capacity * sizeof(int64_t))
        s.amaf_sums = <double*> _grown(s.amaf_sums, capacity * sizeof(double))
        if self.imm > 0:
            s.hrow = <double*> _grown(s.hrow, capacity * self.nroles * sizeof(double))
        s.row_capacity = capacity
        return 0

    cdef int _edges(self, Store* s, int64_t capacity) except -1 nogil:
        s.joint = <int64_t*> _grown(s.joint, capacity * sizeof(int64_t))
        s.child = <int64_t*> _grown(s.child, capacity * sizeof(int64_t))
        s.next = <int64_t*> _grown(s.next, capacity * sizeof(int64_t))
        s.edge_capacity = capacity
        return 0

    cdef int _levels(self, int levels) except -1 nogil:
        cdef int r = self.nroles
        self.path = <int64_t*> _grown(self.path, (levels + 2) * sizeof(int64_t))
        self.picks = <int32_t*> _grown(self.picks, (levels + 2) * r * sizeof(int32_t))
        self.joints = <int32_t*> _grown(self.joints, (levels + 4) * r * sizeof(int32_t))
        self.levels = levels
        return 0

    cdef int64_t _find(self, Store* s, const uint8_t* state, uint64_t h) noexcept nogil:
        """The node of ``state`` in the transposition table, or -1."""
        cdef uint64_t i = h & s.mask
        cdef int64_t node
        while s.table[i]:
            node = s.table[i] - 1
            if memcmp(s.states + node * self.nbase, state, self.nbase) == 0:
                return node
            i = (i + 1) & s.mask
        return -1

    cdef int _enter(self, Store* s, int64_t node) except -1 nogil:
        """Put ``node`` in the transposition table (grown when half full)."""
        cdef uint64_t i, j, old_mask
        cdef int64_t* old
        if 2 * (s.used + 1) > <int64_t> (s.mask + 1):
            old, old_mask = s.table, s.mask
            s.mask = 2 * (s.mask + 1) - 1
            s.table = <int64_t*> _zeroed(s.mask + 1, sizeof(int64_t))
            s.used = 0
            for j in range(old_mask + 1):
                if old[j]:
                    self._enter(s, old[j] - 1)
            free(old)
        i = _hash(s.states + node * self.nbase, self.nbase) & s.mask
        while s.table[i]:
            i = (i + 1) & s.mask
        s.table[i] = node + 1
        s.used += 1
        return 0

    # --- nodes --------------------------------------------------------------------
    cdef int64_t _node(self, const uint8_t* state) except -1 nogil:
        """The node of ``state``: a new one (expanded: terminal and goals, or
        each role's legal moves in move order), or with transpositions the
        one already holding that state."""
        cdef Store* s = &self.s
        cdef int64_t node, row
        cdef int r, k, g, nr = self.nroles
        if self.transpositions:
            node = self._find(s, state, _hash(state, self.nbase))
            if node >= 0:
                return node
        if s.count == s.capacity:
            self._nodes(s, 2 * s.capacity)
        node = s.count
        s.count += 1
        memcpy(s.states + node * self.nbase, state, self.nbase)
        s.n[node] = 0
        s.edge[node] = -1
        self.K._load(state)
        self.loaded = node
        s.terminal[node] = self.K.term_node >= 0 and self.K.val[self.K.term_node]
        s.solved[node] = s.terminal[node]
        for r in range(nr):
            s.width[node * nr + r] = 0
            s.first[node * nr + r] = s.rows
        if s.terminal[node]:
            self.K._best_goals(s.goals + node * nr)
            if self.imm > 0:
                memcpy(s.hnode + node * nr, s.goals + node * nr, nr * sizeof(double))
        else:
            for r in range(nr):
                k = self.K._legal(r, self.legal)
                if s.rows + k > s.row_capacity:
                    self._rows(s, 2 * (s.row_capacity + k))
                s.first[node * nr + r] = s.rows
                s.width[node * nr + r] = k
                for g in range(k):
                    row = s.rows + g
                    s.move[row] = self.legal[g]
                    s.visits[row] = 0
                    s.sums[row] = 0.0
                    s.tops[row] = -1.0
                    s.amaf_n[row] = 0
                    s.amaf_sums[row] = 0.0
                s.rows += k
            if self.imm > 0:
                self._implicit(node)
            if self.tactics:
                self._win_at_once(node)
            if self.prior > 0 and not s.solved[node]:
                self._seed(node)
        if self.transpositions:
            self._enter(s, node)
        return node

    cdef int _one_mover(self, int64_t node) noexcept nogil:
        """The one role with a choice at ``node`` (:meth:`_mover`), the
        others' single moves set in the kernel's ``chosen``, so that the
        mover's moves can be tried one by one; negative when no single role
        has a choice."""
        cdef int nr = self.nroles, m = self._mover(node), r
        if m >= 0:
            for r in range(nr):
                if r != m:
                    self.K.chosen[r] = self.s.move[self.s.first[node * nr + r]]
        return m

    cdef void _win_at_once(self, int64_t node) noexcept nogil:
        """Solve the new ``node`` when its one role with a choice has a move
        that ends the game at once with its goal 100: its goals are those of
        the state that move reaches.  In the tree this is the decisive move of
        Teytaud and Teytaud ("On the Huge Benefit of Decisive Moves in
        Monte-Carlo Tree Search Algorithms", CIG 2010), and through the solver
        their anti-decisive one: a move into such a node is a known loss for
        the role that made it.  Needs a kernel that reads wins (``K.win_node``)."""
        cdef Store* s = &self.s
        cdef int nr = self.nroles, m = self._one_mover(node), i
        cdef int64_t first
        if m < 0:
            return
        first = s.first[node * nr + m]
        i = self.K._decisive(m, s.move + first, s.width[node * nr + m])
        self.loaded = -1                        # the kernel's moves are set: load again
        if i < 0:
            return
        self.K.chosen[m] = s.move[first + i]
        self.K._do()
        self.K._read_next(self.state)
        self.K._load(self.state)
        self.K._best_goals(s.goals + node * nr)
        s.solved[node] = 2                      # its end one ply away
        if self.imm > 0:
            memcpy(s.hnode + node * nr, s.goals + node * nr, nr * sizeof(double))

    cdef void _values(self, const uint8_t* state, double* out) noexcept nogil:
        """Every role's evaluation of ``state``, clipped to 0..100."""
        cdef int r
        for r in range(self.nroles):
            out[r] = self._clipped(r, state)

    cdef void _implicit(self, int64_t node) noexcept nogil:
        """The implicit minimax values of the new ``node`` (Lanctot, Winands,
        Pepels and Sturtevant, "Monte Carlo Tree Search with Heuristic
        Evaluations using Implicit Minimax Backups", CIG 2014): each move of
        its one role with a choice gets the evaluation of the state it leads
        to, and the node the values of its mover's best move (of its one
        move, when no role has a choice); a node of simultaneous choices keeps
        its own evaluation."""
        cdef Store* s = &self.s
        cdef int nr = self.nroles, m = self._mover(node), j, k, r
        cdef int64_t first
        if m == -2:
            self._values(s.states + node * self.nbase, s.hnode + node * nr)
            return
        m = max(m, 0)
        for r in range(nr):
            if r != m:
                self.K.chosen[r] = s.move[s.first[node * nr + r]]
        first, k = s.first[node * nr + m], s.width[node * nr + m]
        for j in range(k):
            self.K.chosen[m] = s.move[first + j]
            self.K._do()
            self.K._read_next(self.state)
            if self.quiesce > 0 and self._captures(m, s.states + node * self.nbase, self.state):
                memcpy(self.qstates, self.state, self.nbase)
                self.K._load(self.qstates)
                self._settle(0, self.quiesce, s.hrow + (first + j) * nr)
                self.K._load(s.states + node * self.nbase)
                for r in range(nr):
                    if r != m:
                        self.K.chosen[r] = s.move[s.first[node * nr + r]]
            else:
                self._values(self.state, s.hrow + (first + j) * nr)
        self.loaded = -1                        # the kernel's moves are set: load again
        self._minimax(node, m)

    cdef bint _captures(self, int m, const uint8_t* before, const uint8_t* after) noexcept nogil:
        """Whether the step from ``before`` to ``after`` takes material from a
        role other than ``m``: fewer of the propositions that count for it
        (a positive weight in its evaluation) hold after it."""
        cdef int r, b, nb = self.nbase, d
        for r in range(self.nroles):
            if r == m:
                continue
            d = 0
            for b in range(nb):
                if self.eval_w[r * nb + b] > 0:
                    d += after[b] - before[b]
            if d < 0:
                return True
        return False

    cdef void _settle(self, int ply, int plies, double* out) noexcept nogil:
        """The values of the state of quiescence ``ply`` (loaded in the
        kernel) once its exchanges are played out, up to ``plies`` more
        captures: its mover takes the best of standing (its evaluation) and
        each capture it has, valued so in turn; a terminal state has its
        goals; a state where several roles choose stands.  The capture
        quiescence of chess programs (Shannon, "Programming a Computer for
        Playing Chess", 1950: a position is evaluated only once no exchange
        is pending), here on the evaluation's material."""
        cdef uint8_t* here = self.qstates + ply * self.nbase
        cdef uint8_t* there = self.qstates + (ply + 1) * self.nbase
        cdef int32_t* moves = self.qmoves + ply * (self.K.nmoves + 1)
        cdef int32_t* fixed = self.qfixed + ply * self.nroles
        cdef double* value = self.qvals + (ply + 1) * self.nroles
        cdef int nr = self.nroles, r, j, k, mover = -1
        if self.K.term_node >= 0 and self.K.val[self.K.term_node]:
            self.K._best_goals(out)
            return
        self._values(here, out)
        if plies <= 0:
            return
        for r in range(nr):
            k = self.K._legal(r, moves)
            if k == 0:
                return
            if k > 1:
                if mover >= 0:
                    return
                mover = r
            else:
                fixed[r] = moves[0]
        mover = max(mover, 0)
        k = self.K._legal(mover, moves)
        for j in range(k):
            for r in range(nr):
                self.K.chosen[r] = moves[j] if r == mover else fixed[r]
            self.K._do()
            self.K._read_next(there)
            if not self._captures(mover, here, there):
                continue
            self.K._load(there)
            self._settle(ply + 1, plies - 1, value)
            if value[mover] > out[mover]:
                memcpy(out, value, nr * sizeof(double))
            self.K._load(here)

    cdef void _minimax(self, int64_t node, int m) noexcept nogil:
        """``node``'s values: those of its mover ``m``'s move valued best for ``m``."""
        cdef Store* s = &self.s
        cdef int nr = self.nroles, j, k = s.width[node * nr + m]
        cdef int64_t first = s.first[node * nr + m], best = first
        for j in range(1, k):
            if s.hrow[(first + j) * nr + m] > s.hrow[best * nr + m]:
                best = first + j
        memcpy(s.hnode + node * nr, s.hrow + best * nr, nr * sizeof(double))

    cdef void _back_minimax(self, int level) noexcept nogil:
        """Back the implicit minimax values up the simulation's path: each
        node's move taken gets its child's values, and the node those of its
        mover's best move (Lanctot et al. 2014, section III)."""
        cdef Store* s = &self.s
        cdef int nr = self.nroles, i, m
        cdef int64_t node, row
        for i in range(level - 1, -1, -1):
            node = self.path[i]
            m = self._mover(node)
            if m == -2 or s.solved[node]:
                continue
            m = max(m, 0)                       # no choice: role 0's one move
            row = s.first[node * nr + m] + self.picks[i * nr + m]
            memcpy(s.hrow + row * nr, s.hnode + self.path[i + 1] * nr, nr * sizeof(double))
            self._minimax(node, m)

    cdef int64_t _child(self, int64_t node, int64_t joint) noexcept nogil:
        cdef int64_t e = self.s.edge[node]
        while e >= 0:
            if self.s.joint[e] == joint:
                return self.s.child[e]
            e = self.s.next[e]
        return -1

    cdef int _link(self, int64_t node, int64_t joint, int64_t child) except -1 nogil:
        cdef Store* s = &self.s
        if s.edges == s.edge_capacity:
            self._edges(s, 2 * s.edge_capacity)
        s.joint[s.edges] = joint
        s.child[s.edges] = child
        s.next[s.edges] = s.edge[node]
        s.edge[node] = s.edges
        s.edges += 1
        return 0

    # --- one simulation -------------------------------------------------------------
    cdef int64_t _choose(self, int64_t node, int level, int32_t* joint) noexcept nogil:
        """Each role's move at ``node`` (into ``joint`` and the level's picks):
        an untried one (the policy picks which), else by UCB1.  Returns the
        joint move's index."""
        cdef Store* s = &self.s
        cdef int nr = self.nroles, r, j, k, best, untried, t
        cdef int64_t first, index = 0, radix = 1, v
        cdef double log_n = log(<double> s.n[node]) if s.n[node] > 0 else 0.0
        cdef double beta = sqrt(self.rave / (3.0 * s.n[node] + self.rave)) if self.rave > 0 else 0.0
        cdef double value, best_value
        cdef int c1, c2, mover = self._mover(node) if self.solver or self.imm > 0 else -1
        cdef int64_t e
        cdef int32_t* pick = self.picks + level * nr
        t = self.ncontext + level               # joint moves before this one
        for r in range(nr):
            k = s.width[node * nr + r]
            first = s.first[node * nr + r]
            best = 0
            if self.solver and r == mover:      # the moves whose outcome is known
                for j in range(k):
                    self.exact[j] = -1.0
                e = s.edge[node]
                while e >= 0:
                    if s.solved[s.child[e]]:
                        self.exact[s.joint[e]] = s.goals[s.child[e] * nr + r]
                    e = s.next[e]
            if k > 1:
                untried = 0
                for j in range(k):
                    if s.visits[first + j] == 0:
                        self.policy.cand[untried] = s.move[first + j]
                        self.policy.cand_pos[s.move[first + j]] = untried
                        untried += 1
                if untried:
                    c1 = self.joints[(t - 1) * nr + self.policy.prev[2 * r]] if t >= 1 else -1
                    c2 = self.joints[(t - 2) * nr + self.policy.prev[2 * r + 1]] if t >= 2 else -1
                    v = self.policy._pick(r, self.policy.cand, untried, self.policy.cand_pos, c1, c2)
                    for j in range(untried):
                        self.policy.cand_pos[self.policy.cand[j]] = -1
                    for j in range(k):
                        if s.move[first + j] == v:
                            best = j
                            break
                else:
                    best_value = -INFINITY
                    for j in range(k):
                        v = s.visits[first + j]
                        if self.solver and r == mover and self.exact[j] == 0:
                            value = -INFINITY           # a known loss: never while others are not
                        elif self.solver and r == mover and self.exact[j] > 0:
                            value = self.exact[j] + self.c * sqrt(log_n / v)
                        else:
                            value = s.sums[first + j] / v
                            if self.rave > 0:
                                value += beta * ((s.amaf_sums[first + j] / s.amaf_n[first + j]
                                                  if s.amaf_n[first + j] else value) - value)
                            if self.imm > 0 and r == mover:     # Lanctot et al. 2014, eq. (2)
                                value += self.imm * (s.hrow[(first + j) * nr + r] - value)
                            value += self.c * sqrt(log_n / v)
                        if value > best_value:
                            best, best_value = j, value
            pick[r] = best
            joint[r] = s.move[first + best]
            index += best * radix
            radix *= k if k > 0 else 1
        return index

    def _lines(self, roles, own, blocks, gains):
        """Load the goal lines of :func:`players.perfect.rules.line_evaluation`:
        per line its role, its own propositions and those that block it."""
        cdef int i, j, at = 0, total = sum(len(o) + len(b) for o, b in zip(own, blocks))
        self.nlines = len(roles)
        self.line_role = <int32_t*> _grown(NULL, (self.nlines + 1) * sizeof(int32_t))
        self.line_at = <int32_t*> _grown(NULL, (2 * self.nlines + 1) * sizeof(int32_t))
        self.line_props = <int32_t*> _grown(NULL, (total + 1) * sizeof(int32_t))
        self.line_gain = <double*> _grown(NULL, (len(gains) + 1) * sizeof(double))
        for i in range(len(gains)):
            self.line_gain[i] = gains[i]
        for i in range(self.nlines):
            self.line_role[i] = roles[i]
            self.line_at[2 * i] = at
            for j in own[i]:
                self.line_props[at] = j
                at += 1
            self.line_at[2 * i + 1] = at
            for j in blocks[i]:
                self.line_props[at] = j
                at += 1
        self.line_at[2 * self.nlines] = at

    cdef double _evaluate(self, int r, const uint8_t* state) noexcept nogil:
        """Role ``r``'s evaluation of ``state`` (:mod:`players.perfect.heuristic`),
        with its goal lines (:func:`players.perfect.rules.line_evaluation`):
        an open line (none of its blocking propositions holds) is worth the
        gain of the count of its own propositions that hold, for its role and
        against the others (shared equally)."""
        cdef int b, nb = self.nbase, i, j, held
        cdef double v = self.eval_b[r], g
        cdef bint open_
        for b in range(nb):
            if state[b]:
                v += self.eval_w[r * nb + b]
        for i in range(self.nlines):
            open_ = True
            for j in range(self.line_at[2 * i + 1], self.line_at[2 * i + 2]):
                if state[self.line_props[j]]:
                    open_ = False
                    break
            if not open_:
                continue
            held = 0
            for j in range(self.line_at[2 * i], self.line_at[2 * i + 1]):
                held += state[self.line_props[j]] != 0
            g = self.line_gain[held]
            if self.line_role[i] == r:
                v += g
            else:
                v -= g / (self.nroles - 1)
        return v

    cdef inline double _clipped(self, int r, const uint8_t* state) noexcept nogil:
        """Role ``r``'s evaluation of ``state`` clipped to the goals' 0..100."""
        cdef double v = self._evaluate(r, state)
        return 0.0 if v < 0 else 100.0 if v > 100 else v

    cdef void _seed(self, int64_t node) noexcept nogil:
        """Progressive bias as virtual visits (Chaslot et al., "Progressive
        Strategies for Monte-Carlo Tree Search", 2008; Sancho seeds a new
        child's average from its piece heuristic the same way): each move of
        the new ``node``'s one role with a choice starts with ``prior`` visits
        at the value 100 / (1 + exp(-d / scale)), d being how much the move
        changes that role's evaluation.  A move that wins material starts above
        50, one that loses it below, and no move is left untried."""
        cdef Store* s = &self.s
        cdef int nr = self.nroles, m = self._one_mover(node), j, k
        cdef int64_t first
        cdef double here, value
        if m < 0:
            return
        here = self._evaluate(m, s.states + node * self.nbase)
        first, k = s.first[node * nr + m], s.width[node * nr + m]
        for j in range(k):
            self.K.chosen[m] = s.move[first + j]
            self.K._do()
            self.K._read_next(self.state)
            value = 100.0 / (1.0 + exp(-(self._evaluate(m, self.state) - here) / self.scale))
            s.visits[first + j] = self.prior
            s.sums[first + j] = self.prior * value
        s.n[node] += self.prior * k
        self.loaded = -1                        # the kernel's moves are set: load again

    cdef double _leaf(self, const uint8_t* state) noexcept nogil:
        """``leaf`` random playouts from ``state`` in the lanes: their mean
        goals into ``goals``; returns their mean depth."""
        cdef int r, nr = self.nroles
        for r in range(2 + nr):
            self.lane_out[r] = 0
        self.lanes._run(state, self.leaf, &self.rng, MAX_PLAYOUT, self.lane_out, NULL, NULL)
        for r in range(nr):
            self.goals[r] = <double> self.lane_out[2 + r] / self.leaf
        return <double> self.lane_out[0] / self.leaf

    cdef void _blend(self, const uint8_t* state) noexcept nogil:
        """Mix the evaluation of ``state`` (:mod:`players.perfect.heuristic`, clipped
        to 0..100) into the playout's goals: (1 - alpha) goals + alpha value,
        as AlphaGo mixes its value network with the rollout outcome (Silver et
        al., Nature 2016, "Searching with policy and value networks")."""
        cdef int r
        for r in range(self.nroles):
            self.goals[r] = (1 - self.alpha) * self.goals[r] + self.alpha * self._clipped(r, state)

    cdef int _simulate(self) except -1 nogil:
        cdef Store* s = &self.s
        cdef int nr = self.nroles, level = 0, r, g, known, i, plies = 0
        cdef int64_t node = self.root, child, index, w = self.leaf
        cdef int32_t* joint
        cdef bint played = False, cut = False
        cdef double scale, reward, depth = 0
        self.loaded = -1
        self.path[0] = node
        # the root is searched even when solved: a node solved at once by
        # tactics has no child yet, and its moves' statistics choose the move
        while not s.solved[node] or level == 0 and not s.terminal[node]:
            if level + 1 >= self.levels:
                self._levels(2 * self.levels)
            joint = self.joints + (self.ncontext + level) * nr
            index = self._choose(node, level, joint)
            level += 1
            child = self._child(node, index)
            if child < 0:
                if self.anchor != NULL:     # a load from the root flips the fewest
                    self.K._restore(self.anchor)
                self.K._load(s.states + node * self.nbase)
                for r in range(nr):
                    self.K.chosen[r] = joint[r]
                self.K._do()
                self.K._read_next(self.state)
                child = self._node(self.state)
                if self.added < self.max_nodes:
                    self._link(node, index, child)
                    self.added += 1
                self.path[level] = child
                if not s.solved[child] and self.lanes is not None:
                    depth = self._leaf(s.states + child * self.nbase)
                    played = True
                elif not s.solved[child]:
                    known = self.ncontext + level
                    self.policy._reserve(known + MAX_PLAYOUT)
                    memcpy(self.policy.seq, self.joints, known * nr * sizeof(int32_t))
                    if self.loaded != child:    # else _node has just loaded it
                        self.K._load(s.states + child * self.nbase)
                    plies = self.policy._run(known, self.cutoff or MAX_PLAYOUT, &cut)
                    depth = plies
                    if cut and self.cutoff > 0 and plies == self.cutoff and not self.goal_cut:
                        self.K._read_base(self.state)   # Lorentz 2015
                        self._values(self.state, self.goals)
                    else:                               # early: the goals where it was cut
                        self.K._last_goals(self.goals)
                    self.policy._credit(self.ncontext, known + plies, self.goals)
                    played = True
                if played and self.alpha > 0:
                    self._blend(s.states + child * self.nbase)
                break
            self.path[level] = child
            node = child
        if not played:
            node = self.path[level]
            for r in range(nr):
                self.goals[r] = s.goals[node * nr + r]
            known = self.ncontext + level
            self.policy._reserve(known)
            memcpy(self.policy.seq, self.joints, known * nr * sizeof(int32_t))
            self.policy._credit(self.ncontext, known, self.goals)
        # back up the goals, discounted by gamma ** plies to the end, w times
        scale = pow(self.gamma, depth)
        for i in range(level - 1, -1, -1):
            scale *= self.gamma
            node = self.path[i]
            s.n[node] += w
            for r in range(nr):
                g = s.first[node * nr + r] + self.picks[i * nr + r]
                reward = self.goals[r] * scale
                s.visits[g] += w
                s.sums[g] += reward * w
                if reward > s.tops[g]:
                    s.tops[g] = reward
        s.n[self.path[level]] += w
        if self.imm > 0:
            self._back_minimax(level)
        if self.rave > 0:
            self._amaf(level, self.ncontext + level + (plies if played else 0), depth)
        if self.solver:
            for i in range(level - 1, -1, -1):
                if not self._solve(self.path[i]):
                    break
        return 0

    cdef void _amaf(self, int level, int steps, double depth) noexcept nogil:
        """RAVE's all-moves-as-first statistics (Gelly and Silver, "Combining
        Online and Offline Knowledge in UCT", ICML 2007): at each node of the
        path, each role's moves that the role played there or later in the
        simulation (the first ``steps`` joint moves of the policy's record)
        are credited with the reward the node's own move got."""
        cdef Store* s = &self.s
        cdef int nr = self.nroles, i, r, j, t = steps - 1
        cdef int64_t node, row
        cdef double scale = pow(self.gamma, depth), reward
        self.stamp += 1
        for i in range(level - 1, -1, -1):
            scale *= self.gamma
            while t >= self.ncontext + i:
                for r in range(nr):
                    self.mark[self.policy.seq[t * nr + r]] = self.stamp
                t -= 1
            node = self.path[i]
            for r in range(nr):
                reward = self.goals[r] * scale
                row = s.first[node * nr + r]
                for j in range(s.width[node * nr + r]):
                    if self.mark[s.move[row + j]] == self.stamp:
                        s.amaf_n[row + j] += 1
                        s.amaf_sums[row + j] += reward

    # --- the solver -----------------------------------------------------------------
    cdef int _mover(self, int64_t node) noexcept nogil:
        """The one role with a choice at ``node``; -1 when none has, -2 when
        several have (a simultaneous move, which the solver leaves alone)."""
        cdef int r, mover = -1
        for r in range(self.nroles):
            if self.s.width[node * self.nroles + r] > 1:
                if mover >= 0:
                    return -2
                mover = r
        return mover

    cdef bint _solve(self, int64_t node) noexcept nogil:
        """Whether ``node``'s value under best play is now known: a child where
        its mover gets 100, or every child known (the mover's best).  Its
        value goes into its goals (MCTS-Solver: Winands, Bjornsson and Saito,
        Computers and Games 2008, with the mover maximising its own goal), and
        into ``solved`` the plies to the end: among the children of that value,
        the fewest for a win (100), else the most (a loss put off is one a
        fallible opponent may yet not find)."""
        cdef Store* s = &self.s
        cdef int nr = self.nroles, m = self._mover(node), r
        cdef int64_t e, child, best = -1, known = 0
        cdef double g, top
        if m == -2 or s.solved[node]:
            return s.solved[node]
        e = s.edge[node]
        while e >= 0:
            child = s.child[e]
            if s.solved[child]:
                known += 1
                if best < 0:
                    best = child
                elif m >= 0:
                    g, top = s.goals[child * nr + m], s.goals[best * nr + m]
                    if g > top or g == top and (s.solved[child] < s.solved[best] if g >= 100
                                                else s.solved[child] > s.solved[best]):
                        best = child
            e = s.next[e]
        if best < 0 or not (known == (s.width[node * nr + m] if m >= 0 else 1)
                            or m >= 0 and s.goals[best * nr + m] >= 100):
            return False
        s.solved[node] = s.solved[best] + 1 if s.solved[best] < 255 else 255
        for r in range(nr):
            s.goals[node * nr + r] = s.goals[best * nr + r]
        if self.imm > 0:
            memcpy(s.hnode + node * nr, s.goals + node * nr, nr * sizeof(double))
        return True

    def run(self, long budget=-1, double until=0.0):
        """Simulate ``budget`` times, or (``budget < 0``) until the
        ``time.monotonic()`` instant ``until``; returns how many ran."""
        cdef long done = 0
        memcpy(self.joints, self.context, self.ncontext * self.nroles * sizeof(int32_t))
        # each expansion loads its node's state into the kernel settled at the
        # root: flipping what differs from the root, not from where the last
        # playout ended (in every network of a split kernel)
        free(self.anchor)
        self.anchor = self.K._anchor(self.s.states + self.root * self.nbase, ANCHOR_BYTES)
        with nogil:
            if budget >= 0:
                while done < budget:
                    self._simulate()
                    done += 1
            else:
                while _now() < until:
                    self._simulate()
                    done += 1
        return done

    # --- between moves --------------------------------------------------------------
    def new_move(self):
        """A new decision: it may add ``max_nodes`` nodes again."""
        self.added = 0

    def advance(self, joint, const uint8_t[:] state):
        """The match went on by ``joint`` (move numbers) to ``state``: its node
        becomes the root (the child of the root by that joint move, else the
        node of ``state``), and everything else is dropped."""
        cdef Store* s = &self.s
        cdef int nr = self.nroles, r, j, k
        cdef int64_t index = 0, radix = 1, first, child = -1
        cdef bint found = not s.terminal[self.root]
        for r in range(nr):
            if not found:
                break
            k, first = s.width[self.root * nr + r], s.first[self.root * nr + r]
            found = False
            for j in range(k):
                if s.move[first + j] == joint[r]:
                    index += j * radix
                    found = True
                    break
            radix *= k if k > 0 else 1
        if found:
            child = self._child(self.root, index)
        if child < 0:
            child = self._node(&state[0] if self.nbase else self.state)
        if self.ncontext == 2:                  # keep the last two joint moves
            memcpy(self.context, self.context + nr, nr * sizeof(int32_t))
            self.ncontext = 1
        for r in range(nr):
            self.context[self.ncontext * nr + r] = joint[r]
        self.ncontext += 1
        self._keep(child)

    def restart(self, const uint8_t[:] state):
        """Search from ``state``, with no tree and no history (GDL-II: a state
        consistent with what the player saw)."""
        self.ncontext = 0
        self._keep(self._node(&state[0] if self.nbase else self.state))

    cdef int _keep(self, int64_t root) except -1:
        """Make ``root`` the root and copy what it reaches into fresh storage."""
        cdef Store old = self.s
        cdef Store* s = &self.s
        cdef int nr = self.nroles, r
        cdef int64_t* new_id = <int64_t*> _grown(NULL, old.count * sizeof(int64_t))
        cdef int64_t* queue = <int64_t*> _grown(NULL, old.count * sizeof(int64_t))
        cdef int64_t head = 0, tail = 1, node, copy, e, j, w, src, dst
        cdef int64_t capacity = 1024
        try:
            for node in range(old.count):
                new_id[node] = -1
            # number the reachable nodes breadth-first
            queue[0] = root
            new_id[root] = 0
            while head < tail:
                node = queue[head]
                head += 1
                e = old.edge[node]
                while e >= 0:
                    if new_id[old.child[e]] < 0:
                        new_id[old.child[e]] = tail
                        queue[tail] = old.child[e]
                        tail += 1
                    e = old.next[e]
            while capacity < tail:
                capacity *= 2
            self._init(s, capacity)
            for copy in range(tail):
                node = queue[copy]
                memcpy(s.states + copy * self.nbase, old.states + node * self.nbase, self.nbase)
                s.terminal[copy], s.n[copy], s.edge[copy] = old.terminal[node], old.n[node], -1
                s.solved[copy] = old.solved[node]
                if self.imm > 0:
                    memcpy(s.hnode + copy * nr, old.hnode + node * nr, nr * sizeof(double))
                for r in range(nr):
                    w = old.width[node * nr + r]
                    s.goals[copy * nr + r] = old.goals[node * nr + r]
                    s.width[copy * nr + r] = w
                    if s.rows + w > s.row_capacity:
                        self._rows(s, 2 * (s.row_capacity + w))
                    s.first[copy * nr + r] = s.rows
                    src, dst = old.first[node * nr + r], s.rows
                    for j in range(w):
                        s.move[dst + j] = old.move[src + j]
                        s.visits[dst + j] = old.visits[src + j]
                        s.sums[dst + j] = old.sums[src + j]
                        s.tops[dst + j] = old.tops[src + j]
                        s.amaf_n[dst + j] = old.amaf_n[src + j]
                        s.amaf_sums[dst + j] = old.amaf_sums[src + j]
                    if self.imm > 0:            # the implicit minimax values of all w rows
                        memcpy(s.hrow + dst * nr, old.hrow + src * nr, w * nr * sizeof(double))
                    s.rows += w
                s.count += 1
                if self.transpositions:
                    self._enter(s, copy)
            for copy in range(tail):
                node = queue[copy]
                e = old.edge[node]
                while e >= 0:
                    self._link(copy, old.joint[e], new_id[old.child[e]])
                    e = old.next[e]
        finally:
            free(new_id)
            free(queue)
            _free(&old)
        self.root = 0
        return 0

    # --- questions ------------------------------------------------------------------
    def root_moves(self, int role):
        """(moves, visits, reward sums, best rewards) of ``role`` at the root."""
        cdef Store* s = &self.s
        cdef int64_t first = s.first[self.root * self.nroles + role], j
        cdef int w = s.width[self.root * self.nroles + role]
        return ([s.move[first + j] for j in range(w)], [s.visits[first + j] for j in range(w)],
                [s.sums[first + j] for j in range(w)], [s.tops[first + j] for j in range(w)])

    def root_amaf(self, int role):
        """(RAVE's simulations, their reward sums) per root move of ``role``."""
        cdef Store* s = &self.s
        cdef int64_t first = s.first[self.root * self.nroles + role], j
        cdef int w = s.width[self.root * self.nroles + role]
        return ([s.amaf_n[first + j] for j in range(w)],
                [s.amaf_sums[first + j] for j in range(w)])

    def root_proofs(self, int role):
        """Per root move of ``role``: ``(goal, plies)``, its goal under best
        play and the plies to the end, when the solver knows them (the child it
        leads to is solved), else None."""
        cdef Store* s = &self.s
        cdef int nr = self.nroles
        cdef int64_t e
        out = [None] * s.width[self.root * nr + role]
        if self._mover(self.root) != role:
            return out
        e = s.edge[self.root]
        while e >= 0:
            if s.solved[s.child[e]]:
                out[s.joint[e]] = (s.goals[s.child[e] * nr + role], s.solved[s.child[e]])
            e = s.next[e]
        return out

    def root_values(self, int role):
        """Per root move of ``role``: the implicit minimax value of the state
        it leads to for ``role`` (``imm``), when ``role`` is the root's one role
        with a choice; else None for each."""
        cdef Store* s = &self.s
        cdef int nr = self.nroles
        cdef int64_t first = s.first[self.root * nr + role], j
        cdef int w = s.width[self.root * nr + role]
        if self.imm <= 0 or self._mover(self.root) != role:
            return [None] * w
        return [s.hrow[(first + j) * nr + role] for j in range(w)]

    @property
    def solved(self):
        """Whether the root's value under best play is known (solver)."""
        return bool(self.s.solved[self.root])

    @property
    def nodes(self):
        return self.s.count
