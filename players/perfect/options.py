"""What the search of the MCTS players (:mod:`players.perfect.mcts`) is built
with, besides its tree, when a game starts: ``auto``'s choice for the game
(:mod:`players.perfect.choice`), the evaluation the C tree's options use
(``fit``: :mod:`players.perfect.heuristic`, :mod:`players.perfect.evaluation`,
:mod:`players.perfect.rules`), capture-first playouts (``greedy``, ``mvv``,
``defend``) and the one warning naming the options given that only the C tree
has.  The sources of the options are given where they are implemented
(:mod:`players.perfect._tree`, :mod:`players._policy`).
"""

from __future__ import annotations

import logging
import time
import warnings

from players.params import settings
from players.perfect.state import SearchState
from players.registry import player_class

log = logging.getLogger("players")


class SearchOptions(SearchState):
    """The options' part of :class:`players.perfect.mcts.MCTSPlayer`, used by
    its ``rebuild_search``."""

    def _choose(self, deadline):
        """The options ``auto`` may change as given; then, with ``auto`` on the
        compiled reasoner and the tree in C, as
        :func:`players.perfect.choice.choose` decides for this game within a
        quarter of the time to ``deadline`` (one log line).  Not when the
        player is given any option it sets or that uses an evaluation, has
        leaf parallelism, or plays a puzzle or a game of imperfect
        information."""
        for name, value in self.given.items():
            setattr(self, name, value)
        self.playout, self.policy_params, self.decay = self.given_playout
        self.chosen = None
        if not (self.auto and self.steps.compiled and self.engine == "c"):
            return
        if self.imperfect or len(self.sm.roles) < 2 or self.leaf > 1:
            return
        uses = (self.heuristic, self.prior, self.imm, self.cutoff, self.early, self.greedy)
        if any(uses) or self.defend or self.mvv:
            return
        from players.perfect.choice import choose

        until = time.monotonic() + max(0.05, (deadline - time.monotonic()) / 4)
        self.chosen = choose(self.sm, seed=self.rng.getrandbits(31), until=until)
        for name, value in self.chosen.settings.items():
            if name == "playout":
                self._learned_playouts(value)
            else:
                setattr(self, name, value)
        log.info(
            "%s: %s for %s: %s",
            self.name,
            ",".join(f"{k}={v}" for k, v in self.chosen.settings.items()) or "plain search",
            self.game.name,
            self.chosen.reason,
        )

    def _learned_playouts(self, playout):
        """Playouts of the registered player ``playout`` (``nst``), with its
        policy's defaults and decay, where ``auto`` chooses them for a player
        whose own playouts are random; a player with a policy of its own keeps
        it."""
        if self.playout != "random":
            return
        kind = player_class(playout)
        defaults = settings(kind.params, {})  # every declared parameter at its default
        params = {arg: defaults[name] for name, arg in kind.policy_names.items()}
        self.playout, self.decay = playout, defaults["decay"]
        self.policy_params = {**self.policy_params, **params}

    def _learn_captures(self):
        """Capture-first playouts (``greedy``): each move's victims and wins
        learned from random playouts (:func:`players.perfect.rules.move_lessons`;
        ``auto``'s when it learned them), with ``mvv`` what taking each
        proposition is worth: its highest weight in a role's evaluation, and
        with ``defend`` the threats taken first."""
        import numpy as np

        from players.perfect.rules import move_lessons

        weights = np.asarray(self.evaluation[0])
        if self.chosen is not None and self.chosen.lessons is not None:
            victims, wins, threats = self.chosen.lessons
        else:
            victims, wins, threats = move_lessons(self.sm, weights, seed=self.rng.getrandbits(31))
        worth = weights.clip(min=0).max(axis=0) if self.mvv else None
        self.search.greedy(victims, self.greedy, wins, worth, threats if self.defend else ())

    def _warn_without_c(self):
        """One warning, at the player's first search in Python, naming the
        options given that only the tree in C has."""
        if self.warned_without_c:
            return
        self.warned_without_c = True
        dropped = [
            name
            for name, value, default in (
                ("threads", self.threads, 1),
                ("solver", self.solver, False),
                ("tactics", self.tactics, False),
                ("rave", self.rave, 0),
                ("leaf", self.leaf, 1),
                ("heuristic", self.heuristic, 0),
                ("prior", self.prior, 0),
                ("imm", self.imm, 0),
                ("cutoff", self.cutoff, 0),
                ("early", self.early, 0),
                ("quiesce", self.quiesce, 0),
                ("greedy", self.greedy, 0),
            )
            if value != default
        ]
        if dropped:
            warnings.warn(
                f"{self.name}: {', '.join(dropped)} "
                f"{'needs' if len(dropped) == 1 else 'need'} the tree in C (engine=c "
                "on the compiled reasoner); searching without",
                RuntimeWarning,
                stacklevel=3,
            )

    def _evaluation(self, deadline) -> tuple | None:
        """The evaluation for the C tree when ``heuristic``, ``prior``,
        ``imm`` or ``cutoff`` use one, made as ``fit`` says: fitted on 200
        random playouts (:func:`players.perfect.heuristic.material_evaluation`)
        or on 40 games of a 50-simulation search
        (:func:`players.perfect.evaluation.selfplay_evaluation`), both the
        same on any machine and to be done within a quarter of the time to
        ``deadline``, or read from the rules
        (:func:`players.perfect.rules.rules_evaluation`; ``auto`` hands over
        the one it read).  None, with a warning, when a fit is not done in
        time or the game offers nothing to weigh."""
        if not (self.heuristic or self.prior or self.imm or self.cutoff or self.greedy):
            return None
        if self.chosen is not None and self.chosen.evaluation is not None:
            return self.chosen.evaluation  # auto's, read from the rules (fit=rules)
        from players.perfect.heuristic import OutOfTime, material_evaluation

        until = time.monotonic() + max(0.05, (deadline - time.monotonic()) / 4)
        seed = self.rng.getrandbits(31)
        try:
            if self.fit == "rules":
                from players.perfect.rules import rules_evaluation

                evaluation = rules_evaluation(self.sm)
                why = "no piece in this game's rules has a distance to a goal"
            elif self.fit == "lines":
                from players.perfect.rules import line_evaluation

                evaluation = line_evaluation(self.sm)
                why = (
                    "no goal in this game's rules has lines (at most 2,000 conjunctions "
                    "of 2 to 8 conditions)"
                )
            elif self.fit == "selfplay":
                from players.perfect.evaluation import selfplay_evaluation

                evaluation = selfplay_evaluation(self.sm, seed=seed, until=until)
                why = "no piece counts in this game's rules, or no self-play game ended"
            else:
                evaluation = material_evaluation(self.sm, seed=seed, until=until)
                why = "no piece counts vary in this game's random play"
        except OutOfTime as exc:
            evaluation, why = None, f"its games took too long ({exc})"
        if evaluation is None:
            warnings.warn(
                f"{self.name}: {why}; searching without the heuristic",
                RuntimeWarning,
                stacklevel=3,
            )
            return None
        return evaluation
