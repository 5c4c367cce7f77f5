"""The Python search tree of the MCTS players (:mod:`players.perfect.mcts`):
its nodes, selection and backup.

It is the tree for the reference and demand-driven reasoners (and
``engine=python``), and the oracle the C tree (:mod:`players.perfect._tree`)
is tested against: with the same seed both make the same simulations.  One
search for any number of roles, turn-taking or simultaneous, as in CadiaPlayer
(Björnsson and Finnsson, "CadiaPlayer: A Simulation-Based General Game
Player", IEEE TCIAIG 1(1), 2009) and the players of Tak, Winands and Björnsson,
"N-Grams and the Last-Good-Reply Policy Applied in General Game Playing" (IEEE
TCIAIG 4(2), 2012; "slide N" below is a slide of A. Shwartz's presentation of
that paper, "N-Grams and the Last-Good-Reply Policy in MCTS", 2015):

* every node keeps, for every role, the visits and reward sum of each of the
  role's legal moves, and each role chooses its own move by UCB1 on its own
  goal (decoupled UCT: simultaneous moves, general-sum and multi-player
  games alike; a role with one legal move, such as ``noop``, has no choice);
* a move never tried at a node is tried first, the playout policy choosing
  among the untried ones (Tak et al., slide 26, "fine details");
* one node is added per simulation, then a playout runs to the end of the game
  in C (:mod:`players._policy`), and the goals, discounted by 0.999 a ply
  (``gamma ** plies``, Tak et al., slide 30), are backed up along the path;
* the playout policy learns from every simulation, with the moves of the tree
  part and of the playout, also when the simulation ends at a terminal state
  inside the tree (Tak et al., slides 22-25);
* ``transpositions=true`` shares one node between paths reaching one state.

UCB1 (Kocsis and Szepesvári 2006) on the 0..100 goal scale, with CadiaPlayer's
C = 40: ``Q(s, a) + C * sqrt(ln N(s) / N(s, a))``.
"""

from __future__ import annotations

import math

from players.perfect.searches import MAX_NODES
from players.perfect.state import SearchState


class Node:
    """A state in the tree: per role its legal moves and their statistics."""

    __slots__ = ("state", "terminal", "goals", "legal", "visits", "sums", "tops", "n", "children")

    def __init__(self, search, state):
        self.state = state
        self.terminal, self.goals, self.legal = search.expand(state)
        self.n = 0
        if self.legal is not None:
            self.visits = [[0] * len(moves) for moves in self.legal]
            self.sums = [[0.0] * len(moves) for moves in self.legal]
            self.tops = [[-1.0] * len(moves) for moves in self.legal]  # best reward seen
        self.children = {}


class PythonTree(SearchState):
    """The Python tree's part of :class:`players.perfect.mcts.MCTSPlayer`:
    simulations on its nodes (``root``, ``table`` when ``transpositions``,
    ``added`` this decision) through the player's ``search``
    (:mod:`players.perfect.searches`) and ``history``."""

    def simulate(self) -> bool:
        """One simulation: select down the tree, add a node, play out, back up.
        The policy learns from the whole simulation: the playout credits the
        tree moves with its own, and a simulation that ends at a terminal
        state inside the tree credits its tree moves.  False (nothing backed
        up) when the playout ran out of the search's time."""
        node, path, picks = self.root, [self.root], []
        joints: list[tuple] = []
        goals, depth = None, 0
        while not node.terminal:
            joint, pick = self._choose_joint(node, joints)
            joints.append(joint)
            picks.append(pick)
            child = node.children.get(joint)
            if child is None:
                child = self._node(self.search.next(node.state, joint))
                if self.added < MAX_NODES:
                    node.children[joint] = child
                    self.added += 1
                path.append(child)
                if not child.terminal:
                    goals, depth = self.search.playout(child.state, self.history, joints)
                    if goals is None:
                        return False
                break
            path.append(child)
            node = child
        if goals is None:
            goals = path[-1].goals
            self.search.credit(self.history, joints, goals)
        self._backup(path, picks, goals, depth)
        return True

    def _backup(self, path, picks, goals, depth):
        """Add each role's goal, discounted by ``gamma ** plies`` from the
        node to the end of the simulation (Tak et al., slide 30), to the move it
        chose at each node, and keep the best such reward seen."""
        gamma = self.discount
        scale = gamma**depth
        for i in range(len(picks) - 1, -1, -1):
            scale *= gamma
            node = path[i]
            node.n += 1
            for r, j in enumerate(picks[i]):
                reward = goals[r] * scale
                node.visits[r][j] += 1
                node.sums[r][j] += reward
                if reward > node.tops[r][j]:
                    node.tops[r][j] = reward
        path[-1].n += 1

    def _choose_joint(self, node, joints) -> tuple:
        """Each role's move (and its index among the role's legal moves): an
        untried one (the policy picks which), else by UCB1."""
        joint, pick = [], []
        log_n = math.log(node.n) if node.n > 0 else 0.0
        c = self.c
        for r, moves in enumerate(node.legal):
            if len(moves) == 1:
                joint.append(moves[0])
                pick.append(0)
                continue
            visits, sums = node.visits[r], node.sums[r]
            untried = [m for m, v in zip(moves, visits) if v == 0]
            if untried:
                move = self.search.choose(r, untried, self.history, joints)
                joint.append(move)
                pick.append(moves.index(move))
                continue
            best, best_value = 0, -math.inf
            for j in range(len(moves)):
                v = visits[j]
                value = sums[j] / v + c * math.sqrt(log_n / v)
                if value > best_value:
                    best, best_value = j, value
            joint.append(moves[best])
            pick.append(best)
        return tuple(joint), pick

    def _node(self, state) -> Node:
        if self.table is None:
            return Node(self.search, state)
        node = self.table.get(state)
        if node is None:
            node = self.table[state] = Node(self.search, state)
        return node

    def _index(self, root):
        """Rebuild the transposition table from the subtree kept between turns."""
        todo = [root]
        while todo:
            node = todo.pop()
            if node.state not in self.table:
                self.table[node.state] = node
                todo.extend(node.children.values())
