"""Players by name: ``players.make("random")``, ``players.make("uct:simulations=100,seed=1")``.

A spec is a registered name, optionally followed by ``:`` and comma-separated
``key=value`` parameters (:class:`ggp.specs.Spec`).  Each value is
checked against the player's declaration (:mod:`players.params`) when the
player is made, so that a wrong value is one line naming the parameter, what
it got and what it accepts, before any match starts.

A player registers itself where it is defined, with :func:`register` as a
class decorator.  The registry finds them the first time it is asked: it
imports every public module of this package's sub-packages, then loads the
``ggp.players`` entry points of installed distributions, so that a package
outside this repository adds a player by declaring one::

    [options.entry_points]
    ggp.players =
        greedy = mypackage.greedy:GreedyPlayer

(the entry point's name is the player's; its object is a ``Player`` subclass,
or a module whose import registers its players).  Nothing lists the players.
"""

from __future__ import annotations

from ggp.plugins import Registry
from ggp.specs import Spec, unknown_name
from players.base import Player

#: The entry-point group through which other packages add players.
ENTRY_POINTS = "ggp.players"

REGISTRY: Registry[Player] = Registry(Player, "players", ENTRY_POINTS)
#: Make a Player class available to :func:`make` under ``name`` (default its
#: ``name``); usable as ``@register`` or ``register(cls, name)``.
register = REGISTRY.register


def names() -> list[str]:
    return sorted(REGISTRY.found())


def player_class(name: str) -> type[Player]:
    """The class registered as ``name``; ValueError naming the known ones
    (and the nearest: :func:`ggp.specs.unknown_name`)."""
    try:
        return REGISTRY.found()[name]
    except KeyError:
        raise ValueError(unknown_name("player", name, names())) from None


def make(spec: str | Spec, **overrides) -> Player:
    """A new player from a spec (its text, or a :class:`ggp.specs.Spec` read
    already); ``overrides`` add or replace parameters.  ValueError (one line)
    for an unknown player or a bad parameter."""
    spec = Spec.of(spec)
    cls = player_class(spec.name)
    try:
        return cls(**{**spec.params, **overrides})
    except ValueError as exc:
        raise ValueError(f"player {spec.name}: {exc}") from None


def describe() -> list[dict]:
    """Every registered player with its declared parameters (``ggp players``)."""
    return [REGISTRY.classes[name].describe() for name in names()]
