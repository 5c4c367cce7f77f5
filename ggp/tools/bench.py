"""``ggp bench``: random playouts from the initial state for a while, timed.

A state change is one ``next`` step of a playout (what gdl-perf counts).
"""

from __future__ import annotations

import resource
import time
import warnings

from ggp.reasoners import COMPILED
from ggp.statemachine import RuleError


def bench(
    game,
    reasoner: str = COMPILED,
    seconds: float = 10.0,
    seed: int = 1,
    limits: dict | None = None,
    progress=None,
) -> dict:
    """Playouts and state changes per second of one reasoner on one game
    (``limits``: the grounding limits of :meth:`ggp.game.Game.state_machine`);
    ``progress(elapsed)`` after each batch of playouts.  The machine is built
    first, and timed apart: the playouts are timed on the built machine only.
    A compiled build that falls back measures the demand-driven reasoner,
    and says so: ``reasoner`` is the one measured and ``fallback_reason``
    why it is not the one asked for (None when it is)."""
    start = time.perf_counter()
    sm = game.state_machine(reasoner, **(limits or {}))
    build = time.perf_counter() - start
    root = sm.initial_state()
    playouts = steps = 0
    batch = 1
    fault = None

    def run(count, s):
        """The steps of ``count`` playouts from seed ``s`` (without the goals
        once the game has shown a fault in them)."""
        return sm.playouts(root, count, s, goals=fault is None)[0]

    start = time.perf_counter()
    while True:
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
        try:
            n = run(batch, seed + playouts)
        except RuleError as exc:  # the game's own fault: time the rest without goals
            fault = str(exc)
            warnings.warn(
                f"{game.name}: {fault}; timing the playouts without their goals",
                RuntimeWarning,
                stacklevel=2,
            )
            playouts = steps = 0
            start = time.perf_counter()
            continue
        playouts += batch
        steps += n
        if progress:
            progress(min(time.perf_counter() - start, seconds))
        if time.perf_counter() - start < seconds / 20:
            batch *= 2  # batches of about a twentieth of the time
    elapsed = time.perf_counter() - start
    return {
        "game": game.name,
        "reasoner": getattr(sm, "name", reasoner),
        "fallback_reason": game.fallback_reason(reasoner, **(limits or {})),
        "playouts": playouts,
        "seconds": round(elapsed, 3),
        "playouts_per_sec": round(playouts / elapsed, 1),
        "states_per_sec": round(steps / elapsed, 1),
        "mean_depth": round(steps / playouts, 2) if playouts else 0.0,
        "build_seconds": round(build, 3),
        # the build's work, the same on any machine: candidate atoms the
        # grounding's joins examined, and the ground rules they gave
        "build_effort": getattr(sm, "build_effort", None),
        "ground_rules": len(sm.ground_program.rule_head) if hasattr(sm, "ground_program") else None,
        "fault": fault,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
