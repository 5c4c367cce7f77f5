"""Monte Carlo CFR over a tree grown by sampling through the state machine:
what the solving players (:mod:`players.imperfect.online`) run on a game whose whole
extensive form is too large to build (IIGS-13, phantom tic-tac-toe), as
the implementations of Šustr, Kovařík and Lisý ("Monte Carlo Continual
Resolving", slides) do (nodes are made when first sampled).

The tree is a table per role from the role's information-state key (a hash
of its own moves and percepts, :mod:`players.belief`) to the moves there,
their cumulative regrets and their average-strategy weights.  A traversal is
one history sampled from the initial state by :class:`players.belief.Steps`
(a kernel call a step); simultaneous moves are sampled independently, each
role's node being its information state before the step.  The estimators are
outcome sampling's (Lanctot, Waugh, Zinkevich and Bowling, NIPS 2009; the
MCCR slides 28-31), as in :mod:`ggp.solvers._mccfr`: epsilon-on-policy sampling at
the updated player's nodes, ``sigma`` elsewhere and uniform for the
``random`` role; the sampled regret of move a at the updated player's node h
on the sampled terminal history z is ``W (pi_i(z | ha) - pi_i(z | h))`` (the
second term alone for the moves not taken), with ``W = u_i(z) pi_-i(z) /
q(z)``; the average strategy is stochastically weighted, ``acc(I, a) +=
pi_i(h) sigma(I, a) / q(h)``.

Three ways to start a traversal, for the three players:

- from the initial state (``mccfr``);
- *targeted* (``oos``, Lisy, Lanctot and Bowling, AAMAS 2015): with
  probability ``delta`` the traversal first replays a history drawn from the
  player's belief (the histories consistent with its information state,
  weighted as the belief weighs them), and every sampling probability is the
  mixture ``q(h) = delta q_target(h) + (1 - delta) q(h)`` that keeps the
  estimates unbiased, ``q_target`` of a history above the target being the
  weight of the target histories below it;
- from a *resolving gadget* (``mccr``'s sampled information-state resolving,
  after the MCCR slides 37-40 but not Šustr, Kovařík and Lisý's MCCR; the
  gadget of Burch, Johanson and Bowling, AAAI 2014): chance picks one of the belief's
  histories h in proportion to its chance reach (the resolving player's own
  reach is the same at all of them), the opponent chooses in its augmented
  information state J(h) to *follow* or to *terminate* for its value per unit
  of reach ``v(J) / w(J)`` kept from the previous resolve.  Those values are
  estimated during a resolve, at every opponent information state met below
  the gadget, as the mean over the traversals of the sampled counterfactual
  value ``pi_-o(h) pi(h, z) u_o(z) / q(z)`` and of the reach ``pi_-o(h) /
  q(h)`` (the average of the iterations' values, as DeepStack keeps them).

Without public states (they need the whole tree), the gadget's histories are
those of the player's information state, and ``oos`` targets its
information state.  Where this resolving departs from the paper's MCCR: the
gadget covers the information state, not the public state (the opponent's
kept value of J covers histories outside it); it resolves at every decision
of the player, not once per public state; the values are averaged over every
iteration of a resolve (no warm-up) and are estimated only at the opponent
information states its traversals met (where none of the gadget's histories
has one, the player does not resolve, :class:`players.imperfect.online.MCCRPlayer`);
and the tree is grown by sampling.  It carries no safety guarantee.
"""

from __future__ import annotations

import random
import time
from array import array

from players.belief import ROOT_KEY, extend_key


class Table:
    """A role's information states in the sampled tree, in flat arrays that
    the garbage collector does not scan (a million nodes as objects made its
    full collections take up to 0.7 s on stratego, past a 1 s play clock):
    ``index`` maps a key to the offset of the node's first move; from there
    ``moves`` holds its moves (numbers), ``regret`` their cumulative regrets
    and ``cumulative`` their average-strategy weights; ``width[offset]`` is
    the number of moves."""

    def __init__(self):
        self.index: dict = {}
        self.moves, self.width = array("q"), array("q")
        self.regret, self.cumulative = array("d"), array("d")

    def __len__(self) -> int:
        return len(self.index)

    def node(self, key, moves) -> int:
        """The offset of ``key``'s node, made with ``moves`` if it is new."""
        at = self.index.get(key)
        if at is None:
            at = self.index[key] = len(self.moves)
            n = len(moves)
            self.moves.extend(moves)
            self.width.extend([n] * n)
            self.regret.extend([0.0] * n)
            self.cumulative.extend([0.0] * n)
        return at

    def current(self, at: int) -> list:
        """Regret matching at the node at ``at``: the positive regrets
        normalized, else uniform."""
        n = self.width[at]
        positive = [r if r > 0 else 0.0 for r in self.regret[at : at + n]]
        total = sum(positive)
        if total > 0:
            return [p / total for p in positive]
        return [1.0 / n] * n

    def average(self, at: int) -> list:
        n = self.width[at]
        weights = self.cumulative[at : at + n]
        total = sum(weights)
        if total > 0:
            return [c / total for c in weights]
        return [1.0 / n] * n


class Target:
    """OOS's target: histories (paths of joint moves from the initial state,
    all of one length) with weights summing to 1, and the weight of every
    prefix of them."""

    def __init__(self, paths, weights, delta: float):
        total = float(sum(weights))
        self.paths = [tuple(p) for p in paths]
        self.weights = [w / total for w in weights]
        self.delta, self.depth = delta, len(self.paths[0])
        self.mass: dict = {}
        for path, w in zip(self.paths, self.weights):
            prefix = 0
            self.mass[prefix] = self.mass.get(prefix, 0.0) + w
            for joint in path:
                prefix = hash((prefix, joint))
                self.mass[prefix] = self.mass.get(prefix, 0.0) + w


class Gadget:
    """MCCR's resolving gadget (module docstring): ``tops`` (state, keys per
    role) with chance weights, the opponent ``opponent`` (role number), its
    kept values per unit of reach by key and the constant sum ``total``."""

    def __init__(self, tops, weights, opponent: int, values: dict, total: float):
        norm = float(sum(weights))
        self.tops, self.probs = tops, [w / norm for w in weights]
        self.opponent, self.values, self.total = opponent, values, total


class SampledMCCFR:
    """Outcome-sampling MCCFR over the sampled tree of ``steps``' game
    (module docstring).  ``reward(goals)`` converts a terminal's goals to
    utilities per role; ``players`` are the numbers of the roles that decide
    (the others are chance: the ``random`` role)."""

    def __init__(self, steps, reward, epsilon: float = 0.6, seed: int = 0):
        self.steps, self.reward, self.epsilon = steps, reward, epsilon
        self.players = deciders(steps.roles)
        self.rng = random.Random(seed)
        self.root = steps.sm.initial_state()
        self.clear()
        self.target: Target | None = None
        self.gadget: Gadget | None = None
        self._gadget_nodes = Table()
        self.tracked: int | None = None  # the role whose values are estimated
        self.values: dict = {}  # its key -> [value sum, reach sum]

    def reseed(self, seed: int):
        self.rng.seed(seed)

    def clear(self):
        """Forget every node's regrets and average-strategy weights."""
        self.tables = [Table() for _ in self.steps.roles]

    def resolving(self, gadget: Gadget | None):
        """Start traversals at ``gadget`` (fresh follow/terminate nodes, and
        fresh tracked values)."""
        self.gadget, self._gadget_nodes, self.values = gadget, Table(), {}

    def run(self, iterations: int, until: float | None = None):
        """``iterations`` iterations, each a traversal per player in turn; with
        ``until`` (a ``time.monotonic()`` time), stop when it passes, dropping
        the traversal under way (one can take a second on a long game)."""
        for _ in range(iterations):
            for i in self.players:
                if not self._traverse(i, until):
                    return self
        return self

    def policy(self, role: int, key):
        """(moves, average strategy) at ``role``'s information state ``key``,
        or None when it was never sampled."""
        table = self.tables[role]
        at = table.index.get(key)
        if at is None:
            return None
        return tuple(table.moves[at : at + table.width[at]]), table.average(at)

    def kept_values(self) -> dict:
        """The tracked role's value per unit of reach by key (module docstring)."""
        return {k: v / w for k, (v, w) in self.values.items() if w > 0}

    # --- one traversal --------------------------------------------------------------
    def _traverse(self, i: int, until: float | None = None) -> bool:
        """Sample a terminal history for updated role ``i``; update its regrets
        and average strategy (and the tracked values).  False, and no update,
        when ``until`` passed before the history ended."""
        rng, steps = self.rng, self.steps
        # records: (role (-1: chance), table and offset of the node, move
        # index, sigma, sigma of the move, its sampling probability), with the
        # step of each; keys_at:
        # every role's key at every step boundary; prefixes: the path's hashes
        records, step_of, keys_at, prefixes = [], [], [], [0]
        state, keys, u, forced, first = self.root, (ROOT_KEY,) * len(steps.roles), None, (), 0
        gadget = self.gadget
        if gadget is not None:
            first = 1
            top = rng.choices(range(len(gadget.tops)), weights=gadget.probs)[0]
            records.append((-1, None, 0, 0, None, gadget.probs[top], gadget.probs[top]))
            step_of.append(0)
            state, keys = gadget.tops[top]
            o = gadget.opponent
            value = gadget.values.get(keys[o])
            if value is not None:
                table = self._gadget_nodes
                k = self._record(records, table, table.node(keys[o], (0, 1)), o, i)
                step_of.append(0)
                if k == 1:
                    u = [0.0] * len(keys)
                    u[o], u[self._other(o)] = value, gadget.total - value
        elif self.target is not None and rng.random() < self.target.delta:
            forced = rng.choices(self.target.paths, weights=self.target.weights)[0]
        t = first
        while u is None:
            if until is not None and time.monotonic() > until:
                return False
            legal = steps.legal(state)
            if legal is None:
                u = self.reward(steps.goals(state))
                break
            keys_at.append(keys)
            chosen = []
            for r, moves in enumerate(legal):
                if len(moves) == 1:
                    chosen.append(moves[0])
                    continue
                choice = moves.index(forced[t][r]) if t < len(forced) else None
                if r in self.players:
                    table = self.tables[r]
                    k = self._record(records, table, table.node(keys[r], moves), r, i, choice)
                else:
                    k = rng.randrange(len(moves)) if choice is None else choice
                    p = 1.0 / len(moves)
                    records.append((-1, None, 0, k, None, p, p))
                step_of.append(t)
                chosen.append(moves[k])
            joint = tuple(chosen)
            prefixes.append(hash((prefixes[-1], joint)))
            state, seen = steps.next_seen(state, joint)
            keys = tuple(extend_key(k, joint[r], seen[r]) for r, k in enumerate(keys))
            t += 1
        self._update(i, records, step_of, keys_at, prefixes, first=first, end=t, u=u)
        return True

    def _record(self, records, table, at, r, i, choice=None) -> int:
        """Sample (or take ``choice``, on a targeted replay) role ``r``'s move
        at the node at ``at`` in ``table``, epsilon-on-policy when ``r`` is the
        updated role ``i``; append the record; return the move's index."""
        sigma = table.current(at)
        if r == i:
            eps = self.epsilon
            sample = [eps / len(sigma) + (1 - eps) * s for s in sigma]
        else:
            sample = sigma
        k = self.rng.choices(range(len(sigma)), weights=sample)[0] if choice is None else choice
        records.append((r, table, at, k, sigma, sigma[k], sample[k]))
        return k

    def _other(self, o: int) -> int:
        return next(r for r in self.players if r != o)

    def _update(self, i, records, step_of, keys_at, prefixes, first, end, u):
        """The backward pass over one traversal (module docstring)."""
        # the untargeted q and every role's reach at each step boundary t
        # (before the records of step t); chance is role -1
        roles = (-1, *self.players)
        depth = self.target.depth if self.target is not None else end + 1
        q_plain, q_below, reach = [], [], {r: [] for r in roles}
        running, plain, below, at = dict.fromkeys(roles, 1.0), 1.0, 1.0, 0
        for t in range(end + 1):
            while at < len(records) and step_of[at] < t:
                role, _, _, _, _, sigma_k, sample_k = records[at]
                plain *= sample_k
                below *= sample_k if step_of[at] >= depth else 1.0
                running[role] *= sigma_k
                at += 1
            q_plain.append(plain)
            q_below.append(below)
            for r in roles:
                reach[r].append(running[r])
        q = self._mixture(q_plain, q_below, prefixes, end)
        others_z = 1.0
        for r in roles:
            if r != i:
                others_z *= reach[r][end]
        w = u[i] * others_z / q[end]
        tail = 1.0  # pi_i(z | h after i's move)
        for n in range(len(records) - 1, -1, -1):
            role, table, node, k, sigma, sigma_k, _ = records[n]
            if role != i:
                continue
            through = sigma_k * tail  # pi_i(z | h)
            regret, cumulative = table.regret, table.cumulative
            weight = reach[i][step_of[n]] / q[step_of[n]]
            for a in range(len(sigma)):
                regret[node + a] += w * ((tail if a == k else 0.0) - through)
                cumulative[node + a] += weight * sigma[a]
            tail = through
        if self.tracked is not None:
            after = [1.0] * (end + 1)  # pi(h, z) from each step boundary
            for n in range(len(records) - 1, -1, -1):
                after[step_of[n]] *= records[n][5]
            for t in range(end - 1, -1, -1):
                after[t] *= after[t + 1]
            self._track(keys_at, reach, after, q, first, end, u)

    def _mixture(self, q_plain, q_below, prefixes, end) -> list:
        """The sampling probability at every step boundary: ``q_plain``, or
        with a target the mixture of the module docstring (``q_below``: the
        plain sampling probability of the steps below the target's depth)."""
        target = self.target
        if target is None or self.gadget is not None:
            return q_plain
        depth, mass, delta = target.depth, target.mass, target.delta
        below = mass.get(prefixes[depth], 0.0) if end >= depth else 0.0
        q = []
        for t in range(end + 1):
            if t <= depth:
                q_target = mass.get(prefixes[t], 0.0)
            else:
                q_target = below * q_below[t]
            q.append(delta * q_target + (1 - delta) * q_plain[t])
        return q

    def _track(self, keys_at, reach, after, q, first, end, u):
        """Accumulate the tracked role's sampled counterfactual values and
        reaches at its keys below the gadget's top (module docstring)."""
        o = self.tracked
        for t in range(first + 1, end):
            others = 1.0
            for r in reach:
                if r != o:
                    others *= reach[r][t]
            entry = self.values.setdefault(keys_at[t - first][o], [0.0, 0.0])
            entry[0] += others * after[t] * u[o] / q[end]
            entry[1] += others / q[t]


def deciders(roles) -> tuple:
    """The numbers of the roles that decide: all but the ``random`` role."""
    from ggp.solvers.efg import CHANCE_ROLE

    return tuple(r for r, role in enumerate(roles) if role != CHANCE_ROLE)


def constant_sum(game, reasoner: str, rng, playouts: int = 32):
    """The sum of the players' utilities (the ``random`` role excluded) when
    it is the same at the ends of ``playouts`` random playouts, else None: a
    check of constant sum for a game too large to enumerate."""
    from ggp.solvers.efg import utility_unit
    from players.belief import Steps

    sm, unit = game.state_machine(reasoner), utility_unit(game)
    steps, players = Steps(sm, game.is_gdl2), deciders(sm.roles)
    sums = set()
    for _ in range(playouts):
        final, _ = sm.random_playout(sm.initial_state(), rng)
        goals = steps.goals(final)
        sums.add(round(sum(unit.from_goal(goals[r]) for r in players), 9))
    return sums.pop() if len(sums) == 1 else None


def chance_reaches(steps, players, hypotheses) -> list:
    """The probability of the ``random`` role's moves on each hypothesis's
    path, each shared ancestor's legal moves asked once (a belief of 4,096
    histories of stratego shares most of its 50-step paths)."""
    memo: dict = {}

    def reach(h) -> float:
        chain = []
        while h.parent is not None and id(h) not in memo:
            chain.append(h)
            h = h.parent
        value = memo.get(id(h), 1.0)
        for h in reversed(chain):
            for r, moves in enumerate(steps.legal(h.parent.state)):
                if r not in players and len(moves) > 1:
                    value /= len(moves)
            memo[id(h)] = value
        return value

    return [reach(h) for h in hypotheses]
