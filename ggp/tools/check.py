"""``ggp check``: what only play can show about a description.

Static validation happens when the game is loaded; here random playouts test
playability (every role has a legal move in every non-terminal state),
termination within a bound, and exactly one goal value 0..100 per role in
every terminal state reached (GDL specification, section 3: "well-formed
games").  A fault is a :class:`~ggp.statemachine.RuleError`, which
:meth:`ggp.Game.diagnostic` places in the description: every command that
meets the same fault while playing reports it on the same line.
"""

from __future__ import annotations

import random
import time

from ggp.statemachine import RuleError, StateMachine


def check_playouts(
    sm: StateMachine,
    playouts: int = 20,
    max_steps: int = 1000,
    seconds: float | None = None,
    seed: int = 0,
) -> dict:
    """Run random playouts and report the first fault found.

    Returns a dict: ``playouts`` completed, ``steps`` played (including those
    of a playout cut short), ``error`` (the :class:`RuleError` found, or
    None) and ``failed_playout`` (its playout's number, from 1),
    ``mean_depth`` and ``max_depth`` of the completed playouts, and
    ``mean_goals`` (role -> mean over them).  After ``seconds`` it stops, even
    inside a playout (at least one step is always played).
    """
    rng = random.Random(seed)
    deadline = None if seconds is None else time.perf_counter() + seconds
    depths, totals, steps = [], {r: 0 for r in sm.roles}, 0
    error = failed = None
    for i in range(playouts):
        state, depth = sm.initial_state(), 0
        try:
            while not sm.is_terminal(state):
                if deadline is not None and steps > 0 and time.perf_counter() > deadline:
                    break
                if depth >= max_steps:
                    raise RuleError(
                        "terminal",
                        f"no terminal state after {max_steps} steps "
                        "of a random playout (is there a step counter?)",
                    )
                joint = tuple(rng.choice(moves) for moves in sm.playable_moves(state))
                state = sm.next_state(state, joint)
                depth += 1
                steps += 1
            else:
                for role, value in zip(sm.roles, sm.goals(state)):
                    totals[role] += value
                depths.append(depth)
        except RuleError as exc:
            error, failed = exc, i + 1
            break
        if deadline is not None and time.perf_counter() > deadline:
            break
    n = len(depths)
    return {
        "playouts": n,
        "steps": steps,
        "error": error,
        "failed_playout": failed,
        "mean_depth": sum(depths) / n if n else 0.0,
        "max_depth": max(depths, default=0),
        "mean_goals": {r: totals[r] / n for r in sm.roles} if n else {},
    }
