"""Neural Fictitious Self-Play (Heinrich and Silver, "Deep Reinforcement
Learning from Self-Play in Imperfect-Information Games", 2016, as presented
in a Chinese article) over a two-player game's extensive form.

Each player is an NFSP agent with two networks over the generic features of
its information states (:class:`ggp.solvers.features.Encoding`):

- ``F_Q``, action values learned by DQN (Mnih et al. 2015) from a circular
  replay memory ``M_RL`` of its transitions (information state, move,
  reward, next information state of the same player), with a target network
  refitted every ``refit`` updates; its epsilon-greedy policy ``beta`` is the
  approximate best response;
- ``F_S``, the average policy ``pi``, learned by supervised classification
  (cross-entropy) from a reservoir ``M_SL`` of its own best-response moves.

In each episode an agent plays ``beta`` with probability ``eta`` (the
anticipatory parameter), else ``pi`` (Heinrich and Silver, Algorithm 1).  Every
``every`` steps of the game each agent makes ``updates`` minibatch updates of
``batch`` samples per network.  ``eta = 1`` is Heinrich and Silver's DQN
ablation: the agents play only their epsilon-greedy policies, and ``pi`` is
the average of what DQN played.

The defaults are Heinrich and Silver's Leduc settings (section 6; the Chinese
text says 3 updates per network every 128 steps): 64 hidden units, ``M_RL`` 200,000,
``M_SL`` 2,000,000, learning rates 0.1 (RL) and 0.005 (SL) by plain SGD,
minibatches of 128, target refitted every 300 updates, eta 0.1, epsilon from
0.06 decaying with the inverse square root of the episodes.

After each update the policies of an information state are computed when an
episode first reaches it and kept until the next update (few of the states
are visited between two updates on the larger games), so an episode is a walk
through the flat tree with table lookups.  The score is the exact
exploitability of ``pi`` (:func:`ggp.solvers.cfr.exploitability`).

:class:`MCNFSP` (Zhang et al., "Monte Carlo Neural Fictitious Self-Play",
2019) replaces DQN by a search guided by a policy-value network; the players
``nfsp`` and ``mc-nfsp`` play a learner's average policy in matches
(:mod:`players.learning.nfsp_player`).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from ggp.solvers.cfr import exploitability
from ggp.solvers.efg import CHANCE, TERMINAL, flatten
from ggp.solvers.features import Encoding, StepEncoding
from players.learning.curves import CurvePoint
from players.learning.neural import (
    SGD,
    Adam,
    Circular,
    NeuralNetwork,
    OneHot,
    Reservoir,
    masked_softmax,
    policy_loss,
    policy_value_loss,
    q_loss,
)
from players.params import Param, extend

#: The parameters of an NFSP learner (also the ``nfsp`` player's).
PARAMS = (
    Param(
        "eta",
        float,
        0.1,
        "anticipatory parameter: chance of playing the best response in an episode (1: DQN alone)",
        low=0,
        high=1,
    ),
    Param(
        "epsilon",
        float,
        0.06,
        "exploration of the best response at the start, decaying "
        "as epsilon / sqrt(1 + episodes / decay)",
        low=0,
        high=1,
    ),
    Param(
        "decay",
        float,
        1.0,
        "episodes per unit of epsilon's decay "
        "(1: Heinrich and Silver's 1/sqrt(episodes) read literally)",
        low=0,
        low_open=True,
    ),
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
    Param(
        "backend",
        str,
        "numpy",
        "the networks' arithmetic: numpy (faster at these "
        "sizes) or PyTorch (pip install -e '.[torch]')",
        choices=("numpy", "torch"),
    ),
    Param(
        "depth",
        int,
        None,
        "a game too large for its tree, sampled step by step: the "
        "steps the features have at first (default: the longest of 64 random "
        "playouts); a deeper episode or match grows them",
        low=1,
    ),
    Param("seed", int, 0, "random seed", low=0),
)


def _network_class(params: dict):
    """The network class of the ``backend`` parameter."""
    if params["backend"] == "torch":
        from players.learning.neural_torch import TorchNetwork

        return TorchNetwork
    return NeuralNetwork


class _Rows(dict):
    """A policy table filled when first read: the row read (``compute(slice)``
    gives a list of rows), or the whole table if ``whole``."""

    def __init__(self, compute, whole: bool):
        super().__init__()
        self.compute, self.whole = compute, whole

    def __missing__(self, row):
        if self.whole:
            self.update(enumerate(self.compute(slice(None))))
            return self[row]
        value = self[row] = self.compute(slice(row, row + 1))[0]
        return value


class Agent:
    """One NFSP player: its networks, optimisers, memories and tabulated policies."""

    # the whole tables of the policies, computed when first asked after an update
    _greedy: np.ndarray | None
    _average: np.ndarray | None
    #: the information states' encoding: an :class:`Encoding` (rows of a table), or a
    #: :class:`StepEncoding` (packed features) for :class:`players.learning.nfsp_sampled.
    #: SampledAgent`, which declares it so.  The two share ``size`` and ``moves`` only;
    #: each agent class reads the rest of its own.
    enc: Any

    def __init__(self, encoding: Encoding | StepEncoding, params: dict, rng: np.random.Generator):
        self.enc = encoding
        self.index_states(params)
        self.nets = self.make_nets(params, rng)
        make = SGD if params["optimizer"] == "sgd" else Adam
        self.opts = {
            name: make(self.nets[name].params, params[lr]) for name, lr in self.optimized.items()
        }
        rl_columns, sl_columns = self.columns(params)
        self.memories = {
            "rl": Circular(params["rl_memory"], rl_columns),
            "sl": Reservoir(params["sl_memory"], sl_columns, rng),
        }
        self.rl, self.sl_memory = self.memories["rl"], self.memories["sl"]
        self.updates = 0
        self._target_table: np.ndarray | None = None
        self.tabulate()

    def index_states(self, params: dict) -> None:
        """The table of the encoding's rows (the networks' inputs) and whether
        the policies are computed for the whole table at once: a whole table
        costs about what 1/40 of its rows cost one at a time (Leduc: 120 us
        against 8-13 us a row), and at most ``every`` rows are read between
        two updates, so small tables are computed whole."""
        self.x = OneHot(self.enc.matrix)
        self.whole = len(self.enc.infosets) <= 4 * params["every"]

    #: network name -> its learning rate's parameter
    optimized = {"q": "rl_lr", "sl": "sl_lr"}

    def columns(self, params) -> tuple:
        """The columns of M_RL (transitions) and of M_SL (best-response moves)."""
        s = self.state_column
        return (
            {"s": s, "a": np.int32, "r": np.float64, "next": s, "more": bool},
            {"s": s, "a": np.int32},
        )

    #: how the memories keep an information state: its row in the table
    #: (a column's dtype, or (dtype, width))
    state_column: type | tuple = np.int32

    def make_nets(self, params, rng) -> dict:
        sizes = (self.enc.size, params["hidden"], len(self.enc.moves))
        make = _network_class(params)
        nets = {name: make(sizes, rng, np.float32) for name in ("q", "target", "sl")}
        nets["target"].copy_from(nets["q"])
        return nets

    def tabulate(self) -> None:
        """After an update: the policies are computed when the episodes first
        ask for them, a row at a time (most rows of a large game are not
        visited between two updates) or the whole table (a small game)."""
        self._greedy = self._average = None
        self.greedy_rows = _Rows(lambda rows: self._greedy_of(rows).tolist(), self.whole)
        self.average_rows = _Rows(lambda rows: self._average_of(rows).tolist(), self.whole)

    @property
    def greedy(self) -> np.ndarray:
        """The best response's greedy move (an index of ``moves``) at every row."""
        if self._greedy is None:
            self._greedy = self._greedy_of(slice(None))
        return self._greedy

    @property
    def average(self) -> np.ndarray:
        """The average policy's probabilities of ``moves`` at every row."""
        if self._average is None:
            self._average = self._average_of(slice(None))
        return self._average

    # --- an information state as the memories keep it: a row of the table ------------
    def inputs(self, states):
        """The networks' inputs at ``states`` (an index or slice of rows)."""
        return self.x[states]

    def legal_at(self, states) -> np.ndarray:
        """Per state of ``states``, which of the encoding's moves are legal."""
        return self.enc.legal[states]

    def greedy_move(self, state) -> int:
        """The best response's greedy move (an index of ``moves``) at ``state``."""
        return self.greedy_rows[state]

    def average_probs(self, state) -> list:
        """The average policy's probabilities of ``moves`` at ``state``."""
        return self.average_rows[state]

    def _legal_values(self, net: str, rows) -> np.ndarray:
        """The action values of network ``net`` at ``rows``, -inf at illegal moves."""
        return np.where(self.legal_at(rows), self.nets[net].forward(self.inputs(rows)), -np.inf)

    def _greedy_of(self, rows) -> np.ndarray:
        return self._legal_values("q", rows).argmax(axis=1)

    def _average_of(self, rows) -> np.ndarray:
        return masked_softmax(self.nets["sl"].forward(self.inputs(rows)), self.legal_at(rows))

    def _target_best(self, rows) -> np.ndarray:
        """The target network's highest value of a legal move at ``rows``
        (in a small game, from its whole table, kept until the next refit)."""
        if not self.whole:
            return self._legal_values("target", rows).max(axis=1)
        if self._target_table is None:
            self._target_table = self._legal_values("target", slice(None)).max(axis=1)
        return self._target_table[rows]

    def learn(self, params: dict, rng: np.random.Generator) -> None:
        n = params["batch"]
        q, target = self.nets["q"], self.nets["target"]
        for _ in range(params["updates"]):
            if self.rl.size >= n:
                b = self.rl.sample(n, rng)
                after = b["more"]
                best = np.zeros(n)
                if after.any():
                    best[after] = self._target_best(b["next"][after])
                _, grads = q.gradients(self.inputs(b["s"]), q_loss(b["a"], b["r"] + best))
                self.opts["q"].step(grads)
                self.updates += 1
                if self.updates % params["refit"] == 0:
                    target.copy_from(q)
                    self._target_table = None
            self.learn_average(params, rng)
        self.tabulate()

    def learn_average(self, params, rng) -> None:
        n = params["batch"]
        if self.sl_memory.size >= n:
            b = self.sl_memory.sample(n, rng)
            _, grads = self.nets["sl"].gradients(
                self.inputs(b["s"]), policy_loss(b["a"], self.legal_at(b["s"]))
            )
            self.opts["sl"].step(grads)


class NFSP:
    """An NFSP learner on ``tree`` (two players); the interface of
    :class:`players.learning.selfplay.SelfPlay`: ``run``, ``checkpoint``,
    ``average_policy``, ``exploitability``, ``curve``."""

    name = "nfsp"
    agent = Agent
    declared = PARAMS  # its parameters (``params`` holds their values)
    shown: tuple[str, ...] = ("eta", "epsilon", "decay", "hidden", "rl_lr", "sl_lr")

    def __init__(self, tree, params: dict):
        if len(tree.players) != 2:
            raise ValueError(
                f"{self.name} learns two-player games; this one has {len(tree.players)} players"
            )
        self.tree, self.flat = tree, flatten(tree)
        self._start_learning(params)
        self.agents = self.make_agents(tree)
        self._walk_arrays()

    def make_agents(self, tree) -> list:
        """Per player, its agent: each player is an NFSP agent of its own
        (Heinrich and Silver, Algorithm 1)."""
        return [self.agent(Encoding(tree, p), self.params, self.np_rng) for p in range(2)]

    @property
    def distinct_agents(self) -> list:
        """The agents, each once (players that share networks share an agent)."""
        return list({id(a): a for a in self.agents}.values())

    def _start_learning(self, params: dict) -> None:
        """The parameters (defaults filled), random states and counters."""
        self.params = {**{p.name: p.default for p in self.declared}, **params}
        seed = self.params["seed"]
        self.np_rng = np.random.default_rng(seed)
        self.rng = random.Random(seed)
        self.episodes, self.steps, self.seconds = 0, 0, 0.0
        self.curve: list = []

    @property
    def spec(self) -> str:
        return f"{self.name}:" + ",".join(
            f"{k}={v}" if isinstance(v, str) else f"{k}={v:g}"
            for k, v in ((k, self.params[k]) for k in self.shown)
        )

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
        self._moves = [{i: a.enc.action[i].tolist() for i in a.enc.infosets} for a in self.agents]

    def epsilon(self) -> float:
        return self.params["epsilon"] / math.sqrt(1 + self.episodes / self.params["decay"])

    def run(self, episodes: int) -> NFSP:
        """Train ``episodes`` more episodes (on one BLAS thread: the matrices
        are small, and threads cost more than they give)."""
        with threadpool_limits(limits=1, user_api="blas"):
            return self._run(episodes)

    def _run(self, episodes: int) -> NFSP:
        start = time.perf_counter()
        rng, agents, eta = self.rng, self.agents, self.params["eta"]
        kind, first, child, prob = self._kind, self._start, self._child, self._prob
        player, infoset, utility = self._player, self._infoset, self._utility
        rows, actions, every = self._row, self._moves, self.params["every"]
        by_steps = self.learns_every == "steps"
        for _ in range(episodes):
            best = [rng.random() < eta for _ in agents]
            self.begin_episode()
            node = 0
            while kind[node] != TERMINAL:
                lo = first[node]
                if kind[node] == CHANCE:
                    node = child[_chance(rng, first, prob, node)]
                    continue
                p = player[node]
                agent, row = agents[p], rows[p][infoset[node]]
                moves = actions[p][infoset[node]]
                if best[p]:
                    k = self.best_response(p, node, row, moves)
                    agent.sl_memory.add(s=row, a=self.supervised_target(p, moves, k))
                else:
                    k = draw(rng, agent.average_probs(row), moves)
                self.played(p, row, moves[k], best[p])
                node = child[lo + k]
                self.steps += 1
                if by_steps and self.steps % every == 0:
                    self.learn()
            self.end_episode(utility[node])
            self.episodes += 1
            if not by_steps and self.episodes % every == 0:
                self.learn()
        self.seconds += time.perf_counter() - start
        return self

    #: what ``every`` counts between two learning rounds: game steps (NFSP) or episodes
    learns_every = "steps"

    def supervised_target(self, p, moves, k):
        """What M_SL keeps of a best-response move: the move (NFSP)."""
        return moves[k]

    # --- what the best response is (NFSP: DQN's epsilon-greedy policy) -----------------
    def begin_episode(self) -> None:
        #: per player, its last move as (row, action): the transition under way
        self._last: list[tuple | None] = [None, None]
        self._eps = self.epsilon()

    def best_response(self, p, node, row, moves) -> int:
        rng = self.rng
        if rng.random() < self._eps:
            return rng.randrange(len(moves))
        return moves.index(self.agents[p].greedy_move(row))

    def played(self, p, row, action, best) -> None:
        """Player ``p`` played ``action`` at ``row``: the transition from its last move."""
        last = self._last[p]
        if last is not None:
            self.agents[p].rl.add(s=last[0], a=last[1], r=0.0, next=row, more=True)
        self._last[p] = (row, action)

    def end_episode(self, utility) -> None:
        for p, agent in enumerate(self.agents):
            last = self._last[p]
            if last is not None:
                agent.rl.add(s=last[0], a=last[1], r=utility[p], more=False)

    def learn(self) -> None:
        for a in self.distinct_agents:
            a.learn(self.params, self.np_rng)

    # --- policies and scores -----------------------------------------------------------
    def average_policy(self) -> list:
        """Per information state of the tree, ``pi``'s probabilities of its moves."""
        return [self.policy_at(i) for i in range(len(self.tree.infosets))]

    def policy_at(self, i: int) -> list:
        """``pi``'s probabilities of the moves of information state ``i``."""
        agent = self.agents[self.tree.infosets[i].player]
        probs = agent.average[agent.enc.row[i], agent.enc.action[i]].astype(np.float64)
        return (probs / probs.sum()).tolist()

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
        for p, a in enumerate(self.distinct_agents):
            for name, net in a.nets.items():
                for k, w in enumerate(net.params):
                    arrays[f"{p}_net_{name}_{k}"] = w
            for name, opt in a.opts.items():
                for k, w in enumerate(opt.state()):
                    arrays[f"{p}_opt_{name}_{k}"] = w
            for name, memory in a.memories.items():
                for col, values in memory.columns.items():
                    arrays[f"{p}_memory_{name}_{col}"] = values[: memory.size]
        meta = {
            "learner": self.name,
            "sampled": self.sampled,
            "game": self.signature(),
            "params": self.params,
            "episodes": self.episodes,
            "steps": self.steps,
            "seconds": self.seconds,
            "curve": [[c.episodes, c.seconds, c.exploitability] for c in self.curve],
            "agents": [
                {"updates": a.updates, "rl_next": a.rl.next, "offered": a.sl_memory.offered}
                for a in self.distinct_agents
            ],
            "rng": _jsonable(self.rng.getstate()),
            "np_rng": self.np_rng.bit_generator.state,
        }
        tmp = folder / "nfsp.tmp.npz"
        np.savez(tmp, **arrays)
        tmp.replace(folder / "nfsp.npz")
        (folder / "nfsp.tmp.json").write_text(json.dumps(meta))
        (folder / "nfsp.tmp.json").replace(folder / "nfsp.json")

    #: whether the learner samples the game instead of walking its tree
    sampled = False

    def signature(self) -> str:
        """A digest of the game's information states: a saved learner fits only its game."""
        keys = "\n".join(info.key for info in self.tree.infosets)
        return hashlib.sha256(keys.encode()).hexdigest()[:16]

    @classmethod
    def load(cls, source, folder) -> NFSP:
        """The learner saved in ``folder`` (``nfsp`` or ``mc-nfsp``, its
        parameters as saved) on ``source``: the tree, or the game for a
        learner by sampling (:class:`players.learning.nfsp_sampled.SampledNFSP`)."""
        folder = Path(folder)
        try:
            meta = json.loads((folder / "nfsp.json").read_text())
        except (OSError, ValueError) as exc:
            raise ValueError(f"{folder}: no saved learner ({exc})") from None
        if meta.get("sampled", False) != cls.sampled:
            raise ValueError(
                f"{folder}: a learner "
                + (
                    "by sampling; this game's tree was built"
                    if not cls.sampled
                    else "of a whole tree; this game's tree is too large"
                )
            )
        kind = cls if cls.sampled else LEARNERS[meta["learner"]]
        if "nets" in {p.name for p in kind.declared}:  # saved before it had the choice: per role
            meta["params"].setdefault("nets", "per-role")
        learner = kind(source, meta["params"])
        if meta.get("game") != learner.signature():
            raise ValueError(f"{folder}: a learner of another game")
        with np.load(folder / "nfsp.npz") as data:
            for p, a in enumerate(learner.distinct_agents):
                for name, net in a.nets.items():
                    for k, w in enumerate(net.params):
                        saved = data[f"{p}_net_{name}_{k}"]
                        if saved.shape != w.shape:
                            raise ValueError(f"{folder}: networks of another game")
                        w[...] = saved
                for name, opt in a.opts.items():
                    opt.load([data[f"{p}_opt_{name}_{k}"] for k in range(len(opt.state()))])
                for name, memory in a.memories.items():
                    for col, values in memory.columns.items():
                        saved = data[f"{p}_memory_{name}_{col}"]
                        values[: len(saved)] = saved
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
        learner.loaded()
        return learner

    def loaded(self) -> None:
        """Called after :meth:`load` restored the agents."""


#: MC-NFSP's own parameters, in place of NFSP's of the same names or after
#: them (:data:`MC_PARAMS`): Zhang et al.'s Othello settings where they apply
#: (Adam, learning rates 0.01 and 0.005, M_RL 4,000,000, M_SL 400,000), and the
#: search's.  The paper gives no number of simulations: 200, four times the 50
#: of before, put the default training below 2.5 goal points on Kuhn
#: (docs/learning.md).
_MC_OWN = (
    Param("rl_lr", float, 0.01, "learning rate of the policy-value network", low=0, low_open=True),
    Param("optimizer", str, "adam", "the networks' optimiser", choices=("sgd", "adam")),
    Param(
        "rl_memory",
        int,
        4_000_000,
        "size of the circular memory M_RL of searched moves and outcomes",
        low=1,
    ),
    Param("sl_memory", int, 400_000, "size of the reservoir M_SL", low=1),
    Param("updates", int, 1, "minibatch updates per network each time", low=1),
    Param("every", int, 100, "episodes between learning (Zhang et al. 2019: every 100)", low=1),
    Param(
        "targets",
        str,
        "visits",
        "what the memories keep of a search: its visit "
        "distribution (Zhang et al. 2019) or the move drawn from it",
        choices=("visits", "move"),
    ),
    Param("simulations", int, 200, "MCTS simulations a best-response move", low=1),
    Param("c_puct", float, 1.0, "PUCT's exploration, on utilities scaled to [-1, 1]", low=0),
    Param(
        "nets",
        str,
        "shared",
        "the players share one pair of networks and memories (Zhang et al. 2019, "
        "Algorithm 1: players share B and Pi), or each has its own",
        choices=("shared", "per-role"),
    ),
)

#: MC-NFSP's parameters: NFSP's without DQN's (epsilon, refit), and its own.
MC_PARAMS = extend(
    tuple(p for p in PARAMS if p.name not in ("epsilon", "decay", "refit", "depth")),
    *_MC_OWN,
)


class MCAgent(Agent):
    """One MC-NFSP player: a policy-value network B (priors and leaf values of
    the search; trained on the searched moves and the outcomes) and the
    average-policy network."""

    optimized = {"br": "rl_lr", "sl": "sl_lr"}

    def columns(self, params) -> tuple:
        """M_RL: (information state, search target, outcome); M_SL: (information
        state, search target); a target is the visit distribution over the
        moves (Zhang et al. 2019) or, with ``targets=move``, the move drawn."""
        target = (np.float32, len(self.enc.moves)) if params["targets"] == "visits" else np.int32
        return {"s": np.int32, "a": target, "z": np.float64}, {"s": np.int32, "a": target}

    def make_nets(self, params, rng) -> dict:
        moves = len(self.enc.moves)
        make = _network_class(params)
        return {
            "br": make((self.enc.size, params["hidden"], moves + 1), rng, np.float32),
            "sl": make((self.enc.size, params["hidden"], moves), rng, np.float32),
        }

    def tabulate(self) -> None:
        """The whole tables at once: the search's sampling of histories reads
        the opponent's average policy everywhere."""
        out = self.nets["br"].forward(self.x[:])
        prior = masked_softmax(out[:, :-1], self.enc.legal)
        self._greedy, self._average = prior.argmax(axis=1), self._average_of(slice(None))
        self.prior_rows, self.value_rows = prior.tolist(), out[:, -1].tolist()
        self.average_rows = self._average.tolist()

    def learn(self, params, rng) -> None:
        n = params["batch"]
        for _ in range(params["updates"]):
            if self.rl.size >= n:
                b = self.rl.sample(n, rng)
                _, grads = self.nets["br"].gradients(
                    self.inputs(b["s"]), policy_value_loss(b["a"], self.legal_at(b["s"]), b["z"])
                )
                self.opts["br"].step(grads)
                self.updates += 1
            self.learn_average(params, rng)
        self.tabulate()


class MCNFSP(NFSP):
    """Monte Carlo NFSP (Zhang et al. 2019, Algorithm 3.1): NFSP whose best response is
    a search instead of DQN.  At a decision in best-response mode the agent
    runs ``simulations`` simulations of MCTS over its own information states
    against the opponent's average policy: each samples a history of the
    current information state (in proportion to chance's and the opponent's
    average policy's reach of it), then at the agent's information states
    chooses by PUCT, ``Q + c_puct P sqrt(N + 1) / (1 + N(a))`` with the
    priors P of B (AlphaGo Zero's rule; the ``+ 1`` lets the priors order
    the first visits), at the opponent's draws from its average policy, and
    at chance by the odds; a new information state of the agent is valued
    by B and ends the simulation, a terminal by its utility (on the tree's
    -1..1 scale, :func:`ggp.solvers.efg.utility_unit`).  As in Zhang et al.'s
    Algorithm 1 the players share the networks B and Pi and the memories
    (one agent over both players' information states, a feature saying whose
    turn it is; ``nets=per-role`` gives each its own).  The move is drawn from
    the visit counts; as in Zhang et al.'s Algorithm 1, the visit distribution
    goes to M_SL, and (information state, visit distribution, outcome) to M_RL
    when the episode ends (``targets=move`` keeps the move drawn instead).  The
    paper gives no number of simulations; the default 200 is the one that put
    the default training below 2.5 goal points on Kuhn, where 50 left it near
    5 (docs/learning.md).  The
    seed searches Othello's (perfect-information) states; over information
    states the search is against the opponent's average policy, the policy
    NFSP's best response answers.  ANFSP (asynchronous actors) is not
    built: two cores give it little room."""

    name = "mc-nfsp"
    agent = MCAgent
    declared = MC_PARAMS
    shown = ("eta", "simulations", "c_puct", "targets", "hidden", "rl_lr", "sl_lr", "nets")

    def make_agents(self, tree) -> list:
        """One agent for both players, its encoding over both players'
        information states (:class:`ggp.solvers.features.Encoding`; Zhang et
        al. 2019, Algorithm 1: the players share the networks B and Pi and
        the memories), or with ``nets=per-role`` one agent per player."""
        if self.params["nets"] == "per-role":
            return super().make_agents(tree)
        shared = self.agent(Encoding(tree, (0, 1)), self.params, self.np_rng)
        return [shared, shared]

    def __init__(self, tree, params: dict):
        super().__init__(tree, params)
        self._nodes = [info.nodes for info in tree.infosets]
        #: per player, the reach of every node (None: not computed since the last update)
        self._reach: list[list[float] | None] | None = None

    def learn(self) -> None:
        super().learn()
        self._reach = None

    def loaded(self) -> None:
        self._reach = None

    def _reach_of(self, p: int) -> list:
        """Per node, the product of chance's odds and the opponent's average
        policy's probabilities on the path to it (the agent's own moves count 1)."""
        reaches = self._reach
        if reaches is None:
            reaches = self._reach = [None, None]
        reach = reaches[p]
        if reach is None:
            kind, first, child, prob = self._kind, self._start, self._child, self._prob
            player, infoset = self._player, self._infoset
            other = self.agents[1 - p]
            rows, actions = self._row[1 - p], self._moves[1 - p]
            reach = [0.0] * len(kind)
            reach[0] = 1.0
            for n, k in enumerate(kind):  # preorder: a parent before its children
                if k == TERMINAL:
                    continue
                lo, r = first[n], reach[n]
                if k == CHANCE:
                    for j in range(lo, first[n + 1]):
                        reach[child[j]] = r * prob[j]
                elif player[n] == p:
                    for j in range(lo, first[n + 1]):
                        reach[child[j]] = r
                else:
                    probs = other.average_rows[rows[infoset[n]]]
                    for j, m in enumerate(actions[infoset[n]]):
                        reach[child[lo + j]] = r * probs[m]
            reaches[p] = reach
        return reach

    learns_every = "episodes"

    def begin_episode(self) -> None:
        self._searched: list[list[tuple]] = [[], []]

    def supervised_target(self, p, moves, k):
        return self._searched[p][-1][1]

    def best_response(self, p, node, row, moves) -> int:
        rng, info = self.rng, self._infoset[node]
        reach = self._reach_of(p)
        nodes = self._nodes[info]
        weights = [reach[n] for n in nodes]
        odds = weights if any(weights) else None
        stats: dict = {}
        for _ in range(self.params["simulations"]):
            self._simulate(p, rng.choices(nodes, odds)[0], stats)
        counts = stats[info][0]
        k = rng.choices(range(len(moves)), counts)[0]
        if self.params["targets"] == "visits":
            target = np.zeros(len(self.agents[p].enc.moves), dtype=np.float32)
            target[moves] = np.asarray(counts, dtype=np.float32) / sum(counts)
        else:
            target = moves[k]
        self._searched[p].append((row, target))
        return k

    def _simulate(self, p, node, stats) -> None:
        """One simulation from ``node`` (see the class docstring)."""
        rng, agent, other = self.rng, self.agents[p], self.agents[1 - p]
        kind, first, child, prob = self._kind, self._start, self._child, self._prob
        player, infoset, c = self._player, self._infoset, self.params["c_puct"]
        path: list = []
        while True:
            k = kind[node]
            if k == TERMINAL:
                value = self._utility[node][p]
                break
            lo = first[node]
            if k == CHANCE:
                node = child[_chance(rng, first, prob, node)]
                continue
            q, i = player[node], infoset[node]
            if q != p:
                moves = self._moves[q][i]
                node = child[lo + draw(rng, other.average_rows[self._row[q][i]], moves)]
                continue
            entry = stats.get(i)
            if entry is None:
                row = self._row[p][i]
                entry = stats[i] = (
                    [0] * len(self._moves[p][i]),
                    [0.0] * len(self._moves[p][i]),
                    [agent.prior_rows[row][m] for m in self._moves[p][i]],
                )
                if path:  # a new information state: B values it
                    value = agent.value_rows[row]
                    break
            visits, totals, priors = entry
            scale = c * math.sqrt(sum(visits) + 1)
            best, choice = -math.inf, 0
            for a, n in enumerate(visits):
                score = (totals[a] / n if n else 0.0) + scale * priors[a] / (1 + n)
                if score > best:
                    best, choice = score, a
            path.append((visits, totals, choice))
            node = child[lo + choice]
        for visits, totals, a in path:
            visits[a] += 1
            totals[a] += value

    def played(self, p, row, action, best) -> None:
        """MC-NFSP keeps only its searched moves (:meth:`best_response`)."""

    def end_episode(self, utility) -> None:
        for p, searched in enumerate(self._searched):
            for row, target in searched:
                self.agents[p].rl.add(s=row, a=target, z=utility[p])


#: name -> learner class (``ggp exploit --player NAME``, :meth:`NFSP.load`)
LEARNERS = {"nfsp": NFSP, "mc-nfsp": MCNFSP}


def _chance(rng: random.Random, first: list, prob: list, node: int) -> int:
    """The edge (index into the flat tree's children) chance takes at ``node``."""
    x, j, last = rng.random(), first[node], first[node + 1] - 1
    while j < last and x >= prob[j]:
        x -= prob[j]
        j += 1
    return j


def draw(rng: random.Random, probs, moves) -> int:
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
