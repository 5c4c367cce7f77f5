"""The extensive-form view of a game: its full tree of histories, built once
through the state machine, with chance nodes, decision nodes, terminal
utilities and information states, in flat arrays for solvers (``ggp.solvers.cfr``).

>>> from ggp import load_game
>>> tree = build_tree(load_game("kuhn"))
>>> tree.histories, tree.terminals, tree.information_states()
(58, 30, {'first': 6, 'second': 6})

How a GDL game becomes a tree:

- The ``random`` role of GDL-II is chance, uniform over its legal moves.
  Every other role is a player, in role order.
- A role *acts* in a state when it has at least two legal moves.  The roles
  acting in one state are sequentialized in role order: one tree node each,
  so a simultaneous step of k acting roles gives k successive nodes (as
  OpenSpiel's turn-based view of a simultaneous game).  A state where nobody
  acts (every role has one legal move, e.g. noop) is no node: it is passed
  through.  Terminal states are terminal nodes.
- ``histories`` counts every node: terminal, chance and decision nodes.  This
  is OpenSpiel's count of histories (every history, chance included): Kuhn
  poker dealing one card at a time gives 1 + 3 + 6 chance histories, 18
  decision histories and 30 terminal ones, 58 in all.
- The information state of a player at a node is what it knows: its own
  move and its percepts at every step so far (GDL-II ``sees``; in a GDL-I game
  every player sees the whole joint move), plus its legal moves there.  A
  player never sees the moves made in the same step by roles sequentialized
  before it.  Only nodes where the player acts get an information state.

Utilities are goals centred on the middle of the game's goal range and
divided by half its width (:func:`utility_unit`; the range is found in the
rules, :attr:`ggp.game.Game.goal_range`), so -1 and 1 are the least and the
most the game can pay whatever its file says: every solver, learner and
search of imperfect information works on them, and the same parameters mean
the same on any file.  Figures are reported in goal points and in the unit
the file declares in a comment line ``; efg: chip = 25 goal points around
50`` (goal = 50 + 25 * chips), else goal points again (:func:`game_unit`,
:meth:`Tree.in_units`).

``flatten(tree)`` gives the same tree in numpy arrays (children in CSR form)
for the Cython kernels: CFR (``ggp.solvers._cfr``) and self-play (``players.imperfect._infotree``).
"""

from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gdl import to_kif
from ggp.reasoners import COMPILED
from ggp.statemachine import GameError

CHANCE_ROLE = "random"
#: The most histories :func:`build_tree` builds unless told otherwise.
HISTORY_LIMIT = 500_000
TERMINAL, CHANCE, DECISION = 0, 1, 2

_UNIT_LINE = re.compile(
    r"^\s*;+\s*efg:\s*(\w+)\s*=\s*([0-9.]+)\s*goal points around\s*([0-9.]+)", re.MULTILINE
)


class TreeTooLarge(GameError):
    """The game's extensive form has more histories than the limit allows."""


@dataclass(frozen=True)
class Unit:
    """A game's unit of utility: ``goal = offset + scale * utility``."""

    name: str = "goal points"
    scale: float = 1.0
    offset: float = 0.0

    def from_goal(self, goal: float) -> float:
        return (goal - self.offset) / self.scale

    def to_goal(self, utility: float) -> float:
        return self.offset + self.scale * utility

    @classmethod
    def parse(cls, text: str) -> Unit:
        """The unit declared in a description's ``; efg:`` comment line, else goal points."""
        match = _UNIT_LINE.search(text)
        if not match:
            return cls()
        return cls(match.group(1), float(match.group(2)), float(match.group(3)))


def game_unit(game) -> Unit:
    """The unit ``game``'s figures are reported in: the one its file declares
    (goal points when it declares none, or for a game read from text).  It
    changes what is printed, never what is computed."""
    path = Path(game.description.path)
    return Unit.parse(path.read_text()) if path.is_file() else Unit()


def utility_unit(game) -> Unit:
    """The utilities every solver and learner works in: ``(goal - centre) /
    half``, with the centre and half width of the game's goal range
    (:attr:`ggp.game.Game.goal_range`; Kuhn's 0..100: 50 and 50, Leduc's
    11..89: 50 and 39), so that they run from -1 to 1 on any game and
    centred (outcome sampling's variance grows with an offset: Lanctot et
    al., "Monte Carlo Sampling for Regret Minimization in Extensive Games",
    NIPS 2009, weight utilities by inverse sampling probabilities)."""
    low, high = game.goal_range
    return Unit("utility", (high - low) / 2 or 1.0, (high + low) / 2)


@dataclass
class InfoSet:
    """One information state: its ``key`` (a readable string, unique in the
    game), the index of its player, its moves (terms, in the state machine's
    order), the nodes where that player holds it, and its ``history``: the
    player's (own move, percepts) at every step so far."""

    key: str
    player: int
    moves: tuple
    nodes: list = field(default_factory=list)
    history: tuple = ()


class Tree:
    """A game's extensive form in flat arrays indexed by node (root 0, preorder).

    ``kind[n]`` is TERMINAL, CHANCE or DECISION; ``children[n]`` the child
    nodes, one per move (per ``infosets[infoset[n]].moves`` at a decision
    node); ``chance_probs[n]`` the probabilities at a chance node;
    ``player[n]`` and ``infoset[n]`` the acting player and its information
    state at a decision node (-1 elsewhere); ``utility[n]`` the tuple of the
    players' utilities (in ``unit``, :func:`utility_unit`) at a terminal
    node, and ``display`` the unit figures are reported in
    (:func:`game_unit`); ``augmented[n]``, at a
    chance or decision node, each player's *augmented information set* there
    (an int; equal ints, equal sets): its observation history, i.e. its
    moves and percepts so far, its move already chosen in this step, and its
    legal moves when it acts at n (Šustr, Kovařík and Lisý, "Monte Carlo
    Continual Resolving" (slides), slide 19).  Two nodes where some
    player's augmented information set is the same are ones that player
    cannot tell apart (:mod:`ggp.solvers.public` builds public states from them).
    """

    def __init__(
        self,
        players: tuple,
        unit: Unit,
        limit: int = HISTORY_LIMIT,
        deadline: float | None = None,
        display: Unit | None = None,
    ):
        self.limit, self.deadline = limit, deadline
        self.players = players
        self.unit = unit
        self.display = display or Unit()
        self.kind: list[int] = []
        self.children: list[tuple] = []
        self.chance_probs: list[tuple] = []
        self.player: list[int] = []
        self.infoset: list[int] = []
        self.utility: list[tuple] = []
        self.augmented: list[tuple] = []
        self.infosets: list[InfoSet] = []
        self._infoset_index: dict[str, int] = {}
        self._augmented_index: dict[tuple, int] = {}

    def add_node(
        self,
        kind: int,
        player: int = -1,
        infoset: int = -1,
        utility: tuple = (),
        augmented: tuple = (),
    ) -> int:
        if len(self.kind) >= self.limit:
            raise TreeTooLarge(
                f"the game's extensive form has more than {self.limit:,} "
                f"histories; it is too large to build whole"
            )
        if (
            self.deadline is not None
            and len(self.kind) % 1024 == 0
            and time.monotonic() > self.deadline
        ):
            raise TreeTooLarge(
                f"the game's extensive form was not built in time "
                f"({len(self.kind):,} histories so far)"
            )
        self.kind.append(kind)
        self.augmented.append(
            tuple(
                self._augmented_index.setdefault(key, len(self._augmented_index))
                for key in augmented
            )
        )
        self.children.append(())
        self.chance_probs.append(())
        self.player.append(player)
        self.infoset.append(infoset)
        self.utility.append(utility)
        return len(self.kind) - 1

    def infoset_for(self, key: str, player: int, moves: tuple, history: tuple = ()) -> int:
        index = self._infoset_index.get(key)
        if index is None:
            index = self._infoset_index[key] = len(self.infosets)
            self.infosets.append(InfoSet(key, player, moves, history=history))
        return index

    def infoset_index(self, key: str) -> int:
        """The index of the information state ``key`` (KeyError when unknown)."""
        return self._infoset_index[key]

    @property
    def histories(self) -> int:
        return len(self.kind)

    @property
    def terminals(self) -> int:
        return self.kind.count(TERMINAL)

    def information_states(self) -> dict:
        """Player -> number of its information states (states where it acts)."""
        counts = dict.fromkeys(self.players, 0)
        for info in self.infosets:
            counts[self.players[info.player]] += 1
        return counts

    def in_units(self, gap: float, values=None) -> dict:
        """An exploitability ``gap`` (and the players' ``values``), both in
        the tree's utilities, as every command reports them: in goal points
        (``exploitability``, ``values``) and in the file's declared unit
        (``exploitability_in_unit``, ``values_in_unit``), whose name is
        ``unit``."""
        points = gap * self.unit.scale
        data = {
            "unit": self.display.name,
            "exploitability": points,
            "exploitability_in_unit": points / self.display.scale,
        }
        if values is not None:
            goals = [self.unit.to_goal(v) for v in values]
            data["values"] = dict(zip(self.players, goals))
            data["values_in_unit"] = {
                r: self.display.from_goal(g) for r, g in zip(self.players, goals)
            }
        return data


#: The fields of :meth:`Tree.in_units` in the game's unit, and the names they
#: had before (``exploitability_unit`` read as the unit's name, which is in
#: ``unit``); files written with those are still read
#: (:func:`exploitability_in_unit`, :func:`players.learning.curves.write_curve`).
RENAMED = {"exploitability_in_unit": "exploitability_unit", "values_in_unit": "values_unit"}


def exploitability_in_unit(row) -> float:
    """The exploitability in the game's unit of a curve file's row or a
    command's JSON object, under its name or the one it had before
    (:data:`RENAMED`)."""
    name = "exploitability_in_unit"
    return float(row[name] if name in row else row[RENAMED[name]])


def infostate_key(role: str, observations: tuple, moves: tuple) -> str:
    """``role: move {percepts} / ... ? legal moves``, all in KIF, percepts sorted."""
    steps = " / ".join(
        f"{to_kif(move)} {{{' '.join(sorted(map(to_kif, seen)))}}}" for move, seen in observations
    )
    return f"{role}: {steps} ? {' '.join(map(to_kif, moves))}"


def estimate_histories(
    game, reasoner: str = COMPILED, samples: int = 1000, seconds: float = 1.0, seed: int = 0
) -> tuple[float, int]:
    """(Histories of :func:`build_tree`'s tree, estimated; the random paths
    it took) by Knuth's estimator (D. E. Knuth, "Estimating the Efficiency of
    Backtrack Programs", Mathematics of Computation 29, 1975): along a path of
    uniformly random moves, each node counts the product of the branching
    factors above it; the mean over paths is unbiased.  ``samples`` paths at
    most, and no more once ``seconds`` have passed."""
    sm = game.state_machine(reasoner)
    rng = random.Random(seed)
    stop = time.monotonic() + seconds
    total, paths = 0.0, 0
    while paths < samples and (paths == 0 or time.monotonic() < stop):
        state, weight = sm.initial_state(), 1.0
        while not sm.is_terminal(state):
            legal = sm.playable_moves(state)
            for moves in legal:
                if len(moves) >= 2:  # an acting role: one node a choice
                    total += weight
                    weight *= len(moves)
            state = sm.next_state(state, [rng.choice(list(moves)) for moves in legal])
        total += weight  # the terminal node
        paths += 1
    return total / paths, paths


def build_tree(
    game,
    reasoner: str = COMPILED,
    unit: Unit | None = None,
    limit: int = HISTORY_LIMIT,
    deadline: float | None = None,
    estimate: bool = False,
) -> Tree:
    """The whole extensive-form tree of ``game`` (meant for small games: every
    history is a node); :class:`TreeTooLarge` past ``limit`` histories or, when
    a ``deadline`` (a ``time.monotonic()`` instant) is given, past it.  With
    ``estimate``, first :func:`estimate_histories` (a second at most):
    :class:`TreeTooLarge` at once when that says more than twice ``limit``."""
    if estimate:
        histories, paths = estimate_histories(game, reasoner)
        if histories > 2 * limit:
            raise TreeTooLarge(
                f"the game's extensive form has about {histories:.2g} histories "
                f"(estimated from {paths:,} random paths), more than "
                f"{limit:,}; it is too large to build whole"
            )
    sm = game.state_machine(reasoner)
    roles = tuple(sm.roles)
    players = tuple(r for r in roles if r != CHANCE_ROLE)
    tree = Tree(players, unit or utility_unit(game), limit, deadline, game_unit(game))
    player_of = {r: i for i, r in enumerate(players)}
    player_roles = tuple(roles.index(r) for r in players)
    perfect_information = not game.is_gdl2

    def observe(state, joint, observations):
        seen = []
        for role, obs in zip(roles, observations):
            if role == CHANCE_ROLE:
                seen.append(obs)
                continue
            percepts = (
                frozenset([joint]) if perfect_information else sm.percepts(state, joint, role)
            )
            seen.append(obs + ((joint[roles.index(role)], percepts),))
        return tuple(seen)

    def visit(state, observations):
        """Past the steps where nobody acts: a terminal node, or the first
        choice of the next step where someone does."""
        while True:
            if sm.is_terminal(state):
                goals = tuple(tree.unit.from_goal(sm.goal(state, r)) for r in players)
                return tree.add_node(TERMINAL, utility=goals)
            legal = [tuple(moves) for moves in sm.playable_moves(state)]
            acting = [i for i, moves in enumerate(legal) if len(moves) >= 2]
            if acting:
                return choice(state, observations, legal, acting, 0, [m[0] for m in legal])
            joint = tuple(m[0] for m in legal)
            state, observations = (sm.next_state(state, joint), observe(state, joint, observations))

    def choice(state, observations, legal, acting, k, chosen):
        """The node of the k-th acting role's choice in this step (its moves
        still to explore: a :class:`_Choice`), or past the step's last one,
        what the joint move ``chosen`` leads to."""
        if k == len(acting):
            joint = tuple(chosen)
            return visit(sm.next_state(state, joint), observe(state, joint, observations))
        r = acting[k]
        role, moves = roles[r], legal[r]
        augmented = tuple(
            (i, observations[i], chosen[i] if i in acting[:k] else None, moves if i == r else None)
            for i in player_roles
        )
        if role == CHANCE_ROLE:
            node = tree.add_node(CHANCE, augmented=augmented)
            tree.chance_probs[node] = (1.0 / len(moves),) * len(moves)
        else:
            p = player_of[role]
            key = infostate_key(role, observations[r], moves)
            node = tree.add_node(
                DECISION, p, tree.infoset_for(key, p, moves, observations[r]), augmented=augmented
            )
            tree.infosets[tree.infoset[node]].nodes.append(node)
        return _Choice(node, (state, observations, legal, acting, k), chosen, moves)

    # depth first, each node numbered before its children (preorder), with a
    # stack of the choices under way instead of recursion (games can be long)
    first = visit(sm.initial_state(), tuple(() for _ in roles))
    stack = [first] if isinstance(first, _Choice) else []
    while stack:
        top = stack[-1]
        if top.next == len(top.moves):
            stack.pop()
            tree.children[top.node] = tuple(top.kids)
            if stack:
                stack[-1].kids.append(top.node)
            continue
        state, observations, legal, acting, k = top.context
        chosen = list(top.chosen)
        chosen[acting[k]] = top.moves[top.next]
        top.next += 1
        below = choice(state, observations, legal, acting, k + 1, chosen)
        if isinstance(below, _Choice):
            stack.append(below)
        else:
            top.kids.append(below)
    return tree


@dataclass
class _Choice:
    """A node of :func:`build_tree` whose children are being built."""

    node: int
    context: tuple  # state, observations, legal moves, acting roles, k
    chosen: list  # the step's joint move so far
    moves: tuple
    next: int = 0
    kids: list = field(default_factory=list)


@dataclass(frozen=True)
class FlatTree:
    """A :class:`Tree` in contiguous numpy arrays, indexed as the tree's lists.

    ``kind``, ``player``, ``infoset`` (int32 per node); the children of node n
    are ``child[child_start[n]:child_start[n + 1]]`` (int32), with
    ``child_prob`` their chance probabilities (0 below decision nodes);
    ``utility[n, p]`` (float64, 0 at non-terminal nodes); the moves of
    information state i are entries ``move_start[i]:move_start[i + 1]`` of any
    flat per-(information state, move) array.
    """

    kind: np.ndarray
    child_start: np.ndarray
    child: np.ndarray
    child_prob: np.ndarray
    player: np.ndarray
    infoset: np.ndarray
    utility: np.ndarray
    move_start: np.ndarray


def flatten(tree: Tree) -> FlatTree:
    """``tree`` in arrays (see :class:`FlatTree`)."""
    child_start = np.zeros(tree.histories + 1, dtype=np.int32)
    np.cumsum([len(c) for c in tree.children], out=child_start[1:])
    child = np.fromiter(
        (c for cs in tree.children for c in cs), dtype=np.int32, count=int(child_start[-1])
    )
    child_prob = np.zeros(len(child))
    utility = np.zeros((tree.histories, len(tree.players)))
    for n, kind in enumerate(tree.kind):
        if kind == CHANCE:
            child_prob[child_start[n] : child_start[n + 1]] = tree.chance_probs[n]
        elif kind == TERMINAL:
            utility[n] = tree.utility[n]
    move_start = np.zeros(len(tree.infosets) + 1, dtype=np.int32)
    np.cumsum([len(info.moves) for info in tree.infosets], out=move_start[1:])
    return FlatTree(
        kind=np.asarray(tree.kind, dtype=np.int32),
        child_start=child_start,
        child=child,
        child_prob=child_prob,
        player=np.asarray(tree.player, dtype=np.int32),
        infoset=np.asarray(tree.infoset, dtype=np.int32),
        utility=utility,
        move_start=move_start,
    )
