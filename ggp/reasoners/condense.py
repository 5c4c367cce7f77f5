"""Condensing costly rule bodies into helper relations (variable elimination).

Grounding a rule enumerates every combination of its variables that its body
allows, and a propositional network gets one AND gate per combination.  A
body whose variables are joined in one long chain costs the product of their
domains: gt_two_thirds_4p's ``total`` adds the four players' guesses,
``(sum ?n1 ?n2 ?s1) ... (sum ?s2 ?n4 ?total)``, 101^4 combinations, where
the sums take a few hundred values.  Condensing the literals of a variable
that the head does not need into a helper relation over the variables they
share with the rest of the rule, ``(__c0 ?n2 ?s1) <= (guessed p1 ?n1) (sum ?n1
?n2 ?s1)``, eliminates that variable from the rule; repeated, the chain costs
the sum of its links instead of their product.  This is variable elimination
(bucket elimination, Dechter, "Bucket elimination: a unifying framework for
reasoning", Artificial Intelligence 113, 1999) applied to rule bodies, as
ggp-base's CondensationIsolator applies it to GDL (Alex Landau's, with a
heuristic on the number of assignments).

A rule is condensed only when the join planner (:mod:`ggp.reasoners.joins`) expects
it to cost more than :data:`THRESHOLD` candidate atoms, so that the rules of
most games, and their networks, stay as written.  Each step eliminates the
variable whose helper keeps the fewest variables (the min-degree order of
variable elimination), then is expected to hold the fewest atoms, as long as
the rule is expected to cost more than the threshold and a positive literal
would stay beside the helper; the helpers are condensed in turn.  (Condensing
only when the helper and the rule with it are expected to cost less than the
rule did, as ggp-base does, refused racer's ``legal_speed``, whose estimate,
taking the join's places as independent, was 5.2 million candidates as it
stood and 6.0 million condensed: it then ground to 4.2 million rules instead
of 0.3 million.)  A helper takes the negations and ``distinct`` of the
eliminated variable, with a positive literal of the rule to bind any other
variable they read (kept in the rule too), so that every rule stays safe.
The helper's statistics, until it is computed, are estimated from those of
its variables.
"""

from __future__ import annotations

import itertools

from gdl import Distinct, Not, Var
from gdl.ast import name_of, variables
from ggp.reasoners.joins import Store, plan, plan_cost

#: Candidate atoms a rule's join may be expected to examine before it is condensed.
THRESHOLD = 200_000


def _positive(lit) -> bool:
    return isinstance(lit, (str, tuple)) and not isinstance(lit, Var)


def _vars(lit) -> set:
    return set(variables(lit))


def condense(head, body, store: Store, exact, names, threshold: float = THRESHOLD) -> list:
    """``[(head, body), ...]``: the helper rules, then the rule itself with
    helpers in place of the literals they took, or the rule unchanged when
    it is not expected to cost more than ``threshold`` (module docstring).
    ``names`` gives fresh relation names; ``store`` holds the statistics the
    estimates use, and receives the helpers' expected ones in ``virtual``;
    ``exact`` names the relations whose negations are tested."""
    out = []
    body = list(body)
    cost = _cost(head, body, store, exact)
    while cost > threshold:
        best = _best_bucket(head, body, store, exact, names)
        if best is None:
            break
        cost, helper, bucket, rest = best
        store.virtual[name_of(helper)] = _expected(helper, bucket, store, exact)
        out.extend(condense(helper, bucket, store, exact, names, threshold))
        body = rest + [helper]
    return out + [(head, tuple(body))]


def _cost(head, body, store, exact) -> float:
    """Candidate atoms grounding the rule is expected to examine: its join
    enumerating the variables of the head and of every literal left in its
    ground rules (those of relations not in ``exact``)."""
    outputs = _vars(head).union(
        *(
            _vars(lit)
            for lit in body
            if not isinstance(lit, Distinct)
            and name_of(lit.literal if isinstance(lit, Not) else lit) not in exact  # type: ignore[arg-type]  # or/and are expanded by now
        )
    )
    steps = plan(tuple(body), store, tuple(sorted(outputs)), exact=exact, negation=False)
    return plan_cost(steps)[0]


def _best_bucket(head, body, store, exact, names):
    """(expected cost, helper, bucket, the rest of the rule) of the
    elimination of one variable whose helper keeps the fewest variables
    (the min-degree order of variable elimination), then is expected to hold
    the fewest atoms, then to cost least, the helper and the rule with it
    together; None if no variable can go."""
    head_vars = _vars(head)
    local = [
        v
        for v in dict.fromkeys(itertools.chain.from_iterable(variables(lit) for lit in body))
        if v not in head_vars
    ]
    best = None
    trial = "__trial"
    for v in local:
        core = [lit for lit in body if v in _vars(lit)]
        suppliers = _suppliers(core, body, store)
        if suppliers is None:
            continue
        rest = [lit for lit in body if lit not in core]
        bucket = core + suppliers
        if not any(_positive(lit) for lit in rest) or len(bucket) == len(body):
            continue  # the helper would be the whole rule again
        outside = head_vars.union(*(_vars(lit) for lit in rest))
        kept = tuple(sorted(set().union(*(_vars(lit) for lit in bucket)) & outside))
        helper = (trial, *kept) if kept else trial
        store.virtual[trial] = expected = _expected(helper, bucket, store, exact)
        cost = _cost(helper, bucket, store, exact) + _cost(head, rest + [helper], store, exact)
        del store.virtual[trial]
        key = (len(kept), expected[0], cost)
        if best is None or key < best[0]:
            best = (key, kept, bucket, rest)
    if best is None:
        return None
    (_, _, cost), kept, bucket, rest = best
    name = names()
    return cost, ((name, *kept) if kept else name), bucket, rest


def _suppliers(core, body, store):
    """For each variable that the negations and ``distinct`` of ``core``
    read and none of its positive literals binds, the positive literal of
    the rest of ``body`` that binds it with the fewest atoms (it joins the
    helper and stays in the rule); None if there is none."""
    bound = set().union(*(_vars(lit) for lit in core if _positive(lit)))
    added = []
    for lit in core:
        if _positive(lit):
            continue
        for u in sorted(_vars(lit) - bound):
            candidates = [x for x in body if _positive(x) and u in _vars(x) and x not in core]
            if not candidates:
                return None
            chosen = min(candidates, key=lambda x: store.estimate(name_of(x), (), ()))
            if chosen not in added:
                added.append(chosen)
            bound |= _vars(chosen)
    return added


def _expected(helper, bucket, store: Store, exact) -> tuple:
    """The expected statistics of the relation ``helper`` defines by
    ``bucket`` (:attr:`ggp.reasoners.joins.Store.virtual`): as many atoms as the join
    is expected to give, at most the product of its variables' values."""
    if isinstance(helper, str):
        return 1.0, {}
    kept = helper[1:]
    domains = {}
    for v in kept:
        values = [store.distinct(lit, v) for lit in bucket if _positive(lit) and v in _vars(lit)]
        domains[v] = min(values) if values else 1.0
    steps = plan(tuple(bucket), store, tuple(kept), exact=exact, negation=False)
    product = 1.0
    for d in domains.values():
        product *= d
    return (
        max(1.0, min(plan_cost(steps)[1], product)),
        {i: domains[v] for i, v in enumerate(kept, 1)},
    )


def names():
    """A source of fresh relation names: ``__c0``, ``__c1``..."""
    counter = itertools.count()
    return lambda: f"__c{next(counter)}"
