"""Building the propositional network from the ground rules.

Each ground atom becomes a node: ``true``/``does`` atoms are inputs, a derived
atom is the OR of its ground rules, a ground rule the AND of its literals.
The network is then simplified before it is laid out for the kernel
(:mod:`ggp.reasoners._propnet`):

* constants folded (static facts are TRUE, atoms nothing derives FALSE, and
  gates fed by constants decided),
* gates of one positive input replaced by that input, a ring of such gates
  (support only from itself) made FALSE, as the least fixpoint says,
* duplicate gates (same kind, same inputs) merged,
* everything the outputs (legal, goal, terminal, next, sees) do not read removed,
* nodes numbered in topological order, each cycle of positive dependencies
  numbered as one block.

Compare Schkufza, Love and Genesereth, "Propositional Automata and Cell
Automata: Representational Frameworks for Discrete Dynamic Systems" (2008), and
the incremental propnets of Sancho and ggplib (REFERENCES.md).
"""

from __future__ import annotations

import copy
from array import array
from itertools import chain

import numpy as np

from gdl.ast import name_of
from ggp.reasoners.graphs import strongly_connected
from ggp.reasoners.ground import GroundProgram

INPUT, AND, OR = 0, 1, 2
FALSE, TRUE = 0, 1  # node numbers of the two constants (literals 0 and 2)


class Network:
    """Nodes, their gates and the output map of one game (see module docstring).

    After construction: ``kind``, ``inputs`` (per node, a tuple of literals
    ``node*2+negated``), and the outputs ``base_node``, ``next_node``,
    ``does_node``, ``legal_node``, ``terminal_node``, ``goals``
    ((node, role index, value) triples), ``sees`` ((node, role index, percept)).
    After layout: ``n`` nodes kept, ``order`` (the kept nodes in kernel order),
    ``number`` (node -> its position in that order, -1 if dropped) and
    ``blocks`` (the cycles, as (first, last) positions).
    """

    def __init__(self, gp: GroundProgram):
        self.gp = gp
        self.kind = [INPUT, INPUT]
        self.inputs: list[tuple] = [(), ()]
        # atom literal (id * 2 + negated) -> network literal, one int object each
        # however many gates read it (the same few atoms recur in most rules)
        self.atom_lit: list = [None] * (2 * len(gp.atoms))
        self.alias = array("i", [-1, -1])  # node -> literal it equals, -1 if none
        self.base_node = [self._input(("true", b)) for b in gp.base]
        self.does_node = [self._input(("does", r, m)) for r, m in gp.inputs]
        # the rules of atom h: rule_of[head_start[h]:head_start[h + 1]], in rule order
        heads = np.frombuffer(gp.rule_head, dtype=np.int32)
        head_start = np.zeros(len(gp.atoms) + 1, dtype=np.int32)
        head_start[1:] = np.cumsum(np.bincount(heads, minlength=len(gp.atoms)))
        self.head_start = array("i", head_start.tobytes())
        self.rule_of = array("i", np.argsort(heads, kind="stable").astype(np.int32).tobytes())
        for head in gp.rule_head:
            self._derived(head)
        self._outputs()
        # the gates hold it all now: free the build's tables
        self.rule_of = self.head_start = self.atom_lit = None  # type: ignore[assignment]
        self.wins: list = []
        self._simplify()
        self._layout()

    def fixed(self, values: dict) -> Network:
        """This network with base propositions fixed (``{base index: bool}``)
        and simplified again, the ORs of most of a role's moves complemented:
        the network of the states where they hold (a split kernel's,
        :meth:`ggp.reasoners._propnet.Kernel.split`).  Their input nodes stay, read by
        nothing."""
        net = self._copy()
        for b, value in values.items():
            net.alias[self.base_node[b]] = (TRUE if value else FALSE) * 2
        net._simplify()
        net._complement_does()
        net._layout()
        return net

    def with_wins(self) -> Network:
        """This network with one more output per role, ``wins``: true when the
        moves the does inputs hold end the game at once with that role's goal
        100 (a copy of the gates of ``terminal`` and of the role's goal 100,
        reading each base proposition's next output where they read the
        proposition).  Decisive-move playouts read it (``players._policy``)."""
        net = self._copy()
        goal = {r: n for n, r, v in self.goals if v == 100}
        twin = dict(zip(self.base_node, self.next_node))  # node -> its next-state copy
        todo = [self.terminal_node] + list(goal.values())
        gates = []
        while todo:  # copy every gate they read
            node = todo.pop()
            if node not in twin and self.kind[node] != INPUT:
                twin[node] = net._new(self.kind[node])
                gates.append(node)
                todo.extend(lit >> 1 for lit in self.inputs[node])
        for node in gates:
            net.inputs[twin[node]] = tuple(
                twin.get(lit >> 1, lit >> 1) * 2 | lit & 1 for lit in self.inputs[node]
            )
        net.wins = [
            net._new(
                AND,
                (
                    twin.get(self.terminal_node, self.terminal_node) * 2,
                    twin.get(goal[r], goal[r]) * 2,
                ),
            )
            if r in goal
            else FALSE
            for r in range(len(self.gp.roles))
        ]
        net._simplify()
        net._layout()
        return net

    def _copy(self) -> Network:
        """A copy whose gates can be changed without changing this network's."""
        net = copy.copy(self)
        net.kind, net.inputs, net.alias = list(self.kind), list(self.inputs), array("i", self.alias)
        return net

    # --- building --------------------------------------------------------------
    def _new(self, kind, lits=()):
        self.kind.append(kind)
        self.inputs.append(tuple(lits))
        self.alias.append(-1)
        return len(self.kind) - 1

    def _input(self, atom):
        node = self._new(INPUT)
        if atom in self.gp.atoms:
            self.atom_lit[2 * self.gp.atoms[atom]] = node * 2
        return node

    def _atom(self, atom) -> int:
        """The node of a ground atom named by the outputs: TRUE for a static
        fact, FALSE for an atom the rules do not mention."""
        if atom in self.gp.atoms:
            return self._derived(self.gp.atoms[atom])
        return TRUE if atom in self.gp.static.get(name_of(atom)) else FALSE

    def _derived(self, atom) -> int:
        """The node of atom id ``atom`` (the OR of its rules), made on first use."""
        if self.atom_lit[2 * atom] is not None:
            return self.atom_lit[2 * atom] >> 1
        gp = self.gp
        rules = self.rule_of[self.head_start[atom] : self.head_start[atom + 1]]
        if not rules:
            self.atom_lit[2 * atom] = FALSE * 2
            return FALSE
        node = self._new(OR)
        self.atom_lit[2 * atom] = node * 2
        gates = []
        for rule in rules:
            lits = [
                self._lit(lit)
                for lit in gp.rule_lits[gp.rule_start[rule] : gp.rule_start[rule + 1]]
            ]
            gates.append(lits[0] if len(lits) == 1 else self._new(AND, lits) * 2)
        self.inputs[node] = tuple(gates)
        return node

    def _lit(self, lit) -> int:
        """The network literal of atom literal ``lit``."""
        if self.atom_lit[lit] is None:
            self.atom_lit[lit] = self._derived(lit >> 1) * 2 | lit & 1
        return self.atom_lit[lit]

    def _outputs(self):
        gp = self.gp
        roles = gp.roles
        self.legal_node = [self._atom(("legal", r, m)) for r, m in gp.inputs]
        self.next_node = [self._atom(("next", b)) for b in gp.base]
        self.terminal_node = self._atom("terminal")
        derived = {a for a, i in gp.atoms.items() if self.head_start[i] < self.head_start[i + 1]}
        atoms = derived | {a for rel in ("goal", "sees") for a in gp.static.get(rel)}
        self.goals = sorted(
            (self._atom(a), roles.index(a[1]), int(a[2]))
            for a in atoms
            if isinstance(a, tuple)
            and a[0] == "goal"
            and a[1] in roles
            and isinstance(a[2], str)
            and a[2].isdigit()
        )
        # the percepts sorted alone: sorting every atom by repr (amazons has
        # 1.5 million) held the interpreter's lock for 5-13 s
        percepts = [a for a in atoms if isinstance(a, tuple) and a[0] == "sees" and a[1] in roles]
        self.sees = [(self._atom(a), roles.index(a[1]), a[2]) for a in sorted(percepts, key=repr)]

    # --- simplification ------------------------------------------------------------
    def _resolve(self, lit):
        """The literal ``lit`` stands for, after aliasing (a ring of aliases is FALSE)."""
        seen = set()
        while self.alias[lit >> 1] >= 0:
            node = lit >> 1
            if node in seen:
                return FALSE * 2 | (lit & 1)
            seen.add(node)
            lit = self.alias[node] ^ (lit & 1)
        return lit

    def _simplify(self):
        changed = True
        while changed:
            changed = False
            signatures = ({}, {}, {})  # per kind: inputs -> the first such gate
            for node in range(2, len(self.kind)):
                if self.kind[node] == INPUT or self.alias[node] >= 0:
                    continue
                lits = self._fold(node)
                same = signatures[self.kind[node]]
                if isinstance(lits, int) or lits in same:
                    # the gate equals one literal, or an earlier gate: its inputs go
                    self.alias[node] = lits if isinstance(lits, int) else same[lits] * 2
                    self.inputs[node] = ()
                    changed = True
                    continue
                if lits != self.inputs[node]:
                    self.inputs[node] = lits
                    changed = True
                same[lits] = node

    def _complement_does(self):
        """An OR reading most of a role's moves reads the few others instead.

        A role does exactly one move whenever next or sees is read (the kernel
        sets one per role before, ``Kernel._do``), so the OR of its moves in S
        is the negation of the OR of the rest.  Breakthrough's "a piece stays
        where no move touched it" is an OR over 302 of a role's moves per cell,
        each move read by 63 such ORs; after, an OR of the 7 that touch it.
        The complements are shared; the network is simplified again after.
        Only in the networks of a split kernel and of the lanes (which sweep
        every gate): a role's complement holds its ``noop``, which in the whole
        network flips at every turn (slowing the incremental kernel: the
        split_kernel suite, docs/reasoners.md), in the network of one role's
        turn never."""
        moves = {}  # role -> its does nodes, in move order
        role_of = {}
        for (r, _), node in zip(self.gp.inputs, self.does_node):
            moves.setdefault(r, []).append(node)
            role_of[node] = r
        shared = {}
        changed = False
        for node in range(2, len(self.kind)):
            if self.kind[node] != OR or self.alias[node] >= 0:
                continue
            read = {}
            for lit in self.inputs[node]:
                if not lit & 1 and lit >> 1 in role_of:
                    read.setdefault(role_of[lit >> 1], set()).add(lit >> 1)
            lits = set(self.inputs[node])
            for r, some in read.items():
                rest = tuple(d for d in moves[r] if d not in some)
                if len(rest) + 1 >= len(some):
                    continue
                if rest not in shared:
                    shared[rest] = (
                        TRUE * 2
                        if not rest
                        else rest[0] * 2 + 1
                        if len(rest) == 1
                        else self._new(OR, [d * 2 for d in rest]) * 2 + 1
                    )
                lits -= {d * 2 for d in some}
                lits.add(shared[rest])
            if lits != set(self.inputs[node]):
                self.inputs[node] = tuple(sorted(lits))
                changed = True
        if changed:
            self._simplify()

    def _fold(self, node):
        """The gate's inputs resolved and folded; an int literal if it is decided."""
        is_and = self.kind[node] == AND
        absorbing = FALSE * 2 if is_and else TRUE * 2  # an input that decides the gate
        lits = set()
        for lit in self.inputs[node]:
            lit = self._resolve(lit)
            if lit >> 1 in (FALSE, TRUE):  # a constant input
                if (lit >> 1 == TRUE) ^ (lit & 1) == (absorbing == TRUE * 2):
                    return absorbing
                continue
            if lit ^ 1 in lits:  # x and not x
                return absorbing
            lits.add(lit)
        if not lits:
            return TRUE * 2 if is_and else FALSE * 2
        if len(lits) == 1:
            (lit,) = lits
            return lit if lit >> 1 != node else FALSE * 2  # a gate reading only itself
        return tuple(sorted(lits))

    # --- layout ------------------------------------------------------------------
    def _outputs_resolved(self):
        """Every output as a node (a negated output gets a NOT gate of its own)."""

        def node_of(n):
            lit = self._resolve(n * 2)
            if lit & 1:
                return self._new(AND, (lit,))
            return lit >> 1

        self.legal_node = [node_of(n) for n in self.legal_node]
        self.next_node = [node_of(n) for n in self.next_node]
        self.terminal_node = node_of(self.terminal_node)
        self.goals = [(node_of(n), r, v) for n, r, v in self.goals]
        self.sees = [(node_of(n), r, p) for n, r, p in self.sees]
        self.wins = [node_of(n) for n in self.wins]

    def _layout(self):
        self._outputs_resolved()
        outputs = (
            self.legal_node
            + self.next_node
            + [self.terminal_node]
            + [n for n, _, _ in self.goals]
            + [n for n, _, _ in self.sees]
            + self.wins
        )
        # what the outputs read, transitively
        keep, todo = bytearray(len(self.kind)), list(outputs)
        while todo:
            n = todo.pop()
            if keep[n]:
                continue
            keep[n] = 1
            if self.kind[n] != INPUT:
                self.inputs[n] = tuple(self._resolve(lit) for lit in self.inputs[n])
                todo.extend(lit >> 1 for lit in self.inputs[n])
        for n in [FALSE, TRUE] + self.base_node + self.does_node:
            keep[n] = 1
        order, blocks = _topological([n for n, k in enumerate(keep) if k], self.kind, self.inputs)
        number = array("i", [-1]) * len(self.kind)  # old node -> position, -1 if dropped
        for new, old in enumerate(order):
            number[old] = new
        self.n = len(order)
        self.order = order
        self.number = number
        self.blocks = blocks

    def arrays(self) -> dict:
        """The numpy arrays the kernel is built from."""
        order = np.array(self.order, dtype=np.int32)
        number = np.asarray(self.number, dtype=np.int32)
        kind = np.array(self.kind, dtype=np.uint8)[order]
        # every gate input as a literal over the new numbering, gate by gate (CSR)
        count = np.fromiter((len(self.inputs[o]) for o in self.order), np.int32, self.n)
        in_start = np.zeros(self.n + 1, dtype=np.int32)
        in_start[1:] = np.cumsum(count)
        in_lit = np.fromiter(
            chain.from_iterable(self.inputs[o] for o in self.order), np.int32, in_start[-1]
        )
        in_lit = number[in_lit >> 1] << 1 | in_lit & 1
        out_start, out_lit = _readers(count, in_lit)
        block_lo = np.full(self.n, -1, dtype=np.int32)
        block_hi = np.full(self.n, -1, dtype=np.int32)
        for lo, hi in self.blocks:
            block_lo[lo : hi + 1] = lo
            block_hi[lo : hi + 1] = hi
        role_index = {r: i for i, r in enumerate(self.gp.roles)}
        wins = dict(win_node=number[self.wins]) if self.wins else {}
        return dict(
            **wins,
            kind=kind,
            in_start=in_start,
            in_lit=in_lit,
            out_start=out_start,
            out_lit=out_lit,
            block_lo=block_lo,
            block_hi=block_hi,
            base_node=number[self.base_node],
            next_node=number[self.next_node],
            does_node=number[self.does_node],
            legal_node=number[self.legal_node],
            move_role=np.array([role_index[r] for r, _ in self.gp.inputs], dtype=np.int32),
            nroles=len(self.gp.roles),
            terminal_node=int(number[self.terminal_node]),
            goal_node=np.array([number[n] for n, _, _ in self.goals], dtype=np.int32),
            goal_role=np.array([r for _, r, _ in self.goals], dtype=np.int32),
            goal_value=np.array([v for _, _, v in self.goals], dtype=np.int32),
            true_node=int(number[TRUE]),
        )


def _readers(count, in_lit) -> tuple:
    """The edges the other way, from gate input lists (``count`` inputs a node,
    ``in_lit`` their literals in node order): per node its readers as
    ``reader * 2 + negated``, in increasing order (a stable sort keeps them so,
    as the readers are listed in order), with their offsets (n + 1)."""
    n = len(count)
    out_lit = np.repeat(np.arange(n, dtype=np.int32), count) << 1 | in_lit & 1
    out_lit = out_lit[np.argsort(in_lit >> 1, kind="stable")]
    out_start = np.zeros(n + 1, dtype=np.int32)
    out_start[1:] = np.cumsum(np.bincount(in_lit >> 1, minlength=n))
    return out_start, out_lit.astype(np.int32)


def _topological(nodes, kind, inputs):
    """Nodes ordered inputs first, then readers after what they read; each
    strongly connected component contiguous.  Returns (order, cycle blocks as
    (first, last) positions).

    ``nodes`` must hold every input of its gates.  Kahn's algorithm places
    every node not on or behind a cycle, in integer arrays (a network may have
    a million nodes); Tarjan's algorithm then orders the few that are left.
    """
    pending = array("i", [0]) * len(kind)  # a gate's inputs not yet placed
    start = array("i", [0]) * (len(kind) + 1)  # readers of node n: reader[start[n]:start[n+1]]
    gates = [n for n in nodes if kind[n] != INPUT]
    for n in gates:
        pending[n] = len(inputs[n])
        for lit in inputs[n]:
            start[(lit >> 1) + 1] += 1
    for n in range(len(kind)):
        start[n + 1] += start[n]
    reader, fill = array("i", [0]) * start[-1], start[:-1]
    for n in gates:
        for lit in inputs[n]:
            reader[fill[lit >> 1]] = n
            fill[lit >> 1] += 1
    order = [n for n in nodes if kind[n] == INPUT]
    for n in order:  # grows as readers become ready
        for r in reader[start[n] : start[n + 1]]:
            pending[r] -= 1
            if not pending[r]:
                order.append(r)
    left = {n for n in gates if pending[n]}
    graph = {n: {lit >> 1 for lit in inputs[n]} & left for n in left}
    blocks = []
    for comp in strongly_connected(graph):
        first = next(iter(comp))
        if len(comp) > 1 or first in graph[first]:
            blocks.append((len(order), len(order) + len(comp) - 1))
        order.extend(sorted(comp))
    return order, blocks


def lazy_goals(arrays: dict, keep=()) -> tuple[dict, dict]:
    """The kernel's arrays with the gates that only goals read left out of the
    incremental evaluation, and those gates as a program for
    ``Kernel._settle_goals`` (the ``lazy`` argument of
    :class:`ggp.reasoners._propnet.Kernel`).  ``keep`` names nodes read from outside
    (``sees``), which stay incremental with everything they read.

    A lazy gate keeps its node number but becomes an input with no inputs and
    no readers in the returned arrays (a goal gate's readers are goal gates
    too, else it would be read by legal, next, terminal or ``keep``)."""
    from ggp.reasoners._propnet import cone

    kind = np.asarray(arrays["kind"], dtype=np.uint8)
    in_start = np.asarray(arrays["in_start"], dtype=np.int64)
    in_lit = np.asarray(arrays["in_lit"], dtype=np.int64)
    block_lo = np.asarray(arrays["block_lo"], dtype=np.int32)
    block_hi = np.asarray(arrays["block_hi"], dtype=np.int32)
    n = len(kind)
    next_node = np.asarray(arrays["next_node"], dtype=np.int64)
    eager = cone(
        kind,
        in_start,
        in_lit,
        block_lo,
        np.concatenate(
            [
                np.asarray(arrays["legal_node"], dtype=np.int64),
                next_node[next_node >= 0],
                [arrays["terminal_node"]] if arrays["terminal_node"] >= 0 else [],
                np.asarray(keep, dtype=np.int64),
            ]
        ).astype(np.int64),
    )
    lazy = (kind != 0) & ~eager
    nodes = np.flatnonzero(lazy)
    count = np.diff(in_start)
    reader = np.repeat(np.arange(n), count)
    # the program: each lazy gate's inputs, its kind, its block's last gate
    own = lazy[reader]
    position = np.full(n, -1, dtype=np.int64)
    position[nodes] = np.arange(len(nodes))
    hi = np.where(block_lo[nodes] >= 0, position[np.maximum(block_hi[nodes], 0)], -1)
    program = dict(
        node=nodes,
        start=np.concatenate(([0], np.cumsum(count[nodes]))),
        lit=in_lit[own],
        kind=kind[nodes],
        hi=hi,
    )
    # the kernel's arrays without them
    lit = in_lit[~own].astype(np.int32)
    kept_count = np.where(lazy, 0, count)
    out_start, out_lit = _readers(kept_count, lit)
    out = dict(arrays)
    out.update(
        kind=np.where(lazy, 0, kind).astype(np.uint8),
        in_start=np.concatenate(([0], np.cumsum(kept_count))).astype(np.int32),
        in_lit=lit,
        out_start=out_start,
        out_lit=out_lit,
        block_lo=np.where(lazy, -1, block_lo).astype(np.int32),
        block_hi=np.where(lazy, -1, block_hi).astype(np.int32),
    )
    return out, program
