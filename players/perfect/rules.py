"""Features read from a game's rules: how far each piece is from its role's goal.

Fluxplayer measures how nearly a state satisfies a goal, with the order
relations of the rules turned into distances on boards (Schiffel and
Thielscher, "Fluxplayer: A Successful General Game Player", AAAI 2007);
Clune's player finds the quantities to weigh in the rules themselves (Clune,
"Heuristic Evaluation Functions for General Game Playing", AAAI 2007).  Here
the distances come from the grounded network of the compiled reasoner
(:class:`ggp.reasoners.propnet.Network`), with no board or coordinate named:

* a base proposition ``p`` *leads to* ``q`` when ``p`` is a positive input of
  what makes ``q`` true next (``next(q)``'s gates, a ``does`` input standing
  for the gates of its ``legal``), leaving out the frame conjunction that reads
  ``q`` itself (``q`` staying true is not a way of reaching it);
* a role's *goal propositions* are the base propositions among the positive
  inputs of its best goal;
* a proposition's *distance* to a role's goal is the fewest steps of "leads
  to" from it to a goal proposition (breakthrough: a white pawn's row counted
  from row 8, as its moves and the goal rule say; a black pawn never reaches
  white's goal and has no distance to it).

:func:`rules_evaluation` weighs the game's pieces
(:func:`players.perfect.heuristic.content_features`) by them.
"""

from __future__ import annotations

import math
import time
from collections import deque

from ggp.reasoners.propnet import AND, OR
from players.perfect.heuristic import OutOfTime, content_features

#: What the best-placed proposition of a goal's lines is worth on the 0..100
#: goal scale (:func:`line_evaluation`).
LINE_UNIT = 5.0

#: The longest line and the most lines :func:`line_evaluation` reads: a goal
#: made of longer conjunctions (a disc count over the whole board) or of more
#: of them (a path in a connection game) has no lines to count.
LONGEST_LINE, MOST_LINES = 8, 2000


def _walk(starts, onward):
    """Each node reached from ``starts`` once, depth first; ``onward(n)`` the
    nodes to go on to from ``n``."""
    seen, todo = set(), list(starts)
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            yield n
            todo.extend(onward(n))


def _positive_inputs(network, node, leaves, expand, skip=None) -> set:
    """The ``leaves`` (node -> index) reached from ``node`` through positive
    inputs only; ``expand`` maps a node to the one standing for it (a does
    input to its legal); an AND gate reading the literal ``skip`` is not
    entered."""

    def onward(n):
        if n in leaves:
            return ()
        if n in expand:
            return (expand[n],)
        inputs = network.inputs[n]
        if skip is not None and network.kind[n] == AND and skip in inputs:
            return ()
        return [lit >> 1 for lit in inputs if not lit & 1]

    return {leaves[n] for n in _walk([node], onward) if n in leaves}


def goal_distances(sm) -> list:
    """Per role, base proposition index -> its distance to the role's best
    goal (module docstring); propositions that never reach it are absent.
    ``sm`` is a compiled state machine (it has ``network``)."""
    network = sm.network
    leaves = {node: i for i, node in enumerate(network.base_node)}
    expand = {node: network.legal_node[j] for j, node in enumerate(network.does_node)}
    # what each proposition is reached from, the frame left out
    sources = [
        _positive_inputs(network, network.next_node[q], leaves, expand, skip=2 * base_node) - {q}
        for q, base_node in enumerate(network.base_node)
    ]
    out = []
    for r in range(len(sm.roles)):
        values = [v for _, role, v in network.goals if role == r]
        goal = set()
        for node, role, v in network.goals:
            if role == r and v == max(values):
                goal |= _positive_inputs(network, node, leaves, {})
        distance = dict.fromkeys(goal, 0)
        todo = deque(goal)
        while todo:
            q = todo.popleft()
            for p in sources[q]:
                if p not in distance:
                    distance[p] = distance[q] + 1
                    todo.append(p)
        out.append(distance)
    return out


def rules_evaluation(sm) -> tuple | None:
    """(weights, bias, scale) for the C tree read from the rules alone, no
    game played: each role's pieces (the game's pieces with a distance to its
    goal, :func:`goal_distances`) count for it and its opponents' against it,
    a piece worth 1 + 2 ** -d at distance d from its goal (about 1 far from
    it, 1.5 a step away: a threat; 2 there), scaled so that the role's
    pieces at the start, counted 1 each, would be worth 50 (the bias, the
    value of an even state).  Material and the distance to the goal
    together, as Fluxplayer's evaluation weighs how nearly a goal holds
    (Schiffel and Thielscher 2007).  None when no piece has a distance, or
    when every role's pieces are also every other's (nothing to weigh)."""
    import numpy as np

    base = sm.base_propositions
    pieces = {i for members in content_features(base).values() for i in members}
    nroles = len(sm.roles)
    worth = np.zeros((nroles, len(base)))
    for r, distance in enumerate(goal_distances(sm)):
        for i in pieces & distance.keys():
            worth[r, i] = 1.0 + 2.0 ** -distance[i]
    initial = np.frombuffer(sm.initial_state(), np.uint8).astype(float)
    start = np.array([initial @ (worth[r] > 0) for r in range(nroles)])
    if not worth.any() or not start.any():
        return None
    unit = 50.0 / max(start.max(), 1.0)
    weights = np.zeros_like(worth)
    for r in range(nroles):
        others = [o for o in range(nroles) if o != r]
        weights[r] = unit * worth[r]
        for o in others:
            weights[r] -= unit * worth[o] / len(others)
    if not weights.any():  # every role's pieces are every other's: nothing to tell
        return None
    return weights, np.full(nroles, 50.0), unit


def goal_lines(sm) -> list:
    """Per role, the *lines* of its best goal: the sets of base propositions
    that together make it true (connect four: the four cells of a row,
    column or diagonal in the role's colour; breakthrough: each square of
    the far row alone).  Read from the grounded network of the compiled
    state machine ``sm``: the best goal's disjunction is followed through
    OR gates, and each conjunction met is one line, its positive base
    inputs (Fluxplayer's fuzzy evaluation of a goal scores each such
    conjunction by how many of its conditions hold: Schiffel and Thielscher
    2007).  Negated conditions are left out."""
    network = sm.network
    leaves = {node: i for i, node in enumerate(network.base_node)}

    def cases(n):  # an OR gate's positive inputs; nothing past any other node
        if n in leaves or network.kind[n] != OR:
            return []
        return [lit >> 1 for lit in network.inputs[n] if not lit & 1]

    out = []
    for r in range(len(sm.roles)):
        values = [v for _, role, v in network.goals if role == r]
        best = [node for node, role, v in network.goals if role == r and v == max(values)]
        lines = set()
        for n in _walk(best, cases):
            if n in leaves:
                lines.add(frozenset((leaves[n],)))
            elif network.kind[n] == AND:
                line = _positive_inputs(network, n, leaves, {})
                if line:
                    lines.add(frozenset(line))
        out.append(lines)
    return out


def line_evaluation(sm) -> tuple | None:
    """(weights, bias, scale, lines) for the C tree from the lines of each
    role's best goal (:func:`goal_lines`), Fluxplayer's fuzzy goal read the
    way connect-four and tic-tac-toe programs count lines (Schiffel and
    Thielscher 2007): a line of two or more conditions is *open* while no
    other role's piece stands on one of its squares (a proposition of
    another role's lines that differs from one of its own only in the
    content argument, :func:`players.perfect.heuristic.content_positions`:
    ``(cell 3 4 black)`` blocks red's lines through square 3 4), and an
    open line with k of its conditions holding is worth ``unit * 4 ** (k -
    1)`` to its role and as much against the others (shared equally); unit
    makes the proposition in the most lines worth :data:`LINE_UNIT` when
    each line holds one.  ``weights`` are zero (nothing linear), the bias an
    even 50, ``scale`` the worth of a typical proposition's lines.  ``lines``
    is what :class:`players.perfect._tree.SearchTree` reads: per line its
    role, own and blocking propositions, and the worth per count held.  None
    when no role's goal has such a line, or when the lines are too long or
    too many to be lines (:data:`LONGEST_LINE`, :data:`MOST_LINES`)."""
    import numpy as np

    from players.perfect.heuristic import content_positions

    base = sm.base_propositions
    nroles = len(sm.roles)
    found = goal_lines(sm)
    lines = [(r, sorted(line)) for r in range(nroles) for line in found[r] if len(line) > 1]
    longest = max((len(line) for _, line in lines), default=0)
    if not lines or len(lines) > MOST_LINES or longest > LONGEST_LINE:
        return None
    positions = content_positions(base)

    def square(i):  # the proposition without its content argument
        if i not in positions:
            return i
        fact, at = base[i], positions[i]
        return (*fact[:at], *fact[at + 1 :])

    on: dict[object, list[set[int]]] = {}  # square -> per role, the propositions of its lines there
    for r, line in lines:
        for i in line:
            on.setdefault(square(i), [set() for _ in range(nroles)])[r].add(i)
    blocks = [
        sorted({q for i in line for o, there in enumerate(on[square(i)]) if o != r for q in there})
        for r, line in lines
    ]
    count = np.zeros((nroles, len(base)))
    for r, line in lines:
        count[r, line] += 1
    unit = LINE_UNIT / count.max()
    gains = [0.0] + [unit * 4.0 ** (k - 1) for k in range(1, longest + 1)]
    roles = [r for r, _ in lines]
    own = [line for _, line in lines]
    return (
        np.zeros((nroles, len(base))),
        np.full(nroles, 50.0),
        unit * count[count > 0].mean(),
        (roles, own, blocks, gains),
    )


def random_games(sm, playouts: int = 100, seed: int = 0, until: float = math.inf) -> list:
    """``playouts`` random games from the start on the kernel of the compiled
    state machine ``sm``, game ``p`` drawn from ``seed + p`` (the same on any
    machine): per game its steps as the kernel traces them, per role
    (number of legal moves, move chosen).
    :class:`~players.perfect.heuristic.OutOfTime` when they are not played by
    ``time.monotonic()`` ``until`` (a partial sample would depend on the
    machine's speed)."""
    games = []
    for p in range(playouts):
        if time.monotonic() > until:
            raise OutOfTime(f"{p} of {playouts} random playouts played")
        games.append(sm.kernel.trace(sm.initial_state(), seed + p))
    return games


def move_lessons(
    sm, weights, playouts: int = 100, seed: int = 0, until: float = math.inf, games=None
) -> tuple:
    """What random play shows of each move of the compiled reasoner's kernel
    (by move number): ``(victims, wins, threats)``.  Over ``playouts`` random
    playouts from the start (seeded, so the same on any machine), each step's
    move of its one role with a choice is looked at:

    * its *victims*: the base propositions that held before the step and not
      after it and count for another role (a positive weight in that role's
      row of ``weights``, an evaluation's: its pieces).  A move takes its
      victim again where the victim holds: the playouts' captures;
    * whether it *wins*: it was played at least twice, and each time the game
      ended at once with its mover's goal 100 (breakthrough: a pawn's step
      onto the last row).

    ``threats`` are the base propositions that a winning move took from its
    own mover (held before, not after, and count for the mover: breakthrough's
    pawn one row from its goal), which another role does well to take first.
    Read by capture-first playouts (:meth:`players._policy.Policy.greedy`).
    The playouts are :func:`random_games`' (``games``, when already played)."""
    import numpy as np

    kernel = sm.kernel
    nroles = len(sm.roles)
    counts = [np.asarray(weights[r]) > 0 for r in range(nroles)]
    victims: list = [set() for _ in sm.move_terms]
    sources: list = [set() for _ in sm.move_terms]
    played = [0] * len(sm.move_terms)
    won = [0] * len(sm.move_terms)
    if games is None:
        games = random_games(sm, playouts, seed, until)
    for trace in games:
        state = sm.initial_state()
        for step in trace:
            joint = [move for _, move in step]
            after = kernel.next_state(state, joint)
            movers = [r for r, (k, _) in enumerate(step) if k > 1]
            if len(movers) == 1:
                mover, move = movers[0], joint[movers[0]]
                before, there = np.frombuffer(state, np.uint8), np.frombuffer(after, np.uint8)
                gone = before > there
                lost = gone & np.any([counts[r] for r in range(nroles) if r != mover], axis=0)
                victims[move].update(np.flatnonzero(lost).tolist())
                sources[move].update(np.flatnonzero(gone & counts[mover]).tolist())
                played[move] += 1
                kernel.load(after)
                won[move] += kernel.terminal() and 100 in kernel.goals(mover)
            state = after
    wins = [m for m, n in enumerate(played) if n >= 2 and won[m] == n]
    threats = sorted(set().union(*(sources[m] for m in wins)))
    return [sorted(v) for v in victims], wins, threats
