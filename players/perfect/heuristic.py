"""A material evaluation learned from random playouts, for any game on the
compiled reasoner.

The features are counts of pieces found in the game's base propositions, as
Clune's player finds them (J. Clune, "Heuristic Evaluation Functions for
General Game Playing", AAAI 2007: quantities such as piece counts, weighted
by how they correlate with the outcome in simulated games): for each base
relation with two or more arguments, its *content* argument is the one with
the fewest distinct values (the last on ties: ``(cell x y piece)``,
``(pawn x y colour)``), and each of its values is a feature, the number of
true propositions holding it.  The states of random playouts from the start,
each labelled with the goals at the end of its playout, fit one linear model
per role by ridge regression on the standardised counts.  As every feature is
a sum of base propositions, each role's evaluation is a bias plus a weight per
base proposition, which the C tree (:mod:`players.perfect._tree`) reads directly.
Features that do not vary in the sample get no weight.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict

import numpy as np

#: Ridge penalty, relative to the number of samples.
RIDGE = 0.01


def content_positions(base) -> dict:
    """Base proposition index -> the argument that holds its *content*: of a
    relation with two or more arguments, the one with the fewest distinct
    values (the last of equals): ``(cell 3 4 red)``'s colour, the rest being
    its square."""
    by_relation = defaultdict(list)
    for i, fact in enumerate(base):
        if isinstance(fact, tuple) and len(fact) >= 3:  # a relation and two arguments
            by_relation[fact[0], len(fact)].append(i)
    positions = {}
    for (_, arity), members in sorted(by_relation.items()):
        distinct = [len({base[i][k] for i in members}) for k in range(1, arity)]
        position = 1 + max(range(len(distinct)), key=lambda k: (-distinct[k], k))
        positions.update(dict.fromkeys(members, position))
    return positions


def content_features(base) -> dict:
    """Feature name (relation, content value) -> indices of the base
    propositions it counts."""
    features: dict[tuple, list[int]] = {}
    for i, position in sorted(content_positions(base).items()):
        features.setdefault((base[i][0], base[i][position]), []).append(i)
    return dict(sorted(features.items()))


class OutOfTime(Exception):
    """The sample was not drawn by its instant: a partial one would make the
    evaluation depend on the machine's speed, so there is none."""


def sample(sm, playouts: int, seed: int, until: float = math.inf) -> tuple:
    """States (rows of base bits) along ``playouts`` random playouts from the
    start, and per row the goals its playout ended with.  The sample is the
    same on any machine; :class:`OutOfTime` if it is not drawn by ``until``
    (``time.monotonic()``)."""
    rows, goals = [], []
    roles = range(len(sm.roles))
    for p in range(playouts):
        if time.monotonic() > until:
            raise OutOfTime(f"{p} of {playouts} playouts drawn")
        state, states = sm.initial_state(), []
        for _, joint in sm.playout_trace(state, seed + p):
            states.append(state)
            state = sm.next_state(state, joint)
        if not sm.is_terminal(state):
            continue  # cut short: no outcome
        final = [sm.goal(state, r) for r in sm.roles]
        rows += states
        goals += [final] * len(states)
    if not rows:
        return np.zeros((0, len(sm.initial_state())), np.uint8), np.zeros((0, len(roles)))
    return (
        np.frombuffer(b"".join(rows), np.uint8).reshape(len(rows), -1),
        np.asarray(goals, dtype=float),
    )


def material_evaluation(
    sm, playouts: int = 200, seed: int = 0, until: float = math.inf
) -> tuple | None:
    """(weights, bias, scale): per role a weight per base proposition and a
    bias, the evaluation of a state being ``bias[r] + weights[r] @ state``,
    clipped to 0..100 by its user, and the typical change of one step
    (:func:`move_scale`); None when the game has no content features that
    vary in random play, or no playout ended.  Learned from ``playouts``
    random playouts (:func:`sample`, which raises :class:`OutOfTime` past
    ``until``)."""
    features = content_features(sm.base_propositions)
    states, goals = sample(sm, playouts, seed, until)
    if not features or len(states) < 2:
        return None
    names = sorted(features)
    counts = np.stack([states[:, features[f]].sum(axis=1) for f in names], axis=1)
    counts = counts.astype(float)
    spread = counts.std(axis=0)
    varying = spread > 0
    if not varying.any():
        return None
    mean = counts.mean(axis=0)
    z = (counts[:, varying] - mean[varying]) / spread[varying]
    n, k = z.shape
    ridge = RIDGE * n * np.eye(k)
    weights = np.zeros((goals.shape[1], len(sm.base_propositions)))
    bias = np.zeros(goals.shape[1])
    for r in range(goals.shape[1]):
        y = goals[:, r]
        w = np.linalg.solve(z.T @ z + ridge, z.T @ (y - y.mean()))
        # back to raw counts, then to the base propositions each count sums
        per_count = w / spread[varying]
        bias[r] = y.mean() - per_count @ mean[varying]
        for f, c in zip([f for f, v in zip(names, varying) if v], per_count):
            weights[r, features[f]] += c
    return weights, bias, move_scale(states, weights)


def move_scale(states, weights) -> float:
    """The typical size of one step's change of an evaluation: over the
    consecutive rows of the sample that change some role's evaluation, the
    mean absolute change (1.0 when no step changes it).  Priors
    (:mod:`players.perfect._tree`) map a change of this size to 73 of 100."""
    values = states.astype(float) @ weights.T
    # every playout starts at the first row's state: the row before one is no step
    step = ~np.all(states[1:] == states[0], axis=1)
    steps = np.abs(np.diff(values, axis=0))[step]
    moved = steps[steps > 1e-9]
    return float(moved.mean()) if moved.size else 1.0
