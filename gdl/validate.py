"""Static validation of GDL and GDL-II descriptions.

The restrictions are those of the GDL specification (Love, Hinrichs, Haley,
Schkufza, Genesereth: "General Game Playing: Game Description Language
Specification", Stanford, 2008, section 3 and its definitions of safety,
stratification and the recursion restriction) and of GDL-II (Thielscher 2010,
``sees`` and ``random``).  What only play can show (termination, playability,
one goal per role) is checked by ``ggp check``.

Every finding is a :class:`~gdl.errors.Diagnostic` naming file, line, column,
the rule broken, and what is wrong.
"""

from __future__ import annotations

from collections import defaultdict

from gdl.ast import (
    And,
    Distinct,
    Not,
    Or,
    Position,
    Rule,
    Var,
    args_of,
    arity_of,
    is_ground,
    name_of,
    variables,
)
from gdl.errors import Diagnostic, GdlError
from gdl.printer import to_kif as _show

#: Arities fixed by GDL and GDL-II.
KEYWORD_ARITY = {
    "role": 1,
    "init": 1,
    "true": 1,
    "next": 1,
    "legal": 2,
    "does": 2,
    "goal": 2,
    "terminal": 0,
    "base": 1,
    "input": 2,
    "sees": 2,
}
#: The connectives, and how they are written.
CONNECTIVES = {
    "not": "(not literal)",
    "or": "(or literal ...)",
    "and": "(and literal ...)",
    "distinct": "(distinct term term)",
    "<=": "(<= head literal ...)",
}
_NEVER_IN_BODIES = ("init", "base", "input", "sees")
_NEVER_IN_HEADS = ("true", "does")
_NEVER_TURN_DEPENDENT = ("init", "base", "input", "role")
_NEVER_ACTION_DEPENDENT = ("legal", "goal", "terminal")


def expand(rule: Rule) -> list[tuple[tuple, tuple]]:
    """The rule's body as a disjunction of conjunctions (``or``/``and`` expanded).

    Returns ``[(literals, positions), ...]``, one pair per conjunctive body.
    """
    bodies = [((), ())]
    for i, lit in enumerate(rule.body):
        pos = rule.position_of(i)
        alternatives = _expand_literal(lit, pos)
        bodies = [
            (lits + a_lits, poss + a_poss)
            for lits, poss in bodies
            for a_lits, a_poss in alternatives
        ]
    return bodies


def _expand_literal(lit, pos):
    if isinstance(lit, Or):
        return [alt for x in lit.literals for alt in _expand_literal(x, x_pos(x, lit.pos))]
    if isinstance(lit, And):
        out = [((), ())]
        for x in lit.literals:
            out = [
                (a + b, pa + pb) for a, pa in out for b, pb in _expand_literal(x, x_pos(x, lit.pos))
            ]
        return out
    return [((lit,), (pos,))]


def x_pos(lit, default):
    """Position of a literal: its own for connectives, ``default`` for atoms."""
    return getattr(lit, "pos", default)


class _Validator:
    def __init__(self, description):
        self.rules = list(description)
        self.path = getattr(description, "path", "<string>")
        self.found: list[Diagnostic] = list(getattr(description, "warnings", ()))

    def error(self, pos, kind, message):
        self.found.append(Diagnostic(pos, kind, message))

    def warn(self, pos, kind, message):
        self.found.append(Diagnostic(pos, kind, message, "warning"))

    # --- the checks, in the order a reader fixes them -----------------------
    def run(self) -> list[Diagnostic]:
        """Run the checks stage by stage, stopping after the first stage with
        errors: each stage relies on what the ones before it checked (a keyword
        misused as a relation, or a relation used with two arities, would merge
        unrelated sentences in the dependency graph and mislead the later checks)."""
        self.clauses = [(r, lits, poss) for r in self.rules for lits, poss in expand(r)]
        stages = (
            (self.check_literals, self.check_keyword_shapes),
            (self.check_arities, self.check_keyword_placement),
            (self.check_safety, self.check_dependencies, self.check_roles_and_goals),
        )
        for stage in stages:
            for check in stage:
                check()
            if any(d.severity == "error" for d in self.found):
                break
        return self.found

    def check_literals(self):
        for rule, lits, poss in self.clauses:
            for lit, pos in zip(lits, poss):
                if isinstance(lit, Not) and not isinstance(lit.literal, (str, tuple)):
                    what = type(lit.literal).__name__.lower()
                    self.error(
                        pos, "negation", f"'not' must apply directly to a sentence, not to '{what}'"
                    )

    def atoms(self):
        """Every sentence of the description once, in file order, as
        ``(atom, position, rule, in_head)``: heads and body sentences (also
        inside ``not``, ``or`` and ``and``)."""
        for rule in self.rules:
            yield rule.head, rule.pos, rule, True
            for i, lit in enumerate(rule.body):
                for atom, pos in _sentences(lit, rule.position_of(i)):
                    yield atom, pos, rule, False

    def check_keyword_shapes(self):
        """A connective used as a relation, or standing alone as a proposition,
        and a keyword that takes arguments standing alone: ``(<= terminal not
        open)`` lacks the parentheses of ``(not open)``.  Inside terms keywords
        are plain symbols (GDL-II percepts ``(sees ?r (does ?p ?m))``)."""
        for atom, pos, rule, in_head in self.atoms():
            name = name_of(atom)
            fixed = KEYWORD_ARITY.get(name, 0)
            if name in CONNECTIVES:
                hint = f"write {CONNECTIVES[name]}"
            elif fixed and isinstance(atom, str):
                hint = f"'{name}' takes {fixed} argument{'s' if fixed != 1 else ''}"
            else:
                continue
            used = "proposition" if isinstance(atom, str) else "relation"
            where = (
                ("in a rule head" if rule.body else "in a fact")
                if in_head
                else f"in the rule for {_show(rule.head)}"
            )
            self.error(pos, "keyword", f"keyword '{name}' used as a {used} {where}; {hint}")

    def check_arities(self):
        """Keywords have their fixed arities, and every other relation one arity."""
        sentence = {}  # relation -> {arity: position of its first use with it}
        function = {}  # function -> (arity, position of its first use)
        for atom, pos, _, _ in self.atoms():
            name, n = name_of(atom), arity_of(atom)
            fixed = KEYWORD_ARITY.get(name)
            uses = sentence.setdefault(name, {})
            if fixed is not None and n != fixed:
                self.error(
                    pos,
                    "arity",
                    f"'{name}' takes {fixed} argument"
                    f"{'s' if fixed != 1 else ''}, got {n}: {_show(atom)}",
                )
            elif fixed is None and uses and n not in uses:
                first_n, first_pos = next(iter(uses.items()))
                self.error(
                    pos,
                    "arity",
                    f"relation '{name}' used with {n} arguments here but {first_n} at {first_pos}",
                )
            uses.setdefault(n, pos)
            for f in _functions(args_of(atom)):
                fname, fn = f[0], len(f) - 1
                if fname in function and function[fname][0] != fn:
                    self.warn(
                        pos,
                        "arity",
                        f"function '{fname}' used with {fn} arguments "
                        f"here but {function[fname][0]} at {function[fname][1]}",
                    )
                function.setdefault(fname, (fn, pos))
        for name in sentence.keys() & function.keys():
            if name not in KEYWORD_ARITY:
                self.warn(
                    function[name][1],
                    "arity",
                    f"'{name}' is used both as a relation "
                    f"and as a function; is 'true' missing around it?",
                )
        self.sentence_names = set(sentence)

    def check_keyword_placement(self):
        for atom, pos, _, in_head in self.atoms():
            name = name_of(atom)
            if in_head and name in _NEVER_IN_HEADS:
                self.error(pos, "keyword", f"'{name}' may only appear in rule bodies")
            if not in_head and name in _NEVER_IN_BODIES:
                self.error(pos, "keyword", f"'{name}' may only appear in rule heads")
        for rule in self.rules:
            if name_of(rule.head) == "role" and (rule.body or not is_ground(rule.head)):
                self.error(
                    rule.pos, "keyword", "roles must be ground facts '(role name)', not rules"
                )

    def check_safety(self):
        for rule, lits, poss in self.clauses:
            bound = {v for lit in lits if isinstance(lit, (str, tuple)) for v in variables(lit)}
            for v in variables(rule.head):
                if v not in bound:
                    self.error(
                        rule.pos,
                        "safety",
                        f"unsafe rule: variable {v} in the head "
                        f"{_show(rule.head)} occurs in no positive body literal",
                    )
                    break
            for lit, pos in zip(lits, poss):
                if isinstance(lit, (Not, Distinct)):
                    free = [v for v in variables(lit) if v not in bound]
                    if free:
                        self.error(
                            pos,
                            "safety",
                            f"unsafe rule: variable {free[0]} in {_show(lit)} "
                            f"occurs in no positive body literal",
                        )

    def check_dependencies(self):
        """The checks on the dependency graph of the relations."""
        graph, negative = self.dependency_graph()
        names = set(graph) | {d for deps in graph.values() for d in deps}
        self.reach = {n: _reachable(graph, n) for n in names}
        self.check_stratification(graph, negative)
        self.check_keyword_dependencies(graph)
        self.check_recursion()

    def dependency_graph(self):
        graph = defaultdict(set)  # head relation -> relations it depends on
        negative = defaultdict(dict)  # head -> {relation: position of the negation}
        for rule, lits, poss in self.clauses:
            head = name_of(rule.head)
            graph[head]
            for lit, pos in zip(lits, poss):
                if isinstance(lit, Not) and isinstance(lit.literal, (str, tuple)):
                    graph[head].add(name_of(lit.literal))
                    negative[head].setdefault(name_of(lit.literal), pos)
                elif isinstance(lit, (str, tuple)):
                    graph[head].add(name_of(lit))
        return graph, negative

    def check_stratification(self, graph, negative):
        for head, negs in negative.items():
            for dep, pos in negs.items():
                if head in self.reach[dep]:
                    self.error(
                        pos,
                        "stratification",
                        f"negation is not stratified: '{head}' depends on "
                        f"(not {dep}) and '{dep}' depends on '{head}'",
                    )

    def check_keyword_dependencies(self, graph):
        for name in _NEVER_TURN_DEPENDENT:
            bad = self.reach.get(name, set()) & {"true", "does"}
            if bad:
                self.error(
                    self._defined_at(name, sorted(bad)[0]),
                    "keyword",
                    f"'{name}' must not depend on '{sorted(bad)[0]}'",
                )
        for name in _NEVER_ACTION_DEPENDENT:
            if "does" in self.reach.get(name, ()):
                self.error(
                    self._defined_at(name, "does"), "keyword", f"'{name}' must not depend on 'does'"
                )
        # Dresden's GDL-II games read (next x) in the bodies of `sees` rules:
        # the facts of the state being made.  Only percepts may do that.
        for name in self.reach:
            if (
                "next" in self.reach[name]
                and name != "sees"
                and (name in KEYWORD_ARITY or self.reach_from_keywords(name))
            ):
                self.error(
                    self._defined_at(name, "next"),
                    "keyword",
                    f"'{name}' must not depend on 'next' (only 'sees' may)",
                )

    def reach_from_keywords(self, name) -> bool:
        """True when a keyword other than ``sees`` depends on relation ``name``."""
        return any(name in self.reach.get(k, ()) for k in KEYWORD_ARITY if k != "sees")

    def _defined_at(self, name, bad):
        """The first rule for ``name`` whose body leads to ``bad`` (else its first rule)."""
        for rule, lits, _ in self.clauses:
            if name_of(rule.head) == name:
                for lit in lits:
                    lit = lit.literal if isinstance(lit, Not) else lit
                    if isinstance(lit, (str, tuple)) and (
                        name_of(lit) == bad or bad in self.reach.get(name_of(lit), ())
                    ):
                        return rule.pos
        return next(r.pos for r in self.rules if name_of(r.head) == name)

    def check_recursion(self):
        """The recursion restriction: each argument of a positive body literal in
        a cycle with the head is ground, or an argument of the head, or its
        variables all appear somewhere (inside function terms too) in positive
        body literals not in a cycle with the head."""
        for rule, lits, poss in self.clauses:
            head = name_of(rule.head)
            positive = [(lit, pos) for lit, pos in zip(lits, poss) if isinstance(lit, (str, tuple))]
            cyclic = [(lit, pos) for lit, pos in positive if head in self.reach[name_of(lit)]]
            if not cyclic:
                continue
            head_args = set(args_of(rule.head))
            bound = {
                v
                for lit, _ in positive
                if head not in self.reach[name_of(lit)]
                for v in variables(lit)
            }
            for lit, pos in cyclic:
                for arg in args_of(lit):
                    if arg not in head_args and not set(variables(arg)) <= bound:
                        self.error(
                            pos,
                            "recursion",
                            f"recursion restriction: argument {_show(arg)} of the "
                            f"recursive literal {_show(lit)} is not ground, not an "
                            f"argument of the head, and not bound by a "
                            f"non-recursive positive literal",
                        )

    def check_roles_and_goals(self):
        first = self.rules[0].pos if self.rules else Position(self.path, 1, 1)
        declared = {}  # role -> position of its first declaration, in file order
        repeated = set()
        for r in self.rules:
            if name_of(r.head) == "role" and arity_of(r.head) == 1 and not r.body:
                if r.head[1] in declared and r.head[1] not in repeated:
                    repeated.add(r.head[1])
                    self.error(r.pos, "roles", f"role '{r.head[1]}' is declared more than once")
                declared.setdefault(r.head[1], r.pos)
        roles = list(declared)
        if not roles:
            self.error(first, "roles", "no '(role ...)' fact: a game needs at least one role")
        if "terminal" not in self.sentence_names or not any(
            name_of(r.head) == "terminal" for r in self.rules
        ):
            self.error(first, "terminal", "no rule or fact defines 'terminal'")
        for keyword, what in (("legal", "legal move"), ("goal", "goal value")):
            heads = [
                r.head for r in self.rules if name_of(r.head) == keyword and arity_of(r.head) == 2
            ]
            for role in roles:
                if role == "random" and keyword == "goal":
                    continue
                if not any(isinstance(h[1], Var) or h[1] == role for h in heads):
                    self.error(
                        declared[role],
                        keyword,
                        f"role '{role}' has no {what}: no '{keyword}' rule or fact names it",
                    )
        for r in self.rules:
            if name_of(r.head) == "goal" and arity_of(r.head) == 2:
                value = r.head[2]
                if (
                    isinstance(value, str)
                    and not isinstance(value, Var)
                    and not (value.isdigit() and 0 <= int(value) <= 100)
                ):
                    self.error(
                        r.pos, "goal", f"goal value must be an integer 0..100, got {_show(value)}"
                    )


def _sentences(lit, pos):
    """The atoms of a body literal (also inside ``not``, ``or`` and ``and``),
    each with the position :func:`expand` gives it."""
    if isinstance(lit, (Or, And)):
        for x in lit.literals:
            yield from _sentences(x, x_pos(x, lit.pos))
        return
    if isinstance(lit, Not):
        lit = lit.literal
    if isinstance(lit, (str, tuple)):
        yield lit, pos


def _functions(args):
    for a in args:
        if isinstance(a, tuple):
            yield a
            yield from _functions(a[1:])


def _reachable(graph, start) -> set:
    """Every relation ``start`` depends on, directly or not (itself only via a cycle)."""
    seen, todo = set(), list(graph.get(start, ()))
    while todo:
        x = todo.pop()
        if x not in seen:
            seen.add(x)
            todo.extend(graph.get(x, ()))
    return seen


def validate(description) -> list[Diagnostic]:
    """All errors and warnings for a parsed description, in a stable order."""
    return _Validator(description).run()


def check(description) -> list[Diagnostic]:
    """Raise :class:`GdlError` if the description is invalid; else return its warnings."""
    found = validate(description)
    errors = [d for d in found if d.severity == "error"]
    if errors:
        raise GdlError(errors)
    return found
