"""The exploitability of an online player (Šustr, Kovařík and Lisý, "Monte Carlo
Continual Resolving" (slides), slide 43): run the player at every decision it
can reach, as every role, and score the strategy it plays with the exact best
response of :mod:`ggp.solvers.cfr`.

The strategy of one seed is what the player would do at each of its
information states in any match: its distribution over the moves there when
it keeps one (``last_policy``: the solving players of :mod:`players.imperfect.online`,
``random``), else all of the probability on the move it chose.  The figure
reported averages the seeds' strategies *per information state*, the plain
mean of their distributions there, as GTLib2 (the MCCR authors' library)
does.  That is not the slides' double-bar strategy, the mixture of the seeds'
strategies, whose behaviour at an information state weights each seed by
its own reach of it; convexity bounds the mixture's exploitability by the
seeds' mean, not the per-state average's, which measures slightly higher
(Kuhn ``mccr`` at 10 iterations: 8.73 against 8.02 goal points).

- The solving players (``mccr``, ``oos``, ``mccfr``) compute it with
  :meth:`players.imperfect.online.SolvingPlayer.online_strategy`: each resolve or
  search that a decision depends on is run once and shared by the decisions
  below it (MCCR: once per public state of the path, as the slides'
  evaluation does).
- Any other player is run through the match interface: started with the
  seed, told the role's moves and percepts along every history of them depth
  first, asked to move at each; a branch is replayed from the start while
  that is quick, else it gets a copy of the process, so that each long
  search is made once.
"""

from __future__ import annotations

import math
import os
import pickle
import time

import numpy as np

from ggp.solvers.cfr import exploitability
from ggp.specs import Spec
from players.base import Observation
from players.imperfect.online import SolvingPlayer, View
from players.params import settings
from players.registry import make, player_class

#: Seconds of replaying above which a branch of the evaluation gets a copy of
#: the process instead (a fork costs about 8 ms on this machine).
FORK_SECONDS = 0.02

#: The parameter that sets a player's budget a move.
BUDGET_PARAMS = ("iterations", "simulations")


def budget_param(cls) -> str | None:
    """The name of ``cls``'s budget parameter (None: it has none)."""
    names = {p.name for p in cls.params}
    return next((b for b in BUDGET_PARAMS if b in names), None)


def online_policy(
    game, view: View, spec: str | Spec, seeds: int, budget: int | None, progress=None
) -> list:
    """The strategy of ``spec`` with ``budget`` a move, averaged over
    ``seeds`` seeds (0 .. seeds-1) at each information state (the plain mean
    of the seeds' distributions there, not the double-bar mixture: see the
    module's docstring), as a policy of ``view``'s tree (a list, per
    information state, of move probabilities); ``progress(runs)`` after each
    run of the player (one a role and seed)."""
    spec = Spec.of(spec)
    name, given = spec.name, dict(spec.params)
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
                params = {
                    k: v for k, v in values.items() if k not in ("seed", "iterations", "tree")
                }
                total += cls.online_strategy(view, p, seed, values["iterations"], **params)
            else:
                total += _replayed(game, view, p, spec, seed, given)
            if progress:
                progress(p * seeds + seed + 1)
    total /= seeds
    return [total[move_start[i] : move_start[i + 1]].tolist() for i in range(len(move_start) - 1)]


def _replayed(game, view: View, player: int, spec: Spec, seed: int, given: dict) -> np.ndarray:
    """Player ``player``'s strategy with ``seed``: the player is told the
    histories of its observations depth first (at a decision, with its legal
    moves), and this process goes down the last branch at each step.  Another
    branch gets a copy of the process (``os.fork``) when telling a new player
    the way there would take longer than :data:`FORK_SECONDS`, else a new
    player told it from the start: so each long search is made once."""
    tree, move_start = view.tree, view.flat.move_start
    role = tree.players[player]
    decisions: dict[tuple, int] = {}
    children: dict[tuple, set] = {}
    for i, info in enumerate(tree.infosets):
        if info.player != player:
            continue
        history = tuple(info.history)
        decisions[history] = i
        for t in range(len(history)):
            children.setdefault(history[:t], set()).add(history[t])

    def tell(agent, prefix) -> dict:
        """Tell the agent the last step of ``prefix``; its policy if a decision."""
        turn, i = len(prefix), decisions.get(prefix)
        own, seen = prefix[-1] if turn else (None, None)
        legal = tree.infosets[i].moves if i is not None else None
        obs = Observation(turn=turn, own_move=own, percepts=seen, legal=legal)
        if not game.is_gdl2 and turn:
            assert seen is not None  # a step after the start: what every role saw
            obs = Observation(turn=turn, joint=next(iter(seen)), legal=legal)
        agent.last_policy = None
        move = agent.play(obs)
        if i is None:
            return {}
        chosen = agent.last_policy or {move: 1.0}
        return {i: [chosen.get(m, 0.0) for m in tree.infosets[i].moves]}

    def fresh(prefix):
        """A new player told every step before the last of ``prefix``."""
        agent = make(spec, **{**given, "seed": seed})
        agent.start(game, role, math.inf, math.inf)
        for t in range(len(prefix)):
            tell(agent, prefix[:t])
        return agent

    def visit(agent, prefix, cost: float) -> dict:
        """The decisions at and below ``prefix``, depth first (from a stack:
        histories can be long); ``agent`` has been told the steps before the
        last of ``prefix``, which took ``cost`` seconds."""
        found = {}
        # (how, agent, prefix, cost): "tell" the agent the last step of the
        # prefix; tell a "new" agent the way there first; or "fork" a copy of
        # this process to walk the branch with the agent
        todo = [("tell", agent, prefix, cost)]
        while todo:
            how, agent, prefix, cost = todo.pop()
            if how == "fork":
                found.update(_forked(lambda a=agent, p=prefix, c=cost: visit(a, p, c)))
                continue
            if how == "new":
                agent = fresh(prefix)
            started = time.perf_counter()
            found.update(tell(agent, prefix))
            cost += time.perf_counter() - started
            branches = sorted(children.get(prefix, ()), key=repr)
            if branches:  # this agent goes down the last branch
                todo.append(("tell", agent, prefix + (branches[-1],), cost))
            other = "fork" if cost > FORK_SECONDS and hasattr(os, "fork") else "new"
            todo.extend((other, agent, prefix + (step,), cost) for step in reversed(branches[:-1]))
        return found

    out = np.zeros(int(move_start[-1]))
    for i, probs in visit(fresh(()), (), 0.0).items():
        out[move_start[i] : move_start[i + 1]] = probs
    return out


def _forked(work):
    """``work()`` run in a copy of this process (os.fork); its result, or its
    exception raised here."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the copy
        os.close(read)
        try:
            try:
                data = pickle.dumps((True, work()))
            except BaseException as exc:  # noqa: BLE001 (sent to the parent)
                data = pickle.dumps((False, exc))
            with os.fdopen(write, "wb") as f:
                f.write(data)
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    if not data:
        raise RuntimeError("a forked evaluation died without an answer")
    ok, value = pickle.loads(data)
    if not ok:
        raise value
    return value


def online_exploitability(
    game, view: View, spec: str | Spec, seeds: int, budgets, rows=None, progress=None
) -> list:
    """Per budget: (budget, exploitability in the tree's unit, seconds), added
    to ``rows`` (a list) as they come, so that the caller keeps them when
    interrupted; ``progress(runs)`` after each run of the player (one a
    budget, role and seed)."""
    rows = [] if rows is None else rows
    runs = seeds * len(view.tree.players)
    for i, budget in enumerate(budgets):
        start = time.perf_counter()
        policy = online_policy(
            game,
            view,
            spec,
            seeds,
            budget,
            progress and (lambda done, before=i * runs: progress(before + done)),
        )
        rows.append((budget, exploitability(view.tree, policy), time.perf_counter() - start))
    return rows
