"""A search player's simulations per second (``ggp bench --player``).

The player's machine is built before the clock starts, and timed apart: a
player started on a short start clock searches on the demand-driven fallback
while its compiled machine builds (:mod:`players.base`), and a benchmark that
let it would measure the fallback, not the reasoner it names.
"""

from __future__ import annotations

import time

from ggp.specs import parse_spec
from players.registry import make


def bench_player(game, spec: str, seconds: float, reasoner: str = "compiled") -> dict:
    """``spec``'s simulations a second thinking for ``seconds`` about the first
    move of ``game``'s first role (GDL-II's ``random`` aside), on the reasoner
    the spec names, else on ``reasoner``: ``reasoner`` in the result is the
    one it searched on, ``fallback_reason`` why that is not the one asked for
    (a game too large to ground; None otherwise).  ValueError (one line) for a
    spec that is not a player, or a player that does not search."""
    named = "reasoner" in parse_spec(spec)[1]
    player = make(spec, **({} if named else {"reasoner": reasoner}))
    if not hasattr(player, "think"):
        raise ValueError(f"player {spec!r} does not search: nothing to measure")
    role = next(r for r in game.roles if r != "random")
    start = time.perf_counter()
    game.state_machine(player.reasoner)  # built here, so that START finds it built
    build = time.perf_counter() - start
    player.start(game, role, 0.0, seconds)
    start = time.perf_counter()
    player.think(time.monotonic() + seconds)
    elapsed = time.perf_counter() - start
    player.abort()
    return {
        "game": game.name,
        "player": spec,
        "reasoner": player.reasoner_in_use,
        "fallback_reason": game.fallback_reason(player.reasoner),
        "build_seconds": round(build, 3),
        "simulations": player.last_simulations,
        "seconds": round(elapsed, 3),
        "simulations_per_sec": round(player.last_simulations / elapsed, 1),
    }
