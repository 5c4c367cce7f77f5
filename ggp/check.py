"""``ggp check``: what only play can show about a description.

Static validation happens when the game is loaded; here random playouts test
playability (every role has a legal move in every non-terminal state),
termination within a bound, and exactly one goal value 0..100 per role in
every terminal state reached (GDL specification, section 3: "well-formed
games").
"""
from __future__ import annotations

import random
import time

from .statemachine import GameError, StateMachine


def check_playouts(sm: StateMachine, playouts: int = 20, max_steps: int = 1000,
                   seconds: float | None = None, seed: int = 0) -> dict:
    """Run random playouts and report the first fault found.

    Returns a dict: ``playouts`` completed, ``steps`` checked (including those
    of a playout cut short), ``errors`` (one line each; empty when the game
    behaved), ``mean_depth``, ``max_depth``, ``mean_goals`` (role -> mean over
    completed playouts).  After ``seconds`` it stops, even inside a playout
    (at least one step is always checked).
    """
    rng = random.Random(seed)
    deadline = None if seconds is None else time.perf_counter() + seconds
    depths, totals, errors, steps = [], {r: 0 for r in sm.roles}, [], 0
    for i in range(playouts):
        state, depth = sm.initial_state(), 0
        try:
            while not sm.is_terminal(state):
                if deadline is not None and steps > 0 and time.perf_counter() > deadline:
                    break
                if depth >= max_steps:
                    raise GameError(f"no terminal state after {max_steps} steps "
                                    f"(is there a step counter?)")
                joint = []
                for role, moves in zip(sm.roles, sm.all_legal_moves(state)):
                    if not moves:
                        raise GameError(f"role '{role}' has no legal move in a "
                                        f"non-terminal state at step {depth}")
                    joint.append(rng.choice(moves))
                state = sm.next_state(state, tuple(joint))
                depth += 1
                steps += 1
            else:
                for role, value in zip(sm.roles, sm.goals(state)):
                    totals[role] += value
                depths.append(depth)
        except GameError as exc:
            errors.append(f"playout {i + 1}: {exc}")
            break
        if deadline is not None and time.perf_counter() > deadline:
            break
    n = len(depths)
    return {"playouts": n, "steps": steps, "errors": errors,
            "mean_depth": sum(depths) / n if n else 0.0,
            "max_depth": max(depths, default=0),
            "mean_goals": {r: totals[r] / n for r in sm.roles} if n else {}}
