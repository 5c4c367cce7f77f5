"""Players that need no search: ``random`` and ``legal``."""

from __future__ import annotations

from players.base import Player
from players.registry import register


@register
class RandomPlayer(Player):
    """Plays a legal move chosen uniformly at random."""

    name = "random"

    def select(self, legal, deadline):
        if legal:
            self.last_policy = dict.fromkeys(legal, 1 / len(legal))
        return self.rng.choice(legal) if legal else None


@register
class LegalPlayer(Player):
    """Plays the first legal move (in the state machine's deterministic order),
    as ggp-base's LegalGamer does."""

    name = "legal"

    def select(self, legal, deadline):
        return legal[0] if legal else None
