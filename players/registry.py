"""Players by name: ``players.make("random")``, ``players.make("uct:simulations=100,seed=1")``.

A spec is a registered name, optionally followed by ``:`` and comma-separated
``key=value`` parameters.  Each value is checked against the player's
declaration (:mod:`players.params`) when the player is made, so that a wrong
value is one line naming the parameter, what it got and what it accepts,
before any match starts.
"""
from __future__ import annotations

from ggp.specs import parse_spec

from .base import Player
from .imperfect import EFGUCTPlayer, ISMCTSPlayer, SmoothUCTPlayer
from .mcts import LGRPlayer, MASTPlayer, NSTPlayer, UCTPlayer
from .nfsp_player import MCNFSPPlayer, NFSPPlayer
from .online import MCCFRPlayer, MCCRPlayer, OOSPlayer
from .simple import LegalPlayer, RandomPlayer

_REGISTRY: dict[str, type] = {}


def register(cls: type, name: str | None = None) -> type:
    """Make a Player class available to :func:`make` under ``name`` (its ``name``)."""
    _REGISTRY[name or cls.name] = cls
    return cls


def names() -> list[str]:
    return sorted(_REGISTRY)


def player_class(name: str) -> type:
    """The class registered as ``name``; ValueError naming the known ones."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown player {name!r}; known: {', '.join(names())}") from None


def make(spec: str, **overrides) -> Player:
    """A new player from a spec string; ``overrides`` add or replace parameters.
    ValueError (one line) for an unknown player or a bad parameter."""
    name, params = parse_spec(spec)
    cls = player_class(name)
    params.update(overrides)
    try:
        return cls(**params)
    except ValueError as exc:
        raise ValueError(f"player {name}: {exc}") from None


def describe() -> list[dict]:
    """Every registered player with its declared parameters (``ggp players``)."""
    return [_REGISTRY[name].describe() for name in names()]


register(RandomPlayer)
register(LegalPlayer)
for _cls in (UCTPlayer, MASTPlayer, NSTPlayer, LGRPlayer, ISMCTSPlayer, SmoothUCTPlayer,
             EFGUCTPlayer, MCCRPlayer, OOSPlayer, MCCFRPlayer, NFSPPlayer, MCNFSPPlayer):
    register(_cls)
