# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Extensive-form Monte Carlo tree search over information states, in C.

The search of

    J. Heinrich, "Smooth UCT Search", thesis chapter (Algorithm 1:
    extensive-form MCTS; Algorithm 2: extensive-form UCT; Algorithm 3: Smooth
    UCT; the mixing schedule of eq. 3.1), after J. Heinrich and D. Silver,
    "Smooth UCT Search in Computer Poker", IJCAI 2015

keeps one tree per player over that player's information states u, each node
with its visit count N(u) and, per move a, N(u, a) and the mean return
Q(u, a).  :class:`InfoTrees` holds the players' trees, SELECT and UPDATE, and
runs Algorithm 1 in self-play over a game's extensive form
(:meth:`InfoTrees.selfplay`, on a :class:`ggp.solvers.efg.FlatTree`).

SELECT (``select="ucb"``, Algorithm 2): a move never tried at u is taken
first, uniformly among the untried ones; then argmax_a Q(u, a) + c sqrt(ln
N(u) / N(u, a)), ties (exact equality) broken uniformly at random.
SELECT (``select="smooth"``, Algorithm 3): with probability
eta = max(gamma, eta0 / (1 + d sqrt(N(u)))) (eq. 3.1) the UCB move above,
else a move drawn from the average policy N(u, a) / N(u); at N(u) = 0 the UCB
move.  UPDATE(u, a, r): N(u) += 1, N(u, a) += 1, Q(u, a) += (r - Q(u, a)) /
N(u, a).

Storage: nodes and their moves in growable flat C buffers (node ids are
global across players, move entries of a node contiguous), and per player an
open-addressing hash table (linear probing, at most half full, doubled when
it would be more) from a 64-bit key to the node id.  Random numbers are the
network kernel's xorshift64 (``ggp.reasoners._propnet``), seeded through splitmix64.
"""
cimport cython
from libc.math cimport log, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

from ggp.reasoners._propnet cimport Kernel, _below, _xorshift
from players._policy cimport Policy
from players._sampling cimport Sampler, _decision, _extend, _mix

cdef int TERMINAL = 0
cdef int CHANCE = 1
cdef double UNIT = 1.0 / 9007199254740992.0     # 2 ** -53
cdef uint64_t MASK64 = 0xFFFFFFFFFFFFFFFFULL


ctypedef struct Node:
    uint64_t key
    int64_t visits      # N(u)
    int64_t first       # its moves' entries: edges[first] .. edges[first + moves - 1]
    int32_t moves
    int32_t player


ctypedef struct Edge:
    double value        # Q(u, a)
    int64_t count       # N(u, a)


ctypedef struct Table:
    int64_t* slots      # node id, -1 when empty
    uint64_t mask       # capacity - 1 (a power of two)
    int64_t used


cdef void* _grow(void* buffer, int64_t items, size_t size) except NULL nogil:
    cdef void* grown = realloc(buffer, items * size)
    if grown == NULL:
        with gil:
            raise MemoryError()
    return grown


@cython.final
cdef class InfoTrees:
    """The information-state trees of ``players`` players with their SELECT
    (``"ucb"``: Algorithm 2, or ``"smooth"``: Algorithm 3 with ``gamma``,
    ``eta0``, ``d`` of eq. 3.1; ``c`` the exploration constant, in the
    rewards' unit) and UPDATE; ``seed`` seeds the random numbers, so the same
    seed and calls give the same trees."""
    cdef int players, smooth
    cdef double c, gamma, eta0, d
    cdef uint64_t rng
    cdef Table* tables
    cdef Node* nodes
    cdef Edge* edges
    cdef int64_t node_count, node_capacity, edge_count, edge_capacity

    def __cinit__(self, int players, str select="smooth", double c=1.75, double gamma=0.1,
                  double eta0=0.9, double d=0.001, seed=0):
        if players < 1:
            raise ValueError(f"players must be at least 1, got {players}")
        if select not in ("ucb", "smooth"):
            raise ValueError(f"select must be 'ucb' or 'smooth', got {select!r}")
        if c < 0 or d < 0 or not 0 <= gamma <= 1 or not 0 <= eta0 <= 1:
            raise ValueError("need c >= 0, d >= 0, 0 <= gamma <= 1 and 0 <= eta0 <= 1")
        self.players = players
        self.smooth = select == "smooth"
        self.c, self.gamma, self.eta0, self.d = c, gamma, eta0, d
        self.rng = _mix(<uint64_t> (seed & MASK64) + 0x9E3779B97F4A7C15ULL)
        if self.rng == 0:
            self.rng = 1        # xorshift64 never leaves 0
        self.tables = <Table*> malloc(players * sizeof(Table))
        if self.tables == NULL:
            raise MemoryError()
        cdef int p, k
        for p in range(players):
            self.tables[p].slots = NULL
        for p in range(players):
            self.tables[p].slots = <int64_t*> malloc(16 * sizeof(int64_t))
            if self.tables[p].slots == NULL:
                raise MemoryError()
            self.tables[p].mask = 15
            self.tables[p].used = 0
            for k in range(16):
                self.tables[p].slots[k] = -1
        self.node_capacity = 64
        self.edge_capacity = 256
        self.nodes = <Node*> _grow(NULL, self.node_capacity, sizeof(Node))
        self.edges = <Edge*> _grow(NULL, self.edge_capacity, sizeof(Edge))

    def __dealloc__(self):
        cdef int p
        if self.tables != NULL:
            for p in range(self.players):
                free(self.tables[p].slots)
            free(self.tables)
        free(self.nodes)
        free(self.edges)

    # --- the tables --------------------------------------------------------------------

    cdef inline int64_t _find(self, int player, uint64_t key) noexcept nogil:
        cdef Table* t = &self.tables[player]
        cdef uint64_t k = _mix(key) & t.mask
        cdef int64_t u
        while True:
            u = t.slots[k]
            if u < 0 or self.nodes[u].key == key:
                return u
            k = (k + 1) & t.mask

    cdef int _rehash(self, Table* t) except -1 nogil:
        cdef uint64_t capacity = 2 * (t.mask + 1), k, old
        cdef int64_t* slots = <int64_t*> _grow(NULL, capacity, sizeof(int64_t))
        cdef int64_t u
        for k in range(capacity):
            slots[k] = -1
        for old in range(t.mask + 1):
            u = t.slots[old]
            if u >= 0:
                k = _mix(self.nodes[u].key) & (capacity - 1)
                while slots[k] >= 0:
                    k = (k + 1) & (capacity - 1)
                slots[k] = u
        free(t.slots)
        t.slots = slots
        t.mask = capacity - 1
        return 0

    cdef int64_t _create(self, int player, uint64_t key, int moves) except -1 nogil:
        """EXPANDTREE: a new node for ``key`` (not in ``player``'s table)."""
        cdef Table* t = &self.tables[player]
        cdef int64_t u = self.node_count
        cdef int a
        cdef uint64_t k
        if 2 * (t.used + 1) > <int64_t> (t.mask + 1):
            self._rehash(t)
        if u == self.node_capacity:
            self.node_capacity *= 2
            self.nodes = <Node*> _grow(self.nodes, self.node_capacity, sizeof(Node))
        while self.edge_count + moves > self.edge_capacity:
            self.edge_capacity *= 2
            self.edges = <Edge*> _grow(self.edges, self.edge_capacity, sizeof(Edge))
        self.nodes[u].key = key
        self.nodes[u].visits = 0
        self.nodes[u].first = self.edge_count
        self.nodes[u].moves = moves
        self.nodes[u].player = player
        for a in range(moves):
            self.edges[self.edge_count + a].value = 0.0
            self.edges[self.edge_count + a].count = 0
        self.edge_count += moves
        self.node_count += 1
        k = _mix(key) & t.mask
        while t.slots[k] >= 0:
            k = (k + 1) & t.mask
        t.slots[k] = u
        t.used += 1
        return u

    # --- SELECT and UPDATE ---------------------------------------------------------------

    cdef inline double _uniform(self) noexcept nogil:
        return (_xorshift(&self.rng) >> 11) * UNIT

    cdef inline double _eta(self, Node* u) noexcept nogil:
        cdef double eta = self.eta0 / (1.0 + self.d * sqrt(<double> u.visits))
        return eta if eta > self.gamma else self.gamma

    cdef int _ucb(self, Node* u) noexcept nogil:
        cdef Edge* e = self.edges + u.first
        cdef int a, best = 0, untried = 0
        cdef uint32_t ties = 0, j
        cdef double score, top = 0.0, log_n
        for a in range(u.moves):
            if e[a].count == 0:
                untried += 1
        if untried:
            j = _below(&self.rng, untried)
            for a in range(u.moves):
                if e[a].count == 0:
                    if j == 0:
                        return a
                    j -= 1
        log_n = log(<double> u.visits)
        for a in range(u.moves):
            score = e[a].value + self.c * sqrt(log_n / e[a].count)
            if ties == 0 or score > top:
                top, best, ties = score, a, 1
            elif score == top:
                ties += 1
                if _below(&self.rng, ties) == 0:
                    best = a
        return best

    cdef int _select(self, Node* u) noexcept nogil:
        cdef Edge* e
        cdef int a
        cdef int64_t r
        if not self.smooth or u.visits == 0 or self._uniform() < self._eta(u):
            return self._ucb(u)
        e = self.edges + u.first
        r = <int64_t> (self._uniform() * u.visits)
        for a in range(u.moves - 1):
            r -= e[a].count
            if r < 0:
                return a
        return u.moves - 1

    cdef inline void _update(self, Node* u, int a, double reward) noexcept nogil:
        cdef Edge* e = self.edges + u.first + a
        u.visits += 1
        e.count += 1
        e.value += (reward - e.value) / e.count

    # --- Algorithm 1 in self-play ---------------------------------------------------------

    def selfplay(self, flat, long long episodes):
        """Run ``episodes`` episodes of Algorithm 1 on the extensive form
        ``flat`` (a :class:`ggp.solvers.efg.FlatTree` of a game with as many players),
        all in C without the GIL; the trees and random numbers carry over
        between calls.

        Each episode starts at the root with every player in its tree.  A
        chance node is sampled by its probabilities.  At a decision node of
        player i out of its tree the move is uniformly random (the rollout
        policy).  Else its information state (key: the node's information-state
        index) is looked up in i's tree: a new one is expanded, its move is
        uniformly random and i leaves its tree for the rest of the episode;
        a known one selects its move by SELECT.  Either way (u, a) is
        recorded, and at the terminal node every recorded (u, a) is updated
        with the utility of u's player there.
        """
        cdef const int32_t[::1] kind = flat.kind
        cdef const int32_t[::1] child_start = flat.child_start
        cdef const int32_t[::1] child = flat.child
        cdef const double[::1] child_prob = flat.child_prob
        cdef const int32_t[::1] player = flat.player
        cdef const int32_t[::1] infoset = flat.infoset
        cdef const double[:, ::1] utility = flat.utility
        if utility.shape[1] != self.players:
            raise ValueError(f"the tree has {utility.shape[1]} players, these trees "
                             f"{self.players}")
        if episodes < 0:
            raise ValueError(f"episodes must not be negative, got {episodes}")
        cdef int64_t* path_node = <int64_t*> malloc(kind.shape[0] * sizeof(int64_t))
        cdef int32_t* path_move = <int32_t*> malloc(kind.shape[0] * sizeof(int32_t))
        cdef char* out = <char*> malloc(self.players)
        if path_node == NULL or path_move == NULL or out == NULL:
            free(path_node)
            free(path_move)
            free(out)
            raise MemoryError()
        try:
            with nogil:
                self._episodes(kind, child_start, child, child_prob, player, infoset,
                               utility, episodes, path_node, path_move, out)
        finally:
            free(path_node)
            free(path_move)
            free(out)

    cdef int _episodes(self, const int32_t[::1] kind, const int32_t[::1] child_start,
                       const int32_t[::1] child, const double[::1] child_prob,
                       const int32_t[::1] player, const int32_t[::1] infoset,
                       const double[:, ::1] utility, long long episodes,
                       int64_t* path_node, int32_t* path_move, char* out) except -1 nogil:
        cdef long long episode
        cdef int n, p, a, lo, moves, depth, j
        cdef int64_t u
        cdef double z
        for episode in range(episodes):
            for p in range(self.players):
                out[p] = 0
            depth = 0
            n = 0
            while kind[n] != TERMINAL:
                lo = child_start[n]
                moves = child_start[n + 1] - lo
                if kind[n] == CHANCE:
                    z = self._uniform()
                    a = 0
                    while a < moves - 1:
                        z -= child_prob[lo + a]
                        if z < 0.0:
                            break
                        a += 1
                else:
                    p = player[n]
                    if out[p]:
                        a = _below(&self.rng, moves)
                    else:
                        u = self._find(p, <uint64_t> infoset[n])
                        if u < 0:
                            u = self._create(p, <uint64_t> infoset[n], moves)
                            a = _below(&self.rng, moves)
                            out[p] = 1
                        else:
                            a = self._select(&self.nodes[u])
                        path_node[depth] = u
                        path_move[depth] = a
                        depth += 1
                n = child[lo + a]
            for j in range(depth):
                u = path_node[j]
                self._update(&self.nodes[u], path_move[j], utility[n, self.nodes[u].player])
        return 0

    # --- the Python interface ----------------------------------------------------------

    cdef int _player(self, int player) except -1:
        if not 0 <= player < self.players:
            raise IndexError(f"player {player} out of range 0..{self.players - 1}")
        return player

    cdef Node* _node(self, long long node) except NULL:
        if not 0 <= node < self.node_count:
            raise IndexError(f"no node {node}")
        return &self.nodes[node]

    def node(self, int player, key, int moves):
        """The node of ``key`` (an integer, taken modulo 2**64) in ``player``'s
        tree, created with ``moves`` moves when absent (EXPANDTREE)."""
        cdef uint64_t k = <uint64_t> (key & MASK64)
        cdef int64_t u = self._find(self._player(player), k)
        if u >= 0:
            if self.nodes[u].moves != moves:
                raise ValueError(f"node of key {key} has {self.nodes[u].moves} moves, "
                                 f"not {moves}")
            return u
        if moves < 1:
            raise ValueError(f"a node needs at least one move, got {moves}")
        return self._create(player, k, moves)

    def find(self, int player, key):
        """The node of ``key`` in ``player``'s tree, -1 when absent."""
        return self._find(self._player(player), <uint64_t> (key & MASK64))

    def select(self, long long node):
        """SELECT: the index of the move to play at ``node``."""
        return self._select(self._node(node))

    def update(self, long long node, int action, double reward):
        """UPDATE with the return ``reward`` of ``action`` at ``node``."""
        cdef Node* u = self._node(node)
        if not 0 <= action < u.moves:
            raise IndexError(f"node {node} has no move {action}")
        self._update(u, action, reward)

    def eta(self, long long node):
        """The probability that Smooth UCT's SELECT plays UCB at ``node``
        (eq. 3.1; 1 for UCT)."""
        cdef Node* u = self._node(node)
        return self._eta(u) if self.smooth else 1.0

    def visits(self, long long node):
        """N(u)."""
        return self._node(node).visits

    def counts(self, long long node):
        """N(u, a) per move."""
        cdef Node* u = self._node(node)
        return [self.edges[u.first + a].count for a in range(u.moves)]

    def values(self, long long node):
        """Q(u, a) per move."""
        cdef Node* u = self._node(node)
        return [self.edges[u.first + a].value for a in range(u.moves)]

    def average(self, long long node):
        """The average policy N(u, a) / N(u), uniform when N(u) = 0."""
        cdef Node* u = self._node(node)
        if u.visits == 0:
            return [1.0 / u.moves] * u.moves
        return [self.edges[u.first + a].count / <double> u.visits for a in range(u.moves)]

    def size(self, int player):
        """The number of nodes in ``player``'s tree."""
        return self.tables[self._player(player)].used


cdef class SampledSearch(Sampler):
    """Algorithm 1 from histories sampled from a player's belief, in C: what
    :class:`players.imperfect.search.SmoothUCTPlayer` simulates, on the network
    kernel (:mod:`ggp.reasoners._propnet`) and a playout policy (:mod:`players._policy`),
    into ``trees``.  Each role follows its own information-state key down its
    tree; a role that reaches a decision outside its tree adds it, plays at
    random from then on (OUT-OF-TREE), and once every role is out the playout
    finishes in C (the sampling, the keys and the playout are
    :mod:`players._sampling`'s).  It draws the random numbers of the Python
    simulation (:class:`players._sampling.Draws`, the same seed), so both make
    the same simulations (``tests/test_imperfect.py``).

    ``sees``: per role its ``sees`` nodes in order (GDL-II), or None for a
    GDL-I game, where every role sees the joint move; ``chance``: per role,
    whether it is the ``random`` role; rewards are ``(goal - offset) / scale``.
    """

    cdef InfoTrees trees
    cdef bint imperfect
    cdef uint8_t* chance
    cdef int32_t* sees_start    # role r's sees nodes: sees[sees_start[r]:sees_start[r + 1]]
    cdef int32_t* sees
    # scratch for one simulation
    cdef uint64_t* key          # per role
    cdef uint8_t* out
    cdef int32_t* legal         # per role, its legal moves (nmoves + 1 each)
    cdef int32_t* count
    cdef int32_t* joint
    cdef int32_t* seen
    cdef int64_t* path_node     # a node, its move and its role per entry
    cdef int32_t* path_move
    cdef int64_t path_capacity

    def __cinit__(self):
        self.chance = self.out = NULL
        self.sees_start = self.sees = self.legal = self.count = self.joint = self.seen = NULL
        self.key = NULL
        self.path_node = NULL
        self.path_move = NULL

    def __init__(self, InfoTrees trees, Kernel kernel, Policy policy, chance, sees,
                 double scale, double offset, unsigned long long seed):
        cdef int r, i, n = kernel.nroles, total = 0
        if trees.players != n:
            raise ValueError(f"the trees have {trees.players} players, the game {n} roles")
        Sampler.__init__(self, kernel, policy, scale, offset, seed)
        self.trees = trees
        self.imperfect = sees is not None
        self.chance = <uint8_t*> _grow(NULL, n, 1)
        self.out = <uint8_t*> _grow(NULL, n, 1)
        self.sees_start = <int32_t*> _grow(NULL, n + 1, sizeof(int32_t))
        for r in range(n):
            self.chance[r] = bool(chance[r])
            self.sees_start[r] = total
            total += len(sees[r]) if sees is not None else 0
        self.sees_start[n] = total
        self.sees = <int32_t*> _grow(NULL, total + 1, sizeof(int32_t))
        for r in range(n):
            for i in range(self.sees_start[r + 1] - self.sees_start[r]):
                self.sees[self.sees_start[r] + i] = sees[r][i]
        self.seen = <int32_t*> _grow(NULL, total + n + 1, sizeof(int32_t))
        self.key = <uint64_t*> _grow(NULL, n, sizeof(uint64_t))
        self.legal = <int32_t*> _grow(NULL, n * (kernel.nmoves + 1), sizeof(int32_t))
        self.count = <int32_t*> _grow(NULL, n, sizeof(int32_t))
        self.joint = <int32_t*> _grow(NULL, n, sizeof(int32_t))
        self.path_capacity = 64
        self.path_node = <int64_t*> _grow(NULL, self.path_capacity, sizeof(int64_t))
        self.path_move = <int32_t*> _grow(NULL, 2 * self.path_capacity, sizeof(int32_t))

    def __dealloc__(self):
        free(self.chance); free(self.out); free(self.sees_start); free(self.sees)
        free(self.seen); free(self.key); free(self.legal); free(self.count); free(self.joint)
        free(self.path_node); free(self.path_move)

    cdef int _simulate(self) except -1 nogil:
        cdef int nr = self.nroles, r, k, j, a, n, h
        cdef int64_t u, depth = 0, entry
        cdef int32_t* moves
        cdef bint inside
        h = self._start()
        for r in range(nr):
            self.key[r] = self.keys[<int64_t> h * nr + r]
            self.out[r] = False
        while True:
            if self._terminal():
                self._goals()
                break
            inside = False
            for r in range(nr):
                if not (self.out[r] or self.chance[r]):
                    inside = True
            if not inside:
                self._playout()
                break
            for r in range(nr):
                self.count[r] = self.K._legal(r, self.legal + r * (self.K.nmoves + 1))
            for r in range(nr):
                moves = self.legal + r * (self.K.nmoves + 1)
                k = self.count[r]
                if k == 1 or self.chance[r] or self.out[r]:
                    a = _below(&self.rng, k)
                else:
                    u = self.trees._find(r, _decision(self.key[r], moves, k))
                    if u < 0:                   # EXPANDTREE, then roll out
                        u = self.trees._create(r, _decision(self.key[r], moves, k), k)
                        a = _below(&self.rng, k)
                        self.out[r] = True
                    else:
                        a = self.trees._select(&self.trees.nodes[u])
                    if depth == self.path_capacity:
                        self.path_capacity *= 2
                        self.path_node = <int64_t*> _grow(self.path_node, self.path_capacity,
                                                          sizeof(int64_t))
                        self.path_move = <int32_t*> _grow(self.path_move, 2 * self.path_capacity,
                                                          sizeof(int32_t))
                    self.path_node[depth] = u
                    self.path_move[2 * depth] = a
                    self.path_move[2 * depth + 1] = r
                    depth += 1
                self.joint[r] = moves[a]
                self.K.chosen[r] = moves[a]
            self.K._do()
            for r in range(nr):
                if self.out[r] or self.chance[r]:
                    continue
                if self.imperfect:
                    n = 0
                    for j in range(self.sees_start[r], self.sees_start[r + 1]):
                        if self.K.val[self.sees[j]]:
                            self.seen[n] = self.sees[j]
                            n += 1
                else:
                    n = nr
                    memcpy(self.seen, self.joint, nr * sizeof(int32_t))
                self.key[r] = _extend(self.key[r], <uint64_t> <int64_t> self.joint[r],
                                      self.seen, n)
            self.K._advance()
        for entry in range(depth):
            r = self.path_move[2 * entry + 1]
            self.trees._update(&self.trees.nodes[self.path_node[entry]], self.path_move[2 * entry],
                          self.rewards[r])
        return 0
