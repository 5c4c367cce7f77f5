"""NFSP on a game whose extensive form is too large to build (IIGS-13,
phantom tic-tac-toe): the episodes are played through the reasoner a step at
a time, as the NFSP paper's own agents play (Heinrich and Silver, "Deep
Reinforcement Learning from Self-Play in Imperfect-Information Games", 2016,
Algorithm 1 samples episodes from the game; it never enumerates it).

What differs from :class:`players.learning.nfsp.NFSP` on a tree is only where an
information state comes from and how it is kept:

- its features are the player's own moves and percepts at every step so far
  and its legal moves (:class:`ggp.solvers.features.StepEncoding`), over the moves
  and percepts the compiled reasoner's network can ever produce for the
  player, so nothing is enumerated; their first depth is the longest of
  :data:`DEPTH_PLAYOUTS` seeded random playouts (or the ``depth``
  parameter), and an episode or a match that goes deeper grows them
  (:meth:`SampledNFSP.grow`), so two different histories never share
  features;
- the memories keep those features packed into bytes (a row of a table on a
  tree), and the policies of an information state are computed when an
  episode reaches it and kept, by its bytes, until the next update.

Utilities are the goals scaled to -1..1 by the game's goal range
(:func:`ggp.solvers.efg.utility_unit`), as on a tree.  Exploitability cannot be
measured without the tree; these learners are measured in matches (the
nfsp_sampled studies of the benchmarks, docs/learning.md).  MC-NFSP is not
built this way: its search samples histories of the information state in
proportion to the opponent's reach, which here would need a belief per search.
"""

from __future__ import annotations

import hashlib
import math
import random
import time

import numpy as np

from gdl import to_kif
from ggp.reasoners import COMPILED
from ggp.solvers.efg import utility_unit
from ggp.solvers.features import StepEncoding
from players.belief import Steps
from players.imperfect.sampled import deciders
from players.learning.nfsp import NFSP, Agent, draw

#: Random playouts whose longest sets the features' first depth by default.
DEPTH_PLAYOUTS = 64
#: The features' layout, in the saved learners' signature: a learner saved
#: before the legal moves came first (when the steps past the depth shared
#: its last block) is refused, not misread.
FEATURES_LAYOUT = "legal moves, then a block per step"
#: The memories' columns that hold an information state (packed features).
STATE_COLUMNS = {"s", "next"}


class SampledAgent(Agent):
    """An NFSP player whose information states are packed features."""

    enc: StepEncoding

    def index_states(self, params: dict) -> None:
        self.state_column = (np.uint8, self.enc.bytes)
        self.whole = False

    def inputs(self, states) -> np.ndarray:
        return self.enc.unpacked(states)

    def legal_at(self, states) -> np.ndarray:
        return self.enc.legal(states)

    def grow(self, depth: int) -> None:
        """Features for the steps up to ``depth - 1``
        (:meth:`ggp.solvers.features.StepEncoding.grow`): the networks take
        the new inputs with zero weights (their outputs are unchanged), and
        the memories' information states are packed at the new size."""
        self.enc.grow(depth)
        for net in self.nets.values():
            net.widen(self.enc.size)
        for opt in self.opts.values():
            opt.fit()
        self.state_column = (np.uint8, self.enc.bytes)
        for memory in self.memories.values():
            for name in STATE_COLUMNS & memory.columns.keys():
                memory.columns[name] = self.enc.widened(memory.columns[name])
        self.tabulate()

    def tabulate(self) -> None:
        """After an update: forget the policies computed so far."""
        self._greedy_seen: dict = {}
        self._average_seen: dict = {}

    def greedy_move(self, state) -> int:
        key = state.tobytes()
        move = self._greedy_seen.get(key)
        if move is None:
            move = self._greedy_seen[key] = int(self._greedy_of(state[None])[0])
        return move

    def average_probs(self, state) -> list:
        key = state.tobytes()
        probs = self._average_seen.get(key)
        if probs is None:
            probs = self._average_seen[key] = self._average_of(state[None])[0].tolist()
        return probs


class SampledNFSP(NFSP):
    """An NFSP learner of a two-player GDL-II ``game`` sampled step by step
    through the compiled reasoner (``steps``: a :class:`players.belief.Steps`
    over it, e.g. a player's own; default a new one).  ValueError when the
    game has not two players or is not GDL-II, or the reasoner is not the
    compiled one (the features need its numbering)."""

    sampled = True
    agent = SampledAgent

    def __init__(self, game, params: dict, steps: Steps | None = None):
        if not game.is_gdl2:
            raise ValueError(
                f"{self.name} by sampling learns games of imperfect information (GDL-II)"
            )
        self.game = game
        self.stepper = steps or Steps(game.state_machine(COMPILED), True)
        if not self.stepper.compiled:
            raise ValueError(f"{self.name} by sampling needs the compiled reasoner")
        self.players = deciders(self.stepper.roles)
        if len(self.players) != 2:
            raise ValueError(
                f"{self.name} learns two-player games; this one has {len(self.players)} players"
            )
        self._start_learning(params)
        sm = self.stepper.sm
        self.root = sm.initial_state()
        unit = utility_unit(game)
        self.reward = lambda goals: [unit.from_goal(goals[r]) for r in self.players]
        if self.params["depth"] is None:
            self.params["depth"] = self._longest_playout()
        self.agents = [
            self.agent(
                StepEncoding(
                    sorted(sm.move_numbers[r].values()), self.stepper.sees[r], self.params["depth"]
                ),
                self.params,
                self.np_rng,
            )
            for r in self.players
        ]
        self._last: list[tuple | None] = [None, None]

    def grow(self, depth: int) -> None:
        """Features for ``depth`` steps, when an episode or a match goes
        deeper than they reach: both agents grow
        (:meth:`SampledAgent.grow`), and so does the move kept for the
        transition under way; ``depth`` is saved with the parameters."""
        self.params["depth"] = depth
        for p, agent in enumerate(self.agents):
            agent.grow(depth)
            last = self._last[p]
            if last is not None:
                row, action = last
                self._last[p] = (agent.enc.widened(row), action)

    def _longest_playout(self) -> int:
        """The most steps of :data:`DEPTH_PLAYOUTS` random playouts (seeded)."""
        rng, sm = random.Random(self.params["seed"]), self.stepper.sm
        return max(1, *(sm.random_playout(self.root, rng)[1] for _ in range(DEPTH_PLAYOUTS)))

    def signature(self) -> str:
        """A digest of the roles, the features' layout, vocabularies and depth."""
        sm = self.stepper.sm
        parts = [" ".join(sm.roles), FEATURES_LAYOUT, str(self.params["depth"])]
        for r, agent in zip(self.players, self.agents):
            seen = dict(sm.percept_nodes[r])
            parts += [
                " ".join(to_kif(sm.move_terms[m]) for m in agent.enc.moves),
                " ".join(to_kif(seen[t]) for t in agent.enc.terms),
            ]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]

    def _run(self, episodes: int) -> SampledNFSP:
        start = time.perf_counter()
        rng, agents, eta, steps = self.rng, self.agents, self.params["eta"], self.stepper
        seat = {r: p for p, r in enumerate(self.players)}
        every = self.params["every"]
        for _ in range(episodes):
            best = [rng.random() < eta for _ in agents]
            self.begin_episode()
            state, t = self.root, 0
            active: list[list] = [[], []]
            while (legal := steps.legal(state)) is not None:
                joint = []
                for r, moves in enumerate(legal):
                    p = seat.get(r)
                    if len(moves) == 1 or p is None:  # forced, or chance's uniform draw
                        joint.append(moves[rng.randrange(len(moves))])
                        continue
                    agent = agents[p]
                    actions = agent.enc.actions(moves)
                    row = agent.enc.packed(active[p], actions)
                    if best[p]:
                        k = self.best_response(p, None, row, actions)
                        agent.sl_memory.add(s=row, a=actions[k])
                    else:
                        k = draw(rng, agent.average_probs(row), actions)
                    self.played(p, row, actions[k], best[p])
                    joint.append(moves[k])
                    self.steps += 1
                    if self.steps % every == 0:
                        self.learn()
                state, seen = steps.next_seen(state, joint)
                if t >= self.params["depth"]:
                    self.grow(t + 1)
                for p, r in enumerate(self.players):
                    agents[p].enc.extend(active[p], t, joint[r], seen[r])
                t += 1
            self.end_episode(self.reward(steps.goals(state)))
            self.episodes += 1
        self.seconds += time.perf_counter() - start
        return self

    def policy(self, p: int, history, legal) -> list:
        """The average policy's probabilities of ``legal`` (move numbers) for
        player ``p`` (an index of ``players``) whose own moves and percepts
        at each step so far were ``history``: (move number, percept numbers)."""
        if len(history) > self.params["depth"]:
            self.grow(len(history))
        enc = self.agents[p].enc
        active: list = []
        for t, (move, seen) in enumerate(history):
            enc.extend(active, t, move, seen)
        actions = enc.actions(legal)
        probs = self.agents[p].average_probs(enc.packed(active, actions))
        return [probs[a] for a in actions]

    def exploitability(self) -> float:
        """Not measurable without the tree: NaN."""
        return math.nan
