"""The reasoners behind the StateMachine interface and what builds them: the
reference reasoner (the oracle), the demand-driven one, and the compiled one
with its grounding, propositional network and C kernels.

A reasoner registers itself where it is defined, with :func:`register` as a
class decorator on a :class:`ggp.statemachine.StateMachine` subclass whose
``name`` is the reasoner's name and which is made from a game's rules
(``cls(rules)``; the compiled reasoner, built by grounding, is the one
exception, which :meth:`ggp.game.Game.state_machine` builds itself).  The
registry finds them the first time it is asked: every public module of this
package, then the ``ggp.reasoners`` entry points of installed distributions,
so that a package outside this repository adds a reasoner by declaring one
(``ggp.reasoners = mine = mypackage.mine:MyMachine``).  Nothing lists them.
"""

from __future__ import annotations

import importlib
import pkgutil
from importlib.metadata import entry_points

#: The entry-point group through which other packages add reasoners.
ENTRY_POINTS = "ggp.reasoners"
#: The reasoner a game's state machine is by default.
DEFAULT = "compiled"

_REGISTRY: dict[str, type] = {}
_found = False


def register(cls: type | None = None, name: str | None = None):
    """Make a StateMachine class a reasoner named ``name`` (default its
    ``name``); usable as ``@register`` or ``register(cls, name)``."""
    from ggp.statemachine import StateMachine

    def add(cls: type) -> type:
        if not (isinstance(cls, type) and issubclass(cls, StateMachine)):
            raise TypeError(f"{cls!r} is not a StateMachine class")
        _REGISTRY[name or cls.name] = cls
        return cls

    return add if cls is None else add(cls)


def _discover() -> None:
    global _found
    if _found:
        return
    _found = True
    for module in pkgutil.iter_modules(__path__, __name__ + "."):
        if not module.name.rpartition(".")[2].startswith("_"):
            importlib.import_module(module.name)
    for point in entry_points(group=ENTRY_POINTS):
        try:
            loaded = point.load()
        except Exception as exc:  # a broken plug-in is one line, not a crash
            raise ValueError(
                f"the {ENTRY_POINTS} entry point {point.name!r} "
                f"({point.value}) could not be loaded: {exc}"
            ) from None
        if isinstance(loaded, type):
            register(loaded, point.name)


def names() -> tuple:
    """The reasoners' names, the default first."""
    _discover()
    return (DEFAULT, *sorted(n for n in _REGISTRY if n != DEFAULT))


def reasoner_class(name: str) -> type:
    """The StateMachine class of reasoner ``name``; ValueError naming the known ones."""
    _discover()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown reasoner {name!r}; choose from {', '.join(names())}") from None
