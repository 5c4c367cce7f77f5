"""The one grammar of specs, for players and solvers alike: a name,
optionally followed by ``:`` and comma-separated ``key=value`` parameters
(``"mast:policy=gibbs,tau=10"``, ``"mccfr:sampling=external"``).  The values
stay text here; whoever owns the name checks and converts them, and
:func:`did_you_mean` suggests a known name for a mistyped one."""

from __future__ import annotations

import difflib


def parse_spec(spec: str) -> tuple[str, dict]:
    """``"mast:policy=gibbs,tau=10"`` -> ``("mast", {"policy": "gibbs", "tau": "10"})``;
    ValueError (one line) for a parameter that is not ``key=value`` or is given twice.

    >>> parse_spec("mccfr:sampling=external, epsilon=0.5")
    ('mccfr', {'sampling': 'external', 'epsilon': '0.5'})
    """
    name, _, rest = spec.partition(":")
    params: dict = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"parameter {item!r} in {spec!r} is not key=value")
        if key.strip() in params:
            raise ValueError(f"parameter {key.strip()!r} given twice in {spec!r}")
        params[key.strip()] = value.strip()
    return name.strip(), params


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
