"""Rewriting the rules before grounding, the same game in fewer, cheaper rules.

Each rewrite keeps what the rules say in every reachable state (the
compiled reasoner is checked against the reference one on every game) while
making the rules cheaper to ground:

* :func:`fix_constants`: a base fact that no ``next`` rule can create and an
  unconditional one always keeps (a maze's walls) holds in every reachable
  state exactly when it holds initially: its ``true`` literals become
  ``init`` literals, static, so that the relations reading it are computed
  once, exactly, negations included;
* :func:`factor`: independent parts of a rule body become helper relations;
* :func:`specialize`: relations always called with some constant arguments
  are specialized to those calls.
"""

from __future__ import annotations

from gdl import Not, Rule, Var, expand
from gdl.ast import is_ground, name_of, substitute, variables


def fix_constants(rules) -> list:
    """The rules with every ``(true F)`` literal of a constant base fact
    written ``(init F)`` (module docstring).

    A base fact is *constant* when every ``next`` rule that could make it
    only keeps it (its head ``(next X)`` has ``(true X)`` in its body, so it
    makes nothing that was not true) and one such rule keeps it
    unconditionally (its body is that one literal, and ``X`` is as general
    as the fact: distinct variables).  By induction over the steps of any
    play, such facts are then the initial ones in every reachable state.
    Facts are told apart by their function symbol and arity; the keeping
    rules themselves are left as they are, so that states still hold the
    facts.
    """
    clauses = [(rule, lits) for rule in rules for lits, _ in expand(rule)]
    makers: dict = {}  # (symbol, arity) -> [(clause keeps it, unconditionally)]
    anything = []  # (next ?x) heads: they may make any fact
    for rule, lits in clauses:
        if name_of(rule.head) != "next" or not isinstance(rule.head, tuple):
            continue
        made = rule.head[1]
        keeps = ("true", made) in lits
        if isinstance(made, Var):
            anything.append((keeps, lits == (("true", made),)))
        else:
            makers.setdefault(_form(made), []).append(
                (keeps, lits == (("true", made),) and _general(made))
            )
    if not all(keeps for keeps, _ in anything):
        return list(rules)
    always = any(plain for _, plain in anything)
    constant = {
        form
        for form, ways in makers.items()
        if all(keeps for keeps, _ in ways) and (always or any(p for _, p in ways))
    }
    if not constant:
        return list(rules)

    def fixed(lit):
        if isinstance(lit, Not):
            return Not(fixed(lit.literal), lit.pos)
        if (
            isinstance(lit, tuple)
            and lit[0] == "true"
            and not isinstance(lit[1], Var)
            and _form(lit[1]) in constant
        ):
            return ("init", lit[1])
        return lit

    out = []
    for rule, lits in clauses:
        keeper = name_of(rule.head) == "next" and lits == (("true", rule.head[1]),)
        out.append(Rule(rule.head, lits if keeper else tuple(fixed(x) for x in lits), rule.pos))
    return out


def _form(term) -> tuple:
    """A fact's function symbol and arity."""
    return (term, 0) if isinstance(term, str) else (term[0], len(term) - 1)


def _general(term) -> bool:
    """Whether ``term`` matches every fact of its form: distinct variables as arguments."""
    args = term[1:] if isinstance(term, tuple) else ()
    return all(isinstance(a, Var) for a in args) and len(set(args)) == len(args)


def factor(rules) -> list:
    """The rules with independent parts of each body split off into helper
    relations, so that grounding does not multiply them out.

    In ``(<= (next (cell ?x ?y ?p)) (true (cell ?x ?y ?p)) (does ?r (move ?a ?b))
    (distinct ?x ?a))`` the variables ``?r ?a ?b`` occur only in the last two
    literals: those become ``(aux ?x)``, whose ground instances are one OR per
    ``?x`` instead of one rule per (cell, move) pair.  A group of literals is
    split off when they are linked by variables that the head and the other
    literals do not use, and every variable it shares is bound by a positive
    literal of its own (so the helper rule is safe); a single literal too,
    when another group has variables of its own: ``(<= terminal (true
    (guessed p1 ?a)) (true (guessed p2 ?b)))`` is one rule per pair of
    guesses as written, one per guess split.
    """
    out: list = []
    for rule in rules:
        for lits, _ in expand(rule):
            out.extend(_factor_clause(rule, lits, len(out)))
    return out


#: Relations asked from outside the rules (or keywords): never specialized.
_QUERIED = frozenset(
    {"role", "init", "true", "does", "next", "legal", "goal", "terminal", "sees", "base", "input"}
)


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
    calls: dict = {}  # relation -> its call patterns (constant or None per argument)
    for rule in rules:
        for lit in rule.body:
            atom = lit.literal if isinstance(lit, Not) else lit
            if isinstance(atom, tuple):
                calls.setdefault(atom[0], set()).add(
                    tuple(a if is_ground(a) else None for a in atom[1:])
                )
            elif isinstance(atom, str):
                calls.setdefault(atom, set()).add(())
    out = []
    for rule in rules:
        patterns = calls.get(name_of(rule.head), ())
        if (
            name_of(rule.head) in _QUERIED
            or not isinstance(rule.head, tuple)
            or not patterns
            or any(all(c is None for c in p) for p in patterns)
            or any(
                isinstance(h, tuple) and not is_ground(h)
                for p in patterns
                for h, c in zip(rule.head[1:], p)
                if c is not None
            )
        ):
            out.append(rule)
            continue
        general = [
            p
            for p in patterns
            if not any(  # a call less bound covers p
                q != p and all(c is None or c == d for c, d in zip(q, p)) for q in patterns
            )
        ]
        for pattern in sorted(general, key=repr):
            binding: dict = {}
            for h, c in zip(rule.head[1:], pattern):
                if c is None:
                    continue
                h = binding.get(h, h)
                if isinstance(h, Var):
                    binding[h] = c
                elif h != c:
                    break
            else:
                out.append(
                    Rule(
                        substitute(rule.head, binding),
                        tuple(substitute(lit, binding) for lit in rule.body),
                        rule.pos,
                    )
                )
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
    with_locals = sum(
        1
        for members in groups.values()
        if any(v in local for i in members for v in variables(lits[i]))
    )
    for members in groups.values():
        group = [lits[i] for i in members]
        group_vars = {v for lit in group for v in variables(lit)}
        positive_vars = {
            v for lit in group if isinstance(lit, (str, tuple)) for v in variables(lit)
        }
        shared = sorted(group_vars - (group_vars & local))
        if (
            not (group_vars & local)
            or group_vars - positive_vars
            or (len(group) < 2 and with_locals < 2)
        ):
            body.extend(group)
            continue
        name = f"__aux{serial}_{len(helpers)}_{name_of(rule.head)}"
        atom = (name,) + tuple(shared) if shared else name
        helpers.append(Rule(atom, tuple(group), rule.pos))
        body.append(atom)
    return [Rule(rule.head, tuple(body), rule.pos)] + helpers
