"""The ``Player`` interface used by local and remote matches.

A match talks to a player through four calls, mirroring the GGP protocol
(START, PLAY, STOP, ABORT):

* ``start(game, role, start_clock, play_clock)``: meta-game; return within
  the start clock.
* ``play(observation)``: return a legal move within the play clock.  The
  observation holds what the protocol gives this role and nothing more: the
  previous joint move (GDL-I), or its own last move and its percepts (GDL-II).
* ``stop(observation)`` and ``abort()``: the match is over.

:class:`Player` keeps track of where the game stands (the exact state in
GDL-I; in GDL-II a set of states consistent with the role's own moves and
percepts) so that a subclass only chooses: ``select(legal_moves, deadline)``.
"""
from __future__ import annotations

import itertools
import random
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Observation:
    """What a role learns at a turn.

    ``joint`` is the previous joint move in role order (GDL-I; None on the first
    turn).  For GDL-II, ``own_move`` is the role's own previous move as executed
    and ``percepts`` the terms it saw (both None on the first turn).
    ``deadline`` is a ``time.monotonic()`` instant by which to answer.
    """

    turn: int = 0
    joint: tuple | None = None
    own_move: object = None
    percepts: frozenset | None = None
    deadline: float = float("inf")


class Player:
    """Base class: keeps the game position; subclasses override :meth:`select`.

    ``belief_limit`` caps the GDL-II belief set (states consistent with what
    the role saw); past it a uniform sample of that size is kept.
    """

    name = "player"
    belief_limit = 256

    def __init__(self, seed: int | None = None, reasoner: str = "compiled"):
        self.rng = random.Random(seed)
        self.reasoner = reasoner
        self.game = self.sm = self.role = None

    # --- protocol ----------------------------------------------------------
    def start(self, game, role, start_clock: float = 10.0, play_clock: float = 10.0):
        self.game, self.role = game, role
        self.sm = game.state_machine(self.reasoner)
        self.play_clock = play_clock
        self.imperfect = game.is_gdl2
        self.belief = [self.sm.initial_state()]
        self.meta_game(time.monotonic() + start_clock)

    def play(self, obs: Observation):
        if obs.turn > 0 or obs.joint is not None or obs.percepts is not None:
            self.observe(obs)
        state = self.belief[0] if self.belief else None
        legal = self.sm.legal_moves(state, self.role) if state is not None else []
        return self.select(legal, obs.deadline)

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
    def observe(self, obs: Observation):
        """Advance the position (GDL-I) or filter the belief (GDL-II)."""
        if obs.joint is not None and not self.imperfect:
            self.belief = [self.sm.next_state(self.belief[0], tuple(obs.joint))]
            return
        me = self.sm.roles.index(self.role)
        successors = set()
        for state in self.belief:
            options = [[obs.own_move] if i == me else self.sm.legal_moves(state, r)
                       for i, r in enumerate(self.sm.roles)]
            for joint in itertools.product(*options):
                if self.sm.percepts(state, joint, self.role) == (obs.percepts or frozenset()):
                    successors.add(self.sm.next_state(state, joint))
        belief = sorted(successors, key=lambda s: sorted(map(repr, self.sm.state_facts(s))))
        if len(belief) > self.belief_limit:
            belief = self.rng.sample(belief, self.belief_limit)
        self.belief = belief
