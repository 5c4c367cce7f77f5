"""Building the propositional network from the ground rules.

Each ground atom becomes a node: ``true``/``does`` atoms are inputs, a derived
atom is the OR of its ground rules, a ground rule the AND of its literals.
The network is then simplified before it is laid out for the kernel
(:mod:`ggp._propnet`):

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

import numpy as np

from .graphs import strongly_connected
from .ground import GroundProgram

INPUT, AND, OR = 0, 1, 2
FALSE, TRUE = 0, 1          # node numbers of the two constants (literals 0 and 2)


class Network:
    """Nodes, their gates and the output map of one game (see module docstring).

    After construction: ``kind``, ``inputs`` (per node, a tuple of literals
    ``node*2+negated``), and the outputs ``base_node``, ``next_node``,
    ``does_node``, ``legal_node``, ``terminal_node``, ``goals``
    ((node, role index, value) triples), ``sees`` ((node, role index, percept)).
    """

    def __init__(self, gp: GroundProgram):
        self.gp = gp
        self.kind = [INPUT, INPUT]
        self.inputs = [(), ()]
        self.atom_node = {}
        self.alias = {}             # node -> literal it equals
        self.base_node = [self._input(("true", b)) for b in gp.base]
        self.does_node = [self._input(("does", r, m)) for r, m in gp.inputs]
        rules_of: dict = {}
        for head, pos, neg in gp.rules:
            rules_of.setdefault(head, []).append((pos, neg))
        self.rules_of = rules_of
        for head in rules_of:
            self._atom(head)
        self._outputs()
        self.rules_of = gp.rules = None     # the gates hold it all now: free the memory
        self._simplify()
        self._layout()

    # --- building --------------------------------------------------------------
    def _new(self, kind, lits=()):
        self.kind.append(kind)
        self.inputs.append(tuple(lits))
        return len(self.kind) - 1

    def _input(self, atom):
        node = self.atom_node[atom] = self._new(INPUT)
        return node

    def _atom(self, atom) -> int:
        """The node of a derived atom (OR of its rules), made on first use."""
        node = self.atom_node.get(atom)
        if node is not None:
            return node
        if atom in self.gp.static.get(atom if isinstance(atom, str) else atom[0]):
            self.atom_node[atom] = TRUE
            return TRUE
        if atom not in self.rules_of:
            self.atom_node[atom] = FALSE
            return FALSE
        node = self.atom_node[atom] = self._new(OR)
        gates = []
        for pos, neg in self.rules_of[atom]:
            lits = [self._atom(a) * 2 for a in pos] + [self._atom(a) * 2 + 1 for a in neg]
            gates.append(lits[0] if len(lits) == 1 else self._new(AND, lits) * 2)
        self.inputs[node] = tuple(gates)
        return node

    def _outputs(self):
        gp = self.gp
        roles = gp.roles
        self.legal_node = [self._atom(("legal", r, m)) for r, m in gp.inputs]
        self.next_node = [self._atom(("next", b)) for b in gp.base]
        self.terminal_node = self._atom("terminal")
        atoms = set(self.rules_of) | {a for rel in ("goal", "sees")
                                       for a in gp.static.get(rel)}
        self.goals = sorted((self._atom(a), roles.index(a[1]), int(a[2])) for a in atoms
                            if isinstance(a, tuple) and a[0] == "goal" and a[1] in roles
                            and isinstance(a[2], str) and a[2].isdigit())
        self.sees = [(self._atom(a), roles.index(a[1]), a[2]) for a in atoms
                     if isinstance(a, tuple) and a[0] == "sees" and a[1] in roles]

    # --- simplification ------------------------------------------------------------
    def _resolve(self, lit):
        """The literal ``lit`` stands for, after aliasing (a ring of aliases is FALSE)."""
        seen = set()
        while (lit >> 1) in self.alias:
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
            signatures = {}
            for node in range(2, len(self.kind)):
                if self.kind[node] == INPUT or node in self.alias:
                    continue
                lits = self._fold(node)
                if isinstance(lits, int):            # the gate equals one literal
                    self.alias[node] = lits
                    changed = True
                    continue
                if lits != self.inputs[node]:
                    self.inputs[node] = lits
                    changed = True
                key = (self.kind[node], lits)
                if key in signatures:
                    self.alias[node] = signatures[key] * 2
                    changed = True
                else:
                    signatures[key] = node

    def _fold(self, node):
        """The gate's inputs resolved and folded; an int literal if it is decided."""
        is_and = self.kind[node] == AND
        absorbing = FALSE * 2 if is_and else TRUE * 2      # an input that decides the gate
        lits = set()
        for lit in self.inputs[node]:
            lit = self._resolve(lit)
            if lit >> 1 in (FALSE, TRUE):                   # a constant input
                if (lit >> 1 == TRUE) ^ (lit & 1) == (absorbing == TRUE * 2):
                    return absorbing
                continue
            if lit ^ 1 in lits:                             # x and not x
                return absorbing
            lits.add(lit)
        if not lits:
            return TRUE * 2 if is_and else FALSE * 2
        if len(lits) == 1:
            (lit,) = lits
            return lit if lit >> 1 != node else FALSE * 2   # a gate reading only itself
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

    def _layout(self):
        self._outputs_resolved()
        outputs = (self.legal_node + self.next_node + [self.terminal_node]
                   + [n for n, _, _ in self.goals] + [n for n, _, _ in self.sees])
        # what the outputs read, transitively
        keep, todo = set(), list(outputs)
        while todo:
            n = todo.pop()
            if n in keep:
                continue
            keep.add(n)
            if self.kind[n] != INPUT:
                self.inputs[n] = tuple(self._resolve(lit) for lit in self.inputs[n])
                todo.extend(lit >> 1 for lit in self.inputs[n])
        keep |= {FALSE, TRUE} | set(self.base_node) | set(self.does_node)
        order, blocks = _topological(sorted(keep), self.kind, self.inputs)
        number = {old: new for new, old in enumerate(order)}
        self.n = len(order)
        self.order = order
        self.number = number
        self.blocks = blocks

    def arrays(self) -> dict:
        """The numpy arrays the kernel is built from."""
        number, order = self.number, self.order
        kind = np.array([self.kind[o] for o in order], dtype=np.uint8)
        ins = [[(number[lit >> 1] << 1) | (lit & 1) for lit in self.inputs[o]]
               if self.kind[o] != INPUT else [] for o in order]
        outs = [[] for _ in order]
        for i, lits in enumerate(ins):
            for lit in lits:
                outs[lit >> 1].append(i * 2 + (lit & 1))
        block_lo = np.full(self.n, -1, dtype=np.int32)
        block_hi = np.full(self.n, -1, dtype=np.int32)
        for lo, hi in self.blocks:
            block_lo[lo:hi + 1] = lo
            block_hi[lo:hi + 1] = hi

        def csr(lists):
            start = np.zeros(len(lists) + 1, dtype=np.int32)
            start[1:] = np.cumsum([len(x) for x in lists])
            flat = np.array([x for xs in lists for x in xs], dtype=np.int32)
            return start, flat

        in_start, in_lit = csr(ins)
        out_start, out_lit = csr([sorted(o) for o in outs])
        role_index = {r: i for i, r in enumerate(self.gp.roles)}
        return dict(
            kind=kind, in_start=in_start, in_lit=in_lit, out_start=out_start,
            out_lit=out_lit, block_lo=block_lo, block_hi=block_hi,
            base_node=np.array([number[n] for n in self.base_node], dtype=np.int32),
            next_node=np.array([number[n] for n in self.next_node], dtype=np.int32),
            does_node=np.array([number[n] for n in self.does_node], dtype=np.int32),
            legal_node=np.array([number[n] for n in self.legal_node], dtype=np.int32),
            move_role=np.array([role_index[r] for r, _ in self.gp.inputs], dtype=np.int32),
            nroles=len(self.gp.roles), terminal_node=number[self.terminal_node],
            goal_node=np.array([number[n] for n, _, _ in self.goals], dtype=np.int32),
            goal_role=np.array([r for _, r, _ in self.goals], dtype=np.int32),
            goal_value=np.array([v for _, _, v in self.goals], dtype=np.int32),
            true_node=number[TRUE])


def _topological(nodes, kind, inputs):
    """Nodes ordered inputs first, then readers after what they read; each
    strongly connected component contiguous.  Returns (order, cycle blocks as
    (first, last) positions)."""
    members = set(nodes)
    graph = {n: {lit >> 1 for lit in inputs[n]} & members if kind[n] != INPUT else set()
             for n in nodes}
    comps = strongly_connected(graph)
    inputs_first = [c for c in comps if len(c) == 1 and kind[next(iter(c))] == INPUT]
    gates = [c for c in comps if not (len(c) == 1 and kind[next(iter(c))] == INPUT)]
    order, blocks = [], []
    for comp in inputs_first + gates:
        first = next(iter(comp))
        if len(comp) > 1 or first in graph[first]:
            blocks.append((len(order), len(order) + len(comp) - 1))
        order.extend(sorted(comp))
    return order, blocks
