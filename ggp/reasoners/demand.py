"""The demand-driven reasoner: top-down evaluation with tabling, for games that do not ground.

The reference reasoner derives every fact of a state, whatever the question;
grounding derives every fact of every state at once.  Both fail on games whose
auxiliary relations range over many cells at a time: chess's
``threatened_with_capture`` holds over owner x captured square x king square x
vacated square, tens of millions of candidate facts a state, of which a legal
move asks about one.  This reasoner answers a question (``legal``, ``next``,
``goal``, ``terminal``, ``sees``) by evaluating only the calls it needs, each
with the arguments its caller has bound (SLD resolution, Kowalski 1974), and
remembers each call's answers for the state (tabling, Tamaki and Sato 1986;
Chen and Warren 1996), so that a call made twice is solved once and a call
that recurs through itself terminates.

Evaluation
    A call is the literal with the caller's bindings substituted; its *key*
    replaces the caller's unbound variables by ``None``.  The answers of a key
    are the ground atoms its rules derive that agree with it.  A rule's body
    is ordered, for the arguments the call binds, as written, except that a
    negation, a ``distinct`` or a positive literal whose variables are all
    bound comes as soon as it can (a test before a search); its plan is kept
    per (rule, bound variables).  Static relations are computed once,
    bottom-up, as by the reference reasoner; ``true`` and ``does`` are the
    state's and the joint move's facts; every other relation is called.

Recursion
    A call of a relation in a recursive component of the dependency graph
    joins the *episode* of that component, begun by its first such call: the
    episode's calls are evaluated with the answers found so far and
    re-evaluated, all of them, until a pass adds no answer and no call (the
    least fixpoint of the calls made, as bottom-up evaluation over the
    magic-set rewriting would find).  Negation is stratified, so a negated call
    is always of a lower component, complete before it is read.

Same answers, in the same order, as the reference reasoner (``tests/test_demand.py``
compares them step by step on every game).
"""

from __future__ import annotations

import math
from collections import OrderedDict, defaultdict
from typing import cast

from gdl import Distinct, Not, Var
from gdl.ast import name_of, variables
from gdl.validate import expand
from ggp.reasoners import DEMAND, register
from ggp.reasoners.datalog import (
    CHECK_EVERY,
    Facts,
    LiteralStep,
    extend,
    give_up_past,
    instantiate,
    match_term,
    watched,
)
from ggp.reasoners.reference import ReferenceMachine, recall, remember
from ggp.statemachine import GameError, single_goal, term_key


def _key(t, b):
    """``t`` with the bindings ``b`` substituted and every unbound variable ``None``."""
    if isinstance(t, Var):
        return b.get(t)
    if isinstance(t, tuple):
        return (t[0],) + tuple(_key(a, b) for a in t[1:])
    return t


def _complete(k) -> bool:
    """True when the key ``k`` has no ``None`` in it (it is ground)."""
    if k is None:
        return False
    if isinstance(k, tuple):
        return all(_complete(a) for a in k[1:])
    return True


def _fits(k, g) -> bool:
    """True when the ground term ``g`` agrees with the key ``k``."""
    if k is None or k == g:
        return True
    if isinstance(k, tuple) and isinstance(g, tuple) and len(k) == len(g) and k[0] == g[0]:
        return all(_fits(a, x) for a, x in zip(k[1:], g[1:]))
    return False


def _unify_head(h, k, b):
    """Extend ``b`` (a dict of its own) with what the key ``k`` tells of the
    head term ``h``: a variable of ``h`` is bound where ``k`` is ground there.
    None when they cannot agree."""
    if k is None:
        return b
    if isinstance(h, Var):
        v = b.get(h)
        if v is None:
            if _complete(k):
                b[h] = k
            return b
        return b if _fits(k, v) else None
    if isinstance(h, str):
        return b if h == k else None
    if not isinstance(k, tuple) or len(k) != len(h) or k[0] != h[0]:
        return None
    for x, y in zip(h[1:], k[1:]):
        if _unify_head(x, y, b) is None:
            return None
    return b


def _flat(head):
    """For a head whose arguments are constants and variables (the usual
    case): (position, is a variable, the term) per argument; else None."""
    if isinstance(head, str):
        return ()
    if any(isinstance(a, tuple) for a in head[1:]):
        return None
    return tuple((i, isinstance(a, Var), a) for i, a in enumerate(head[1:], 1))


def _unify_flat(flat, k):
    """:func:`_unify_head` for a head described by :func:`_flat`: new bindings or None."""
    b = {}
    for i, var, x in flat:
        a = k[i]
        if a is None:
            continue
        if not var:
            if a != x:
                return None
            continue
        v = b.get(x)
        if v is None:
            if type(a) is str or _complete(a):
                b[x] = a
        elif not _fits(a, v):
            return None
    return b


_TEST, _NOT_BASE, _NOT_CALL, _BASE, _CALL = range(5)

#: The most answers one call may have in one state: 46 times the largest
#: table of the public games (amazons' legal moves, 2,176; 16 to 308 in the 21
#: others measured, random play).  A call with millions, such as a role's
#: 200^4 legal moves, would fill the memory answer by answer, so past this
#: its question fails (:class:`TooManyAnswers`), in about 1.5 s.  A count, not
#: a time: it fails the same on any machine, however busy.
ANSWERS = 100_000


class TooManyAnswers(GameError):
    """A call of the demand-driven reasoner with more than :data:`ANSWERS`
    answers in one state, named as ``(legal a ?)`` (``?``: not bound)."""

    def __init__(self, k):
        super().__init__(
            f"{_shown(k)} has more than {ANSWERS:,} answers in one state, more "
            "than the demand-driven reasoner holds"
        )


def _shown(k) -> str:
    """The call with key ``k`` as KIF, ``?`` where an argument is not bound."""
    if k is None:
        return "?"
    if isinstance(k, tuple):
        return "(" + " ".join([k[0], *map(_shown, k[1:])]) + ")"
    return k


class _Table:
    __slots__ = ("answers", "done", "filling")

    def __init__(self):
        self.answers = set()
        self.done = self.filling = False


class _Questions:
    """The facts and tables of one state, or of one state and joint move:
    ``tables`` holds the calls of relations that read ``does``, ``state_tables``
    (the state's own, shared by its joint moves) those of the others."""

    __slots__ = ("facts", "tables", "state_tables", "legal")

    def __init__(self, facts, state_tables):
        self.facts, self.state_tables, self.legal = facts, state_tables, {}
        self.tables = {}


@register
class DemandMachine(ReferenceMachine):
    """Top-down evaluation with tabling (see the module docstring).

    Roles and states are those of the reference reasoner (a state is the
    frozenset of its true base facts).  The static relations given as
    facts are held whole; the others are called as the state's relations
    are, their tables kept for the machine's life (``_static_tables``), so
    that a static relation is only computed where a question needs it:
    mummymaze1p's ``direction-from`` (6.5 million facts, most of them off
    its board) and laikLee_hex's lists of cells (past 6 GB computed whole).
    """

    name = DEMAND

    def __init__(self, rules, cache_size: int = 16):
        super().__init__(rules, cache_size)
        self._clauses = defaultdict(list)
        for rule in rules:
            for lits, _ in expand(rule):
                self._clauses[name_of(rule.head)].append((rule.head, lits, _flat(rule.head)))
        self._phase, self._component = {}, {}  # the reference's strata say both
        for phase in ("static", "state", "move"):
            for stratum in self.program.strata(phase):
                if phase == "static" and all(not c.body for c in stratum.clauses):
                    continue  # facts: held whole
                for r in stratum.relations:
                    self._phase[r] = phase
                    if stratum.recursive:
                        self._component[r] = stratum.relations
        self._plans: dict = {}
        self._static_tables: dict = {}
        self._episodes: dict = {}
        self._cycle = False
        self._states: OrderedDict = OrderedDict()
        self._moves: OrderedDict = OrderedDict()
        self._q = None

    @staticmethod
    def static_facts(strata) -> Facts:
        """The static relations given as facts; the others are called."""
        facts = [st for st in strata if all(not c.body for c in st.clauses)]
        return ReferenceMachine.static_facts(facts)

    def fork(self) -> DemandMachine:
        other = cast(DemandMachine, super().fork())
        other._episodes, other._states, other._moves = {}, OrderedDict(), OrderedDict()
        other._static_tables = {}
        other._q = None
        return other

    def initial_state(self):
        q = _Questions(self.static.copy(), {})
        return frozenset(a[1] for a in self._ask(q, ("init", None)))

    # --- plans ----------------------------------------------------------------
    def _plan(self, relation, i, bound):
        """The steps of rule ``i`` of ``relation`` for the variables ``bound``
        by its head: (kind, literal, how) per body literal, in order."""
        key = (relation, i, bound)
        plan = self._plans.get(key)
        if plan is not None:
            return plan
        _, lits, _ = self._clauses[relation][i]
        left, bound, plan = list(lits), set(bound), []

        def is_positive(lit):
            return isinstance(lit, (str, tuple))

        while left:
            ready = [lit for lit in left if set(variables(lit)) <= bound]
            lit = next((x for x in ready if not is_positive(x)), None)
            if lit is None:
                lit = ready[0] if ready else next((x for x in left if is_positive(x)), left[0])
            left.remove(lit)
            if isinstance(lit, Distinct):
                plan.append((_TEST, lit, None))
            elif isinstance(lit, Not):
                atom = lit.literal
                kind = _NOT_CALL if name_of(atom) in self._phase else _NOT_BASE
                plan.append((kind, atom, None))
            else:
                if name_of(lit) in self._phase:
                    plan.append((_CALL, lit, None))
                else:
                    plan.append((_BASE, lit, LiteralStep(lit, bound)))
                bound |= set(variables(lit))
        plan = self._plans[key] = tuple(plan)
        return plan

    # --- calls ----------------------------------------------------------------
    def _call(self, k):
        """The answers of the call with key ``k`` in the current questions."""
        relation = k if isinstance(k, str) else k[0]
        q = self._q
        phase = self._phase.get(relation)
        tables = (
            q.tables
            if phase == "move"
            else self._static_tables
            if phase == "static"
            else q.state_tables
        )
        t = tables.get(k)
        if t is not None:
            if t.done:
                return t.answers
            self._cycle = self._cycle or t.filling
            return list(t.answers)
        t = tables[k] = _Table()
        component = self._component.get(relation)
        if component is None:
            self._fill(k, t)
            t.done = True
            return t.answers
        episode = self._episodes.get(component)
        if episode is not None:
            episode.append((k, t))
            self._fill(k, t)
            return list(t.answers)
        episode = self._episodes[component] = [(k, t)]
        outer, self._cycle = self._cycle, False
        try:
            self._fill(k, t)
            while self._cycle:  # a call read answers of its own still being found
                size = (len(episode), sum(len(x.answers) for _, x in episode))
                for j in range(len(episode)):
                    self._fill(*episode[j])
                self._cycle = (len(episode), sum(len(x.answers) for _, x in episode)) != size
            for _, x in episode:
                x.done = True
        finally:
            del self._episodes[component]
            self._cycle = outer
        return t.answers

    def _fill(self, k, table):
        """Add to ``table`` the answers its rules give the key ``k`` now."""
        relation = k if isinstance(k, str) else k[0]
        if self.deadline != math.inf:  # _ask forgets the tables of a question given up
            give_up_past(self.deadline, relation)
        out = table.answers
        table.filling = True
        for i, (head, _, flat) in enumerate(self._clauses.get(relation, ())):
            b = _unify_head(head, k, {}) if flat is None else _unify_flat(flat, k)
            if b is None:
                continue
            plan = self._plan(relation, i, frozenset(b))
            self._solve(plan, 0, b, head, k, out)
        table.filling = False

    def _solve(self, plan, i, b, head, k, out):
        """Every way of satisfying steps ``i``... of ``plan`` from bindings ``b``:
        each adds its instance of ``head`` (when it agrees with ``k``) to ``out``."""
        n = len(plan)
        while i < n:
            kind, lit, how = plan[i]
            if kind == _TEST:
                if instantiate(lit.left, b) == instantiate(lit.right, b):
                    return
            elif kind == _NOT_CALL:
                if self._call(_key(lit, b)):
                    return
            elif kind == _NOT_BASE:
                if instantiate(lit, b) in self._q.facts.get(name_of(lit)):
                    return
            elif kind == _CALL:
                for answer in watched(self._call(_key(lit, b)), self.deadline, lit[0]):
                    b2 = match_term(lit, answer, b)
                    if b2 is not None:
                        self._solve(plan, i + 1, b2, head, k, out)
                return
            else:
                facts = self._q.facts
                if how.free == ():
                    if instantiate(lit, b) not in facts.get(name_of(lit)):
                        return
                else:
                    key = tuple(instantiate(t, b) for t in how.key_terms)
                    atoms = facts.lookup(lit[0], how.positions, key)
                    for atom in watched(atoms, self.deadline, lit[0]):
                        b2 = extend(how, lit, atom, b)
                        if b2 is not None:
                            self._solve(plan, i + 1, b2, head, k, out)
                    return
            i += 1
        atom = instantiate(head, b)
        if _fits(k, atom):
            out.add(atom)
            if len(out) > ANSWERS:
                raise TooManyAnswers(k)
            if not len(out) % CHECK_EVERY:
                give_up_past(self.deadline, head[0])

    def _ask(self, q, k):
        """The answers of the call ``k`` in the questions ``q``.  A question
        that fails leaves no half-filled table behind."""
        self._q = q
        try:
            return self._call(k)
        except BaseException as exc:
            q.tables.clear()
            q.state_tables.clear()
            self._static_tables.clear()
            self._episodes.clear()
            self._cycle = False
            if isinstance(exc, RecursionError):
                raise GameError(
                    f"the demand-driven reasoner recursed too deeply answering "
                    f"{k if isinstance(k, str) else k[0]}"
                ) from None
            raise

    # --- questions of a state and of a joint move ------------------------------
    def _questions(self, state):
        q = recall(self._states, state)
        if q is not None:
            return q
        q = _Questions(self._true_in(state), {})
        q.tables = q.state_tables
        return remember(self._states, state, q, self._cache_size)

    def _move_questions(self, state, joint):
        key = (state, joint)
        q = self._moves.get(key)
        if q is not None:
            return q
        base = self._questions(state)
        self._check_joint(joint, lambda role: self._legal(base, role))
        facts = base.facts.copy()
        facts.sets["does"] = {("does", r, m) for r, m in zip(self.roles, joint)}
        return remember(self._moves, key, _Questions(facts, base.state_tables), 8)

    def _legal(self, q, role):
        moves = q.legal.get(role)
        if moves is None:
            moves = q.legal[role] = sorted(
                (a[2] for a in self._ask(q, ("legal", role, None))), key=term_key
            )
        return moves

    def legal_moves(self, state, role):
        return list(self._legal(self._questions(state), role))

    def next_state(self, state, joint):
        q = self._move_questions(state, tuple(joint))
        return frozenset(a[1] for a in self._ask(q, ("next", None)))

    def is_terminal(self, state):
        return bool(self._ask(self._questions(state), "terminal"))

    def goal(self, state, role):
        return single_goal(
            role, (a[2] for a in self._ask(self._questions(state), ("goal", role, None)))
        )

    def percepts(self, state, joint, role):
        q = self._move_questions(state, tuple(joint))
        return frozenset(a[2] for a in self._ask(q, ("sees", role, None)))
