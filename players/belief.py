"""What a role knows in a game of imperfect information: the histories
consistent with everything it was told, tracked step by step.

A *hypothesis* is one such history, kept as its current state, every role's
information-state key (a hash of that role's own moves and percepts so far,
so a search can look up any role's information state in the sampled world)
and its parent hypothesis.  The prior over histories is uniform: the
``random`` role and the other players choose among their legal moves with
equal probability.

A history is consistent with a step the role observed (:class:`Observed`)
when the role's own move in it is the move it was told it played, when the
role's percepts in it are the ones it got, and, when the role is then asked
to move, when the game is not over and the role's legal moves are the ones it
was offered (when it is told them: a local seat passes them, the GGP
protocol does not).  Everything the role is told is used.

Two modes, as the number of consistent histories allows:

- *exact* while there are at most ``limit`` of them: every consistent
  successor of every hypothesis is kept, weighted by its prior probability,
  so that :meth:`Belief.sample` draws from the exact posterior of the uniform
  prior;
- *particles* past that: ``particles`` hypotheses updated by sequential
  importance resampling (Gordon, Salmond and Smith, "Novel approach to
  nonlinear/non-Gaussian Bayesian state estimation", IEE Proceedings F
  140(2), 1993) with the optimal proposal of Doucet, Godsill and Andrieu ("On
  sequential Monte Carlo sampling methods for Bayesian filtering", Statistics
  and Computing 10(3), 2000): a particle's successors are drawn uniformly
  among its consistent ones, which is the prior restricted to what was
  observed, and the particle is weighted by the probability of the
  observation given it, p(y | x) = the share of the other roles' joint moves
  that are consistent (estimated on a random sample of them when there are
  more than 4,096, or when the clock stops the count).  Particles are
  resampled in proportion to these weights before they are moved on (the
  order of Pitt and Shephard's fully adapted filter), so the particles sample
  the posterior that the exact mode computes, and particles left with no
  consistent successor drop out.

When no particle has a consistent successor, the particles are repaired by
backtracking: a randomized depth-first replay of the record from a dead
particle, then its parent, its grandparent and so on up to the initial
state, within a budget of steps, as HyperPlay does (Schofield, Cerexhe and
Thielscher, "HyperPlay: A Solution to General Game Playing with Imperfect
Information", AAAI 2012).  Repaired particles are equally weighted: they are
HyperPlay's models, consistent with the record but not a sample of the
posterior; the next steps weigh them again.

If no history is found (the budget or the clock ran out, or no history at
all explains what the role saw), the belief is *lost*: it says so in the log,
once, and keeps *stand-ins*, its last hypotheses moved on blindly (the role's
own move when legal there, random moves of the others, a successor that fits
the role's legal moves), from which the role can still play; meanwhile the
backtracking search goes on, resumed where it stopped, at every later step
within that step's budget, until it finds a history consistent with the
whole record, from which the particles are rebuilt.

In a GDL-I game every role sees the whole joint move, and the belief is the
one exact state.

:class:`Steps` answers the questions in the reasoner's own numbering: the
compiled reasoner's move numbers and percept (``sees`` node) numbers, so a
step of the search costs one kernel call.
"""

from __future__ import annotations

import bisect
import itertools
import logging
import math
import time
import warnings
from collections.abc import Iterator
from typing import NamedTuple

from ggp.reasoners import COMPILED
from ggp.statemachine import RuleError
from players._sampling import extend_key

log = logging.getLogger("players.belief")

#: The information-state key before the first move.
ROOT_KEY = 0x5EED
#: Joint moves tried from one hypothesis at most (in random order; sampled
#: with replacement when there are more).
MAX_JOINTS = 4096


class Steps:
    """One game step at a time, in move and percept numbers.

    ``legal(state)``: None when terminal, else per role its legal moves;
    ``goals(state)``: per role its goal (0 when it has none);
    ``next_seen(state, joint)``: the next state and, per role, the sorted
    tuple of what it sees (in a GDL-I game, the whole joint move).
    """

    def __init__(self, sm, imperfect: bool):
        self.sm, self.imperfect = sm, imperfect
        self.roles = tuple(sm.roles)
        self._warned = False
        self.compiled = getattr(sm, "name", "") == COMPILED
        if self.compiled:
            self.kernel = sm.kernel
            self._moves = sm.move_terms
            self._move_index = sm.move_numbers
            #: per role, its ``sees`` node numbers in order
            self.sees = [sorted(node for node, _ in seen) for seen in sm.percept_nodes]
            self._seen_index = [{p: node for node, p in seen} for seen in sm.percept_nodes]

    # --- numbering ----------------------------------------------------------------
    def move_id(self, r: int, move):
        return self._move_index[r][move] if self.compiled else move

    def move(self, r: int, m):
        return self._moves[m] if self.compiled else m

    def seen_ids(self, r: int, percepts) -> tuple:
        """The numbers of the terms a role saw (-1 for a term it can never see)."""
        if not self.compiled:
            return tuple(sorted(percepts, key=repr))
        index = self._seen_index[r]
        return tuple(sorted(index.get(p, -1) for p in percepts))

    # --- the game -----------------------------------------------------------------
    def legal(self, state):
        if self.compiled:
            kernel = self.kernel
            kernel.load(state)
            if kernel.terminal():
                return None
            return [kernel.legal(r) for r in range(len(self.roles))]
        if self.sm.is_terminal(state):
            return None
        return [list(m) for m in self.sm.all_legal_moves(state)]

    def goals(self, state) -> tuple:
        """Per role its goal; a role without exactly one goal value (the
        game's fault, which the manager reports) counts 0 here, as it does in
        the compiled kernel when it has none, with one warning."""
        if self.compiled:
            self.kernel.load(state)
            return tuple(max(self.kernel.goals(r), default=0) for r in range(len(self.roles)))
        goals = []
        for role in self.roles:
            try:
                goals.append(self.sm.goal(state, role))
            except RuleError as exc:
                if not self._warned:
                    self._warned = True
                    warnings.warn(f"{exc}; the search counts it 0", RuntimeWarning, stacklevel=2)
                goals.append(0)
        return tuple(goals)

    def next_seen(self, state, joint) -> tuple:
        joint = tuple(joint)
        if not self.imperfect:
            seen = (joint,) * len(self.roles)
            nxt = (
                self.kernel.next_state(state, joint)
                if self.compiled
                else self.sm.next_state(state, joint)
            )
            return nxt, seen
        if self.compiled:
            kernel = self.kernel
            nxt = kernel.next_state(state, joint)
            return nxt, kernel.true_nodes(self.sees)
        sm = self.sm
        seen = tuple(tuple(sorted(sm.percepts(state, joint, r), key=repr)) for r in self.roles)
        return sm.next_state(state, joint), seen


class Observed(NamedTuple):
    """What the role was told at one step: its own move as executed and its
    percepts (numbers); whether it was then asked to move (the game is not
    over), and its legal moves then when it was told them (a frozenset of
    move numbers, else None)."""

    own: object
    seen: tuple
    to_move: bool = True
    legal: frozenset | None = None


class Hypothesis:
    """A history consistent with what the role saw: its state, every role's
    information-state key, its parent, the joint move from the parent (move
    numbers; None at the root) and its weight (prior probability in the exact
    mode, importance weight as a particle)."""

    __slots__ = ("state", "keys", "parent", "joint", "weight")

    def __init__(self, state, keys: tuple, parent=None, weight: float = 1.0, joint=None):
        self.state, self.keys, self.parent, self.weight = state, keys, parent, weight
        self.joint = joint

    def path(self) -> list:
        """The joint moves from the initial state to this history."""
        joints, h = [], self
        while h.parent is not None:
            joints.append(h.joint)
            h = h.parent
        return joints[::-1]

    def child(self, joint, state, seen: tuple, weight: float) -> Hypothesis:
        """The successor by ``joint``: its ``state``, every role's key extended
        by its move and what it saw (``seen``, per role), and ``weight``."""
        keys = tuple(extend_key(k, joint[r], seen[r]) for r, k in enumerate(self.keys))
        return Hypothesis(state, keys, self, weight, tuple(joint))


class Belief:
    """The hypotheses of role number ``me`` (see the module docstring).

    ``repair_steps`` is the budget of the backtracking search at one step
    (all repairs of that step together, or the search of a lost belief).
    ``consistent`` is False while the belief is lost."""

    def __init__(
        self,
        steps: Steps,
        me: int,
        rng,
        limit: int = 4096,
        particles: int = 64,
        repair_steps: int = 50000,
    ):
        self.steps, self.me, self.rng = steps, me, rng
        self.limit, self.particles, self.repair_steps = limit, particles, repair_steps
        root = Hypothesis(steps.sm.initial_state(), (ROOT_KEY,) * len(steps.roles))
        self.hypotheses = [root]
        self.exact = True
        self.record: list[Observed] = []
        self.key = ROOT_KEY  # the role's own information-state key
        self.consistent = True
        self._search: _Backtrack | None = None  # while lost: the search going on

    # --- questions ----------------------------------------------------------------
    def sample(self) -> Hypothesis:
        """A hypothesis drawn from the belief by weight."""
        hs = self.hypotheses
        if len(hs) == 1:
            return hs[0]
        return self.rng.choices(hs, weights=[h.weight for h in hs])[0]

    def legal(self, deadline: float = math.inf) -> list:
        """The role's moves legal in the most hypotheses, in the reasoner's
        order: in all of them when the belief is consistent and the game
        well-formed (a role's legal moves depend only on what it knows).
        Past ``deadline`` the hypotheses not yet asked are left out (the
        first is always asked): on a slow reasoner each costs a question."""
        counts: dict = {}
        for i, h in enumerate(self.hypotheses):
            if i and time.monotonic() > deadline:
                break
            legal = self.steps.legal(h.state)
            for m in legal[self.me] if legal is not None else ():
                counts[m] = counts.get(m, 0) + 1
        most = max(counts.values(), default=0)
        return [m for m, n in counts.items() if n == most]

    # --- observations ---------------------------------------------------------------
    def observe_joint(self, joint: tuple):
        """GDL-I: everybody saw the joint move (move numbers)."""
        h = self.hypotheses[0]
        nxt, seen = self.steps.next_seen(h.state, joint)
        self.record.append(Observed(joint[self.me], seen[self.me]))
        self.key = extend_key(self.key, joint[self.me], seen[self.me])
        self.hypotheses = [h.child(joint, nxt, seen, 1.0)]

    def observe(
        self,
        own,
        seen: tuple,
        legal=None,
        to_move: bool = True,
        deadline: float = math.inf,
        hard: float = math.inf,
    ):
        """GDL-II: the role played ``own`` and saw ``seen`` (numbers), and is
        now asked to move (``to_move``) with the legal moves ``legal`` (move
        numbers; None when not told).  Keep the consistent hypotheses, taking
        until ``deadline``, or until ``hard`` while none is found yet.  When
        none is left, the belief is lost (see the module docstring): it warns
        once and goes on with stand-ins, so that the role can still play."""
        self.record.append(
            Observed(own, seen, to_move, None if legal is None else frozenset(legal))
        )
        self.key = extend_key(self.key, own, seen)
        if not self.consistent:
            self._lost_step(deadline)
            return
        previous = self.hypotheses
        if self.exact:
            self._exact_step(deadline, hard)
        else:
            self._particle_step(deadline, hard)
        if not self.hypotheses:
            self.consistent = False
            self._search = self._search or _Backtrack(self, previous[0])
            log.warning(
                "role %r: no history is consistent with what it saw at step %d; "
                "rebuilding its belief on later steps, meanwhile playing moves "
                "legal in its information state",
                self.steps.roles[self.me],
                len(self.record),
            )
            self._stand_ins(
                self.rng.choices(previous, weights=[h.weight for h in previous], k=self.particles),
                deadline,
            )

    def _exact_step(self, deadline, hard):
        out = []
        for h in self.hypotheses:
            for child in self._children(h, len(self.record) - 1, shuffle=False):
                if child is not None:
                    out.append(child)
                if len(out) > self.limit or time.monotonic() > deadline:
                    self._to_particles(deadline, hard)
                    return
        total = sum(h.weight for h in out)
        for h in out:  # normalized, so long games do not underflow
            h.weight /= total
        self.hypotheses = out

    def _to_particles(self, deadline, hard):
        """Leave exact tracking: particles drawn by weight from the previous
        step's hypotheses (the exact posterior), then moved on as particles are."""
        self.exact = False
        hs = self.hypotheses
        drawn = self.rng.choices(hs, weights=[h.weight for h in hs], k=self.particles)
        self.hypotheses = [Hypothesis(h.state, h.keys, h.parent, 1.0, h.joint) for h in drawn]
        self._particle_step(deadline, hard)

    def _particle_step(self, deadline, hard):
        """Sequential importance sampling (module docstring): weigh each
        particle by the share of consistent joint moves from it, resample
        when the weights have degenerated, move each particle on to a
        uniformly random consistent successor.  Past the deadline (once one
        particle has a successor) the particles not yet weighed are dropped;
        the first is looked for until ``hard``.  With none, the particles are
        repaired by backtracking."""
        step = len(self.record) - 1
        weighed, weights = [], []  # per live particle: its consistent successors, weight
        counted: dict = {}  # (state, keys) -> (successors, share), for copies
        for h in self.hypotheses:
            if weighed and time.monotonic() > deadline:
                break
            entry = counted.get((h.state, h.keys))
            if entry is None:
                entry = counted[h.state, h.keys] = self._successors(
                    h, step, deadline if weighed else hard
                )
            successors, share = entry
            if successors:
                weighed.append(successors)
                weights.append(h.weight * share)
        if not weighed:
            self.hypotheses = self._repaired(deadline, hard)
            weights = [1.0] * len(self.hypotheses)
        else:
            total = sum(weights)
            weights = [w / total for w in weights]
            if 1.0 / sum(w * w for w in weights) < self.particles / 2:
                weighed = self._resample(weighed, weights)
                weights = [1.0 / len(weighed)] * len(weighed)
            self.hypotheses = [self.rng.choice(successors) for successors in weighed]
        for h, w in zip(self.hypotheses, weights):
            h.weight = w

    def _resample(self, items: list, weights: list) -> list:
        """``particles`` items drawn in proportion to ``weights`` by
        systematic resampling (Kitagawa, "Monte Carlo filter and smoother for
        non-Gaussian nonlinear state space models", Journal of Computational
        and Graphical Statistics 5(1), 1996): one uniform draw, then evenly
        spaced points on the cumulative weights."""
        cumulative = list(itertools.accumulate(weights))
        u, k, last = self.rng.random(), self.particles, len(items) - 1
        return [
            items[min(bisect.bisect_right(cumulative, (u + j) * cumulative[-1] / k), last)]
            for j in range(k)
        ]

    def _successors(self, h: Hypothesis, step: int, deadline) -> tuple:
        """The consistent successors of ``h`` found by trying its joint moves
        in random order, and their share of the joint moves tried (all of
        them, unless there are too many or the deadline passes)."""
        found, tried = [], 0
        for child in self._children(h, step, shuffle=True):
            tried += 1
            if child is not None:
                found.append(child)
            if time.monotonic() > deadline:
                break
        return found, len(found) / tried if tried else 0.0

    def _repaired(self, deadline, hard) -> list:
        """Particles repaired by backtracking from the dead ones (HyperPlay),
        within one budget of steps; copies of the repaired ones make up the
        number.  When none is repaired, the search of the first is kept to go
        on at the next steps."""
        budget = [self.repair_steps]
        alive: list[Hypothesis] = []
        first = None
        for h in dict.fromkeys(self.hypotheses):
            search = _Backtrack(self, h)
            first = first or search
            found = search.run(budget, deadline if alive else hard)
            if found is not None:
                alive.append(found)
            if budget[0] <= 0 or time.monotonic() > (deadline if alive else hard):
                break
        if not alive:
            self._search = first
            return []
        return alive + [self.rng.choice(alive) for _ in range(self.particles - len(alive))]

    # --- a lost belief --------------------------------------------------------------
    def _lost_step(self, deadline):
        """Move the stand-ins on blindly, and go on searching for a history
        consistent with the whole record; when one is found, the particles
        are rebuilt from it and what the search finds next in the budget."""
        self._stand_ins(self.hypotheses, deadline)
        search, budget = self._search, [self.repair_steps]
        found = []
        while len(found) < self.particles and budget[0] > 0 and time.monotonic() <= deadline:
            h = search.run(budget, deadline)
            if h is None:
                break
            found.append(h)
        if found:
            self.consistent, self.exact, self._search = True, False, None
            found += [self.rng.choice(found) for _ in range(self.particles - len(found))]
            for h in found:
                h.weight = 1.0 / len(found)
            self.hypotheses = found
            log.info(
                "role %r: belief rebuilt at step %d", self.steps.roles[self.me], len(self.record)
            )

    def _stand_ins(self, hypotheses, deadline):
        """The hypotheses moved on blindly (:meth:`_blind_child`); past the
        deadline, once one has moved, the rest are dropped; where none can
        be, they stay where they are, with the role's own key."""
        moved = []
        for h in hypotheses:
            if moved and time.monotonic() > deadline:
                break
            child = self._blind_child(h, deadline)
            if child is not None:
                moved.append(child)
        self.hypotheses = moved or [
            Hypothesis(h.state, self._own_key(h.keys), h.parent, h.weight, h.joint)
            for h in hypotheses
        ]

    def _own_key(self, keys: tuple) -> tuple:
        """``keys`` with the role's own key in its place."""
        return keys[: self.me] + (self.key,) + keys[self.me + 1 :]

    def _blind_child(self, h: Hypothesis, deadline) -> Hypothesis | None:
        """A successor of ``h`` by the role's own last move (any move of its
        own where that is not legal) and random moves of the others, in which
        the role's legal moves are the ones it was told (the percepts are not
        looked at); the role's key is its own."""
        obs = self.record[-1]
        legal = self.steps.legal(h.state)
        if legal is None:
            return None
        options = [
            [obs.own] if r == self.me and obs.own in moves else list(moves)
            for r, moves in enumerate(legal)
        ]
        for joint in self._joints(options, shuffle=True):
            nxt, seens = self.steps.next_seen(h.state, joint)
            if self._fits(nxt, obs):
                child = h.child(joint, nxt, seens, h.weight)
                child.keys = self._own_key(child.keys)
                return child
            if time.monotonic() > deadline:
                break
        return None

    # --- search over histories ------------------------------------------------------
    def _fits(self, state, obs: Observed) -> bool:
        """Whether the role could be asked to move in ``state`` as it was:
        the game not over, and the legal moves it was told."""
        if not obs.to_move:
            return True
        legal = self.steps.legal(state)
        return legal is not None and (obs.legal is None or frozenset(legal[self.me]) == obs.legal)

    def _children(self, h: Hypothesis, step: int, shuffle: bool) -> Iterator[Hypothesis | None]:
        """For each joint move tried from ``h`` (all of them, in random order
        when ``shuffle``), its successor when consistent with observation
        ``step``, else None."""
        obs = self.record[step]
        legal = self.steps.legal(h.state)
        if legal is None or obs.own not in legal[self.me]:
            return
        me = self.me
        options = [[obs.own] if r == me else list(moves) for r, moves in enumerate(legal)]
        weight = h.weight
        for r, moves in enumerate(options):
            if r != me:
                weight /= len(moves)
        for joint in self._joints(options, shuffle):
            nxt, seens = self.steps.next_seen(h.state, joint)
            if seens[me] == obs.seen and self._fits(nxt, obs):
                yield h.child(joint, nxt, seens, weight)
            else:
                yield None

    def _joints(self, options, shuffle):
        if not shuffle:
            yield from itertools.product(*options)
            return
        size = math.prod(len(o) for o in options)
        if size <= MAX_JOINTS:
            joints = list(itertools.product(*options))
            self.rng.shuffle(joints)
            yield from joints
            return
        for _ in range(MAX_JOINTS):  # too many to list: sample with replacement
            yield tuple(self.rng.choice(o) for o in options)


class _Backtrack:
    """HyperPlay's backtracking from a hypothesis ``h`` that has no
    consistent successor: a randomized depth-first replay of the record from
    ``h``, then from its parent, its grandparent and so on up to the initial
    state.  The search keeps its place between calls of :meth:`run`, and the
    record may grow meanwhile: a lost belief resumes it at every step."""

    def __init__(self, belief: Belief, h: Hypothesis):
        self.belief = belief
        self.start, self.depth = h, len(belief.record) - 1
        #: (hypothesis, depth, iterator over its children once they are drawn)
        self.stack: list[tuple[Hypothesis, int, Iterator[Hypothesis | None] | None]] = [
            (h, self.depth, None)
        ]

    def run(self, budget: list, deadline: float) -> Hypothesis | None:
        """The next hypothesis consistent with the whole record, or None when
        the budget (a one-element list of steps, spent) or the deadline runs
        out first, or when the search is over (no history is consistent)."""
        belief = self.belief
        while budget[0] > 0 and time.monotonic() <= deadline:
            if not self.stack:
                if self.start.parent is None:
                    return None
                self.start, self.depth = self.start.parent, self.depth - 1
                self.stack = [(self.start, self.depth, None)]
            h, d, children = self.stack[-1]
            if d == len(belief.record):
                self.stack.pop()
                return h
            if children is None:
                children = belief._children(h, d, shuffle=True)
                self.stack[-1] = (h, d, children)
            child = next(children, False)
            budget[0] -= 1
            if child is False:
                self.stack.pop()
            elif isinstance(child, Hypothesis):  # not None (inconsistent)
                self.stack.append((child, d + 1, None))
        return None
