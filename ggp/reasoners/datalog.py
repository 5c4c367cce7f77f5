"""The Datalog core of the reference reasoner: bottom-up, stratified evaluation
of the rules in pure Python, written to be obviously right rather than fast.

It computes the stratified model of the rules (the semantics of the GDL
specification, Love et al. 2008, section 4) for the oracle state machine
(:mod:`ggp.reasoners.reference`), which adds the facts of a state and a joint
move; the other reasoners build on its parts (the demand-driven one on its
indexes and bindings, the compiled one's grounding on its :class:`Program`,
:class:`Effort` and build log).

Evaluation
    The rules, with ``or``/``and`` expanded, are grouped by strongly connected
    component of the relation dependency graph and evaluated component by
    component, dependencies first (stratified negation is thereby respected).
    A recursive component is evaluated to its fixpoint semi-naively: after the
    first round, each round only tries derivations that use a fact found in the
    previous round.

Phases
    Relations that depend on neither ``true`` nor ``does`` are computed once
    (static); those that depend on ``true`` only, once per state (``legal``,
    ``goal``, ``terminal``); those that depend on ``does`` (``next``, ``sees``),
    once per state and joint move (:class:`Program` sorts the strata so).

Joins
    A positive literal is matched through an index of its relation's atoms on
    the arguments bound by then (:class:`Facts`, :class:`LiteralStep`);
    :func:`solutions` enumerates a rule body's bindings.  The work they do is
    counted in candidate atoms against an :class:`Effort` (never in seconds),
    or checked against a deadline (:func:`give_up_past`, :func:`watched`); a
    recursion building ever deeper terms is refused (:func:`refuse_deep`).
"""

from __future__ import annotations

import logging
import math
import time
from collections import defaultdict

from gdl import Distinct, Not, Var, to_kif
from gdl.ast import name_of, variables
from gdl.validate import expand
from ggp.reasoners.graphs import strongly_connected
from ggp.statemachine import GameError, Interrupted


def match_term(pattern, ground, b):
    """Extend bindings ``b`` so that ``pattern`` equals ``ground``; None if impossible."""
    if isinstance(pattern, Var):
        bound = b.get(pattern)
        if bound is None:
            b = dict(b)
            b[pattern] = ground
            return b
        return b if bound == ground else None
    if isinstance(pattern, str):
        return b if pattern == ground else None
    if not isinstance(ground, tuple) or len(ground) != len(pattern) or pattern[0] != ground[0]:
        return None
    for p, g in zip(pattern[1:], ground[1:]):
        b = match_term(p, g, b)
        if b is None:
            return None
    return b


def instantiate(t, b):
    """The term ``t`` with the variables that bindings ``b`` bind replaced."""
    if isinstance(t, Var):
        return b.get(t, t)
    if isinstance(t, tuple):
        return (t[0],) + tuple(instantiate(a, b) for a in t[1:])
    return t


class Facts:
    """Derived atoms by relation, with indexes on bound argument positions.

    ``lookup`` returns the atoms that agree with a pattern on its bound
    arguments (an index built on first use, dropped when the relation grows).  Indexes of the
    ``shared`` relations (the static ones) are kept in ``shared_index`` and so
    outlive this object.
    """

    __slots__ = ("sets", "index", "shared", "shared_index", "legal")

    def __init__(self, sets, shared=frozenset(), shared_index=None):
        self.sets = sets
        self.index = {}
        self.shared = shared
        self.shared_index = shared_index if shared_index is not None else {}

    def get(self, relation):
        return self.sets.get(relation, ())

    def copy(self):
        """A copy sharing the atom sets, to be extended by further strata."""
        return Facts(dict(self.sets), self.shared, self.shared_index)

    def _indexes(self, relation):
        return self.shared_index if relation in self.shared else self.index

    def define(self, relation):
        self.sets[relation] = set(self.sets.get(relation, ()))
        self._indexes(relation).pop(relation, None)

    def add(self, relation, atoms):
        self.sets[relation] |= atoms
        self._indexes(relation).pop(relation, None)

    def lookup(self, relation, positions, key):
        """Atoms of ``relation`` whose terms at ``positions`` (see :func:`_at`)
        equal ``key``."""
        by_positions = self._indexes(relation).setdefault(relation, {})
        table = by_positions.get(positions)
        if table is None:
            table = {}
            for atom in self.sets.get(relation, ()):
                at = tuple(_at(atom, p) for p in positions)
                if _MISSING not in at:
                    table.setdefault(at, []).append(atom)
            by_positions[positions] = table
        return table.get(key, ())


_MISSING = object()


def _at(atom, position):
    """The term of ``atom`` at ``position``: argument ``i`` for an int ``i``;
    for a pair ``(i, j)``, argument ``j`` of the compound argument ``i`` (its
    function symbol for ``j == 0``); :data:`_MISSING` where there is none."""
    if isinstance(position, int):
        return atom[position] if isinstance(atom, tuple) and len(atom) > position else _MISSING
    i, j = position
    if not (
        isinstance(atom, tuple)
        and len(atom) > i
        and isinstance(atom[i], tuple)
        and len(atom[i]) > j
    ):
        return _MISSING
    return atom[i][j]


class _Clause:
    """One conjunctive rule, its body ordered so that every negation and
    ``distinct`` comes as soon as its variables are bound.

    ``seeded(i)`` is the same rule with positive body literal ``i`` joined
    first, for the semi-naive rounds in which that literal takes only new facts.
    """

    __slots__ = ("head", "relation", "body", "steps", "_seeded")

    def __init__(self, head, literals):
        self.head = head
        self.relation = name_of(head)
        self._seeded = {}
        positives = [lit for lit in literals if isinstance(lit, (str, tuple))]
        checks = [lit for lit in literals if not isinstance(lit, (str, tuple))]
        bound: set = set()
        body = []
        for lit in positives + [None]:
            ready = [c for c in checks if set(variables(c)) <= bound]
            body.extend(ready)
            checks = [c for c in checks if c not in ready]
            if lit is not None:
                body.append(lit)
                bound.update(variables(lit))
        body.extend(checks)  # unsafe leftovers: the validator reports them
        self.body = tuple(body)
        self.steps = []
        bound = set()
        for lit in self.body:
            self.steps.append(LiteralStep(lit, bound) if isinstance(lit, (str, tuple)) else None)
            if isinstance(lit, (str, tuple)):
                bound |= set(variables(lit))

    def seeded(self, i):
        """(the rule with body literal ``i`` first, that literal's new position)."""
        if i not in self._seeded:
            lit = self.body[i]
            variant = _Clause(self.head, (lit,) + self.body[:i] + self.body[i + 1 :])
            self._seeded[i] = (variant, variant.body.index(lit))
        return self._seeded[i]


class LiteralStep:
    """How to match a positive literal, given the variables bound before it.

    ``positions`` are the arguments ground by then (the index key), and in
    a compound argument that is not, its function symbol and its arguments
    ground by then (``(i, j)``, see :func:`_at`): ``(true (cell ?x ?y ?p))``
    with ``?x`` bound looks up the cells of that column, not every ``true``
    fact; ``key_terms`` are the literal's terms there.  ``free`` pairs each
    other argument with the variable it binds, when all of them are
    distinct fresh variables (the usual case); otherwise ``free`` is None and
    ``rest`` pairs each other argument with its pattern, matched term by term.
    """

    __slots__ = ("positions", "key_terms", "free", "arity", "rest")

    def __init__(self, lit, bound):
        self.rest = ()
        if isinstance(lit, str):
            self.positions, self.key_terms, self.free, self.arity = (), (), (), 0
            return
        args = lit[1:]
        self.arity = len(args)
        ground = tuple(i for i, a in enumerate(args, 1) if set(variables(a)) <= bound)
        inner = tuple(
            (i, j)
            for i, a in enumerate(args, 1)
            if i not in ground and isinstance(a, tuple)
            for j, sub in enumerate(a)
            if j == 0 or set(variables(sub)) <= bound
        )
        self.positions = ground + inner
        self.key_terms = tuple(lit[i] for i in ground) + tuple(lit[i][j] for i, j in inner)
        rest = [(i, a) for i, a in enumerate(args, 1) if i not in ground]
        fresh = [a for _, a in rest]
        simple = all(isinstance(a, Var) for a in fresh) and len(set(fresh)) == len(fresh)
        self.free = tuple(rest) if simple else None
        self.rest = tuple(rest)


class _Stratum:
    __slots__ = ("relations", "clauses", "recursive")

    def __init__(self, relations, clauses, recursive):
        self.relations = relations
        self.clauses = clauses
        self.recursive = recursive


class Program:
    """The rules of a description, stratified and split into the three phases."""

    def __init__(self, rules):
        self._strata = []
        clauses = [_Clause(rule.head, lits) for rule in rules for lits, _ in expand(rule)]
        graph = defaultdict(set)
        for c in clauses:
            graph[c.relation]
            for lit in c.body:
                atom = lit.literal if isinstance(lit, Not) else lit
                if isinstance(atom, (str, tuple)):
                    graph[c.relation].add(name_of(atom))
        by_relation = defaultdict(list)
        for c in clauses:
            by_relation[c.relation].append(c)
        reach = {}  # relation -> every relation it depends on
        for comp in strongly_connected(graph):  # dependencies first
            deps = set().union(*(graph.get(r, set()) for r in comp))
            reach_comp = set(deps)
            for d in deps - comp:
                reach_comp |= reach[d]
            for r in comp:
                reach[r] = reach_comp
            phase = (
                "move"
                if reach_comp & {"does", "next"}
                else "state"
                if "true" in reach_comp
                else "static"
            )
            stratum = _Stratum(
                frozenset(comp),
                [c for r in sorted(comp) for c in by_relation[r]],
                bool(deps & comp),
            )
            if stratum.clauses:
                self._strata.append((phase, stratum))

    def strata(self, phase=None):
        """The strata of one phase (``static``, ``state`` or ``move``; all
        when None), dependencies first."""
        return [s for p, s in self._strata if phase is None or p == phase]

    # --- evaluation ----------------------------------------------------------
    @staticmethod
    def evaluate(strata, facts, limit=None, effort=None):
        """Add to ``facts`` (a :class:`Facts`) everything the strata derive.

        Raises :class:`GameError` when more than ``limit`` atoms are derived,
        when a recursive relation nests terms deeper than :data:`MAX_DEPTH`
        levels (its atoms have no bound: each round of a recursion that
        builds terms adds a level, and costs more than the last), or when the
        joins exceed ``effort`` (see :func:`solutions`).
        """
        derived = 0
        for stratum in strata:
            for r in stratum.relations:
                facts.define(r)
            found = {}
            for c in stratum.clauses:
                for atom in Program._derive(c, facts, None, None, effort):
                    if atom not in facts.sets[c.relation]:
                        found.setdefault(c.relation, set()).add(atom)
            for r, atoms in found.items():
                facts.add(r, atoms)
            delta = found
            rounds = 0
            while stratum.recursive and delta:
                rounds += 1
                if rounds > MAX_DEPTH:  # a long recursion: are its terms growing?
                    refuse_deep(delta)
                found = {}
                for c in stratum.clauses:
                    for i, lit in enumerate(c.body):
                        if isinstance(lit, (str, tuple)) and name_of(lit) in delta:
                            variant, at = c.seeded(i)
                            for atom in Program._derive(
                                variant, facts, at, delta[name_of(lit)], effort
                            ):
                                if atom not in facts.sets[c.relation]:
                                    found.setdefault(c.relation, set()).add(atom)
                for r, atoms in found.items():
                    facts.add(r, atoms)
                    derived += len(atoms)
                if limit is not None:
                    named = sorted(r for r in stratum.relations if not r.startswith("__"))
                    BUILD_LOG.info(
                        "relaxed domain: %s facts derived (round %d of the recursion of %s)",
                        f"{derived:,}",
                        rounds,
                        ", ".join(named[:3] or sorted(stratum.relations)[:1]),
                    )
                if limit is not None and derived > limit:
                    raise GameError(
                        f"more than {limit:,} facts derived (relation "
                        f"'{max(found, key=lambda r: len(found[r]))}' adding "
                        f"the most)"
                    )
                delta = found
        return facts

    @staticmethod
    def _derive(clause, facts, delta_at, delta, effort=None):
        """Ground heads of ``clause`` (literal ``delta_at`` drawn from ``delta`` only)."""
        found = solutions(clause, facts, delta_at, delta, effort=effort)
        if effort is not None:
            found = effort.watch(found, clause.relation)
        return [instantiate(clause.head, b) for b in found]


#: What a game's build is doing, for a user waiting on it (``ggp`` prints it
#: once a build has taken a couple of seconds).
BUILD_LOG = logging.getLogger("ggp.build")


class TooMuchWork(GameError):
    """The joins ran out of their :class:`Effort`."""


class Effort:
    """A budget of work for the joins of an analysis, counted in candidate
    atoms examined (see :func:`solutions`): never in seconds, so that what an
    analysis finds, or where it stops, is the same on any machine under any
    load.  ``used`` says how much was spent."""

    __slots__ = ("left", "limit")

    def __init__(self, limit):
        self.left = self.limit = limit

    @property
    def used(self):
        return self.limit - self.left

    def watch(self, pool, relation: str):
        """``pool``, the candidate atoms of one join, as the join iterates
        them (a :class:`Clock` checks its deadline on the way)."""
        return pool

    def spend(self, atoms: int, relation: str) -> None:
        """Count ``atoms`` examined for ``relation``; :class:`TooMuchWork` past the limit."""
        self.left -= atoms
        if self.left < 0:
            raise TooMuchWork(
                f"the joins examined more than {self.limit:,} candidate atoms "
                f"(at relation '{relation}')"
            )


class Clock:
    """An :class:`Effort` of time, not work: it raises
    :class:`~ggp.statemachine.Interrupted` once ``deadline`` has passed, when
    a join begins and every :data:`CHECK_EVERY` candidate atoms of a join."""

    __slots__ = ("deadline",)

    def __init__(self, deadline: float):
        self.deadline = deadline

    def spend(self, atoms: int, relation: str) -> None:
        give_up_past(self.deadline, relation)

    def watch(self, pool, relation: str):
        return watched(pool, self.deadline, relation)


#: Candidate atoms between two looks at the clock of a question with a deadline.
CHECK_EVERY = 256


def give_up_past(deadline: float, relation: str) -> None:
    """:class:`~ggp.statemachine.Interrupted` (naming ``relation``, being
    evaluated) once ``deadline`` (``time.monotonic()``) has passed."""
    if time.monotonic() > deadline:
        raise Interrupted(f"given up at the deadline (at relation '{relation}')")


def watched(items, deadline: float, relation: str):
    """``items`` as they are when there is no ``deadline`` (infinite) or
    they are few, else one by one with :func:`give_up_past` every
    :data:`CHECK_EVERY`."""
    if deadline == math.inf or len(items) <= CHECK_EVERY:
        return items
    return _checked(items, deadline, relation)


def _checked(items, deadline: float, relation: str):
    for i, item in enumerate(items):
        if not i % CHECK_EVERY:
            give_up_past(deadline, relation)
        yield item


#: The deepest nesting of terms a recursive relation may build (the parser
#: refuses input nested deeper than 90 levels).
MAX_DEPTH = 100


def _depth(term, cap: int) -> int:
    """How deeply ``term`` nests (a constant: 0), counting up to ``cap`` + 1 at most."""
    deepest, todo = 0, [(term, 0)]
    while todo and deepest <= cap:
        t, d = todo.pop()
        if isinstance(t, tuple):
            deepest = max(deepest, d + 1)
            todo.extend((x, d + 1) for x in t[1:])
    return deepest


def refuse_deep(delta: dict) -> None:
    """:class:`GameError` when an atom of ``delta`` (relation -> new atoms)
    nests deeper than :data:`MAX_DEPTH`, naming its relation."""
    for relation, atoms in delta.items():
        for atom in atoms:
            if _depth(atom, MAX_DEPTH) > MAX_DEPTH:
                text = to_kif(atom)
                raise GameError(
                    f"relation '{relation}' builds terms nested deeper than "
                    f"{MAX_DEPTH} levels, as {text[:60]}"
                    f"{'...' if len(text) > 60 else ''}: they have no bound"
                )


def extend(step, lit, atom, b):
    """The bindings ``b`` extended so that the positive literal ``lit``
    (matched as its :class:`LiteralStep` says) equals ``atom``; None if it cannot."""
    if len(atom) != len(lit):
        return None
    if step.free is None:
        for p, pattern in step.rest:
            b = match_term(pattern, atom[p], b)
            if b is None:
                return None
        return b
    b = dict(b)
    for p, var in step.free:
        b[var] = atom[p]
    return b


def solutions(clause, facts, delta_at=None, delta=None, negation=True, effort=None) -> list:
    """Every binding of the variables of ``clause`` that satisfies its body.

    Literal ``delta_at`` is matched against ``delta`` only (semi-naive rounds).
    With ``negation=False`` negative literals are not tested (the grounder
    decides them later); ``distinct`` always is.  ``effort``, an
    :class:`Effort`, counts the candidate atoms the joins examine.
    """
    body = clause.body
    steps = clause.steps
    n = len(body)
    out = []

    def solve(i, b):
        if i == n:
            out.append(b)
            if effort is not None and not len(out) % CHECK_EVERY:
                effort.spend(0, clause.relation)  # a clock looks at the time
            return
        lit = body[i]
        if isinstance(lit, Distinct):
            if instantiate(lit.left, b) != instantiate(lit.right, b):
                solve(i + 1, b)
            return
        if isinstance(lit, Not):
            if not negation or instantiate(lit.literal, b) not in facts.get(name_of(lit.literal)):
                solve(i + 1, b)
            return
        step = steps[i]
        if step.free == ():  # every argument bound: a membership test
            atom = instantiate(lit, b)
            if atom in (delta if i == delta_at else facts.get(name_of(lit))):
                solve(i + 1, b)
            return
        key = tuple(instantiate(t, b) for t in step.key_terms)
        if i == delta_at:
            pool = [
                a
                for a in delta
                if len(a) == len(lit) and tuple(_at(a, p) for p in step.positions) == key
            ]
        else:
            pool = facts.lookup(lit[0], step.positions, key)
        if effort is not None:
            effort.spend(len(pool), clause.relation)
            pool = effort.watch(pool, clause.relation)
        for atom in pool:
            b2 = extend(step, lit, atom, b)
            if b2 is not None:
                solve(i + 1, b2)

    solve(0, {})
    solve = None  # type: ignore[assignment]  # it refers to itself: break the cycle, free it
    return out
