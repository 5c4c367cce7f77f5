"""The ``StateMachine`` interface: the whole reasoner behind a few questions.

Both reasoners (the pure-Python reference and the compiled propositional
network) implement it with identical behaviour, moves in the same order, so
that one can be checked against the other move by move.

States are opaque and hashable; moves and facts are GDL terms (``str`` for a
constant, ``tuple`` for a compound term, see :mod:`gdl.ast`).
"""

from __future__ import annotations

import itertools
import math
import random as _random
from abc import ABC, abstractmethod


class GameError(Exception):
    """The game's rules broke a promise at run time (e.g. no goal value for a
    role in a terminal state), or a caller passed something the game cannot
    take (e.g. an illegal or malformed move)."""


class RuleError(GameError):
    """The rules broke a promise that only play can show (GDL specification,
    section 3, "well-formed games").  ``kind`` names the rule as the
    validator does: ``legal`` (a role with no legal move in a non-terminal
    state), ``goal`` (a role without exactly one goal value 0..100 in a
    terminal state) or ``terminal`` (no end within a bound); ``role`` is the
    role concerned, if one is.  :meth:`ggp.Game.diagnostic` places it in the
    description, so that every command reports it on the same line."""

    def __init__(self, kind: str, message: str, role: str | None = None):
        super().__init__(message)
        self.kind, self.role = kind, role


class Interrupted(Exception):
    """A question was given up at the machine's :attr:`StateMachine.deadline`
    before it was answered.  The machine is left as if it had not been asked
    (nothing half-computed is kept), so the caller may ask again later."""


def term_key(t):
    """Deterministic order of terms: numbers numerically, then symbols, then
    compound terms by functor and arguments (``(mark 1 2) < (mark 1 10)``)."""
    if isinstance(t, tuple):
        return (2, t[0], tuple(term_key(a) for a in t[1:]))
    if t.isdigit():
        return (0, int(t), t)
    return (1, t, ())


def single_goal(role, values) -> int:
    """The goal of ``role`` from the goal values its rules give in a state.

    GDL requires exactly one, an integer 0..100; the ``random`` role may have
    none (then 0).  Anything else raises :class:`GameError`.
    """
    values = {str(v) for v in values}
    if len(values) == 1:
        value = values.pop()
        if value.isdigit() and int(value) <= 100:
            return int(value)
        raise RuleError(
            "goal", f"goal value {value!r} of role {role} is not an integer 0..100", role
        )
    if not values and role == "random":
        return 0
    raise RuleError(
        "goal",
        f"role {role} has {len(values) or 'no'} goal values"
        f"{' (' + ', '.join(sorted(values, key=term_key)) + ')' if values else ''}"
        f" in a terminal state; GDL requires exactly one",
        role,
    )


class StateMachine(ABC):
    """The questions every reasoner answers.

    ``roles`` is the tuple of role names in description order (``random``
    included for GDL-II).  ``legal_moves`` lists moves in :func:`term_key` order.
    ``next_state`` takes one move per role, in role order.
    """

    roles: tuple
    #: the reasoner's name, its key in :mod:`ggp.reasoners`' registry
    name: str = ""
    #: The instant (``time.monotonic()``) past which a question may be given
    #: up with :class:`Interrupted`; infinite (never) unless its owner sets
    #: it, as a player thinking on the clock does for its turn.  The reasoners
    #: whose one question can take long (the reference and the demand-driven
    #: one, a fraction of a second a step on games such as amazons) check it
    #: while they evaluate; the compiled one answers in microseconds and
    #: does not.
    deadline: float = math.inf

    @abstractmethod
    def fork(self) -> StateMachine:
        """A machine for another thread: the same game, sharing what was
        built, with the per-question state of its own (one machine must not
        be asked from two threads at once)."""

    @abstractmethod
    def initial_state(self): ...

    @abstractmethod
    def legal_moves(self, state, role) -> list: ...

    @abstractmethod
    def next_state(self, state, joint): ...

    @abstractmethod
    def is_terminal(self, state) -> bool: ...

    @abstractmethod
    def goal(self, state, role) -> int: ...

    @abstractmethod
    def percepts(self, state, joint, role) -> frozenset: ...

    @abstractmethod
    def state_facts(self, state) -> frozenset: ...

    @abstractmethod
    def state_from_facts(self, facts): ...

    # --- derived questions, the same for every reasoner ---------------------
    def goals(self, state) -> tuple:
        """The goal of every role, in role order."""
        return tuple(self.goal(state, r) for r in self.roles)

    def all_legal_moves(self, state) -> tuple:
        """Per role, in role order, its list of legal moves."""
        return tuple(self.legal_moves(state, r) for r in self.roles)

    def playable_moves(self, state) -> tuple:
        """Per role, its legal moves in the non-terminal ``state``; RuleError
        for the first role that has none (GDL requires every role to have one)."""
        moves = self.all_legal_moves(state)
        for role, legal in zip(self.roles, moves):
            if not legal:
                raise RuleError(
                    "legal",
                    f"role {role} has no legal move in a reachable non-terminal state",
                    role,
                )
        return moves

    def joint_moves(self, state):
        """Every joint move (the Cartesian product of the roles' legal moves)."""
        return itertools.product(*self.all_legal_moves(state))

    def random_playout(self, state, rng: _random.Random | None = None, max_steps=100000):
        """Play uniformly random joint moves to the end; return (final state, steps).

        Stops early (returning a non-terminal state) after ``max_steps`` or
        when a role has no legal move.
        """
        rng = rng or _random.Random()
        steps = 0
        while not self.is_terminal(state) and steps < max_steps:
            moves = self.all_legal_moves(state)
            if not all(moves):
                break
            state = self.next_state(state, tuple(rng.choice(m) for m in moves))
            steps += 1
        return state, steps

    def playouts(
        self, state, count: int, seed: int = 0, max_steps: int = 100000, goals: bool = True
    ):
        """``count`` random playouts from ``state``.

        Returns (total steps, summed final goals per role, playouts cut short);
        a terminal state whose goals break GDL's rule (exactly one per role)
        raises :class:`RuleError`.  With ``goals`` False the goals are not
        read (the sums are None): to time the moves of a game whose goals are
        faulty.  The compiled reasoner runs this in C; this is the same in
        Python.
        """
        rng = _random.Random(seed)
        total, sums, cut = 0, [0] * len(self.roles), 0
        for _ in range(count):
            final, steps = self.random_playout(state, rng, max_steps)
            total += steps
            if not self.is_terminal(final):
                cut += 1
            elif goals:
                sums = [a + b for a, b in zip(sums, self.goals(final))]
        return total, sums if goals else None, cut
