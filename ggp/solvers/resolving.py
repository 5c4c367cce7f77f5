"""Continual resolving over a game's extensive form (Šustr, Kovařík and Lisý,
"Monte Carlo Continual Resolving" (slides), slides 35-38): the resolving gadget
of a public state, and the data one resolve leaves for the next.

The *gadget* of a public state S for the resolving player i (Burch, Johanson
and Bowling, "Solving Imperfect Information Games Using Decomposition", AAAI
2014; the DeepStack form of Moravcik et al., Science 356, 2017): a chance
node picks one of S's topmost histories h with probability proportional to
``w(h) = pi_i(h) pi_c(h)``, i's range times chance; there the opponent o, in
its augmented information set J(h), chooses to *follow* (the game goes on
from h, as in the original) or to *terminate*, which pays o its kept
counterfactual value of J per unit of reach, ``v(J) / w(J)`` with
``w(J) = sum of w(h), h in J`` (i gets the rest of the game's constant sum).
The value o can secure in the gadget is then at least the kept value at every
J, which is what makes resolving safe.

Nodes of a flattened tree are in preorder, so the subtree of a node n is the
block ``n .. end[n] - 1``; a gadget is the concatenation of the blocks of S's
topmost histories behind the chance and follow/terminate nodes, built with
array operations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ggp.solvers.efg import CHANCE, DECISION, TERMINAL, FlatTree


def subtree_ends(flat: FlatTree) -> np.ndarray:
    """``end[n]``: one past the last node of n's subtree (preorder)."""
    count = len(flat.kind)
    end = np.arange(1, count + 1, dtype=np.int64)
    start, child = flat.child_start, flat.child
    for n in range(count - 1, -1, -1):
        if start[n + 1] > start[n]:
            end[n] = end[child[start[n + 1] - 1]]
    return end


def parents(flat: FlatTree) -> np.ndarray:
    """``parent[n]`` (-1 at the root)."""
    parent = np.full(len(flat.kind), -1, dtype=np.int64)
    counts = np.diff(flat.child_start)
    parent[flat.child] = np.repeat(np.arange(len(flat.kind)), counts)
    return parent


@dataclass
class Subgame:
    """A game to resolve: ``flat`` (a gadget, or the whole game), with
    ``origin[g]`` the original node of gadget node g (-1 for the gadget's own
    nodes), ``move_origin[k]`` the original (information state, move) entry of
    gadget entry k (-1 for follow/terminate), ``starts``/``offsets`` the
    original topmost histories and where their blocks begin in the gadget, and
    ``scale`` the total weight of the topmost histories (reaches in the gadget
    times ``scale`` are reaches in the game)."""

    flat: FlatTree
    origin: np.ndarray
    move_origin: np.ndarray
    starts: np.ndarray
    offsets: np.ndarray
    scale: float

    def node(self, original: int) -> int:
        """The gadget node of an original node below one of the topmost histories."""
        i = int(np.searchsorted(self.starts, original, side="right")) - 1
        return int(original - self.starts[i] + self.offsets[i])


def whole_game(flat: FlatTree) -> Subgame:
    """The game itself, for the first resolve (from the root)."""
    count = len(flat.kind)
    return Subgame(
        flat,
        np.arange(count),
        np.arange(int(flat.move_start[-1])),
        np.zeros(1, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        1.0,
    )


def gadget(
    flat: FlatTree,
    end: np.ndarray,
    tops,
    weights,
    opponent: int,
    opponent_sets,
    values: dict,
    total: float,
) -> Subgame:
    """The resolving gadget (module docstring) of the public state whose topmost
    histories are ``tops``, with the resolving player's range times chance
    ``weights`` at them, ``opponent_sets`` the opponent's augmented
    information set at each, ``values`` the opponent's kept counterfactual
    value per augmented information set, and ``total`` the constant sum of the
    two players' utilities."""
    order = np.argsort(tops)
    tops = np.asarray(tops, dtype=np.int64)[order]
    weights = np.asarray(weights, dtype=np.float64)[order]
    sets = [opponent_sets[i] for i in order]
    scale = float(weights.sum())
    if scale <= 0:  # a position the range says we never reach
        weights, scale = np.ones(len(tops)), float(len(tops))
    k = len(tops)
    lengths = end[tops] - tops
    # layout: root; then per top: follow/terminate node, terminate leaf, block
    offsets = 1 + 2 * (np.arange(k) + 1) + np.concatenate(([0], np.cumsum(lengths)[:-1]))
    count = 1 + 2 * k + int(lengths.sum())
    block = np.concatenate([np.arange(t, t + n) for t, n in zip(tops, lengths)])
    origin = np.full(count, -1, dtype=np.int64)
    where = np.concatenate([np.arange(o, o + n) for o, n in zip(offsets, lengths)])
    origin[where] = block
    choice = offsets - 2  # follow/terminate nodes
    leaf = offsets - 1  # terminate leaves

    kind = np.empty(count, dtype=np.int32)
    kind[0], kind[choice], kind[leaf] = CHANCE, DECISION, TERMINAL
    kind[where] = flat.kind[block]
    player = np.full(count, -1, dtype=np.int32)
    player[choice] = opponent
    player[where] = flat.player[block]

    # information states: the original ones met in the blocks, then one
    # follow/terminate state per opponent augmented information set
    inner = flat.infoset[block]
    used, remapped = np.unique(inner[inner >= 0], return_inverse=True)
    infoset = np.full(count, -1, dtype=np.int32)
    infoset[where[inner >= 0]] = remapped
    set_ids = {s: i for i, s in enumerate(dict.fromkeys(sets))}
    infoset[choice] = len(used) + np.array([set_ids[s] for s in sets], dtype=np.int32)
    sizes = np.concatenate((np.diff(flat.move_start)[used], np.full(len(set_ids), 2)))
    move_start = np.zeros(len(sizes) + 1, dtype=np.int32)
    np.cumsum(sizes, out=move_start[1:])
    move_origin = np.full(int(move_start[-1]), -1, dtype=np.int64)
    firsts = flat.move_start[used]
    move_origin[: int(move_start[len(used)])] = (
        np.concatenate([np.arange(f, f + s) for f, s in zip(firsts, sizes[: len(used)])])
        if len(used)
        else []
    )

    counts = np.zeros(count, dtype=np.int64)
    counts[0], counts[choice] = k, 2
    counts[where] = np.diff(flat.child_start)[block]
    child_start = np.zeros(count + 1, dtype=np.int32)
    np.cumsum(counts, out=child_start[1:])
    child = np.empty(int(child_start[-1]), dtype=np.int32)
    child_prob = np.zeros(len(child))
    child[:k] = choice
    child_prob[:k] = weights / scale
    pairs = child_start[choice]
    child[pairs], child[pairs + 1] = offsets, leaf  # move 0 follow, move 1 terminate
    lo, hi = flat.child_start[tops], flat.child_start[end[tops]]
    # the children of a block are contiguous in the original arrays, in node order
    edges: np.ndarray | list = (
        np.concatenate([np.arange(a, b) for a, b in zip(lo, hi)]) if len(tops) else []
    )
    edge_shift = np.repeat(offsets - tops, hi - lo)
    inner_edges = np.concatenate(
        [np.arange(child_start[o], child_start[o] + (b - a)) for o, a, b in zip(offsets, lo, hi)]
    )
    child[inner_edges] = flat.child[edges] + edge_shift
    child_prob[inner_edges] = flat.child_prob[edges]

    utility = np.zeros((count, flat.utility.shape[1]))
    utility[where] = flat.utility[block]
    mass: dict = {}
    for s, w in zip(sets, weights):
        mass[s] = mass.get(s, 0.0) + w
    for i, s in enumerate(sets):
        pay = values.get(s, 0.0) / mass[s] if mass[s] > 0 else 0.0
        utility[leaf[i], opponent] = pay
        utility[leaf[i], 1 - opponent] = total - pay
    return Subgame(
        FlatTree(
            kind=kind,
            child_start=child_start,
            child=child,
            child_prob=child_prob,
            player=player,
            infoset=infoset,
            utility=utility,
            move_start=move_start,
        ),
        origin,
        move_origin,
        tops,
        offsets,
        scale,
    )


#: What a resolve can keep of the opponent's values (:func:`kept_data`).
VALUES = ("iterations", "br")


def kept_data(
    subgame: Subgame,
    policy: np.ndarray,
    resolver: int,
    tops,
    opponent_sets,
    values: str = "br",
    tracked: tuple | None = None,
) -> tuple:
    """What a resolve leaves for the next public state, whose topmost histories
    (original nodes below the subgame) are ``tops``: the resolving player's
    range times chance there, and the opponent's counterfactual values per
    augmented information set (``opponent_sets`` at each top), computed
    exactly over the subgame against ``policy`` (the subgame's strategies,
    flat per information state and move).

    ``values="iterations"`` keeps the opponent's values per unit of reach
    averaged over the resolve's iterations after its warm-up, from the sums
    ``tracked`` (:meth:`ggp.solvers.mccfr.MCCFRSolver.tracked`), times the
    range: the values of DeepStack's continual re-solving (Moravčík et al.,
    "DeepStack: Expert-Level Artificial Intelligence in Heads-Up No-Limit
    Poker", Science 2017: its re-solves average both the strategy and the
    opponent's counterfactual values over the iterations after the first
    ones) and of Šustr, Kovařík and Lisý, "Monte Carlo Continual Resolving
    for Online Strategy Computation in Imperfect Information Games" (AAMAS
    2019), which estimate them from the resolver's samples; a set no sampled
    path reached gets its best-response value.  ``values="br"`` keeps the
    opponent's counterfactual *best-response* values against the resolver's
    strategy (Burch, Johanson and Bowling 2014: with them an exact resolve
    can only gain on its blueprint)."""
    from ggp.solvers._cfr import best_response

    if values not in VALUES:
        raise ValueError(f"values: 'iterations' or 'br', not {values!r}")
    flat = subgame.flat
    opponent = 1 - resolver
    nodes_count = len(flat.kind)
    reach, value = np.zeros(nodes_count), np.zeros(nodes_count)
    policy = np.ascontiguousarray(policy, dtype=np.float64)
    best_response(
        flat, policy, opponent, reach, value, np.zeros(len(flat.move_start) - 1, dtype=np.int32)
    )
    nodes = [subgame.node(t) for t in tops]
    weights = [subgame.scale * reach[g] for g in nodes]
    kept: dict = {}
    for g, w, s in zip(nodes, weights, opponent_sets):
        kept[s] = kept.get(s, 0.0) + w * value[g]
    if values == "iterations":
        assert tracked is not None, "values='iterations' needs the tracked sums"
        sums: dict = {}
        for g, w, s in zip(nodes, weights, opponent_sets):
            entry = sums.setdefault(s, [0.0, 0.0, 0.0])
            entry[0] += tracked[0][g]
            entry[1] += tracked[1][g]
            entry[2] += w
        kept.update({s: w * v / r for s, (v, r, w) in sums.items() if r > 0})
    return weights, kept
