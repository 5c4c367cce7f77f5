"""Information-state features for learners, derived from the game alone.

A player's information state is its own move and its percepts at every step
so far, and its legal moves (:class:`ggp.solvers.efg.InfoSet`).  The encoding is a
0/1 vector with, for every step ``t`` up to the deepest of the player's
information states, one slot per move of the player (the move it made at
``t``) and one per term it can see (the terms it saw at ``t``), then one slot
per move (its legal moves now).  The moves and terms are those of the
player's information states in the game's extensive form, in the state
machine's order of terms; so no game needs hand-written features, and two
different information states never share a vector (their histories or legal
moves differ somewhere).  Players that share networks (MC-NFSP by default)
share one encoding over all their moves and terms, with a slot per player
saying whose information state a vector is.  ``ggp info GAME --features``
shows the encoding.
"""

from __future__ import annotations

import numpy as np

from gdl import to_kif
from ggp.statemachine import term_key


class Encoding:
    """The features of the information states of one player, or of several
    that share networks, in ``tree``.

    ``players``: a player's index, or a tuple of them; for several, the
    moves and terms are those of all of them (a move or term two players
    share has one slot), and one slot more per player says whose
    information state it is, so no two of them share a vector.
    ``infosets``: the tree's information states of those players (indices);
    ``row[i]``: the row of information state ``i`` in ``matrix`` (-1 for
    another player's); ``moves``: the players' moves (the outputs of their
    networks); ``action[i]``: per move of information state ``i``, its index
    in ``moves``; ``legal``: per row, which of ``moves`` are legal.
    """

    def __init__(self, tree, players):
        self.players = (players,) if isinstance(players, int) else tuple(players)
        self.infosets = [i for i, info in enumerate(tree.infosets) if info.player in self.players]
        chosen = [tree.infosets[i] for i in self.infosets]
        self.moves = sorted(
            {m for info in chosen for m in info.moves}
            | {step[0] for info in chosen for step in info.history},
            key=term_key,
        )
        self.terms = sorted(
            {t for info in chosen for step in info.history for t in step[1]}, key=term_key
        )
        self.roles = [tree.players[p] for p in self.players] if len(self.players) > 1 else []
        self.depth = max((len(info.history) for info in chosen), default=0)
        move_slot = {m: k for k, m in enumerate(self.moves)}
        term_slot = {t: len(self.moves) + k for k, t in enumerate(self.terms)}
        self.step_width = len(self.moves) + len(self.terms)
        legal_at = self.depth * self.step_width
        role_at = legal_at + len(self.moves)
        self.size = role_at + len(self.roles)
        self.row = np.full(len(tree.infosets), -1, dtype=np.int64)
        self.matrix = np.zeros((len(chosen), self.size), dtype=np.float64)
        self.legal = np.zeros((len(chosen), len(self.moves)), dtype=bool)
        self.action = {}
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
            if self.roles:
                self.matrix[r, role_at + self.players.index(info.player)] = 1.0

    def slots(self) -> list:
        """What each slot means, in order: ``"t=3 move call"``, ``"t=0 sees (yourcard j1)"``,
        ``"legal raise"``."""
        out = []
        for t in range(self.depth):
            out += [f"t={t} move {to_kif(m)}" for m in self.moves]
            out += [f"t={t} sees {to_kif(s)}" for s in self.terms]
        return (
            out
            + [f"legal {to_kif(m)}" for m in self.moves]
            + [f"to act {role}" for role in self.roles]
        )

    def describe(self, role: str) -> dict:
        return {
            "role": role,
            "size": self.size,
            "depth": self.depth,
            "moves": [to_kif(m) for m in self.moves],
            "terms": [to_kif(t) for t in self.terms],
            "information_states": len(self.infosets),
            "slots": self.slots(),
        }


class StepEncoding:
    """The features of one player's information states in a game sampled step
    by step, when its extensive form cannot be built: the slots of
    :class:`Encoding` over vocabularies known before any state is visited,
    ``moves`` (the player's move numbers in the reasoner) and ``terms`` (the
    numbers of the percepts it can ever see), the legal moves first and then
    a block per step ``0 .. depth - 1``.  A step past the last block is
    refused (:meth:`extend`); :meth:`grow` adds blocks at the end, so the
    features of a shorter history keep their slots.  No two information
    states share features.

    An information state under way is a list of its active slots
    (:meth:`extend`); :meth:`packed` gives its features with the legal moves
    as bytes (``numpy.packbits``), the form the learners' memories keep.
    """

    def __init__(self, moves, terms, depth: int):
        if depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        self.moves, self.terms = list(moves), list(terms)
        self.move_slot = {m: k for k, m in enumerate(self.moves)}
        self.term_slot = {t: len(self.moves) + k for k, t in enumerate(self.terms)}
        self.step_width = len(self.moves) + len(self.terms)
        self.depth = 0
        self.grow(depth)

    def grow(self, depth: int) -> None:
        """Blocks for the steps up to ``depth - 1`` (no fewer than now): the
        slots there were are unchanged, and a packed row of the old size is
        a prefix of its new packing (:meth:`widened`)."""
        if depth < self.depth:
            raise ValueError(f"the features cannot shrink from depth {self.depth} to {depth}")
        self.depth = depth
        self.size = len(self.moves) + depth * self.step_width
        self.bytes = (self.size + 7) // 8

    def widened(self, rows: np.ndarray) -> np.ndarray:
        """Packed ``rows`` (bytes in the last axis) of a smaller depth, packed at this one."""
        pad = [(0, 0)] * (rows.ndim - 1) + [(0, self.bytes - rows.shape[-1])]
        return np.pad(rows, pad)

    def extend(self, active: list, step: int, move, seen) -> None:
        """Add to ``active`` the player's ``move`` at ``step`` and what it saw
        then (``seen``: percept numbers; -1, a term it can never see, is
        skipped).  ValueError for a step past the last block."""
        if step >= self.depth:
            raise ValueError(
                f"step {step} is past the features' depth {self.depth}: grow them first"
            )
        base = len(self.moves) + step * self.step_width
        if move in self.move_slot:
            active.append(base + self.move_slot[move])
        active.extend(base + self.term_slot[t] for t in seen if t in self.term_slot)

    def actions(self, legal) -> list:
        """The indices in ``moves`` of the legal moves ``legal``."""
        return [self.move_slot[m] for m in legal]

    def packed(self, active: list, actions: list) -> np.ndarray:
        """The features of the information state ``active`` whose legal moves
        are ``actions`` (indices in ``moves``), packed into bytes."""
        bits = np.zeros(self.bytes * 8, dtype=np.uint8)
        bits[active] = 1
        bits[actions] = 1
        return np.packbits(bits)

    def unpacked(self, rows: np.ndarray) -> np.ndarray:
        """The features of packed ``rows`` (one per line) as 0/1 float32."""
        return np.unpackbits(rows, axis=1, count=self.size).astype(np.float32)

    def legal(self, rows: np.ndarray) -> np.ndarray:
        """Per packed row, which of ``moves`` are legal."""
        return np.unpackbits(rows, axis=1, count=len(self.moves)).astype(bool)
