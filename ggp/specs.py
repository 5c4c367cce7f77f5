"""The one grammar of specs, for players and solvers alike: a name,
optionally followed by ``:`` and comma-separated ``key=value`` parameters
(``"mast:policy=gibbs,tau=10"``, ``"mccfr:sampling=external"``).  The values
stay text here; whoever owns the name checks and converts them, and
:func:`did_you_mean` suggests a known name for a mistyped one (in the message
:func:`unknown_name` writes).

A spec is read once, where its text comes in (a command's argument, a study
file, a server's spec), into a :class:`Spec` passed on from there;
:func:`parse_spec` is the same reading as a pair."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Spec:
    """A spec read: its ``name`` and its ``params`` (key -> text value, in
    the order given; a mapping to read, not to change: copy it to add to
    it).  ``str()`` writes it back in the grammar.

    >>> spec = Spec.parse("mast:policy=gibbs, tau=10")
    >>> spec.name, spec.params
    ('mast', {'policy': 'gibbs', 'tau': '10'})
    >>> str(spec)
    'mast:policy=gibbs,tau=10'
    """

    name: str
    params: dict = field(default_factory=dict, hash=False)

    @classmethod
    def parse(cls, text: str) -> Spec:
        """``"mast:policy=gibbs,tau=10"`` -> ``Spec("mast", {"policy": "gibbs", "tau": "10"})``;
        ValueError (one line) for a parameter that is not ``key=value`` or is given twice."""
        name, _, rest = text.partition(":")
        params: dict = {}
        for item in filter(None, (p.strip() for p in rest.split(","))):
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise ValueError(f"parameter {item!r} in {text!r} is not key=value")
            if key.strip() in params:
                raise ValueError(f"parameter {key.strip()!r} given twice in {text!r}")
            params[key.strip()] = value.strip()
        return cls(name.strip(), params)

    @classmethod
    def of(cls, spec: str | Spec) -> Spec:
        """``spec`` itself when it was read already, else :meth:`parse` of its text."""
        return spec if isinstance(spec, Spec) else cls.parse(spec)

    def __str__(self) -> str:
        params = ",".join(f"{key}={value}" for key, value in self.params.items())
        return f"{self.name}:{params}" if params else self.name


def parse_spec(spec: str) -> tuple[str, dict]:
    """``"mast:policy=gibbs,tau=10"`` -> ``("mast", {"policy": "gibbs", "tau": "10"})``:
    :meth:`Spec.parse` as a pair (the dict the caller's own).

    >>> parse_spec("mccfr:sampling=external, epsilon=0.5")
    ('mccfr', {'sampling': 'external', 'epsilon': '0.5'})
    """
    read = Spec.parse(spec)
    return read.name, dict(read.params)


def did_you_mean(name: str, known) -> str:
    """``"did you mean 'connectfour'?"`` for the known name nearest to
    ``name`` by :func:`difflib.get_close_matches`, case aside; ``""`` when
    none is near.

    >>> did_you_mean("connectFour", ["connectfour", "tictactoe"])
    "did you mean 'connectfour'?"
    """
    by_case = {k.lower(): k for k in known}
    near = difflib.get_close_matches(name.lower(), list(by_case), n=1)
    return f"did you mean {by_case[near[0]]!r}?" if near else ""


def unknown_name(what: str, name: str, known) -> str:
    """The message for ``name``, not among ``known``: what it was taken for,
    the nearest known name (:func:`did_you_mean`) when one is near, and the
    known ones in their order.

    >>> unknown_name("player", "rnadom", ["legal", "random"])
    "unknown player 'rnadom'; did you mean 'random'? known: legal, random"
    """
    hint = did_you_mean(name, known)
    return (
        f"unknown {what} {name!r}; " + (f"{hint} " if hint else "") + f"known: {', '.join(known)}"
    )
