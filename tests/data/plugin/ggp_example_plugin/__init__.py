"""A package outside the repository that adds a player and a reasoner through
the ``ggp.players`` and ``ggp.reasoners`` entry points (its dist-info beside
it declares them): what tests/test_plugins.py installs by putting this folder
on the path."""
from ggp.reasoners.reference import ReferenceMachine
from players.base import Player


class LastPlayer(Player):
    """Plays the last of its legal moves."""

    name = "last"

    def select(self, legal, deadline):
        return legal[-1]


class SlowMachine(ReferenceMachine):
    """The reference reasoner under another name."""

    name = "slow"
