"""The agents: a ``Player`` interface, a registry, and the players.

>>> p = make("random:seed=1")
>>> p.name
'random'
"""

from ggp.specs import parse_spec
from players.base import Observation, Player
from players.registry import make, names, register
from players.simple import LegalPlayer, RandomPlayer

__all__ = [
    "Observation",
    "Player",
    "make",
    "names",
    "parse_spec",
    "register",
    "LegalPlayer",
    "RandomPlayer",
]
