"""Exhaustive game-tree walks ("perft"), memoised on distinct states.

Every joint move is one edge, so a node's subtree depends only on its state
(and the depth left): the walk visits each distinct state once per remaining
depth and adds up the counts, so a tree far larger than its state space stays
cheap.
"""
from __future__ import annotations

import sys

from .statemachine import GameError, StateMachine


def count(sm: StateMachine, depth: int | None = None) -> dict:
    """Counts of the game tree below the initial state, to ``depth`` plies.

    Returns ``nodes`` (root included), ``terminals`` (terminal leaves),
    ``distinct_states`` (distinct states in the tree) and ``max_depth`` (the
    longest path, in plies).  Raises :class:`GameError` if, with no depth
    bound, a state repeats on a path (the tree would be infinite); with a
    bound, repeated states are simply walked again.
    """
    memo: dict = {}
    seen: set = set()
    on_path: set = set()

    def walk(state, left):
        key = state if depth is None else (state, left)
        hit = memo.get(key)
        if hit is not None:
            return hit
        if depth is None and state in on_path:
            raise GameError("a state repeats on a path: the game tree is infinite; "
                            "give a depth bound")
        seen.add(state)
        if sm.is_terminal(state):
            result = (1, 1, 0)
        elif left == 0:
            result = (1, 0, 0)
        else:
            on_path.add(state)
            nodes, terminals, longest = 1, 0, 0
            for joint in list(sm.joint_moves(state)):
                n, t, d = walk(sm.next_state(state, joint), None if left is None else left - 1)
                nodes += n
                terminals += t
                longest = max(longest, d + 1)
            on_path.discard(state)
            result = (nodes, terminals, longest)
        memo[key] = result
        return result

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 100000))
    try:
        nodes, terminals, longest = walk(sm.initial_state(), depth)
    finally:
        sys.setrecursionlimit(limit)
    return {"nodes": nodes, "terminals": terminals, "distinct_states": len(seen),
            "max_depth": longest}
