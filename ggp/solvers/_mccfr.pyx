# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Monte Carlo CFR kernels for ``ggp.solvers.mccfr`` over a flattened tree (``ggp.solvers.efg.FlatTree``).

Outcome sampling (Lanctot, Waugh, Zinkevich, Bowling, "Monte Carlo Sampling
for Regret Minimization in Extensive Games", NIPS 2009; Šustr, Kovařík and
Lisý, "Monte Carlo Continual Resolving" (slides), slides 28-31), one sampled
terminal history per traversal:

- the sampling policy at the updated player's nodes is epsilon-on-policy,
  ``(1 - eps) sigma + eps uniform``; elsewhere it is sigma (and chance's own
  probabilities);
- the sampled counterfactual regret of move a at the information state I of
  the prefix h of the sampled terminal z is
  ``W (pi(z | ha) - pi(z | h))`` when ha is a prefix of z, ``-W pi(z | h)``
  otherwise, with ``W = u_i(z) pi_-i(h) / q(z)`` (q the sampling probability
  of z, pi_-i the reach of chance and the other players);
- the average policy is stochastically weighted: at the updated player's
  nodes on the sampled path, ``acc(I, a) += pi_i(h) sigma(I, a) / q(h)``.

Online outcome sampling (Lisy, Lanctot, Bowling, "Online Monte Carlo
Counterfactual Regret Minimization for Search in Imperfect Information
Games", AAMAS 2015) is the same traversal with *targeting*: with probability
``delta`` a traversal samples only histories that lead to (or lie below) the
marked target nodes, and every sampling probability is the mixture
``q(z) = delta q_target(z) + (1 - delta) q(z)``, so the estimates stay
unbiased.

External sampling (same NIPS 2009 paper): the updated player's moves are all
explored, the others' and chance's sampled; regrets ``v(I, a) - v(I)`` at the
updated player's nodes, and the average policy accumulates sigma at the other
players' nodes ("simple" averaging).

Each iteration is one traversal per player, player 0 first (alternating
updates, as OpenSpiel's solvers count iterations).  Regrets and cumulative
average-policy weights are flat per (information state, move) as in
``ggp.solvers._cfr``, owned by the caller; the current policy is regret matching,
computed where it is needed.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport uint64_t
from libc.stdlib cimport malloc, free
from ggp.solvers._flat cimport FlatArrays

cdef int TERMINAL = 0
cdef int CHANCE = 1


cdef class MCCFRSampler(FlatArrays):
    cdef double[::1] regret, cumulative, track_value, track_reach
    cdef int tracked
    cdef double tracked_utility
    cdef unsigned char[::1] target
    cdef double epsilon, delta
    cdef bint targeting, targeted
    cdef uint64_t state
    cdef double *policy          # scratch: one per (node depth, move), see _policy_at
    cdef double *sample
    cdef int scratch

    def __init__(self, flat, regret, cumulative, double epsilon=0.6, seed=0):
        FlatArrays.__init__(self, flat)
        self.regret = regret
        self.cumulative = cumulative
        self.epsilon = epsilon
        self.targeting = False
        self.delta = 0.0
        self.target = np.zeros(1, dtype=np.uint8)
        self.tracked = -1
        self.reseed(seed)
        widest = int(np.diff(flat.child_start).max(initial=1))
        depth = _depth(flat)
        self.scratch = widest
        self.policy = <double *>malloc(sizeof(double) * widest * (depth + 1))
        self.sample = <double *>malloc(sizeof(double) * widest * (depth + 1))

    def reseed(self, seed):
        """Restart the random numbers from ``seed``."""
        self.state = (<uint64_t>seed) * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL
        if self.state == 0:
            self.state = 1

    def __dealloc__(self):
        free(self.policy)
        free(self.sample)

    def set_tracking(self, int player, value, reach):
        """Estimate, over the outcome-sampling traversals from now on, the
        counterfactual values of ``player`` at every node of the tree under
        each iteration's profile: ``value[n] += pi_-player(n) pi(z | n)
        u_player(z) / q(z)`` and ``reach[n] += pi_-player(n) / q(n)`` at every
        node n on a sampled path to z (the sums of unbiased estimates; their
        ratio is the value per unit of reach averaged over the iterations,
        what DeepStack keeps; the sampled tree of ``players.imperfect.sampled`` keeps the
        same).  ``player=-1`` stops."""
        self.tracked = player
        if player >= 0:
            self.track_value, self.track_reach = value, reach

    def set_target(self, target, double delta):
        """Mark the target nodes (uint8 per node: 1 where the node leads to,
        or lies below, a target history) and the share ``delta`` of targeted
        traversals; ``target=None`` turns targeting off."""
        if target is None:
            self.targeting = False
            return
        self.target = target
        self.delta = delta
        self.targeting = True

    def run(self, long iterations, int players, bint external):
        cdef long t
        cdef int p
        cdef double x, q
        with nogil:
            for t in range(iterations):
                for p in range(players):
                    if external:
                        self._external(0, p, 0)
                    else:
                        self.targeted = self.targeting and self._random() < self.delta
                        self._outcome(0, p, 1.0, 1.0, 1.0, 1.0, 0, &x, &q, 1.0)

    # --- random numbers: xorshift64* --------------------------------------------------
    cdef inline double _random(self) noexcept nogil:
        self.state ^= self.state >> 12
        self.state ^= self.state << 25
        self.state ^= self.state >> 27
        return <double>((self.state * 0x2545F4914F6CDD1DULL) >> 11) * (1.0 / 9007199254740992.0)

    cdef inline int _draw(self, double *probs, int count) noexcept nogil:
        cdef double r = self._random(), total = 0.0
        cdef int k
        for k in range(count):
            total += probs[k]
            if r < total:
                return k
        for k in range(count - 1, -1, -1):      # rounding: the last move with weight
            if probs[k] > 0.0:
                return k
        return count - 1

    cdef void _match(self, int n, double *out) noexcept nogil:
        """Regret matching at decision node n into ``out``."""
        cdef int i = self.infoset[n]
        cdef int lo = self.move_start[i], hi = self.move_start[i + 1], a
        cdef double total = 0.0, r
        for a in range(lo, hi):
            r = self.regret[a]
            if r > 0.0:
                total += r
        for a in range(lo, hi):
            r = self.regret[a]
            out[a - lo] = ((r if r > 0.0 else 0.0) / total) if total > 0.0 else 1.0 / (hi - lo)

    # --- outcome sampling (with optional targeting) ----------------------------------
    cdef double _outcome(self, int n, int p, double mine, double others, double q_plain,
                         double q_target, int depth, double *tail,
                         double *q_z, double beside) noexcept nogil:
        """Sample one terminal below n; return u_p(z) and set ``tail`` to
        pi(z | n) and ``q_z`` to the sampling probability of z (mixture);
        ``beside`` is pi_-tracked(n), for :meth:`set_tracking`."""
        cdef int kind = self.kind[n]
        cdef int lo, hi, count, k, a, m
        cdef double *sigma
        cdef double *plain
        cdef double u, x, w, total_target, reach_plain, reach_target, p_target, below
        if kind == TERMINAL:
            tail[0] = 1.0
            if self.tracked >= 0:
                self.tracked_utility = self.utility[n, self.tracked]
            if self.targeting:
                q_z[0] = self.delta * q_target + (1.0 - self.delta) * q_plain
            else:
                q_z[0] = q_plain
            return self.utility[n, p]
        lo = self.child_start[n]
        hi = self.child_start[n + 1]
        count = hi - lo
        sigma = self.policy + depth * self.scratch
        plain = self.sample + depth * self.scratch
        if kind == CHANCE:
            for k in range(count):
                sigma[k] = self.child_prob[lo + k]
                plain[k] = sigma[k]
        else:
            self._match(n, sigma)
            for k in range(count):
                plain[k] = sigma[k]
                if self.player[n] == p:
                    plain[k] = (1.0 - self.epsilon) * sigma[k] + self.epsilon / count
        # the targeted distribution: plain restricted to children in the target
        total_target = 0.0
        if self.targeting:
            for k in range(count):
                if self.target[self.child[lo + k]]:
                    total_target += plain[k]
        if self.targeted and total_target > 0.0:
            a = self._draw_target(plain, lo, count, total_target)
        else:
            a = self._draw(plain, count)
        reach_plain = q_plain * plain[a]
        p_target = 0.0
        if self.targeting and total_target > 0.0 and self.target[self.child[lo + a]]:
            p_target = plain[a] / total_target
        reach_target = q_target * p_target
        below = beside * sigma[a] if kind == CHANCE or self.player[n] != self.tracked else beside
        if kind == CHANCE or self.player[n] != p:
            u = self._outcome(self.child[lo + a], p, mine, others * sigma[a], reach_plain,
                              reach_target, depth + 1, &x, q_z, below)
            tail[0] = sigma[a] * x
            self._track(n, beside, tail[0], q_plain, q_z[0])
            return u
        u = self._outcome(self.child[lo + a], p, mine * sigma[a], others, reach_plain,
                          reach_target, depth + 1, &x, q_z, below)
        tail[0] = sigma[a] * x
        self._track(n, beside, tail[0], q_plain, q_z[0])
        m = self.move_start[self.infoset[n]]
        w = u * others / q_z[0]
        for k in range(count):
            if k == a:
                self.regret[m + k] += w * (x - tail[0])
            else:
                self.regret[m + k] -= w * tail[0]
        if self.targeting:
            w = mine / (self.delta * q_target + (1.0 - self.delta) * q_plain)
        else:
            w = mine / q_plain
        for k in range(count):
            self.cumulative[m + k] += w * sigma[k]
        return u

    cdef inline void _track(self, int n, double beside, double through, double q_n,
                            double q_z) noexcept nogil:
        if self.tracked >= 0:
            self.track_value[n] += beside * through * self.tracked_utility / q_z
            self.track_reach[n] += beside / q_n

    cdef int _draw_target(self, double *plain, int lo, int count,
                          double total) noexcept nogil:
        cdef double r = self._random() * total, acc = 0.0
        cdef int k, last = -1
        for k in range(count):
            if self.target[self.child[lo + k]]:
                acc += plain[k]
                last = k
                if r < acc:
                    return k
        return last

    # --- external sampling -------------------------------------------------------------
    cdef double _external(self, int n, int p, int depth) noexcept nogil:
        cdef int kind = self.kind[n]
        cdef int lo, hi, count, k, m
        cdef double *sigma
        cdef double *values
        cdef double value
        if kind == TERMINAL:
            return self.utility[n, p]
        lo = self.child_start[n]
        hi = self.child_start[n + 1]
        count = hi - lo
        sigma = self.policy + depth * self.scratch
        if kind == CHANCE:
            for k in range(count):
                sigma[k] = self.child_prob[lo + k]
            return self._external(self.child[lo + self._draw(sigma, count)], p, depth + 1)
        self._match(n, sigma)
        m = self.move_start[self.infoset[n]]
        if self.player[n] != p:
            for k in range(count):
                self.cumulative[m + k] += sigma[k]
            return self._external(self.child[lo + self._draw(sigma, count)], p, depth + 1)
        values = self.sample + depth * self.scratch
        value = 0.0
        for k in range(count):
            values[k] = self._external(self.child[lo + k], p, depth + 1)
        for k in range(count):
            value += sigma[k] * values[k]
        for k in range(count):
            self.regret[m + k] += values[k] - value
        return value


def _depth(flat) -> int:
    """The number of edges on the longest path from the root."""
    cdef int[::1] start = flat.child_start, child = flat.child
    cdef Py_ssize_t count = flat.kind.shape[0], n, k
    cdef int[::1] depth = np.zeros(count, dtype=np.int32)
    cdef int deepest = 0
    for n in range(count):          # preorder: a parent comes before its children
        for k in range(start[n], start[n + 1]):
            depth[child[k]] = depth[n] + 1
            if depth[n] + 1 > deepest:
                deepest = depth[n] + 1
    return deepest
