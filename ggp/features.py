"""Information-state features for learners, derived from the game alone.

A player's information state is its own move and its percepts at every step
so far, and its legal moves (:class:`ggp.efg.InfoSet`).  The encoding is a
0/1 vector with, for every step ``t`` up to the deepest of the player's
information states, one slot per move of the player (the move it made at
``t``) and one per term it can see (the terms it saw at ``t``), then one slot
per move (its legal moves now).  The moves and terms are those of the
player's information states in the game's extensive form, in the state
machine's order of terms; so no game needs hand-written features, and two
different information states never share a vector (their histories or legal
moves differ somewhere).  ``ggp info GAME --features`` shows the encoding.
"""
from __future__ import annotations

import numpy as np
from gdl import to_kif

from .statemachine import term_key


class Encoding:
    """The features of one player's information states in ``tree``.

    ``infosets``: the tree's information states of the player (indices);
    ``row[i]``: the row of information state ``i`` in ``matrix`` (-1 for
    another player's); ``moves``: the player's moves (the outputs of its
    networks); ``action[i]``: per move of information state ``i``, its index
    in ``moves``; ``legal``: per row, which of ``moves`` are legal.
    """

    def __init__(self, tree, player: int):
        self.player = player
        self.infosets = [i for i, info in enumerate(tree.infosets) if info.player == player]
        chosen = [tree.infosets[i] for i in self.infosets]
        self.moves = sorted({m for info in chosen for m in info.moves}
                            | {step[0] for info in chosen for step in info.history},
                            key=term_key)
        self.terms = sorted({t for info in chosen for step in info.history for t in step[1]},
                            key=term_key)
        self.depth = max((len(info.history) for info in chosen), default=0)
        move_slot = {m: k for k, m in enumerate(self.moves)}
        term_slot = {t: len(self.moves) + k for k, t in enumerate(self.terms)}
        self.step_width = len(self.moves) + len(self.terms)
        self.size = self.depth * self.step_width + len(self.moves)
        self.row = np.full(len(tree.infosets), -1, dtype=np.int64)
        self.matrix = np.zeros((len(chosen), self.size), dtype=np.float64)
        self.legal = np.zeros((len(chosen), len(self.moves)), dtype=bool)
        self.action = {}
        legal_at = self.depth * self.step_width
        for r, (i, info) in enumerate(zip(self.infosets, chosen)):
            self.row[i] = r
            for t, (move, seen) in enumerate(info.history):
                base = t * self.step_width
                self.matrix[r, base + move_slot[move]] = 1.0
                for term in seen:
                    self.matrix[r, base + term_slot[term]] = 1.0
            self.action[i] = np.array([move_slot[m] for m in info.moves], dtype=np.int64)
            self.legal[r, self.action[i]] = True
            self.matrix[r, legal_at + self.action[i]] = 1.0

    def slots(self) -> list:
        """What each slot means, in order: ``"t=3 move call"``, ``"t=0 sees (yourcard j1)"``,
        ``"legal raise"``."""
        out = []
        for t in range(self.depth):
            out += [f"t={t} move {to_kif(m)}" for m in self.moves]
            out += [f"t={t} sees {to_kif(s)}" for s in self.terms]
        return out + [f"legal {to_kif(m)}" for m in self.moves]

    def describe(self, role: str) -> dict:
        return {"role": role, "size": self.size, "depth": self.depth,
                "moves": [to_kif(m) for m in self.moves],
                "terms": [to_kif(t) for t in self.terms],
                "information_states": len(self.infosets), "slots": self.slots()}
