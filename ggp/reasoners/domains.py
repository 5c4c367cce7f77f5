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

Both are computed with the compiled joins of :mod:`ggp.reasoners.joins`.

A static relation whose facts are too many to compute whole (past
:data:`DEMAND_FACTS`) is computed on demand instead (:class:`Demanded`):
mummymaze1p's ``direction-from`` holds for every pair of squares of a 51 x 51
grid (6.5 million facts), of which the game asks about the squares of its 9 x
9 board.  This is the idea of the magic-set rewriting (Bancilhon, Maier,
Sagiv and Ullman, "Magic sets and other strange ways to implement logic
programs", PODS 1986), carried out by answering each call of the joins top
down, with its bound arguments, and keeping the answers.
"""

from __future__ import annotations

from gdl import Distinct, Not, Rule, Var
from gdl.ast import name_of
from ggp.reasoners.condense import condense
from ggp.reasoners.condense import names as condense_names
from ggp.reasoners.datalog import Effort, Program
from ggp.reasoners.joins import Evaluator, Store, Stratum, TooManyRows, index_builder
from ggp.statemachine import GameError, term_key

#: A static relation with more facts than this is computed on demand
#: (:class:`Demanded`): answering calls one by one costs more per fact than
#: computing a relation whole (a membership test of checkers' 122,880
#: ``different_cells``, 10 us), so only relations far larger than the game
#: asks about pay.
DEMAND_FACTS = 500_000

#: Relations a reasoner asks for by name: always computed whole.
KEYWORDS = frozenset(
    {"role", "init", "true", "does", "next", "legal", "goal", "terminal", "sees", "base", "input"}
)

_X, _R, _M = Var("?x"), Var("?r"), Var("?m")

#: What makes the relaxation reach every state and move.
_BRIDGES = (
    Rule(("true", _X), (("init", _X),)),
    Rule(("true", _X), (("next", _X),)),
    Rule(("does", _R, _M), (("legal", _R, _M), ("role", _R))),
)


class Domain:
    """The static relations of ``rules`` (exact) and the relaxed reachable
    domain of the others, in one :class:`~ggp.reasoners.joins.Store` (``facts``).

    ``static`` names the static relations, ``strata`` the strata of the
    other rules as evaluated (helpers of :mod:`ggp.reasoners.condense` in place of
    the costly rules they condense), the ``true`` and ``does`` ones among
    them; ``evaluator`` is the :class:`~ggp.reasoners.joins.Evaluator` that computed
    them (negations of static literals tested, the others dropped), whose
    compiled joins a grounder can reuse.  Raises
    :class:`~ggp.statemachine.GameError` past ``limit`` facts derived, past
    ``effort``, or when a recursive relation's terms nest without bound.
    """

    def __init__(self, rules, limit: int | None = 2_000_000, effort: Effort | None = None):
        program = Program(rules)
        static_strata = program.strata("static")
        self.static = set(r for st in static_strata for r in st.relations)
        self.evaluator = Evaluator(self.static, False, limit, effort)
        self.facts = Store()
        self.names = condense_names()
        for stratum in static_strata:
            (relation, *more) = stratum.relations
            if (
                stratum.recursive
                or more
                or relation in KEYWORDS
                or not _too_many(self.evaluator, stratum.clauses, self.facts)
            ):
                self.evaluator.evaluate([stratum], self.facts)
            else:
                self.facts.demanded[relation] = Demanded(relation, stratum.clauses, self)
        dynamic = [r for r in rules if name_of(r.head) not in self.static]
        self.strata = []
        for stratum in Program(dynamic + list(_BRIDGES)).strata():
            for part in self.condensed(stratum):
                self.evaluator.evaluate([part], self.facts)
                self.strata.append(part)

    def condensed(self, stratum) -> list:
        """``stratum``, its costly rules condensed (:mod:`ggp.reasoners.condense`)
        when it is not recursive (the relations its rules read are then
        complete, and their statistics exact): the helpers' strata, then
        the stratum with its rules rewritten."""
        if stratum.recursive:
            return [stratum]
        out: list = []
        clauses: list = []
        for clause in stratum.clauses:
            rules = condense(clause.head, clause.body, self.facts, self.static, self.names)
            for head, body in rules[:-1]:
                out.extend(self.helper(head, body))
            clauses.extend(
                Program([Rule(*rules[-1])]).strata()[0].clauses if len(rules) > 1 else [clause]
            )
        return out + [Stratum(stratum.relations, clauses, False)]

    def helper(self, head, body) -> list:
        """The stratum of a helper relation (static, and so exact, when
        every relation its body reads is)."""
        (stratum,) = Program([Rule(head, tuple(body))]).strata()
        if all(
            name_of(lit.literal if isinstance(lit, Not) else lit) in self.static  # type: ignore[arg-type]  # or/and are expanded by now
            for lit in body
            if not isinstance(lit, Distinct)
        ):
            self.static.add(name_of(head))
        return [stratum]


def _too_many(evaluator, clauses, store) -> bool:
    """Whether ``clauses`` (one relation's) derive more than
    :data:`DEMAND_FACTS` facts (counted with repeats, as they come)."""
    found = 0
    try:
        for clause in clauses:
            found += evaluator.run(
                clause, store, clause.head, lambda atom: None, rows=DEMAND_FACTS - found
            )
    except TooManyRows:
        return True
    return False


class Demanded:
    """A static relation answered call by call (module docstring), as a
    :class:`~ggp.reasoners.joins.Store` relation in ``demanded``.

    A call is a lookup of the joins: the shape of its literal, the paths of
    its bound arguments and their values.  Each rule of the relation is
    joined with the head variables those values bind (a rule whose head
    cannot take them is skipped), and the atoms derived that fit the call
    are its answers, kept.  Negated literals of the rules are tested: the
    relations below are exact.  Only non-recursive relations are demanded,
    so the calls of one call end.
    """

    def __init__(self, name, clauses, domain: Domain):
        self.name, self.clauses, self.domain = name, clauses, domain
        self._calls: dict = {}
        self._members: dict = {}

    def index(self, shape, key_paths) -> _Calls:
        calls = self._calls.get((shape, key_paths))
        if calls is None:
            calls = self._calls[(shape, key_paths)] = _Calls(self, shape, key_paths)
        return calls

    def __contains__(self, atom) -> bool:
        known = self._members.get(atom)
        if known is None:
            if isinstance(atom, str):
                known = bool(self.index((), ()).get(()))
            else:
                paths = tuple((i,) for i in range(1, len(atom)))
                known = bool(self.index((), paths).get(atom[1:]))
            self._members[atom] = known
        return known

    def answer(self, shape, key_paths, key) -> list:
        """The atoms of this relation that fit ``shape`` with ``key`` at ``key_paths``."""
        found: dict = {}
        for clause in self.clauses:
            given = _pre_bind(clause.head, key_paths, key)
            if given is not None:
                self.domain.evaluator.run(
                    clause, self.domain.facts, clause.head, found.setdefault, given=given
                )
        return index_builder(shape, key_paths)(found).get(key, [])


class _Calls:
    """The answers of the calls of one shape and key paths, by key (what
    :meth:`ggp.reasoners.joins.Store.index` gives for a demanded relation)."""

    __slots__ = ("relation", "shape", "key_paths", "answers")

    def __init__(self, relation: Demanded, shape, key_paths):
        self.relation, self.shape, self.key_paths = relation, shape, key_paths
        self.answers: dict = {}

    def get(self, key, default=None):
        answers = self.answers.get(key)
        if answers is None:
            answers = self.answers[key] = self.relation.answer(self.shape, self.key_paths, key)
        return answers or default


def _pre_bind(head, key_paths, key) -> dict | None:
    """The head variables a call's key binds (variable -> value); None when
    the head cannot take the key.  A path that runs through a head variable
    binds nothing: the answers are filtered by the call anyway."""
    given: dict = {}
    for path, value in zip(key_paths, key):
        term = head
        for i in path:
            if isinstance(term, Var) or not isinstance(term, tuple):
                break
            if len(term) <= i:
                return None
            term = term[i]
        else:
            if not _bind(term, value, given):
                return None
    return given


def _bind(pattern, value, given) -> bool:
    """Extend ``given`` so that ``pattern`` equals the ground ``value``."""
    if isinstance(pattern, Var):
        if given.setdefault(pattern, value) != value:
            return False
        return True
    if isinstance(pattern, tuple):
        return (
            isinstance(value, tuple)
            and len(value) == len(pattern)
            and value[0] == pattern[0]
            and all(_bind(p, v, given) for p, v in zip(pattern[1:], value[1:]))
        )
    return pattern == value


def relaxed_facts(rules, limit: int = 2_000_000, effort: Effort | None = None) -> Store:
    """Every atom derivable in the relaxation, the static relations' exact
    (see :class:`Domain`)."""
    return Domain(rules, limit, effort).facts


def base_and_input(
    rules, limit: int = 2_000_000, effort: Effort | None = None
) -> tuple[list, list]:
    """Base propositions (possible ``true`` facts) and inputs ((role, move)
    pairs); :class:`~ggp.statemachine.GameError` as :class:`Domain`."""
    try:
        facts = relaxed_facts(rules, limit, effort)
    except GameError as exc:
        raise type(exc)(f"the relaxed domain cannot be computed: {exc}") from None
    base = sorted((a[1] for a in facts.get("true")), key=term_key)
    inputs = sorted(
        ((a[1], a[2]) for a in facts.get("does")), key=lambda rm: (term_key(rm[0]), term_key(rm[1]))
    )
    return base, inputs
