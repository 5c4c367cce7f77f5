"""The players ``nfsp`` and ``mc-nfsp``: they play the average policy of an
NFSP learner (:mod:`players.learning.nfsp`), trained before and during the match or
loaded from a folder that ``ggp exploit --save`` wrote; on a game too large
for its tree, ``nfsp`` learns by sampling (:mod:`players.learning.nfsp_sampled`)."""

from __future__ import annotations

from players.imperfect.online import SolvingPlayer
from players.learning.nfsp import MCNFSP, NFSP
from players.learning.nfsp_sampled import SampledNFSP
from players.params import Param, extend
from players.registry import register


def _player_params(learning: tuple) -> tuple:
    """A player's parameters: the solving players', episodes a move, the
    learner's (its seed is the player's) and ``load``."""
    return extend(
        SolvingPlayer.params,
        Param(
            "iterations",
            int,
            None,
            "episodes a move (reproducible with seed); default: train on the clock",
            low=1,
        ),
        *(p for p in learning if p.name != "seed"),
        Param(
            "load",
            str,
            None,
            "folder of a learner saved by ggp exploit --save: "
            "play its average policy without training",
        ),
    )


@register
class NFSPPlayer(SolvingPlayer):
    """Plays the average policy ``pi`` of an NFSP learner at its information
    state: a learner saved by ``ggp exploit --player nfsp --save DIR``
    (``load=DIR``, played as trained), else one trained in the match, for
    ``iterations`` episodes a move or on the clock; over the game's tree, or
    sampling the game when its tree is too large."""

    name = "nfsp"
    learner = NFSP
    params = _player_params(NFSP.declared)

    def start(
        self,
        game,
        role,
        start_clock: float = 10.0,
        play_clock: float = 10.0,
        *,
        deadline: float | None = None,
    ):
        self.gdl2 = game.is_gdl2
        return super().start(game, role, start_clock, play_clock, deadline=deadline)

    def why_not(self, players, total):
        if players != 2:
            return f"{self.name} learns two-player games, not {players}-player"
        if self.sampled and not self.gdl2:
            return f"{self.name} samples games of imperfect information only"
        return None

    def begin(self, deadline):
        tree = self.view.tree
        self.trained = None
        if self.load is not None:
            self.trained = NFSP.load(tree, self.load)
            return
        self.trained = self.learner(tree, self.learning_params())
        if deadline is not None:
            self.spend(self.trained.run, deadline)

    def learning_params(self) -> dict:
        """The learner's parameters as this player was given them, its seed the player's."""
        return {
            **{p.name: getattr(self, p.name) for p in self.learner.declared if p.name != "seed"},
            "seed": self.base_seed,
        }

    def decide(self, info, deadline):
        if self.trained is None:
            raise ValueError(f"{self.load}: no learner of this game was loaded")
        if self.load is None:
            self.spend(self.trained.run, deadline)
        return self.trained.policy_at(info)

    # --- a game too large for its tree: the learner samples it ---------------------------
    def begin_sampled(self, deadline):
        self.trained = None
        if self.load is not None:
            self.trained = SampledNFSP.load(self.game, self.load)
            return
        self.trained = SampledNFSP(
            self.game, self.learning_params(), self.steps if self.steps.compiled else None
        )
        if deadline is not None:
            self.spend(self.trained.run, deadline)

    def select_sampled(self, legal, deadline):
        """The average policy at the player's own moves and percepts so far."""
        if self.load is None:
            self.spend(self.trained.run, deadline)
        steps, me = self.trained.stepper, self.me
        history = [(steps.move_id(me, own), steps.seen_ids(me, seen)) for own, seen in self.record]
        ids = [steps.move_id(me, m) for m in legal]
        probs = self.trained.policy(self.trained.players.index(me), history, ids)
        self.last_policy = dict(zip(legal, probs))
        return self.rng.choices(legal, weights=probs)[0]


@register
class MCNFSPPlayer(NFSPPlayer):
    """:class:`NFSPPlayer` with an MC-NFSP learner (Zhang et al., "Monte Carlo Neural
    Fictitious Self-Play", 2019)."""

    name = "mc-nfsp"
    learner = MCNFSP
    params = _player_params(MCNFSP.declared)

    def why_not(self, players, total):
        if self.sampled:
            return (
                f"{self.name} needs the game's whole extensive form (its search samples "
                "histories by the opponent's reach)"
            )
        return super().why_not(players, total)
