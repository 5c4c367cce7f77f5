"""The ``Player`` interface used by local and remote matches.

A match talks to a player through four calls, mirroring the GGP protocol
(START, PLAY, STOP, ABORT):

* ``start(game, role, start_clock, play_clock, deadline=None)``: meta-game;
  return within the start clock (by ``deadline``, a ``time.monotonic()``
  instant, when the caller has one: the same kind of instant as each turn's
  ``Observation.deadline``).
* ``play(observation)``: return a legal move within the play clock.  The
  observation holds what the protocol gives this role and nothing more: the
  previous joint move (GDL-I), or its own last move and its percepts (GDL-II),
  and, from a local seat, the role's legal moves (the GGP protocol does not
  send them).
* ``stop(observation)`` and ``abort()``: the match is over.

:class:`Player` keeps track of where the game stands (the exact state in
GDL-I; in GDL-II a set of states consistent with the role's own moves and
percepts, :mod:`players.belief`) so that a subclass only chooses:
``select(legal_moves, deadline)``.

A compiled state machine can take longer to build than the start clock
(:meth:`ggp.Game.build` builds it in the background).  A player that thinks
on the clock then starts on the demand-driven reasoner (:data:`FALLBACK`)
and moves to the compiled machine at the first turn after it is built
(:class:`ggp.handover.Handover`, as the manager does): the
position is rebuilt by replaying what the role was told so far, and
:meth:`Player.rebuild_search` lets a subclass rebuild its search there.  One
log line says each (logger ``players``).  A player whose moves must not
depend on the machine's speed (a budget of simulations, or no search) waits
for the build instead.
"""

from __future__ import annotations

import logging
import math
import random
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass

from ggp import Interrupted
from ggp.collector import collector_paused
from ggp.handover import FALLBACK as FALLBACK  # the reasoner followed while the build runs
from ggp.handover import Handover
from ggp.reasoners import COMPILED
from ggp.reasoners import names as reasoner_names
from players.belief import Belief, Steps
from players.params import Param, settings

log = logging.getLogger("players")

#: The share of the start clock a player keeps, when the compiled build is
#: not done, to start on the fallback reasoner and think before answering.
BUILD_RESERVE = 0.25
#: Seconds before its deadline at which a player without a ``margin`` of its
#: own gives up a reasoner's question (:class:`ggp.Interrupted`).
ANSWER_MARGIN = 0.05


@dataclass(frozen=True)
class Observation:
    """What a role learns at a turn.

    ``joint`` is the previous joint move in role order (GDL-I; None on the first
    turn).  For GDL-II, ``own_move`` is the role's own previous move as executed
    and ``percepts`` the terms it saw (both None on the first turn).
    ``deadline`` is a ``time.monotonic()`` instant by which to answer.
    ``legal`` is the role's legal moves as the manager offers them (a local
    seat passes them; None over HTTP, where the player takes them from its
    belief).
    """

    turn: int = 0
    joint: tuple | None = None
    own_move: object = None
    percepts: frozenset | None = None
    deadline: float = float("inf")
    legal: tuple | None = None


#: What a player thinking on the clock keeps back from the deadline it is given
#: to stop, choose and answer (:meth:`Player.think_until`); a served player's
#: deadline already has the server's own margin taken off (matches.server), so
#: the two do not add up to most of a short clock.
MARGIN = Param("margin", float, 0.1, "seconds before the deadline when thinking stops", low=0)
#: The thinking budget of the search players: simulations a move, else the
#: clock less the margin.
BUDGET = (
    Param(
        "simulations",
        int,
        None,
        "simulations a move (reproducible with seed); default: think on the clock",
        low=1,
    ),
    MARGIN,
)


class Player:
    """Base class: keeps the game position; subclasses override :meth:`select`.

    The position is a :class:`players.belief.Belief`: the exact state in
    GDL-I, the histories consistent with everything the role was told in
    GDL-II.  ``belief_share`` is the part of the play clock that updating it
    may take (half as much again while no consistent history is found yet),
    whatever the player: one that does not think on the clock (a simulation
    budget, or no search) owes its answer by the deadline too.  Its play
    depends on its seed alone as long as the belief's budgets of steps, not
    the clock, bound the update (a slow reasoner or a short clock can make
    the clock bind first).

    The moves offered to :meth:`select` are the ones the manager offered (in
    the order of the role's belief), else the moves legal in every history
    the role believes possible (the most of them while its belief is lost).
    """

    name = "player"
    belief_share = 0.4
    #: Whether falling back to another reasoner at START, and moving to the
    #: compiled one later, are logged as a warning and an info line (else at
    #: debug level: for a helper that follows the game beside a player).
    log_reasoners = True
    #: Whether a turn's questions are given up at the deadline (the module's
    #: docstring); not for a helper that must know the position whatever it
    #: costs (the server's view of the game, which substitutes a legal move).
    on_deadline = True
    #: The declared parameters (:mod:`players.params`); subclasses add theirs.
    params = (
        Param("seed", int, None, "random seed (default: a fresh one each match)", low=0),
        Param(
            "reasoner",
            str,
            COMPILED,
            "the state machine the player reasons with",
            choices=reasoner_names,
        ),
    )
    # Each declared parameter is an attribute (set in __init__); for the type checker:
    seed: int | None
    reasoner: str

    def __init__(self, **values):
        """Every declared parameter becomes an attribute of the same name;
        ValueError names a parameter that is unknown or out of bounds."""
        for key, value in settings(self.params, values).items():
            setattr(self, key, value)
        self.rng = random.Random(self.seed)
        self.game = self.sm = self.role = None
        # the machine followed, and the move to the compiled one (set at START)
        self._handover: Handover | None = None
        #: the distribution (move -> probability) the last move was drawn from,
        #: for a player that keeps one (players.imperfect.evaluation reads it); else None
        self.last_policy = None

    @property
    def on_clock(self) -> bool:
        """True when the player thinks until its deadline: a search player
        without a simulation budget."""
        return (
            any(p.name == "simulations" for p in self.params)
            and getattr(self, "simulations") is None  # declared: an attribute (BUDGET)
        )

    @property
    def waits_for_build(self) -> bool:
        """True when START waits for the compiled machine however long its
        build takes: a player not on the clock, whose moves must depend on its
        seed alone and not on when a build ends.  Otherwise START waits until
        :data:`BUILD_RESERVE` of the start clock is left, then starts on the
        fallback reasoner."""
        return not self.on_clock

    @property
    def reasoner_in_use(self) -> str | None:
        """The reasoner the player follows the game with now ("compiled",
        "demand" or "reference"; None before START): after :meth:`play`,
        the one its move came from."""
        return None if self.sm is None else self.sm.name

    @classmethod
    def describe(cls) -> dict:
        """The player as ``ggp players --json`` lists it."""
        return {
            "name": cls.name,
            "description": _first_sentence(cls.__doc__ or ""),
            "params": [p.describe() for p in cls.params],
        }

    # --- protocol ----------------------------------------------------------
    def start(
        self,
        game,
        role,
        start_clock: float = 10.0,
        play_clock: float = 10.0,
        *,
        deadline: float | None = None,
    ):
        """Begin a match as ``role``, answering by ``deadline`` (a
        ``time.monotonic()`` instant, as the turns' deadlines are: a caller
        that has one, such as the server with its margin taken off, passes it
        as it is), else ``start_clock`` seconds from now.  ``play_clock``, the
        seconds of a turn, bounds what an overrun keeps back from the later
        deadlines (at most half of it, :meth:`_deadline`)."""
        now = time.monotonic()
        deadline = now + start_clock if deadline is None else deadline
        self.game, self.role = game, role
        self.play_clock = play_clock
        self.imperfect = game.is_gdl2
        self.observations: list[Observation] = []  # what the role was told, in order
        self._lost = False  # the position is to be rebuilt from the observations
        self._slack = 0.0  # seconds kept back besides the margin: the slowest overrun
        self._interruptions = 0
        self.sm = self._first_machine(deadline - BUILD_RESERVE * (deadline - now))
        with self._deadline(deadline, measure=False) as turn:
            self._lost = True
            self._follow(deadline)
            self.meta_game(deadline)
            self._lost = False
        if turn.interrupted:
            self._interrupted("START", "it follows the game from the next turn")

    def play(self, obs: Observation):
        deadline = obs.deadline - self._slack
        new = obs.turn > 0 or obs.joint is not None or obs.percepts is not None
        with self._deadline(deadline) as turn:
            if self._move_to_compiled(obs):
                self.sm.deadline = turn.instant
            if self._lost:  # a turn was given up before the position was up to date
                if new:
                    self.observations.append(obs)
                self._follow(deadline)
                self.rebuild_search(deadline)
                self._lost = False
            elif new:
                self._lost = True
                self.observe(obs)
                self._lost = False
            return self.select(self.legal_moves(obs.legal, deadline), deadline)
        self._interrupted(f"turn {obs.turn}", "playing a legal move at random")
        return None if not obs.legal else self.rng.choice(obs.legal)

    def think_until(self, deadline: float) -> float:
        """The instant at which a turn due at ``deadline`` stops thinking and
        gives up its reasoner's questions: ``deadline`` less the player's
        ``margin`` (:data:`MARGIN`; :data:`ANSWER_MARGIN` for a player
        without one), the seconds it keeps back to stop, choose and answer.

        The server keeps a margin of its own (``matches.server``, the reply's
        travel), by a rule of its own: taken off a clock's seconds before the
        player is given its deadline, and at most half the clock, so that a
        fixed margin does not eat a short clock.  The player's rule applies to
        the instant it is given, whoever set it (the server, a local match, an
        overrun kept back), with no clock at hand to cap it by, so the two are
        not one rule: each covers its own stage, one after the other."""
        return deadline - getattr(self, "margin", ANSWER_MARGIN)

    @contextmanager
    def _deadline(self, deadline: float, measure: bool = True):
        """The block's questions given up at ``deadline`` less the margin
        (:attr:`ggp.StateMachine.deadline`): :class:`ggp.Interrupted`
        ends the block, and the :class:`_Turn` yielded says so.  The cyclic
        collector waits meanwhile (:mod:`ggp.collector`: a full collection
        held every thread for 0.1-0.3 s on amazons' demand-driven reasoner).  The overrun
        past that instant, measured when the block ends (if ``measure``),
        adds to the margin of the later turns (the module's docstring)."""
        turn = _Turn(self.think_until(deadline) if self.on_deadline else math.inf)
        self.sm.deadline = turn.instant
        try:
            with collector_paused():
                yield turn
        except Interrupted:
            turn.interrupted = True
        finally:
            self.sm.deadline = math.inf
            overrun = time.monotonic() - (turn.instant + deadline) / 2  # past half the margin
            if measure and overrun > self._slack and turn.instant < math.inf:
                self._slack = min(overrun, self.play_clock / 2)

    def _interrupted(self, when: str, instead: str):
        """Say (once a match, then at debug level) that a turn was given up,
        and what the player does ``instead``."""
        self._interruptions += 1
        log.log(
            logging.WARNING if self._interruptions == 1 else logging.DEBUG,
            "%s: role %s: the %s reasoner did not answer by the deadline at %s; "
            "%s (said once a match)",
            self.game.name,
            self.role,
            self.sm.name,
            when,
            instead,
        )

    def stop(self, obs: Observation | None = None):
        """The match ended; nothing to do by default."""

    def abort(self):
        """The match was aborted; nothing to do by default."""

    # --- hooks for subclasses ----------------------------------------------
    def meta_game(self, deadline: float):
        """Think before the first move (within the start clock)."""

    def select(self, legal: list, deadline: float):
        raise NotImplementedError

    def rebuild_search(self, deadline: float):
        """The position has moved to a new state machine (``self.sm``,
        ``self.steps`` and ``self.belief`` are new, at the current turn):
        rebuild whatever was built over the old one, from the current
        position, by ``deadline``.  Nothing by default."""

    # --- the state machine ------------------------------------------------------
    def _first_machine(self, until: float):
        """The machine START begins on (:class:`ggp.handover.Handover`): the
        player's reasoner; for the compiled one, its build when it ends by
        ``until`` or :attr:`waits_for_build`, else the fallback, with one log
        line, and the build is kept to move to later."""
        self._handover = Handover(self.game, self.reasoner, self.waits_for_build, until)
        if self._handover.building is not None:
            log.log(
                logging.WARNING if self.log_reasoners else logging.DEBUG,
                "%s: the compiled reasoner is still building; role %s searches on the "
                "demand-driven reasoner meanwhile",
                self.game.name,
                self.role,
            )
        return self._handover.sm

    def _move_to_compiled(self, obs: Observation) -> bool:
        """When the compiled build has ended: follow the game on it from now on
        (the position rebuilt from what the role was told, the search by
        :meth:`rebuild_search`), with one log line, and say True; unless the
        game did not ground (it then runs on the demand-driven reasoner
        already) or the build failed (said once)."""
        if self._handover is None:
            return False
        sm = self._handover.moved(failed=self._build_failed)
        if sm is None:
            return False
        self.sm = sm
        self._follow(obs.deadline)
        self.rebuild_search(obs.deadline)
        log.log(
            logging.INFO if self.log_reasoners else logging.DEBUG,
            "%s: the compiled reasoner is ready; role %s moved to it at turn %d",
            self.game.name,
            self.role,
            obs.turn,
        )
        return True

    def _build_failed(self, exception: BaseException):
        log.warning(
            "%s: the compiled reasoner's build failed (%s); role %s goes on with the %s reasoner",
            self.game.name,
            exception,
            self.role,
            self.sm.name,
        )

    def _follow(self, deadline: float):
        """Follow the game on ``self.sm``: Steps, the role's number, and its
        belief, brought up to date with the observations so far (updating it
        takes the belief's share of the time to ``deadline``, all together)."""
        self.steps = Steps(self.sm, self.imperfect)
        self.me = self.sm.roles.index(self.role)
        self.belief = Belief(self.steps, self.me, self.rng)
        budget = self._belief_budget(deadline)
        for obs in self.observations:
            self._advance(obs, *budget)

    # --- keeping track of the position -------------------------------------
    def legal_moves(self, offered=None, deadline: float = math.inf) -> list:
        """The role's legal moves: in GDL-I those of the exact state; in GDL-II
        those legal in its hypotheses (:meth:`players.belief.Belief.legal`,
        asked within the belief's share of the time to ``deadline``), or
        ``offered`` (the manager's) when they differ: while the belief is
        lost."""
        if not self.imperfect:
            return self.sm.legal_moves(self.position(), self.role)
        ids = self.belief.legal(self._belief_budget(deadline)[0])
        if offered is not None and set(ids) != {self.steps.move_id(self.me, m) for m in offered}:
            return list(offered)
        return [self.steps.move(self.me, m) for m in ids]

    def position(self):
        """The current state: exact in GDL-I, one consistent with what the
        role saw in GDL-II."""
        return self.belief.sample().state

    def observe(self, obs: Observation):
        """Advance the position (GDL-I) or filter the belief (GDL-II), and
        keep the observation (to replay on another state machine)."""
        self.observations.append(obs)
        self._advance(obs, *self._belief_budget(obs.deadline))

    def _belief_budget(self, deadline: float) -> tuple:
        """(deadline, hard deadline) of a belief update when the answer is due
        at ``deadline``: the belief's share of the time left, on the clock or
        not (``random`` answered up to 52 s late on a slow reasoner)."""
        now = time.monotonic()
        left = max(0.0, deadline - now)
        return now + self.belief_share * left, now + 1.5 * self.belief_share * left

    def _advance(self, obs: Observation, deadline: float, hard: float):
        steps = self.steps
        if obs.joint is not None and not self.imperfect:
            self.belief.observe_joint(tuple(steps.move_id(r, m) for r, m in enumerate(obs.joint)))
            return
        seen = steps.seen_ids(self.me, obs.percepts or frozenset())
        legal = None if obs.legal is None else [steps.move_id(self.me, m) for m in obs.legal]
        self.belief.observe(
            steps.move_id(self.me, obs.own_move), seen, legal, deadline=deadline, hard=hard
        )


@dataclass
class _Turn:
    """A turn under :meth:`Player._deadline`: the instant its questions are
    given up, and whether one was."""

    instant: float
    interrupted: bool = False


def _first_sentence(doc: str) -> str:
    """The first sentence of a docstring, on one line, its Sphinx roles
    (:class:`players.learning.nfsp_player.NFSPPlayer`) written as plain
    names: a line of ``ggp players``."""
    paragraph = " ".join(doc.strip().split("\n\n")[0].split())
    paragraph = re.sub(r":\w+:`~?([^`]+)`", r"\1", paragraph).replace("``", "")
    for end in re.finditer(r"\.(\s|$)", paragraph):
        sentence = paragraph[: end.start() + 1]
        if sentence.count("(") == sentence.count(")"):
            return sentence
    return paragraph
