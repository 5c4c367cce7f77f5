"""Declared parameters of players: one declaration gives the defaults, the
checks and the listing.

Every player class lists its parameters as :class:`Param` objects in its
``params`` attribute (a subclass adds to its parent's).  The declaration is
the only place a parameter's type, default, range or choices are written:

* :meth:`Param.convert` checks a value, given as a Python value or as the
  text of a spec (``uct:c=40``), and refuses anything else with one line that
  names the parameter, what it got and what it accepts;
* :func:`settings` turns the values given to a player into its complete,
  checked settings, defaults filled in;
* :meth:`Param.describe` is what ``ggp players --json`` lists.

A subclass declares ``params = extend(Parent.params, Param(...), ...)``.

>>> C = Param("c", float, 40.0, "UCB constant", low=0)
>>> C.convert("12.5")
12.5
>>> C.convert("abc")
Traceback (most recent call last):
...
ValueError: c=abc: expected a number >= 0
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ggp.specs import did_you_mean

_KINDS = {int: "integer", float: "number", bool: "boolean", str: "string"}

#: The largest value of an integer parameter that declares no ``high``: what
#: the C code holds (budgets reach the searches as a C ``long``, 64 bits; a
#: larger one was accepted, then raised OverflowError at every move).
INT_MAX = 2**63 - 1
_BOOLEANS = {"true": True, "false": False}


@dataclass(frozen=True)
class Param:
    """One parameter: its name, Python type (int, float, bool or str), default,
    a line of help, and what it accepts: numbers in ``[low, high]`` (``low``
    excluded when ``low_open``; an integer at most :data:`INT_MAX` when ``high``
    is not given), or one of ``choices`` (a tuple, or a function giving one
    when asked: the reasoners, which plug-ins may add).  A default of None means
    "not given" (e.g. no simulation budget: play on the clock); None is then
    accepted as a value too."""

    name: str
    kind: type
    default: object
    help: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    choices: tuple | Callable[[], tuple] = ()

    @property
    def options(self) -> tuple:
        """The values accepted by name (empty: any of the type)."""
        return self.choices() if callable(self.choices) else self.choices

    def accepts(self) -> str:
        """What the parameter accepts, in words."""
        if self.options:
            return "one of " + ", ".join(self.options)
        if self.kind is bool:
            return "true or false"
        what = "an integer" if self.kind is int else "a number"
        if self.low is not None and self.high is not None:
            left = "(" if self.low_open else "["
            return f"{what} in {left}{_num(self.low)}, {_num(self.high)}]"
        if self.low is not None:
            return f"{what} {'>' if self.low_open else '>='} {_num(self.low)}"
        if self.high is not None:
            return f"{what} <= {_num(self.high)}"
        return what

    def convert(self, value):
        """``value`` (a Python value or spec text) as this parameter's type;
        ValueError naming the parameter, the value and what it accepts (and,
        for a name, the nearest of its choices: :func:`ggp.specs.did_you_mean`)."""
        if value is None and self.default is None:
            return None
        converted = self._typed(value)
        if converted is None or not self._in_range(converted):
            hint = did_you_mean(value, self.options) if isinstance(value, str) else ""
            raise ValueError(
                f"{self.name}={_shown(value)}: expected {self.accepts()}"
                + (f"; {hint}" if hint else "")
            )
        if self.kind is int and self.high is None and converted > INT_MAX:
            raise ValueError(
                f"{self.name}={_shown(value)}: expected {self.accepts()} and at "
                f"most {INT_MAX:,} (a 64-bit integer, as the C code holds it)"
            )
        return converted

    def _typed(self, value):
        """``value`` as ``kind``, or None when it is not one."""
        if self.kind is bool:
            if isinstance(value, bool):
                return value
            return _BOOLEANS.get(value.lower()) if isinstance(value, str) else None
        if self.kind is str:
            return value if isinstance(value, str) else None
        if isinstance(value, bool):
            return None
        if isinstance(value, str):
            try:
                value = self.kind(value.strip())
            except (ValueError, OverflowError):
                return None
        if self.kind is int:
            return value if isinstance(value, int) else None
        return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None

    def _in_range(self, value) -> bool:
        if self.options:
            return value in self.options
        if self.kind not in (int, float):
            return True
        if self.low is not None and (value < self.low or (self.low_open and value == self.low)):
            return False
        return self.high is None or value <= self.high

    def describe(self) -> dict:
        """The parameter as ``ggp players --json`` lists it."""
        out = {
            "name": self.name,
            "type": _KINDS[self.kind],
            "default": self.default,
            "accepts": self.accepts(),
            "help": self.help,
        }
        if self.options:
            out["choices"] = list(self.options)
        if self.low is not None:
            out["min"] = self.low
            out["min_excluded"] = self.low_open
        if self.high is not None or self.kind is int:
            out["max"] = INT_MAX if self.high is None else self.high
        return out


def settings(params, values: dict) -> dict:
    """Every declared parameter's value: ``values`` checked, defaults for the
    rest.  ValueError for an unknown parameter or a value out of bounds."""
    declared = {p.name: p for p in params}
    unknown = sorted(set(values) - set(declared))
    if unknown:
        raise ValueError(
            f"unknown parameter{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(map(_shown, unknown))}; known: "
            f"{', '.join(sorted(declared))}"
        )
    return {
        name: p.convert(values[name]) if name in values else p.default
        for name, p in declared.items()
    }


def extend(params: tuple, *more: Param) -> tuple:
    """``params`` with ``more`` added; one of the same name replaces the old."""
    names = {p.name for p in more}
    return tuple(p for p in params if p.name not in names) + more


def _shown(value) -> str:
    """A value as given, quoted when it is not plain printable text."""
    if isinstance(value, str) and value.isprintable() and value.strip() == value and value:
        return value
    return repr(value)


def _num(x) -> str:
    return f"{x:g}"
