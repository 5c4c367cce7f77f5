"""A linear evaluation fitted on games of the search itself, for any game on
the compiled reasoner.

:func:`players.perfect.heuristic.material_evaluation` fits piece counts on
random playouts, whose outcome barely depends on the position (held-out R²
about 0.01 on breakthrough).  Here the states come from games in which every
move is chosen by a small fixed-budget search (the C tree of
:mod:`players.perfect.mcts` with random playouts, as the ``uct`` player runs
it): an evaluation fitted to stronger play than random, as Clune's player
weighs the features it finds in the rules by how they go with the outcome
of simulated games (J. Clune, "Heuristic Evaluation Functions for General
Game Playing", AAAI 2007).  Each state's target, per role, is the value the
search gave it: the average reward at the root of its decision (RootStrap:
Veness, Silver, Uther and Blair, "Bootstrapping from Game Tree Search", NIPS
2009, which fits an evaluation to the values of the search at the root
rather than to the game's outcome, as TD-learning from self-play does,
Tesauro, "Temporal Difference Learning and TD-Gammon", CACM 38(3), 1995).
A state no search was run from (every role's move forced, and no visits
kept there) gets its game's final goals.  In docs/players.md the root
values predict held-out games of a stronger search better than the final
goals do, which also predict them no better than random playouts.

The features come from the rules' structure (:func:`feature_groups`), from
coarse to fine, each a sum of base propositions:

* *material*: the content counts of :func:`players.perfect.heuristic.content_features`
  (``(cellHolds x y white)`` counts white's pieces);
* *lines*: per content value and per value of another argument, the count
  of pieces on that line (white's pieces on row 7, red's in column 4): a
  piece-square table tied by rows and columns;
* *squares*: one indicator per such base proposition, the untied table.

Per role one ridge regression (Hoerl and Kennard, "Ridge Regression",
Technometrics 12(1), 1970) on the standardised features fits all three,
with a penalty that grows from coarse to fine (:data:`PENALTY`), so a finer
feature gets weight only where the sample shows more than the coarser one
explains.  As every feature sums base propositions, the fit is one weight
per base proposition and a bias: ``bias[r] + weights[r] @ state``, clipped
to 0..100 by the tree (:mod:`players.perfect._tree`).

The sign check: a role's own pieces (a material count whose content value is
the role's name, such as ``(cell x y red)`` for red) should not count against
it.  Where the fit gives one a negative weight, that count is dropped and the
role refitted without it (its lines and squares stay); docs/players.md says
how often that happens.
"""

from __future__ import annotations

import math
import random
import time
from collections import defaultdict

import numpy as np

from ggp.reasoners import COMPILED
from players.perfect.heuristic import OutOfTime, content_features, move_scale

#: Ridge penalty per feature group, relative to the number of states, on
#: standardised features: coarse features are cheap, fine ones dear.
PENALTY = {"material": 0.01, "lines": 0.1, "squares": 1.0}

#: Decisions at the start of each game whose move is drawn in proportion to
#: the root visits (the rest play the best average), so that games differ.
OPENING = 4

#: A game longer than this many steps is cut short and gives no states.
MAX_STEPS = 1000


def selfplay_evaluation(
    sm, games: int = 40, simulations: int = 50, seed: int = 0, until: float = math.inf
) -> tuple | None:
    """(weights, bias, scale) for the C tree (:class:`players.perfect._tree.SearchTree`):
    per role a weight per base proposition (an array ``nroles x nbase``) and a
    bias, and the typical change of one step
    (:func:`players.perfect.heuristic.move_scale`), fitted by :func:`fit` on the
    states of ``games`` self-play games (:func:`play`) of ``simulations`` a
    move, each state's target the search's value of it.  None when the
    rules have no content features (nothing to count) or no game ended.
    The same on any machine for the same ``seed``;
    :class:`players.perfect.heuristic.OutOfTime` when the games are not
    played by the ``time.monotonic()`` instant ``until``.  The defaults take
    about 5 s on breakthrough and under 1 s on connectFour (docs/players.md,
    where it also says how well the result predicts a stronger search's games).

    Sources: Clune, "Heuristic Evaluation Functions for General Game Playing"
    (AAAI 2007) for features found in the rules weighed by the outcomes of
    simulated games; Veness, Silver, Uther and Blair, "Bootstrapping from
    Game Tree Search" (NIPS 2009) for fitting an evaluation to the root
    values of the search."""
    groups = feature_groups(sm.base_propositions)
    if not groups:
        return None
    states, _, values = play(sm, games, simulations, seed, until)
    if len(states) < 2:
        return None
    weights, bias, _, _ = fit(states, values, groups, sm.roles)
    return weights, bias, move_scale(states, weights)


def feature_groups(base) -> list:
    """The features of base propositions ``base``: (group, name, indices of
    the base propositions it counts), group one of :data:`PENALTY`'s.  A
    material feature's name is (relation, content value); a line's adds the
    position and value of an argument that varies among the material's
    propositions; a square's is the proposition."""
    groups = []
    material = content_features(base)
    for name, members in sorted(material.items()):
        groups.append(("material", name, members))
    for (relation, value), members in sorted(material.items()):
        lines = defaultdict(list)
        for i in members:
            for k, argument in enumerate(base[i][1:], 1):
                lines[k, argument].append(i)
        for key, indices in sorted(lines.items()):
            if len(indices) < len(members):  # the argument varies: a line
                groups.append(("lines", (relation, value, *key), indices))
    for name, members in sorted(material.items()):
        for i in members:
            groups.append(("squares", base[i], [i]))
    return groups


def play(sm, games: int, simulations: int, seed: int, until: float = math.inf) -> tuple:
    """The states of ``games`` self-play games from the initial state (rows of
    base bits), per row its game's final goals, and per row each role's
    value at the root of the search from it (the average reward of the
    role's root moves; the final goal where the root has no visits).  Every
    decision is ``simulations`` simulations of one C tree kept between moves
    (the ``uct`` player's ``c`` and ``discount``, random playouts);
    the first :data:`OPENING` decisions of a game draw each role's move in
    proportion to its root visits, later ones play the best average (the
    player's ``final=average``).  Game ``g`` is seeded from ``seed`` and ``g``
    alone.  :class:`OutOfTime` past ``until`` (checked between searches)."""
    from players.belief import Steps
    from players.perfect.searches import Forest, TreeOptions, search_for

    if getattr(sm, "name", "") != COMPILED:
        raise ValueError("self-play evaluation needs the compiled reasoner")
    steps = Steps(sm, imperfect=False)
    rows, goals, values = [], [], []
    for g in range(games):
        rng = random.Random(f"{seed}/{g}")
        search = search_for(steps, "random", {}, rng.getrandbits(63))
        state = sm.initial_state()
        tree = Forest(search, state, TreeOptions())
        states: list = []
        roots, decisions = [], 0
        while (legal := steps.legal(state)) is not None and len(states) < MAX_STEPS:
            if time.monotonic() > until:
                raise OutOfTime(f"{g} of {games} self-play games played")
            states.append(state)
            tree.new_move()
            if any(len(moves) > 1 for moves in legal):
                tree.run(simulations, math.inf)
                decisions += 1
            roots.append([_root_value(tree, r) for r in range(len(legal))])
            joint = tuple(
                moves[0] if len(moves) == 1 else _choice(tree, r, rng, decisions <= OPENING)
                for r, moves in enumerate(legal)
            )
            state = search.next(state, joint)
            tree.advance(joint, state)
        if legal is not None:
            continue  # cut short: no outcome
        final = steps.goals(state)
        rows += states
        goals += [final] * len(states)
        values += [[f if v is None else v for v, f in zip(row, final)] for row in roots]
    if not rows:
        empty = np.zeros((0, len(sm.roles)))
        return np.zeros((0, len(sm.initial_state())), np.uint8), empty, empty
    return (
        np.frombuffer(b"".join(rows), np.uint8).reshape(len(rows), -1),
        np.asarray(goals, dtype=float),
        np.asarray(values, dtype=float),
    )


def _root_value(tree, r):
    """Role ``r``'s average reward over the root's simulations (None: none)."""
    _, visits, sums, _ = tree.root_moves(r)
    n = sum(visits)
    return sum(sums) / n if n else None


def _choice(tree, r, rng, opening):
    """Role ``r``'s move at the tree's root: drawn in proportion to the visits
    in the ``opening``, else the best average (ties: the most visits)."""
    moves, visits, sums, _ = tree.root_moves(r)
    if opening and any(visits):
        return rng.choices(moves, weights=visits)[0]
    averages = [s / v if v else -1.0 for s, v in zip(sums, visits)]
    return moves[max(range(len(moves)), key=lambda j: (averages[j], visits[j]))]


def fit(states, targets, groups, roles) -> tuple:
    """(weights, bias, material, dropped) by ridge regression of each role's
    targets on the features ``groups`` (:func:`feature_groups`) of ``states``,
    penalised by :data:`PENALTY` on standardised features; features that do
    not vary get no weight.  ``material``: per role its weight per material
    feature (relation, content value) kept; ``dropped``: per role the
    material features naming the role whose weight came out negative, dropped
    before the role was fitted again (the sign check in the module's
    docstring)."""
    states = np.asarray(states)
    columns = np.stack([states[:, g[2]].sum(axis=1) for g in groups], axis=1).astype(float)
    spread = columns.std(axis=0)
    varying = [j for j in range(len(groups)) if spread[j] > 0]
    weights = np.zeros((len(roles), states.shape[1]))
    bias = np.zeros(len(roles))
    material, dropped = [], []
    for r, role in enumerate(roles):
        use = varying
        coefficients, bias[r] = _ridge(columns, spread, targets[:, r], use, groups)
        negative = [
            j
            for j, c in zip(use, coefficients)
            if groups[j][0] == "material" and groups[j][1][1] == role and c < 0
        ]
        if negative:
            use = [j for j in use if j not in negative]
            coefficients, bias[r] = _ridge(columns, spread, targets[:, r], use, groups)
        dropped.append([groups[j][1] for j in negative])
        material.append(
            {
                groups[j][1]: float(c)
                for j, c in zip(use, coefficients)
                if groups[j][0] == "material"
            }
        )
        for j, c in zip(use, coefficients):
            weights[r, groups[j][2]] += c
    return weights, bias, material, dropped


def _ridge(columns, spread, y, use, groups) -> tuple:
    """Coefficients on the raw features ``use`` and the bias, of the ridge fit
    of ``y`` on those features standardised."""
    if not use:
        return np.zeros(0), float(y.mean())
    x = columns[:, use]
    mean = x.mean(axis=0)
    z = (x - mean) / spread[use]
    penalty = np.diag([PENALTY[groups[j][0]] * len(y) for j in use])
    beta = np.linalg.solve(z.T @ z + penalty, z.T @ (y - y.mean()))
    coefficients = beta / spread[use]
    return coefficients, float(y.mean() - coefficients @ mean)


def held_out(evaluation, states, goals) -> dict:
    """How well ``evaluation`` (weights, bias, scale) predicts the goals of
    ``states``' games: ``r2``, one minus the squared error of the clipped
    value over the goals' variance, every role pooled; ``sign``, over the
    (state, role) pairs whose goal is not 50, the fraction where value - 50
    has the goal - 50's sign (a value of exactly 50 counting one half)."""
    weights, bias, _ = evaluation
    values = np.clip(np.asarray(states, float) @ weights.T + bias, 0, 100)
    goals = np.asarray(goals, float)
    spread = ((goals - goals.mean(axis=0)) ** 2).sum()
    agree = np.sign(values - 50) * np.sign(goals - 50)
    decided = goals != 50
    return {
        "r2": float(1 - ((values - goals) ** 2).sum() / spread) if spread else math.nan,
        "sign": float(((agree > 0) + 0.5 * (agree == 0))[decided].mean())
        if decided.any()
        else math.nan,
    }
