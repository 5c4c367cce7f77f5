"""Grounding: instantiating the rules into ground rules over the relaxed domain.

Every clause (``or``/``and`` expanded) is joined over the facts that could ever
hold (:mod:`ggp.domains`: negation ignored, ``true`` and ``does`` ranging over
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

from gdl import Not, Rule, Var, expand
from gdl.ast import name_of, substitute, variables

from .domains import Domain
from .reference import BUILD_LOG, Effort, _is_ground, _subst
from .statemachine import GameError, term_key


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
    order.
    """

    roles: tuple
    base: list
    inputs: list
    init: list
    atoms: dict
    rule_head: array
    rule_start: array
    rule_lits: array
    static: Facts


def factor(rules) -> list:
    """The rules with independent parts of each body split off into helper
    relations, so that grounding does not multiply them out.

    In ``(<= (next (cell ?x ?y ?p)) (true (cell ?x ?y ?p)) (does ?r (move ?a ?b))
    (distinct ?x ?a))`` the variables ``?r ?a ?b`` occur only in the last two
    literals: those become ``(aux ?x)``, whose ground instances are one OR per
    ``?x`` instead of one rule per (cell, move) pair.  A group of literals is
    split off when they are linked by variables that the head and the other
    literals do not use, and every variable it shares is bound by a positive
    literal of its own (so the helper rule is safe).
    """
    out = []
    for rule in rules:
        for lits, _ in expand(rule):
            out.extend(_factor_clause(rule, lits, len(out)))
    return out


#: Relations asked from outside the rules (or keywords): never specialized.
_QUERIED = frozenset({"role", "init", "true", "does", "next", "legal", "goal", "terminal",
                      "sees", "base", "input"})


def specialize(rules) -> list:
    """The rules of each relation that every use calls with some constant
    arguments, specialized to those calls (a simple form of the magic-set
    restriction: only what some rule can ask for is derived and grounded).

    chineseCheckers3 asks ``(count h1 h2 i1 red ?payoff)`` and two more such
    calls, where ``count``'s rules range over every triple of cells: each of
    its rules becomes one per call pattern, with the call's constants put in
    its head (and body), and a rule whose head cannot take them dropped.  A
    relation with a use that binds no argument to a constant (or whose head
    has a compound term where a call has a constant) is kept as it is.
    """
    calls: dict = {}            # relation -> its call patterns (constant or None per argument)
    for rule in rules:
        for lit in rule.body:
            atom = lit.literal if isinstance(lit, Not) else lit
            if isinstance(atom, tuple):
                calls.setdefault(atom[0], set()).add(
                    tuple(a if _is_ground(a) else None for a in atom[1:]))
            elif isinstance(atom, str):
                calls.setdefault(atom, set()).add(())
    out = []
    for rule in rules:
        patterns = calls.get(name_of(rule.head), ())
        if (name_of(rule.head) in _QUERIED or not isinstance(rule.head, tuple) or not patterns
                or any(all(c is None for c in p) for p in patterns)
                or any(isinstance(h, tuple) and not _is_ground(h)
                       for p in patterns for h, c in zip(rule.head[1:], p) if c is not None)):
            out.append(rule)
            continue
        general = [p for p in patterns if not any(      # a call less bound covers p
            q != p and all(c is None or c == d for c, d in zip(q, p)) for q in patterns)]
        for pattern in sorted(general, key=repr):
            binding = {}
            for h, c in zip(rule.head[1:], pattern):
                if c is None:
                    continue
                h = binding.get(h, h)
                if isinstance(h, Var):
                    binding[h] = c
                elif h != c:
                    break
            else:
                out.append(Rule(_subst(rule.head, binding),
                                tuple(substitute(lit, binding) for lit in rule.body), rule.pos))
    return out


def _factor_clause(rule, lits, serial):
    lits = list(lits)
    head_vars = set(variables(rule.head))
    local = {v for lit in lits for v in variables(lit)} - head_vars
    # group literals linked through local variables (union-find on literal indices)
    parent = list(range(len(lits)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner = {}
    for i, lit in enumerate(lits):
        for v in variables(lit):
            if v in local:
                if v in owner:
                    parent[find(i)] = find(owner[v])
                else:
                    owner[v] = i
    groups = {}
    for i in range(len(lits)):
        groups.setdefault(find(i), []).append(i)
    if len(groups) < 2:
        return [Rule(rule.head, tuple(lits), rule.pos)]
    body, helpers = [], []
    for members in groups.values():
        group = [lits[i] for i in members]
        group_vars = {v for lit in group for v in variables(lit)}
        positive_vars = {v for lit in group if isinstance(lit, (str, tuple))
                         for v in variables(lit)}
        shared = sorted(group_vars - (group_vars & local))
        if not (group_vars & local) or group_vars - positive_vars or len(group) < 2:
            body.extend(group)
            continue
        name = f"__aux{serial}_{len(helpers)}_{name_of(rule.head)}"
        atom = (name,) + tuple(shared) if shared else name
        helpers.append(Rule(atom, tuple(group), rule.pos))
        body.append(atom)
    return [Rule(rule.head, tuple(body), rule.pos)] + helpers


#: Ground rules (and relaxed facts) a game may have before grounding gives up
#: (``ggp check/bench/count --ground-limit``).
GROUND_LIMIT = 1_000_000
#: Candidate atoms grounding's joins may examine: past it a game counts as too
#: large rather than keeping its player busy for hours.  The dearest game that
#: builds, mastermind448, needs 120 million (28 s); small_dominion stops after
#: about a minute instead of grounding for hours (``--ground-effort``).
EFFORT = 150_000_000


def ground(rules, roles, limit: int = GROUND_LIMIT, effort: int = EFFORT) -> GroundProgram:
    """Ground a game's rules (after :func:`factor` and :func:`specialize`);
    raise :class:`GroundingTooLarge` past ``limit`` ground rules (or relaxed
    facts) or ``effort`` candidate atoms joined.  Both limits count work,
    never time, so that a game builds the same network on any machine under
    any load.

    Each clause is joined over the domain (:class:`ggp.domains.Domain`) by a
    compiled join (:mod:`ggp.joins`) that tests its static literals and
    emits the rest: the ground rule.  Rules come out in the same order in
    every process, so atom and node numbers, hence seeded playouts, are the
    same in every run."""
    budget = Effort(effort)
    rules = specialize(factor(rules))
    BUILD_LOG.info("grounding: the static relations and the relaxed domain")
    try:
        domain = Domain(rules, limit, budget)
    except GameError as exc:
        raise GroundingTooLarge(f"the relaxed domain cannot be computed: {exc}") from None
    facts, static = domain.facts, domain.static
    atoms: dict = {}
    number = atoms.setdefault
    heads, starts, lits = array("i"), array("i", [0]), array("i")
    seen: set = set()
    for stratum in domain.program.strata("state") + domain.program.strata("move"):
        for clause in stratum.clauses:
            positive = tuple(lit for lit in clause.body
                             if isinstance(lit, (str, tuple)) and name_of(lit) not in static)
            negative = tuple(lit.literal for lit in clause.body
                             if isinstance(lit, Not) and name_of(lit.literal) not in static)
            rows: list = []
            try:
                domain.evaluator.run(clause, facts, ("", clause.head, ("", *positive),
                                                     ("", *negative)), rows.append, budget)
            except GameError as exc:
                raise GroundingTooLarge(str(exc)) from None
            for _, head, pos, neg in rows:
                body = [number(a, len(atoms)) * 2 for a in pos[1:]]
                body += [number(a, len(atoms)) * 2 + 1 for a in neg[1:]
                         if a in facts.get(name_of(a))]
                rule = (number(head, len(atoms)), tuple(body))
                if rule not in seen:
                    seen.add(rule)
                    heads.append(rule[0])
                    lits.extend(body)
                    starts.append(len(lits))
            BUILD_LOG.info("grounding: %s ground rules (at relation '%s')", f"{len(heads):,}",
                           clause.relation)
            if len(heads) > limit:
                raise GroundingTooLarge(
                    f"more than {limit} ground rules (at relation '{clause.relation}')")
    base = sorted({a[1] for a in facts.get("true")}, key=term_key)
    inputs = sorted({(a[1], a[2]) for a in facts.get("does")},
                    key=lambda rm: (roles.index(rm[0]) if rm[0] in roles else len(roles),
                                    term_key(rm[1])))
    init = sorted({a[1] for a in facts.get("init")}, key=term_key)
    return GroundProgram(tuple(roles), base, inputs, init, atoms, heads, starts, lits,
                         _StaticFacts(facts, static))


class _StaticFacts:
    """The static relations of a store, as the network reads them (``get``)."""

    def __init__(self, facts, static):
        self._facts, self._static = facts, static

    def get(self, relation):
        return self._facts.get(relation) if relation in self._static else ()
