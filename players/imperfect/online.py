"""Players that solve the game's extensive form while they play (Šustr, Kovařík
and Lisý, "Monte Carlo Continual Resolving" (slides)): ``mccr``, ``oos`` and
``mccfr``.

Each builds the game's whole extensive form at the start of a match
(:func:`ggp.solvers.efg.build_tree`, shared by the players of one game object) and
runs Monte Carlo CFR in C over it (:mod:`ggp.solvers.mccfr`):

- ``mccfr``: outcome-sampling MCCFR from the root for the budget of every
  move, its tables kept from move to move; it plays from the average policy
  at its information state.
- ``oos``: Online Outcome Sampling (Lisy, Lanctot and Bowling, AAMAS 2015):
  the same, but ``delta`` of the samples are targeted at the histories of the
  current information state (``targeting=ist``) or public state (``pst``),
  with the estimates kept unbiased (:mod:`ggp.solvers._mccfr`).
- ``mccr``: Monte Carlo Continual Resolving (Šustr, Kovařík and Lisý 2019;
  the MCCR slides 37-40).  It solves the game from the root in the start
  clock; then, at its first decision in each new public state
  (:mod:`ggp.solvers.public`), it builds the resolving gadget of that public state
  from its range and the opponent's counterfactual values kept from the
  previous resolve (:mod:`ggp.solvers.resolving`), solves it with outcome-sampling
  MCCFR for the move's budget, and plays from the resolved average strategy.
  The kept data are the resolver's range under its resolved average
  strategy, computed exactly over the solved subgame, and the opponent's
  counterfactual values (:func:`ggp.solvers.resolving.kept_data`): with
  ``values=iterations`` (the default) its values per unit of reach averaged
  over the resolve's iterations after a warm-up (``warmup``, half the budget
  by default: the average strategy starts there too), as DeepStack's
  re-solves and the MCCR paper keep them, estimated by the outcome-sampling
  traversals; with ``br`` its exact counterfactual best-response values
  against the resolved strategy.  With exact resolves both are safe
  (``tests/test_online.py``; values averaged over every iteration are not).
  ``variant=keep`` carries the resolver's regrets from one resolve to the
  next, ``reset`` starts each afresh.

The budget is ``iterations`` a move (reproducible with ``seed``), else the
play clock less ``margin``.  Each player's move is drawn from the strategy it
computed at its information state, which it keeps in ``last_policy`` (the
online exploitability of :mod:`players.imperfect.evaluation` averages these).

A game whose extensive form cannot be built within half the start clock or
:data:`ggp.solvers.efg.HISTORY_LIMIT` histories (IIGS-13, phantom tic-tac-toe) is
solved over a tree grown by sampling through the state machine, after one
warning (:mod:`players.imperfect.sampled`; ``tree=sampled`` asks for it on any game):
there ``mccr`` resolves at each of its decisions over the histories of its
information state (sampled information-state resolving, not the paper's
MCCR: :mod:`players.imperfect.sampled` says where it departs), and ``oos``
targets its information state.  A game that
``mccr`` cannot resolve (not two-player constant-sum) is played as
``ismcts`` with the same budget and seed, after one warning.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref

import numpy as np

from ggp.solvers.efg import CHANCE_ROLE, TERMINAL, TreeTooLarge, build_tree, flatten, infostate_key
from ggp.solvers.resolving import VALUES
from players.base import MARGIN, Player
from players.imperfect.search import ISMCTSPlayer
from players.params import Param, extend
from players.registry import register

log = logging.getLogger("players.imperfect.online")

_VIEWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_BUILDING = threading.Lock()
_WARNED: set = set()
#: The longest a batch of iterations on the clock is meant to take, in seconds.
BATCH_SECONDS = 0.01


class View:
    """A game's extensive form as the solving players use it: the tree, its
    flat arrays, subtree ends and parents, its public states (on first use)
    and its information states by observation history."""

    def __init__(self, tree):
        from ggp.solvers.resolving import parents, subtree_ends

        self.tree = tree
        self.flat = flatten(tree)
        self.end = subtree_ends(self.flat)
        self.parent = parents(self.flat)
        self._public = None
        self.by_history = {info.key.rpartition(" ? ")[0]: i for i, info in enumerate(tree.infosets)}
        sums = {
            round(sum(tree.utility[n]), 9)
            for n in range(tree.histories)
            if tree.kind[n] == TERMINAL
        }
        self.total = sums.pop() if len(sums) == 1 else None  # the constant sum, if any

    @property
    def public(self):
        if self._public is None:
            from ggp.solvers.public import public_states

            self._public = public_states(self.tree)
        return self._public

    def public_children(self, state: int) -> list:
        """The public states just below ``state`` in the public tree."""
        if not hasattr(self, "_public_children"):
            public = self.public
            children: list[set[int]] = [set() for _ in range(len(self.public))]
            for n, kids in enumerate(self.tree.children):
                for c in kids:
                    if public.state[c] >= 0 and public.state[c] != public.state[n]:
                        children[public.state[n]].add(int(public.state[c]))
            self._public_children = [sorted(c) for c in children]
        return self._public_children[state]

    def decisions_in(self, player: int, state: int) -> list:
        """``player``'s information states in public state ``state``."""
        tree = self.tree
        return sorted(
            {tree.infoset[n] for n in self.public.members[state] if tree.player[n] == player}
        )

    def own_next(self, player: int) -> dict:
        """Information state (None: the start) -> ``player``'s next information
        states after it (its next decisions)."""
        cache = self.__dict__.setdefault("_own_next", {})
        if player not in cache:
            tree = self.tree
            after: dict[int | None, set[int]] = {None: set()}
            stack = [(0, None)]
            while stack:
                n, last = stack.pop()
                if tree.player[n] == player:
                    after.setdefault(last, set()).add(tree.infoset[n])
                    after.setdefault(tree.infoset[n], set())
                    last = tree.infoset[n]
                stack.extend((c, last) for c in tree.children[n])
            cache[player] = {k: sorted(v) for k, v in after.items()}
        return cache[player]

    def next_decisions(self, player: int, decision, targeting: str) -> list:
        """The decisions after ``decision`` (None: the first ones), each a list
        of ``player``'s information states decided alike: one information state
        (``ist``), or those of one public state (``pst``)."""
        if targeting == "ist":
            return [[i] for i in self.own_next(player)[None if decision is None else decision[0]]]
        here = (
            0
            if decision is None
            else int(self.public.state[self.tree.infosets[decision[0]].nodes[0]])
        )
        found = []
        stack = [here] if decision is None else list(self.public_children(here))
        while stack:
            state = stack.pop()
            mine = self.decisions_in(player, state)
            if mine:
                found.append(mine)
            else:
                stack.extend(self.public_children(state))
        return found

    def decisions_by_depth(self, player: int) -> list:
        """``player``'s information states by the number of its decisions up to
        and including them: a list (depth 1, 2, ...) of lists."""
        after, layers = self.own_next(player), []
        layer = after[None]
        while layer:
            layers.append(layer)
            layer = sorted({j for i in layer for j in after[i]})
        return layers

    def mask(self, nodes) -> np.ndarray:
        """1 at ``nodes``, their subtrees and their ancestors (a target)."""
        mask = np.zeros(len(self.flat.kind), dtype=np.uint8)
        for n in nodes:
            mask[n : self.end[n]] = 1
            p = self.parent[n]
            while p >= 0 and not mask[p]:
                mask[p] = 1
                p = self.parent[p]
        return mask


def view_of(game, deadline: float) -> View:
    """The (cached) :class:`View` of ``game``; TreeTooLarge when it has too many
    histories or cannot be built by ``deadline``."""
    with _BUILDING:
        cached = _VIEWS.get(game)
        if cached is None:
            try:
                cached = View(build_tree(game, deadline=deadline))
            except TreeTooLarge as exc:  # without its frames, which hold the partial tree
                cached = exc.with_traceback(None)
            _VIEWS[game] = cached
    if isinstance(cached, Exception):
        raise cached
    return cached


class SolvingPlayer(Player):
    """What the three share: the view, the budget, finding the information
    state, drawing the move, the ``ismcts`` fallback."""

    name = "solving"
    params = extend(
        Player.params,
        Param(
            "iterations",
            int,
            None,
            "MCCFR iterations a move (reproducible with seed); default: think on the clock",
            low=1,
        ),
        MARGIN,
        Param(
            "epsilon",
            float,
            0.6,
            "outcome sampling's exploration at the updated player's nodes",
            low=0,
            high=1,
            low_open=True,
        ),
        Param(
            "tree",
            str,
            "auto",
            "the whole extensive form when it can be built, else a "
            "tree grown by sampling (auto), or always the sampled tree",
            choices=("auto", "sampled"),
        ),
    )
    # The declared parameters the typed methods read (attributes set by Player.__init__):
    iterations: int | None
    margin: float
    tree: str

    def __init__(self, **values):
        super().__init__(**values)
        self.fallback = self.sampled = None

    @property
    def on_clock(self) -> bool:
        return self.iterations is None

    def why_not(self, players: int, total) -> str | None:
        """Why this player cannot play a game of ``players`` players whose
        utilities sum to ``total`` (None: not constant-sum); None: it can."""
        return None

    def start(
        self,
        game,
        role,
        start_clock: float = 10.0,
        play_clock: float = 10.0,
        *,
        deadline: float | None = None,
    ):
        begin = time.monotonic()
        deadline = begin + start_clock if deadline is None else deadline
        self.fallback, self.sampled = None, None
        self.record: list[tuple] = []  # (own move, percepts) a turn
        reason = None
        if self.tree == "sampled":
            self.sampled = True
        else:
            try:
                self.view = view_of(game, begin + 0.5 * (deadline - begin))
                reason = self.why_not(len(self.view.tree.players), self.view.total)
            except TreeTooLarge as exc:
                self.sampled = True
                _warn_once(self.name, game, f"{exc}; solving over a tree grown by sampling")
        if self.sampled:
            from players.imperfect.sampled import constant_sum

            players = sum(r != CHANCE_ROLE for r in game.roles)
            self.total = constant_sum(game, self.reasoner, self.rng)
            reason = self.why_not(players, self.total)
        if reason is not None:
            _warn_once(self.name, game, f"{reason}; playing as ismcts")
            self.fallback = ISMCTSPlayer(
                seed=self.seed,
                simulations=self.iterations,
                margin=self.margin,
                reasoner=self.reasoner,
            )
            self.fallback.rng = self.rng
            return self.fallback.start(game, role, start_clock, play_clock, deadline=deadline)
        if not self.sampled:
            self.player = self.view.tree.players.index(role) if role != CHANCE_ROLE else -1
        super().start(game, role, start_clock, play_clock, deadline=deadline)

    def play(self, obs):
        if self.fallback is not None:
            return self.fallback.play(obs)
        return super().play(obs)

    def stop(self, obs=None):
        if self.fallback is not None:
            self.fallback.stop(obs)

    def observe(self, obs):
        if self.imperfect:
            self.record.append((obs.own_move, obs.percepts or frozenset()))
        else:
            self.record.append((obs.joint[self.me], frozenset([tuple(obs.joint)])))
        super().observe(obs)

    def select(self, legal, deadline):
        if len(legal) == 1:
            return legal[0]
        if self.sampled:
            return self.select_sampled(legal, deadline)
        history = infostate_key(self.role, tuple(self.record), ()).rpartition(" ? ")[0]
        info = self.view.by_history.get(history)
        if info is None:
            log.warning(
                "%s (role %r): its information state is not in the game's tree; "
                "playing a random legal move",
                self.name,
                self.role,
            )
            return self.rng.choice(legal)
        probs = self.decide(info, deadline)
        moves = self.view.tree.infosets[info].moves
        self.last_policy = dict(zip(moves, probs))
        return self.rng.choices(moves, weights=probs)[0]

    def spend(self, run, deadline: float):
        """Run iterations (``run(n)``) for the budget: ``iterations``, else
        until :meth:`think_until` ``deadline`` (:meth:`_run_until`)."""
        if self.iterations is not None:
            run(self.iterations)
            return
        self._run_until(run, self.think_until(deadline))

    def _run_until(self, run, until: float):
        """Run iterations (``run(n)``) until the instant ``until``, in batches
        whose time is measured (the first of one iteration: a traversal of a
        sampled tree can take milliseconds), each sized to take at most
        :data:`BATCH_SECONDS` and a quarter of the time left, so that a
        machine slower than the last batch measured overruns by little."""
        batch = 1
        while True:
            started = time.monotonic()
            if started >= until:
                return
            run(batch)
            took = max(time.monotonic() - started, 1e-6)
            target = min(BATCH_SECONDS, (until - time.monotonic()) / 4)
            batch = max(1, min(batch * 2, int(batch * target / took)))

    def meta_game(self, deadline):
        self.base_seed = self.seed if self.seed is not None else self.rng.getrandbits(32)
        if self.sampled:
            from ggp.solvers.efg import utility_unit
            from players.imperfect.sampled import SampledMCCFR

            unit = utility_unit(self.game)
            self.solver = SampledMCCFR(
                self.steps,
                lambda goals: [unit.from_goal(g) for g in goals],
                self.epsilon,
                derive(self.base_seed, -1),
            )
            self.warned = False
            self.begin_sampled(deadline if self.on_clock else None)
        else:
            self.begin(deadline if self.on_clock else None)

    def select_sampled(self, legal, deadline):
        """Think over the sampled tree (:meth:`decide_sampled`); draw the move
        from the average strategy at the information state."""
        self.decide_sampled(deadline)
        found = self.solver.policy(self.me, self.belief.key)
        ids = [self.steps.move_id(self.me, m) for m in legal]
        if found is None or set(found[0]) != set(ids):
            if not self.warned:
                self.warned = True
                log.warning(
                    "%s (role %r): its information state was never sampled; "
                    "playing a random legal move",
                    self.name,
                    self.role,
                )
            return self.rng.choice(legal)
        moves, probs = found
        self.last_policy = {self.steps.move(self.me, m): p for m, p in zip(moves, probs)}
        return self.steps.move(self.me, self.rng.choices(moves, weights=probs)[0])

    def think_sampled(self, deadline):
        """:meth:`spend` the budget on the sampled tree's solver, whose
        traversals stop at :meth:`think_until` ``deadline``."""
        until = self.think_until(deadline) if self.on_clock else None
        self.spend(lambda n: self.solver.run(n, until), deadline)

    def budget(self, deadline, warmup: float):
        """``(run, settle) -> None``: spend this move's budget (see
        :meth:`spend`), calling ``settle()`` after its first ``warmup`` share:
        of the iterations, or on the clock of the time left."""
        if self.iterations is not None:  # not on the clock
            return warmed(self.iterations, warmup)

        def spend(run, settle):
            left = max(0.0, self.think_until(deadline) - time.monotonic())
            self._run_until(run, time.monotonic() + warmup * left)
            settle()
            self.spend(run, deadline)

        return spend

    # --- what each player defines ---------------------------------------------------
    def begin(self, deadline):
        """Set up (and, with a ``deadline``, think until it) before the first move."""
        raise NotImplementedError

    def decide(self, info: int, deadline: float) -> list:
        """The probabilities of the moves of information state ``info``."""
        raise NotImplementedError

    def begin_sampled(self, deadline):
        """:meth:`begin` over the sampled tree (``self.solver``)."""
        if deadline is not None:
            self.think_sampled(deadline)

    def decide_sampled(self, deadline):
        """Think over the sampled tree before a decision at ``self.belief.key``."""
        self.think_sampled(deadline)

    @classmethod
    def online_strategy(
        cls, view: View, player: int, seed: int, iterations: int, **params
    ) -> np.ndarray:
        """The strategy this player computes, with ``seed`` and ``iterations`` a
        move, at every information state of ``player`` it can reach, flat per
        (information state, move) (other entries 0): what it would play in every
        match, computed once per decision it depends on (the MCCR slides, slide 43)."""
        raise NotImplementedError


def _warn_once(player: str, game, message: str):
    if (player, game.name) not in _WARNED:
        _WARNED.add((player, game.name))
        log.warning("%s: %s: %s", player, game.name, message)


def warmed(iterations: int, warmup: float):
    """The budget ``(run, settle) -> None`` of ``iterations`` iterations whose
    first ``warmup`` share (below 1) is followed by ``settle()``."""
    first = int(warmup * iterations)

    def spend(run, settle):
        if first:
            run(first)
        settle()
        run(iterations - first)

    return spend


def derive(seed: int, *ids: int) -> int:
    """A seed for the sampling at one decision: a function of the player's
    seed and of what the decision depends on (so a match and the online
    evaluation draw the same samples)."""
    return int(
        np.random.SeedSequence([seed, *(i + 1 for i in ids)]).generate_state(1, np.uint64)[0] >> 1
    )


@register
class MCCFRPlayer(SolvingPlayer):
    """Outcome-sampling MCCFR from the root, its tables kept between moves."""

    name = "mccfr"

    def begin(self, deadline):
        from ggp.solvers.mccfr import MCCFRSolver

        self.solver = MCCFRSolver(
            self.view.tree,
            epsilon=self.epsilon,
            seed=derive(self.base_seed, -1),
            flat=self.view.flat,
        )
        if deadline is not None:
            self.spend(self.solver.run, deadline)

    def decide(self, info, deadline):
        self.spend(self.solver.run, deadline)
        return _policy_at(self.solver.average_flat(), self.view.flat.move_start, info)

    @classmethod
    def online_strategy(cls, view, player, seed, iterations, epsilon=0.6, **params):
        # untargeted sampling does not depend on the path: the k-th decision of
        # every path sees the tables after k budgets
        from ggp.solvers.mccfr import MCCFRSolver

        solver = MCCFRSolver(view.tree, epsilon=epsilon, seed=derive(seed, -1), flat=view.flat)
        out = np.zeros(int(view.flat.move_start[-1]))
        for infosets in view.decisions_by_depth(player):
            policy = solver.run(iterations).average_flat()
            _copy_policy(out, policy, view.flat.move_start, infosets)
        return out


@register
class OOSPlayer(SolvingPlayer):
    """Online Outcome Sampling: MCCFR targeted at the current information or
    public state (Lisy, Lanctot and Bowling 2015)."""

    name = "oos"
    params = extend(
        SolvingPlayer.params,
        Param(
            "epsilon",
            float,
            0.4,
            "outcome sampling's exploration at the updated player's nodes",
            low=0,
            high=1,
            low_open=True,
        ),
        Param("delta", float, 0.9, "the share of targeted samples", low=0, high=1),
        Param(
            "targeting",
            str,
            "pst",
            "target the information state (ist) or the public state (pst)",
            choices=("ist", "pst"),
        ),
    )

    begin = MCCFRPlayer.begin

    def begin_sampled(self, deadline):
        if self.targeting == "pst":
            _warn_once(
                self.name,
                self.game,
                "public states need the whole tree; targeting the information state",
            )
        super().begin_sampled(deadline)

    def decide_sampled(self, deadline):
        from players.imperfect.sampled import Target

        weights: dict = {}
        for h in self.belief.hypotheses:
            path = tuple(h.path())
            weights[path] = weights.get(path, 0.0) + h.weight
        depth = max(map(len, weights))  # stand-ins of a lost belief may lag
        paths = [p for p in weights if len(p) == depth]
        self.solver.reseed(derive(self.base_seed, depth))
        self.solver.target = Target(paths, [weights[p] for p in paths], self.delta)
        self.think_sampled(deadline)
        self.solver.target = None

    def decide(self, info, deadline):
        target, nodes = _target(self.view, info, self.targeting)
        self.solver.reseed(derive(self.base_seed, target))
        self.solver.target(self.view.mask(nodes), self.delta)
        self.spend(self.solver.run, deadline)
        return _policy_at(self.solver.average_flat(), self.view.flat.move_start, info)

    @classmethod
    def online_strategy(
        cls, view, player, seed, iterations, epsilon=0.4, delta=0.9, targeting="pst", **params
    ):
        from ggp.solvers.mccfr import MCCFRSolver

        out = np.zeros(int(view.flat.move_start[-1]))
        start = view.flat.move_start

        root = MCCFRSolver(view.tree, epsilon=epsilon, seed=derive(seed, -1), flat=view.flat)
        # each decision (the information states decided with the same tables:
        # one with ist, every one of the public state with pst) from a copy
        # of the solver of the decision before it; a stack, not recursion
        todo = [(first, root) for first in view.next_decisions(player, None, targeting)]
        while todo:
            decision, solver = todo.pop()
            target, nodes = _target(view, decision[0], targeting)
            solver = solver.copy(derive(seed, target)).target(view.mask(nodes), delta)
            policy = solver.run(iterations).average_flat()
            _copy_policy(out, policy, start, decision)
            solver.target(None, 0.0)
            todo.extend(
                (after, solver) for after in view.next_decisions(player, decision, targeting)
            )
        return out


@register
class MCCRPlayer(SolvingPlayer):
    """Monte Carlo Continual Resolving (Šustr, Kovařík and Lisý 2019) over the
    game's tree, or on a tree grown by sampling (tree=sampled, or a game too
    large) sampled information-state resolving, which is not the paper's MCCR
    (docs/mccr.md)."""

    name = "mccr"
    params = extend(
        SolvingPlayer.params,
        Param(
            "variant",
            str,
            "keep",
            "keep the resolver's regrets between resolves, or reset them "
            "(on a sampled tree: its regrets and average-strategy weights)",
            choices=("keep", "reset"),
        ),
        Param(
            "root",
            int,
            None,
            "MCCFR iterations of the solve from the root at START "
            "(the MCCR slides' preplay budget; default: as a move's, iterations or the clock)",
            low=1,
        ),
        Param(
            "values",
            str,
            "iterations",
            "the opponent's values kept for the next resolve: averaged over the "
            "resolve's iterations after the warm-up (DeepStack's and the MCCR paper's), "
            "or its counterfactual best-response values (whole tree only: a sampled "
            "tree keeps values averaged over every iteration)",
            choices=VALUES,
        ),
        Param(
            "warmup",
            float,
            0.5,
            "the share of each solve's budget (iterations, or time on the clock) "
            "before its average strategy and kept values start (whole tree only)",
            low=0,
            high=0.9,
        ),
    )

    def why_not(self, players, total):
        if players != 2:
            return "continual resolving needs two players"
        if total is None:
            return "continual resolving needs a constant-sum game"
        return None

    def begin(self, deadline):
        self.resolver = Resolver(self.view, self.player, self.variant, self.epsilon, self.values)
        self.known = {0}
        budget = (
            self.budget(deadline, self.warmup)
            if self.root is None
            else warmed(self.root, self.warmup)
        )
        self.resolver.solve_root(derive(self.base_seed, -1), budget)

    def begin_sampled(self, deadline):
        self.opponent = next(r for r in self.solver.players if r != self.me)
        self.solver.tracked = self.opponent
        if self.root is not None:
            self.solver.run(self.root, None)
        else:
            self.think_sampled(deadline)
        self.kept = self.solver.kept_values()

    def decide_sampled(self, deadline):
        # every decision after the first is in a new information state: resolve
        from players.imperfect.sampled import Gadget, chance_reaches

        if not self.belief.record:
            return
        tops: dict = {}
        for h in self.belief.hypotheses:
            tops.setdefault(tuple(h.path()), h)
        kept = sum(h.keys[self.opponent] in self.kept for h in tops.values())
        if kept < len(tops):
            # a history without a kept value gets no terminate move: the
            # gadget no longer bounds what the opponent gets there
            _warn_once(
                self.name,
                self.game,
                "no value was kept for the opponent at "
                + (
                    "any history of its information state; playing the last solve's strategy"
                    if not kept
                    else "some histories of its information state; resolving without "
                    "the opponent's terminate move there"
                ),
            )
            if not kept:
                return
        gadget = Gadget(
            [(h.state, h.keys) for h in tops.values()],
            chance_reaches(self.steps, self.solver.players, tops.values()),
            self.opponent,
            self.kept,
            self.total,
        )
        if self.variant == "reset":
            self.solver.clear()
        self.solver.resolving(gadget)
        self.solver.reseed(derive(self.base_seed, len(self.belief.record)))
        self.think_sampled(deadline)
        self.kept = self.solver.kept_values()

    def decide(self, info, deadline):
        state = int(self.view.public.state[self.view.tree.infosets[info].nodes[0]])
        if state not in self.known:
            self.resolver.resolve(
                state, derive(self.base_seed, state), self.budget(deadline, self.warmup)
            )
            self.known.add(state)
        return _policy_at(self.resolver.strategy, self.view.flat.move_start, info)

    @classmethod
    def online_strategy(
        cls,
        view,
        player,
        seed,
        iterations,
        epsilon=0.6,
        variant="keep",
        values="iterations",
        warmup=0.5,
        root=None,
        solver=None,
        **params,
    ):
        """(``solver``: the :class:`Resolver`'s, for the tests' exact resolves.)"""
        out = np.zeros(int(view.flat.move_start[-1]))
        start = view.flat.move_start
        budget = warmed(iterations, warmup)

        resolver = Resolver(view, player, variant, epsilon, values, solver)
        resolver.solve_root(derive(seed, -1), warmed(root or iterations, warmup))
        todo = [(0, resolver)]  # public states, each with the resolver above it
        while todo:
            state, resolver = todo.pop()
            mine = view.decisions_in(player, state)
            if mine:
                if state != 0:
                    resolver = resolver.copy()
                    resolver.resolve(state, derive(seed, state), budget)
                _copy_policy(out, resolver.strategy, start, mine)
            todo.extend((child, resolver) for child in view.public_children(state))
        return out

    @classmethod
    def exact_continual(cls, view, variant, values, warmup, root, iterations) -> tuple:
        """(the strategy continual resolving plays for both players, its
        blueprint), flat, with every solve exact: full-width CFR+ (Tammelin's
        regret-matching+), ``root`` iterations for the blueprint and
        ``iterations`` a resolve, through this player's own walk, resolver and
        kept values: the resolves' own errors aside, what the kept values cost
        (the safety test: the mccr_safety suite of the benchmarks)."""
        from ggp.solvers.cfr import CFRSolver

        def cfr_plus(flat, seed):
            return CFRSolver(view.tree, plus=True, flat=flat)

        options = dict(variant=variant, values=values, warmup=warmup, root=root, solver=cfr_plus)
        resolved = sum(cls.online_strategy(view, me, 0, iterations, **options) for me in (0, 1))
        blueprint = Resolver(view, 0, variant, 0.6, values, solver=cfr_plus)
        blueprint.solve_root(0, warmed(root, warmup))
        return resolved, blueprint.strategy


class Resolver:
    """What MCCR keeps from resolve to resolve: its strategy (flat per
    information state and move; each resolve writes the part below its
    public state), the last subgame and its solved average strategies (for
    the next gadget's ranges and values, ``values`` saying which,
    :func:`ggp.solvers.resolving.kept_data`), and with ``keep`` the resolver's
    regrets.  ``solver(flat, seed)`` makes the
    solver of a subgame: outcome-sampling MCCFR unless told (the tests resolve
    exactly with CFR+)."""

    def __init__(self, view, player, variant, epsilon, values="iterations", solver=None):
        size = int(view.flat.move_start[-1])
        self.view, self.player, self.variant, self.epsilon = view, player, variant, epsilon
        self.values, self.solver = values, solver or self._mccfr
        self.strategy = np.zeros(size)
        self.regret = np.zeros(size) if variant == "keep" else None
        self.last = None

    def copy(self) -> Resolver:
        other = Resolver.__new__(Resolver)
        other.__dict__.update(self.__dict__)
        other.strategy = self.strategy.copy()
        if self.variant == "keep":
            other.regret = self.regret.copy()
        return other

    def solve_root(self, seed, budget):
        from ggp.solvers.resolving import whole_game

        self._solve(whole_game(self.view.flat), seed, budget)

    def resolve(self, state, seed, budget):
        """Build the gadget of public state ``state`` from the kept data; solve it."""
        from ggp.solvers.resolving import gadget, kept_data

        view, opponent = self.view, 1 - self.player
        tops = view.public.top[state]
        sets = [view.tree.augmented[t][opponent] for t in tops]
        subgame, policy, tracked = self.last
        weights, values = kept_data(subgame, policy, self.player, tops, sets, self.values, tracked)
        subgame = gadget(
            view.flat,
            view.end,
            tops,
            weights,
            opponent=opponent,
            opponent_sets=sets,
            values=values,
            total=view.total,
        )
        self._solve(subgame, seed, budget)

    def _mccfr(self, flat, seed):
        from ggp.solvers.mccfr import MCCFRSolver

        return MCCFRSolver(self.view.tree, epsilon=self.epsilon, seed=seed, flat=flat)

    def _solve(self, subgame, seed, budget):
        """Solve ``subgame`` for ``budget`` (``(run, settle) -> None``): the
        average strategy and the tracked values start at ``settle()``, after
        the warm-up, as DeepStack's re-solves skip their first iterations, so
        that the kept values are those of the strategy played (``keep``
        carries the regrets, which the warm-up starts from, and not the
        previous average-strategy weights, which the values do not cover)."""
        solver = self.solver(subgame.flat, seed)
        inner = subgame.move_origin >= 0
        kept = subgame.move_origin[inner]
        regret, cumulative = solver.tables
        if self.variant == "keep":
            regret[inner] = self.regret[kept]

        def settle():
            cumulative[:] = 0.0
            if self.values == "iterations":
                solver.track(1 - self.player)

        budget(solver.run, settle)
        if self.variant == "keep":
            self.regret[kept] = regret[inner]
        policy = solver.average_flat()
        self.strategy[kept] = policy[inner]
        self.last = (subgame, policy, solver.tracked() if self.values == "iterations" else None)


def _target(view, info: int, targeting: str) -> tuple:
    """OOS's target at information state ``info``: its id for the seed and its nodes."""
    nodes = view.tree.infosets[info].nodes
    if targeting == "ist":
        return info, nodes
    state = int(view.public.state[nodes[0]])
    return len(view.tree.infosets) + state, view.public.members[state]


def _copy_policy(out, policy, move_start, infosets):
    for i in infosets:
        out[move_start[i] : move_start[i + 1]] = policy[move_start[i] : move_start[i + 1]]


def _policy_at(flat_policy, move_start, info: int) -> list:
    return flat_policy[move_start[info] : move_start[info + 1]].tolist()
