"""Exhaustive game-tree walks ("perft"), memoised on distinct states.

Every joint move is one edge, so a node's subtree depends only on its state
(and the depth left): the walk visits each distinct state once per remaining
depth and adds up the counts, so a tree far larger than its state space stays
cheap.
"""

from __future__ import annotations

from ggp.statemachine import GameError, StateMachine


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

    def enter(state, left):
        """The counts below ``state`` when known at once, else a frame to walk."""
        key = state if depth is None else (state, left)
        hit = memo.get(key)
        if hit is not None:
            return hit
        if depth is None and state in on_path:
            raise GameError(
                "a state repeats on a path: the game tree is infinite; give a depth bound"
            )
        seen.add(state)
        terminal = sm.is_terminal(state)
        if terminal or left == 0:
            memo[key] = (1, int(terminal), 0)
            return memo[key]
        on_path.add(state)
        # state, depth left, memo key, joint moves, next one, nodes, terminals, longest
        return [state, left, key, list(sm.joint_moves(state)), 0, 1, 0, 0]

    # depth first from an explicit stack of frames (games can be long)
    found = enter(sm.initial_state(), depth)
    stack = [found] if isinstance(found, list) else []
    while stack:
        top = stack[-1]
        state, left, key, joints, i = top[:5]
        if i < len(joints):
            top[4] += 1
            below = enter(sm.next_state(state, joints[i]), None if left is None else left - 1)
            if isinstance(below, list):
                stack.append(below)
                continue
        else:
            stack.pop()
            on_path.discard(state)
            below = memo[key] = tuple(top[5:])
            if not stack:
                found = below
                break
            top = stack[-1]
        top[5] += below[0]
        top[6] += below[1]
        top[7] = max(top[7], below[2] + 1)
    nodes, terminals, longest = found
    return {
        "nodes": nodes,
        "terminals": terminals,
        "distinct_states": len(seen),
        "max_depth": longest,
    }
