"""Players that solve the game's extensive form while they play (seed 001):
``mccr``, ``oos`` and ``mccfr``.

Each builds the game's whole extensive form at the start of a match
(:func:`ggp.efg.build_tree`, shared by the players of one game object) and
runs Monte Carlo CFR in C over it (:mod:`ggp.mccfr`):

- ``mccfr``: outcome-sampling MCCFR from the root for the budget of every
  move, its tables kept from move to move; it plays from the average policy
  at its information state.
- ``oos``: Online Outcome Sampling (Lisy, Lanctot and Bowling, AAMAS 2015):
  the same, but ``delta`` of the samples are targeted at the histories of the
  current information state (``targeting=ist``) or public state (``pst``),
  with the estimates kept unbiased (:mod:`ggp._mccfr`).
- ``mccr``: Monte Carlo Continual Resolving (Sustr, Kovarik and Lisy 2019;
  seed 001, slides 37-40).  It solves the game from the root in the start
  clock; then, at its first decision in each new public state
  (:mod:`ggp.public`), it builds the resolving gadget of that public state
  from its range and the opponent's counterfactual values kept from the
  previous resolve (:mod:`ggp.resolving`), solves it with outcome-sampling
  MCCFR for the move's budget, and plays from the resolved average strategy.
  The kept data are those of the resolved average strategies, computed
  exactly over the solved subgame (the seed estimates them from samples).
  ``variant=keep`` carries the resolver's regrets and average-strategy
  weights from one resolve to the next, ``reset`` starts each afresh.

The budget is ``iterations`` a move (reproducible with ``seed``), else the
play clock less ``margin``.  Each player's move is drawn from the strategy it
computed at its information state, which it keeps in ``last_policy`` (the
online exploitability of :mod:`players.evaluation` averages these).

A game whose extensive form cannot be built within the start clock or
:data:`ggp.efg.HISTORY_LIMIT` histories (or, for ``mccr``, is not a
two-player constant-sum game) is played as ``ismcts`` with the same budget
and seed, after one warning.
"""
from __future__ import annotations

import logging
import threading
import time
import weakref

import numpy as np
from ggp.efg import CHANCE_ROLE, TERMINAL, TreeTooLarge, build_tree, flatten, infostate_key

from .base import Player
from .imperfect import ISMCTSPlayer
from .params import Param, extend

log = logging.getLogger("players.online")

_VIEWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_BUILDING = threading.Lock()
_WARNED: set = set()


class View:
    """A game's extensive form as the solving players use it: the tree, its
    flat arrays, subtree ends and parents, its public states (on first use)
    and its information states by observation history."""

    def __init__(self, tree):
        from ggp.resolving import parents, subtree_ends
        self.tree = tree
        self.flat = flatten(tree)
        self.end = subtree_ends(self.flat)
        self.parent = parents(self.flat)
        self._public = None
        self.by_history = {info.key.rpartition(" ? ")[0]: i
                           for i, info in enumerate(tree.infosets)}
        sums = {round(sum(tree.utility[n]), 9) for n in range(tree.histories)
                if tree.kind[n] == TERMINAL}
        self.total = sums.pop() if len(sums) == 1 else None    # the constant sum, if any

    @property
    def public(self):
        if self._public is None:
            from ggp.public import public_states
            self._public = public_states(self.tree)
        return self._public

    def mask(self, nodes) -> np.ndarray:
        """1 at ``nodes``, their subtrees and their ancestors (a target)."""
        mask = np.zeros(len(self.flat.kind), dtype=np.uint8)
        for n in nodes:
            mask[n:self.end[n]] = 1
            p = self.parent[n]
            while p >= 0 and not mask[p]:
                mask[p] = 1
                p = self.parent[p]
        return mask


def view_of(game, deadline: float) -> View:
    """The (cached) :class:`View` of ``game``; TreeTooLarge when it has too many
    histories or cannot be built by ``deadline``."""
    with _BUILDING:
        cached = _VIEWS.get(game)
        if cached is None:
            try:
                cached = View(build_tree(game, deadline=deadline))
            except TreeTooLarge as exc:
                cached = exc
            _VIEWS[game] = cached
    if isinstance(cached, Exception):
        raise cached
    return cached


class SolvingPlayer(Player):
    """What the three share: the view, the budget, finding the information
    state, drawing the move, the ``ismcts`` fallback."""

    name = "solving"
    params = extend(Player.params,
        Param("iterations", int, None, "MCCFR iterations a move (reproducible with seed); "
              "default: think on the clock", low=1),
        Param("margin", float, 0.1, "seconds before the deadline when thinking stops", low=0),
        Param("epsilon", float, 0.6, "outcome sampling's exploration at the updated "
              "player's nodes", low=0, high=1, low_open=True),
    )

    def __init__(self, **values):
        super().__init__(**values)
        self.fallback = None
        self.last_policy = None

    @property
    def on_clock(self) -> bool:
        return self.iterations is None

    def why_not(self, view: View) -> str | None:
        """Why this player cannot play ``view``'s game (None: it can)."""
        return None

    def start(self, game, role, start_clock: float = 10.0, play_clock: float = 10.0):
        begin = time.monotonic()
        self.fallback, self.record = None, []
        try:
            self.view = view_of(game, begin + 0.5 * start_clock)
            reason = self.why_not(self.view)
        except TreeTooLarge as exc:
            reason = str(exc)
        if reason is not None:
            if (self.name, game.name) not in _WARNED:
                _WARNED.add((self.name, game.name))
                log.warning("%s: %s: %s; playing as ismcts", self.name, game.name, reason)
            self.fallback = ISMCTSPlayer(seed=self.seed, simulations=self.iterations,
                                         margin=self.margin, reasoner=self.reasoner)
            self.fallback.rng = self.rng
            return self.fallback.start(game, role, start_clock - (time.monotonic() - begin),
                                       play_clock)
        self.tree = self.view.tree
        self.player = self.tree.players.index(role) if role != CHANCE_ROLE else -1
        super().start(game, role, start_clock - (time.monotonic() - begin), play_clock)

    def play(self, obs):
        if self.fallback is not None:
            return self.fallback.play(obs)
        return super().play(obs)

    def stop(self, obs=None):
        if self.fallback is not None:
            self.fallback.stop(obs)

    def observe(self, obs):
        if self.imperfect:
            self.record.append((obs.own_move, obs.percepts or frozenset()))
        else:
            self.record.append((obs.joint[self.me], frozenset([tuple(obs.joint)])))
        super().observe(obs)

    def select(self, legal, deadline):
        if len(legal) == 1:
            return legal[0]
        history = infostate_key(self.role, tuple(self.record), ()).rpartition(" ? ")[0]
        info = self.view.by_history.get(history)
        if info is None:
            log.warning("%s (role %r): its information state is not in the game's tree; "
                        "playing a random legal move", self.name, self.role)
            return self.rng.choice(legal)
        probs = self.decide(info, deadline)
        moves = self.tree.infosets[info].moves
        self.last_policy = dict(zip(moves, probs))
        return self.rng.choices(moves, weights=probs)[0]

    def spend(self, run, deadline: float):
        """Run iterations (``run(n)``) for the budget: ``iterations``, else
        until ``deadline`` less the margin, in batches whose time is measured."""
        if self.iterations is not None:
            run(self.iterations)
            return
        until, batch = deadline - self.margin, 64
        while True:
            started = time.monotonic()
            if started >= until:
                return
            run(batch)
            took = max(time.monotonic() - started, 1e-6)
            batch = max(1, min(batch * 2, int(batch * (until - time.monotonic()) / took)))

    def seed63(self) -> int:
        return self.rng.getrandbits(63)

    # --- what each player defines ---------------------------------------------------
    def decide(self, info: int, deadline: float) -> list:
        """The probabilities of the moves of information state ``info``."""
        raise NotImplementedError


class MCCFRPlayer(SolvingPlayer):
    """Outcome-sampling MCCFR from the root, its tables kept between moves."""

    name = "mccfr"

    def meta_game(self, deadline):
        from ggp.mccfr import MCCFRSolver
        self.solver = MCCFRSolver(self.tree, epsilon=self.epsilon, seed=self.seed63(),
                                  flat=self.view.flat)
        if self.on_clock:
            self.spend(self.solver.run, deadline)

    def decide(self, info, deadline):
        self.spend(self.solver.run, deadline)
        return _policy_at(self.solver.average_flat(), self.view.flat.move_start, info)


class OOSPlayer(MCCFRPlayer):
    """Online Outcome Sampling: MCCFR targeted at the current information or
    public state (Lisy, Lanctot and Bowling 2015)."""

    name = "oos"
    params = extend(SolvingPlayer.params,
        Param("epsilon", float, 0.4, "outcome sampling's exploration at the updated "
              "player's nodes", low=0, high=1, low_open=True),
        Param("delta", float, 0.9, "the share of targeted samples", low=0, high=1),
        Param("targeting", str, "pst", "target the information state (ist) or the public "
              "state (pst)", choices=("ist", "pst")),
    )

    def decide(self, info, deadline):
        nodes = self.tree.infosets[info].nodes
        if self.targeting == "pst":
            nodes = self.view.public.members[int(self.view.public.state[nodes[0]])]
        self.solver.target(self.view.mask(nodes), self.delta)
        return super().decide(info, deadline)


class MCCRPlayer(SolvingPlayer):
    """Monte Carlo Continual Resolving (seed 001)."""

    name = "mccr"
    params = extend(SolvingPlayer.params,
        Param("variant", str, "keep", "keep the resolver's regrets and average-strategy "
              "weights between resolves, or reset them", choices=("keep", "reset")),
    )

    def why_not(self, view):
        if len(view.tree.players) != 2:
            return "continual resolving needs two players"
        if view.total is None:
            return "continual resolving needs a constant-sum game"
        return None

    def meta_game(self, deadline):
        from ggp.resolving import whole_game
        size = int(self.view.flat.move_start[-1])
        self.regret, self.cumulative = np.zeros(size), np.zeros(size)
        self.strategy = np.zeros(size)
        self.known: set = set()
        self.last = None
        self.resolve(whole_game(self.view.flat), deadline if self.on_clock else None)
        self.known.add(0)

    def decide(self, info, deadline):
        from ggp.resolving import gadget, kept_data
        view, me = self.view, self.player
        state = int(view.public.state[self.tree.infosets[info].nodes[0]])
        if state not in self.known:
            tops = view.public.top[state]
            sets = [self.tree.augmented[t][1 - me] for t in tops]
            weights, values = kept_data(*self.last, me, tops, sets)
            self.resolve(gadget(view.flat, view.end, tops, weights, 1 - me, sets, values,
                                view.total), deadline)
            self.known.add(state)
        return _policy_at(self.strategy, view.flat.move_start, info)

    def resolve(self, subgame, deadline):
        """Solve ``subgame`` for the budget; keep its strategy and the data."""
        from ggp.mccfr import MCCFRSolver
        solver = MCCFRSolver(self.tree, epsilon=self.epsilon, seed=self.seed63(),
                             flat=subgame.flat)
        inner = subgame.move_origin >= 0
        kept = subgame.move_origin[inner]
        if self.variant == "keep":
            solver._regret[inner] = self.regret[kept]
            solver._cumulative[inner] = self.cumulative[kept]
        if deadline is None:
            solver.run(self.iterations)
        else:
            self.spend(solver.run, deadline)
        if self.variant == "keep":
            self.regret[kept] = solver._regret[inner]
            self.cumulative[kept] = solver._cumulative[inner]
        policy = solver.average_flat()
        self.strategy[kept] = policy[inner]
        self.last = (subgame, policy)


def _policy_at(flat_policy, move_start, info: int) -> list:
    return flat_policy[move_start[info]:move_start[info + 1]].tolist()
