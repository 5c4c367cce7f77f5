"""Monte Carlo tree search players for perfect-information games: ``uct``,
``mast``, ``nst`` and ``lgr``.

One search for any number of roles, turn-taking or simultaneous, as in
CadiaPlayer (Björnsson and Finnsson, "CadiaPlayer: A Simulation-Based General
Game Player", IEEE TCIAIG 1(1), 2009) and the players of Tak, Winands and
Björnsson, "N-Grams and the Last-Good-Reply Policy Applied in General Game
Playing" (IEEE TCIAIG 4(2), 2012; "slide N" below is a slide of A. Shwartz's
presentation of that paper, "N-Grams and the Last-Good-Reply Policy in MCTS", 2015).
This module holds the players: :class:`MCTSPlayer`, the search they share (its
parameters, its construction and the Player hooks), and the registered
players with their playout policies.  The rest of the search is split by
concern:

* :mod:`players.perfect.tree`: the Python tree, its selection (decoupled UCB1
  per role, untried moves first) and backup (discounted goals), the playout
  policy credited with the whole simulation, transpositions;
* :mod:`players.perfect.budget`: time management, the think loop to a
  simulation budget or an instant, and the one-player planner's share;
* :mod:`players.perfect.root`: the decision at the root, the proof search
  before it, the solver's values and ``final`` after it;
* :mod:`players.perfect.options`: what the search is built with, ``auto``'s
  choice, the evaluation, capture-first playouts;
* :mod:`players.perfect.searches`: the searches themselves, on the compiled
  reasoner's kernel (whose trees live in C) or on any state machine.

Besides:

* the tree is kept between turns (the subtree of the joint move played), and
  the policy's statistics are multiplied by ``decay`` once per decision of
  ours (a step where we have more than one legal move), before its search;
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
makes the same simulations with the same seed; the Python tree
(:mod:`players.perfect.tree`) is the one for the reference reasoner (and
``engine=python``), and the oracle the C tree is tested against.

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

UCB1 and the budgets: :mod:`players.perfect.tree` and :mod:`players.perfect.budget`.
"""

from __future__ import annotations

import math

from players.base import BUDGET, Player
from players.params import Param, extend
from players.perfect.budget import Budget
from players.perfect.options import SearchOptions
from players.perfect.root import RootDecision
from players.perfect.searches import DISCOUNT, C, Forest, TreeOptions, search_for
from players.registry import register

__all__ = ["AUTO", "LGRPlayer", "MASTPlayer", "MCTSPlayer", "NSTPlayer", "UCTPlayer"]

#: What ``auto`` does (:mod:`players.perfect.choice`).
AUTO = (
    "decide at the start clock, from the rules and 100 random playouts, what the game "
    "gets: greedy=1,defend=true,fit=rules where moves win at once, else fit=lines,cutoff=8 "
    "where the goal is lines of 4 or more and random games last 24 plies or more, else "
    "early=N where the goals differ mid-game, else N-gram playouts (the nst player's) "
    "in place of random ones (players.perfect.choice); "
    "only when no option it sets or that uses an evaluation is given"
)


#: The search's parameters, after the budget's (their defaults' sources: the
#: module docstring).
_SEARCH_PARAMS = (
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
        "MCTS-Solver: values under best play known in the tree are backed up and played (engine=c)",
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


class MCTSPlayer(Budget, RootDecision, SearchOptions):
    """The search shared by the registered players; ``playout`` names the
    policy (see :class:`players._policy.Policy` for its parameters)."""

    name = "mcts"
    playout = "random"

    params = extend(Player.params, *BUDGET, *_SEARCH_PARAMS)
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
            self.planning.think(self.think_until(deadline), self._plan_budget())
        if self.simulations is None:
            self.think(self.think_until(deadline))

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
            options = TreeOptions(
                c=self.c,
                discount=self.discount,
                transpositions=self.transpositions,
                solver=self.solver or self.tactics,
                tactics=self.tactics,
                rave=self.rave,
                leaf=self.leaf,
                early=self.early,
                evaluation=self.evaluation,
                heuristic=self.heuristic,
                prior=self.prior,
                imm=self.imm,
                quiesce=self.quiesce,
                cutoff=self.cutoff,
            )
            seeds = [self.rng.getrandbits(63) for _ in range(self.threads - 1)]
            self.ctree = Forest(self.search, self.position(), options, seeds)
        else:
            self._warn_without_c()
            self.root = self._node(self.position())
        self.added = 0

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
            self.think(self.think_until(deadline))
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
