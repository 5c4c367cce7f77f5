"""The ``Player`` interface used by local and remote matches.

A match talks to a player through four calls, mirroring the GGP protocol
(START, PLAY, STOP, ABORT):

* ``start(game, role, start_clock, play_clock)``: meta-game; return within
  the start clock.
* ``play(observation)``: return a legal move within the play clock.  The
  observation holds what the protocol gives this role and nothing more: the
  previous joint move (GDL-I), or its own last move and its percepts (GDL-II),
  and, from a local seat, the role's legal moves (the GGP protocol does not
  send them).
* ``stop(observation)`` and ``abort()``: the match is over.

:class:`Player` keeps track of where the game stands (the exact state in
GDL-I; in GDL-II a set of states consistent with the role's own moves and
percepts, :mod:`players.belief`) so that a subclass only chooses:
``select(legal_moves, deadline)``.
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from .belief import Belief, Steps
from .params import Param, settings


@dataclass(frozen=True)
class Observation:
    """What a role learns at a turn.

    ``joint`` is the previous joint move in role order (GDL-I; None on the first
    turn).  For GDL-II, ``own_move`` is the role's own previous move as executed
    and ``percepts`` the terms it saw (both None on the first turn).
    ``deadline`` is a ``time.monotonic()`` instant by which to answer.
    ``legal`` is the role's legal moves as the manager offers them (a local
    seat passes them; None over HTTP, where the player takes them from its
    belief).
    """

    turn: int = 0
    joint: tuple | None = None
    own_move: object = None
    percepts: frozenset | None = None
    deadline: float = float("inf")
    legal: tuple | None = None


#: The thinking budget of the search players: simulations a move, else the
#: clock.  The margin is what the player keeps back from the deadline it is
#: given to stop, choose and answer; a served player's deadline already has
#: the server's own margin taken off (matches.server), so the two do not add
#: up to most of a short clock.
BUDGET = (
    Param("simulations", int, None, "simulations a move (reproducible with seed); "
          "default: think on the clock", low=1),
    Param("margin", float, 0.1, "seconds before the deadline when thinking stops", low=0),
)


class Player:
    """Base class: keeps the game position; subclasses override :meth:`select`.

    The position is a :class:`players.belief.Belief`: the exact state in
    GDL-I, the histories consistent with everything the role was told in
    GDL-II.  ``belief_share`` is the part of the play clock that updating it
    may take (half as much again while no consistent history is found yet); a
    player that does not think on the clock (a simulation budget, or no
    search) updates it without the clock, within the belief's budgets of
    steps, so that its play does not depend on the machine's speed and is
    reproducible with its seed.

    The moves offered to :meth:`select` are the ones the manager offered (in
    the order of the role's belief), else the moves legal in every history
    the role believes possible (the most of them while its belief is lost).
    """

    name = "player"
    belief_share = 0.4
    #: The declared parameters (:mod:`players.params`); subclasses add theirs.
    params = (
        Param("seed", int, None, "random seed (default: a fresh one each match)", low=0),
        Param("reasoner", str, "compiled", "the state machine the player reasons with",
              choices=("compiled", "reference", "demand")),
    )

    def __init__(self, **values):
        """Every declared parameter becomes an attribute of the same name;
        ValueError names a parameter that is unknown or out of bounds."""
        for key, value in settings(self.params, values).items():
            setattr(self, key, value)
        self.rng = random.Random(self.seed)
        self.game = self.sm = self.role = None
        #: the distribution (move -> probability) the last move was drawn from,
        #: for a player that keeps one (players.evaluation reads it); else None
        self.last_policy = None

    @property
    def on_clock(self) -> bool:
        """True when the player thinks until its deadline: a search player
        without a simulation budget."""
        return any(p.name == "simulations" for p in self.params) and self.simulations is None

    @classmethod
    def describe(cls) -> dict:
        """The player as ``ggp players --json`` lists it."""
        doc = (cls.__doc__ or "").strip().splitlines()
        return {"name": cls.name, "description": doc[0] if doc else "",
                "params": [p.describe() for p in cls.params]}

    # --- protocol ----------------------------------------------------------
    def start(self, game, role, start_clock: float = 10.0, play_clock: float = 10.0):
        self.game, self.role = game, role
        self.sm = game.state_machine(self.reasoner)
        self.play_clock = play_clock
        self.imperfect = game.is_gdl2
        self.steps = Steps(self.sm, self.imperfect)
        self.me = self.sm.roles.index(role)
        self.belief = Belief(self.steps, self.me, self.rng)
        self.meta_game(time.monotonic() + start_clock)

    def play(self, obs: Observation):
        if obs.turn > 0 or obs.joint is not None or obs.percepts is not None:
            self.observe(obs)
        return self.select(self.legal_moves(obs.legal), obs.deadline)

    def stop(self, obs: Observation | None = None):
        """The match ended; nothing to do by default."""

    def abort(self):
        """The match was aborted; nothing to do by default."""

    # --- hooks for subclasses ----------------------------------------------
    def meta_game(self, deadline: float):
        """Think before the first move (within the start clock)."""

    def select(self, legal: list, deadline: float):
        raise NotImplementedError

    # --- keeping track of the position -------------------------------------
    def legal_moves(self, offered=None) -> list:
        """The role's legal moves: in GDL-I those of the exact state; in GDL-II
        those legal in its hypotheses (:meth:`players.belief.Belief.legal`),
        or ``offered`` (the manager's) when they differ: while the belief is
        lost."""
        if not self.imperfect:
            return self.sm.legal_moves(self.position(), self.role)
        ids = self.belief.legal()
        if offered is not None and \
                set(ids) != {self.steps.move_id(self.me, m) for m in offered}:
            return list(offered)
        return [self.steps.move(self.me, m) for m in ids]

    def position(self):
        """The current state: exact in GDL-I, one consistent with what the
        role saw in GDL-II."""
        return self.belief.sample().state

    def observe(self, obs: Observation):
        """Advance the position (GDL-I) or filter the belief (GDL-II)."""
        steps = self.steps
        if obs.joint is not None and not self.imperfect:
            self.belief.observe_joint(tuple(steps.move_id(r, m) for r, m in enumerate(obs.joint)))
            return
        now = time.monotonic()
        left = max(0.0, obs.deadline - now) if self.on_clock else math.inf
        seen = steps.seen_ids(self.me, obs.percepts or frozenset())
        legal = None if obs.legal is None else [steps.move_id(self.me, m) for m in obs.legal]
        self.belief.observe(steps.move_id(self.me, obs.own_move), seen, legal,
                            deadline=now + self.belief_share * left,
                            hard=now + 1.5 * self.belief_share * left)
