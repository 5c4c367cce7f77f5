"""Plans for one-player games: the search player's puzzle mode.

In a one-player game of perfect information every move's outcome is known, so
a path to an ending is a plan that scores that ending's goal for certain.
:class:`Puzzle` keeps the best plan found by the planner of
:mod:`players.perfect._plan` (its docstring gives the searches and their
sources) and follows it: once a plan reaches the game's highest goal, or
the planner has proved it the best there is, the player plays it move by
move without searching further; until then the planner searches again from
each new position, keeping the best plan so far, and
:class:`players.perfect.mcts.MCTSPlayer` plays a plan's move only when it
promises at least what its own search has seen.
"""

from __future__ import annotations

import math
import warnings

#: Bytes the planner's two transposition tables may hold together.
TABLE_BYTES = 1 << 30


class Puzzle:
    """The best plan from the current state of a one-player game on the
    compiled reasoner's ``kernel``."""

    def __init__(self, kernel, state):
        self.kernel = kernel
        self.state = state
        self.planner = None
        #: the best plan's moves from ``state`` (kernel move numbers), its goal
        #: (-1: no plan yet) and whether nothing better exists
        self.moves: list = []
        self.value = -1
        self.solved = False
        self.failed = False  # out of memory: no more planning this match

    def think(self, until: float, budget: int | None = None) -> int:
        """Plan from the current state until ``until`` (``time.monotonic()``) or
        ``budget`` expansions; returns the expansions made."""
        if self.solved or self.failed:
            return 0
        if self.planner is None:
            from players.perfect._plan import Planner

            limit = TABLE_BYTES // (2 * (len(self.state) + 64))
            self.planner = Planner(self.kernel, self.state, limit)
        planner = self.planner
        try:
            done = planner.run(-1 if budget is None else budget, until)
        except MemoryError:  # the tables grow past what the process may hold
            warnings.warn(
                "the one-player planner ran out of memory; playing without it",
                RuntimeWarning,
                stacklevel=2,
            )
            self.planner, self.failed = None, True
            return 0
        # a planner that proved its best found also what the kept plan reaches
        if planner.solved or planner.best > self.value:
            self.moves, self.value, self.solved = planner.plan(), planner.best, planner.solved
        if self.solved:  # nothing left to search: its tables are freed
            self.planner = None
        return done

    def next_move(self, seen: float = -math.inf):
        """The plan's next move when it is known best, or when it scores
        above 0 and at least ``seen``; else None."""
        if not self.moves or (not self.solved and (self.value <= 0 or self.value < seen)):
            return None
        return self.moves[0]

    def advance(self, move, state):
        """The game moved on with our ``move`` to ``state``: the plan goes on if
        it was its move, else it is dropped; the planner starts again."""
        if self.moves and self.moves[0] == move:
            self.moves = self.moves[1:]
        else:
            self.moves, self.value, self.solved = [], -1, False
        self.state = state
        self.planner = None
