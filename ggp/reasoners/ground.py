"""Grounding: instantiating the rules into ground rules over the relaxed domain.

Every clause (``or``/``and`` expanded) is joined over the facts that could ever
hold (:mod:`ggp.reasoners.domains`: negation ignored, ``true`` and ``does`` ranging over
every reachable base fact and move), with the relations that depend on neither
``true`` nor ``does`` taken at their exact values.  Each solution is a ground
rule ``head <- pos... , not neg...`` in which the static literals are already
decided: a static positive literal is true by construction and dropped, a
static negative literal either kills the rule or is dropped, and a negative
literal whose atom can never hold is dropped.

This is the relaxed instantiation of Kissmann and Edelkamp ("Instantiating
General Games using Prolog or Dependency Graphs", KI 2010), which is also the
usual first step of propositional-network reasoners (Schkufza, Love,
Genesereth, "Propositional Automata and Cell Automata", 2008).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Any

from gdl import Not
from gdl.ast import name_of
from ggp.reasoners.condense import condense
from ggp.reasoners.datalog import BUILD_LOG, Effort
from ggp.reasoners.domains import KEYWORDS, Domain
from ggp.reasoners.joins import TooManyRows
from ggp.reasoners.rewrite import factor, fix_constants, specialize
from ggp.statemachine import GameError, term_key


class GroundingTooLarge(GameError):
    """The game does not ground within the size limit."""


@dataclass
class GroundProgram:
    """The ground rules of a game and what they range over.

    The rules are over non-static relations only, and held as integers (a
    game may have a million of them): ``atoms`` numbers each ground atom they
    mention (atom -> id, in order of the ids), rule ``i`` is ``rule_head[i] <-
    rule_lits[rule_start[i]:rule_start[i + 1]]``, a literal being ``id * 2``,
    or ``id * 2 + 1`` when negated.  ``base`` lists the possible base facts and
    ``inputs`` the possible ``(role, move)`` pairs, both in :func:`term_key`
    order; ``static`` answers ``get(relation)`` with the facts of a static
    relation.
    """

    roles: tuple
    base: list
    inputs: list
    init: list
    atoms: dict
    rule_head: array
    rule_start: array
    rule_lits: array
    static: Any
    #: candidate atoms the joins examined (:class:`ggp.reasoners.datalog.Effort`)
    effort: int = 0


#: Ground rules a game may have before grounding gives up, and twice the
#: facts its static relations and relaxed domain may hold (``ggp
#: check/info/bench/count --ground-limit``): racer4 needs 2.2 million rules
#: (694 MB), gt_two_thirds_6p 1.2 million facts.
GROUND_LIMIT = 4_000_000
#: Candidate atoms grounding's joins may examine: past it a game counts as too
#: large rather than keeping its player busy for hours.  The dearest game that
#: builds, mastermind448, needs 120 million (28 s); small_dominion stops after
#: about a minute instead of grounding for hours (``--ground-effort``).
EFFORT = 150_000_000


def ground(rules, roles, limit: int = GROUND_LIMIT, effort: int = EFFORT) -> GroundProgram:
    """Ground a game's rules (after the rewrites of :mod:`ggp.reasoners.rewrite`);
    raise :class:`GroundingTooLarge` past ``limit`` ground rules (or relaxed
    facts) or ``effort`` candidate atoms joined.  Both limits count work,
    never time, so that a game builds the same network on any machine under
    any load.

    Each clause is joined over the domain (:class:`ggp.reasoners.domains.Domain`) by a
    compiled join (:mod:`ggp.reasoners.joins`) that tests its static literals and
    emits the rest: the ground rule.  Rules come out in the same order in
    every process, so atom and node numbers, hence seeded playouts, are the
    same in every run."""
    budget = Effort(effort)
    rules = specialize(factor(fix_constants(rules)))
    BUILD_LOG.info("grounding: the static relations and the relaxed domain")
    try:
        domain = Domain(rules, limit // 2, budget)  # facts: half the rules
    except GameError as exc:
        raise GroundingTooLarge(f"the relaxed domain cannot be computed: {exc}") from None
    grounder = _Grounder(domain, limit)
    for stratum in domain.strata:
        for clause in stratum.clauses:
            if clause.relation not in ("true", "does"):  # the relaxation's own
                grounder.clause(clause)
    facts, static = domain.facts, domain.static
    base = sorted({a[1] for a in facts.get("true")}, key=term_key)
    inputs = sorted(
        {(a[1], a[2]) for a in facts.get("does")},
        key=lambda rm: (roles.index(rm[0]) if rm[0] in roles else len(roles), term_key(rm[1])),
    )
    init = sorted({a[1] for a in facts.get("init")}, key=term_key)
    return GroundProgram(
        roles=tuple(roles),
        base=base,
        inputs=inputs,
        init=init,
        atoms=grounder.atoms,
        rule_head=grounder.heads,
        rule_start=grounder.starts,
        rule_lits=grounder.lits,
        static=_StaticFacts(facts, static),
        effort=budget.used,
    )


class _Grounder:
    """The ground rules of a domain's clauses, as :class:`GroundProgram`
    holds them, each distinct rule once."""

    def __init__(self, domain: Domain, limit: int):
        self.domain, self.limit = domain, limit
        self.atoms: dict = {}
        self.heads, self.starts, self.lits = array("i"), array("i", [0]), array("i")
        self._seen: set = set()
        self._relation = ""

    def clause(self, clause) -> None:
        """Ground ``clause``, condensed first if it is costly
        (:mod:`ggp.reasoners.condense`): its helpers are computed over the domain and
        ground before it."""
        domain, static, facts = self.domain, self.domain.static, self.domain.facts
        rules = condense(clause.head, clause.body, facts, static, domain.names)
        if len(rules) > 1:
            for head, body in rules[:-1]:
                for stratum in domain.helper(head, body):
                    domain.evaluator.evaluate([stratum], facts)
                    if stratum.clauses[0].relation not in static:
                        self.clause(stratum.clauses[0])
            (clause,) = domain.helper(*rules[-1])[0].clauses
        positive = tuple(
            lit
            for lit in clause.body
            if isinstance(lit, (str, tuple)) and name_of(lit) not in static
        )
        negative = tuple(
            lit.literal
            for lit in clause.body
            if isinstance(lit, Not) and name_of(lit.literal) not in static  # type: ignore[arg-type]  # or/and are expanded by now
        )
        self._relation = clause.relation
        try:
            domain.evaluator.run(
                clause, facts, ("", clause.head, ("", *positive), ("", *negative)), self._rule
            )
        except TooManyRows:
            raise GroundingTooLarge(
                f"more than {4 * self.limit:,} ground rules before "
                f"duplicates are dropped (at relation "
                f"'{clause.relation}')"
            ) from None
        except GameError as exc:
            raise GroundingTooLarge(str(exc)) from None
        BUILD_LOG.info(
            "grounding: %s ground rules (at relation '%s')", f"{len(self.heads):,}", clause.relation
        )

    def _rule(self, row) -> None:
        """Number a ground rule (a join's row: head, positive and negative
        literals) and keep it unless it is kept already; the negative
        literals of atoms that can never hold are dropped."""
        _, head, pos, neg = row
        atoms, facts = self.atoms, self.domain.facts
        number = atoms.setdefault
        body = [number(a, len(atoms)) * 2 for a in pos[1:]]
        body += [number(a, len(atoms)) * 2 + 1 for a in neg[1:] if a in facts.get(name_of(a))]
        rule = (number(head, len(atoms)), tuple(body))
        if rule not in self._seen:
            self._seen.add(rule)
            self.heads.append(rule[0])
            self.lits.extend(body)
            self.starts.append(len(self.lits))
            if len(self.heads) > self.limit:
                raise GroundingTooLarge(
                    f"more than {self.limit:,} ground rules (at relation '{self._relation}')"
                )


class _StaticFacts:
    """The facts of the static keyword relations (``legal``, ``goal``,
    ``terminal``, ``next``, ``sees``, ...), as the network reads them
    (``get``); plain sets, so that a ground program pickles (a background
    build sends it from another process)."""

    def __init__(self, facts, static):
        self._sets = {r: frozenset(facts.get(r)) for r in KEYWORDS if r in static}

    def get(self, relation):
        return self._sets.get(relation, ())
