"""The relaxed reachable domain of a game: every fact that could ever hold.

The static relations (those that depend on neither ``true`` nor ``does``)
are computed exactly; in the other rules, negation of a non-static literal
is dropped (a relaxation: a rule can only fire more often), every ``next``
and ``init`` fact is taken to be possibly ``true`` and every ``legal`` move
of a role possibly done, and the result is computed to its fixpoint.  The
``true`` atoms found are the game's base propositions and the ``does`` atoms
its input propositions (what a propositional network is built on; compare
the "relaxed" instantiation of Kissmann and Edelkamp 2010, and ggp-base's use
of ``base``/``input`` declarations when present).

Both are computed with the compiled joins of :mod:`ggp.joins`.
"""
from __future__ import annotations

from gdl import Rule, Var
from gdl.ast import name_of

from .joins import Evaluator, Store
from .reference import Effort, Program
from .statemachine import GameError, term_key

_X, _R, _M = Var("?x"), Var("?r"), Var("?m")

#: What makes the relaxation reach every state and move.
_BRIDGES = (
    Rule(("true", _X), (("init", _X),)),
    Rule(("true", _X), (("next", _X),)),
    Rule(("does", _R, _M), (("legal", _R, _M), ("role", _R))),
)


class Domain:
    """The static relations of ``rules`` (exact) and the relaxed reachable
    domain of the others, in one :class:`~ggp.joins.Store` (``facts``).

    ``program`` is the rules' :class:`~ggp.reference.Program`, ``static``
    the names of its static relations, ``evaluator`` the
    :class:`~ggp.joins.Evaluator` that computed them (negations of static
    literals tested, the others dropped), whose compiled joins a grounder
    can reuse.  Raises :class:`~ggp.statemachine.GameError` past ``limit``
    facts derived, past ``effort``, or when a recursive relation's terms
    nest without bound.
    """

    def __init__(self, rules, limit: int | None = 2_000_000, effort: Effort | None = None):
        self.program = Program(rules)
        static_strata = self.program.strata("static")
        self.static = frozenset(r for st in static_strata for r in st.relations)
        self.evaluator = Evaluator(exact=self.static, negation=False)
        self.facts = Store()
        self.evaluator.evaluate(static_strata, self.facts, limit, effort)
        dynamic = [r for r in rules if name_of(r.head) not in self.static]
        relaxed = Program(dynamic + list(_BRIDGES))
        self.evaluator.evaluate(relaxed.strata(), self.facts, limit, effort)


def relaxed_facts(rules, limit: int = 2_000_000, effort: Effort | None = None) -> Store:
    """Every atom derivable in the relaxation, the static relations' exact
    (see :class:`Domain`)."""
    return Domain(rules, limit, effort).facts


def base_and_input(rules, limit: int = 2_000_000,
                   effort: Effort | None = None) -> tuple[list, list]:
    """Base propositions (possible ``true`` facts) and inputs ((role, move)
    pairs); :class:`~ggp.statemachine.GameError` as :class:`Domain`."""
    try:
        facts = relaxed_facts(rules, limit, effort)
    except GameError as exc:
        raise type(exc)(f"the relaxed domain cannot be computed: {exc}") from None
    base = sorted((a[1] for a in facts.get("true")), key=term_key)
    inputs = sorted(((a[1], a[2]) for a in facts.get("does")),
                    key=lambda rm: (term_key(rm[0]), term_key(rm[1])))
    return base, inputs
