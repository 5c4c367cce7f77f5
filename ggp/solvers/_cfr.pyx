# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The CFR / CFR+ traversal kernel for ``ggp.solvers.cfr`` over a flattened tree.

Nodes, the arrays of a ``ggp.solvers.efg.FlatTree``: ``kind`` (0 terminal, 1
chance, 2 decision), children in CSR form (``child_start[n]`` ..
``child_start[n + 1]`` in ``child``, with ``child_prob`` the chance
probabilities), ``player`` and ``infoset`` per node, ``utility[n, p]``.
Information states: moves in CSR form (``move_start``);
``regret``, ``cumulative`` and ``current`` are flat per (information state,
move).  The arithmetic is ``CFRSolver``'s in the same order.
"""
import numpy as np
cimport numpy as cnp
from ggp.solvers._flat cimport FlatArrays

cdef int TERMINAL = 0
cdef int CHANCE = 1


cdef class CFRKernel(FlatArrays):
    cdef double[::1] regret, cumulative, current, values
    cdef int infosets
    cdef double weight

    def __init__(self, flat, regret, cumulative, current):
        FlatArrays.__init__(self, flat)
        self.regret = regret
        self.cumulative = cumulative
        self.current = current
        self.values = np.zeros(len(flat.child), dtype=np.float64)
        self.infosets = len(flat.move_start) - 1

    def run(self, long start, long iterations, int players, bint plus):
        """Iterations start + 1 .. start + iterations (alternating updates)."""
        cdef long t
        cdef int p
        with nogil:
            for t in range(start + 1, start + iterations + 1):
                self.weight = <double>t if plus else 1.0
                for p in range(players):
                    self._update(0, p, 1.0, 1.0)
                    if plus:
                        self._clip()
                    self._match()

    cdef void _clip(self) noexcept nogil:
        cdef Py_ssize_t k
        for k in range(self.regret.shape[0]):
            if self.regret[k] < 0.0:
                self.regret[k] = 0.0

    cdef void _match(self) noexcept nogil:
        cdef int i, a, lo, hi
        cdef double total, r
        for i in range(self.infosets):
            lo = self.move_start[i]
            hi = self.move_start[i + 1]
            total = 0.0
            for a in range(lo, hi):
                r = self.regret[a]
                if r > 0.0:
                    total += r
            if total > 0.0:
                for a in range(lo, hi):
                    r = self.regret[a]
                    self.current[a] = (r if r > 0.0 else 0.0) / total
            else:
                for a in range(lo, hi):
                    self.current[a] = 1.0 / (hi - lo)

    cdef double _update(self, int n, int p, double own, double others) noexcept nogil:
        cdef int kind = self.kind[n]
        cdef int lo, hi, k, i, m
        cdef double q, value, v, weight
        if kind == TERMINAL:
            return self.utility[n, p]
        lo = self.child_start[n]
        hi = self.child_start[n + 1]
        value = 0.0
        if kind == CHANCE:
            for k in range(lo, hi):
                q = self.child_prob[k]
                value += q * self._update(self.child[k], p, own, others * q)
            return value
        if own == 0.0 and others == 0.0:
            return 0.0
        i = self.infoset[n]
        m = self.move_start[i] - lo
        if self.player[n] != p:
            for k in range(lo, hi):
                q = self.current[m + k]
                value += q * self._update(self.child[k], p, own, others * q)
            return value
        for k in range(lo, hi):
            q = self.current[m + k]
            v = self._update(self.child[k], p, own * q, others)
            self.values[k] = v
            value += q * v
        weight = own * self.weight
        for k in range(lo, hi):
            q = self.current[m + k]
            self.regret[m + k] += others * (self.values[k] - value)
            self.cumulative[m + k] += weight * q
        return value


cdef void _reaches(int[::1] kind, int[::1] child_start, int[::1] child, int[::1] player,
                   int[::1] infoset, int[::1] move_start, double[::1] child_prob,
                   double[::1] policy, int skip, double[::1] reach) noexcept nogil:
    """``reach[n]``: the product of the chance and move probabilities from the
    root to n, player ``skip``'s moves left out (nodes in preorder)."""
    cdef Py_ssize_t n, k, lo, hi
    cdef double q
    reach[0] = 1.0
    for n in range(kind.shape[0]):
        lo = child_start[n]
        hi = child_start[n + 1]
        for k in range(lo, hi):
            if kind[n] == CHANCE:
                q = child_prob[k]
            elif player[n] == skip:
                q = 1.0
            else:
                q = policy[move_start[infoset[n]] + k - lo]
            reach[child[k]] = reach[n] * q


def evaluate(flat, double[::1] policy, int skip, double[::1] reach, double[:, ::1] value):
    """Every node's reach and expected utilities under ``policy`` (flat per
    information state and move): ``reach[n]``, the product of the chance and
    move probabilities from the root to n, leaving out player ``skip``'s
    moves (-1: none), so that with ``skip`` = i it is pi_-i(n); ``value[n, p]``,
    player p's expected utility below n.  Nodes are in preorder (a parent
    before its children)."""
    cdef int[::1] kind = flat.kind, child_start = flat.child_start, child = flat.child
    cdef int[::1] player = flat.player, infoset = flat.infoset, move_start = flat.move_start
    cdef double[::1] child_prob = flat.child_prob
    cdef double[:, ::1] utility = flat.utility
    cdef Py_ssize_t nodes = kind.shape[0], players = utility.shape[1]
    cdef Py_ssize_t n, k, p, lo, hi, m
    cdef double q
    with nogil:
        _reaches(kind, child_start, child, player, infoset, move_start, child_prob, policy,
                 skip, reach)
        for n in range(nodes - 1, -1, -1):
            lo = child_start[n]
            hi = child_start[n + 1]
            if kind[n] == TERMINAL:
                for p in range(players):
                    value[n, p] = utility[n, p]
                continue
            for p in range(players):
                value[n, p] = 0.0
            m = move_start[infoset[n]] - lo if kind[n] != CHANCE else 0
            for k in range(lo, hi):
                q = child_prob[k] if kind[n] == CHANCE else policy[m + k]
                for p in range(players):
                    value[n, p] += q * value[child[k], p]


def best_response(flat, double[::1] policy, int responder, double[::1] reach,
                  double[::1] value, int[::1] best):
    """``responder``'s best response to the others' ``policy`` (flat per
    information state and move): ``reach[n]`` is pi_-responder(n), chance's
    and the others' part of n's reach; ``value[n]`` the responder's expected
    utility below n when it responds best, so that ``reach[n] * value[n]`` is
    its counterfactual best-response value at n (what continual resolving
    keeps: Burch, Johanson and Bowling, "Solving Imperfect Information Games
    Using Decomposition", AAAI 2014); ``best[i]`` its move at each of its
    information states (-1 at the others').

    An information state's move maximizes the sum over its nodes of reach
    times the value below, which needs the responder's deeper information
    states decided first: each pass over the nodes (children first) decides
    every information state whose nodes' children are all known, so there
    are as many passes as the responder has moves along a path, plus one.
    Moves of probability 0 under ``policy`` are not followed."""
    cdef int[::1] kind = flat.kind, child_start = flat.child_start, child = flat.child
    cdef int[::1] player = flat.player, infoset = flat.infoset, move_start = flat.move_start
    cdef double[::1] child_prob = flat.child_prob
    cdef double[:, ::1] utility = flat.utility
    cdef Py_ssize_t nodes = kind.shape[0], infosets = move_start.shape[0] - 1
    cdef Py_ssize_t n, k, lo, hi, m, i, a, undecided
    cdef double q, top
    cdef cnp.uint8_t[::1] known = np.zeros(nodes, dtype=np.uint8)
    cdef cnp.uint8_t[::1] ready = np.zeros(infosets, dtype=np.uint8)
    cdef cnp.uint8_t[::1] mine = np.zeros(infosets, dtype=np.uint8)
    cdef double[::1] score = np.zeros(move_start[infosets])
    _reaches(kind, child_start, child, player, infoset, move_start, child_prob, policy,
             responder, reach)
    for n in range(nodes):
        if kind[n] != TERMINAL and kind[n] != CHANCE and player[n] == responder:
            mine[infoset[n]] = 1
    for i in range(infosets):
        best[i] = -1
    while True:
        for n in range(nodes - 1, -1, -1):
            lo, hi = child_start[n], child_start[n + 1]
            if kind[n] == TERMINAL:
                value[n], known[n] = utility[n, responder], 1
            elif kind[n] != CHANCE and player[n] == responder:
                a = best[infoset[n]]
                if a >= 0 and known[child[lo + a]]:
                    value[n], known[n] = value[child[lo + a]], 1
            else:
                value[n], known[n] = 0.0, 1
                m = move_start[infoset[n]] - lo if kind[n] != CHANCE else 0
                for k in range(lo, hi):
                    q = child_prob[k] if kind[n] == CHANCE else policy[m + k]
                    if q == 0.0:
                        continue
                    if not known[child[k]]:
                        known[n] = 0
                        break
                    value[n] += q * value[child[k]]
        undecided = 0
        for i in range(infosets):
            ready[i] = mine[i] and best[i] < 0
            undecided += ready[i]
        if undecided == 0:
            return
        score[:] = 0.0
        for n in range(nodes):
            if kind[n] == TERMINAL or kind[n] == CHANCE or player[n] != responder:
                continue
            i = infoset[n]
            if not ready[i]:
                continue
            lo, hi = child_start[n], child_start[n + 1]
            for k in range(lo, hi):
                if not known[child[k]]:
                    ready[i] = 0
                    break
                score[move_start[i] + k - lo] += reach[n] * value[child[k]]
        undecided = 0
        for i in range(infosets):
            if not ready[i]:
                continue
            a, top = 0, score[move_start[i]]
            for k in range(move_start[i] + 1, move_start[i + 1]):
                if score[k] > top:
                    a, top = k - move_start[i], score[k]
            best[i] = a
            undecided += 1
        if undecided == 0:
            raise ValueError("the responder's information states do not order "
                             "(the tree lacks perfect recall)")
