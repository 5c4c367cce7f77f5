"""What a role knows in a game of imperfect information: the histories
consistent with its own moves and percepts, tracked step by step.

A *hypothesis* is one such history, kept as its current state, every role's
information-state key (a hash of that role's own moves and percepts so far,
so a search can look up any role's information state in the sampled world)
and its parent hypothesis.  The prior over histories is uniform: the
``random`` role and the other players choose among their legal moves with
equal probability.

Two modes, as the number of consistent histories allows:

- *exact* while there are at most ``limit`` of them: every consistent
  successor of every hypothesis is kept, weighted by its prior probability,
  so that :meth:`Belief.sample` draws from the exact posterior of the uniform
  prior;
- *particles* past that: ``particles`` hypotheses, each moved on by a
  uniformly random joint move consistent with the new observation.  A
  particle with no consistent successor is repaired by backtracking: a
  randomized depth-first replay from its parent, then its grandparent and so
  on up to the initial state, with a budget of steps, as HyperPlay does
  (Schofield, Cerexhe and Thielscher, "HyperPlay: A Solution to General Game
  Playing with Imperfect Information", AAAI 2012).  A particle that cannot be
  repaired in time is replaced by a copy of a surviving one.

In a GDL-I game every role sees the whole joint move, and the belief is the
one exact state.

:class:`Steps` answers the questions in the reasoner's own numbering: the
compiled reasoner's move numbers and percept (``sees`` node) numbers, so a
step of the search costs one kernel call.
"""
from __future__ import annotations

import itertools
import logging
import math
import time

log = logging.getLogger("players.belief")

#: The information-state key before the first move.
ROOT_KEY = 0x5EED
_MASK = (1 << 64) - 1


def extend_key(key: int, move, seen: tuple) -> int:
    """The key of an information state after the role played ``move`` and saw ``seen``."""
    return hash((key, move, seen)) & _MASK


def decision_key(key: int, legal) -> int:
    """The key of the decision at an information state: its key and the legal moves."""
    return hash((key, tuple(legal))) & _MASK


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
        self.compiled = getattr(sm, "name", "") == "compiled"
        if self.compiled:
            self.kernel = sm.kernel
            self._moves = sm._moves
            self._move_index = sm._move_index
            self._sees = [sorted(node for node, _ in seen) for seen in sm._sees]
            self._seen_index = [{p: node for node, p in seen} for seen in sm._sees]

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
        if self.compiled:
            self.kernel.load(state)
            return tuple(max(self.kernel.goals(r), default=0) for r in range(len(self.roles)))
        return tuple(g if g is not None else 0 for g in self.sm.goals(state))

    def next_seen(self, state, joint) -> tuple:
        joint = tuple(joint)
        if not self.imperfect:
            seen = (joint,) * len(self.roles)
            nxt = self.kernel.next_state(state, joint) if self.compiled else \
                self.sm.next_state(state, joint)
            return nxt, seen
        if self.compiled:
            kernel = self.kernel
            nxt = kernel.next_state(state, joint)
            return nxt, kernel.true_nodes(self._sees)
        sm = self.sm
        seen = tuple(tuple(sorted(sm.percepts(state, joint, r), key=repr)) for r in self.roles)
        return sm.next_state(state, joint), seen


class Hypothesis:
    """A history consistent with what the role saw: its state, every role's
    information-state key, its parent and its prior probability."""

    __slots__ = ("state", "keys", "parent", "weight")

    def __init__(self, state, keys: tuple, parent=None, weight: float = 1.0):
        self.state, self.keys, self.parent, self.weight = state, keys, parent, weight


class BeliefError(RuntimeError):
    """The role's own move is legal in no state it believes possible."""


class Belief:
    """The hypotheses of role number ``me`` (see the module docstring)."""

    def __init__(self, steps: Steps, me: int, rng, limit: int = 4096, particles: int = 64,
                 repair_steps: int = 20000):
        self.steps, self.me, self.rng = steps, me, rng
        self.limit, self.particles, self.repair_steps = limit, particles, repair_steps
        root = Hypothesis(steps.sm.initial_state(), (ROOT_KEY,) * len(steps.roles))
        self.hypotheses = [root]
        self.exact = True
        self.record: list[tuple] = []       # per step: (own move, what it saw)
        self.consistent = True

    # --- questions ----------------------------------------------------------------
    def sample(self) -> Hypothesis:
        """A hypothesis drawn from the belief (by prior weight when exact)."""
        hs = self.hypotheses
        if len(hs) == 1:
            return hs[0]
        if self.exact:
            return self.rng.choices(hs, weights=[h.weight for h in hs])[0]
        return self.rng.choice(hs)

    @property
    def key(self) -> int:
        """The role's own information-state key (the same in every hypothesis)."""
        return self.hypotheses[0].keys[self.me]

    # --- observations ---------------------------------------------------------------
    def observe_joint(self, joint: tuple):
        """GDL-I: everybody saw the joint move (move numbers)."""
        h = self.hypotheses[0]
        nxt, seen = self.steps.next_seen(h.state, joint)
        self.record.append((joint[self.me], seen[self.me]))
        keys = tuple(extend_key(k, joint[r], seen[r]) for r, k in enumerate(h.keys))
        self.hypotheses = [Hypothesis(nxt, keys, h)]

    def observe(self, own, seen: tuple, deadline: float = math.inf, hard: float = math.inf):
        """GDL-II: the role played ``own`` and saw ``seen`` (numbers); keep the
        consistent hypotheses, taking until ``deadline``, or until ``hard``
        while none is found yet.  When none is left (the game or the messages are
        not what the role thinks), warn, set ``consistent`` to False and go on
        with the previous hypotheses moved by its own move alone, so the role
        can still play."""
        previous = self.hypotheses
        self.record.append((own, seen))
        if self.exact:
            self._exact_step(deadline, hard)
        else:
            self._particle_step(deadline, hard)
        if not self.hypotheses:
            self.consistent = False
            log.warning("no history is consistent with what role %r saw at step %d; "
                        "ignoring that percept", self.steps.roles[self.me], len(self.record))
            self.hypotheses = [h for h in map(self._blind_child, previous) if h is not None]
            if not self.hypotheses:
                raise BeliefError(f"role {self.steps.roles[self.me]!r} has no legal move "
                                  f"{own!r} in any state it believes possible")

    def _blind_child(self, h: Hypothesis) -> Hypothesis | None:
        """A successor of ``h`` by the role's own last move and random others."""
        legal = self.steps.legal(h.state)
        own = self.record[-1][0]
        if legal is None or own not in legal[self.me]:
            return None
        joint = tuple(own if r == self.me else self.rng.choice(m) for r, m in enumerate(legal))
        nxt, seens = self.steps.next_seen(h.state, joint)
        keys = tuple(extend_key(k, joint[r], seens[r]) for r, k in enumerate(h.keys))
        return Hypothesis(nxt, keys, h, h.weight)

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
        for h in out:                   # normalized, so long games do not underflow
            h.weight /= total
        self.hypotheses = out

    def _to_particles(self, deadline, hard):
        """Leave exact tracking: particles drawn by weight from the previous
        step's hypotheses, then moved on as particles are."""
        self.exact = False
        hs = self.hypotheses
        self.hypotheses = self.rng.choices(hs, weights=[h.weight for h in hs], k=self.particles)
        self._particle_step(deadline, hard)

    def _particle_step(self, deadline, hard):
        """Move each particle on by a random consistent joint move, repairing
        those that have none; past the deadline (once one particle is alive)
        the rest are dropped, and copies of the live ones make up the number;
        the search for the first live one stops at ``hard``."""
        step = len(self.record) - 1
        alive = []
        for h in self.hypotheses:
            late = time.monotonic() > deadline
            if late and alive:
                break
            child = self._consistent_child(h, step, deadline if alive else hard)
            if child is None and not late:
                child = self._repair(h, deadline)
            if child is not None:
                alive.append(child)
        if alive:
            alive += [self.rng.choice(alive) for _ in range(self.particles - len(alive))]
        self.hypotheses = alive

    # --- search over histories ------------------------------------------------------
    def _consistent_child(self, h: Hypothesis, step: int, deadline):
        """A random successor of ``h`` consistent with observation ``step``, or
        None (also when the deadline passes first)."""
        for child in self._children(h, step, shuffle=True):
            if child is not None:
                return child
            if time.monotonic() > deadline:
                return None
        return None

    def _children(self, h: Hypothesis, step: int, shuffle: bool):
        """For each joint move tried from ``h`` (all of them, in random order
        when ``shuffle``), its successor when consistent with observation
        ``step``, else None."""
        own, seen = self.record[step]
        legal = self.steps.legal(h.state)
        if legal is None or own not in legal[self.me]:
            return
        me = self.me
        options = [[own] if r == me else list(moves) for r, moves in enumerate(legal)]
        weight = h.weight
        for r, moves in enumerate(options):
            if r != me:
                weight /= len(moves)
        for joint in self._joints(options, shuffle):
            nxt, seens = self.steps.next_seen(h.state, joint)
            if seens[me] == seen:
                keys = tuple(extend_key(k, joint[r], seens[r]) for r, k in enumerate(h.keys))
                yield Hypothesis(nxt, keys, h, weight)
            else:
                yield None

    def _joints(self, options, shuffle):
        if not shuffle:
            yield from itertools.product(*options)
            return
        size = math.prod(len(o) for o in options)
        if size <= 4096:
            joints = list(itertools.product(*options))
            self.rng.shuffle(joints)
            yield from joints
            return
        for _ in range(4096):           # too many to list: sample with replacement
            yield tuple(self.rng.choice(o) for o in options)

    def _repair(self, h: Hypothesis, deadline) -> Hypothesis | None:
        """A hypothesis consistent with the whole record, found by randomized
        depth-first replay from ever older ancestors of ``h`` (HyperPlay's
        backtracking), within ``repair_steps`` expansions and the deadline."""
        target = len(self.record)
        depth = target - 1
        ancestor = h
        budget = [self.repair_steps]
        while ancestor is not None:
            found = self._replay(ancestor, depth, target, budget, deadline)
            if found is not None:
                return found
            if budget[0] <= 0 or time.monotonic() > deadline:
                return None
            ancestor, depth = ancestor.parent, depth - 1
        return None

    def _replay(self, start: Hypothesis, depth: int, target: int, budget, deadline):
        """Depth-first from ``start`` (at step ``depth``) to a hypothesis at
        step ``target``, children in random order."""
        stack = [(start, depth, None)]
        while stack:
            h, d, children = stack[-1]
            if d == target:
                return h
            if children is None:
                children = self._children(h, d, shuffle=True)
                stack[-1] = (h, d, children)
            child = next(children, False)
            budget[0] -= 1
            if child is False:
                stack.pop()
            elif child is not None:
                stack.append((child, d + 1, None))
            if budget[0] <= 0 or time.monotonic() > deadline:
                return None
        return None
