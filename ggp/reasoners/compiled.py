"""The compiled reasoner: the StateMachine interface over the propositional
network (:mod:`ggp.reasoners.propnet`) evaluated by the C kernel (:mod:`ggp.reasoners._propnet`).

A state is a ``bytes`` object, one byte per base proposition (1 when true), in
the order of ``GroundProgram.base``.  Moves come out in the same order as the
reference reasoner's, so the two can be compared move by move.
"""

from __future__ import annotations

import copy
import time

import numpy as np

from ggp.collector import collector_paused
from ggp.reasoners import COMPILED, register
from ggp.reasoners._propnet import Kernel, cone, gating_nodes
from ggp.reasoners.datalog import BUILD_LOG
from ggp.reasoners.ground import EFFORT, GROUND_LIMIT, GroundProgram, ground
from ggp.reasoners.propnet import Network, lazy_goals
from ggp.statemachine import GameError, StateMachine, single_goal

#: Goal-only gates are evaluated lazily, when goals are read, once they have
#: at least this many input edges: below it, settling them at the end of
#: every playout costs about what keeping them up to date does (leduc, 190
#: edges); above it, reversi (37,000) and othello-comp2007 (180,000) make
#: more state changes a second lazily (the figures, and the lazy_goals suite
#: that measures them: docs/reasoners.md, "Lazy goals").
LAZY_GOAL_EDGES = 1000

#: A kernel is split by at most this many control propositions (one network
#: each), on networks of at most ``SPLIT_EDGES`` gate inputs (docs/reasoners.md,
#: "Split by control").
MAX_CONTROLS = 4
SPLIT_EDGES = 2_000_000
SPLIT_RATIO = 0.1


@register
class CompiledMachine(StateMachine):
    """The propositional-network reasoner.  ``build_seconds`` says how long
    grounding and building took; ``network`` is the network it runs.

    ``program``, when given, is the game already ground (``ground(rules,
    roles, limit, effort)``, e.g. in another process: ``Game.build``), and
    only the network and the kernel are built here."""

    name = COMPILED

    def __init__(
        self,
        rules,
        roles,
        limit: int = GROUND_LIMIT,
        effort: int = EFFORT,
        program: GroundProgram | None = None,
    ):
        start = time.perf_counter()
        with collector_paused():  # millions of objects: a collection would stall other threads
            self._build(rules, roles, limit, effort, program)
        self.build_seconds = time.perf_counter() - start

    def _build(self, rules, roles, limit, effort, program) -> None:
        gp: GroundProgram = program if program is not None else ground(rules, roles, limit, effort)
        self.ground_program = gp
        #: candidate atoms grounding's joins examined (deterministic: the
        #: same on any machine, unlike ``build_seconds``)
        self.build_effort = gp.effort
        BUILD_LOG.info("network: from %s ground rules", f"{len(gp.rule_head):,}")
        self.network = Network(gp)
        self._arrays = self.network.arrays()
        self.network_edges = len(self._arrays["in_lit"])
        self._lanes_kernel = self._lanes_arrays = None
        self.roles = tuple(roles)
        self._base = gp.base
        self._base_index = {b: i for i, b in enumerate(gp.base)}
        self._moves = [m for _, m in gp.inputs]
        self._move_index: list[dict] = [{} for _ in roles]
        for i, (r, m) in enumerate(gp.inputs):
            self._move_index[self.roles.index(r)][m] = i
        self._sees: list[list] = [[] for _ in roles]
        for node, r, percept in self.network.sees:
            self._sees[r].append((self.network.number[node], percept))
        self._initial = self.state_from_facts(gp.init)
        BUILD_LOG.info(
            "kernel: %s nodes, %s gate inputs",
            f"{len(self._arrays['kind']):,}",
            f"{self.network_edges:,}",
        )
        self.kernel, self.gating, self.controls = self._kernel()

    def _kernel(self):
        """The kernel, the base nodes gating ANDs in the whole network, and the
        control propositions it is split by (base indices; see
        :meth:`ggp.reasoners._propnet.Kernel.split`).  Goal-only gates are evaluated
        when goals are read, the ANDs of control-like propositions gated; both
        chosen per network, from how often each base proposition flips in
        random playouts of the whole network."""
        arrays, lazy = self._lazy(self.network, self._arrays)
        plain = Kernel(**arrays, lazy=lazy)
        self._flips = plain.flips(self._initial, 2000, 1)
        gating = gating_nodes(arrays, *self._flips)
        whole = Kernel(**arrays, gating=gating, lazy=lazy) if len(gating) else plain
        controls = self._controls(plain, *self._flips)
        return self._split(self.network, whole, controls), gating, controls

    def _split(self, network, whole, controls):
        """``whole``, the kernel of ``network``, split by ``controls`` (if any)."""
        if not controls:
            return whole
        subs = []
        for c in controls:
            fixed = network.fixed({b: b == c for b in controls})
            arrays, lazy = self._lazy(fixed, fixed.arrays())
            subs.append(Kernel(**arrays, gating=gating_nodes(arrays, *self._flips), lazy=lazy))
        return Kernel.split(subs + [whole], controls)

    def decisive_kernel(self):
        """A kernel of its own (in the initial state) whose networks also
        say, per role, whether the moves set now win the game at once
        (:meth:`ggp.reasoners.propnet.Network.with_wins`): for decisive-move playouts,
        ``Kernel._decisive``."""
        network = self.network.with_wins()
        arrays, lazy = self._lazy(network, network.arrays())
        whole = Kernel(**arrays, gating=gating_nodes(arrays, *self._flips), lazy=lazy)
        return self._split(network, whole, self.controls)

    def _lazy(self, network, arrays):
        """The arrays of ``network`` and its lazy goal program
        (ggp.reasoners._propnet.Kernel), the goal-only gates lazy when they have
        ``LAZY_GOAL_EDGES`` input edges (what ``sees`` and the wins read stays
        incremental)."""
        keep = [network.number[n] for n, _, _ in network.sees] + list(arrays.get("win_node", ()))
        kernel_arrays, lazy = lazy_goals(arrays, keep)
        if len(lazy["lit"]) < LAZY_GOAL_EDGES:
            return arrays, None
        return kernel_arrays, lazy

    def _controls(self, kernel, flips, done) -> tuple:
        """The control propositions (base indices) the kernel is split by: the
        base propositions that flip in at least half of the steps of random
        playouts, whose next value no move decides, exactly one of which holds
        in every state of 2,000 random steps; two to ``MAX_CONTROLS`` of them,
        in a game without ``sees`` (whose node numbers the networks would not
        share), on a network of at most ``SPLIT_EDGES`` gate inputs; and only
        where the legal moves of the roles with more than one, per step, are
        at least ``SPLIT_RATIO`` times the readers of the other base
        propositions that flip in a step (reversi and checkers, whose moves
        flip propositions read by hundreds of gates, ran slower split: the
        split_kernel suite, docs/reasoners.md)."""
        if self.network.sees or self.network_edges > SPLIT_EDGES:
            return ()
        arrays = self._arrays
        often = np.flatnonzero(flips >= 0.5 * max(done, 1))
        if not 2 <= len(often) <= MAX_CONTROLS:
            return ()
        does = np.asarray(arrays["does_node"], dtype=np.int64)
        for b in often:
            reads = cone(
                arrays["kind"],
                arrays["in_start"],
                arrays["in_lit"],
                arrays["block_lo"],
                np.array([arrays["next_node"][b]], dtype=np.int64),
            )
            if arrays["next_node"][b] < 0 or reads[does].any():
                return ()
        if not kernel.one_of(self._initial, often, 2000, 2):
            return ()
        # Worth it when the moves a turn change are many beside what the other
        # flips touch (a network per turn processes those flips once each).
        fan = np.diff(arrays["out_start"])[arrays["base_node"]]
        other = np.ones(len(flips), dtype=bool)
        other[often] = False
        touched = (flips * fan)[other].sum() / max(done, 1)
        steps = [step for seed in range(20) for step in kernel.trace(self._initial, seed)]
        moving = sum(k for step in steps for k, _ in step if k > 1) / max(len(steps), 1)
        if moving < SPLIT_RATIO * touched:
            return ()
        return tuple(int(b) for b in often)

    def fork(self) -> CompiledMachine:
        """A machine of its own on the same network: a new kernel (which
        holds the loaded state), everything else shared."""
        other = copy.copy(self)
        other.kernel = self.kernel.copy()
        other._lanes_kernel = None
        return other

    def _role(self, role) -> int:
        try:
            return self.roles.index(role)
        except ValueError:
            raise GameError(f"no role {role!r} in this game (roles: {self.roles})") from None

    def _joint(self, state, joint) -> list:
        """Move indices of a joint move, refusing malformed or illegal moves."""
        joint = tuple(joint)
        if len(joint) != len(self.roles):
            raise GameError(f"a joint move needs one move per role {self.roles}, got {joint!r}")
        self.kernel.load(state)
        out = []
        for r, move in enumerate(joint):
            try:
                index = self._move_index[r].get(move)
            except TypeError:
                index = None
            if index is None or index not in self.kernel.legal(r):
                raise GameError(
                    f"move {move!r} is not legal for role {self.roles[r]!r} in this state"
                )
            out.append(index)
        return out

    # --- the StateMachine questions ----------------------------------------
    def initial_state(self):
        return self._initial

    def legal_moves(self, state, role):
        self.kernel.load(state)
        return [self._moves[i] for i in self.kernel.legal(self._role(role))]

    def next_state(self, state, joint):
        return self.kernel.next_state(state, self._joint(state, joint))

    def is_terminal(self, state):
        self.kernel.load(state)
        return self.kernel.terminal()

    def goal(self, state, role):
        self.kernel.load(state)
        return single_goal(role, self.kernel.goals(self._role(role)))

    def percepts(self, state, joint, role):
        r = self._role(role)
        self.kernel.next_state(state, self._joint(state, joint))
        return frozenset(p for node, p in self._sees[r] if self.kernel.value(node))

    # --- the numbering the kernel answers in ------------------------------
    @property
    def move_terms(self) -> list:
        """The move of each move number (the kernel's ``legal`` answers)."""
        return self._moves

    @property
    def move_numbers(self) -> list:
        """Per role (in the order of ``roles``), its moves' numbers by move."""
        return self._move_index

    @property
    def percept_nodes(self) -> list:
        """Per role, ``(node, percept)`` for each of its ``sees`` nodes: what
        :meth:`ggp.reasoners._propnet.Kernel.true_nodes` is asked about (none in a game
        without ``sees``, whose kernel may be split)."""
        return self._sees

    @property
    def base_propositions(self) -> tuple:
        """The base propositions, in the order of a state's bytes."""
        return tuple(self._base)

    def state_facts(self, state):
        return frozenset(b for b, v in zip(self._base, state) if v)

    def state_from_facts(self, facts):
        state = bytearray(len(self._base))
        for fact in facts:
            if fact not in self._base_index:
                raise GameError(f"{fact!r} is not a base proposition of this game")
            state[self._base_index[fact]] = 1
        return bytes(state)

    def playouts(
        self, state, count: int, seed: int = 0, max_steps: int = 100000, goals: bool = True
    ):
        """``count`` random playouts from ``state``, run in C.

        Returns (total steps, summed final goals per role, playouts cut short).
        Enough playouts on a network that is not too large run 64 at a time,
        one per bit of a machine word (:mod:`ggp.reasoners._lanes`, several times
        the incremental kernel's state changes a second: docs/reasoners.md);
        fewer run one after another on the kernel.  The rule depends
        on the network and ``count`` only, so a seed gives the same result in
        every run.  The C loop checks the goals of the terminal states it
        reaches, so that a fault raises the :class:`RuleError` the other
        reasoners raise (with ``goals`` False it is not checked and the sums
        are None, as :meth:`StateMachine.playouts` says).
        """
        kernel = self._lanes() if self._use_lanes(count) else self.kernel
        fault: list | None = [] if goals else None
        free = self.roles.index("random") if "random" in self.roles else -1
        steps, sums, cut = kernel.playouts(state, count, seed, max_steps, fault, free)
        if fault:
            role, values = fault[0]
            single_goal(self.roles[role], values)  # raises: the C loop found the rule broken
        return steps, sums if goals else None, cut

    def _use_lanes(self, count: int) -> bool:
        """Lanes pay when most of the 64 are busy, and a sweep of the whole
        network is not much dearer than what one step changes: the cases
        chosen here ran faster in lanes than on the kernel, those left out
        not (the lanes suite; the figures in docs/reasoners.md)."""
        edges = self.network_edges
        return (count >= 64 and edges <= 1_000_000) or (count >= 16 and edges <= 200_000)

    def _lanes(self):
        if self._lanes_kernel is None:
            self._lanes_kernel = self.new_lanes()
        return self._lanes_kernel

    def new_lanes(self):
        """Bit-parallel playouts (:class:`ggp.reasoners._lanes.Lanes`) of this network,
        its moves' ORs complemented (lanes sweep every gate, so fewer edges is
        faster whatever flips), with scratch of their own
        (for a search thread)."""
        from ggp.reasoners._lanes import Lanes

        if self._lanes_arrays is None:
            self._lanes_arrays = self.network.fixed({}).arrays()
        return Lanes(**self._lanes_arrays)

    def playout_trace(self, state, seed: int = 0, max_steps: int = 1000) -> list:
        """One random playout from ``state`` as the C loop plays it: per step,
        (the number of legal moves per role, the joint move chosen)."""
        return [
            (tuple(k for k, _ in step), tuple(self._moves[m] for _, m in step))
            for step in self.kernel.trace(state, seed, max_steps)
        ]
