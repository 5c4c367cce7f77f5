"""Public states of a game's extensive form (``ggp.solvers.efg``), built from what the
players observe, for any GDL-II description (Šustr, Kovařík and Lisý, "Monte Carlo
Continual Resolving" (slides), slides 19-22).

Two non-terminal histories g and h are *told apart* by nobody, ``g ~ h``, when
some player has the same augmented information set at both (the same
observation history: ``Tree.augmented``).  A public state is a class of the
transitive closure of ``~``: histories joined by a chain of "some player
cannot tell them apart".  This is the coarsest public partition that the
players' observations allow; every player knows which public state it is in,
and every player knows that every player knows.

The slides note that the crude augmented information sets may be refined where
a game makes more public than the observations say (in its IIGS example, who
won each bid).  ``refine`` is that hook: a function of the tree and a node
giving a label that every player can be said to observe there; nodes with
different labels are never joined.  It must be public knowledge for the
result to be a public partition; with the default (no refinement) the
construction needs nothing but the rules.

Public states are numbered in order of their first node (preorder), so the
root's is 0 and a public state comes after every public state above it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ggp.solvers.efg import TERMINAL, Tree


@dataclass
class PublicTree:
    """``state[n]``: the public state of node n (-1 at terminal nodes);
    ``members[s]``: its nodes in preorder; ``top[s]``: its topmost nodes (whose
    parent is in another public state, or the root)."""

    state: np.ndarray
    members: list
    top: list

    def __len__(self) -> int:
        return len(self.members)

    def largest(self) -> int:
        """The number of histories of the largest public state."""
        return max(map(len, self.members))


def public_states(tree: Tree, refine=None) -> PublicTree:
    """The public states of ``tree`` (module docstring), optionally refined."""
    count = tree.histories
    parent = list(range(count))

    def find(n):
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    first: dict[tuple, int] = {}
    for n in range(count):
        if tree.kind[n] == TERMINAL:
            continue
        label = refine(tree, n) if refine is not None else None
        for p, augmented in enumerate(tree.augmented[n]):
            seen = first.setdefault((p, augmented, label), n)
            if seen != n:
                a, b = find(seen), find(n)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    state = np.full(count, -1, dtype=np.int64)
    number: dict[int, int] = {}
    members: list[list] = []
    for n in range(count):
        if tree.kind[n] == TERMINAL:
            continue
        s = number.setdefault(find(n), len(members))
        if s == len(members):
            members.append([])
        members[s].append(n)
        state[n] = s
    top: list[list] = [[] for _ in members]
    top[0].append(0)
    for n, kids in enumerate(tree.children):
        for c in kids:
            if state[c] >= 0 and state[c] != state[n]:
                top[state[c]].append(c)
    return PublicTree(state, members, top)
