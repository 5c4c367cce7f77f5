"""A search player's simulations per second (``ggp bench --player``).

The player's machine is built before the clock starts, and timed apart: a
player started on a short start clock searches on the demand-driven fallback
while its compiled machine builds (:mod:`players.base`), and a benchmark that
let it would measure the fallback, not the reasoner it names.
"""

from __future__ import annotations

import logging
import time

from ggp.reasoners import COMPILED
from ggp.specs import Spec
from players.base import Observation
from players.registry import make


def bench_player(game, spec: str | Spec, seconds: float, reasoner: str = COMPILED) -> dict:
    """``spec``'s simulations a second thinking for ``seconds`` about the first
    move of ``game``'s first role (GDL-II's ``random`` aside), as a first turn
    on the clock (START at a start clock of 0, then PLAY), on the reasoner
    the spec names, else on ``reasoner``: ``reasoner`` in the result is the
    one it searched on, ``fallback_reason`` why that is not the one asked for
    (a game too large to ground; None otherwise).  ValueError (one line) for a
    spec that is not a player, or a player that does not search."""
    spec = Spec.of(spec)
    named = "reasoner" in spec.params
    player = make(spec, **({} if named else {"reasoner": reasoner}))
    if not hasattr(player, "think"):
        raise ValueError(f"player {spec!r} does not search: nothing to measure")
    role = next(r for r in game.roles if r != "random")
    start = time.perf_counter()
    game.state_machine(player.reasoner)  # built here, so that START finds it built
    build = time.perf_counter() - start
    quiet = _NoStartLine()  # a START at a clock of 0 is given up by design: no warning
    logging.getLogger("players").addFilter(quiet)
    try:
        player.start(game, role, 0.0, seconds)  # no thinking at START
    finally:
        logging.getLogger("players").removeFilter(quiet)
    start = time.perf_counter()  # the first turn, thinking for ``seconds`` before its margin
    player.play(Observation(deadline=time.monotonic() + seconds + getattr(player, "margin", 0)))
    elapsed = time.perf_counter() - start
    player.abort()
    simulations: int = getattr(player, "last_simulations")  # every search player counts them
    return {
        "game": game.name,
        "player": spec,
        "reasoner": player.reasoner_in_use,
        "fallback_reason": game.fallback_reason(player.reasoner),
        "build_seconds": round(build, 3),
        "simulations": simulations,
        "seconds": round(elapsed, 3),
        "simulations_per_sec": round(simulations / elapsed, 1),
    }


class _NoStartLine(logging.Filter):
    """Drops the line saying a START was given up at its deadline."""

    def filter(self, record) -> bool:
        return "by the deadline at START" not in record.getMessage()
