"""Monte Carlo CFR over a game's extensive form (``ggp.solvers.efg``): outcome sampling
with epsilon-on-policy exploration and stochastically-weighted averaging
(Šustr, Kovařík and Lisý, "Monte Carlo Continual Resolving" (slides), slides
28-31), optionally targeted as Online Outcome Sampling
does, and external sampling.  The traversals run in the Cython kernel
:mod:`ggp.solvers._mccfr`, whose docstring gives the estimators and their papers.

>>> from ggp import load_game
>>> from ggp.solvers.efg import build_tree
>>> from ggp.solvers.cfr import exploitability
>>> tree = build_tree(load_game("kuhn"))
>>> solver = MCCFRSolver(tree, seed=1).run(100_000)
>>> exploitability(tree, solver.average_policy()) < 0.02
True

An algorithm is named as ``ggp solve --algo`` takes it (:func:`ggp.solvers.solve.parse_algo`):
``mccfr`` (outcome sampling, epsilon 0.6) or ``mccfr:sampling=external``,
``mccfr:epsilon=0.4``.
"""

from __future__ import annotations

import numpy as np

from ggp.solvers.cfr import TableSolver
from ggp.solvers.efg import Tree
from ggp.specs import unknown_name

#: outcome sampling's exploration at the updated player's nodes (the MCCR slides)
EPSILON = 0.6
SAMPLINGS = ("outcome", "external")


class MCCFRSolver(TableSolver):
    """Outcome- or external-sampling MCCFR on ``tree`` (or on ``flat``, a
    flattened tree such as a resolving gadget, with ``tree`` giving its
    players and information states).  ``regret`` and ``cumulative`` may be
    given to start from (and keep writing into) existing tables."""

    def __init__(
        self,
        tree: Tree,
        sampling: str = "outcome",
        epsilon: float = EPSILON,
        seed: int = 0,
        flat=None,
    ):
        from ggp.solvers._mccfr import MCCFRSampler

        if sampling not in SAMPLINGS:
            raise ValueError(unknown_name("sampling", sampling, SAMPLINGS))
        if not 0 < epsilon <= 1:
            raise ValueError(f"epsilon must be in (0, 1], not {epsilon}")
        super().__init__(tree, flat)
        self.sampling, self.epsilon, self.seed = sampling, epsilon, seed
        self._sampler = MCCFRSampler(self.flat, self._regret, self._cumulative, epsilon, seed)

    def target(self, nodes, delta: float) -> MCCFRSolver:
        """Target ``delta`` of the traversals at ``nodes`` (a uint8 mask per
        node of the flat tree: the nodes that lead to, or lie below, the
        target histories); ``nodes=None`` stops targeting."""
        self._sampler.set_target(nodes, delta)
        return self

    def reseed(self, seed: int) -> MCCFRSolver:
        """Draw the next samples from ``seed``."""
        self._sampler.reseed(seed)
        return self

    def copy(self, seed: int) -> MCCFRSolver:
        """A solver with copies of these tables (and targeting off), sampling from ``seed``."""
        other = MCCFRSolver(self.tree, self.sampling, self.epsilon, seed, self.flat)
        other._regret[:] = self._regret
        other._cumulative[:] = self._cumulative
        other.iteration = self.iteration
        return other

    def track(self, player: int) -> MCCFRSolver:
        """From now on, estimate ``player``'s counterfactual values at every
        node averaged over the iterations (outcome sampling only;
        :meth:`tracked` reads them)."""
        if self.sampling != "outcome":
            raise ValueError("values are tracked by outcome sampling only")
        count = len(self.flat.kind)
        self._tracked = (np.zeros(count), np.zeros(count))
        self._sampler.set_tracking(player, *self._tracked)
        return self

    def tracked(self) -> tuple:
        """(the sums of sampled counterfactual values, of sampled reaches) per
        node since :meth:`track`: their ratio at a node is the tracked
        player's value there per unit of reach, averaged over the iterations."""
        return self._tracked

    def run(self, iterations: int) -> MCCFRSolver:
        self._sampler.run(iterations, len(self.tree.players), self.sampling == "external")
        self.iteration += iterations
        return self
