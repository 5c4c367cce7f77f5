"""The exploitability of an online player (seed 001, slide 43): run the player
at every decision it can reach, as every role, and score the strategy it
plays with the exact best response of :mod:`ggp.cfr`.

The strategy of one seed is what the player would do at each of its
information states in any match: its distribution over the moves there when
it keeps one (``last_policy``: the solving players of :mod:`players.online`,
``random``), else all of the probability on the move it chose.  Averaging
over seeds gives the seed's double-bar strategy, which is no more exploitable
than the seeds' strategies on average (the exploitability is convex).

- The solving players (``mccr``, ``oos``, ``mccfr``) compute it with
  :meth:`players.online.SolvingPlayer.online_strategy`: each resolve or
  search that a decision depends on is run once and shared by the decisions
  below it (MCCR: once per public state of the path, as the seed's
  evaluation does).
- Any other player is replayed through the match interface for each of its
  information states: started with the seed, told the role's moves and
  percepts of that history, asked to move.  This costs one search per
  decision of the history, so it is meant for small games and budgets.
"""
from __future__ import annotations

import math
import time

import numpy as np
from ggp.cfr import exploitability

from .base import Observation
from .online import SolvingPlayer, View
from .params import settings
from .registry import make, parse_spec, player_class

#: The parameter that sets a player's budget a move.
BUDGET_PARAMS = ("iterations", "simulations")


def budget_param(cls) -> str | None:
    """The name of ``cls``'s budget parameter (None: it has none)."""
    names = {p.name for p in cls.params}
    return next((b for b in BUDGET_PARAMS if b in names), None)


def online_policy(game, view: View, spec: str, seeds: int, budget: int | None) -> list:
    """The double-bar strategy of ``spec`` over ``seeds`` seeds (0 .. seeds-1)
    with ``budget`` a move, as a policy of ``view``'s tree (a list, per
    information state, of move probabilities)."""
    name, given = parse_spec(spec)
    cls = player_class(name)
    knob = budget_param(cls)
    if knob and budget is not None:
        given[knob] = budget
    values = settings(cls.params, given)
    move_start = view.flat.move_start
    total = np.zeros(int(move_start[-1]))
    for p in range(len(view.tree.players)):
        for seed in range(seeds):
            if issubclass(cls, SolvingPlayer) and values["tree"] != "sampled":
                if values.get("iterations") is None:
                    raise ValueError(f"{name}: give a budget (iterations) to evaluate it online")
                params = {k: v for k, v in values.items()
                          if k not in ("seed", "iterations", "tree")}
                total += cls.online_strategy(view, p, seed, values["iterations"], **params)
            else:
                total += _replayed(game, view, p, spec, seed, given)
    total /= seeds
    return [total[move_start[i]:move_start[i + 1]].tolist()
            for i in range(len(move_start) - 1)]


def _replayed(game, view: View, player: int, spec: str, seed: int, given: dict) -> np.ndarray:
    """Player ``player``'s strategy with ``seed``, each information state replayed."""
    tree, move_start = view.tree, view.flat.move_start
    role = tree.players[player]
    out = np.zeros(int(move_start[-1]))
    for i, info in enumerate(tree.infosets):
        if info.player != player:
            continue
        agent = make(spec, **{**given, "seed": seed})
        agent.start(game, role, math.inf, math.inf)
        for turn in range(len(info.history) + 1):
            last = info.history[turn - 1] if turn else (None, None)
            obs = Observation(turn=turn, own_move=last[0], percepts=last[1],
                              legal=info.moves if turn == len(info.history) else None)
            if not game.is_gdl2 and turn:
                obs = Observation(turn=turn, joint=next(iter(last[1])), legal=obs.legal)
            agent.last_policy = None
            move = agent.play(obs)
        chosen = agent.last_policy or {move: 1.0}
        out[move_start[i]:move_start[i + 1]] = [chosen.get(m, 0.0) for m in info.moves]
    return out


def online_exploitability(game, view: View, spec: str, seeds: int, budgets) -> list:
    """Per budget: (budget, exploitability in the tree's unit, seconds)."""
    rows = []
    for budget in budgets:
        start = time.perf_counter()
        policy = online_policy(game, view, spec, seeds, budget)
        rows.append((budget, exploitability(view.tree, policy), time.perf_counter() - start))
    return rows
