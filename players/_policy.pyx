# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Playout policies for Monte Carlo tree search, run whole in C on the
network kernel (:mod:`ggp.reasoners._propnet`), learning from the simulations as in

    M. J. W. Tak, M. H. M. Winands and Y. Björnsson, "N-Grams and the
    Last-Good-Reply Policy Applied in General Game Playing", IEEE Transactions
    on Computational Intelligence and AI in Games 4(2), 2012, pp. 73-83

(below "Tak et al."; "slide N" is a slide of A. Shwartz's presentation of it,
"N-Grams and the Last-Good-Reply Policy in MCTS", 2015) and CadiaPlayer's MAST
(H. Finnsson and Y. Björnsson, "Simulation-Based Approach to General Game
Playing", AAAI 2008).

Moves are the kernel's global move indices.  A simulation is a sequence of
joint moves (one move per role per step): the game's history before the search
root (context only), the tree part, then the playout.  After the simulation,
every move of the tree part and of the playout is credited with the final goal
(0..100, no discount) of the role that played it, whether the simulation ended
in a playout (:meth:`Policy.playout`) or at a terminal state inside the tree
(:meth:`Policy.credit`): CadiaPlayer and Tak et al. update the statistics with
the moves of the whole simulation (Tak et al., slides 22-25: the statistics are
those of the simulations a move was used in).  All roles' statistics live in
one :class:`Policy`.

Statistics (Tak et al., Sections III and IV):

* MAST (Move-Average Sampling Technique): per move m, the reward sum and the
  number of occurrences of m in the credited moves (a move played twice in one
  simulation counts twice); Q(m) is their quotient, 100 for an unseen move.
  Kept in arrays over the moves.
* NST (N-Gram Selection Technique): the N-gram of role r's move m at step t is
  (move of role (r-2) mod n at step t-2, move of role (r-1) mod n at step t-1,
  m): consecutive moves by consecutive players, looking back on earlier steps,
  never on moves of the same step.  Longer N-grams exist only where the earlier
  steps do (context included).  The 1-grams are exactly MAST's statistics; the
  2- and 3-grams are kept in an open-addressing hash table (their mean reward
  and count, in single precision: 16-byte slots halve the cache misses).  The score of a
  move is the average of the average rewards of its N-grams of lengths
  1..max_n, where a 1-gram counts once seen and a longer N-gram once seen at
  least k times; a move with no counted N-gram scores 100.
* LGR (Last-Good-Reply, Tak et al., slide 25; fallback slide 26): after a
  simulation a role *won* when its goal is strictly greater than every other
  role's (one role: goal 100), *lost* when another role's goal is strictly
  greater (one role: goal below 100).  For each credited move m of a winner,
  with the N-gram context (c2, c1) above, ``reply2[(c2, c1)] = m`` (LGR-2) and
  ``reply1[c1] = m`` (LGR-1); with forgetting (slide 25: the replies of a lost
  simulation "are removed from memory"), for a loser those entries that equal m
  are forgotten.  ``replies`` keeps LGR-1, LGR-2 or both.  In a playout, the
  reply to the current context is played when legal (LGR-2 first, then LGR-1),
  else the fallback policy chooses (NST, MAST or random).

MAST and NST scores choose a move by epsilon-greedy (with probability epsilon
a uniformly random move, else one of maximal score, ties broken uniformly at
random) or by Gibbs sampling (probability proportional to exp(score / tau)).
A role with one legal move plays it without any scoring, which keeps the
turn-taking games (where the other role has only noop) cheap.
"""
cimport cython
from libc.math cimport INFINITY, exp
from libc.stdint cimport uint8_t, uint64_t, int32_t
from libc.stdlib cimport calloc, free, realloc
from libc.string cimport memset

from ggp.reasoners._propnet cimport Kernel, _below, _xorshift


cdef enum:
    SCORE_RANDOM = 0    # no scores: uniform choice
    SCORE_MAST = 1      # Q(m), the 1-gram average
    SCORE_NST = 2       # average of the counted N-gram averages
    UNSEEN = 100        # the score of a move without statistics
    TABLE_START = 1024  # initial hash table capacity (a power of two)
    HUGE_PAGE = 1 << 21

cdef double UNIT = 1.0 / 9007199254740992.0    # 2**-53: random 53-bit mantissa to [0, 1)


cdef inline uint64_t _home(const Table* t, uint64_t key) noexcept nogil:
    return (key * 0x9E3779B97F4A7C15ULL) >> t.shift


cdef extern from "sys/mman.h":
    int madvise(void*, size_t, int) nogil
    int MADV_HUGEPAGE


cdef int _table_init(Table* t, uint64_t capacity) except -1 nogil:
    """An empty table of ``capacity`` (a power of two) slots.  A large one
    asks for transparent huge pages: its look-ups are random, and a miss in
    the address translation cache would come on top of every cache miss."""
    t.slots = <Slot*> calloc(capacity, sizeof(Slot))
    if t.slots == NULL:
        with gil:
            raise MemoryError()
    cdef size_t start = ((<size_t> t.slots) + 4095) & ~(<size_t> 4095)     # whole pages
    cdef size_t stop = ((<size_t> t.slots) + capacity * sizeof(Slot)) & ~(<size_t> 4095)
    if stop > start + HUGE_PAGE:
        madvise(<void*> start, stop - start, MADV_HUGEPAGE)
    t.mask = capacity - 1
    t.shift = 64
    while capacity > 1:
        capacity >>= 1
        t.shift -= 1
    t.used = 0
    return 0


cdef extern from *:
    void __builtin_prefetch(const void*) nogil


cdef inline void _prefetch(const Table* t, uint64_t key) noexcept nogil:
    """Start loading the home slot of ``key`` into the cache."""
    __builtin_prefetch(&t.slots[_home(t, key)])


cdef inline Slot* _find(const Table* t, uint64_t key) noexcept nogil:
    """The slot of ``key``, or NULL when absent."""
    cdef uint64_t i = _home(t, key)
    while t.slots[i].key != key:
        if t.slots[i].key == 0:
            return NULL
        i = (i + 1) & t.mask
    return &t.slots[i]


cdef Slot* _get(Table* t, uint64_t key) except NULL nogil:
    """The slot of ``key``, inserted (value zero) when absent."""
    cdef uint64_t i
    if (t.used + 1) * 3 > (t.mask + 1) * 2:
        _grow(t)
    i = _home(t, key)
    while t.slots[i].key != key:
        if t.slots[i].key == 0:
            t.slots[i].key = key        # its value zero: no visits
            t.used += 1
            break
        i = (i + 1) & t.mask
    return &t.slots[i]


cdef int _grow(Table* t) except -1 nogil:
    cdef Slot* old = t.slots
    cdef uint64_t j, i, capacity = t.mask + 1
    _table_init(t, 2 * capacity)
    for j in range(capacity):
        if old[j].key:
            i = _home(t, old[j].key)
            while t.slots[i].key:
                i = (i + 1) & t.mask
            t.slots[i] = old[j]
            t.used += 1
    free(old)
    return 0


cdef inline void _visit(Stat* s, double reward) noexcept nogil:
    """One more visit with ``reward``: the running mean."""
    s.count += 1
    s.mean += (reward - s.mean) / s.count


KINDS = ("random", "mast", "nst", "lgr")
SELECTS = ("egreedy", "gibbs")
FALLBACKS = ("nst", "mast", "random")
REPLIES = ("1", "2", "both")


cdef class Policy:
    """A playout policy and its statistics over one kernel (see the module
    docstring for the definitions, after Tak et al. 2012).

    ``kind`` is ``"random"``, ``"mast"``, ``"nst"`` or ``"lgr"``; ``select``
    (``"egreedy"`` with ``epsilon``, or ``"gibbs"`` with temperature ``tau``) is
    how MAST and NST scores pick a move; ``k`` is the number of visits before
    an N-gram of length 2 or 3 counts and ``max_n`` (1..3) the longest N-gram;
    ``fallback`` (``"nst"``, ``"mast"`` or ``"random"``) is what LGR plays
    without a legal reply, and LGR keeps that policy's statistics too;
    ``replies`` (``"1"``, ``"2"`` or ``"both"``) the replies LGR keeps (to the
    last move, to the last two, or both) and ``forget`` whether a lost
    simulation forgets its replies.
    ``decisive``: in a step where one role has a choice, a move of its that
    wins at once is played, whatever the policy picked (decisive moves:
    Teytaud and Teytaud, "On the Huge Benefit of Decisive Moves in
    Monte-Carlo Tree Search Algorithms", IEEE CIG 2010); the kernel must be
    one of ``CompiledMachine.decisive_kernel()`` (each of the role's legal
    moves is tried by setting its does input and reading whether the next
    state is terminal with the role's goal 100).
    ``seed`` seeds the policy's own random numbers (xorshift64, as the
    kernel's): the same seed and calls give the same results on a kernel with
    the same history (the kernel keeps legal moves in an order that depends on
    the states it went through, and a random pick is a position in that order).
    """

    def __cinit__(self):
        self.mast_sum = self.mast_count = self.q = self.score = NULL
        self.reply1 = self.prev = self.seq = self.cand = self.cand_pos = self.parts = NULL
        self.vstart = self.victims = self.caps = NULL
        self.wins = self.threat = NULL
        self.worth = NULL
        self.greed = 0.0
        self.ngrams.slots = self.reply2.slots = NULL

    def __init__(self, Kernel kernel, str kind="random", *, str select="egreedy",
                 double epsilon=0.4, double tau=10.0, int k=7, int max_n=3,
                 str fallback="nst", str replies="both", bint forget=True,
                 bint decisive=False, unsigned long long seed=0):
        cdef int m, r
        if kind not in KINDS:
            raise ValueError(f"unknown policy kind {kind!r}: expected one of {', '.join(KINDS)}")
        if select not in SELECTS:
            raise ValueError(f"unknown selection {select!r}: expected one of {', '.join(SELECTS)}")
        if fallback not in FALLBACKS:
            raise ValueError(f"unknown LGR fallback {fallback!r}: "
                             f"expected one of {', '.join(FALLBACKS)}")
        if replies not in REPLIES:
            raise ValueError(f"unknown LGR replies {replies!r}: "
                             f"expected one of {', '.join(REPLIES)}")
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {epsilon}")
        if not tau > 0.0:
            raise ValueError(f"tau must be positive, got {tau}")
        if not 1 <= max_n <= 3:
            raise ValueError(f"max_n must be 1, 2 or 3, got {max_n}")
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        if not 1 <= kernel.nroles <= 64:
            raise ValueError(f"a policy needs 1 to 64 roles, the game has {kernel.nroles}")
        if decisive and not kernel.wins:
            raise ValueError("decisive playouts need a kernel that reads wins "
                             "(CompiledMachine.decisive_kernel())")
        self.kernel = kernel
        self.decisive = decisive
        self.kind, self.select, self.fallback, self.replies = kind, select, fallback, replies
        self.forget = forget
        self.epsilon, self.tau, self.k, self.max_n = epsilon, tau, k, max_n
        self.nroles, self.nmoves = kernel.nroles, kernel.nmoves
        self.width = kernel.nmoves + 1
        self.gibbs = select == "gibbs"
        scored = fallback if kind == "lgr" else kind
        self.scorer = {"random": SCORE_RANDOM, "mast": SCORE_MAST, "nst": SCORE_NST}[scored]
        if self.scorer == SCORE_NST and max_n == 1:
            self.scorer = SCORE_MAST            # NST over 1-grams only is MAST
        self.keep_mast = self.scorer != SCORE_RANDOM
        self.keep_ngrams = self.scorer == SCORE_NST
        self.keep_replies = kind == "lgr"
        self.lgr1 = self.keep_replies and replies != "2"
        self.lgr2 = self.keep_replies and replies != "1"
        self.rng = seed * 6364136223846793005ULL + 1442695040888963407ULL
        if self.rng == 0:
            self.rng = 88172645463325252ULL
        n = max(self.nmoves, 1)
        self.mast_sum = <double*> _alloc(n * sizeof(double))
        self.mast_count = <double*> _alloc(n * sizeof(double))
        self.q = <double*> _alloc(n * sizeof(double))
        self.score = <double*> _alloc(n * sizeof(double))
        self.parts = <int32_t*> _alloc(n * sizeof(int32_t))
        self.reply1 = <int32_t*> _alloc(n * sizeof(int32_t))
        self.cand = <int32_t*> _alloc(n * sizeof(int32_t))
        self.cand_pos = <int32_t*> _alloc(n * sizeof(int32_t))
        self.prev = <int32_t*> _alloc(2 * self.nroles * sizeof(int32_t))
        for m in range(self.nmoves):
            self.q[m] = UNSEEN
            self.reply1[m] = -1
            self.cand_pos[m] = -1
        for r in range(self.nroles):
            self.prev[2 * r] = (r + self.nroles - 1) % self.nroles
            self.prev[2 * r + 1] = (r + 2 * self.nroles - 2) % self.nroles
        if self.keep_ngrams:
            _table_init(&self.ngrams, TABLE_START)
        if self.keep_replies:
            _table_init(&self.reply2, TABLE_START)
        self._reserve(64)

    def __dealloc__(self):
        free(self.mast_sum); free(self.mast_count); free(self.q); free(self.score)
        free(self.reply1); free(self.cand); free(self.cand_pos); free(self.prev); free(self.parts)
        free(self.seq); free(self.ngrams.slots); free(self.reply2.slots)
        free(self.vstart); free(self.victims); free(self.caps); free(self.wins)
        free(self.worth); free(self.threat)

    def greedy(self, victims, double greed, wins=(), worth=None, threats=()):
        """Play a capture, when the mover has one, with probability ``greed``
        (uniformly among them; else the policy picks as before): capture-first
        playouts, the kind Lorentz and Horey found strong in Breakthrough
        ("Programming Breakthrough", Computers and Games 2013) and Sancho
        plays as its greedy rollouts.  ``victims`` holds per move number the
        base propositions (indices) that the move takes when they hold: a
        move is a capture in a state where one of its victims is true.
        ``wins`` lists moves that win at once: one of them, when legal, is
        played before any capture (decisive moves, Teytaud and Teytaud 2010,
        here read from a table, not tried step by step), whatever ``greed``
        (above 0) draws.  With ``worth`` (a value per base proposition) only
        the captures whose most valuable victim holding is worth the most
        are drawn from: the "most valuable victim" ordering of chess
        programs' capture searches.
        (:func:`players.perfect.rules.move_lessons` learns both.)"""
        cdef int m, j, n = 0
        if len(victims) != self.nmoves:
            raise ValueError(f"victims for {len(victims)} moves; the kernel has {self.nmoves}")
        if not 0.0 <= greed <= 1.0:
            raise ValueError(f"greed must be in [0, 1], got {greed}")
        if worth is not None and len(worth) != self.kernel.nbase:
            raise ValueError(f"worth for {len(worth)} propositions; "
                             f"the kernel has {self.kernel.nbase}")
        for m in wins:
            if not 0 <= m < self.nmoves:
                raise ValueError(f"move {m} is not a move number of the kernel")
        for j in threats:
            if not 0 <= j < self.kernel.nbase:
                raise ValueError(f"threat {j} is not a base proposition of the kernel")
        # every argument checked: nothing below raises but for memory
        free(self.vstart); free(self.victims); free(self.caps); free(self.wins)
        free(self.worth); free(self.threat)
        self.vstart = self.victims = self.caps = NULL
        self.wins = self.threat = NULL
        self.worth = NULL
        self.greed = 0.0                        # off until every table is in place
        if len(threats):
            self.threat = <uint8_t*> _alloc((self.kernel.nbase + 1) * sizeof(uint8_t))
            for j in range(self.kernel.nbase):
                self.threat[j] = 0
            for j in threats:
                self.threat[j] = 1
        if worth is not None:
            self.worth = <double*> _alloc((self.kernel.nbase + 1) * sizeof(double))
            for j in range(self.kernel.nbase):
                self.worth[j] = worth[j]
        self.wins = <uint8_t*> _alloc((self.nmoves + 1) * sizeof(uint8_t))
        for m in range(self.nmoves):
            self.wins[m] = 0
        for m in wins:
            self.wins[m] = 1
        self.vstart = <int32_t*> _alloc((self.nmoves + 1) * sizeof(int32_t))
        self.victims = <int32_t*> _alloc((sum(len(v) for v in victims) + 1) * sizeof(int32_t))
        self.caps = <int32_t*> _alloc((self.nmoves + 1) * sizeof(int32_t))
        for m in range(self.nmoves):
            self.vstart[m] = n
            for j in victims[m]:
                self.victims[n] = j
                n += 1
        self.vstart[self.nmoves] = n
        self.greed = greed

    # --- choosing a move ------------------------------------------------------
    cdef inline uint64_t _key(self, int c2, int c1, int m) noexcept nogil:
        """The hash key of the N-gram (c2, c1, m); c2 = -1 for a 2-gram.
        Never 0, and distinct for distinct N-grams."""
        return ((<uint64_t> (c2 + 1) * self.width) + <uint64_t> (c1 + 1)) * self.width + (m + 1)

    cdef inline void _context(self, const int32_t* row, int t, int r, int* c1, int* c2) noexcept nogil:
        """The N-gram context of role r at step t of seq (``row`` its moves):
        c1 = the move of role (r-1) mod n at step t-1, c2 = that of role
        (r-2) mod n at step t-2, -1 where the step does not exist."""
        c1[0] = row[self.prev[2 * r] - self.nroles] if t >= 1 else -1
        c2[0] = row[self.prev[2 * r + 1] - 2 * self.nroles] if t >= 2 else -1

    cdef inline double _uniform(self) noexcept nogil:
        return (_xorshift(&self.rng) >> 11) * UNIT

    cdef void _scores(self, const int32_t* cand, int k, int c1, int c2) noexcept nogil:
        """The scores of the k candidates into ``score``: MAST's Q(m), or NST's
        average of m's counted N-gram averages.

        A 2-gram is never seen more often than its 1-gram, nor a 3-gram more
        often than its 2-gram, so a longer N-gram is looked up only when the
        shorter one reached k visits.  The look-ups go in rounds (1-grams, then
        2-grams, then 3-grams), each slot prefetched a round ahead, so that the
        cache misses of a large table overlap instead of following each other.
        """
        cdef int i, m
        cdef const Slot* s
        cdef double* score = self.score
        cdef int32_t* parts = self.parts    # N-grams counted so far; 0: no look-up due
        for i in range(k):
            score[i] = self.q[cand[i]]
            parts[i] = 0
        if self.scorer != SCORE_NST or c1 < 0:
            return
        for i in range(k):
            if self.mast_count[cand[i]] >= self.k:
                _prefetch(&self.ngrams, self._key(-1, c1, cand[i]))
                parts[i] = 1
        for i in range(k):
            if parts[i]:
                m = cand[i]
                s = _find(&self.ngrams, self._key(-1, c1, m))
                if s == NULL or s.v.stat.count < self.k:
                    parts[i] = 0
                    continue
                score[i] += s.v.stat.mean
                parts[i] = 2
                if c2 >= 0 and self.max_n >= 3:
                    _prefetch(&self.ngrams, self._key(c2, c1, m))
        for i in range(k):
            if parts[i]:
                s = NULL
                if c2 >= 0 and self.max_n >= 3:
                    s = _find(&self.ngrams, self._key(c2, c1, cand[i]))
                if s != NULL and s.v.stat.count >= self.k:
                    score[i] = (score[i] + s.v.stat.mean) * (1.0 / 3.0)
                else:
                    score[i] *= 0.5

    cdef int _greedy(self, const int32_t* cand, int k) noexcept nogil:
        """A candidate of maximal score, ties broken uniformly at random."""
        cdef int i, choice = 0, ties = 1
        cdef double* score = self.score
        for i in range(1, k):
            if score[i] > score[choice]:
                choice, ties = i, 1
            elif score[i] == score[choice]:
                ties += 1
                if _below(&self.rng, ties) == 0:
                    choice = i
        return cand[choice]

    cdef int _boltzmann(self, const int32_t* cand, int k) noexcept nogil:
        """A candidate drawn with probability proportional to exp(score / tau)
        (Gibbs sampling; scores shifted by their maximum against overflow)."""
        cdef int i
        cdef double top = self.score[0], total = 0.0, x
        cdef double* w = self.score
        for i in range(1, k):
            if w[i] > top:
                top = w[i]
        for i in range(k):
            w[i] = exp((w[i] - top) / self.tau)
            total += w[i]
        x = self._uniform() * total
        for i in range(k - 1):
            x -= w[i]
            if x < 0:
                return cand[i]
        return cand[k - 1]

    cdef int _pick(self, int r, const int32_t* cand, int k, const int32_t* pos,
                   int c1, int c2) noexcept nogil:
        """Role r's move among the k candidates ``cand`` (``pos[m] >= 0`` iff m
        is one), given the context (c2, c1): the one shared chooser of playouts
        and :meth:`choose`."""
        cdef const Slot* s
        cdef int m
        if k == 1:
            return cand[0]
        if self.keep_replies and c1 >= 0:
            if self.lgr2 and c2 >= 0:
                s = _find(&self.reply2, self._key(-1, c2, c1))
                if s != NULL and s.v.reply >= 0 and pos[s.v.reply] >= 0:
                    return s.v.reply
            m = self.reply1[c1] if self.lgr1 else -1
            if m >= 0 and pos[m] >= 0:
                return m
        if self.scorer == SCORE_RANDOM:
            return cand[_below(&self.rng, k)]
        if not self.gibbs and self._uniform() < self.epsilon:
            return cand[_below(&self.rng, k)]
        self._scores(cand, k, c1, c2)
        if self.gibbs:
            return self._boltzmann(cand, k)
        return self._greedy(cand, k)

    # --- simulations --------------------------------------------------------
    cdef int _reserve(self, int steps) except -1 nogil:
        """Make room in seq for ``steps`` joint moves."""
        cdef int32_t* grown
        if steps <= self.seq_steps:
            return 0
        grown = <int32_t*> realloc(self.seq, (<size_t> steps) * self.nroles * sizeof(int32_t) + 8)
        if grown == NULL:
            with gil:
                raise MemoryError()
        self.seq, self.seq_steps = grown, steps
        return 0

    cdef int _run(self, int t, int max_steps, bint* cut) noexcept nogil:
        """Play from the kernel's current state, seq holding t steps before it,
        until terminal (or max_steps, or a role without legal moves: ``cut``).
        Returns the number of steps played, appended to seq."""
        cdef int n = self.nroles, depth = 0, r, k, c1, c2, mover, win
        cdef int32_t* row
        cdef const int32_t* cand
        while not (self.kernel.term_node >= 0 and self.kernel.val[self.kernel.term_node]):
            if depth >= max_steps:
                cut[0] = True
                return depth
            row = self.seq + (t + depth) * n
            mover = -1
            for r in range(n):
                k = self.kernel.legal_count[r]
                if k == 0:
                    cut[0] = True
                    return depth
                cand = self.kernel.legal_list + self.kernel.role_start[r]
                if k == 1:                      # forced: not even a context to read
                    row[r] = cand[0]
                else:
                    self._context(row, t + depth, r, &c1, &c2)
                    row[r] = -1
                    if self.greed > 0:
                        row[r] = self._capture(cand, k, self._uniform() < self.greed)
                    if row[r] < 0:
                        row[r] = self._pick(r, cand, k, self.kernel.legal_pos, c1, c2)
                    mover = r if mover == -1 else -2
                self.kernel.chosen[r] = row[r]
            if self.decisive and mover >= 0:
                cand = self.kernel.legal_list + self.kernel.role_start[mover]
                win = self.kernel._decisive(mover, cand, self.kernel.legal_count[mover])
                if win >= 0:
                    row[mover] = cand[win]
                self.kernel.chosen[mover] = row[mover]
            self.kernel._do()
            self.kernel._advance()
            depth += 1
        return depth

    cdef int _capture(self, const int32_t* cand, int k, bint take) noexcept nogil:
        """The first of the ``k`` moves ``cand`` that wins at once; else one
        that takes a threat holding in the kernel's state (uniformly); else
        with ``take`` one that takes any victim holding (uniformly; with
        ``worth``, among those taking the most); -1 when there is none
        (:meth:`greedy`)."""
        cdef int i, j, m, b, n = 0
        cdef double top, best = -INFINITY
        for i in range(k):
            if self.wins[cand[i]]:
                return cand[i]
        if self.threat != NULL:
            for i in range(k):
                m = cand[i]
                for j in range(self.vstart[m], self.vstart[m + 1]):
                    b = self.victims[j]
                    if self.threat[b] and self.kernel.val[self.kernel.base_node[b]]:
                        self.caps[n] = m
                        n += 1
                        break
            if n:
                return self.caps[_below(&self.rng, n)]
        if not take:
            return -1
        for i in range(k):
            m = cand[i]
            top = -INFINITY
            for j in range(self.vstart[m], self.vstart[m + 1]):
                b = self.victims[j]
                if self.kernel.val[self.kernel.base_node[b]]:
                    if self.worth == NULL:
                        top = 0.0
                        break
                    top = max(top, self.worth[b])
            if top == -INFINITY:
                continue
            if top > best:
                best, n = top, 0
            if top == best:
                self.caps[n] = m
                n += 1
        return self.caps[_below(&self.rng, n)] if n else -1

    cdef int _credit(self, int t0, int t1, const double* goals) except -1 nogil:
        """Update the statistics with steps t0..t1-1 of seq and the final goals."""
        cdef int n = self.nroles, t, r, m, c1, c2, j
        cdef double g
        cdef const int32_t* row
        cdef Slot* s
        cdef int32_t[64] outcome        # per role: 1 won, -1 lost, 0 neither (LGR)
        for r in range(n):
            outcome[r] = 1 if n > 1 or goals[r] == 100 else -1
            for j in range(n):
                if j != r and goals[j] > goals[r]:
                    outcome[r] = -1
                    break
                if j != r and goals[j] == goals[r]:
                    outcome[r] = 0
        for t in range(t0, t1):
            row = self.seq + t * n
            for r in range(n):
                m, g = row[r], goals[r]
                if self.keep_mast:
                    self.mast_sum[m] += g
                    self.mast_count[m] += 1
                    self.q[m] = self.mast_sum[m] / self.mast_count[m]
                self._context(row, t, r, &c1, &c2)
                if c1 < 0:
                    continue
                if self.keep_ngrams:
                    _visit(&_get(&self.ngrams, self._key(-1, c1, m)).v.stat, g)
                    if c2 >= 0 and self.max_n >= 3:
                        _visit(&_get(&self.ngrams, self._key(c2, c1, m)).v.stat, g)
                if self.keep_replies and outcome[r] > 0:
                    if self.lgr1:
                        self.reply1[c1] = m
                    if self.lgr2 and c2 >= 0:
                        _get(&self.reply2, self._key(-1, c2, c1)).v.reply = m
                elif self.keep_replies and outcome[r] < 0 and self.forget:
                    if self.reply1[c1] == m:
                        self.reply1[c1] = -1
                    if self.lgr2 and c2 >= 0:
                        s = _find(&self.reply2, self._key(-1, c2, c1))
                        if s != NULL and s.v.reply == m:
                            s.v.reply = -1
        return 0

    cdef int _put(self, int t, joint) except -1:
        """Write a joint move given from Python as step t of seq, checked."""
        if len(joint) != self.nroles:
            raise ValueError(f"a joint move needs {self.nroles} moves, got {joint!r}")
        cdef int r, m
        for r in range(self.nroles):
            m = joint[r]
            if not 0 <= m < self.nmoves or self.kernel.move_role[m] != r:
                raise ValueError(f"{m} is not a move of role {r} (joint move {joint!r})")
            self.seq[t * self.nroles + r] = m
        return 0

    cdef int _path(self, path, int credit_from, int room) except -1:
        """Write ``path`` into seq, with room for ``room`` steps more, and return
        the number of steps written: the path from two steps before its first
        credited one (older history is no context any more), so that the
        credited steps start at step ``min(credit_from, 2)`` of seq."""
        cdef int start, known, t
        if not 0 <= credit_from <= len(path):
            raise ValueError(f"credit_from={credit_from} outside the path (length {len(path)})")
        start = max(0, credit_from - 2)
        known = len(path) - start
        self._reserve(known + room)
        for t in range(known):
            self._put(t, path[start + t])
        return known

    def playout(self, const uint8_t[:] state, path, int credit_from=0, int max_steps=10000,
                bint record=False):
        """One playout from ``state`` with this policy, in C; then the statistics
        are updated with the credited moves and the final goals.

        ``path`` lists the joint moves (tuples of move indices in role order)
        that led to ``state``: its first ``credit_from`` are context only (the
        game's history before the search root, for N-gram and reply contexts),
        the rest (the tree part of the simulation) are credited with the
        playout's moves.  Returns (goals per role, playout steps, cut: whether
        max_steps was hit or a role had no legal move), and with ``record`` also
        the playout's joint moves.  The goals of a cut playout are those of the
        state where it stopped, and are credited all the same.  From a terminal
        ``state`` no step is played: the path alone is credited with its goals.
        """
        cdef int n = self.nroles, known, depth, r, t
        cdef bint cut = False
        cdef double[64] goals
        if max_steps < 0:
            raise ValueError(f"max_steps must be >= 0, got {max_steps}")
        known = self._path(path, credit_from, max_steps)
        if self.kernel.nbase:
            self.kernel._load(&state[0])
        else:
            self.kernel._load(NULL)
        depth = self._run(known, max_steps, &cut)
        self.kernel._last_goals(goals)
        self._credit(min(credit_from, 2), known + depth, goals)
        result = ([<int> goals[r] for r in range(n)], depth, cut)
        if record:
            result += ([tuple(self.seq[(known + t) * n + r] for r in range(n))
                        for t in range(depth)],)
        return result

    def credit(self, path, int credit_from, goals):
        """Update the statistics with the joint moves of ``path`` after its first
        ``credit_from`` (context only, as in :meth:`playout`) and ``goals`` (per
        role): a simulation that reached a terminal state inside the search
        tree, without a playout.  The statistics learn from it all the same
        (Tak et al., slides 22-25)."""
        cdef int n = self.nroles, known, r
        cdef double[64] g
        if len(goals) != n:
            raise ValueError(f"goals for {n} roles needed, got {goals!r}")
        known = self._path(path, credit_from, 0)
        for r in range(n):
            g[r] = goals[r]
        self._credit(min(credit_from, 2), known, g)

    def choose(self, int role, candidates, context):
        """The policy's pick among ``candidates`` (distinct moves of ``role``,
        e.g. a tree node's unexpanded moves), given ``context``, the earlier
        joint moves (most recent last) for N-gram and reply contexts."""
        cdef int k = 0, i, m, c1 = -1, c2 = -1, n = self.nroles
        if not 0 <= role < n:
            raise ValueError(f"no role {role} (the game has {n})")
        if len(candidates) == 0:
            raise ValueError("no candidates to choose from")
        try:
            for m in candidates:
                if not 0 <= m < self.nmoves or self.kernel.move_role[m] != role:
                    raise ValueError(f"{m} is not a move of role {role}")
                if self.cand_pos[m] >= 0:
                    raise ValueError(f"move {m} is a candidate twice")
                self.cand[k] = m
                self.cand_pos[m] = k
                k += 1
            i = len(context)
            if i >= 1:
                c1 = context[i - 1][self.prev[2 * role]]
            if i >= 2:
                c2 = context[i - 2][self.prev[2 * role + 1]]
            if not (-1 <= c1 < self.nmoves and -1 <= c2 < self.nmoves):
                raise ValueError(f"bad move index in the last two steps of context {context!r}")
            return self._pick(role, self.cand, k, self.cand_pos, c1, c2)
        finally:
            for i in range(k):
                self.cand_pos[self.cand[i]] = -1

    def decay(self, double factor):
        """Multiply every MAST and N-gram count and reward sum by ``factor``
        (0 clears them); the LGR replies are kept."""
        cdef int m
        cdef uint64_t i
        if factor < 0:
            raise ValueError(f"decay factor must be >= 0, got {factor}")
        for m in range(self.nmoves):
            self.mast_sum[m] *= factor
            self.mast_count[m] *= factor
            if factor == 0:
                self.q[m] = UNSEEN
        if self.keep_ngrams and factor == 0:
            memset(self.ngrams.slots, 0, (self.ngrams.mask + 1) * sizeof(Slot))
            self.ngrams.used = 0
        elif self.keep_ngrams:
            for i in range(self.ngrams.mask + 1):
                self.ngrams.slots[i].v.stat.count *= factor

    # --- inspection ---------------------------------------------------------
    def mast(self, int m):
        """(reward sum, count) of move m: its MAST statistics (NST's 1-gram)."""
        if not 0 <= m < self.nmoves:
            raise ValueError(f"no move {m}")
        return self.mast_sum[m], self.mast_count[m]

    def ngram(self, tuple moves):
        """(reward sum, count) of the N-gram ``(m,)``, ``(c1, m)`` or ``(c2, c1, m)``
        (a 2- or 3-gram's sum is its mean times its count)."""
        cdef const Slot* s
        cdef int n = len(moves)
        if not 1 <= n <= 3 or not all(0 <= m < self.nmoves for m in moves):
            raise ValueError(f"an N-gram is 1 to 3 move indices, got {moves!r}")
        if n == 1:
            return self.mast(moves[0])
        if not self.keep_ngrams:
            return 0.0, 0.0
        s = _find(&self.ngrams, self._key(moves[0] if n == 3 else -1, moves[n - 2], moves[n - 1]))
        if s == NULL:
            return 0.0, 0.0
        return <double> s.v.stat.mean * s.v.stat.count, <double> s.v.stat.count

    def reply(self, tuple context):
        """The stored reply to ``(c1,)`` (LGR-1) or ``(c2, c1)`` (LGR-2), or -1."""
        cdef const Slot* s
        if not 1 <= len(context) <= 2 or not all(0 <= m < self.nmoves for m in context):
            raise ValueError(f"a reply context is 1 or 2 move indices, got {context!r}")
        if not self.keep_replies:
            return -1
        if len(context) == 1:
            return self.reply1[context[0]]
        s = _find(&self.reply2, self._key(-1, context[0], context[1]))
        return s.v.reply if s != NULL else -1


cdef void* _alloc(size_t size) except NULL:
    cdef void* p = calloc(size + 8, 1)
    if p == NULL:
        raise MemoryError()
    return p
