"""Search players for games of imperfect information: ``ismcts``,
``smooth-uct`` and ``efg-uct``.

All three sample, at every simulation, a history consistent with what the
role saw (:mod:`players.belief`: exact while small, HyperPlay particles when
large) and search from it, so they never look at what they cannot see.
Rewards are the game's utilities, goals scaled to -1..1 by the goal range
its rules can pay (:func:`ggp.solvers.efg.utility_unit`), and the exploration
constant ``c`` is on that scale: its default, 0.8, is 40 goal points of a
0..100 game, the perfect-information players' constant.

- ``ismcts``: single-observer information-set MCTS (Cowling, Powley and
  Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2),
  2012).  One tree over the player's own information states; at each node
  every role's moves keep visits, rewards and *availability counts* (how often
  the move was legal when the node was visited), and each role picks by UCB
  with the availability count in place of the parent's visits:
  ``Q(u, a) + c * sqrt(ln A(u, a) / N(u, a))``.  One node is added per
  simulation, then a random playout runs in C.  It plays the most visited move.
- ``smooth-uct`` and ``efg-uct``: extensive-form MCTS with one tree per role
  over that role's own information states (Heinrich, "Smooth UCT Search"
  (thesis chapter), Algorithm 1), each role's key followed along the sampled
  history.  A role that reaches an information state outside its tree adds it,
  plays randomly from then on (OUT-OF-TREE), and the playout finishes in C once
  every role is out.  SELECT and UPDATE are Algorithm 3 (Smooth UCB, mixing in
  the average policy with probability
  ``eta = max(gamma, eta0 / (1 + d * sqrt(N(u))))``, eq. 3.1) or Algorithm 2
  (UCB), in the Cython trees of :mod:`players.imperfect._infotree`.  ``smooth-uct``
  plays a move drawn from its average policy at its information state
  (``final=sample``), ``efg-uct`` the most visited (``final=visits``).

Budgets, as for the perfect-information players: ``simulations=N`` per move
(a forced move costs nothing), else the play clock less ``margin`` seconds
(after the belief update, which may take ``belief_share`` of the clock).

The move is chosen at the player's own node: its information state (and, in
the extensive-form trees, its legal moves), which every simulation starts
from.  Not finding it there means that no simulation ran (the clock), that
the belief is lost (:mod:`players.belief`: its stand-ins need not share the
role's legal moves), or a bug: the first two are logged, the last raises
:class:`NodeNotFound` when :data:`STRICT` is set (the tests set it) and is
warned about once per player otherwise; in all three cases a random legal
move is played.
"""

from __future__ import annotations

import itertools
import logging
import math
import time
from array import array

from ggp import Interrupted
from ggp.collector import collector_paused
from ggp.solvers.efg import CHANCE_ROLE, utility_unit
from players._sampling import decision_key, extend_key
from players.base import BUDGET, Player
from players.params import Param, extend
from players.perfect.searches import search_for
from players.registry import register

log = logging.getLogger("players.imperfect.search")

#: The exploration constant of the information-set players when none is
#: given, on the utilities' -1..1 scale: 40 goal points of a 0..100 game
#: (the perfect-information players' C).
DEFAULT_C = 0.8

#: Raise :class:`NodeNotFound` instead of warning (set by the tests).
STRICT = False


class NodeNotFound(RuntimeError):
    """A search did not find its own node after simulations from a consistent belief."""


class InformationSetPlayer(Player):
    """What the three players share: the budget, the rewards, the playouts."""

    name = "information-set"

    params = extend(
        Player.params,
        *BUDGET,
        Param(
            "engine",
            str,
            "c",
            "the search in C (on the compiled reasoner) or in Python "
            "(the same simulations for the same seed)",
            choices=("c", "python"),
        ),
        Param(
            "c",
            float,
            DEFAULT_C,
            "exploration constant on the utilities' -1..1 scale "
            "(0.8: 40 goal points of a 0..100 game)",
            low=0,
        ),
        Param(
            "final",
            str,
            "visits",
            "the move played: most visited, or drawn from the average policy",
            choices=("visits", "sample"),
        ),
    )
    # The declared parameters the typed methods read (attributes set by Player.__init__):
    engine: str

    def __init__(self, **values):
        super().__init__(**values)
        self.last_simulations = 0
        self.warned = False  # about a node not found (once per player)

    def meta_game(self, deadline):
        self.unit = utility_unit(self.game)
        self.explore = self.c
        self.chance = [r == CHANCE_ROLE for r in self.sm.roles]
        self.typical = 0.0  # seconds, the last move's mean simulation
        self.rebuild_search(deadline)
        if self.simulations is None:
            self.think(self.think_until(deadline))

    def rebuild_search(self, deadline):
        """The playouts and the search over ``self.steps``: at START, and when
        the player moves to the compiled reasoner mid-match (:mod:`players.base`)."""
        from players._sampling import Draws

        self.playouts = search_for(self.steps, "random", {}, self.rng.getrandbits(63))
        self.search = None  # the search in C, when there is one
        self.draw_seed = self.rng.getrandbits(63)  # its random numbers, or the Python one's
        self.draws = Draws(self.draw_seed)
        self.new_search()

    def select(self, legal, deadline):
        if not legal:
            return None
        if len(legal) == 1:
            if self.simulations is None:
                self.think(self.think_until(deadline))
            return legal[0]
        if self.simulations is not None:
            self.think(math.inf, self.simulations)
        else:
            self.think(self.think_until(deadline))
        ids = [self.steps.move_id(self.me, m) for m in legal]
        choice = self.choose(ids)
        if choice is None:
            choice = self.not_found(ids)
        return legal[ids.index(choice)]

    def not_found(self, ids):
        """A random move of ``ids`` when :meth:`choose` did not find the
        player's node; why is logged, or raised (module docstring)."""
        role = self.steps.roles[self.me]
        if self.last_simulations == 0:
            log.warning(
                "%s (role %r): no simulation in time; playing a random legal move", self.name, role
            )
        elif self.belief.consistent:
            message = (
                f"{self.name} (role {role!r}): its own node is not in its tree after "
                f"{self.last_simulations} simulations from a consistent belief"
            )
            if STRICT:
                raise NodeNotFound(message)
            if not self.warned:
                log.warning("%s; playing a random legal move", message)
                self.warned = True
        return self.rng.choice(ids)

    def drawn(self, ids, weights):
        """A move of ``ids`` drawn in proportion to ``weights``, which are kept
        (normalized, by move) as :attr:`last_policy`."""
        total = sum(weights)
        self.last_policy = {self.steps.move(self.me, m): w / total for m, w in zip(ids, weights)}
        return self.rng.choices(ids, weights=weights)[0]

    def think(self, until: float, budget: int | None = None):
        """Simulate from histories drawn from the belief by weight until
        ``budget`` or ``until``: in C when there is a search in C, else in
        Python (the cyclic collector paused, as in :meth:`MCTSPlayer.think`).
        On the clock no simulation starts that the slowest one of this move
        would not finish in time (a slow reasoner takes a good part of a
        second); before the first, the last move's mean simulation stands in
        for it (halved after a move that made none), so that one slow outlier
        does not stop the searches of later moves; a simulation stopped on
        its way by the clock (dropped), or by the reasoner at its deadline
        (:class:`ggp.Interrupted`), ends the thinking."""
        hypotheses = self.belief.hypotheses
        self.cumulative = array("d", itertools.accumulate(h.weight for h in hypotheses))
        if self.search is not None:
            self.search.believe(
                [h.state for h in hypotheses],
                [k for h in hypotheses for k in h.keys],
                self.cumulative,
            )
            self.last_simulations = self.search.run(-1 if budget is None else budget, until)
            return
        done, slowest, spent = 0, self.typical, 0.0
        self.playouts.until = until if budget is None else math.inf
        with collector_paused():
            while done < budget if budget is not None else time.monotonic() + slowest < until:
                started = time.monotonic()
                try:
                    if not self.simulate(self.sample()):
                        break  # out of time on the way: dropped
                except Interrupted:  # the reasoner gave up a question at the deadline
                    break
                took = time.monotonic() - started
                spent += took
                slowest = took if done == 0 else max(slowest, took)
                done += 1
            self.typical = spent / done if done else self.typical / 2
        self.last_simulations = done

    def sample(self):
        """A history drawn from the belief by weight, with the search's random
        numbers (:class:`players._sampling.Draws`: the C search's stream)."""
        hypotheses = self.belief.hypotheses
        if len(hypotheses) == 1:
            return hypotheses[0]
        return hypotheses[self.draws.sample(self.cumulative)]

    def in_c(self) -> bool:
        """Whether the search runs in C: on the compiled reasoner, unless
        ``engine=python``."""
        return self.steps.compiled and self.engine == "c"

    def rewards(self, goals) -> list:
        from_goal = self.unit.from_goal
        return [from_goal(g) for g in goals]

    def playout(self, state) -> list | None:
        """The rewards of a playout from ``state``; None when it stopped at
        the clock (:class:`players.perfect.searches.ReferenceSearch`: on a slow reasoner
        one playout can outlast a play clock), and the simulation is dropped."""
        goals, _ = self.playouts.playout(state, [], [])
        return None if goals is None else self.rewards(goals)

    # --- what each player defines ---------------------------------------------------
    def new_search(self):
        raise NotImplementedError

    def simulate(self, hypothesis) -> bool:
        """One simulation from ``hypothesis``, backed up; False when it was
        dropped, out of time on its way down (the playouts' search's
        ``in_time``: always on a budget) or in its :meth:`playout`."""
        raise NotImplementedError

    def choose(self, legal_ids):
        """The move to play among ``legal_ids``, or None when the player's
        node is not in the search tree."""
        raise NotImplementedError


@register
class ISMCTSPlayer(InformationSetPlayer):
    """Single-observer IS-MCTS with availability counts (Cowling, Powley and Whitehouse 2012)."""

    name = "ismcts"
    params = extend(
        InformationSetPlayer.params,
        Param(
            "select",
            str,
            "uct",
            "the selection at a node: UCB with availability counts, "
            "or regret matching mixed with gamma of uniform (RM, as in Šustr, Kovařík "
            "and Lisý's Monte Carlo Continual Resolving slides)",
            choices=("uct", "rm"),
        ),
        Param("gamma", float, 0.2, "rm: the share of uniform exploration", low=0, high=1),
    )

    def __init__(self, **values):
        super().__init__(**values)
        # the parameter's attribute would hide the Player.select method
        self.selection = self.__dict__.pop("select")

    def new_search(self):
        from players.imperfect._ismcts import Search

        self.tree = None
        if self.in_c():
            sees = self.steps.sees[self.me] if self.steps.imperfect else None
            self.search = Search(
                self.steps.kernel,
                self.playouts.policy,
                self.me,
                self.chance,
                sees,
                rm=self.selection == "rm",
                c=self.explore,
                gamma=self.gamma,
                scale=self.unit.scale,
                offset=self.unit.offset,
                seed=self.draw_seed,
            )
            return
        # own information-state key -> per role: move ->
        # [visits, availability, reward sum, regret, mean-strategy weight]
        self.tree: dict[int, list] = {}

    def simulate(self, hypothesis):
        steps, me, draws, c = self.steps, self.me, self.draws, self.explore
        state, key = hypothesis.state, hypothesis.keys[me]
        path, added, rewards = [], False, None
        while rewards is None:
            if not self.playouts.in_time():  # a step down could end past the clock
                return False
            legal = steps.legal(state)
            if legal is None:
                rewards = self.rewards(steps.goals(state))
                break
            node = self.tree.get(key)
            if node is None:
                if added:
                    rewards = self.playout(state)
                    if rewards is None:
                        return False
                    break
                node = self.tree[key] = [{} for _ in legal]
                added = True
            joint, mixes = [], []
            for r, moves in enumerate(legal):
                if len(moves) == 1 or self.chance[r]:
                    joint.append(moves[draws.below(len(moves))])
                    mixes.append(None)
                elif self.selection == "rm":
                    mix = _regret_matching(node[r], moves, self.gamma)
                    joint.append(moves[draws.pick(array("d", mix))])
                    mixes.append((moves, mix))
                else:
                    joint.append(_ucb_available(node[r], moves, c, draws))
                    mixes.append(None)
            path.append((node, joint, mixes))
            state, seen = steps.next_seen(state, joint)
            key = extend_key(key, joint[me], seen[me])
        for node, joint, mixes in path:
            for r, m in enumerate(joint):
                stats = node[r].get(m)
                if stats is not None:
                    stats[0] += 1
                    stats[2] += rewards[r]
                if mixes[r] is not None:
                    _regret_update(node[r], m, *mixes[r], rewards[r])
        return True

    def statistics(self, key: int, role: int, moves) -> list | None:
        """Per move of ``moves``: (visits, availability, reward sum, regret,
        mean-strategy weight) at the node of ``key``; None when the node or one
        of the moves is not in the tree."""
        if self.search is not None:
            return self.search.stats(key, role, moves)
        node = self.tree.get(key)
        if node is None or any(m not in node[role] for m in moves):
            return None
        return [tuple(node[role][m]) for m in moves]

    def choose(self, legal_ids):
        stats = self.statistics(self.belief.key, self.me, legal_ids)
        if stats is None:
            return None
        if self.final == "sample":
            weight = 4 if self.selection == "rm" else 0  # mean strategy, else visits
            return self.drawn(legal_ids, [s[weight] + 1e-12 for s in stats])
        visits = [s[0] for s in stats]
        return legal_ids[visits.index(max(visits))]


def _regret_matching(stats: dict, moves, gamma: float) -> list:
    """The sampling distribution at a node for regret matching (Lisy, Kovarik,
    Lanctot and Bosansky, "Convergence of Monte Carlo Tree Search in
    Simultaneous Move Games", NIPS 2013): ``(1 - gamma)`` of the positive
    regrets normalized (uniform when none is positive) plus ``gamma``
    uniform; every move counts as available."""
    positive = [max(s[3], 0.0) for s in _available(stats, moves)]
    total, k = 0.0, len(moves)
    for p in positive:  # summed in order, as the C search sums them
        total += p
    return [(1 - gamma) * (p / total if total > 0 else 1 / k) + gamma / k for p in positive]


def _available(stats: dict, moves) -> list:
    """The statistics of ``moves`` at a node (created empty where missing), each
    counted once more as available."""
    found = []
    for m in moves:
        s = stats.get(m)
        if s is None:
            s = stats[m] = [0, 0, 0.0, 0.0, 0.0]
        s[1] += 1
        found.append(s)
    return found


def _regret_update(stats: dict, played, moves, mix, reward: float):
    """After a simulation worth ``reward`` that played ``played`` drawn from
    ``mix``: the importance-weighted regrets ``x / mix(a) [a played] - x`` and
    the mean strategy's weights (the same paper)."""
    for m, p in zip(moves, mix):
        s = stats[m]
        s[3] += (reward / p if m == played else 0.0) - reward
        s[4] += p


def _ucb_available(stats: dict, moves, c: float, draws):
    """UCB with availability counts: count every move as available, then an
    untried one (at random) or the best ``Q + c sqrt(ln A / N)``."""
    untried = [m for m, s in zip(moves, _available(stats, moves)) if s[0] == 0]
    if untried:
        return untried[draws.below(len(untried))]
    best, best_value = moves[0], -math.inf
    for m in moves:
        n, available, total = stats[m][:3]
        value = total / n + c * math.sqrt(math.log(available) / n)
        if value > best_value:
            best, best_value = m, value
    return best


@register
class SmoothUCTPlayer(InformationSetPlayer):
    """Extensive-form MCTS with Smooth UCB (Heinrich's Algorithms 1 and 3)."""

    name = "smooth-uct"
    rule = "smooth"

    params = extend(
        InformationSetPlayer.params,
        Param(
            "final",
            str,
            "sample",
            "the move played: most visited, or drawn from the average policy",
            choices=("visits", "sample"),
        ),
        Param("gamma", float, 0.1, "least chance of the UCB move (eq. 3.1)", low=0, high=1),
        Param("eta0", float, 0.9, "eta's start (eq. 3.1)", low=0, high=1),
        Param("d", float, 0.001, "eta's decay with the visits (eq. 3.1)", low=0),
    )

    def new_search(self):
        from players.imperfect._infotree import InfoTrees, SampledSearch

        self.trees = InfoTrees(
            len(self.sm.roles),
            select=self.rule,
            c=self.explore,
            gamma=self.gamma,
            eta0=self.eta0,
            d=self.d,
            seed=self.rng.getrandbits(63),
        )
        if self.in_c():
            sees = self.steps.sees if self.steps.imperfect else None
            self.search = SampledSearch(
                self.trees,
                self.steps.kernel,
                self.playouts.policy,
                self.chance,
                sees,
                scale=self.unit.scale,
                offset=self.unit.offset,
                seed=self.draw_seed,
            )

    def simulate(self, hypothesis):
        steps, trees, draws, chance = self.steps, self.trees, self.draws, self.chance
        state, keys = hypothesis.state, list(hypothesis.keys)
        out = [False] * len(keys)
        path = []
        while True:
            if not self.playouts.in_time():  # a step down could end past the clock
                return False
            legal = steps.legal(state)
            if legal is None:
                rewards = self.rewards(steps.goals(state))
                break
            if all(out[r] or chance[r] for r in range(len(out))):
                rewards = self.playout(state)
                if rewards is None:
                    return False
                break
            joint = []
            for r, moves in enumerate(legal):
                if len(moves) == 1 or chance[r] or out[r]:
                    joint.append(moves[draws.below(len(moves))])
                    continue
                key = decision_key(keys[r], moves)
                node = trees.find(r, key)
                if node < 0:  # EXPANDTREE, then roll out
                    node = trees.node(r, key, len(moves))
                    a = draws.below(len(moves))
                    out[r] = True
                else:
                    a = trees.select(node)
                path.append((node, a, r))
                joint.append(moves[a])
            state, seen = steps.next_seen(state, joint)
            for r in range(len(keys)):
                if not (out[r] or chance[r]):
                    keys[r] = extend_key(keys[r], joint[r], seen[r])
        for node, a, r in path:
            trees.update(node, a, rewards[r])
        return True

    def choose(self, legal_ids):
        node = self.trees.find(self.me, decision_key(self.belief.key, legal_ids))
        if node < 0:
            return None
        if self.final == "sample":
            return self.drawn(legal_ids, self.trees.average(node))
        counts = self.trees.counts(node)
        return legal_ids[counts.index(max(counts))]


@register
class EFGUCTPlayer(SmoothUCTPlayer):
    """Extensive-form UCT (Heinrich's Algorithms 1 and 2): Smooth UCT with eta = 1."""

    name = "efg-uct"
    rule = "ucb"

    params = InformationSetPlayer.params
    gamma, eta0, d = 1.0, 1.0, 0.0  # eta = 1: always the UCB move
