"""What the parts of the MCTS players (:mod:`players.perfect.mcts`) share: the
declared parameters their typed methods read and the search's state, set by
:class:`~players.perfect.mcts.MCTSPlayer` (its parameters by
:class:`~players.base.Player`, the rest by ``rebuild_search``).  The tree
(:mod:`players.perfect.tree`), the time management
(:mod:`players.perfect.budget`), the move played (:mod:`players.perfect.root`)
and the options (:mod:`players.perfect.options`) each derive from it, so that
each reads these names as the player's own."""

from __future__ import annotations

from typing import Any

from players.base import Player


class SearchState(Player):
    """Declarations only: no behaviour of its own."""

    # declared parameters (set by Player.__init__)
    simulations: int | None
    c: float
    heuristic: float
    prior: int
    imm: float
    greedy: float
    cutoff: int
    fit: str
    # the search, rebuilt at START and at a handover to the compiled reasoner
    search: Any  # players.perfect.searches.CompiledSearch or ReferenceSearch
    ctree: Any  # players.perfect.searches.Forest over the C tree, or None
    root: Any  # the Python tree's root node (players.perfect.tree.Node)
    table: dict | None  # transpositions of the Python tree
    history: list  # joint moves of the match so far, as search ids
    added: int  # nodes the Python tree added
