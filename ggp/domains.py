"""The relaxed reachable domain of a game: every fact that could ever hold.

The static relations (those that depend on neither ``true`` nor ``does``)
are computed exactly; in the other rules, negation of a non-static literal
is dropped (a relaxation: a rule can only fire more often), every ``next``
and ``init`` fact is taken to be possibly ``true`` and every ``legal`` move
of a role possibly done, and the result is computed to its fixpoint.  The ``true`` atoms found are the game's base propositions and the
``does`` atoms its input propositions (what a propositional network is built
on; compare the "relaxed" instantiation of Kissmann and Edelkamp 2010, and
ggp-base's use of ``base``/``input`` declarations when present).
"""
from __future__ import annotations

from gdl import Not, Rule, Var, expand
from gdl.ast import name_of

from .reference import Effort, Facts, Program
from .statemachine import GameError, term_key

_X, _R, _M = Var("?x"), Var("?r"), Var("?m")

#: What makes the relaxation reach every state and move.
_BRIDGES = (
    Rule(("true", _X), (("init", _X),)),
    Rule(("true", _X), (("next", _X),)),
    Rule(("does", _R, _M), (("legal", _R, _M), ("role", _R))),
)


def relaxed_facts(rules, limit: int = 2_000_000, effort: Effort | None = None,
                  static: Facts | None = None) -> Facts:
    """Every atom derivable in the relaxation (a :class:`Facts`), the
    static relations' exact (``static``, when the caller has them).

    Raises :class:`~ggp.statemachine.GameError` past ``limit`` atoms, when
    a recursive relation's terms nest without bound, or when the joins
    exceed ``effort`` (see :func:`ggp.reference.solutions`).
    """
    if static is None:
        static = static_facts(Program(rules), limit, effort)
    exact = static.shared
    relaxed = [Rule(r.head, tuple(x for x in lits
                                  if not (isinstance(x, Not) and name_of(x.literal) not in exact)),
                    r.pos)
               for r in rules if name_of(r.head) not in exact for lits, _ in expand(r)]
    program = Program(relaxed + list(_BRIDGES))
    return Program.evaluate(program.strata(), static.copy(), limit=limit, effort=effort)


def static_facts(program: Program, limit: int | None = None,
                 effort: Effort | None = None) -> Facts:
    """The exact facts of the static relations of ``program`` (shared, so
    their indexes outlive copies)."""
    strata = program.strata("static")
    names = frozenset(r for st in strata for r in st.relations)
    return Program.evaluate(strata, Facts({}, names), limit=limit, effort=effort)


def base_and_input(rules, limit: int = 2_000_000,
                   effort: Effort | None = None) -> tuple[list, list]:
    """Base propositions (possible ``true`` facts) and inputs ((role, move)
    pairs); :class:`~ggp.statemachine.GameError` as :func:`relaxed_facts`."""
    try:
        facts = relaxed_facts(rules, limit, effort)
    except GameError as exc:
        raise type(exc)(f"the relaxed domain cannot be computed: {exc}") from None
    base = sorted((a[1] for a in facts.get("true")), key=term_key)
    inputs = sorted(((a[1], a[2]) for a in facts.get("does")),
                    key=lambda rm: (term_key(rm[0]), term_key(rm[1])))
    return base, inputs
