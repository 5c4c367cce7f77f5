"""The reference reasoner: the oracle state machine, in pure Python.

It is the oracle the compiled reasoner is checked against, so it is written to
be obviously right rather than fast.  The semantics are those of the GDL
specification (Love et al. 2008, section 4: the stratified model of the rules
together with the facts ``true`` of the current state and ``does`` of the joint
move), and of GDL-II for ``sees`` and the ``random`` role (Thielscher 2010).

The rules are evaluated bottom-up, stratum by stratum, by the Datalog core
(:mod:`ggp.reasoners.datalog`, whose docstring gives the evaluation): the
static relations once, those that depend on ``true`` only (``legal``, ``goal``,
``terminal``) once per state, those that depend on ``does`` (``next``,
``sees``) once per state and joint move; the facts of the last states and
moves asked about are cached.
"""

from __future__ import annotations

import copy
import math
from collections import OrderedDict, defaultdict

from ggp.reasoners import REFERENCE, register
from ggp.reasoners.datalog import Clock, Effort, Facts, Program, TooMuchWork
from ggp.statemachine import GameError, StateMachine, single_goal, term_key

# Effort and TooMuchWork are the Datalog core's (ggp.reasoners.datalog), kept
# importable from here for the code that imports them from here.
__all__ = ["Effort", "ReferenceMachine", "TooMuchWork", "recall", "remember"]


def recall(cache: OrderedDict, key):
    """The value ``cache`` keeps under ``key`` (now the newest entry), or None."""
    value = cache.get(key)
    if value is not None:
        cache.move_to_end(key)
    return value


def remember(cache: OrderedDict, key, value, size: int):
    """``value``, kept in ``cache`` under ``key`` (the oldest entry dropped past ``size``)."""
    cache[key] = value
    if len(cache) > size:
        cache.popitem(last=False)
    return value


@register
class ReferenceMachine(StateMachine):
    """The pure-Python reasoner (see module docstring).

    A state is the frozenset of its true base facts (the arguments of ``true``).
    """

    name = REFERENCE

    def __init__(self, rules, cache_size: int = 64):
        self.program = Program(rules)
        self.static = self.static_facts(self.program.strata("static"))
        self._state_strata = self.program.strata("state")
        self._move_strata = self.program.strata("move")
        self.roles = tuple(
            sorted(
                (a[1] for a in self.static.get("role")), key=lambda r: self._role_order(rules, r)
            )
        )
        self._role_index = {r: i for i, r in enumerate(self.roles)}
        self._cache: OrderedDict = OrderedDict()
        self._cache_size = cache_size
        self._move_cache: OrderedDict = OrderedDict()

    @staticmethod
    def static_facts(strata) -> Facts:
        """The facts of the static relations, all computed now."""
        return Program.evaluate(
            strata, Facts({}, frozenset(r for st in strata for r in st.relations))
        )

    def fork(self) -> ReferenceMachine:
        """A machine of its own on the same program and static facts, with
        caches of its own."""
        other = copy.copy(self)
        other._cache, other._move_cache = OrderedDict(), OrderedDict()
        other.deadline = math.inf
        return other

    def _clock(self):
        """What the joins of a question spend into when the machine has a
        :attr:`~ggp.statemachine.StateMachine.deadline`: it raises
        :class:`~ggp.statemachine.Interrupted` once that has passed (before
        the question's facts are cached); None without one."""
        return None if self.deadline == math.inf else Clock(self.deadline)

    @staticmethod
    def _role_order(rules, role):
        for i, rule in enumerate(rules):
            if rule.head == ("role", role):
                return i
        return len(rules)

    # --- per-state and per-move evaluation, cached -------------------------
    def _state(self, state):
        facts = recall(self._cache, state)
        if facts is not None:
            return facts
        facts = self._true_in(state)
        Program.evaluate(self._state_strata, facts, effort=self._clock())
        legal = defaultdict(list)
        for atom in facts.get("legal"):
            legal[atom[1]].append(atom[2])
        facts.legal = {r: sorted(ms, key=term_key) for r, ms in legal.items()}
        return remember(self._cache, state, facts, self._cache_size)

    def _true_in(self, state) -> Facts:
        """The static facts and ``state``'s ``true`` facts, to be extended."""
        facts = self.static.copy()
        facts.sets["true"] = {("true", f) for f in state}
        return facts

    def _check_joint(self, joint, legal) -> None:
        """GameError unless ``joint`` is one move per role, each in ``legal(role)``."""
        if not isinstance(joint, tuple) or len(joint) != len(self.roles):
            raise GameError(f"a joint move needs one move per role {self.roles}, got {joint!r}")
        for role, move in zip(self.roles, joint):
            if move not in legal(role):
                raise GameError(f"move {move!r} is not legal for role {role!r} in this state")

    def _move(self, state, joint):
        key = (state, joint)
        facts = self._move_cache.get(key)
        if facts is not None:
            return facts
        base = self._state(state)
        self._check_joint(joint, lambda role: base.legal.get(role, ()))
        facts = base.copy()
        facts.sets["does"] = {("does", r, m) for r, m in zip(self.roles, joint)}
        Program.evaluate(self._move_strata, facts, effort=self._clock())
        return remember(self._move_cache, key, facts, 8)

    # --- the StateMachine questions ----------------------------------------
    def initial_state(self):
        return frozenset(a[1] for a in self.static.get("init"))

    def legal_moves(self, state, role):
        return list(self._state(state).legal.get(role, ()))

    def next_state(self, state, joint):
        return frozenset(a[1] for a in self._move(state, tuple(joint)).get("next"))

    def is_terminal(self, state):
        return "terminal" in self._state(state).get("terminal")

    def goal(self, state, role):
        return single_goal(role, (a[2] for a in self._state(state).get("goal") if a[1] == role))

    def percepts(self, state, joint, role):
        return frozenset(a[2] for a in self._move(state, tuple(joint)).get("sees") if a[1] == role)

    def state_facts(self, state):
        return frozenset(state)

    def state_from_facts(self, facts):
        return frozenset(facts)
