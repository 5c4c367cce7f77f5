"""Learning by self-play over a game's extensive form: Smooth UCT and
extensive-form UCT, as in

    J. Heinrich, "Smooth UCT Search", thesis chapter (Algorithm 1:
    extensive-form MCTS with one tree per player over its information states;
    Algorithm 2: UCT; Algorithm 3: Smooth UCT with the mixing schedule eq. 3.1),
    and J. Heinrich and D. Silver, "Smooth UCT Search in Computer Poker",
    IJCAI 2015.

The episodes run in C (:class:`players.imperfect._infotree.InfoTrees`) on the whole
extensive form of a small game (:func:`ggp.solvers.efg.build_tree`); the learned
policy is the average policy N(u, a) / N(u) of every information state in the
trees (uniform at those never reached), scored by its exploitability
(:func:`ggp.solvers.cfr.exploitability`, NashConv / 2).

>>> from ggp import load_game
>>> from ggp.solvers.efg import build_tree
>>> learner = SelfPlay(build_tree(load_game("kuhn")), "smooth-uct:c=0.875,d=0.001")
>>> learner.run(100_000).exploitability() < 0.1       # uniform: 0.458 chip
True

Players (a spec as :class:`ggp.specs.Spec` reads it):

- ``smooth-uct``: Smooth UCT; parameters ``c``, ``gamma`` (0.1), ``eta0``
  (0.9), ``d`` (0.001), ``seed`` (0);
- ``efg-uct``: extensive-form UCT, i.e. eta = 1; ``c``, ``seed`` (0).

``c`` is on the scale of the tree's utilities, goals scaled to -1..1 by the
game's goal range (:func:`ggp.solvers.efg.utility_unit`), whatever unit the file
declares; its default, 0.8 (40 goal points of a 0..100 game), is a neutral
choice, not a tuned one.  The thesis' tuned values are in chips: a chip is
25 goal points of Kuhn's 50-point half range and 3 of Leduc's 39, so they
become Kuhn ``smooth-uct:c=0.875,gamma=0.1,eta0=0.9,d=0.001`` and
``efg-uct:c=1``; Leduc ``smooth-uct:c=1.385,gamma=0.1,eta0=0.9,d=0.002`` and
``efg-uct:c=1.5385`` (``c`` in chips times 3 / 39).
"""

from __future__ import annotations

import time

from ggp.solvers.cfr import exploitability
from ggp.solvers.efg import Tree, flatten
from ggp.specs import Spec, unknown_name
from players.imperfect._infotree import InfoTrees
from players.learning.curves import CurvePoint, checkpoints
from players.params import settings
from players.registry import names, player_class

#: self-play player -> SELECT of :class:`InfoTrees`
ALGORITHMS = {"smooth-uct": "smooth", "efg-uct": "ucb"}
#: The parameters of a player's declaration that self-play uses (the others
#: are for playing matches: budgets, reasoner, final move).
LEARNING_PARAMS = ("c", "gamma", "eta0", "d", "seed")


class SelfPlay:
    """A self-play learner on ``tree``: ``spec`` names the player and may
    carry parameters (``"smooth-uct:c=1.3846,d=0.002"``); ``params`` add or
    replace them.  ValueError for an unknown player or parameter."""

    def __init__(self, tree: Tree, spec: str | Spec = "smooth-uct", **params):
        spec = Spec.of(spec)
        name, given = spec.name, spec.params
        if name not in ALGORITHMS:
            if name in names():
                raise ValueError(
                    f"player {name!r} plays matches; it does not learn by "
                    f"self-play: choose {' or '.join(ALGORITHMS)}"
                )
            raise ValueError(unknown_name("self-play player", name, ALGORITHMS))
        declared = [p for p in player_class(name).params if p.name in LEARNING_PARAMS]
        try:
            chosen = settings(declared, {**given, **params})
        except ValueError as exc:
            raise ValueError(f"player {name}: {exc}") from None
        if chosen["seed"] is None:
            chosen["seed"] = 0
        self.name, self.params = name, chosen
        mixing = {k: chosen[k] for k in ("gamma", "eta0", "d") if k in chosen}
        self.trees = InfoTrees(
            len(tree.players), ALGORITHMS[name], c=chosen["c"], seed=chosen["seed"], **mixing
        )
        self.tree = tree
        self._flat = flatten(tree)
        self.episodes = 0
        self.seconds = 0.0
        self.curve: list[CurvePoint] = []

    @property
    def spec(self) -> str:
        """The player with every parameter that matters, seed excepted."""
        keys = ("c", "gamma", "eta0", "d") if self.name == "smooth-uct" else ("c",)
        return f"{self.name}:" + ",".join(f"{k}={self.params[k]:g}" for k in keys)

    def run(self, episodes: int) -> SelfPlay:
        """Train ``episodes`` more episodes."""
        if episodes < 0:
            raise ValueError(f"episodes must not be negative, got {episodes}")
        start = time.perf_counter()
        self.trees.selfplay(self._flat, episodes)
        self.seconds += time.perf_counter() - start
        self.episodes += episodes
        return self

    def average_policy(self) -> list:
        """Per information state of the tree, the average policy of its node
        (uniform for one never in the trees)."""
        policy = []
        for i, info in enumerate(self.tree.infosets):
            node = self.trees.find(info.player, i)
            policy.append(
                self.trees.average(node) if node >= 0 else [1.0 / len(info.moves)] * len(info.moves)
            )
        return policy

    def exploitability(self) -> float:
        """The exploitability of the average policy, in the tree's unit."""
        return exploitability(self.tree, self.average_policy())

    def checkpoint(self) -> CurvePoint:
        """Evaluate the average policy now and add the point to ``curve``."""
        point = CurvePoint(self.episodes, self.seconds, self.exploitability())
        self.curve.append(point)
        return point


def learner_for(tree: Tree, spec: str | Spec, params: dict | None = None):
    """The self-play learner a spec names: :class:`SelfPlay` (``smooth-uct``,
    ``efg-uct``), :class:`players.learning.nfsp.NFSP` (``nfsp``) or
    :class:`players.learning.nfsp.MCNFSP` (``mc-nfsp``); ValueError naming
    them (and the nearest) for a name that is none of them nor a player."""
    spec = Spec.of(spec)
    name, given = spec.name, spec.params
    from players.learning.nfsp import LEARNERS

    if name in LEARNERS:
        learner = LEARNERS[name]
        try:
            return learner(tree, settings(learner.declared, {**given, **(params or {})}))
        except ValueError as exc:
            raise ValueError(f"player {name}: {exc}") from None
    if name not in ALGORITHMS and name not in names():
        raise ValueError(unknown_name("self-play player", name, (*ALGORITHMS, *LEARNERS)))
    return SelfPlay(tree, spec, **(params or {}))


def train(
    tree: Tree | None,
    name: str = "smooth-uct",
    params: dict | None = None,
    episodes: int = 1_000_000,
    points=None,
    seed: int | None = None,
    learner=None,
    after=None,
    keep=None,
    keep_seconds: float = 60.0,
    progress=None,
) -> SelfPlay:
    """A learner (:func:`learner_for`) trained ``episodes`` episodes,
    evaluated at ``points`` (default :func:`checkpoints`; ``episodes`` is
    always the last point) into its ``curve``.  ``seed``, when given, replaces
    the parameters' seed.  ``learner``, when given, is trained on (a resumed
    one); ``after(learner)`` is called at every point, and ``keep(learner)``
    (saving it) at every point and after each ``keep_seconds`` of training
    between them; ``progress(episodes)`` about every second of training.
    ``tree`` may be None when ``learner`` is given (one that samples the game)."""
    if episodes < 1:
        raise ValueError(f"episodes must be positive, got {episodes}")
    if learner is None:
        assert tree is not None, "train: a tree, or a learner to train on"
        learner = learner_for(
            tree, name, {**(params or {}), **({} if seed is None else {"seed": seed})}
        )
    targets = sorted(
        {p for p in (points or checkpoints(episodes)) if learner.episodes < p < episodes}
    )
    span = min(keep_seconds / 10, 1.0) if progress else keep_seconds / 10
    if progress:
        progress(learner.episodes)
    for target in targets + [episodes]:
        if keep is None and progress is None:
            learner.run(max(0, target - learner.episodes))
        else:  # in chunks of about ``span`` seconds, kept as it goes
            kept, chunk = learner.seconds, 1000
            while learner.episodes < target:
                began = learner.seconds
                learner.run(min(chunk, target - learner.episodes))
                took = max(learner.seconds - began, 1e-6)
                chunk = max(1, min(chunk * 2, int(chunk * span / took)))
                if progress:
                    progress(learner.episodes)
                if (
                    keep is not None
                    and learner.seconds - kept >= keep_seconds
                    and learner.episodes < target
                ):
                    keep(learner)
                    kept = learner.seconds
        learner.checkpoint()
        if keep is not None:
            keep(learner)
        if after is not None:
            after(learner)
    return learner
