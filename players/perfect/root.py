"""The decision at the root of the MCTS players (:mod:`players.perfect.mcts`):
the proof search before the search, and the move played after it.

* ``proof``: a bounded proof search for forced wins before each decision of a
  two-player game on the compiled reasoner (:mod:`players.perfect._proof`,
  after Draper's local search in Sancho, 2015): a forced win is played at once,
  and a move after which the opponent forces one is not played while another
  is not;
* the solver's values (``solver``, ``tactics``: MCTS-Solver, Winands,
  Björnsson and Saito, "Monte-Carlo Tree Search Solver", Computers and Games
  2008, in :mod:`players.perfect._tree`): a move proved won is played (the
  soonest win), and never a move proved worse than another;
* the move played (Tak, Winands and Björnsson, "N-Grams and the
  Last-Good-Reply Policy Applied in General Game Playing", IEEE TCIAIG 4(2),
  2012; slide 29 of A. Shwartz's presentation of that paper, 2015, "how do we
  select the move"): the best average (``final=average``, the slide's option
  2), the best reward seen (``final=best``, option 1, which the slide gives
  as CadiaPlayer's), the most visited (``final=visits``), or one drawn in
  proportion to the root visits (``final=mixed``: in a simultaneous-move game
  the visit frequencies of decoupled UCT approximate a mixed strategy, which
  the most visited move, a pure strategy, throws away).
"""

from __future__ import annotations

import math
import time

from players.perfect.state import SearchState

#: The deepest forced win the proof search (``proof``) looks for, in plies.
PROOF_PLIES = 7


class RootDecision(SearchState):
    """The root's part of :class:`players.perfect.mcts.MCTSPlayer`: its rows
    (from the C tree ``ctree`` or the Python tree's ``root``), the proof
    search, the move played and the statistics reported."""

    def _root_rows(self, r) -> tuple:
        """Role ``r``'s (moves, visits, reward sums, best rewards) at the root."""
        if self.ctree is not None:
            return self.ctree.root_moves(r)
        node = self.root
        return node.legal[r], node.visits[r], node.sums[r], node.tops[r]

    def _prove(self, me, deadline):
        """(a forced win's first move or None, the moves after which the
        opponent forces a win) at the root, by :class:`players.perfect._proof.Prover`
        with ``proof`` expansions: half for our win (up to
        :data:`PROOF_PLIES` plies), half shared by the root moves for the
        opponent's (up to :data:`PROOF_PLIES` - 2 after the move); on the
        clock, also no more than a quarter of the time to ``deadline``.  None
        when the option is off or the game is not a two-player one on the
        compiled reasoner."""
        if not self.proof or self.ctree is None or len(self.sm.roles) != 2:
            return None
        if self.prover is None:
            from players.perfect._proof import Prover

            self.prover = Prover(self.search.kernel.copy())
        state, other = self.position(), 1 - me
        until = math.inf
        if self.simulations is None:
            until = time.monotonic() + max(0.0, self.think_until(deadline) - time.monotonic()) / 4
        won = self.prover.forced_win(state, me, PROOF_PLIES, self.proof // 2, until)
        if won >= 0:
            return won, set()
        moves = self.ctree.root_moves(me)[0]
        share = max(1, self.proof // (2 * max(1, len(moves))))
        lost = {
            m
            for m in moves
            if self.prover.loses(state, me, m, other, PROOF_PLIES - 2, share, until)
        }
        return None, lost

    def _best(self, r, allowed):
        """The move to play (``final``, Tak et al., slide 29) among the root's
        moves in ``allowed`` (None when there is none): most visits (ties:
        best average), best average (ties: most visits), best reward seen
        (ties: best average), or one drawn with probability proportional to
        its visits."""
        moves, visits, sums, tops = self._root_rows(r)
        proofs = (
            self.ctree.root_proofs(r)
            if (self.solver or self.tactics) and self.ctree is not None
            else [None] * len(moves)
        )
        exact = [None if proof is None else proof[0] for proof in proofs]
        choices = [j for j in range(len(moves)) if moves[j] in allowed]
        if not choices:
            return None
        known = [exact[j] for j in choices if exact[j] is not None]
        if known:  # the solver's: a known win, else never a known move worse than another
            best_known = max(known)
            if best_known >= 100 or len(known) == len(choices):
                # of the moves of that value, the soonest win, else the loss (or
                # draw) put off longest, which a fallible opponent may yet miss
                tied = [j for j in choices if exact[j] == best_known]
                sign = 1 if best_known >= 100 else -1
                return moves[min(tied, key=lambda j: (sign * proofs[j][1], j))]
            choices = [j for j in choices if exact[j] in (None, best_known)]
        if self.final == "mixed" and any(visits[j] for j in choices):
            return self.rng.choices(
                [moves[j] for j in choices], weights=[visits[j] for j in choices]
            )[0]

        def key(j):
            average = sums[j] / visits[j] if visits[j] else -1.0
            if exact[j] is not None:
                average = exact[j]
            if self.final == "average":
                return average, visits[j]
            if self.final == "best":
                return tops[j], average
            return visits[j], average  # visits (and mixed before any visit)

        return moves[max(choices, key=key)]

    def root_statistics(self, role=None) -> dict:
        """Move -> (visits, average goal) at the root, for ``role`` (default: ours)."""
        r = self.sm.roles.index(role or self.role)
        moves, visits, sums, _ = self._root_rows(r)
        return {
            self.search.move(r, m): (v, s / v if v else None)
            for m, v, s in zip(moves, visits, sums)
        }
