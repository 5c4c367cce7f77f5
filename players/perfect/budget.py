"""Time management of the MCTS players (:mod:`players.perfect.mcts`): how long
a search thinks, and the one-player planner's share of it.

Budgets: ``simulations=N`` per move (reproducible with ``seed``; a forced
move, such as ``noop`` in a turn-taking game, is answered without
simulations), else the play clock less a safety ``margin`` in seconds (spent
even on forced moves: thinking ahead while the opponent moves).  On the clock
the Python tree starts a simulation only while its expansion's two questions,
at :data:`~players.perfect.searches.HEADROOM` times the slowest step so far,
would still end before the instant, and a question unanswered then is given up
(nothing is backed up); the C tree is run to the instant.  In a one-player
game the planner (:mod:`players.perfect.puzzle`) gets half of each play clock
until its plan is known best, or :data:`PLAN_EXPANSIONS` expansions a
simulation under a simulation budget.
"""

from __future__ import annotations

import math
import time

from ggp import Interrupted
from ggp.collector import collector_paused
from players.perfect.searches import HEADROOM
from players.perfect.tree import PythonTree

#: Under a simulation budget, the one-player planner's expansions per
#: simulation: a playout visits tens to hundreds of states, an expansion one.
PLAN_EXPANSIONS = 100


class Budget(PythonTree):
    """The thinking of :class:`players.perfect.mcts.MCTSPlayer`: its search
    (the C tree ``ctree``, else the Python tree's simulations) run to a
    budget or an instant, and the planner's share of a decision."""

    def think(self, until: float, budget: int | None = None):
        """Simulate until ``budget`` simulations or the ``until`` instant.

        The cyclic garbage collector is paused meanwhile, and what the search
        allocated is then frozen out of its reach (:mod:`ggp.collector`): the
        tree holds no cycles, and a full collection over a large tree, due as
        soon as collection resumes, could overrun the clock."""
        if self.ctree is not None:
            self.last_simulations = self.ctree.run(-1 if budget is None else budget, until)
            return
        done = 0
        self.search.until = until
        with collector_paused():
            try:  # a simulation's expansion asks two questions before its playout
                while (
                    done < budget
                    if budget is not None
                    else time.monotonic() + 2 * HEADROOM * self.search.step_seconds < until
                ):
                    done += self.simulate()
            except Interrupted:  # a question given up at the deadline: nothing was backed up
                pass
        self.last_simulations = done

    def _planned(self, me, legal, deadline):
        """A one-player game's move from its plan when the plan is known best;
        else, thinking on the clock or a budget, the planner gets its share
        (half the time, or the budget in expansions) and None is returned."""
        planning = self.planning
        if planning is None:
            return None
        if not planning.solved:
            if self.simulations is not None:
                planning.think(math.inf, self._plan_budget())
            else:
                now = time.monotonic()
                planning.think(now + (self.think_until(deadline) - now) / 2)
        planned = planning.next_move() if planning.solved else None
        moves = {self.search.steps.move_id(me, m): m for m in legal}
        return moves.get(planned)

    def _plan_budget(self) -> int | None:
        """The planner's expansions a decision under a simulation budget:
        :data:`PLAN_EXPANSIONS` a simulation (None: on the clock)."""
        return None if self.simulations is None else PLAN_EXPANSIONS * self.simulations
