# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Bit-parallel random playouts on a propositional network: 64 at once.

The technique is the parallel-pattern (bit-parallel, or bit-sliced)
simulation of logic simulators: a node's value is a 64-bit machine word whose
bit i is the node's value in the i-th of 64 independent simulations, so one
bitwise AND or OR evaluates a gate in all of them at once.  Compiled, levelized
simulators sweep the gates once in topological order per input vector; see
M. Abramovici, M. A. Breuer and A. D. Friedman, *Digital Systems Testing and
Testable Design* (Computer Science Press, 1990), chapter 3 (compiled
simulation, parallel simulation of several patterns packed in a word), and
the parallel-pattern fault simulator of J. A. Waicukauski et al., "Fault
Simulation for Structured VLSI", VLSI Systems Design 6(12), 1985.

Here a simulation is a random playout of the game (a *lane*).  Each step
sweeps the whole network (the gates the outputs need), however little
changed, where the incremental kernel (:mod:`ggp.reasoners._propnet`) pays only for
what changed in one playout.  So lanes win while one sweep costs less than 64
incremental steps: on networks up to about half a million gate inputs they
make several times the kernel's state changes per second, and only break even
on the largest boards, where a move changes little of the network.  With fewer
playouts to run than about 16, lanes idle and the kernel is faster (the
figures, and the lanes suite of the benchmarks that measures them:
docs/reasoners.md).

Memory: a word per node, the gate programs (an int per gate input and three
per gate), and scratch per move and per lane.

The gates are split once, at construction:

* *phase 1*: the gates legal, terminal and next read that do not depend on
  any ``does`` input (legal and terminal never do);
* *phase 2*: the gates that do (reached from a ``does`` input), read by next;
* *goal gates*: the gates only the goals read, swept only in steps where some
  lane finishes;
* the rest (gates only ``sees`` reads) are never evaluated.

A cycle of positive dependencies is one contiguous block, wholly in one of
these (a strongly connected component is reached from a ``does`` input, or
read by an output, all or nothing).  It is settled by iterating its gates from
all false until no word changes: the block is monotone, so every lane reaches
its least fixpoint, and the words stop changing when the slowest lane has.

A gate's program lists its positive inputs, then its negated ones, so that
an AND is ``v &= value[node]`` then ``v &= ~value[node]``, an OR the same
with ``|``.

One step, for the lanes still playing (``active``):

1. sweep phase 1: terminal, legal and next-before-moves values;
2. lanes that are terminal, at ``max_steps``, or where a role has no legal
   move finish: their goals (goal values whose node is true, summed per role,
   as :meth:`ggp.reasoners._propnet.Kernel.playouts` sums them) and depths are added up,
   and, while fewer than ``count`` playouts were started, they restart from
   the root: their base bits are set to the root's, and so are their bits in
   the phase-1 nodes that the rest of the step reads (legal nodes, next nodes
   and the inputs of phase-2 gates, whose root values are computed once), so
   a restarted lane plays its first move in the same step; other lanes go
   idle (out of ``active``);
3. per role, a uniformly random legal move for each active lane: lanes with
   exactly one legal move take it with one mask operation per move and no
   random number; for the others, a pass over the moves counts each lane's
   legal moves in a bit-sliced counter (one word per bit of the counts), one
   random number per lane picks an index below its count, and a second pass
   over the moves counts that index down, bit-sliced again, taking in each
   lane the legal move where it reaches zero (moves in index order);
4. the chosen moves' ``does`` words are set and phase 2 is swept;
5. every base word takes its next value (idle lanes carry garbage, masked
   out everywhere).

Random numbers come from one xorshift64 stream, drawn in lane order, so a
seed determines every playout.
"""
cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free

import numpy as np

from ggp.reasoners._propnet cimport _below, _copy, _seed, _zeros
from ggp.reasoners._propnet import cone

cdef enum:
    INPUT = 0
    AND = 1
    OR = 2

cdef extern from *:
    """
    #define LANES_ALL 0xFFFFFFFFFFFFFFFFULL
    """
    const uint64_t ALL "LANES_ALL"              # every lane (a C constant)


cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_clzll(unsigned long long) nogil


cdef inline uint64_t _gate(const uint64_t* val, const int32_t* p) noexcept nogil:
    """The value of gate ``p`` (see _sweep)."""
    cdef int32_t j, npos = p[1], nall = p[1] + p[2]
    cdef const int32_t* q = p + 3
    cdef uint64_t v
    if p[0] & 1:                                # OR
        v = 0
        for j in range(npos):
            v |= val[q[j]]
        for j in range(npos, nall):
            v |= ~val[q[j]]
    else:                                       # AND
        v = ALL
        for j in range(npos):
            v &= val[q[j]]
        for j in range(npos, nall):
            v &= ~val[q[j]]
    return v


cdef inline void _sweep(uint64_t* val, const int32_t* p, const int32_t* end) noexcept nogil:
    """Evaluate a gate program in order.

    A gate is ``[out * 2 + is_or, npos, nneg, nodes...]``: value[out] is the
    AND (or the OR) of the values of its first ``npos`` nodes and of the
    negations of the next ``nneg``.  A cycle block is ``[-1, length]``
    followed by its gates (``length`` ints), settled from all false to its
    least fixpoint.
    """
    cdef int32_t head
    cdef uint64_t v
    cdef const int32_t* q
    cdef const int32_t* bend
    cdef bint changed
    while p < end:
        head = p[0]
        if head >= 0:
            if p[1] == 2 and p[2] == 0 and not (head & 1):   # the most common gate
                val[head >> 1] = val[p[3]] & val[p[4]]
            else:
                val[head >> 1] = _gate(val, p)
            p += 3 + p[1] + p[2]
            continue
        bend = p + 2 + p[1]
        q = p + 2
        while q < bend:                         # from all false
            val[q[0] >> 1] = 0
            q += 3 + q[1] + q[2]
        changed = True
        while changed:
            changed = False
            q = p + 2
            while q < bend:
                v = _gate(val, q)
                if v != val[q[0] >> 1]:
                    val[q[0] >> 1] = v
                    changed = True
                q += 3 + q[1] + q[2]
        p = bend


@cython.final
cdef class Lanes:
    """Bit-parallel playouts over one network (see the module docstring).

    Built from the same arrays as :class:`ggp.reasoners._propnet.Kernel`
    (``Lanes(**network.arrays())``); ``out_start`` and ``out_lit`` are not
    used.  Raises ValueError if a legal, terminal or goal node depends on a
    ``does`` input (the validator rules that out).
    """

    def __init__(self, kind, in_start, in_lit, out_start, out_lit, block_lo, block_hi,
                 base_node, next_node, does_node, legal_node, move_role, nroles,
                 terminal_node, goal_node, goal_role, goal_value, true_node):
        cdef const uint8_t[:] kd = np.ascontiguousarray(kind, dtype=np.uint8)
        cdef const int32_t[:] ist = np.ascontiguousarray(in_start, dtype=np.int32)
        cdef const int32_t[:] il = np.ascontiguousarray(in_lit, dtype=np.int32)
        cdef const int32_t[:] blo = np.ascontiguousarray(block_lo, dtype=np.int32)
        cdef const int32_t[:] bhi = np.ascontiguousarray(block_hi, dtype=np.int32)
        cdef int n = len(kind)
        cdef int i, j, lo, hi, x
        cdef bint any_
        next_node = np.asarray(next_node, dtype=np.int32)
        legal_node = np.asarray(legal_node, dtype=np.int32)
        does_node = np.asarray(does_node, dtype=np.int32)
        goal_node = np.asarray(goal_node, dtype=np.int32)
        move_role = np.asarray(move_role, dtype=np.int32)
        self.n = n
        self.nbase = len(base_node)
        self.nmoves = len(does_node)
        self.nroles = nroles
        self.ngoals = len(goal_node)
        self.term_node = terminal_node

        # which gates depend on a does input (a block all or nothing)
        dep_arr = np.zeros(n, dtype=np.uint8)
        dep_arr[does_node] = 1
        cdef uint8_t[:] dep = dep_arr
        i = 0
        while i < n:
            if kd[i] == INPUT:
                i += 1
                continue
            lo = i if blo[i] < 0 else blo[i]
            hi = i if blo[i] < 0 else bhi[i]
            any_ = False
            for x in range(lo, hi + 1):
                for j in range(ist[x], ist[x + 1]):
                    if dep[il[j] >> 1]:
                        any_ = True
            for x in range(lo, hi + 1):
                dep[x] = any_
            i = hi + 1
        for node in list(legal_node) + list(goal_node) + [terminal_node]:
            if node >= 0 and dep_arr[node]:
                raise ValueError("a legal, goal or terminal node depends on a does input")
        need_arr = cone(kd, ist, il, blo,
                         list(legal_node) + [x for x in next_node if x >= 0]
                         + ([terminal_node] if terminal_node >= 0 else []))
        goal_arr = cone(kd, ist, il, blo, list(goal_node)) & ~need_arr
        gate = np.asarray(kd) != INPUT
        phase1 = gate & need_arr & (dep_arr == 0)
        phase2 = gate & need_arr & (dep_arr != 0)
        prog1, prog2, progg = [_program(kind, in_start, in_lit, block_lo, block_hi, sel)
                               for sel in (phase1, phase2, goal_arr & gate)]
        # phase-1 gates the rest of a step reads: legal, next, inputs of phase 2
        read = np.zeros(n, dtype=bool)
        read[legal_node] = True
        read[next_node[next_node >= 0]] = True
        lits = np.asarray(il)
        starts = np.asarray(ist)
        p2 = np.flatnonzero(phase2)
        if len(p2):
            counts = starts[p2 + 1] - starts[p2]
            idx = np.repeat(starts[p2], counts) + (np.arange(counts.sum())
                                                   - np.repeat(np.cumsum(counts) - counts, counts))
            read[lits[idx] >> 1] = True
        front = np.flatnonzero(read & phase1).astype(np.int32)
        # next values that are inputs themselves must be read before any base is written
        is_input = np.asarray(kd) == INPUT
        buffered = np.array([b for b, x in enumerate(next_node) if x >= 0 and is_input[x]],
                            dtype=np.int32)
        direct = np.array([b for b, x in enumerate(next_node) if x < 0 or not is_input[x]],
                          dtype=np.int32)
        self.len1, self.len2, self.leng = len(prog1), len(prog2), len(progg)
        self.blocks1, self.blocks2, self.blocksg = [
            len(np.unique(np.asarray(blo)[sel & (np.asarray(blo) >= 0)]))
            for sel in (phase1, phase2, goal_arr & gate)]
        self.nfront = len(front)
        self.nbuffered, self.ndirect = len(buffered), len(direct)
        self.prog1 = <int32_t*> _copy(prog1, np.int32)
        self.prog2 = <int32_t*> _copy(prog2, np.int32)
        self.progg = <int32_t*> _copy(progg, np.int32)
        self.front = <int32_t*> _copy(front, np.int32)
        self.front_root = <uint64_t*> _zeros(8 * self.nfront)
        self.base_node = <int32_t*> _copy(base_node, np.int32)
        self.next_node = <int32_t*> _copy(next_node, np.int32)
        self.direct = <int32_t*> _copy(direct, np.int32)
        self.buffered = <int32_t*> _copy(buffered, np.int32)
        self.buffer = <uint64_t*> _zeros(8 * self.nbuffered)
        self.does_node = <int32_t*> _copy(does_node, np.int32)
        self.legal_node = <int32_t*> _copy(legal_node, np.int32)
        starts = np.searchsorted(move_role, np.arange(nroles + 1)).astype(np.int32)
        self.role_start = <int32_t*> _copy(starts, np.int32)
        self.goal_node = <int32_t*> _copy(goal_node, np.int32)
        self.goal_role = <int32_t*> _copy(goal_role, np.int32)
        self.goal_value = <int32_t*> _copy(goal_value, np.int32)
        self.scratch = <int32_t*> _zeros(4 * self.nmoves)
        self.dset = <int32_t*> _zeros(4 * self.nmoves)
        self.ndset = 0
        self.val = <uint64_t*> _zeros(8 * n)
        if true_node >= 0:
            self.val[true_node] = ALL

    def __dealloc__(self):
        # every pointer starts NULL (free(NULL) does nothing), even if __init__ failed
        free(self.val); free(self.prog1); free(self.prog2); free(self.progg)
        free(self.front); free(self.front_root); free(self.base_node); free(self.next_node)
        free(self.direct); free(self.buffered); free(self.buffer); free(self.does_node)
        free(self.legal_node); free(self.role_start); free(self.goal_node)
        free(self.goal_role); free(self.goal_value); free(self.scratch); free(self.dset)

    @property
    def sizes(self):
        """The gate programs' lengths (ints) of phase 1, phase 2 and the
        goals, their numbers of cycle blocks, and the number of phase-1 nodes
        reset when a lane restarts."""
        return {"phase1": self.len1, "phase2": self.len2, "goals": self.leng,
                "blocks": (self.blocks1, self.blocks2, self.blocksg),
                "frontier": self.nfront}

    # --- one step's pieces -----------------------------------------------------
    cdef inline void _clear_does(self) noexcept nogil:
        cdef int k
        for k in range(self.ndset):
            self.val[self.does_node[self.dset[k]]] = 0
        self.ndset = 0

    cdef inline void _set_does(self, int m, uint64_t lanes) noexcept nogil:
        cdef int node = self.does_node[m]
        if self.val[node] == 0:
            self.dset[self.ndset] = m
            self.ndset += 1
        self.val[node] |= lanes

    cdef uint64_t _no_legal(self, uint64_t active) noexcept nogil:
        """Active lanes where some role has no legal move."""
        cdef int r, m
        cdef uint64_t some, out = 0
        for r in range(self.nroles):
            some = 0
            for m in range(self.role_start[r], self.role_start[r + 1]):
                some |= self.val[self.legal_node[m]]
            out |= ~some
        return out & active

    cdef void _choose(self, uint64_t active, uint64_t* rng, Record* rec, int64_t t) noexcept nogil:
        """Set the does words: a uniformly random legal move per role and
        active lane (every active lane has one), recorded in ``rec`` if not
        NULL.

        The lanes with several legal moves count them in a bit-sliced
        counter (``count[i]`` holds bit i of every lane's count), draw an
        index below their count, kept bit-sliced too (``index``), and a second
        pass over the moves takes, in each lane, the move where its index is
        zero and decrements it (bit-sliced) where the move is legal.
        """
        cdef int r, m, k, nz, lane, i, width, nroles = self.nroles
        cdef uint64_t x, y, z, b, ones, twos, single, pending
        cdef uint32_t c, pick
        cdef uint64_t[32] count
        cdef uint64_t[32] index
        cdef const int32_t* legal = self.legal_node
        cdef uint64_t* val = self.val
        cdef int32_t* moves = self.scratch
        self._clear_does()
        for r in range(nroles):
            ones = 0
            twos = 0
            nz = 0
            for m in range(self.role_start[r], self.role_start[r + 1]):
                x = val[legal[m]] & active
                if x:
                    twos |= ones & x            # lanes where m is at least the second
                    ones |= x
                    moves[nz] = m
                    nz += 1
            single = ones & ~twos
            if single:                          # one legal move: no choice to make
                for k in range(nz):
                    x = val[legal[moves[k]]] & single
                    if x:
                        self._set_does(moves[k], x)
                        if rec != NULL:
                            while x:
                                lane = __builtin_ctzll(x)
                                x &= x - 1
                                rec.moves[(rec.row[lane] + t) * nroles + r] = moves[k]
            if not twos:
                continue
            width = 64 - __builtin_clzll(<uint64_t> nz)     # bits of a count (at most nz)
            for i in range(width):
                count[i] = 0
                index[i] = 0
            for k in range(nz):                 # count[] += legal, in the lanes of twos
                b = val[legal[moves[k]]] & twos
                i = 0
                while b:
                    y = count[i] & b
                    count[i] ^= b
                    b = y
                    i += 1
            x = twos
            while x:                            # per lane, an index below its count
                lane = __builtin_ctzll(x)
                x &= x - 1
                c = 0
                for i in range(width):
                    c |= <uint32_t> ((count[i] >> lane) & 1) << i
                pick = _below(rng, c)
                while pick:
                    index[__builtin_ctzll(pick)] |= (<uint64_t> 1) << lane
                    pick &= pick - 1
            pending = twos
            k = 0
            while pending:                      # the legal move at that index
                m = moves[k]
                k += 1
                x = val[legal[m]] & pending
                if not x:
                    continue
                z = 0
                for i in range(width):
                    z |= index[i]
                z = x & ~z                      # lanes at index zero take m
                if z:
                    self._set_does(m, z)
                    pending ^= z
                    if rec != NULL:
                        while z:
                            lane = __builtin_ctzll(z)
                            z &= z - 1
                            rec.moves[(rec.row[lane] + t) * nroles + r] = m
                b = x & pending                 # index -= 1 in the others
                i = 0
                while b:
                    y = ~index[i] & b
                    index[i] ^= b
                    b = y
                    i += 1

    cdef inline void _advance(self) noexcept nogil:
        """Every base word takes its next value."""
        cdef int k, b, node
        cdef uint64_t* val = self.val
        for k in range(self.nbuffered):
            self.buffer[k] = val[self.next_node[self.buffered[k]]]
        for k in range(self.ndirect):
            b = self.direct[k]
            node = self.next_node[b]
            val[self.base_node[b]] = val[node] if node >= 0 else 0
        for k in range(self.nbuffered):
            val[self.base_node[self.buffered[k]]] = self.buffer[k]

    cdef inline void _reset(self, const uint8_t* root, uint64_t lanes) noexcept nogil:
        """Lanes ``lanes`` back at the root: base bits and the frontier."""
        cdef int b, node
        cdef uint64_t keep = ~lanes
        cdef uint64_t* val = self.val
        for b in range(self.nbase):
            node = self.base_node[b]
            val[node] = (val[node] & keep) | (lanes if root[b] else 0)
        for b in range(self.nfront):
            node = self.front[b]
            val[node] = (val[node] & keep) | (self.front_root[b] & lanes)

    # --- the loop ------------------------------------------------------------------
    cdef int _root(self, const uint8_t* root, int max_steps) noexcept nogil:
        """Load the root in every lane, sweep phase 1 and the goals, keep the
        frontier's root values.  Returns 0 if playouts go on from the root,
        1 if it is terminal, 2 if a playout is cut at once (max_steps < 1 or
        a role without legal moves)."""
        cdef int b
        self._clear_does()
        for b in range(self.nbase):
            self.val[self.base_node[b]] = ALL if root[b] else 0
        _sweep(self.val, self.prog1, self.prog1 + self.len1)
        _sweep(self.val, self.progg, self.progg + self.leng)
        for b in range(self.nfront):
            self.front_root[b] = self.val[self.front[b]]
        if self.term_node >= 0 and self.val[self.term_node]:
            return 1
        if max_steps < 1 or self._no_legal(ALL):
            return 2
        return 0

    cdef void _run(self, const uint8_t* root, int64_t count, uint64_t* rng, int max_steps,
                   int64_t* out, Record* rec, GoalCheck* check) noexcept nogil:
        """``count`` playouts from ``root``: out[0] += total steps, out[1] +=
        the number cut short, out[2 + r] += the goals of role r.  With
        ``rec``, every playout is recorded, numbered in the order they start
        (the first 64 in lane order); with ``check``, the goals of the
        terminal states are checked (:meth:`_check_goals`)."""
        cdef int64_t started, t = 0, low, p
        cdef int64_t[64] start
        cdef int64_t[64] number
        cdef uint64_t active, done, term, cutm, restart, x, bit
        cdef int lane, g
        cdef int nroles = self.nroles
        cdef int state = self._root(root, max_steps)
        if state:                               # every playout ends at the root
            if state == 1 and check != NULL:
                self._check_goals(1, check)
            for g in range(self.ngoals):
                if self.val[self.goal_node[g]]:
                    out[2 + self.goal_role[g]] += count * self.goal_value[g]
                    if rec != NULL:
                        for p in range(count):
                            rec.goals[p * nroles + self.goal_role[g]] += self.goal_value[g]
            if state == 2:
                out[1] += count
            if rec != NULL:
                for p in range(count):
                    rec.end[p] = state
            return
        started = count if count < 64 else 64
        active = ALL if started == 64 else ((<uint64_t> 1) << started) - 1
        for lane in range(64):
            start[lane] = 0
            number[lane] = lane
            if rec != NULL:
                rec.row[lane] = lane * max_steps
        low = 0                                 # the earliest start among active lanes
        while active:
            _sweep(self.val, self.prog1, self.prog1 + self.len1)
            term = self.val[self.term_node] & active if self.term_node >= 0 else 0
            done = term | self._no_legal(active)
            if t - low >= max_steps:
                x = active
                while x:
                    lane = __builtin_ctzll(x)
                    x &= x - 1
                    if t - start[lane] >= max_steps:
                        done |= (<uint64_t> 1) << lane
            if done:
                cutm = done & ~term
                _sweep(self.val, self.progg, self.progg + self.leng)
                if term and check != NULL and check.role < 0:
                    self._check_goals(term, check)
                for g in range(self.ngoals):
                    x = self.val[self.goal_node[g]] & done
                    if x:
                        out[2 + self.goal_role[g]] += (<int64_t> self.goal_value[g]
                                                       * __builtin_popcountll(x))
                out[1] += __builtin_popcountll(cutm)
                restart = 0
                x = done
                while x:
                    lane = __builtin_ctzll(x)
                    bit = x & (0 - x)
                    x ^= bit
                    out[0] += t - start[lane]
                    if rec != NULL:
                        p = number[lane]
                        rec.depth[p] = t - start[lane]
                        rec.end[p] = 2 if cutm & bit else 1
                        for g in range(self.ngoals):
                            if self.val[self.goal_node[g]] & bit:
                                rec.goals[p * nroles + self.goal_role[g]] += self.goal_value[g]
                    if started < count:         # the lane starts the next playout
                        restart |= bit
                        start[lane] = t
                        number[lane] = started
                        if rec != NULL:
                            rec.row[lane] = started * max_steps - t
                        started += 1
                active &= ~(done & ~restart)
                if restart:
                    self._reset(root, restart)
                low = t
                x = active
                while x:
                    lane = __builtin_ctzll(x)
                    x &= x - 1
                    if start[lane] < low:
                        low = start[lane]
                if not active:
                    break
            self._choose(active, rng, rec, t)
            _sweep(self.val, self.prog2, self.prog2 + self.len2)
            self._advance()
            t += 1

    cdef void _check_goals(self, uint64_t lanes, GoalCheck* check) noexcept nogil:
        """Whether GDL's rule on goals holds in the terminal states of
        ``lanes`` (goals swept): exactly one goal 0..100 per role
        (``check.free_role`` may have none).  The first role (in role order)
        that breaks it in some lane goes to ``check.role``, with its goal
        values in the lowest such lane."""
        cdef int g, r
        cdef uint64_t x, bad
        for r in range(self.nroles):
            check.seen[r] = check.many[r] = 0
        for g in range(self.ngoals):
            x = self.val[self.goal_node[g]] & lanes
            r = self.goal_role[g]
            check.many[r] |= (check.seen[r] & x) | (x if self.goal_value[g] > 100 else 0)
            check.seen[r] |= x
        for r in range(self.nroles):
            bad = check.many[r] | (lanes & ~check.seen[r] if r != check.free_role else 0)
            if bad:
                bad &= 0 - bad                  # the lowest such lane
                check.role = r
                check.nvalues = 0
                for g in range(self.ngoals):
                    if self.goal_role[g] == r and self.val[self.goal_node[g]] & bad:
                        check.values[check.nvalues] = self.goal_value[g]
                        check.nvalues += 1
                return

    # --- Python ------------------------------------------------------------------
    def playouts(self, state, long count, unsigned long long seed, int max_steps=100000,
                 list fault=None, int free_role=-1):
        """Run ``count`` uniformly random playouts from ``state``, 64 at a time.

        Returns (total steps, the final goals summed per role, the number of
        playouts cut short by ``max_steps`` or by a role without legal moves),
        and checks goals into ``fault`` with ``free_role``, as
        :meth:`ggp.reasoners._propnet.Kernel.playouts` does (not the same playouts for
        a seed, though).
        """
        cdef const uint8_t[:] view = self._state(state)
        cdef uint64_t rng = _seed(seed)
        cdef int64_t* out = <int64_t*> _zeros(8 * (2 + self.nroles))
        cdef const uint8_t* root = &view[0] if self.nbase else <const uint8_t*> out
        cdef GoalCheck check
        cdef GoalCheck* checking = NULL
        check.free_role, check.role, check.nvalues = free_role, -1, 0
        check.values = NULL
        check.seen = check.many = NULL
        try:
            if fault is not None:
                check.values = <int32_t*> _zeros(4 * self.ngoals + 4)
                check.seen = <uint64_t*> _zeros(8 * self.nroles + 8)
                check.many = <uint64_t*> _zeros(8 * self.nroles + 8)
                checking = &check
            if count > 0:
                with nogil:
                    self._run(root, count, &rng, max_steps, out, NULL, checking)
            if check.role >= 0:
                fault.append((check.role, [check.values[g] for g in range(check.nvalues)]))
            return out[0], [out[2 + r] for r in range(self.nroles)], out[1]
        finally:
            free(out)
            free(check.values)
            free(check.seen)
            free(check.many)

    def traces(self, state, unsigned long long seed, int max_steps=1000, long count=64):
        """The playouts ``playouts(state, count, seed, max_steps)`` plays, in
        the order they start (with ``count`` = 64, each lane's first playout,
        in lane order): a list of (joint moves, a tuple of move indices per
        step; True if it ended terminal, False if cut short; the final goals
        summed per role).  Memory: ``count * max_steps * nroles`` ints."""
        cdef const uint8_t[:] view = self._state(state)
        cdef uint64_t rng = _seed(seed)
        cdef int nr = self.nroles
        cdef int width = max(nr, 1)
        if count < 1:
            return []
        if max_steps < 0:
            max_steps = 0
        moves = np.zeros(count * max(max_steps, 1) * width, dtype=np.int32)
        ends = np.zeros(count, dtype=np.uint8)
        goals = np.zeros(count * width, dtype=np.int64)
        depths = np.zeros(count, dtype=np.int64)
        cdef int32_t[:] mv = moves
        cdef uint8_t[:] ev = ends
        cdef int64_t[:] gv = goals
        cdef int64_t[:] dv = depths
        cdef Record rec
        rec.moves = &mv[0]
        rec.end = &ev[0]
        rec.goals = &gv[0]
        rec.depth = &dv[0]
        cdef int64_t* out = <int64_t*> _zeros(8 * (2 + nr))
        cdef const uint8_t* root = &view[0] if self.nbase else <const uint8_t*> out
        try:
            with nogil:
                self._run(root, count, &rng, max_steps, out, &rec, NULL)
        finally:
            free(out)
        moves = moves.reshape(count, max(max_steps, 1), width)[:, :, :nr]
        goals = goals.reshape(count, width)[:, :nr]
        return [([tuple(j) for j in moves[p, :depths[p]].tolist()],
                 bool(ends[p] == 1), tuple(goals[p].tolist()))
                for p in range(count)]

    def _state(self, state):
        if not isinstance(state, (bytes, bytearray)):
            state = bytes(state)
        if len(state) != self.nbase:
            raise ValueError(f"a state has {self.nbase} bytes, got {len(state)}")
        return state


def _program(kind, in_start, in_lit, block_lo, block_hi, selected):
    """The gate program (see _sweep) of the selected gates, in node order
    (a block's gates all selected or none), built with numpy."""
    kind = np.asarray(kind)
    in_start = np.asarray(in_start, dtype=np.int64)
    in_lit = np.asarray(in_lit, dtype=np.int64)
    block_lo = np.asarray(block_lo, dtype=np.int64)
    gates = np.flatnonzero(np.asarray(selected) & (kind != INPUT))
    k = in_start[gates + 1] - in_start[gates]
    first = block_lo[gates] == gates                # the first gate of a block
    size = 3 + k + 2 * first                        # a block's header goes with its first gate
    at = np.cumsum(size) - size + 2 * first         # where each gate's record starts
    out = np.zeros(int(size.sum()), dtype=np.int64)
    # the literals of each gate, positive ones first
    owner = np.repeat(np.arange(len(gates)), k)
    lits = in_lit[np.repeat(in_start[gates], k) + np.arange(len(owner))
                  - np.repeat(np.cumsum(k) - k, k)]
    order = np.lexsort((lits & 1, owner))
    lits, owner = lits[order], owner[order]
    rank = np.arange(len(owner)) - (np.cumsum(k) - k)[owner]
    out[at[owner] + 3 + rank] = lits >> 1
    nneg = np.bincount(owner, weights=lits & 1, minlength=len(gates)).astype(np.int64)
    out[at] = 2 * gates + (kind[gates] == OR)
    out[at + 1] = k - nneg
    out[at + 2] = nneg
    # block headers: -1 and the length of the block's gate records
    block = np.cumsum(first) - 1                    # per gate, the last block started
    inside = block_lo[gates] >= 0
    length = np.bincount(block[inside], weights=(3 + k)[inside],
                         minlength=int(first.sum())).astype(np.int64)
    out[at[first] - 2] = -1
    out[at[first] - 1] = length
    return out.astype(np.int32)
