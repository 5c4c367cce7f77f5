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

from ggp.plugins import Registry
from ggp.specs import unknown_name
from ggp.statemachine import StateMachine

#: The entry-point group through which other packages add reasoners.
ENTRY_POINTS = "ggp.reasoners"
#: The names of the reasoners of this package, as ``StateMachine.name`` and
#: every spec, option and record spell them: the code says these, not the text.
COMPILED = "compiled"
DEMAND = "demand"
REFERENCE = "reference"
#: The reasoner a game's state machine is by default.
DEFAULT = COMPILED

REGISTRY: Registry[StateMachine] = Registry(StateMachine, __name__, ENTRY_POINTS)
#: Make a StateMachine class a reasoner named ``name`` (default its ``name``);
#: usable as ``@register`` or ``register(cls, name)``.
register = REGISTRY.register


def names() -> tuple:
    """The reasoners' names, the default first."""
    return (DEFAULT, *sorted(n for n in REGISTRY.found() if n != DEFAULT))


def reasoner_class(name: str) -> type:
    """The StateMachine class of reasoner ``name``; ValueError naming the known
    ones (and the nearest: :func:`ggp.specs.unknown_name`)."""
    try:
        return REGISTRY.found()[name]
    except KeyError:
        raise ValueError(unknown_name("reasoner", name, names())) from None
