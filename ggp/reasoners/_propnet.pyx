# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The propositional network's evaluation kernel, in C.

Nodes are numbered in topological order (inputs first; the nodes of a cycle
of positive dependencies numbered together as one block).  A node is an input
(a base or does proposition, or a constant), an AND or an OR of literals; a
literal is ``node * 2 + negated``.

Evaluation is incremental, as in the propnets of Sancho and ggplib: every gate
keeps the count of its input literals that are true (an AND is true when all
are, an OR when one is), less the number it needs, so that it is true when
the count is at least 0; a node whose value changes adjusts the counts of its
readers and marks dirty in a bit set those whose count crossed 0 (no reader's
value or threshold is read: ggplib's offset counts).  ``propagate`` visits the dirty
nodes in index order (hence topological order) and settles each from its
count in O(1).  So a step costs what changed, not the network's size, however
wide the gates.  A dirty node that belongs to a cycle settles its whole block
from all false to the least fixpoint (monotone, since negation is stratified).

*Lazy goals.*  Gates that only goals read (the piece counts of reversi, the
pot arithmetic of poker: 16,511 of reversi's 28,866 nodes) are left out of
the incremental evaluation: the kernel is built without their edges, and
``_settle_goals`` evaluates them from scratch, in index order (a block to its
least fixpoint), when goals are read, at the end of a playout.  The caller
names the gates (:func:`ggp.reasoners.propnet.lazy_goals`); ``Kernel.value`` of one
settles them first.

``playout`` runs whole random playouts without returning to Python.
"""
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset, memcpy, memmove

import numpy as np


cdef enum:
    INPUT = 0
    AND = 1
    OR = 2


cdef enum:
    IN_BLOCK = 1        # flags: the node belongs to a cycle block
    WATCHED = 2         # flags: the node is a legal or next output (see _notify)
    GATING = 4          # flags: the node gates AND gates (see Kernel)
    GATED = 8           # flags: the node is a gated AND
    LAZY = 16           # flags: the node is a lazy goal gate (see _settle_goals)
    READER_IN_BLOCK = 2 # out_lit bit: the reader belongs to a cycle block

cdef enum:
    LOAD = 1            # a split kernel's network to load afresh (Kernel._switch)
    SCAN = 2            # one to compare with the state base by base
    SORT = 4            # one whose legal moves to sort when brought up to date

#: A proposition read positively by at least this many AND gates may gate
#: them (Kernel, gating_nodes).
GATE_FANOUT = 32


cdef class Kernel:
    """Arrays of one network and its current values (see the module docstring).

    Built by :mod:`ggp.reasoners.propnet` from numpy arrays:
    kind[n], in_start[n+1], in_lit[...], out_start[n+1], out_lit[...] (each
    reader of a node as ``reader * 2 + negated``),
    block_lo[n], block_hi[n] (-1 outside cycles), base_node[B] (the input node
    of each base proposition), next_node[B] (the node computing its next
    value, or -1: never true next), does_node[M], legal_node[M], move_role[M]
    (inputs: a move per role, legal in the same order), terminal_node,
    goal_node[G], goal_role[G], goal_value[G].

    Besides the values, the kernel keeps two things up to date as nodes flip
    (``_notify``), so that a playout step costs what changed, not the number
    of moves or base propositions:

    * per role, the set of its legal moves (``legal_list`` from
      ``role_start[r]``, ``legal_count[r]`` of them, ``legal_pos[m]`` the
      position of move m or -1), which playout policies choose from;
    * the base propositions whose next value may differ from their current
      one (``cand_list``, ``cand_count``): every other one keeps its value.

    *Gated ANDs.*  A node read by many AND gates, such as the ``control``
    proposition of a turn-taking game, which every legal-move gate of a role
    reads (1,740 of them in speedChess, flipping at every step), would update
    all their counts whenever it flips.  Instead each such AND (outside cycle
    blocks) is gated by such an input g (``gating``, chosen by
    :func:`gating_nodes`: much read, flipping at most steps): g's edge to it
    is removed, its count and threshold
    are over its other inputs, its value is ``count >= threshold and g``, and
    g keeps the list of the ANDs it gates whose other inputs hold (*armed*,
    maintained as their counts cross the threshold).  When g flips, only its
    armed ANDs can change: a step costs what changes, also there.

    Everything that changes during a playout lives in one block of memory
    (``mem``), so that a playout restarts from a copy of the settled root.
    """

    def __cinit__(self):
        self.mem = NULL
        self.nets = NULL
        self.control = NULL
        self.sync = NULL
        self.nnets = self.cur = 0
        self.flip_count = NULL
        self.win_node = NULL
        self.lz_node = self.lz_start = self.lz_lit = self.lz_hi = NULL
        self.lz_kind = NULL

    def __init__(self, kind, in_start, in_lit, out_start, out_lit, block_lo, block_hi,
                 base_node, next_node, does_node, legal_node, move_role, nroles,
                 terminal_node, goal_node, goal_role, goal_value, true_node, gating=(),
                 lazy=None, win_node=None):
        cdef int n, nbase, nmoves, i, j
        kind = np.asarray(kind, dtype=np.uint8)
        block_lo = np.asarray(block_lo, dtype=np.int32)
        out_lit = np.asarray(out_lit, dtype=np.int64)
        next_node = np.asarray(next_node, dtype=np.int32)
        legal_node = np.asarray(legal_node, dtype=np.int32)
        self.n = n = len(kind)
        self.nwords = (n + 63) // 64
        self.nbase = nbase = len(base_node)
        self.nmoves = nmoves = len(does_node)
        self.nroles = nroles
        self.ngoals = len(goal_node)
        self.term_node = terminal_node
        # watched nodes: legal outputs and next outputs
        entries = [[] for _ in range(n)]
        for m, node in enumerate(legal_node):
            entries[node].append(m)
        for b, node in enumerate(next_node):
            if node >= 0:
                entries[node].append(~b)
        watch_start = np.zeros(n + 1, dtype=np.int32)
        watch_start[1:] = np.cumsum([len(e) for e in entries])
        self.watch_start = <int32_t*> _copy(watch_start, np.int32)
        self.watch = <int32_t*> _copy([x for e in entries for x in e], np.int32)
        in_block = block_lo >= 0
        in_start = np.asarray(in_start, dtype=np.int64)
        out_start = np.asarray(out_start, dtype=np.int64)
        gate_of, out_start, out_lit, gout_start, gout_lit, armed_start = _gates(
            kind, in_start, in_block, out_start, out_lit, gating)
        gated = gate_of < n
        self.ngated = int(gated.sum())
        lazy = lazy or dict(node=[], start=[0], lit=[], kind=[], hi=[])
        is_lazy = np.zeros(n, dtype=bool)
        is_lazy[np.asarray(lazy["node"], dtype=np.int64)] = True
        self.nlazy = len(lazy["node"])
        self.lz_node = <int32_t*> _copy(lazy["node"], np.int32)
        self.lz_start = <int32_t*> _copy(lazy["start"], np.int32)
        self.lz_lit = <int32_t*> _copy(lazy["lit"], np.int32)
        self.lz_kind = <uint8_t*> _copy(lazy["kind"], np.uint8)
        self.lz_hi = <int32_t*> _copy(lazy["hi"], np.int32)
        self.flags = <uint8_t*> _copy(in_block * IN_BLOCK + (np.diff(watch_start) > 0) * WATCHED
                                      + (np.diff(armed_start) > 0) * GATING + gated * GATED
                                      + is_lazy * LAZY, np.uint8)
        readers = out_lit >> 1
        self.out_lit = <int32_t*> _copy(readers * 4 + in_block[readers] * READER_IN_BLOCK
                                        + (out_lit & 1), np.int32)
        self.gout_start = <int32_t*> _copy(gout_start, np.int32)
        self.gout_lit = <int32_t*> _copy(gout_lit, np.int32)
        self.gate_of = <int32_t*> _copy(gate_of, np.int32)
        self.armed_start = <int32_t*> _copy(armed_start, np.int32)
        self.in_start = <int32_t*> _copy(in_start, np.int32)
        self.in_lit = <int32_t*> _copy(in_lit, np.int32)
        self.out_start = <int32_t*> _copy(out_start, np.int32)
        self.block_lo = <int32_t*> _copy(block_lo, np.int32)
        self.block_hi = <int32_t*> _copy(block_hi, np.int32)
        self.base_node = <int32_t*> _copy(base_node, np.int32)
        self.next_node = <int32_t*> _copy(next_node, np.int32)
        self.does_node = <int32_t*> _copy(does_node, np.int32)
        self.legal_node = <int32_t*> _copy(legal_node, np.int32)
        self.move_role = <int32_t*> _copy(move_role, np.int32)
        self.goal_node = <int32_t*> _copy(goal_node, np.int32)
        self.goal_role = <int32_t*> _copy(goal_role, np.int32)
        self.goal_value = <int32_t*> _copy(goal_value, np.int32)
        if win_node is not None:
            self.win_node = <int32_t*> _copy(win_node, np.int32)
        starts = np.searchsorted(np.asarray(move_role, dtype=np.int32),
                                 np.arange(nroles + 1)).astype(np.int32)
        self.role_start = <int32_t*> _copy(starts, np.int32)
        self.dirty = <uint64_t*> _zeros(self.nwords * 8)
        self.scratch_moves = <int32_t*> _zeros(nmoves * 4)
        self.pending = <int32_t*> _zeros(nbase * 4)
        self.chosen = <int32_t*> _zeros(nroles * 4)
        # the mutable block: int32 arrays first, then bytes
        cdef size_t words = n + nroles * 2 + nmoves * 2 + 1 + nbase + 2 * n + self.ngated
        self.mem_size = words * 4 + nbase + n + 1
        self.mem = <char*> _zeros(self.mem_size)
        self.ct = <int32_t*> self.mem
        self.current = self.ct + n
        self.legal_count = self.current + self.nroles
        self.legal_list = self.legal_count + self.nroles
        self.legal_pos = self.legal_list + nmoves
        self.cand_count = self.legal_pos + nmoves
        self.cand_list = self.cand_count + 1
        self.armed_count = self.cand_list + nbase
        self.armed_pos = self.armed_count + n
        self.armed_list = self.armed_pos + n
        self.cand_flag = <uint8_t*> (self.armed_list + self.ngated)
        self.val = self.cand_flag + nbase
        self.val[n] = 1                         # what an ungated node is gated by
        for i in range(nroles):
            self.current[i] = -1
        for i in range(nmoves):
            self.legal_pos[i] = -1
        for i in range(n):
            self.armed_pos[i] = -1
        # all values false: a gate's true inputs are its negated ones (a gated
        # AND's gating input is positive, and not counted)
        for i in range(n):
            self.ct[i] = -(1 if kind[i] == OR else
                           self.in_start[i + 1] - self.in_start[i] - (self.gate_of[i] < n))
            for j in range(self.in_start[i], self.in_start[i + 1]):
                self.ct[i] += self.in_lit[j] & 1
            if self.gate_of[i] < n:
                self._arm(i, self.ct[i] >= 0)
        if true_node >= 0:
            self._setval(true_node, 1)
        # every gate starts dirty: one full evaluation settles the network
        for i in range(n):
            if kind[i] != INPUT:
                self.dirty[i >> 6] |= (<uint64_t> 1) << (i & 63)
        with nogil:
            self.propagate()
            self._find_candidates()

    def copy(self):
        """A kernel of its own on the same network, in the same state: every
        array copied as it is, nothing rebuilt (a state machine's fork)."""
        cdef Kernel k
        cdef int n = self.n
        if self.nnets:
            k = Kernel.split([sub.copy() for sub in self.subs],
                             [self.control[i] for i in range(self.nnets - 1)], self.logcap)
            memcpy(k.sync, self.sync, self.sync_size)
            k._adopt(self.cur)
            return k
        k = Kernel.__new__(Kernel)
        k.n, k.nwords, k.nbase, k.nmoves = n, self.nwords, self.nbase, self.nmoves
        k.ngated = self.ngated
        k.gate_of = <int32_t*> _dup(self.gate_of, 4 * n)
        k.armed_start = <int32_t*> _dup(self.armed_start, 4 * (n + 1))
        k.nroles, k.ngoals, k.term_node = self.nroles, self.ngoals, self.term_node
        k.flags = <uint8_t*> _dup(self.flags, n)
        k.in_start = <int32_t*> _dup(self.in_start, 4 * (n + 1))
        k.in_lit = <int32_t*> _dup(self.in_lit, 4 * self.in_start[n])
        k.out_start = <int32_t*> _dup(self.out_start, 4 * (n + 1))
        k.out_lit = <int32_t*> _dup(self.out_lit, 4 * self.out_start[n])
        k.gout_start = <int32_t*> _dup(self.gout_start, 4 * (n + 1))
        k.gout_lit = <int32_t*> _dup(self.gout_lit, 4 * self.gout_start[n])
        k.block_lo = <int32_t*> _dup(self.block_lo, 4 * n)
        k.block_hi = <int32_t*> _dup(self.block_hi, 4 * n)
        k.watch_start = <int32_t*> _dup(self.watch_start, 4 * (n + 1))
        k.watch = <int32_t*> _dup(self.watch, 4 * self.watch_start[n])
        k.base_node = <int32_t*> _dup(self.base_node, 4 * self.nbase)
        k.next_node = <int32_t*> _dup(self.next_node, 4 * self.nbase)
        k.does_node = <int32_t*> _dup(self.does_node, 4 * self.nmoves)
        k.legal_node = <int32_t*> _dup(self.legal_node, 4 * self.nmoves)
        k.move_role = <int32_t*> _dup(self.move_role, 4 * self.nmoves)
        k.role_start = <int32_t*> _dup(self.role_start, 4 * (self.nroles + 1))
        k.goal_node = <int32_t*> _dup(self.goal_node, 4 * self.ngoals)
        k.goal_role = <int32_t*> _dup(self.goal_role, 4 * self.ngoals)
        k.goal_value = <int32_t*> _dup(self.goal_value, 4 * self.ngoals)
        if self.win_node != NULL:
            k.win_node = <int32_t*> _dup(self.win_node, 4 * self.nroles)
        k.nlazy = self.nlazy
        k.lz_node = <int32_t*> _dup(self.lz_node, 4 * self.nlazy)
        k.lz_start = <int32_t*> _dup(self.lz_start, 4 * (self.nlazy + 1))
        k.lz_lit = <int32_t*> _dup(self.lz_lit, 4 * self.lz_start[self.nlazy])
        k.lz_kind = <uint8_t*> _dup(self.lz_kind, self.nlazy)
        k.lz_hi = <int32_t*> _dup(self.lz_hi, 4 * self.nlazy)
        k.dirty = <uint64_t*> _dup(self.dirty, 8 * self.nwords)
        k.scratch_moves = <int32_t*> _zeros(self.nmoves * 4)
        k.pending = <int32_t*> _zeros(self.nbase * 4)
        k.chosen = <int32_t*> _zeros(self.nroles * 4)
        k.mem_size = self.mem_size
        k.mem = <char*> _dup(self.mem, self.mem_size)
        k.ct = <int32_t*> (k.mem + (<char*> self.ct - self.mem))
        k.current = <int32_t*> (k.mem + (<char*> self.current - self.mem))
        k.legal_count = <int32_t*> (k.mem + (<char*> self.legal_count - self.mem))
        k.legal_list = <int32_t*> (k.mem + (<char*> self.legal_list - self.mem))
        k.legal_pos = <int32_t*> (k.mem + (<char*> self.legal_pos - self.mem))
        k.cand_count = <int32_t*> (k.mem + (<char*> self.cand_count - self.mem))
        k.cand_list = <int32_t*> (k.mem + (<char*> self.cand_list - self.mem))
        k.armed_count = <int32_t*> (k.mem + (<char*> self.armed_count - self.mem))
        k.armed_pos = <int32_t*> (k.mem + (<char*> self.armed_pos - self.mem))
        k.armed_list = <int32_t*> (k.mem + (<char*> self.armed_list - self.mem))
        k.cand_flag = <uint8_t*> (k.mem + (<char*> self.cand_flag - self.mem))
        k.val = <uint8_t*> (k.mem + (<char*> self.val - self.mem))
        return k

    def __dealloc__(self):
        if self.nets != NULL:           # a split kernel: the networks' arrays are its subs'
            free(self.nets); free(self.control); free(self.sync)
            free(self.scratch_moves); free(self.pending); free(self.chosen)
            return
        if self.mem == NULL:
            return
        free(self.mem); free(self.flags); free(self.in_start); free(self.in_lit)
        free(self.out_start); free(self.out_lit); free(self.block_lo); free(self.block_hi)
        free(self.watch_start); free(self.watch); free(self.base_node); free(self.next_node)
        free(self.does_node); free(self.legal_node); free(self.move_role)
        free(self.role_start); free(self.goal_node); free(self.goal_role)
        free(self.goal_value); free(self.dirty); free(self.scratch_moves)
        free(self.pending); free(self.chosen); free(self.gate_of); free(self.armed_start)
        free(self.gout_start); free(self.gout_lit)
        free(self.lz_node); free(self.lz_start); free(self.lz_lit); free(self.lz_kind)
        free(self.lz_hi); free(self.win_node)

    # --- split by control (ggplib's combined state machine) ---------------------
    @staticmethod
    def split(subs, controls, logcap=None):
        """One kernel over several networks of a game: ``subs[i]`` built with
        control proposition ``controls[i]`` (a base index) true and the other
        controls false, ``subs[-1]`` the whole network.  It runs on the network
        of the current state's control, or on the whole one when not exactly one
        control holds, so every answer is the whole network's.

        In a turn-taking game the network of a role's turn has the control
        proposition folded away: no legal-move gate reads it, the other roles'
        legal moves are constants, and nothing flips when the turn passes, which
        in the whole network flips every legal move of both roles (the combined
        state machine of ggplib, github.com/richemslie/ggplib, there for two
        roles).  A network left when the turn passes keeps its values; when its
        turn comes back, the base propositions that changed meanwhile are flipped
        in it (``_switch``, from a log of the flips; ``logcap`` entries, beyond
        which a network compares every base proposition).  Its candidates for
        the next state stay a superset: ``_advance`` puts back those it did
        not apply, ``_switch`` adds those it flips.  The kernel's arrays are
        the current network's (``_adopt``), so code that reads ``legal_list`` or
        ``val`` needs no change; node numbers differ between the networks, so
        :meth:`value` refuses."""
        cdef Kernel k = Kernel.__new__(Kernel)
        cdef Kernel sub
        cdef int i
        k.nnets = len(subs)
        k.nets = <Net*> _zeros(sizeof(Net) * k.nnets)
        for i in range(k.nnets):
            sub = subs[i]
            sub._describe(&k.nets[i])
        sub = subs[k.nnets - 1]
        k.nbase, k.nmoves, k.nroles = sub.nbase, sub.nmoves, sub.nroles
        k.move_role, k.role_start = sub.move_role, sub.role_start
        k.control = <int32_t*> _copy(controls, np.int32)
        k.logcap = 4 * k.nbase + 64 if logcap is None else logcap
        k.sync_size = 4 * (1 + k.logcap + k.nnets) + k.nnets + k.nbase
        k.sync = <char*> _zeros(k.sync_size)
        k.nlog = <int32_t*> k.sync
        k.log = k.nlog + 1
        k.seen = k.log + k.logcap
        k.stale = <uint8_t*> (k.seen + k.nnets)
        k.state = k.stale + k.nnets
        k.scratch_moves = <int32_t*> _zeros(k.nmoves * 4)
        k.pending = <int32_t*> _zeros(k.nbase * 4)
        k.chosen = <int32_t*> _zeros(k.nroles * 4)
        k.subs = list(subs)
        for i in range(k.nnets - 1):
            k.stale[i] = LOAD
        k._adopt(k.nnets - 1)
        sub._read_base(k.state)
        return k

    cdef void _describe(self, Net* net) noexcept nogil:
        """Fill ``net`` with this kernel's arrays."""
        net.n = self.n
        net.nwords = self.nwords
        net.ngated = self.ngated
        net.term_node = self.term_node
        net.ngoals = self.ngoals
        net.nlazy = self.nlazy
        net.mem_size = self.mem_size
        net.mem = self.mem
        net.flags = self.flags
        net.in_start = self.in_start
        net.in_lit = self.in_lit
        net.out_start = self.out_start
        net.out_lit = self.out_lit
        net.gout_start = self.gout_start
        net.gout_lit = self.gout_lit
        net.gate_of = self.gate_of
        net.armed_start = self.armed_start
        net.block_lo = self.block_lo
        net.block_hi = self.block_hi
        net.watch_start = self.watch_start
        net.watch = self.watch
        net.base_node = self.base_node
        net.next_node = self.next_node
        net.does_node = self.does_node
        net.legal_node = self.legal_node
        net.goal_node = self.goal_node
        net.goal_role = self.goal_role
        net.goal_value = self.goal_value
        net.win_node = self.win_node
        net.dirty = self.dirty
        net.ct = self.ct
        net.current = self.current
        net.legal_count = self.legal_count
        net.legal_list = self.legal_list
        net.legal_pos = self.legal_pos
        net.cand_count = self.cand_count
        net.cand_list = self.cand_list
        net.cand_flag = self.cand_flag
        net.val = self.val
        net.armed_count = self.armed_count
        net.armed_list = self.armed_list
        net.armed_pos = self.armed_pos
        net.lz_node = self.lz_node
        net.lz_start = self.lz_start
        net.lz_lit = self.lz_lit
        net.lz_kind = self.lz_kind
        net.lz_hi = self.lz_hi

    cdef void _adopt(self, int i) noexcept nogil:
        """Make network ``i``'s arrays this kernel's."""
        cdef Net* net = &self.nets[i]
        self.cur = i
        self.n = net.n
        self.nwords = net.nwords
        self.ngated = net.ngated
        self.term_node = net.term_node
        self.ngoals = net.ngoals
        self.nlazy = net.nlazy
        self.mem_size = net.mem_size
        self.mem = net.mem
        self.flags = net.flags
        self.in_start = net.in_start
        self.in_lit = net.in_lit
        self.out_start = net.out_start
        self.out_lit = net.out_lit
        self.gout_start = net.gout_start
        self.gout_lit = net.gout_lit
        self.gate_of = net.gate_of
        self.armed_start = net.armed_start
        self.block_lo = net.block_lo
        self.block_hi = net.block_hi
        self.watch_start = net.watch_start
        self.watch = net.watch
        self.base_node = net.base_node
        self.next_node = net.next_node
        self.does_node = net.does_node
        self.legal_node = net.legal_node
        self.goal_node = net.goal_node
        self.goal_role = net.goal_role
        self.goal_value = net.goal_value
        self.win_node = net.win_node
        self.dirty = net.dirty
        self.ct = net.ct
        self.current = net.current
        self.legal_count = net.legal_count
        self.legal_list = net.legal_list
        self.legal_pos = net.legal_pos
        self.cand_count = net.cand_count
        self.cand_list = net.cand_list
        self.cand_flag = net.cand_flag
        self.val = net.val
        self.armed_count = net.armed_count
        self.armed_list = net.armed_list
        self.armed_pos = net.armed_pos
        self.lz_node = net.lz_node
        self.lz_start = net.lz_start
        self.lz_lit = net.lz_lit
        self.lz_kind = net.lz_kind
        self.lz_hi = net.lz_hi

    cdef int _net_for(self, const uint8_t* state) noexcept nogil:
        """The network of ``state``: its control's, or the whole one."""
        cdef int i, found = -1
        for i in range(self.nnets - 1):
            if state[self.control[i]]:
                if found >= 0:
                    return self.nnets - 1
                found = i
        return found if found >= 0 else self.nnets - 1

    cdef void _switch(self, int i) noexcept nogil:
        """Run on network ``i`` from now on, bringing it to ``state``: loaded
        afresh if it was not loaded since the last :meth:`_load`, else by
        flipping the base propositions that changed since it was left (those
        the log names since, or, if the log overflowed, all that differ)."""
        cdef int k, b, node
        cdef bint scan = self.stale[i] & SCAN
        self._adopt(i)
        if self.stale[i] & LOAD:
            self._load_net(self.state)
        else:
            for k in range(0 if scan else self.seen[i], self.nbase if scan else self.nlog[0]):
                b = k if scan else self.log[k]
                node = self.base_node[b]
                if self.val[node] != self.state[b]:
                    self._setval(node, self.state[b])
                    self._candidate(b)              # its next value may now differ
            self.propagate()
            if self.stale[i] & SORT:
                self._sort_net()
        self.stale[i] = 0
        self.seen[i] = self.nlog[0]

    cdef void _log(self, int npending) noexcept nogil:
        """Append the ``pending`` flips to the log, first dropping what every
        network has applied.  When the log cannot hold the backlog and these,
        it starts empty, and every network loaded since the last :meth:`_load`
        (the current one too: it has not applied these) will compare every
        base proposition instead (SCAN)."""
        cdef int i, low = self.nlog[0]
        if self.nlog[0] + npending > self.logcap:
            for i in range(self.nnets):
                if self.stale[i] & (LOAD | SCAN) == 0 and self.seen[i] < low:
                    low = self.seen[i]
            if self.nlog[0] - low + npending > self.logcap:
                for i in range(self.nnets):
                    if self.stale[i] & LOAD == 0:
                        self.stale[i] |= SCAN
                self.nlog[0] = 0
                return
            memmove(self.log, self.log + low, 4 * (self.nlog[0] - low))
            self.nlog[0] -= low
            for i in range(self.nnets):
                self.seen[i] = max(0, self.seen[i] - low)
        memcpy(self.log + self.nlog[0], self.pending, 4 * npending)
        self.nlog[0] += npending

    cdef void _read_base(self, uint8_t* out) noexcept nogil:
        """The current base values, one byte per base proposition."""
        cdef int b
        for b in range(self.nbase):
            out[b] = self.val[self.base_node[b]]

    # --- the core: set inputs, propagate -----------------------------------
    cdef void _settle_goals(self) noexcept nogil:
        """Evaluate the lazy goal gates from the current values (module
        docstring): in index order, so a gate's inputs are settled before it;
        a block from all false until nothing changes (its least fixpoint)."""
        cdef int i = 0, k, hi
        cdef uint8_t v
        cdef bint changed
        while i < self.nlazy:
            hi = self.lz_hi[i]
            if hi < 0:
                self.val[self.lz_node[i]] = self._lazy_value(i)
                i += 1
                continue
            for k in range(i, hi + 1):
                self.val[self.lz_node[k]] = 0
            changed = True
            while changed:
                changed = False
                for k in range(i, hi + 1):
                    v = self._lazy_value(k)
                    if v != self.val[self.lz_node[k]]:
                        self.val[self.lz_node[k]] = v
                        changed = True
            i = hi + 1

    cdef void _last_goals(self, double* out) noexcept nogil:
        """Each role's goal in the current state, what a playout scores: the
        value of its last true goal node (in goal order), else 0.  Goals are
        read through here or :meth:`_best_goals`, which settle the lazy ones."""
        cdef int g
        self._settle_goals()
        for g in range(self.nroles):
            out[g] = 0
        for g in range(self.ngoals):
            if self.val[self.goal_node[g]]:
                out[self.goal_role[g]] = self.goal_value[g]

    cdef void _best_goals(self, double* out) noexcept nogil:
        """Each role's highest true goal in the current state, else 0."""
        cdef int g, r
        self._settle_goals()
        for r in range(self.nroles):
            out[r] = -1
        for g in range(self.ngoals):
            if self.val[self.goal_node[g]] and self.goal_value[g] > out[self.goal_role[g]]:
                out[self.goal_role[g]] = self.goal_value[g]
        for r in range(self.nroles):
            if out[r] < 0:
                out[r] = 0

    cdef inline uint8_t _lazy_value(self, int k) noexcept nogil:
        """The value of the k-th lazy gate from its inputs' values."""
        cdef int j, lit
        cdef uint8_t want = self.lz_kind[k] == AND
        for j in range(self.lz_start[k], self.lz_start[k + 1]):
            lit = self.lz_lit[j]
            if (self.val[lit >> 1] ^ (lit & 1)) != want:
                return 1 - want
        return want

    cdef inline void _setval(self, int node, uint8_t v) noexcept nogil:
        """Give ``node`` value ``v``: adjust its readers' counts, and mark dirty
        those whose value the new count would change (every reader in a cycle
        block, whose value is not a function of its count alone); keep the
        armed lists of gated readers; if ``node`` gates ANDs, mark its armed
        ones dirty (their value follows it)."""
        cdef int j, lit, reader, c, d
        cdef uint8_t now, flags = self.flags[node]
        self.val[node] = v
        if flags & WATCHED:
            self._notify(node, v)
        for j in range(self.out_start[node], self.out_start[node + 1]):
            lit = self.out_lit[j]
            reader = lit >> 2
            d = (((v ^ lit) & 1) << 1) - 1                  # +1 if the literal became true
            c = self.ct[reader] + d
            self.ct[reader] = c
            # branch-free: dirty when the count crosses 0 (up to 0 or down to
            # -1), or inside a block
            self.dirty[reader >> 6] |= (<uint64_t> ((c + (d < 0) == 0)
                                                    | ((lit >> 1) & 1))) << (reader & 63)
        for j in range(self.gout_start[node], self.gout_start[node + 1]):
            lit = self.gout_lit[j]                          # reader * 2 + negated
            reader = lit >> 1
            c = self.ct[reader] + (((v ^ lit) & 1) << 1) - 1
            self.ct[reader] = c
            now = c >= 0
            self._arm(reader, now)
            self.dirty[reader >> 6] |= (<uint64_t> ((now & self.val[self.gate_of[reader]])
                                                    ^ self.val[reader])) << (reader & 63)
        if flags & GATING:
            self._armed_dirty(node)

    cdef inline void _armed_dirty(self, int node) noexcept nogil:
        """Mark dirty the armed ANDs gated by ``node`` (their value follows it)."""
        cdef int k, reader
        for k in range(self.armed_start[node], self.armed_start[node] + self.armed_count[node]):
            reader = self.armed_list[k]
            self.dirty[reader >> 6] |= (<uint64_t> 1) << (reader & 63)

    cdef inline void _arm(self, int gate, bint ready) noexcept nogil:
        """Keep gated AND ``gate`` in its gating node's armed list iff ``ready``
        (its other inputs hold)."""
        cdef int g, pos = self.armed_pos[gate]
        if ready and pos < 0:
            g = self.gate_of[gate]
            _add(self.armed_list + self.armed_start[g], self.armed_pos, &self.armed_count[g],
                 self.armed_start[g], gate)
        elif not ready and pos >= 0:
            g = self.gate_of[gate]
            _drop(self.armed_list + self.armed_start[g], self.armed_pos, &self.armed_count[g],
                  self.armed_start[g], gate)

    cdef void _notify(self, int node, uint8_t v) noexcept nogil:
        """Keep the legal sets and the next-state candidates up to date after
        the legal or next output ``node`` became ``v``."""
        cdef int j, e, r
        for j in range(self.watch_start[node], self.watch_start[node + 1]):
            e = self.watch[j]
            if e < 0:                               # the next value of base ~e
                self._candidate(~e)
                continue
            r = self.move_role[e]                   # move e became legal or not
            if v:
                _add(self.legal_list + self.role_start[r], self.legal_pos,
                     &self.legal_count[r], self.role_start[r], e)
            else:
                _drop(self.legal_list + self.role_start[r], self.legal_pos,
                      &self.legal_count[r], self.role_start[r], e)

    cdef inline void _set(self, int node, uint8_t v) noexcept nogil:
        if self.val[node] != v:
            self._setval(node, v)

    cdef inline uint8_t _eval(self, int i) noexcept nogil:
        cdef uint8_t v = self.ct[i] >= 0
        if self.flags[i] & GATED:
            v &= self.val[self.gate_of[i]]
        return v

    cdef void _block(self, int lo, int hi) noexcept nogil:
        """Least fixpoint of a cycle block, from all false."""
        cdef int i
        cdef bint changed = True
        cdef uint8_t v
        for i in range(lo, hi + 1):
            self._set(i, 0)
        while changed:
            changed = False
            for i in range(lo, hi + 1):
                v = self._eval(i)
                if v != self.val[i]:
                    self._setval(i, v)
                    changed = True
        for i in range(lo, hi + 1):
            self.dirty[i >> 6] &= ~((<uint64_t> 1) << (i & 63))

    cdef void propagate(self) noexcept nogil:
        cdef int w, i
        cdef uint64_t bits
        cdef uint8_t v
        for w in range(self.nwords):
            while self.dirty[w]:
                bits = self.dirty[w]
                i = (w << 6) + __builtin_ctzll(bits)
                self.dirty[w] = bits & (bits - 1)
                if self.flags[i] & IN_BLOCK:
                    self._block(self.block_lo[i], self.block_hi[i])
                    continue
                v = self._eval(i)
                if v != self.val[i]:
                    self._setval(i, v)

    cdef void _find_candidates(self) noexcept nogil:
        """Make the candidates exactly the base propositions whose next value
        differs from their current one (after inputs were set from outside)."""
        cdef int b, node
        for b in range(self.nbase):
            self.cand_flag[b] = 0
        self.cand_count[0] = 0
        for b in range(self.nbase):
            node = self.next_node[b]
            if node >= 0 and self.val[node] != self.val[self.base_node[b]] or \
                    node < 0 and self.val[self.base_node[b]]:
                self._candidate(b)

    cdef inline void _candidate(self, int b) noexcept nogil:
        """Add base proposition ``b`` to the candidates, if not there yet."""
        if not self.cand_flag[b]:
            self.cand_flag[b] = 1
            self.cand_list[self.cand_count[0]] = b
            self.cand_count[0] += 1

    cdef void _load(self, const uint8_t* state) noexcept nogil:
        """Make the base inputs equal ``state`` (one byte per base proposition),
        clear the does inputs, then settle the network (of a split kernel: the
        state's network; the others are loaded when their turn comes)."""
        if self.nnets == 0:
            self._load_net(state)
            return
        memcpy(self.state, state, self.nbase)
        memset(self.stale, LOAD, self.nnets)
        self.nlog[0] = 0
        self._switch(self._net_for(state))

    cdef void _load_net(self, const uint8_t* state) noexcept nogil:
        """:meth:`_load` on the current network."""
        cdef int b
        for b in range(self.nbase):
            self._set(self.base_node[b], state[b])
        for b in range(self.nroles):
            if self.current[b] >= 0:
                self._set(self.does_node[self.current[b]], 0)
                self.current[b] = -1
        self.propagate()
        self._find_candidates()
        self._sort_net()

    cdef void _sort_legal(self) noexcept nogil:
        """Put each role's legal moves in move order.  The incremental sets
        are ordered by their history; a playout picks a move by its position,
        so a state loaded from outside must start from one canonical order for
        a seeded playout to depend on nothing but the state and the seed.  (A
        split kernel's other networks sort theirs when their turn comes.)"""
        cdef int i
        self._sort_net()
        for i in range(self.nnets):
            if i != self.cur:
                self.stale[i] |= SORT

    cdef void _sort_net(self) noexcept nogil:
        """:meth:`_sort_legal` on the current network."""
        cdef int r, m, k
        for r in range(self.nroles):
            k = self.role_start[r]
            for m in range(self.role_start[r], self.role_start[r + 1]):
                if self.legal_pos[m] >= 0:
                    self.legal_list[k] = m
                    self.legal_pos[m] = k
                    k += 1

    cdef void _advance(self) noexcept nogil:
        """Make the current state the next one, keeping the does inputs set.

        Only the candidates can change.  Their next values are all read before
        any is written (a next output may be a base input itself).  Keeping the
        last joint move's inputs set is what a playout does: legal, goal and
        terminal never depend on does (the validator ensures it), so they are
        right either way, and the next move only flips what differs.  A split
        kernel moves to the next state's network when the control changes.
        """
        cdef int k, b, node, net, npending = 0
        cdef uint8_t v
        for k in range(self.cand_count[0]):
            b = self.cand_list[k]
            self.cand_flag[b] = 0
            node = self.next_node[b]
            v = self.val[node] if node >= 0 else 0
            if v != self.val[self.base_node[b]]:
                self.pending[npending] = b
                npending += 1
        self.cand_count[0] = 0
        if self.flip_count != NULL:
            for k in range(npending):
                self.flip_count[self.pending[k]] += 1
        if self.nnets:
            for k in range(npending):
                self.state[self.pending[k]] ^= 1
            net = self._net_for(self.state)
            self.seen[self.cur] = self.nlog[0]
            self._log(npending)
            if net != self.cur:
                # this network is left as it is: its candidates keep the
                # changes it did not apply
                for k in range(npending):
                    self._candidate(self.pending[k])
                self._switch(net)
                return
            self.seen[net] = self.nlog[0]
            self.stale[net] = 0
        for k in range(npending):
            node = self.base_node[self.pending[k]]
            self._setval(node, 1 - self.val[node])
        self.propagate()

    cdef void _do(self) noexcept nogil:
        """Make the does inputs those of the moves in ``chosen``, then settle."""
        cdef int r
        for r in range(self.nroles):
            if self.current[r] != self.chosen[r]:
                if self.current[r] >= 0:
                    self._set(self.does_node[self.current[r]], 0)
                self._set(self.does_node[self.chosen[r]], 1)
                self.current[r] = self.chosen[r]
        self.propagate()

    cdef void _read_next(self, uint8_t* out) noexcept nogil:
        cdef int b, node
        for b in range(self.nbase):
            node = self.next_node[b]
            out[b] = self.val[node] if node >= 0 else 0

    cdef int _legal(self, int role, int32_t* out) noexcept nogil:
        """Indices of the legal moves of ``role`` (in order); returns how many."""
        cdef int m, k = 0
        for m in range(self.role_start[role], self.role_start[role + 1]):
            if self.val[self.legal_node[m]]:
                out[k] = m
                k += 1
        return k

    # --- Python-level questions (one call per question) ------------------------
    def load(self, const uint8_t[:] state):
        self._load(&state[0] if self.nbase else NULL)

    def legal(self, int role):
        cdef int k = self._legal(role, self.scratch_moves)
        return [self.scratch_moves[i] for i in range(k)]

    def terminal(self):
        return bool(self.val[self.term_node]) if self.term_node >= 0 else False

    def goals(self, int role):
        self._settle_goals()
        return [self.goal_value[g] for g in range(self.ngoals)
                if self.goal_role[g] == role and self.val[self.goal_node[g]]]

    def value(self, int node):
        if self.nnets:
            raise ValueError("a split kernel's networks number their nodes differently")
        if self.flags[node] & LAZY:
            self._settle_goals()
        return self.val[node]

    def true_nodes(self, groups):
        """Per group (a list of node numbers), the tuple of its nodes now true.
        A split kernel answers only empty groups (its networks number their
        nodes differently): the percepts of a game without ``sees``, the only
        games a machine splits (:meth:`ggp.reasoners.compiled.CompiledMachine._controls`)."""
        cdef int n
        if self.nnets and any(len(group) for group in groups):
            raise ValueError("a split kernel's networks number their nodes differently")
        return tuple([tuple([n for n in group if self.val[n]]) for group in groups])

    def next_state(self, const uint8_t[:] state, joint):
        """The next state after move indices ``joint`` (one per role)."""
        cdef int r
        self._load(&state[0] if self.nbase else NULL)
        for r in range(self.nroles):
            self.chosen[r] = joint[r]
        self._do()
        out = bytearray(self.nbase)
        cdef uint8_t[:] view = out
        if self.nbase:
            self._read_next(&view[0])
        return bytes(out)

    cdef int _playout(self, uint64_t* rng, int max_steps, int32_t* record) noexcept nogil:
        """One uniformly random playout from the current (settled) state.

        Returns its depth, negated minus one if it was cut short by
        ``max_steps`` or by a role without legal moves.  When ``record`` is
        not NULL it receives, per step and role, the number of legal moves
        and the move chosen (``2 * nroles`` ints a step).
        """
        cdef int depth = 0, r
        while not (self.term_node >= 0 and self.val[self.term_node]):
            if depth >= max_steps or not self._random_joint(rng):
                return -1 - depth
            if record != NULL:
                for r in range(self.nroles):
                    record[(depth * self.nroles + r) * 2] = self.legal_count[r]
                    record[(depth * self.nroles + r) * 2 + 1] = self.chosen[r]
            self._do()
            self._advance()
            depth += 1
        return depth

    cdef bint _random_joint(self, uint64_t* rng) noexcept nogil:
        """A uniformly random legal move per role, into ``chosen``; false if
        a role has none."""
        cdef int r, k
        for r in range(self.nroles):
            k = self.legal_count[r]
            if k == 0:
                return False
            self.chosen[r] = self.legal_list[self.role_start[r] + _below(rng, k)]
        return True

    cdef int _decisive(self, int role, const int32_t* moves, int k) noexcept nogil:
        """The first of the ``k`` moves ``moves`` of ``role`` that ends the game
        at once with its goal 100, the other roles playing what ``chosen``
        holds for them (its index in ``moves``), or -1; each is tried by
        setting the does inputs (a kernel built with
        :meth:`ggp.reasoners.propnet.Network.with_wins`, else -1 at once)."""
        cdef int i
        if self.win_node == NULL:
            return -1
        for i in range(k):
            self.chosen[role] = moves[i]
            self._do()
            if self.val[self.win_node[role]]:
                return i
        return -1

    def decisive(self, const uint8_t[:] state, int role):
        """The first legal move of ``role`` in ``state`` (in move order) that
        ends the game at once with its goal 100, the other roles playing
        their first legal move, or -1 (:meth:`_decisive`)."""
        cdef int r, k
        self._load(&state[0] if self.nbase else NULL)
        for r in range(self.nroles):
            if r != role:
                if self.legal_count[r] == 0:
                    return -1
                self.chosen[r] = self.legal_list[self.role_start[r]]
        k = self._legal(role, self.scratch_moves)
        r = self._decisive(role, self.scratch_moves, k)
        return self.scratch_moves[r] if r >= 0 else -1

    @property
    def wins(self):
        """Whether the kernel reads wins (:meth:`_decisive`)."""
        return self.win_node != NULL

    def one_of(self, const uint8_t[:] state, bases, long steps, unsigned long long seed):
        """Whether exactly one of the base propositions ``bases`` (indices)
        holds in every state of random playouts from ``state``, ``steps``
        steps in all: the test of a group of control propositions."""
        cdef int32_t[:] group = np.asarray(bases, dtype=np.int32)
        cdef uint64_t rng = _seed(seed)
        cdef long done = 0
        cdef int i, on, depth, k = group.shape[0]
        cdef bint held = True
        with nogil:                             # seconds on a large network: other threads run
            while done < steps and held:
                self._load(&state[0])
                depth = 0
                while True:
                    on = 0
                    for i in range(k):
                        on += self.val[self.base_node[group[i]]]
                    if on != 1:
                        held = False
                        break
                    if self.term_node >= 0 and self.val[self.term_node] or done >= steps \
                            or not self._random_joint(&rng):
                        break
                    self._do()
                    self._advance()
                    done += 1
                    depth += 1
                if depth == 0:
                    break
        return held

    def playouts(self, const uint8_t[:] state, long count, unsigned long long seed,
                 int max_steps=100000, list fault=None, int free_role=-1):
        """Run ``count`` uniformly random playouts from ``state`` in C.

        Returns (total steps, the final goals summed per role, the number of
        playouts cut short by ``max_steps`` or by a role without legal moves).
        The sums cannot show a role with no goal or with two, so with
        ``fault`` (a list) the goals of every terminal state reached are
        checked against GDL's rule, exactly one goal 0..100 per role
        (``free_role``, GDL-II's random, may have none), and the first state
        that breaks it adds (role, its goal values) to ``fault``.
        """
        cdef uint64_t rng = _seed(seed)
        cdef long p, steps = 0, cut = 0
        cdef int depth, r, g, bad = -1, nbad = 0, ngoals = self.ngoals
        cdef long[64] sums
        cdef bint check = fault is not None
        cdef int32_t* scratch = NULL
        if check:
            for r in range(self.nnets):      # a split kernel's networks: the most goals
                ngoals = max(ngoals, self.nets[r].ngoals)
            scratch = <int32_t*> malloc(4 * (self.nroles + ngoals) + 4)
            if scratch == NULL:
                raise MemoryError()
        for r in range(64):
            sums[r] = 0
        # Small networks restart each playout from a copy of the settled root;
        # large ones reload the root state (which costs what differs).
        cdef const uint8_t* root = &state[0] if self.nbase else NULL
        cdef char* saved = self._anchor(root, 4000000)
        with nogil:
            for p in range(count):
                if p > 0 and saved != NULL:     # the dirty set is empty once settled
                    self._restore(saved)
                elif p > 0:
                    self._load(root)
                depth = self._playout(&rng, max_steps, NULL)
                self._settle_goals()
                if depth < 0:
                    cut += 1
                    depth = -1 - depth
                elif check and bad < 0:
                    bad = self._goal_fault(free_role, scratch, &nbad)
                steps += depth
                for g in range(self.ngoals):
                    if self.val[self.goal_node[g]] and self.goal_role[g] < 64:
                        sums[self.goal_role[g]] += self.goal_value[g]
        free(saved)
        if bad >= 0:
            fault.append((bad, [scratch[self.nroles + g] for g in range(nbad)]))
        free(scratch)
        return steps, [sums[r] for r in range(min(self.nroles, 64))], cut

    cdef int _goal_fault(self, int free_role, int32_t* scratch, int* nvalues) noexcept nogil:
        """The first role (in role order) whose goals in the current state,
        settled, break GDL's rule: no true goal (``free_role`` may have none),
        two or more, or one past 100; -1 when none does.  Its goal values go
        to ``scratch[nroles:]``, ``nvalues`` of them (``scratch`` has room for
        ``nroles + ngoals`` ints; its first ``nroles`` are counts)."""
        cdef int g, r, bad = -1
        for r in range(self.nroles):
            scratch[r] = 0
        for g in range(self.ngoals):
            if self.val[self.goal_node[g]]:     # a value past 100 breaks the rule as two do
                scratch[self.goal_role[g]] += 1 if self.goal_value[g] <= 100 else 2
        for r in range(self.nroles):
            if scratch[r] > 1 or (scratch[r] == 0 and r != free_role):
                bad = r
                break
        if bad < 0:
            return -1
        nvalues[0] = 0
        for g in range(self.ngoals):
            if self.goal_role[g] == bad and self.val[self.goal_node[g]]:
                scratch[self.nroles + nvalues[0]] = self.goal_value[g]
                nvalues[0] += 1
        return bad

    cdef char* _anchor(self, const uint8_t* state, size_t limit) noexcept nogil:
        """The kernel settled at ``state`` (every network of a split kernel
        loaded), copied by :meth:`_save` into new memory, for :meth:`_restore`
        before each playout from ``state`` or before loading a state near it
        (which then flips only what differs from ``state``); NULL, with the
        kernel still loaded at ``state``, when the copy would take more than
        ``limit`` bytes or no memory is left."""
        cdef char* out = NULL
        self._load(state)
        if self.nnets:
            self._load_turns()
        if self._snapshot_size() <= limit:
            out = <char*> malloc(self._snapshot_size())
            if out != NULL:
                self._save(out)
        return out

    cdef size_t _snapshot_size(self) noexcept nogil:
        """The most bytes :meth:`_save` writes."""
        cdef size_t size = 0
        cdef int i
        if self.nnets == 0:
            return self.mem_size
        for i in range(self.nnets):
            size += self.nets[i].mem_size
        return size + self.sync_size + sizeof(int)

    cdef void _save(self, char* out) noexcept nogil:
        """Copy what a playout changes to ``out``: the network's memory (the
        dirty set is empty between steps, so it is not saved); of a split
        kernel, the log and state and every network's loaded since the last
        :meth:`_load` (the others will be loaded when their turn comes)."""
        cdef int i
        if self.nnets == 0:
            memcpy(out, self.mem, self.mem_size)
            return
        memcpy(out, self.sync, self.sync_size)
        memcpy(out + self.sync_size, &self.cur, sizeof(int))
        out += self.sync_size + sizeof(int)
        for i in range(self.nnets):
            if not self.stale[i] & LOAD:
                memcpy(out, self.nets[i].mem, self.nets[i].mem_size)
                out += self.nets[i].mem_size

    cdef void _restore(self, const char* src) noexcept nogil:
        """Return to what :meth:`_save` wrote."""
        cdef int i, cur
        if self.nnets == 0:
            memcpy(self.mem, src, self.mem_size)
            return
        memcpy(self.sync, src, self.sync_size)
        memcpy(&cur, src + self.sync_size, sizeof(int))
        src += self.sync_size + sizeof(int)
        for i in range(self.nnets):
            if not self.stale[i] & LOAD:
                memcpy(self.nets[i].mem, src, self.nets[i].mem_size)
                src += self.nets[i].mem_size
        self._adopt(cur)

    cdef void _load_turns(self) noexcept nogil:
        """Bring the networks of every control to the current state, so that
        a snapshot holds them all (:meth:`playouts`); the whole network waits
        for a state without a single control."""
        cdef int i, cur = self.cur
        for i in range(self.nnets - 1):
            if i != cur:
                self._switch(i)
        self._switch(cur)

    def flips(self, const uint8_t[:] state, long steps, unsigned long long seed):
        """How often each base proposition flips in random playouts from
        ``state`` of ``steps`` steps in all: (counts per base proposition,
        steps played)."""
        cdef uint64_t rng = _seed(seed)
        cdef long done = 0
        cdef int depth
        counts = np.zeros(self.nbase, dtype=np.int64)
        self.flip_count = <int64_t*> _zeros(8 * self.nbase)
        cdef const uint8_t* start = &state[0] if self.nbase else NULL
        try:
            with nogil:                         # seconds on a large network: other threads run
                while done < steps:
                    self._load(start)
                    depth = self._playout(&rng, steps - done, NULL)
                    depth = -1 - depth if depth < 0 else depth
                    if depth == 0:
                        break
                    done += depth
            for b in range(self.nbase):
                counts[b] = self.flip_count[b]
        finally:
            free(self.flip_count)
            self.flip_count = NULL
        return counts, done

    def trace(self, const uint8_t[:] state, unsigned long long seed, int max_steps=1000):
        """One random playout from ``state``, step by step: a list with, per
        step, a tuple per role of (number of legal moves, move chosen).  For
        checking the kernel's incremental bookkeeping against a reasoner."""
        cdef uint64_t rng = _seed(seed)
        record = np.zeros(2 * self.nroles * max_steps + 2, dtype=np.int32)
        cdef int32_t[:] view = record
        self._load(&state[0] if self.nbase else NULL)
        cdef int depth = self._playout(&rng, max_steps, &view[0])
        if depth < 0:
            depth = -1 - depth
        pairs = record[:2 * self.nroles * depth].reshape(depth, self.nroles, 2).tolist()
        return [tuple(tuple(pair) for pair in step) for step in pairs]


def cone(kind, in_start, in_lit, block_lo, outputs):
    """The nodes ``outputs`` read, transitively (themselves included), as a
    boolean array over a network's nodes (``Network.arrays()`` names): one
    pass in reverse topological order, a block entered all or nothing."""
    cdef const uint8_t[:] kd = np.ascontiguousarray(kind, dtype=np.uint8)
    cdef const int32_t[:] ist = np.ascontiguousarray(in_start, dtype=np.int32)
    cdef const int32_t[:] il = np.ascontiguousarray(in_lit, dtype=np.int32)
    cdef const int32_t[:] blo = np.ascontiguousarray(block_lo, dtype=np.int32)
    cdef int n = len(kd)
    arr = np.zeros(n, dtype=bool)
    arr[np.asarray(outputs, dtype=np.int64)] = True
    cdef uint8_t[:] mark = arr.view(np.uint8)
    cdef int i, j, x, lo
    cdef bint any_
    i = n - 1
    while i >= 0:
        if kd[i] == INPUT:
            i -= 1
            continue
        if blo[i] >= 0:
            lo = blo[i]
            any_ = False
            for x in range(lo, i + 1):
                any_ = any_ or mark[x]
            if any_:
                for x in range(lo, i + 1):
                    mark[x] = 1
                    for j in range(ist[x], ist[x + 1]):
                        mark[il[j] >> 1] = 1
            i = lo - 1
            continue
        if mark[i]:
            for j in range(ist[i], ist[i + 1]):
                mark[il[j] >> 1] = 1
        i -= 1
    return arr


def _gates(kind, in_start, in_block, out_start, out_lit, gating):
    """Choose the gated ANDs (Kernel docstring): per node the input gating it
    (``n`` for none); the out lists (offsets and literals) of the edges to
    ungated readers and of those to gated ones, the gating edges left out;
    per node where the ANDs it gates are listed (``armed_start``, n + 1
    offsets).  Only the nodes in ``gating`` gate (see :func:`gating_nodes`):
    an AND (outside cycle blocks) that reads one of them positively is gated
    by it, by the most-read one if it reads several."""
    n = len(kind)
    out_lit = np.asarray(out_lit, dtype=np.int64)
    src, reader, read_by_and = _and_reads(kind, out_start, out_lit)
    allowed = np.zeros(n, dtype=bool)
    allowed[np.asarray(gating, dtype=np.int64)] = True
    candidate = read_by_and & ~in_block[reader] & (np.diff(in_start)[reader] >= 2) \
        & allowed[src]
    fan = np.bincount(src[candidate], minlength=n)
    gate_of = np.full(n, n, dtype=np.int64)
    chosen = np.zeros(len(out_lit), dtype=bool)
    edges = np.flatnonzero(candidate)
    if len(edges):
        order = edges[np.lexsort((src[edges], -fan[src[edges]], reader[edges]))]
        _, first = np.unique(reader[order], return_index=True)
        best = order[first]
        gate_of[reader[best]] = src[best]
        chosen[best] = True
    plain = ~chosen & (gate_of[reader] == n)
    to_gated = ~chosen & (gate_of[reader] < n)
    out_start = np.concatenate(([0], np.cumsum(np.bincount(src[plain], minlength=n))))
    gout_start = np.concatenate(([0], np.cumsum(np.bincount(src[to_gated], minlength=n))))
    counts = np.bincount(gate_of[gate_of < n], minlength=n)
    armed_start = np.concatenate(([0], np.cumsum(counts)))
    return gate_of, out_start, out_lit[plain], gout_start, out_lit[to_gated], armed_start


def _and_reads(kind, out_start, out_lit) -> tuple:
    """Per edge of the out lists (``out_lit``: reader * 2 + negated): its
    source node, its reader, and whether it is a positive input of an AND."""
    src = np.repeat(np.arange(len(kind)), np.diff(out_start))
    reader = out_lit >> 1
    return src, reader, ((out_lit & 1) == 0) & (kind[reader] == AND)


def gating_nodes(arrays, flips, long done, double rate=0.5):
    """The base propositions worth gating by in the network of ``arrays``
    (Kernel docstring), as its nodes: read positively by at least
    ``GATE_FANOUT`` AND gates, and flipping in at least ``rate`` of the steps
    of random playouts (``flips`` per base proposition in ``done`` steps, from
    :meth:`Kernel.flips`): ``control``-like propositions.  (Gating by every
    much-read proposition made reversi 18% slower: its cells are read by many
    gates but seldom flip.)"""
    kind = np.asarray(arrays["kind"], dtype=np.uint8)
    src, _, read_by_and = _and_reads(kind, arrays["out_start"],
                                     np.asarray(arrays["out_lit"], dtype=np.int64))
    reads = np.bincount(src[read_by_and], minlength=len(kind))
    base = np.asarray(arrays["base_node"], dtype=np.int64)
    if not len(base) or reads[base].max(initial=0) < GATE_FANOUT:
        return np.zeros(0, dtype=np.int64)
    return base[(reads[base] >= GATE_FANOUT) & (flips >= rate * max(done, 1))]


cdef inline void _add(int32_t* items, int32_t* pos, int32_t* count, int offset,
                      int item) noexcept nogil:
    """Add ``item`` to the set ``items[:count]``, kept with ``pos[item]`` its
    position (``offset`` + its index) or -1."""
    items[count[0]] = item
    pos[item] = offset + count[0]
    count[0] += 1


cdef inline void _drop(int32_t* items, int32_t* pos, int32_t* count, int offset,
                       int item) noexcept nogil:
    """Remove ``item`` from that set, the last one taking its place."""
    cdef int last
    count[0] -= 1
    last = items[count[0]]
    items[pos[item] - offset] = last
    pos[last] = pos[item]
    pos[item] = -1


cdef uint64_t _seed(unsigned long long seed):
    """An xorshift state from a seed (an LCG step, never zero)."""
    cdef uint64_t rng = seed * 6364136223846793005ULL + 1442695040888963407ULL
    return rng if rng != 0 else 88172645463325252ULL


cdef void* _zeros(size_t size) except NULL:
    """``size`` zeroed bytes (and 8 to spare), freed by the caller."""
    cdef void* p = calloc(size + 8, 1)
    if p == NULL:
        raise MemoryError()
    return p


cdef void* _dup(const void* src, size_t size) except NULL:
    """A malloc'ed copy of ``size`` bytes at ``src`` (and 8 to spare)."""
    cdef void* p = malloc(size + 8)
    if p == NULL:
        raise MemoryError()
    memcpy(p, src, size)
    return p


cdef void* _copy(arr, dtype) except NULL:
    """A malloc'ed copy of ``arr`` as a C array of ``dtype``, freed by the caller."""
    a = np.ascontiguousarray(arr, dtype=dtype)
    cdef size_t size = a.nbytes
    cdef void* p = malloc(size + 8)
    if p == NULL:
        raise MemoryError()
    cdef const uint8_t[:] view
    if size:
        view = a.view(np.uint8).reshape(-1)
        memcpy(p, &view[0], size)
    return p


cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil
