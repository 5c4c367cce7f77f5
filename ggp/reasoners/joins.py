"""Compiled joins: the body of a rule as nested Python loops over indexed facts.

The grounder evaluates every rule of a game over sets of facts that may hold
millions of atoms (the static relations, the relaxed reachable domain), and
then instantiates every rule once more over them.  A generic interpreter of
rule bodies (:func:`ggp.reasoners.datalog.solutions`, the oracle's) spends most of
its time on its own bookkeeping: binding dictionaries copied at each step,
terms rebuilt by recursion.  Here each rule body is planned once and
translated into the Python source of a function made of nested loops, one per
literal, whose variables are local variables; CPython then runs the join
itself with little else to do (code generation as database engines do; compare
Neumann, "Efficiently Compiling Efficient Query Plans for Modern Hardware",
VLDB 2011).

Planning
    The literals are joined in the order that an estimate of their fan-out
    suggests, the greedy choice of classical join ordering (Selinger et al.,
    "Access Path Selection in a Relational Database Management System", 1979):
    after a literal whose variables are all bound by then (a membership test,
    fan-out at most one) and every negation and ``distinct`` as soon as their
    variables are bound, the positive literal with the fewest matches
    expected, given what is bound: the relation's size divided by the number
    of distinct values at each bound place (places taken as independent), ties
    in the order written.  ``(true (cell ?nx ?ny ?c))`` then comes before
    ``(sum ?x ?dx ?zx)`` when ``?x`` is not yet bound, where the order written
    enumerated every ``?x``.  A positive literal whose unbound variables
    nothing later reads is only tested for a match (a semi-join), not
    enumerated.

Indexes
    A literal is looked up in an index of its relation keyed by the values at
    its bound places; the index holds only the atoms that fit the literal's
    shape (function symbols, arities, constants, a variable repeated), so that
    every atom of a bucket matches and only its unbound variables are read
    off.  Indexes are made on first use and dropped when the relation grows.

Determinism
    Relations are insertion-ordered (dicts used as sets) and every loop runs
    over them or over buckets filled in their order: the same rules and facts
    give the same atoms in the same order in every process, whatever Python's
    string hashing.  Work is counted, never timed: every atom a lookup offers
    counts one against an :class:`ggp.reasoners.datalog.Effort`.
"""

from __future__ import annotations

from typing import NamedTuple

from gdl import Distinct, Not, Var
from gdl.ast import name_of, variables
from ggp.reasoners.datalog import BUILD_LOG, MAX_DEPTH, Effort, refuse_deep
from ggp.statemachine import GameError

_EMPTY: tuple = ()
#: Loops nested in one generated function at most (CPython refuses more than
#: 20 nested blocks); a longer plan continues in a function of its own.
MAX_NESTING = 16


def _is_var(t) -> bool:
    return isinstance(t, Var)


def _is_positive(lit) -> bool:
    return isinstance(lit, (str, tuple)) and not isinstance(lit, Var)


def _leaves(term, path=()):
    """(path, leaf) for each variable or constant under ``term`` (a path
    indexes into nested tuples), and (path, compound) for each compound
    subterm below the root, outermost first."""
    out = []
    for i, sub in enumerate(term[1:], 1):
        p = path + (i,)
        if isinstance(sub, tuple):
            out.append((p, sub))
            out.extend(_leaves(sub, p))
        else:
            out.append((p, sub))
    return out


def _at(expr: str, path) -> str:
    return expr + "".join(f"[{i}]" for i in path)


def _term(t, names) -> str:
    """Python source building the term ``t``, variables read from ``names``."""
    if isinstance(t, Var):
        return names[t]
    if isinstance(t, tuple):
        return "(" + ", ".join([repr(str(t[0]))] + [_term(a, names) for a in t[1:]]) + ",)"
    return repr(str(t))


def _get(atom, path):
    for i in path:
        atom = atom[i]
    return atom


def _compile(source: str, name: str, label: str, scope: dict):
    """The function ``name`` defined by our generated ``source``."""
    exec(compile(source, label, "exec"), scope)  # noqa: S102 - source we generated
    return scope[name]


class Store:
    """Relations as insertion-ordered sets of ground atoms (dicts), with
    their indexes and statistics (dropped when the relation grows).

    A relation in ``demanded`` is not held whole: it is an object that
    answers the lookups of the joins itself, computing only what they ask
    (``index(shape, key_paths)`` gives a mapping from keys to the matching
    atoms, ``in`` tests an atom), as :class:`ggp.reasoners.domains.Demanded` does for
    static relations too large to compute whole."""

    __slots__ = ("sets", "demanded", "virtual", "_indexes", "_stats")

    def __init__(self, sets: dict | None = None):
        self.sets = {
            r: atoms if isinstance(atoms, dict) else dict.fromkeys(atoms)
            for r, atoms in (sets or {}).items()
        }
        self.demanded: dict = {}
        #: relation -> (size, {argument index: distinct values}): the
        #: expected statistics of a relation not computed yet
        self.virtual: dict = {}
        self._indexes: dict = {}
        self._stats: dict = {}

    def get(self, relation):
        demanded = self.demanded.get(relation)
        return demanded if demanded is not None else self.sets.get(relation, _EMPTY)

    def size(self, relation) -> int:
        return len(self.sets.get(relation, _EMPTY))

    def define(self, relation) -> None:
        self.sets.setdefault(relation, {})

    def add_new(self, relation, atoms) -> list:
        """Add ``atoms`` to ``relation`` (kept in their order); the new ones."""
        target = self.sets.setdefault(relation, {})
        new = [a for a in dict.fromkeys(atoms) if a not in target]
        if new:
            target.update(dict.fromkeys(new))
            self._indexes.pop(relation, None)
            self._stats.pop(relation, None)
        return new

    def index(self, relation, shape, key_paths) -> dict:
        """The atoms of ``relation`` that fit ``shape`` (:func:`_shape`), by
        their values at ``key_paths``."""
        demanded = self.demanded.get(relation)
        if demanded is not None:
            return demanded.index(shape, key_paths)
        by_shape = self._indexes.setdefault(relation, {})
        index = by_shape.get((shape, key_paths))
        if index is None:
            index = by_shape[(shape, key_paths)] = index_builder(shape, key_paths)(
                self.sets.get(relation, _EMPTY)
            )
        return index

    def estimate(self, relation, shape, key_paths) -> float:
        """Atoms of ``relation`` a lookup of ``shape`` keyed at ``key_paths``
        is expected to offer: those that fit the shape, divided by the number
        of distinct values at each key place (places taken as independent).
        A demanded relation is taken to offer one atom to a lookup with a
        key, and very many to one without."""
        if relation in self.demanded:
            return 1.0 if key_paths else 1e12
        if relation in self.virtual and relation not in self.sets:
            size, distinct = self.virtual[relation]
            divisor = 1.0
            for path in key_paths:
                divisor *= distinct.get(path[0], size) if len(path) == 1 else 1.0
            return max(size / divisor, 1.0)
        stats = self._stats.setdefault(relation, {})
        entry = stats.get(shape)
        if entry is None:
            fitting = self.index(relation, shape, ()).get((), _EMPTY)
            entry = stats[shape] = (fitting, {})
        fitting, distinct = entry
        size = len(fitting)
        if not key_paths or size == 0:
            return float(size)
        divisor = 1
        for path in key_paths:
            d = distinct.get(path)
            if d is None:
                d = distinct[path] = len({_get(a, path) for a in fitting})
            divisor *= d
        return max(size / divisor, 1.0)

    def distinct(self, lit, var) -> float:
        """The values ``var`` may take as the positive literal ``lit``
        (nothing bound) offers them: distinct values at its first place."""
        relation = name_of(lit)
        shape, _ = _shape(lit, ())
        path = next(p for p, leaf in _leaves(lit) if leaf == var)
        if relation in self.demanded:
            return 1e6
        if relation in self.virtual and relation not in self.sets:
            size, distinct = self.virtual[relation]
            return distinct.get(path[0], size) if len(path) == 1 else size
        self.estimate(relation, shape, ())
        fitting, distinct = self._stats[relation][shape]
        d = distinct.get(path)
        if d is None:
            d = distinct[path] = len({_get(a, path) for a in fitting})
        return float(d)


_BUILDERS: dict = {}


def index_builder(shape, key_paths):
    """A function that indexes a sequence of atoms: those that pass the
    tests of ``shape``, by their values at ``key_paths`` (generated once per
    shape and key)."""
    builder = _BUILDERS.get((shape, key_paths))
    if builder is None:
        key = "(" + "".join(_at("a", p) + ", " for p in key_paths) + ")"
        source = "\n".join(
            [
                "def build(atoms):",
                "    out = {}",
                "    for a in atoms:",
                f"        if {' and '.join(shape) or 'True'}:",
                f"            k = {key}",
                "            bucket = out.get(k)",
                "            if bucket is None:",
                "                out[k] = [a]",
                "            else:",
                "                bucket.append(a)",
                "    return out",
            ]
        )
        builder = _BUILDERS[(shape, key_paths)] = _compile(source, "build", "<index>", {})
    return builder


def _shape(lit, bound) -> tuple:
    """(shape, keys) of the positive literal ``lit`` given the variables
    ``bound`` before it.  The shape is the tests (Python source on an atom
    ``a``) an atom must pass to match: function symbols and arities of its
    compound arguments, its constants, its fresh variables that repeat;
    ``keys`` pairs the path of each leaf that is a bound variable with the
    variable.  Every atom of a bucket of the index then matches."""
    if not isinstance(lit, tuple):
        return (), ()
    tests: list = []
    keys: list = []
    first: dict = {}
    for path, leaf in _leaves(lit):
        here = _at("a", path)
        if isinstance(leaf, tuple):
            tests.append(
                f"type({here}) is tuple and len({here}) == {len(leaf)} "
                f"and {here}[0] == {str(leaf[0])!r}"
            )
        elif isinstance(leaf, Var):
            if leaf in bound:
                keys.append((path, leaf))
            elif leaf in first:
                tests.append(f"{here} == {_at('a', first[leaf])}")
            else:
                first[leaf] = path
        else:
            tests.append(f"{here} == {str(leaf)!r}")
    return tuple(tests), tuple(keys)


class Step:
    """One literal of a plan.  ``kind``: ``loop`` (enumerate its matches,
    binding its fresh variables), ``exists`` (some match; nothing later reads
    its fresh variables), ``member`` (the atom, all bound, holds), ``absent``
    (the negated atom does not), ``distinct``, or ``skip`` (a negation the
    caller decides later).  ``delta``: it reads the round's new atoms.
    ``fanout``: the matches a ``loop`` is expected to offer (else 1)."""

    __slots__ = ("kind", "lit", "shape", "keys", "delta", "fanout")

    def __init__(self, kind, lit, shape=(), keys=(), delta=False, fanout=1.0):
        self.kind, self.lit, self.shape, self.keys, self.delta = kind, lit, shape, keys, delta
        self.fanout = fanout

    def signature(self) -> tuple:
        return self.kind, self.lit, self.shape, self.keys, self.delta


def plan(
    body, store: Store, outputs, delta_at=None, exact=frozenset(), negation: bool = True, given=()
) -> list:
    """The literals of ``body`` in join order, as :class:`Step` s (module
    docstring, "Planning").

    ``outputs`` are the variables the caller reads in each solution.
    Literal ``delta_at`` (if not None) comes first and reads the round's new
    atoms.  With ``negation`` False, a negated literal of a relation not in
    ``exact`` is not tested (``skip``); one of ``exact`` always is.  The
    variables ``given`` are bound before the first literal.
    """
    left = list(range(len(body)))
    bound: set = set(given)
    steps = []

    def take(i, delta=False):
        lit = body[i]
        left.remove(i)
        if isinstance(lit, Distinct):
            steps.append(Step("distinct", lit))
            return
        if isinstance(lit, Not):
            atom = lit.literal
            tested = negation or name_of(atom) in exact
            steps.append(Step("absent" if tested else "skip", atom))
            return
        fresh = [v for v in dict.fromkeys(variables(lit)) if v not in bound]
        if not fresh and not delta:
            steps.append(Step("member", lit))
            return
        shape, keys = _shape(lit, bound)
        later = set(outputs)
        for j in left:
            later.update(variables(body[j]))
        kind = "loop" if delta or any(v in later for v in fresh) else "exists"
        fanout = (
            store.estimate(name_of(lit), shape, tuple(p for p, _ in keys))
            if kind == "loop"
            else 1.0
        )
        steps.append(Step(kind, lit, shape, keys, delta, fanout))
        bound.update(fresh)

    if delta_at is not None:
        take(delta_at, delta=True)
    while left:
        for i in list(left):  # negations and distinct as soon as they can
            if not _is_positive(body[i]) and set(variables(body[i])) <= bound:
                take(i)
        positives = [i for i in left if _is_positive(body[i])]
        if not positives:
            break
        members = [i for i in positives if set(variables(body[i])) <= bound]
        if members:
            take(members[0])
            continue
        best, best_cost = positives[0], None
        for i in positives:
            shape, keys = _shape(body[i], bound)
            cost = store.estimate(name_of(body[i]), shape, tuple(p for p, _ in keys))
            if best_cost is None or cost < best_cost:
                best, best_cost = i, cost
        take(best)
    for i in list(left):  # unsafe leftovers (the validator reports them)
        take(i)
    return steps


def plan_cost(steps) -> tuple[float, float]:
    """(atoms the lookups of ``steps`` are expected to offer, solutions
    expected), from the fan-outs of their loops."""
    cost, rows = 0.0, 1.0
    for step in steps:
        if step.kind == "loop":
            cost += rows * step.fanout
            rows *= step.fanout
    return cost, rows


class _Over(Exception):
    """A generated join went past its limit of work."""


class _Rows(Exception):
    """A generated join found more solutions than its limit."""


class TooManyRows(GameError):
    """A join found more solutions than it was allowed (``relation``: whose)."""

    def __init__(self, relation: str):
        super().__init__(relation)
        self.relation = relation


class Join:
    """A compiled plan (module docstring).  ``run`` calls ``emit`` with the
    term ``out`` instantiated for every solution."""

    def __init__(self, steps, out, relation: str, given=()):
        self.steps, self.out, self.relation = steps, out, relation
        self._tables: list = []  # per table argument: (step, kind)
        chunks: list = []
        self._chunk(0, {v: f"g{i}" for i, v in enumerate(given)}, chunks, "join")
        self.source = "\n\n".join(chunks)
        self._run = _compile(
            self.source,
            "join",
            f"<join {relation}>",
            {"_EMPTY": _EMPTY, "_Over": _Over, "_Rows": _Rows},
        )

    def _chunk(self, start, names, chunks, fname):
        """Add to ``chunks`` the source of the function ``fname`` that runs
        steps ``start``... (and of the functions it continues in)."""
        names = dict(names)
        lines = [
            f"def {fname}({', '.join(['T', 'emit', 'lim', 'rlim', *names.values()])}):",
            "    n = r = 0",
        ]
        depth, loops = 1, 0
        for k in range(start, len(self.steps)):
            step, pad = self.steps[k], "    " * depth
            if step.kind == "skip":
                continue
            if step.kind == "loop" and loops == MAX_NESTING:
                cont = f"join{k}"
                args = ", ".join(["T", "emit", "lim - n", "rlim - r", *names.values()])
                lines += [f"{pad}dn, dr = {cont}({args})", f"{pad}n += dn", f"{pad}r += dr"]
                self._chunk(k, names, chunks, cont)
                break
            lit = step.lit
            if step.kind == "distinct":
                lines.append(f"{pad}if {_term(lit.left, names)} != {_term(lit.right, names)}:")
            elif step.kind in ("member", "absent"):
                op = "in" if step.kind == "member" else "not in"
                lines.append(f"{pad}if {_term(lit, names)} {op} T[{self._table(k, 'set')}]:")
            else:
                t = self._table(k, "delta" if step.delta else "index")
                key = "(" + "".join(f"{names[v]}, " for _, v in step.keys) + ")"
                if step.kind == "exists":
                    lines += [f"{pad}n += 1", f"{pad}if T[{t}].get({key}):"]
                else:
                    lines += [
                        f"{pad}p{k} = T[{t}].get({key}, _EMPTY)",
                        f"{pad}n += len(p{k})",
                        f"{pad}if n > lim:",
                        f"{pad}    raise _Over",
                        f"{pad}for a{k} in p{k}:",
                    ]
                    loops += 1
                    for path, leaf in _leaves(lit):
                        if isinstance(leaf, Var) and leaf not in names:
                            names[leaf] = f"v{len(names)}"
                            lines.append(f"{pad}    {names[leaf]} = {_at(f'a{k}', path)}")
            depth += 1
        else:
            pad = "    " * depth
            lines += [
                f"{pad}r += 1",
                f"{pad}if r > rlim:",
                f"{pad}    raise _Rows",
                f"{pad}emit({_term(self.out, names)})",
            ]
        lines.append("    return n, r")
        chunks.insert(0, "\n".join(lines))

    def _table(self, k, kind) -> int:
        self._tables.append((k, kind))
        return len(self._tables) - 1

    def run(
        self,
        store: Store,
        emit,
        effort: Effort | None = None,
        delta=None,
        given=(),
        rows: float = float("inf"),
    ) -> int:
        """Every solution, ``emit`` ted; ``delta`` holds the new atoms the
        delta step reads, ``given`` the values of the variables the plan was
        made with bound.  The atoms the lookups offer count against
        ``effort`` (:class:`ggp.reasoners.datalog.TooMuchWork` past it); more than
        ``rows`` solutions raise :class:`TooManyRows` as soon as they are
        found, before they fill the memory.  Returns the solutions."""
        tables = []
        for k, kind in self._tables:
            step = self.steps[k]
            if kind == "set":
                tables.append(store.get(name_of(step.lit)))
            elif kind == "delta":
                tables.append(index_builder(step.shape, ())(delta))
            else:
                tables.append(
                    store.index(name_of(step.lit), step.shape, tuple(p for p, _ in step.keys))
                )
        limit = effort.left if effort is not None else float("inf")
        try:
            work, found = self._run(tables, emit, limit, rows, *given)
        except _Over:
            work, found = limit + 1, 0
        except _Rows:
            raise TooManyRows(self.relation) from None
        if effort is not None:
            effort.spend(work, self.relation)
        return found


class Joins:
    """The compiled joins of a program, made on demand and kept per plan
    (two plans that order the same literals the same way share a function)."""

    def __init__(self):
        self._compiled: dict = {}

    def join(self, steps, out, relation: str, given=()) -> Join:
        key = (tuple(s.signature() for s in steps), out, tuple(given))
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = self._compiled[key] = Join(steps, out, relation, given)
        return compiled


class Stratum(NamedTuple):
    """Relations evaluated together: their clauses (objects with ``head``,
    ``body`` and ``relation``, as :class:`ggp.reasoners.datalog.Program` makes
    them), and whether they are recursive."""

    relations: frozenset
    clauses: list
    recursive: bool


class Evaluator:
    """Bottom-up evaluation of stratified rules with compiled joins.

    ``exact`` names the relations whose facts are complete before
    evaluation starts (the static ones, when the others are relaxed):
    with ``negation`` False, a negated literal of any other relation is
    dropped, which is the relaxation of the reachable domain
    (:mod:`ggp.reasoners.domains`).  Each stratum is evaluated to its fixpoint
    semi-naively: after a first pass over the facts known, a round joins
    each recursive literal with the atoms the last round found, the other
    literals with all atoms.  Plans are kept per rule and literal, made again
    when a relation they read has grown or shrunk by more than half since
    (their estimates would be stale).

    ``limit`` bounds the facts derived by all evaluations of this evaluator
    (``derived`` counts them), ``effort`` the work of their joins; a single
    join stops as soon as it finds four times ``limit`` solutions, before
    they fill the memory.
    """

    def __init__(
        self,
        exact=frozenset(),
        negation: bool = True,
        limit: int | None = None,
        effort: Effort | None = None,
    ):
        self.exact, self.negation = exact, negation
        self.limit, self.effort = limit, effort
        self.derived = 0
        self.joins = Joins()
        self._plans: dict = {}

    def plan(self, clause, store: Store, outputs, delta_at=None, given=()) -> list:
        key = (id(clause), delta_at, outputs, given)
        sizes = tuple(store.size(name_of(lit)) for lit in clause.body if _is_positive(lit))
        kept = self._plans.get(key)
        if kept is not None and all(
            (a == 0) == (b == 0) and b <= 2 * a and a <= 2 * b for a, b in zip(kept[0], sizes)
        ):
            return kept[1]
        steps = plan(clause.body, store, outputs, delta_at, self.exact, self.negation, given)
        self._plans[key] = (sizes, steps, clause)  # the clause kept alive: its id stays its own
        return steps

    def run(
        self,
        clause,
        store,
        out,
        emit,
        delta_at=None,
        delta=None,
        given=None,
        rows: float | None = None,
    ) -> int:
        """``emit`` ``out`` for every solution of ``clause`` (literal
        ``delta_at`` drawn from ``delta``; ``given``: values of variables
        bound beforehand, variable -> value); how many there were.  More
        than ``rows`` solutions (default: four times the limit) raise
        :class:`TooManyRows`."""
        names = tuple(given or ())
        steps = self.plan(clause, store, tuple(dict.fromkeys(variables(out))), delta_at, names)
        if rows is None:
            rows = 4 * self.limit if self.limit is not None else float("inf")
        return self.joins.join(steps, out, clause.relation, names).run(
            store, emit, self.effort, delta, tuple((given or {}).values()), rows
        )

    def evaluate(self, strata, store: Store) -> Store:
        """Add to ``store`` everything ``strata`` derive (their relations are
        defined first).  :class:`ggp.statemachine.GameError` past the limit
        of facts derived, past the effort, or when a recursion builds terms
        nested without bound (:func:`ggp.reasoners.datalog.refuse_deep`)."""
        for stratum in strata:
            for r in stratum.relations:
                store.define(r)
            found: dict = {}
            for c in stratum.clauses:
                self._derive(c, store, found)
            delta = self._add(store, found)
            rounds = 0
            while stratum.recursive and any(delta.values()):
                rounds += 1
                if rounds > MAX_DEPTH:  # a long recursion: are its terms growing?
                    refuse_deep(delta)
                found = {}
                for c in stratum.clauses:
                    for i, lit in enumerate(c.body):
                        if _is_positive(lit) and delta.get(name_of(lit)):
                            self._derive(c, store, found, i, delta[name_of(lit)])
                delta = self._add(store, found)
                if self.limit is not None and any(delta.values()):
                    named = sorted(r for r in stratum.relations if not r.startswith("__"))
                    BUILD_LOG.info(
                        "relaxed domain: %s facts derived (round %d of the recursion of %s)",
                        f"{self.derived:,}",
                        rounds,
                        ", ".join(named[:3] or sorted(stratum.relations)[:1]),
                    )
        return store

    def _derive(self, clause, store, found, delta_at=None, delta=None):
        """The heads ``clause`` derives, into ``found`` (relation -> dict of atoms)."""
        try:
            self.run(
                clause,
                store,
                clause.head,
                found.setdefault(clause.relation, {}).setdefault,
                delta_at,
                delta,
            )
        except TooManyRows as exc:
            raise GameError(
                f"more than {self.limit:,} facts derived (relation "
                f"'{exc.relation}' adding the most)"
            ) from None

    def _add(self, store, found) -> dict:
        """Add the atoms ``found`` to ``store``; the new ones, by relation
        (GameError past the limit)."""
        delta = {r: store.add_new(r, atoms) for r, atoms in found.items()}
        self.derived += sum(map(len, delta.values()))
        if self.limit is not None and self.derived > self.limit:
            raise GameError(
                f"more than {self.limit:,} facts derived (relation "
                f"'{max(delta, key=lambda r: len(delta[r]))}' adding the most)"
            )
        return delta
