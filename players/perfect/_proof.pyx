# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""A bounded proof search for forced wins, on the network kernel
(:mod:`ggp.reasoners._propnet`).

Whether a role can force its highest goal within a number of plies, in a
game where one role at a time has a choice: an AND/OR search of the game
tree to that depth, the role's own choices OR nodes (one move that wins is
enough) and every other role's AND nodes (every answer must lose), the ends
read from the rules (a terminal state whose goal for the role is 100 is a
win, any other terminal state is not).  Iterative deepening finds the
shortest such win first.  This is the bounded, exact search beside MCTS that
the strongest players of small-board games run for their tactics: Draper's
local search for forced wins in Sancho (S. Draper, "Local Search in
Breakthrough-like Games", the Sancho GGP player blog, 2015), and the
MCTS-Solver's proved values it feeds (Winands, Björnsson and Saito,
"Monte-Carlo Tree Search Solver", Computers and Games 2008).

What it proves is exact; what it does not prove is unknown (the depth, or
the budget of expansions, ran out, or a state where several roles choose at
once was met).  Work is counted in expansions (states whose legal moves are
read), so the same question with the same budget gets the same answer on any
machine; an instant to give up by, for play on the clock, can only turn a
proof into "unknown".
"""
from libc.math cimport INFINITY
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free

from ggp.reasoners._propnet cimport Kernel
from players._sampling cimport _grown, _now

#: The deepest search, in plies.
DEF MAX_PLIES = 32


cdef class Prover:
    """Forced-win questions on its own ``kernel`` (a copy: it is loaded and
    stepped at will)."""

    cdef Kernel K
    cdef int nroles, nbase, nmoves
    cdef uint8_t* states        # per depth, its state
    cdef int32_t* moves         # per depth, the legal moves of its one role with a choice
    cdef int32_t* fixed         # per depth, every role's one move (the chooser's: unset)
    cdef double* goals
    cdef int64_t budget, used
    cdef double until           # the time.monotonic() instant past which it gives up
    cdef readonly bint exhausted

    def __cinit__(self):
        self.states = NULL
        self.moves = self.fixed = NULL
        self.goals = NULL

    def __init__(self, Kernel kernel):
        self.K = kernel
        self.nroles, self.nbase, self.nmoves = kernel.nroles, kernel.nbase, kernel.nmoves
        self.states = <uint8_t*> _grown(NULL, (MAX_PLIES + 2) * self.nbase + 1)
        self.moves = <int32_t*> _grown(NULL, (MAX_PLIES + 2) * (self.nmoves + 1) * sizeof(int32_t))
        self.fixed = <int32_t*> _grown(NULL, (MAX_PLIES + 2) * self.nroles * sizeof(int32_t))
        self.goals = <double*> _grown(NULL, self.nroles * sizeof(double))

    def __dealloc__(self):
        free(self.states)
        free(self.moves)
        free(self.fixed)
        free(self.goals)

    cdef int _chooser(self, int depth) noexcept nogil:
        """At the state of ``depth`` (loaded): the one role with more than one
        legal move, every other role's one move kept for :meth:`_child`; 0
        when no role has a choice, -2 when several have, -3 when a role has
        none.  The depth's move list is its scratch: the caller reads the
        chooser's moves after it."""
        cdef int r, k, mover = -1
        cdef int32_t* out = self.moves + depth * (self.nmoves + 1)
        for r in range(self.nroles):
            k = self.K._legal(r, out)
            if k == 0:
                return -3
            if k > 1:
                if mover >= 0:
                    return -2
                mover = r
            else:
                self.fixed[depth * self.nroles + r] = out[0]
        return max(mover, 0)

    cdef int _child(self, int depth, int mover, int32_t move) noexcept nogil:
        """Load the state that ``mover`` playing ``move`` leads to from the
        state of ``depth`` (loaded): 1 if it is terminal (its goals in
        ``goals``), else 0."""
        cdef uint8_t* there = self.states + (depth + 1) * self.nbase
        cdef int r
        for r in range(self.nroles):
            self.K.chosen[r] = move if r == mover else self.fixed[depth * self.nroles + r]
        self.K._do()
        self.K._read_next(there)
        self.K._load(there)
        if self.K.term_node >= 0 and self.K.val[self.K.term_node]:
            self.K._best_goals(self.goals)
            return 1
        return 0

    cdef bint _wins(self, int depth, int role, int plies) noexcept nogil:
        """Whether ``role`` forces a goal of 100 within ``plies`` plies from the
        state of ``depth`` (loaded in the kernel)."""
        cdef int mover, j, k
        cdef int32_t* moves = self.moves + depth * (self.nmoves + 1)
        cdef bint mine, won
        if plies <= 0 or depth >= MAX_PLIES:
            return False
        if self.used >= self.budget or self.used % 64 == 0 and _now() > self.until:
            self.used = self.budget
            self.exhausted = True
            return False
        self.used += 1
        mover = self._chooser(depth)
        if mover < 0:
            return False
        k = self.K._legal(mover, moves)
        mine = mover == role
        for j in range(k):
            if j > 0:                            # back to this depth's state
                self.K._load(self.states + depth * self.nbase)
            if self._child(depth, mover, moves[j]):
                won = self.goals[role] >= 100
            else:
                won = plies > 1 and self._wins(depth + 1, role, plies - 1)
            if mine and won:
                return True
            if not mine and not won:
                return False
        return not mine

    cdef void _put(self, const uint8_t[:] state):
        cdef int b
        for b in range(self.nbase):
            self.states[b] = state[b]
        self.K._load(self.states)

    def forced_win(self, const uint8_t[:] state, int role, int plies, long budget,
                   double until=INFINITY):
        """The first move (a move number) of ``role``'s shortest forced win
        within ``plies`` plies from ``state`` (iterative deepening over odd
        depths), when ``role`` alone has a choice there; -1 when none is
        proved within ``budget`` expansions or by the ``time.monotonic()``
        instant ``until`` (``exhausted`` then tells that one ran out)."""
        cdef int p, k
        self.used, self.budget, self.until, self.exhausted = 0, budget, until, False
        self._put(state)
        if self._chooser(0) != role:
            return -1
        k = self.K._legal(role, self.moves)
        if k < 2:
            return -1
        moves = [self.moves[j] for j in range(k)]
        for p in range(1, min(plies, MAX_PLIES) + 1, 2):
            for move in moves:
                self._put(state)
                if self._child(0, role, move):
                    if self.goals[role] >= 100:
                        return move
                elif p > 1 and self._wins(1, role, p - 1):
                    return move
            if self.used >= self.budget:
                self.exhausted = True
                break
        return -1

    def loses(self, const uint8_t[:] state, int role, int move, int opponent, int plies,
              long budget, double until=INFINITY):
        """Whether ``role`` playing ``move`` from ``state`` lets ``opponent``
        force a goal of 100 within ``plies`` plies after it (False when not
        proved within ``budget`` expansions or by ``until``)."""
        cdef int j, k
        self.used, self.budget, self.until, self.exhausted = 0, budget, until, False
        self._put(state)
        if self._chooser(0) != role:
            return False
        k = self.K._legal(role, self.moves)
        if not any(self.moves[j] == move for j in range(k)):
            raise ValueError(f"move {move} is not one of role {role}'s legal moves")
        if self._child(0, role, move):
            return self.goals[opponent] >= 100
        return self._wins(1, opponent, plies)
