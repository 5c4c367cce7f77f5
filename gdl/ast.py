"""The immutable abstract syntax of GDL.

Terms are plain Python values, so that they hash and compare at C speed in the
reasoners:

* a constant is a ``str`` (numbers too: ``"100"``),
* a compound term ``(f a b)`` is a ``tuple`` ``("f", "a", "b")`` (functor first),
* a variable is a :class:`Var`, a ``str`` subclass whose text starts with ``?``
  (no constant can, so a variable never equals a constant).

An atom (a relational sentence) is a constant or a compound term.  Body literals
are atoms or one of :class:`Not`, :class:`Or`, :class:`And`, :class:`Distinct`.  A
:class:`Rule` has a head atom and a body; a fact is a rule with an empty body.
Rules and non-atomic literals carry the position they were read from (ignored
by equality), so that the validator can name file, line and column.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field


class Var(str):
    """A logical variable, spelled with its leading ``?`` (e.g. ``?x``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Var({str.__repr__(self)})"


Term = str | tuple


@dataclass(frozen=True)
class Position:
    """Where a construct starts in its source (1-based line and column)."""

    path: str
    line: int
    column: int

    def __str__(self) -> str:
        """``path:line:column``, or the path alone for a whole file (line 0)."""
        return f"{self.path}:{self.line}:{self.column}" if self.line else self.path


NOWHERE = Position("<built>", 0, 0)


@dataclass(frozen=True)
class Not:
    """``(not literal)``."""

    literal: Literal
    pos: Position = field(default=NOWHERE, compare=False, repr=False)


@dataclass(frozen=True)
class Or:
    """``(or literal ...)``."""

    literals: tuple
    pos: Position = field(default=NOWHERE, compare=False, repr=False)


@dataclass(frozen=True)
class And:
    """``(and literal ...)``: a conjunction, as Dresden's GDL-II games use inside ``or``."""

    literals: tuple
    pos: Position = field(default=NOWHERE, compare=False, repr=False)


@dataclass(frozen=True)
class Distinct:
    """``(distinct a b)``: true when the two (bound) terms differ."""

    left: Term
    right: Term
    pos: Position = field(default=NOWHERE, compare=False, repr=False)


Literal = str | tuple | Not | Or | And | Distinct


@dataclass(frozen=True)
class Rule:
    """``(<= head body...)``, or a fact ``head`` when ``body`` is empty.

    ``literal_pos`` holds the position of each body literal (same order).
    """

    head: Term
    body: tuple = ()
    pos: Position = field(default=NOWHERE, compare=False, repr=False)
    literal_pos: tuple = field(default=(), compare=False, repr=False)

    def position_of(self, index: int) -> Position:
        """Position of body literal ``index`` (the rule's own if unknown)."""
        if index < len(self.literal_pos):
            return self.literal_pos[index]
        return self.pos


def is_var(t) -> bool:
    return isinstance(t, Var)


def name_of(atom: Term) -> str:
    """The relation or function symbol of an atom or term."""
    return atom if isinstance(atom, str) else atom[0]


def arity_of(atom: Term) -> int:
    return 0 if isinstance(atom, str) else len(atom) - 1


def args_of(atom: Term) -> tuple:
    return () if isinstance(atom, str) else atom[1:]


def variables(t) -> Iterator[Var]:
    """The variables of a term or literal, in order of occurrence (repeats kept)."""
    if isinstance(t, Var):
        yield t
    elif isinstance(t, tuple):
        for a in t[1:]:
            yield from variables(a)
    elif isinstance(t, Not):
        yield from variables(t.literal)
    elif isinstance(t, (Or, And)):
        for lit in t.literals:
            yield from variables(lit)
    elif isinstance(t, Distinct):
        yield from variables(t.left)
        yield from variables(t.right)


def is_ground(t) -> bool:
    return next(variables(t), None) is None


def substitute(t, bindings: dict):
    """Replace the bound variables of a term (or literal) by their values."""
    if isinstance(t, Var):
        return bindings.get(t, t)
    if isinstance(t, tuple):
        return (t[0],) + tuple(substitute(a, bindings) for a in t[1:])
    if isinstance(t, Not):
        return Not(substitute(t.literal, bindings), t.pos)
    if isinstance(t, (Or, And)):
        return type(t)(tuple(substitute(x, bindings) for x in t.literals), t.pos)
    if isinstance(t, Distinct):
        return Distinct(substitute(t.left, bindings), substitute(t.right, bindings), t.pos)
    return t
