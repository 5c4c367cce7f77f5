"""The searches the MCTS players run: on the compiled reasoner's kernel
(:class:`CompiledSearch`, whose trees live in C, :class:`Forest`) or on any
state machine in Python (:class:`ReferenceSearch`), chosen by
:func:`search_for`.  The players themselves are in :mod:`players.perfect.mcts`;
:mod:`players.perfect.evaluation` runs these searches for its self-play games.
"""

from __future__ import annotations

import math
import random
import time
import warnings
from dataclasses import dataclass

#: Nodes added per move at most: past it, simulations play out from leaves.
MAX_NODES = 1_000_000

#: UCB1's constant and the discount a ply of the ``uct`` player's defaults
#: (their sources: :mod:`players.perfect.mcts`).
C = 40.0
DISCOUNT = 0.999


@dataclass(frozen=True)
class TreeOptions:
    """What a C tree (:class:`players.perfect._tree.SearchTree`) searches
    with, read once when it is built.  UCB1's constant ``c``, the
    ``discount`` of the backed-up goal a ply, ``transpositions`` and the
    nodes a move may add (``max_nodes``) are the Python tree's too; the rest
    only the C tree has: MCTS-Solver (``solver``) and its ``tactics``,
    RAVE's equivalence parameter ``rave``, ``leaf`` playouts a new leaf in
    the lanes, playouts cut after ``early`` plies and scored by the goals,
    and the ``evaluation`` (weights, bias, scale, and lines when it has
    them: :mod:`players.perfect.heuristic`, :mod:`players.perfect.rules`)
    with what uses it: its weight ``heuristic`` in a new leaf's value,
    ``prior`` virtual visits, the implicit minimax weight ``imm`` with
    ``quiesce`` plies of captures, and playouts cut after ``cutoff`` plies.
    The :class:`players.perfect.mcts.MCTSPlayer` parameters of the same
    names describe each (``heuristic`` is the tree's ``alpha``); the
    defaults are the ``uct`` player's, every option off."""

    c: float = C
    discount: float = DISCOUNT
    transpositions: bool = False
    max_nodes: int = MAX_NODES
    solver: bool = False
    tactics: bool = False
    rave: float = 0.0
    leaf: int = 1
    early: int = 0
    evaluation: tuple | None = None
    heuristic: float = 0.0
    prior: int = 0
    imm: float = 0.0
    quiesce: int = 0
    cutoff: int = 0


class Forest:
    """The C trees of a search (:mod:`players.perfect._tree`), built with
    ``options``: one, or one more per seed of ``seeds`` searching in parallel
    from the same root, each on its own copy of the kernel with its own
    playout policy and seed, their root statistics summed when the move is
    chosen (root parallelism: Chaslot, Winands and van den Herik, "Parallel
    Monte-Carlo Tree Search", Computers and Games 2008).  The trees run in
    threads without the interpreter lock."""

    def __init__(self, search, root, options: TreeOptions, seeds=()):
        from players.perfect._tree import SearchTree

        self.searches = [search] + [search.fork(seed) for seed in seeds]
        self.trees = [
            SearchTree(s.kernel, s.policy, root, options, **s.lanes(options.leaf))
            for s in self.searches
        ]

    def run(self, budget: int, until: float) -> int:
        """Simulations until ``budget`` (split between the trees; -1: none) or
        the ``until`` instant; returns how many ran."""
        if len(self.trees) == 1:
            return self.trees[0].run(budget, until)
        import threading

        k = len(self.trees)
        shares = [-1] * k if budget < 0 else [budget // k + (i < budget % k) for i in range(k)]
        done = [0] * k

        def work(i):
            done[i] = self.trees[i].run(shares[i], until)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(k)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return sum(done)

    def root_moves(self, r) -> tuple:
        """Role ``r``'s root rows (moves, visits, sums, best rewards), summed over the trees."""
        rows = [t.root_moves(r) for t in self.trees]
        moves = rows[0][0]
        return (
            moves,
            [sum(x) for x in zip(*(row[1] for row in rows))],
            [sum(x) for x in zip(*(row[2] for row in rows))],
            [max(x) for x in zip(*(row[3] for row in rows))],
        )

    def root_proofs(self, r) -> list:
        """Per root move of role ``r``: ``(goal, plies)`` under best play when
        a tree's solver knows them, else None."""
        rows = [t.root_proofs(r) for t in self.trees]
        return [next((x for x in column if x is not None), None) for column in zip(*rows)]

    def root_values(self, r) -> list:
        """Per root move of role ``r``: its implicit minimax value (``imm``) in
        the first tree, else None."""
        return self.trees[0].root_values(r)

    def advance(self, joint, state):
        for t in self.trees:
            t.advance(joint, state)

    def restart(self, state):
        for t in self.trees:
            t.restart(state)

    def new_move(self):
        for t in self.trees:
            t.new_move()

    def decay(self, factor):
        for s in self.searches:
            s.decay(factor)


def search_for(steps, playout, params, seed, wins=False):
    """The search for a player's :class:`players.belief.Steps` (its reasoner);
    ``wins``: on a kernel that reads wins (``Kernel._decisive``)."""
    if steps.compiled:
        return CompiledSearch(steps, playout, params, seed, wins)
    return ReferenceSearch(steps, playout, seed, params)


#: How many times the slowest question so far a search keeps in hand before
#: its deadline: on the demand-driven reasoner one state's questions take
#: 0.15-0.4 s on corpus/alexChess, and a position can cost twice the slowest
#: one seen before it (the corpus harness: answers 0.01-0.28 s past a 1 s
#: clock with a headroom of one).
HEADROOM = 2


class _Search:
    """What every search answers through the player's steps: moves in the
    reasoner's numbering, and expansions.  ``step_seconds`` is the longest
    one question (a step, a state's legal moves) has taken it; 0 where they
    take microseconds (the compiled reasoner's searches do not time them).
    ``until`` is the instant (``time.monotonic()``) its simulations stop by,
    set by the player thinking on the clock."""

    step_seconds = 0.0
    until = math.inf

    def __init__(self, steps):
        self.steps, self.sm = steps, steps.sm

    def in_time(self, now: float | None = None) -> bool:
        """Whether a question may be asked at ``now`` (by default, now): not
        when :data:`HEADROOM` times the slowest so far could end past
        :attr:`until`."""
        now = time.monotonic() if now is None else now
        return now + HEADROOM * self.step_seconds <= self.until

    def ids(self, joint):
        return tuple(self.steps.move_id(r, m) for r, m in enumerate(joint))

    def move(self, r, m):
        return self.steps.move(r, m)

    def expand(self, state):
        """(terminal, goals if terminal, legal moves per role if not)."""
        legal = self.steps.legal(state)
        if legal is None:
            return True, self.steps.goals(state), None
        return False, None, legal


class CompiledSearch(_Search):
    """Search questions answered by the compiled reasoner's kernel; moves are
    the kernel's move numbers, playouts run in C with the named policy."""

    def __init__(self, steps, playout, params, seed, wins=False):
        from players._policy import Policy

        super().__init__(steps)
        self.kernel = steps.sm.decisive_kernel() if wins else steps.kernel
        self.kind, self.params, self.seed = playout, params, seed
        self.policy = Policy(self.kernel, playout, seed=seed, **params)
        self.captures = None  # greedy's arguments (capture-first playouts), or None

    def greedy(self, victims, greed, wins=(), worth=None, threats=()):
        """Playouts that play a winning move, take a threat, and take a
        capture first with probability ``greed``
        (:meth:`players._policy.Policy.greedy`), forks included."""
        self.captures = victims, greed, wins, worth, threats
        self.policy.greedy(victims, greed, wins, worth, threats)

    def lanes(self, leaf: int) -> dict:
        """The leaf-parallel keyword arguments of a C tree playing ``leaf``
        playouts a new leaf: lanes of its own and their seed, or none for one
        playout a leaf on the kernel."""
        if leaf <= 1:
            return {}
        return {"lanes": self.sm.new_lanes(), "seed": self.seed}

    def fork(self, seed) -> CompiledSearch:
        """The same search on a copy of the kernel, with a policy of its own."""
        from players._policy import Policy

        other = CompiledSearch.__new__(CompiledSearch)
        other.__dict__.update(self.__dict__)
        other.kernel = self.kernel.copy()
        other.seed = seed
        other.policy = Policy(other.kernel, self.kind, seed=seed, **self.params)
        if self.captures is not None:
            other.policy.greedy(*self.captures)
        return other

    def next(self, state, joint):
        return self.kernel.next_state(state, joint)

    def playout(self, state, history, joints):
        """Goals and depth of one playout; history and tree moves give the
        policy its context and its credit."""
        context = history[-2:]
        goals, depth, _ = self.policy.playout(state, context + joints, len(context))
        return goals, depth

    def choose(self, r, candidates, history, joints):
        return self.policy.choose(r, candidates, (history + joints)[-2:])

    def credit(self, history, joints, goals):
        """Credit the tree moves ``joints`` with ``goals``: a simulation that
        ended at a terminal state inside the tree (in C, as a playout's)."""
        context = history[-2:]
        self.policy.credit(context + joints, len(context), goals)

    def decay(self, factor):
        self.policy.decay(factor)


class ReferenceSearch(_Search):
    """Search questions answered by any state machine (for games too large to
    ground); moves are the moves themselves.  Playouts are uniformly random,
    or for ``mast`` chosen by Move-Average Sampling kept here in Python
    (Finnsson and Bjornsson, AAAI 2008; Tak et al., slides 21-22: a move's score
    is the average goal of its role in the simulations that played it, a move
    never played scoring 100; epsilon-greedy or Gibbs sampling with
    temperature ``tau``), as the compiled reasoner's policy does in C.  The
    N-gram and Last-Good-Reply policies need the compiled reasoner.

    A playout stops before a step that could end past ``until``
    (``time.monotonic()``; :data:`HEADROOM` times the slowest question so far
    is the measure) and then gives no goals: on a slow reasoner one playout
    can outlast a play clock."""

    def __init__(self, steps, playout, seed, params):
        if playout not in ("random", "mast"):
            warnings.warn(
                f"the {playout} playout policy needs the compiled reasoner; "
                "playing random playouts",
                RuntimeWarning,
                stacklevel=3,
            )
        if params.get("decisive"):
            warnings.warn(
                "decisive playouts need the compiled reasoner; playing without",
                RuntimeWarning,
                stacklevel=3,
            )
        super().__init__(steps)
        self.rng = random.Random(seed)
        self.mast = playout == "mast"
        self.gibbs = params.get("select") == "gibbs"
        self.epsilon, self.tau = params.get("epsilon", 0.4), params.get("tau", 10.0)
        self.scores = {}  # (role index, move) -> [sum of goals, simulations]

    def next(self, state, joint):
        return self._timed(self.sm.next_state, state, joint)

    def expand(self, state):
        return self._timed(super().expand, state)

    def _timed(self, question, *args):
        """``question(*args)``, its seconds counted in :attr:`step_seconds`."""
        began = time.monotonic()
        answer = question(*args)
        self.step_seconds = max(self.step_seconds, time.monotonic() - began)
        return answer

    def playout(self, state, history, joints):
        sm, played = self.sm, []
        while not sm.is_terminal(state) and len(played) < 100000:
            began = time.monotonic()
            if not self.in_time(began):
                return None, len(played)
            moves = sm.all_legal_moves(state)
            if not all(moves):
                break
            joint = tuple(self.choose(r, m, None, None) for r, m in enumerate(moves))
            played.append(joint)
            state = sm.next_state(state, joint)
            self.step_seconds = max(self.step_seconds, time.monotonic() - began)
        goals = self.steps.goals(state) if sm.is_terminal(state) else (0,) * len(sm.roles)
        self.credit(history, joints + played, goals)
        return goals, len(played)

    def choose(self, r, candidates, history, joints):
        if not self.mast:
            return self.rng.choice(candidates)
        if len(candidates) == 1:
            return candidates[0]
        if not self.gibbs and self.rng.random() < self.epsilon:
            return self.rng.choice(candidates)
        scores = [self._score(r, m) for m in candidates]
        top = max(scores)
        if self.gibbs:
            weights = [math.exp((x - top) / self.tau) for x in scores]
            return self.rng.choices(candidates, weights)[0]
        return self.rng.choice([m for m, x in zip(candidates, scores) if x == top])

    def _score(self, r, move):
        stat = self.scores.get((r, move))
        return stat[0] / stat[1] if stat is not None and stat[1] > 0 else 100.0

    def credit(self, history, joints, goals):
        """Add each role's goal to the moves it played in ``joints``."""
        if not self.mast:
            return
        for joint in joints:
            for r, move in enumerate(joint):
                stat = self.scores.setdefault((r, move), [0.0, 0.0])
                stat[0] += goals[r]
                stat[1] += 1.0

    def decay(self, factor):
        for stat in self.scores.values():
            stat[0] *= factor
            stat[1] *= factor
