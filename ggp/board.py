"""A text picture of grid games, for ``ggp play``: any state with facts
``(<relation> x y content)`` on small coordinates is drawn as a grid."""
from __future__ import annotations

from collections import Counter

_EMPTY = {"b", "blank", "empty", "e", "0"}


def render(facts) -> str | None:
    """The board of a state as text, or None when the state has no grid."""
    candidates = Counter(f[0] for f in facts if isinstance(f, tuple) and len(f) == 4
                         and all(isinstance(a, str) for a in f[1:3]))
    if not candidates:
        return None
    relation = candidates.most_common(1)[0][0]
    cells = {(f[1], f[2]): f[3] for f in facts
             if isinstance(f, tuple) and len(f) == 4 and f[0] == relation}
    xs = sorted({x for x, _ in cells}, key=_coord)
    ys = sorted({y for _, y in cells}, key=_coord)
    if len(xs) < 2 or len(ys) < 2 or len(xs) * len(ys) > 400:
        return None
    width = max(len(_show(v)) for v in cells.values())
    rows = []
    for y in reversed(ys) if _numeric(ys) else ys:
        rows.append(" ".join(_show(cells.get((x, y), "")).rjust(width) for x in xs))
    return "\n".join(rows)


def _show(content) -> str:
    if isinstance(content, tuple):
        content = content[0]
    return "." if content in _EMPTY or content == "" else str(content)[:3]


def _coord(c):
    return (0, int(c), c) if c.isdigit() else (1, 0, c)


def _numeric(coords) -> bool:
    return all(c.isdigit() for c in coords)
