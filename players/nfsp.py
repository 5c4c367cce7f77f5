"""Neural Fictitious Self-Play (seed 002: Heinrich and Silver, "Deep
Reinforcement Learning from Self-Play in Imperfect-Information Games", 2016)
over a two-player game's extensive form.

Each player is an NFSP agent with two networks over the generic features of
its information states (:class:`ggp.features.Encoding`):

- ``F_Q``, action values learned by DQN (Mnih et al. 2015) from a circular
  replay memory ``M_RL`` of its transitions (information state, move,
  reward, next information state of the same player), with a target network
  refitted every ``refit`` updates; its epsilon-greedy policy ``beta`` is the
  approximate best response;
- ``F_S``, the average policy ``pi``, learned by supervised classification
  (cross-entropy) from a reservoir ``M_SL`` of its own best-response moves.

In each episode an agent plays ``beta`` with probability ``eta`` (the
anticipatory parameter), else ``pi`` (seed 002, Algorithm 1).  Every
``every`` steps of the game each agent makes ``updates`` minibatch updates of
``batch`` samples per network.  ``eta = 1`` is the seed's DQN ablation: the
agents play only their epsilon-greedy policies, and ``pi`` is the average of
what DQN played.

The defaults are the seed's Leduc settings (section 6; its Chinese text says
3 updates per network every 128 steps): 64 hidden units, ``M_RL`` 200,000,
``M_SL`` 2,000,000, learning rates 0.1 (RL) and 0.005 (SL) by plain SGD,
minibatches of 128, target refitted every 300 updates, eta 0.1, epsilon from
0.06 decaying with the inverse square root of the episodes.

The policies are tabulated for every information state after each update
(the tree is small: one batched forward pass per network), so an episode is a
walk through the flat tree with table lookups.  The score is the exact
exploitability of ``pi`` (:func:`ggp.cfr.exploitability`).
"""
from __future__ import annotations

import json
import math
import random
import time
from pathlib import Path

import numpy as np
from ggp.cfr import exploitability
from ggp.efg import CHANCE, TERMINAL, flatten
from ggp.features import Encoding

from .neural import SGD, Adam, Circular, Network, Reservoir, masked_softmax, policy_loss, q_loss
from .online import SolvingPlayer
from .params import Param, extend

#: The parameters of an NFSP learner (also the ``nfsp`` player's).
PARAMS = (
    Param("eta", float, 0.1, "anticipatory parameter: chance of playing the best response "
          "in an episode (1: DQN alone)", low=0, high=1),
    Param("epsilon", float, 0.06, "exploration of the best response at the start, decaying "
          "with 1/sqrt(episodes)", low=0, high=1),
    Param("hidden", int, 64, "units of the hidden layer", low=1),
    Param("rl_lr", float, 0.1, "learning rate of the action values", low=0, low_open=True),
    Param("sl_lr", float, 0.005, "learning rate of the average policy", low=0, low_open=True),
    Param("optimizer", str, "sgd", "the networks' optimiser", choices=("sgd", "adam")),
    Param("rl_memory", int, 200_000, "size of the circular replay memory M_RL", low=1),
    Param("sl_memory", int, 2_000_000, "size of the reservoir M_SL", low=1),
    Param("batch", int, 128, "minibatch size", low=1),
    Param("every", int, 128, "game steps between learning", low=1),
    Param("updates", int, 3, "minibatch updates per network each time", low=1),
    Param("refit", int, 300, "updates between refits of the target network", low=1),
    Param("seed", int, 0, "random seed", low=0),
)
DEFAULTS = {p.name: p.default for p in PARAMS}


class _Agent:
    """One player's networks, memories and tabulated policies."""

    def __init__(self, encoding: Encoding, params: dict, rng: np.random.Generator):
        self.enc = encoding
        sizes = (encoding.size, params["hidden"], len(encoding.moves))
        self.q, self.target, self.sl = (Network(sizes, rng) for _ in range(3))
        self.target.copy_from(self.q)
        make = SGD if params["optimizer"] == "sgd" else Adam
        self.q_opt = make(self.q.params, params["rl_lr"])
        self.sl_opt = make(self.sl.params, params["sl_lr"])
        self.rl = Circular(params["rl_memory"], {"s": np.int32, "a": np.int32,
                                                 "r": np.float64, "next": np.int32})
        self.sl_memory = Reservoir(params["sl_memory"], {"s": np.int32, "a": np.int32}, rng)
        self.updates = 0
        self.tabulate()

    def tabulate(self) -> None:
        """Greedy moves and average-policy probabilities at every information state."""
        x, legal = self.enc.matrix, self.enc.legal
        q = np.where(legal, self.q.forward(x), -np.inf)
        self.greedy = q.argmax(axis=1)
        self.average = masked_softmax(self.sl.forward(x), legal)
        self.greedy_rows, self.average_rows = self.greedy.tolist(), self.average.tolist()

    def learn(self, params: dict, rng: np.random.Generator) -> None:
        x, legal, n = self.enc.matrix, self.enc.legal, params["batch"]
        for _ in range(params["updates"]):
            if self.rl.size >= n:
                b = self.rl.sample(n, rng)
                after = b["next"] >= 0
                best = np.zeros(n)
                if after.any():
                    rows = b["next"][after]
                    best[after] = np.where(legal[rows], self.target.forward(x[rows]),
                                           -np.inf).max(axis=1)
                _, grads = self.q.gradients(x[b["s"]], q_loss(b["a"], b["r"] + best))
                self.q_opt.step(grads)
                self.updates += 1
                if self.updates % params["refit"] == 0:
                    self.target.copy_from(self.q)
            if self.sl_memory.size >= n:
                b = self.sl_memory.sample(n, rng)
                _, grads = self.sl.gradients(x[b["s"]], policy_loss(b["a"], legal[b["s"]]))
                self.sl_opt.step(grads)
        self.tabulate()


class NFSP:
    """An NFSP learner on ``tree`` (two players); the interface of
    :class:`players.selfplay.SelfPlay`: ``run``, ``checkpoint``,
    ``average_policy``, ``exploitability``, ``curve``."""

    name = "nfsp"

    def __init__(self, tree, params: dict):
        if len(tree.players) != 2:
            raise ValueError(f"nfsp learns two-player games; this one has "
                             f"{len(tree.players)} players")
        self.tree, self.flat = tree, flatten(tree)
        self.params = {**DEFAULTS, **params}
        seed = self.params["seed"]
        self.np_rng = np.random.default_rng(seed)
        self.rng = random.Random(seed)
        self.agents = [_Agent(Encoding(tree, p), self.params, self.np_rng) for p in range(2)]
        self.episodes, self.steps, self.seconds = 0, 0, 0.0
        self.curve: list = []
        self._walk_arrays()

    @property
    def spec(self) -> str:
        keys = ("eta", "epsilon", "hidden", "rl_lr", "sl_lr")
        return f"{self.name}:" + ",".join(f"{k}={self.params[k]:g}" for k in keys)

    def _walk_arrays(self):
        f = self.flat
        self._kind = f.kind.tolist()
        self._start = f.child_start.tolist()
        self._child = f.child.tolist()
        self._prob = f.child_prob.tolist()
        self._player = f.player.tolist()
        self._infoset = f.infoset.tolist()
        self._utility = f.utility.tolist()
        self._row = [a.enc.row.tolist() for a in self.agents]
        self._moves = [{i: a.enc.action[i].tolist() for i in a.enc.infosets}
                       for a in self.agents]

    def epsilon(self) -> float:
        return self.params["epsilon"] / math.sqrt(self.episodes + 1)

    def run(self, episodes: int) -> NFSP:
        """Train ``episodes`` more episodes."""
        start = time.perf_counter()
        rng, agents, eta = self.rng, self.agents, self.params["eta"]
        kind, first, child, prob = self._kind, self._start, self._child, self._prob
        player, infoset, utility = self._player, self._infoset, self._utility
        rows, actions, every = self._row, self._moves, self.params["every"]
        for _ in range(episodes):
            eps = self.epsilon()
            best = [rng.random() < eta for _ in agents]
            last = [None, None]
            node = 0
            while kind[node] != TERMINAL:
                lo = first[node]
                if kind[node] == CHANCE:
                    x, k = rng.random(), lo
                    while k < first[node + 1] - 1 and x >= prob[k]:
                        x -= prob[k]
                        k += 1
                    node = child[k]
                    continue
                p = player[node]
                agent, row = agents[p], rows[p][infoset[node]]
                moves = actions[p][infoset[node]]
                if last[p] is not None:
                    agent.rl.add(s=last[p][0], a=last[p][1], r=0.0, next=row)
                if best[p]:
                    if rng.random() < eps:
                        k = rng.randrange(len(moves))
                    else:
                        k = moves.index(agent.greedy_rows[row])
                    agent.sl_memory.add(s=row, a=moves[k])
                else:
                    k = _draw(rng, agent.average_rows[row], moves)
                last[p] = (row, moves[k])
                node = child[lo + k]
                self.steps += 1
                if self.steps % every == 0:
                    for a in agents:
                        a.learn(self.params, self.np_rng)
            for p, agent in enumerate(agents):
                if last[p] is not None:
                    agent.rl.add(s=last[p][0], a=last[p][1], r=utility[node][p], next=-1)
            self.episodes += 1
        self.seconds += time.perf_counter() - start
        return self

    def average_policy(self) -> list:
        """Per information state of the tree, ``pi``'s probabilities of its moves."""
        policy = []
        for i, info in enumerate(self.tree.infosets):
            agent = self.agents[info.player]
            probs = agent.average[agent.enc.row[i], agent.enc.action[i]]
            policy.append((probs / probs.sum()).tolist())
        return policy

    def greedy_policy(self) -> list:
        """Per information state, the best response's greedy move (probability 1)."""
        policy = []
        for i, info in enumerate(self.tree.infosets):
            agent = self.agents[info.player]
            moves = agent.enc.action[i].tolist()
            best = moves.index(int(agent.greedy[agent.enc.row[i]]))
            policy.append([1.0 if k == best else 0.0 for k in range(len(moves))])
        return policy

    def exploitability(self) -> float:
        return exploitability(self.tree, self.average_policy())

    def checkpoint(self):
        from .selfplay import CurvePoint
        point = CurvePoint(self.episodes, self.seconds, self.exploitability())
        self.curve.append(point)
        return point

    # --- saving and resuming ----------------------------------------------------------
    def save(self, folder) -> None:
        """Everything needed to resume or to play: networks, optimisers,
        memories, counters, random states (``folder/nfsp.npz``, ``nfsp.json``)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        arrays = {}
        for p, a in enumerate(self.agents):
            for name, net in (("q", a.q), ("target", a.target), ("sl", a.sl)):
                for k, w in enumerate(net.params):
                    arrays[f"{p}_{name}_{k}"] = w
            for name, opt in (("qopt", a.q_opt), ("slopt", a.sl_opt)):
                for k, w in enumerate(opt.state()):
                    arrays[f"{p}_{name}_{k}"] = w
            for name, memory in (("rl", a.rl), ("slm", a.sl_memory)):
                for col, values in memory.columns.items():
                    arrays[f"{p}_{name}_{col}"] = values[:memory.size]
        meta = {"params": self.params, "episodes": self.episodes, "steps": self.steps,
                "seconds": self.seconds,
                "curve": [[c.episodes, c.seconds, c.exploitability] for c in self.curve],
                "agents": [{"updates": a.updates, "rl_next": a.rl.next,
                            "offered": a.sl_memory.offered} for a in self.agents],
                "rng": _jsonable(self.rng.getstate()),
                "np_rng": self.np_rng.bit_generator.state}
        tmp = folder / "nfsp.tmp.npz"
        np.savez(tmp, **arrays)
        tmp.replace(folder / "nfsp.npz")
        (folder / "nfsp.tmp.json").write_text(json.dumps(meta))
        (folder / "nfsp.tmp.json").replace(folder / "nfsp.json")

    @classmethod
    def load(cls, tree, folder) -> NFSP:
        """The learner saved in ``folder`` (its parameters as saved)."""
        from .selfplay import CurvePoint
        folder = Path(folder)
        meta = json.loads((folder / "nfsp.json").read_text())
        learner = cls(tree, meta["params"])
        with np.load(folder / "nfsp.npz") as data:
            for p, a in enumerate(learner.agents):
                for name, net in (("q", a.q), ("target", a.target), ("sl", a.sl)):
                    for k, w in enumerate(net.params):
                        saved = data[f"{p}_{name}_{k}"]
                        if saved.shape != w.shape:
                            raise ValueError(f"{folder}: networks of another game")
                        w[...] = saved
                for name, opt in (("qopt", a.q_opt), ("slopt", a.sl_opt)):
                    opt.load([data[f"{p}_{name}_{k}"] for k in range(len(opt.state()))])
                for name, memory in (("rl", a.rl), ("slm", a.sl_memory)):
                    for col, values in memory.columns.items():
                        saved = data[f"{p}_{name}_{col}"]
                        values[:len(saved)] = saved
                        memory.size = len(saved)
                a.updates = meta["agents"][p]["updates"]
                a.rl.next = meta["agents"][p]["rl_next"]
                a.sl_memory.offered = meta["agents"][p]["offered"]
                a.tabulate()
        learner.episodes, learner.steps = meta["episodes"], meta["steps"]
        learner.seconds = meta["seconds"]
        learner.curve = [CurvePoint(*c) for c in meta["curve"]]
        learner.rng.setstate(_tupled(meta["rng"]))
        learner.np_rng.bit_generator.state = meta["np_rng"]
        return learner


def _draw(rng: random.Random, probs, moves) -> int:
    """An index into ``moves`` drawn with the probabilities ``probs`` gives them."""
    x, last = rng.random(), len(moves) - 1
    for k, m in enumerate(moves):
        x -= probs[m]
        if x < 0:
            return k
    return last


def _jsonable(state):
    return [_jsonable(x) for x in state] if isinstance(state, tuple) else state


def _tupled(state):
    return tuple(_tupled(x) for x in state) if isinstance(state, list) else state


# --- the player ----------------------------------------------------------------------------

class NFSPPlayer(SolvingPlayer):
    """Plays the average policy ``pi`` of an NFSP learner at its information
    state: a learner saved by ``ggp exploit --player nfsp --save DIR``
    (``load=DIR``, played as trained), else one trained in the match, for
    ``iterations`` episodes a move or on the clock."""

    name = "nfsp"
    params = extend(SolvingPlayer.params,
                    Param("iterations", int, None, "NFSP episodes a move (reproducible with "
                          "seed); default: train on the clock", low=1),
                    *(p for p in PARAMS if p.name != "seed"),
                    Param("load", str, None, "folder of a learner saved by ggp exploit "
                          "--save: play its average policy without training"))

    def why_not(self, players, total):
        if self.sampled:
            return "nfsp needs the game's whole extensive form"
        return None if players == 2 else f"nfsp learns two-player games, not {players}-player"

    def begin(self, deadline):
        tree = self.view.tree
        if self.load is not None:
            self.learner = NFSP.load(tree, self.load)
            return
        chosen = {p.name: getattr(self, p.name) for p in PARAMS if p.name != "seed"}
        self.learner = NFSP(tree, {**chosen, "seed": self.base_seed})
        if deadline is not None:
            self.spend(self.learner.run, deadline)

    def decide(self, info, deadline):
        if self.load is None:
            self.spend(self.learner.run, deadline)
        return self.learner.average_policy()[info]
