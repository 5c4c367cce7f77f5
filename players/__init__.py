"""The agents: a ``Player`` interface, a registry, and the players.

>>> p = make("random:seed=1")
>>> p.name
'random'
"""
from .base import Observation, Player
from .registry import make, names, parse_spec, register
from .simple import LegalPlayer, RandomPlayer

__all__ = ["Observation", "Player", "make", "names", "parse_spec", "register",
           "LegalPlayer", "RandomPlayer"]
