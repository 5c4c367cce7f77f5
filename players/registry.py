"""Players by name: ``players.make("random")``, ``players.make("uct:simulations=100,seed=1")``.

A spec is a registered name, optionally followed by ``:`` and comma-separated
``key=value`` parameters, passed to the player's constructor (numbers are
converted).
"""
from __future__ import annotations

from .base import Player
from .imperfect import EFGUCTPlayer, ISMCTSPlayer, SmoothUCTPlayer
from .mcts import LGRPlayer, MASTPlayer, NSTPlayer, UCTPlayer
from .simple import LegalPlayer, RandomPlayer

_REGISTRY: dict[str, type] = {}


def register(cls: type, name: str | None = None) -> type:
    """Make a Player class available to :func:`make` under ``name`` (its ``name``)."""
    _REGISTRY[name or cls.name] = cls
    return cls


def names() -> list[str]:
    return sorted(_REGISTRY)


def _value(text: str):
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def parse_spec(spec: str) -> tuple[str, dict]:
    """``"mast:policy=gibbs,tau=10"`` -> ``("mast", {"policy": "gibbs", "tau": 10})``."""
    name, _, rest = spec.partition(":")
    params = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"player parameter {item!r} in {spec!r} is not key=value")
        params[key.strip()] = _value(value.strip())
    return name.strip(), params


def make(spec: str, **overrides) -> Player:
    """A new player from a spec string; ``overrides`` add or replace parameters."""
    name, params = parse_spec(spec)
    if name not in _REGISTRY:
        raise ValueError(f"unknown player {name!r}; known: {', '.join(names())}")
    params.update(overrides)
    try:
        return _REGISTRY[name](**params)
    except TypeError as exc:
        raise ValueError(f"bad parameters for player {name!r}: {exc}") from None


register(RandomPlayer)
register(LegalPlayer)
for _cls in (UCTPlayer, MASTPlayer, NSTPlayer, LGRPlayer, ISMCTSPlayer, SmoothUCTPlayer,
             EFGUCTPlayer):
    register(_cls)
