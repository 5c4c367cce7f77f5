"""Counterfactual regret minimization over a game's extensive form (``ggp.solvers.efg``),
exact best responses and exploitability, and policy files.

- CFR (Zinkevich, Johanson, Bowling, Piccione 2007, "Regret minimization in
  games with incomplete information"): full-width traversals, regret
  matching, the average policy weighted by the player's own reach.
- CFR+ (Tammelin 2014, "Solving large imperfect information games using
  CFR+"): regrets clipped at 0 after each player's update (regret matching+),
  the average policy weighted by the iteration number t.

Both use alternating updates: every iteration updates player 0, then player
1 (who already faces player 0's new policy), and so on, as OpenSpiel does, so
the exploitability after a given number of iterations is OpenSpiel's.

A policy is a list, per information state of the tree, of the probabilities
of its moves.  A policy file is JSON: information state key -> {move in KIF:
probability}.
"""

from __future__ import annotations

import json

import numpy as np

from gdl import to_kif
from ggp.solvers._cfr import CFRKernel, best_response, evaluate
from ggp.solvers.efg import CHANCE, TERMINAL, Tree, flatten

# --- policies ---------------------------------------------------------------------


def uniform_policy(tree: Tree) -> list:
    return [[1.0 / len(info.moves)] * len(info.moves) for info in tree.infosets]


def policy_to_dict(tree: Tree, policy: list) -> dict:
    return {
        info.key: {to_kif(m): p for m, p in zip(info.moves, probs)}
        for info, probs in zip(tree.infosets, policy)
    }


def policy_from_dict(tree: Tree, data: dict) -> list:
    """The policy in ``data`` (key -> {move: probability}), normalized per
    information state; ValueError when an information state is missing or has
    no positive probability."""
    policy = []
    for info in tree.infosets:
        if info.key not in data:
            raise ValueError(f"the policy has no entry for information state {info.key!r}")
        given = data[info.key]
        probs = [float(given.get(to_kif(m), 0.0)) for m in info.moves]
        total = sum(probs)
        if total <= 0 or min(probs) < 0:
            raise ValueError(f"no valid probabilities for information state {info.key!r}")
        policy.append([p / total for p in probs])
    return policy


def save_policy(tree: Tree, policy: list, path) -> None:
    with open(path, "w") as f:
        json.dump(policy_to_dict(tree, policy), f, indent=1, sort_keys=True)


def load_policy(tree: Tree, path) -> list:
    with open(path) as f:
        return policy_from_dict(tree, json.load(f))


# --- evaluation -------------------------------------------------------------------


def expected_values(tree: Tree, policy: list) -> tuple:
    """Every player's expected utility (in the tree's unit) when all follow ``policy``."""
    values: list = [None] * tree.histories
    for n in range(tree.histories - 1, -1, -1):  # children are numbered after parents
        kind = tree.kind[n]
        if kind == TERMINAL:
            values[n] = tree.utility[n]
            continue
        probs = tree.chance_probs[n] if kind == CHANCE else policy[tree.infoset[n]]
        total = [0.0] * len(tree.players)
        for p, child in zip(probs, tree.children[n]):
            if p:
                for i, v in enumerate(values[child]):
                    total[i] += p * v
        values[n] = total
    return tuple(values[0])


def best_response_value(tree: Tree, policy: list, player: int, flat=None) -> float:
    """The exact value for ``player`` of a best response to the others' ``policy``."""
    return best_response_values(tree, policy, player, flat)[0]


def best_response_values(tree: Tree, policy: list, player: int, flat=None) -> list:
    """Per node, ``player``'s expected utility below it when it plays a best
    response to the others' ``policy`` (the counterfactual best response:
    its values at a node, times the others' reach, are what continual
    resolving keeps, Burch et al. 2014); computed by
    :func:`ggp.solvers._cfr.best_response` over the flattened tree (``flat``, when
    the caller has it)."""
    flat = flatten(tree) if flat is None else flat
    flat_policy = np.fromiter(
        (p for probs in policy for p in probs), dtype=np.float64, count=int(flat.move_start[-1])
    )
    reach, value = np.zeros(tree.histories), np.zeros(tree.histories)
    best_response(
        flat, flat_policy, player, reach, value, np.zeros(len(tree.infosets), dtype=np.int32)
    )
    return value.tolist()


def nash_conv(tree: Tree, policy: list) -> float:
    """Sum over players of what a best response gains over ``policy`` (tree's unit)."""
    values, flat = expected_values(tree, policy), flatten(tree)
    return sum(best_response_value(tree, policy, i, flat) - v for i, v in enumerate(values))


def exploitability(tree: Tree, policy: list) -> float:
    """NashConv / number of players (NashConv / 2 in a two-player game), in the tree's unit."""
    return nash_conv(tree, policy) / len(tree.players)


# --- CFR and CFR+ -----------------------------------------------------------------


class TableSolver:
    """What the regret-minimizing solvers share: the tree flattened, regrets
    and cumulative average-policy weights flat per (information state, move),
    read as lists (per information state) of per-move lists, and the average
    policy (uniform where nothing accumulated)."""

    def __init__(self, tree: Tree, flat=None):
        self.tree = tree
        self.iteration = 0
        self.flat = flat if flat is not None else flatten(tree)
        self._move_start = self.flat.move_start
        self._regret = np.zeros(int(self._move_start[-1]))
        self._cumulative = np.zeros_like(self._regret)

    def _split(self, flat) -> list:
        s = self._move_start
        return [flat[s[i] : s[i + 1]].tolist() for i in range(len(s) - 1)]

    @property
    def regret(self) -> list:
        return self._split(self._regret)

    @property
    def cumulative(self) -> list:
        return self._split(self._cumulative)

    def average_policy(self) -> list:
        return self._split(self.average_flat())

    @property
    def tables(self) -> tuple:
        """(regrets, cumulative average-policy weights) flat per (information
        state, move): the solver's own arrays, which a caller may seed before
        :meth:`run` and read after (MCCR's ``keep`` variant carries them from
        one resolve to the next)."""
        return self._regret, self._cumulative

    def average_flat(self) -> np.ndarray:
        """The average policy flat per (information state, move): the cumulative
        weights normalized per information state, uniform where all are 0."""
        return normalized(self._cumulative, self._move_start)


def normalized(weights: np.ndarray, move_start: np.ndarray) -> np.ndarray:
    """``weights`` (flat per information state and move) normalized per
    information state; uniform where they sum to 0."""
    sizes = np.diff(move_start)
    owner = np.repeat(np.arange(len(sizes)), sizes)
    totals = np.add.reduceat(weights, move_start[:-1]) if len(weights) else weights
    totals = totals[owner] if len(weights) else totals
    uniform = 1.0 / sizes[owner]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(totals > 0, weights / np.where(totals > 0, totals, 1.0), uniform)


class CFRSolver(TableSolver):
    """Full-width CFR (``plus=False``) or CFR+ (``plus=True``) on a tree.

    Per iteration t and player p in order: one traversal accumulating p's
    counterfactual regrets and average-policy weights (own reach, times t for
    CFR+), then (CFR+) regrets clipped at 0, then every current policy
    recomputed by regret matching (uniform when no regret is positive).

    The traversals run in the Cython kernel ``ggp.solvers._cfr`` over the tree
    flattened into arrays; ``current``, ``regret`` and ``cumulative`` read as
    lists (per information state) of per-move lists.
    """

    def __init__(self, tree: Tree, plus: bool = False, flat=None):
        super().__init__(tree, flat)
        self.plus = plus
        flat = self.flat
        sizes = np.diff(flat.move_start)
        self._current = np.repeat(1.0 / sizes, sizes)
        self._tracked: tuple | None = None
        self._kernel = CFRKernel(flat, self._regret, self._cumulative, self._current)

    @property
    def current(self) -> list:
        return self._split(self._current)

    def run(self, iterations: int) -> CFRSolver:
        if self._tracked is None:
            self._kernel.run(self.iteration, iterations, len(self.tree.players), self.plus)
            self.iteration += iterations
            return self
        flat, player = self.flat, self._tracking
        reach, value = np.zeros(len(flat.kind)), np.zeros((len(flat.kind), len(self.tree.players)))
        for _ in range(iterations):
            self._kernel.run(self.iteration, 1, len(self.tree.players), self.plus)
            self.iteration += 1
            evaluate(flat, self._current, player, reach, value)
            self._tracked[0][:] += reach * value[:, player]
            self._tracked[1][:] += reach
        return self

    def track(self, player: int) -> CFRSolver:
        """From now on, sum ``player``'s counterfactual values and reaches at
        every node under each iteration's current profile, exactly (the
        full-width counterpart of :meth:`ggp.solvers.mccfr.MCCFRSolver.track`)."""
        count = len(self.flat.kind)
        self._tracking, self._tracked = player, (np.zeros(count), np.zeros(count))
        return self

    def tracked(self) -> tuple | None:
        """The sums of :meth:`track` per node (value, reach); None before it."""
        return self._tracked
