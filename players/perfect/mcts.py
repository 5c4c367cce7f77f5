"""Monte Carlo tree search players for perfect-information games: ``uct``,
``mast``, ``nst`` and ``lgr``.

One search for any number of roles, turn-taking or simultaneous, as in
CadiaPlayer (Björnsson and Finnsson, "CadiaPlayer: A Simulation-Based General
Game Player", IEEE TCIAIG 1(1), 2009) and the players of Tak, Winands and
Björnsson, "N-Grams and the Last-Good-Reply Policy Applied in General Game
Playing" (IEEE TCIAIG 4(2), 2012; "slide N" below is a slide of A. Shwartz's
presentation of that paper, "N-Grams and the Last-Good-Reply Policy in MCTS", 2015):

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
* the tree is kept between turns (the subtree of the joint move played), and
  the policy's statistics are multiplied by ``decay`` once per decision of
  ours (a step where we have more than one legal move), before its search;
* the move played (Tak et al., slide 29, "how do we select the move"): the best
  average (``final=average``, the slide's option 2), the best reward seen
  (``final=best``, option 1, which the slide gives as CadiaPlayer's), the
  most visited (``final=visits``), or one drawn in proportion to the root
  visits (``final=mixed``: in a simultaneous-move game the visit frequencies
  of decoupled UCT approximate a mixed strategy, which the most visited move,
  a pure strategy, throws away);
* ``transpositions=true`` shares one node between paths reaching one state;
* in a one-player game (``puzzle``, on by default) a planner searches the
  state graph for the best ending (:mod:`players.perfect.puzzle`), with all of
  the start clock and half of each play clock until it has a plan known best,
  which is then played without searching; a plan not known best is played
  when it scores above 0 and at least the best reward the tree has seen.

Options of the C tree, off by default, each measured at equal time in
docs/players.md: ``threads`` (root parallelism), ``solver`` (MCTS-Solver),
``tactics`` (the solver with decisive and anti-decisive moves at each new
node, Teytaud and Teytaud 2010), ``leaf`` (``uct``: leaf parallelism in the
bit-parallel lanes), ``rave`` (RAVE, Gelly and Silver 2007), ``heuristic`` (a
learned material evaluation mixed into a new leaf's value,
:mod:`players.perfect.heuristic`), ``prior`` (that evaluation as virtual
visits on a new node's moves, Chaslot et al. 2008), ``imm`` (its implicit
minimax values in selection, Lanctot et al. 2014) and ``cutoff`` (playouts cut
short and scored by it, Lorentz 2015); :mod:`players.perfect._tree` gives their
sources.  ``fit`` says what that evaluation is made from (random playouts,
self-play games of a small search, :mod:`players.perfect.evaluation`, or the
rules alone, :mod:`players.perfect.rules`), and ``proof`` runs a bounded proof
search for forced wins before each decision (:mod:`players.perfect._proof`).

On the compiled reasoner the tree lives in C (:mod:`players.perfect._tree`), which
makes the same simulations with the same seed; the Python tree below is the
one for the reference reasoner (and ``engine=python``), and the oracle the C
tree is tested against.

Defaults and their basis (the slides on Tak et al., else ../shared/REFERENCES.md):

* ``c=40``: slides 16-17 give UCB1 without a value; CadiaPlayer's C on the
  0..100 scale.
* ``discount=0.999``: slide 30 (CadiaPlayer's).
* ``final=average``: slide 29's option 2.  The slide prefers neither option;
  option 1 (``best``) is not the default because it loses: ``uct`` with
  ``final=best`` scored 25.0 +- 8.4 of 100 against ``final=visits`` on
  connectFour (100 matches, 300 simulations a move), ``final=average`` 51.5
  +- 9.4 (and 55.0 +- 6.9 at 50 simulations, 200 matches): with discounting,
  the best reward seen is that of the shortest win any simulation found,
  whatever the opponent could have played instead.
* ``policy=egreedy``, ``epsilon=0.4``: slides 31-32 (epsilon-greedy MAST, N-grams
  and LGR beat MAST with Gibbs sampling; 0.4 is the Maastricht epsilon).
* ``tau=10``: slide 21 gives Gibbs sampling without a value; CadiaPlayer's.
* ``decay=0.2``: not in the slides; the Maastricht factor "between moves",
  applied once per decision of ours (a step where we have more than one legal
  move), not once per game step, so that the statistics of one search are
  decayed once before the next whether or not forced ``noop`` steps come
  between (under a simulation budget a forced step runs no search at all).
* ``n=3``, ``k=7``: slide 23 (k = 7 tuned by hand; N-grams up to 3 moves, the
  Maastricht setting).
* ``fallback=nst``: slides 26 and 31 (LGR with N-grams scores best).
* ``forget=true``, ``replies=both``: slide 25 (the replies of a lost
  simulation are removed from memory; replies look back one or more steps,
  LGR-1 and LGR-2 together).

UCB1 (Kocsis and Szepesvári 2006) on the 0..100 goal scale, with CadiaPlayer's
C = 40: ``Q(s, a) + C * sqrt(ln N(s) / N(s, a))``.

Budgets: ``simulations=N`` per move (reproducible with ``seed``; a forced
move, such as ``noop`` in a turn-taking game, is answered without
simulations), else the play clock less a safety ``margin`` in seconds (spent
even on forced moves: thinking ahead while the opponent moves).
"""

from __future__ import annotations

import logging
import math
import time
import warnings

from ggp import Interrupted
from ggp.collector import collector_paused
from players.base import BUDGET, Player
from players.params import Param, extend
from players.perfect.searches import DISCOUNT, HEADROOM, MAX_NODES, C, Forest, search_for
from players.registry import player_class, register

log = logging.getLogger("players")

#: What ``auto`` does (:mod:`players.perfect.choice`).
AUTO = (
    "decide at the start clock, from the rules and 100 random playouts, what the game "
    "gets: greedy=1,defend=true,fit=rules where moves win at once, else fit=lines,cutoff=8 "
    "where the goal is lines of 4 or more and random games last 24 plies or more, else "
    "early=N where the goals differ mid-game, else N-gram playouts (the nst player's) "
    "in place of random ones (players.perfect.choice); "
    "only when no option it sets or that uses an evaluation is given"
)

#: The deepest forced win the proof search (``proof``) looks for, in plies.
PROOF_PLIES = 7

#: Under a simulation budget, the one-player planner's expansions per
#: simulation: a playout visits tens to hundreds of states, an expansion one.
PLAN_EXPANSIONS = 100


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


class MCTSPlayer(Player):
    """The search shared by the registered players; ``playout`` names the
    policy (see :class:`players._policy.Policy` for its parameters)."""

    name = "mcts"
    playout = "random"

    params = extend(
        Player.params,
        *BUDGET,
        Param("c", float, C, "UCB1 exploration constant on the 0..100 goal scale", low=0),
        Param(
            "discount",
            float,
            DISCOUNT,
            "discount of the backed-up goal per ply",
            low=0,
            high=1,
            low_open=True,
        ),
        Param(
            "final",
            str,
            "average",
            "the move played: most visited, best average, best "
            "reward seen, or drawn in proportion to the visits (Tak et al. 2012, slide 29)",
            choices=("visits", "average", "best", "mixed"),
        ),
        Param("transpositions", bool, False, "one node per state instead of per path"),
        Param(
            "engine",
            str,
            "c",
            "the tree in C (on the compiled reasoner) or in Python (the same simulations, slower)",
            choices=("c", "python"),
        ),
        Param(
            "threads",
            int,
            1,
            "trees searched in parallel from the root, their root "
            "statistics summed (root parallelism; engine=c)",
            low=1,
            high=64,
        ),
        Param(
            "solver",
            bool,
            False,
            "MCTS-Solver: values under best play known in the tree "
            "are backed up and played (engine=c)",
        ),
        Param(
            "heuristic",
            float,
            0.0,
            "weight of a material evaluation learned from random "
            "playouts at the start (players.perfect.heuristic) in each new leaf's value, the "
            "playout's outcome getting the rest; 0: off (engine=c)",
            low=0,
            high=1,
        ),
        Param(
            "prior",
            int,
            0,
            "virtual visits each move of a new node starts with, at a value "
            "from how much it changes its role's learned material evaluation "
            "(players.perfect.heuristic); 0: off (engine=c)",
            low=0,
        ),
        Param(
            "proof",
            int,
            0,
            "expansions a move of a bounded proof search for forced wins (played at once) "
            "and for moves after which the opponent forces one (not played while another "
            "is not), two-player turn-taking games (players.perfect._proof); 0: off",
            low=0,
        ),
        Param(
            "fit",
            str,
            "playouts",
            "what the evaluation that heuristic, prior, imm, cutoff and greedy use is fitted "
            "on: random playouts, games of a small search (players.perfect.evaluation), or "
            "the rules alone: pieces and their distance to the goal, or the lines of the goal "
            "(players.perfect.rules)",
            choices=("playouts", "selfplay", "rules", "lines"),
        ),
        Param(
            "imm",
            float,
            0.0,
            "weight of the evaluation's implicit minimax value beside a move's "
            "average in selection (Lanctot et al. 2014); 0: off (engine=c)",
            low=0,
            high=1,
        ),
        Param(
            "greedy",
            float,
            0.0,
            "probability that a playout plays a capture of its mover when it has one "
            "(capture-first playouts; a capture takes pieces the evaluation counts for "
            "another role, learned from random playouts: players.perfect.rules); "
            "0: off (engine=c)",
            low=0,
            high=1,
        ),
        Param(
            "mvv",
            bool,
            False,
            "greedy playouts take the most valuable victim (the highest weight of a "
            "piece taken in its owner's evaluation) rather than any capture",
        ),
        Param("auto", bool, False, AUTO),
        Param(
            "defend",
            bool,
            False,
            "greedy playouts first take a piece from which another role has a "
            "learned winning move (anti-decisive moves), before other captures",
        ),
        Param(
            "quiesce",
            int,
            0,
            "plies of captures played out before imm values a capture: a capture "
            "quiescence on the evaluation's material; 0: off (needs imm)",
            low=0,
            high=16,
        ),
        Param(
            "early",
            int,
            0,
            "plies after which a playout stops and is scored by the game's own goals in "
            "the state it reached (early cutoffs, Finnsson 2012); 0: off (engine=c)",
            low=0,
        ),
        Param(
            "cutoff",
            int,
            0,
            "plies a playout runs before the evaluation scores it (early playout "
            "termination, Lorentz 2015); 0: to the end (engine=c)",
            low=0,
        ),
        Param(
            "rave",
            float,
            0.0,
            "RAVE's equivalence parameter k: selection mixes in the "
            "all-moves-as-first average with weight sqrt(k / (3 n + k)); 0: off (engine=c)",
            low=0,
        ),
        Param(
            "puzzle",
            bool,
            True,
            "one-player games: plan a path to the best ending by breadth- and "
            "depth-first search of the state graph, and play it once it promises at "
            "least what the tree has seen (players.perfect.puzzle; compiled reasoner)",
        ),
        Param(
            "decisive",
            bool,
            False,
            "decisive-move playouts: where one role has a choice, "
            "a move that wins at once is played (compiled reasoner)",
        ),
        Param(
            "tactics",
            bool,
            False,
            "MCTS-Solver whose new nodes are solved at once where their mover "
            "has a move that wins at once: decisive and anti-decisive moves in the tree "
            "(players.perfect._tree; engine=c)",
        ),
    )
    # The declared parameters the typed methods read (attributes set by Player.__init__):
    simulations: int | None
    c: float
    heuristic: float
    prior: int
    imm: float
    greedy: float
    cutoff: int
    fit: str
    #: The playout policy's parameters (:class:`players._policy.Policy`), by
    #: the names the policy gives them.
    policy_names: dict[str, str] = {}
    #: Playouts a new leaf (leaf parallelism, :class:`UCTPlayer` only).
    leaf = 1
    #: What the policy's statistics are multiplied by before each decision
    #: (random playouts keep none; the learning players declare it).
    decay = 1.0

    def __init__(self, **values):
        super().__init__(**values)
        self.policy_params = {arg: getattr(self, name) for name, arg in self.policy_names.items()}
        if self.decisive:
            self.policy_params["decisive"] = True
        if self.rave > 0 and self.leaf > 1:
            raise ValueError(
                "rave needs the playouts' moves, and leaf parallelism does not "
                "keep them: use one or the other"
            )
        if self.greedy > 0 and self.leaf > 1:
            raise ValueError(
                "capture-first playouts (greedy) run on the kernel, and leaf "
                "parallelism plays its playouts in the lanes: use one or the other"
            )
        for name in ("mvv", "defend"):
            if getattr(self, name) and not self.greedy:
                raise ValueError(
                    f"{name} chooses among the captures of greedy playouts: give greedy too"
                )
        if self.quiesce > 0 and not self.imm:
            raise ValueError(
                "quiesce values the captures of the implicit minimax backups: give imm too"
            )
        if (self.cutoff > 0 or self.early > 0) and self.leaf > 1:
            raise ValueError(
                "early playout termination (cutoff, early) needs one playout a leaf, and "
                "leaf parallelism plays many in the lanes: use one or the other"
            )
        if self.cutoff > 0 and self.early > 0:
            raise ValueError(
                "a playout is cut and scored by the evaluation (cutoff) or by the goals "
                "(early): use one or the other"
            )
        # what auto may change, as given (players.perfect.choice.CAPTURES)
        kept = ("greedy", "defend", "fit", "early", "cutoff")
        self.given = {name: getattr(self, name) for name in kept}
        self.given_playout = (self.playout, self.policy_params, self.decay)
        self.chosen = None  # auto's players.perfect.choice.Choice for the current game
        self.last_simulations = 0
        self.planning = None  # the plan of a one-player game (players.perfect.puzzle)
        self.warned_without_c = False  # of the options only the C tree has (once a player)

    # --- the Player hooks -------------------------------------------------------
    def meta_game(self, deadline):
        self.rebuild_search(deadline)
        if self.planning is not None:
            self.planning.think(deadline - self.margin, self._plan_budget())
        if self.simulations is None:
            self.think(deadline - self.margin)

    def rebuild_search(self, deadline):
        """The search and its tree over ``self.steps``, rooted at the current
        position: at START, and when the player moves to the compiled
        reasoner mid-match (:mod:`players.base`)."""
        seed = self.rng.getrandbits(63)
        self._choose(deadline)
        self.search = search_for(
            self.steps,
            self.playout,
            self.policy_params,
            seed,
            wins=self.tactics or self.decisive,
        )
        # joint moves of the match so far (search ids; GDL-II: since the root)
        self.history = (
            [] if self.imperfect else [self.search.ids(o.joint) for o in self.observations]
        )
        self.table = {} if self.transpositions else None
        self.planning = None
        if self.puzzle and self.steps.compiled and len(self.sm.roles) == 1 and not self.imperfect:
            from players.perfect.puzzle import Puzzle

            self.planning = Puzzle(self.steps.kernel, self.position())
        self.ctree = None
        self.prover = None
        self.evaluation = None  # (weights, biases, scale): see players.perfect.heuristic
        if self.steps.compiled and self.engine == "c":
            self.evaluation = self._evaluation(deadline)
            if self.greedy > 0 and self.evaluation is not None:
                self._learn_captures()
            uses = {
                "alpha": self.heuristic,
                "prior": self.prior,
                "imm": self.imm,
                "cutoff": self.cutoff,
                "quiesce": self.quiesce,
                "early": self.early,
            }
            self.ctree = Forest(
                self.search,
                self.position(),
                self.threads,
                self.c,
                self.discount,
                self.transpositions,
                [self.rng.getrandbits(63) for _ in range(self.threads - 1)],
                self.solver or self.tactics,
                self.tactics,
                self.rave,
                self.leaf,
                self.evaluation,
                uses,
            )
        else:
            self._warn_without_c()
            self.root = self._node(self.position())
        self.added = 0

    def _choose(self, deadline):
        """The options ``auto`` may change as given; then, with ``auto`` on the
        compiled reasoner and the tree in C, as
        :func:`players.perfect.choice.choose` decides for this game within a
        quarter of the time to ``deadline`` (one log line).  Not when the
        player is given any option it sets or that uses an evaluation, has
        leaf parallelism, or plays a puzzle or a game of imperfect
        information."""
        for name, value in self.given.items():
            setattr(self, name, value)
        self.playout, self.policy_params, self.decay = self.given_playout
        self.chosen = None
        if not (self.auto and self.steps.compiled and self.engine == "c"):
            return
        if self.imperfect or len(self.sm.roles) < 2 or self.leaf > 1:
            return
        uses = (self.heuristic, self.prior, self.imm, self.cutoff, self.early, self.greedy)
        if any(uses) or self.defend or self.mvv:
            return
        from players.perfect.choice import choose

        until = time.monotonic() + max(0.05, (deadline - time.monotonic()) / 4)
        self.chosen = choose(self.sm, seed=self.rng.getrandbits(31), until=until)
        for name, value in self.chosen.settings.items():
            if name == "playout":
                self._learned_playouts(value)
            else:
                setattr(self, name, value)
        log.info(
            "%s: %s for %s: %s",
            self.name,
            ",".join(f"{k}={v}" for k, v in self.chosen.settings.items()) or "plain search",
            self.game.name,
            self.chosen.reason,
        )

    def _learned_playouts(self, playout):
        """Playouts of the registered player ``playout`` (``nst``), with its
        policy's defaults and decay, where ``auto`` chooses them for a player
        whose own playouts are random; a player with a policy of its own keeps
        it."""
        if self.playout != "random":
            return
        kind = player_class(playout)
        defaults = {p.name: p.default for p in kind.params}
        params = {arg: defaults[name] for name, arg in kind.policy_names.items()}
        self.playout, self.decay = playout, defaults["decay"]
        self.policy_params = {**self.policy_params, **params}

    def _learn_captures(self):
        """Capture-first playouts (``greedy``): each move's victims and wins
        learned from random playouts (:func:`players.perfect.rules.move_lessons`;
        ``auto``'s when it learned them), with ``mvv`` what taking each
        proposition is worth: its highest weight in a role's evaluation, and
        with ``defend`` the threats taken first."""
        import numpy as np

        from players.perfect.rules import move_lessons

        weights = np.asarray(self.evaluation[0])
        if self.chosen is not None and self.chosen.lessons is not None:
            victims, wins, threats = self.chosen.lessons
        else:
            victims, wins, threats = move_lessons(self.sm, weights, seed=self.rng.getrandbits(31))
        worth = weights.clip(min=0).max(axis=0) if self.mvv else None
        self.search.greedy(victims, self.greedy, wins, worth, threats if self.defend else ())

    def _warn_without_c(self):
        """One warning, at the player's first search in Python, naming the
        options given that only the tree in C has."""
        if self.warned_without_c:
            return
        self.warned_without_c = True
        dropped = [
            name
            for name, value, default in (
                ("threads", self.threads, 1),
                ("solver", self.solver, False),
                ("tactics", self.tactics, False),
                ("rave", self.rave, 0),
                ("leaf", self.leaf, 1),
                ("heuristic", self.heuristic, 0),
                ("prior", self.prior, 0),
                ("imm", self.imm, 0),
                ("cutoff", self.cutoff, 0),
                ("early", self.early, 0),
                ("quiesce", self.quiesce, 0),
                ("greedy", self.greedy, 0),
            )
            if value != default
        ]
        if dropped:
            warnings.warn(
                f"{self.name}: {', '.join(dropped)} "
                f"{'needs' if len(dropped) == 1 else 'need'} the tree in C (engine=c "
                "on the compiled reasoner); searching without",
                RuntimeWarning,
                stacklevel=3,
            )

    def _evaluation(self, deadline) -> tuple | None:
        """The evaluation for the C tree when ``heuristic``, ``prior``,
        ``imm`` or ``cutoff`` use one, made as ``fit`` says: fitted on 200
        random playouts (:func:`players.perfect.heuristic.material_evaluation`)
        or on 40 games of a 50-simulation search
        (:func:`players.perfect.evaluation.selfplay_evaluation`), both the
        same on any machine and to be done within a quarter of the time to
        ``deadline``, or read from the rules
        (:func:`players.perfect.rules.rules_evaluation`; ``auto`` hands over
        the one it read).  None, with a warning, when a fit is not done in
        time or the game offers nothing to weigh."""
        if not (self.heuristic or self.prior or self.imm or self.cutoff or self.greedy):
            return None
        if self.chosen is not None and self.chosen.evaluation is not None:
            return self.chosen.evaluation  # auto's, read from the rules (fit=rules)
        from players.perfect.heuristic import OutOfTime, material_evaluation

        until = time.monotonic() + max(0.05, (deadline - time.monotonic()) / 4)
        seed = self.rng.getrandbits(31)
        try:
            if self.fit == "rules":
                from players.perfect.rules import rules_evaluation

                evaluation = rules_evaluation(self.sm)
                why = "no piece in this game's rules has a distance to a goal"
            elif self.fit == "lines":
                from players.perfect.rules import line_evaluation

                evaluation = line_evaluation(self.sm)
                why = (
                    "no goal in this game's rules has lines (at most 2,000 conjunctions "
                    "of 2 to 8 conditions)"
                )
            elif self.fit == "selfplay":
                from players.perfect.evaluation import selfplay_evaluation

                evaluation = selfplay_evaluation(self.sm, seed=seed, until=until)
                why = "no piece counts in this game's rules, or no self-play game ended"
            else:
                evaluation = material_evaluation(self.sm, seed=seed, until=until)
                why = "no piece counts vary in this game's random play"
        except OutOfTime as exc:
            evaluation, why = None, f"its games took too long ({exc})"
        if evaluation is None:
            warnings.warn(
                f"{self.name}: {why}; searching without the heuristic",
                RuntimeWarning,
                stacklevel=3,
            )
            return None
        return evaluation

    def observe(self, obs):
        super().observe(obs)
        if self.planning is not None and obs.joint is not None:
            self.planning.advance(self.search.ids(obs.joint)[0], self.position())
        if self.ctree is not None:
            if obs.joint is None:
                self.ctree.restart(self.position())
            else:
                self.ctree.advance(self.search.ids(obs.joint), self.position())
            return
        if obs.joint is None:  # GDL-II: search from a state consistent with what we saw
            self.history, self.root = [], self._node(self.position())
            return
        joint = self.search.ids(obs.joint)
        self.history.append(joint)
        child = self.root.children.get(joint)
        self.root = child if child is not None else self._node(self.position())
        if self.table is not None:
            self.table = {}
            self._index(self.root)

    def select(self, legal, deadline):
        if not legal:
            return None
        me = self.sm.roles.index(self.role)
        planned = self._planned(me, legal, deadline)
        if planned is not None:
            return planned
        self.added = 0
        if self.ctree is not None:
            self.ctree.new_move()
        if len(legal) > 1:  # once per decision of ours, not per game step
            (self.ctree or self.search).decay(self.decay)
        proved = self._prove(me, deadline) if len(legal) > 1 else None
        if proved is not None and proved[0] is not None:
            return self.search.move(me, proved[0])
        if self.simulations is not None:
            if len(legal) == 1:  # a forced move: nothing to decide, nothing spent
                return legal[0]
            self.think(math.inf, self.simulations)
        else:
            self.think(deadline - self.margin)
        allowed = {self.search.steps.move_id(me, m) for m in legal}
        if proved is not None:  # never a move proved lost while another is not
            allowed = (allowed - proved[1]) or allowed
        if self.planning is not None:  # the plan, if it promises what the tree has seen
            planned = self.planning.next_move(max(self._root_rows(me)[3], default=0.0))
            if planned in allowed:
                return self.search.move(me, planned)
        best = self._best(me, allowed)
        # GDL-II: the root is one state consistent with what the role saw; when
        # its moves for the role are none of ``legal`` (the belief was lost), a
        # legal move is played rather than an illegal one
        return self.rng.choice(legal) if best is None else self.search.move(me, best)

    def _prove(self, me, deadline):
        """(a forced win's first move or None, the moves after which the
        opponent forces a win) at the root, by :class:`players.perfect._proof.Prover`
        with ``proof`` expansions: half for our win (up to
        :data:`PROOF_PLIES` plies), half shared by the root moves for the
        opponent's (up to :data:`PROOF_PLIES` - 2 after the move); on the
        clock, also no more than a quarter of the time to ``deadline``.  None
        when the option is off or the game is not a two-player one on the
        compiled reasoner."""
        if not self.proof or self.ctree is None or len(self.sm.roles) != 2:
            return None
        if self.prover is None:
            from players.perfect._proof import Prover

            self.prover = Prover(self.search.kernel.copy())
        state, other = self.position(), 1 - me
        until = math.inf
        if self.simulations is None:
            until = time.monotonic() + max(0.0, deadline - self.margin - time.monotonic()) / 4
        won = self.prover.forced_win(state, me, PROOF_PLIES, self.proof // 2, until)
        if won >= 0:
            return won, set()
        moves = self.ctree.root_moves(me)[0]
        share = max(1, self.proof // (2 * max(1, len(moves))))
        lost = {
            m
            for m in moves
            if self.prover.loses(state, me, m, other, PROOF_PLIES - 2, share, until)
        }
        return None, lost

    def _planned(self, me, legal, deadline):
        """A one-player game's move from its plan when the plan is known best;
        else, thinking on the clock or a budget, the planner gets its share
        (half the time, or the budget in expansions) and None is returned."""
        planning = self.planning
        if planning is None:
            return None
        if not planning.solved:
            if self.simulations is not None:
                planning.think(math.inf, self._plan_budget())
            else:
                now = time.monotonic()
                planning.think(now + (deadline - self.margin - now) / 2)
        planned = planning.next_move() if planning.solved else None
        moves = {self.search.steps.move_id(me, m): m for m in legal}
        return moves.get(planned)

    def _plan_budget(self) -> int | None:
        """The planner's expansions a decision under a simulation budget:
        :data:`PLAN_EXPANSIONS` a simulation (None: on the clock)."""
        return None if self.simulations is None else PLAN_EXPANSIONS * self.simulations

    # --- search ---------------------------------------------------------------
    def think(self, until: float, budget: int | None = None):
        """Simulate until ``budget`` simulations or the ``until`` instant.

        The cyclic garbage collector is paused meanwhile, and what the search
        allocated is then frozen out of its reach (:mod:`ggp.collector`): the
        tree holds no cycles, and a full collection over a large tree, due as
        soon as collection resumes, could overrun the clock."""
        if self.ctree is not None:
            self.last_simulations = self.ctree.run(-1 if budget is None else budget, until)
            return
        done = 0
        self.search.until = until
        with collector_paused():
            try:  # a simulation's expansion asks two questions before its playout
                while (
                    done < budget
                    if budget is not None
                    else time.monotonic() + 2 * HEADROOM * self.search.step_seconds < until
                ):
                    done += self.simulate()
            except Interrupted:  # a question given up at the deadline: nothing was backed up
                pass
        self.last_simulations = done

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

    def _root_rows(self, r) -> tuple:
        """Role ``r``'s (moves, visits, reward sums, best rewards) at the root."""
        if self.ctree is not None:
            return self.ctree.root_moves(r)
        node = self.root
        return node.legal[r], node.visits[r], node.sums[r], node.tops[r]

    def _best(self, r, allowed):
        """The move to play (``final``, Tak et al., slide 29) among the root's
        moves in ``allowed`` (None when there is none): most visits (ties:
        best average), best average (ties: most visits), best reward seen
        (ties: best average), or one drawn with probability proportional to
        its visits."""
        moves, visits, sums, tops = self._root_rows(r)
        proofs = (
            self.ctree.root_proofs(r)
            if (self.solver or self.tactics) and self.ctree is not None
            else [None] * len(moves)
        )
        exact = [None if proof is None else proof[0] for proof in proofs]
        choices = [j for j in range(len(moves)) if moves[j] in allowed]
        if not choices:
            return None
        known = [exact[j] for j in choices if exact[j] is not None]
        if known:  # the solver's: a known win, else never a known move worse than another
            best_known = max(known)
            if best_known >= 100 or len(known) == len(choices):
                # of the moves of that value, the soonest win, else the loss (or
                # draw) put off longest, which a fallible opponent may yet miss
                tied = [j for j in choices if exact[j] == best_known]
                sign = 1 if best_known >= 100 else -1
                return moves[min(tied, key=lambda j: (sign * proofs[j][1], j))]
            choices = [j for j in choices if exact[j] in (None, best_known)]
        if self.final == "mixed" and any(visits[j] for j in choices):
            return self.rng.choices(
                [moves[j] for j in choices], weights=[visits[j] for j in choices]
            )[0]

        def key(j):
            average = sums[j] / visits[j] if visits[j] else -1.0
            if exact[j] is not None:
                average = exact[j]
            if self.final == "average":
                return average, visits[j]
            if self.final == "best":
                return tops[j], average
            return visits[j], average  # visits (and mixed before any visit)

        return moves[max(choices, key=key)]

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

    # --- reporting --------------------------------------------------------------
    def root_statistics(self, role=None) -> dict:
        """Move -> (visits, average goal) at the root, for ``role`` (default: ours)."""
        r = self.sm.roles.index(role or self.role)
        moves, visits, sums, _ = self._root_rows(r)
        return {
            self.search.move(r, m): (v, s / v if v else None)
            for m, v, s in zip(moves, visits, sums)
        }


@register
class UCTPlayer(MCTSPlayer):
    """MCTS with uniformly random playouts (plain UCT)."""

    name = "uct"
    playout = "random"
    params = extend(
        MCTSPlayer.params,
        Param("auto", bool, True, AUTO + "; false: plain UCT"),
        Param(
            "leaf",
            int,
            1,
            "playouts from each new leaf, 64 a sweep in bit-parallel lanes, "
            "the simulation counting as that many visits (leaf parallelism; engine=c)",
            low=1,
            high=4096,
        ),
    )


@register
class MASTPlayer(MCTSPlayer):
    """MCTS with Move-Average Sampling playouts (CadiaPlayer; Tak et al., slide 22:
    a move's score is the average reward of the simulations it was used in,
    played by epsilon-greedy or Gibbs sampling, slide 21)."""

    name = "mast"
    playout = "mast"
    params = extend(
        MCTSPlayer.params,
        Param(
            "policy",
            str,
            "egreedy",
            "how playouts use the statistics: epsilon-greedy or Gibbs sampling",
            choices=("egreedy", "gibbs"),
        ),
        Param("epsilon", float, 0.4, "egreedy: chance of a uniformly random move", low=0, high=1),
        Param(
            "tau", float, 10.0, "gibbs: temperature on the 0..100 goal scale", low=0, low_open=True
        ),
        Param(
            "decay",
            float,
            0.2,
            "factor the statistics are multiplied by before each "
            "decision of ours (a step with more than one legal move)",
            low=0,
            high=1,
        ),
    )
    policy_names = {"policy": "select", "epsilon": "epsilon", "tau": "tau"}


@register
class NSTPlayer(MASTPlayer):
    """MCTS with N-gram Selection playouts (Tak et al., slides 23-24, 27-28: the
    score of a move averages the rewards of its N-grams up to ``n`` moves, a
    longer N-gram counting once seen ``k`` times)."""

    name = "nst"
    playout = "nst"
    params = extend(
        MASTPlayer.params,
        Param("n", int, 3, "the longest N-gram (moves)", low=2, high=3),
        Param("k", int, 7, "visits before an N-gram of 2 or 3 moves counts", low=1),
    )
    policy_names = {**MASTPlayer.policy_names, "n": "max_n", "k": "k"}


@register
class LGRPlayer(NSTPlayer):
    """MCTS with Last-Good-Reply playouts (Tak et al., slide 25): the replies of a
    won simulation are stored, those of a lost one forgotten (``forget``),
    to the last move (LGR-1), the last two (LGR-2) or both (``replies``);
    without a legal reply the ``fallback`` chooses (slide 26: N-grams or
    MAST; ``n`` and ``k`` are the N-grams')."""

    name = "lgr"
    playout = "lgr"
    params = extend(
        NSTPlayer.params,
        Param(
            "fallback",
            str,
            "nst",
            "the policy where no reply is stored",
            choices=("nst", "mast", "random"),
        ),
        Param(
            "replies",
            str,
            "both",
            "replies kept: to the last move (LGR-1), to the "
            "last two (LGR-2), or both, LGR-2 tried first",
            choices=("1", "2", "both"),
        ),
        Param("forget", bool, True, "a lost simulation forgets its replies"),
    )
    policy_names = {
        **NSTPlayer.policy_names,
        "fallback": "fallback",
        "replies": "replies",
        "forget": "forget",
    }


# --- the reasoner behind a search ------------------------------------------------
