"""The game manager: one match between players in this process or anywhere.

The match is a record first: every joint move, every state, and every fault.
A player that raises, answers nothing, answers an illegal move, or runs past
the play clock gets a legal move chosen for it (uniformly at random, as
ggp-base's manager does) and the fault is logged for that step and role as
``CE``, ``IL <move>`` or ``TO`` (PROTOCOL.md), with the reason in words in
the record's ``faults``, which also keeps the faults of START and STOP.  The
``random`` role of GDL-II is played by the manager itself, uniformly.  Each
role learns only what the protocol gives it: the joint move in GDL-I, its own
move and its percepts in GDL-II.

Every message round (START, each PLAY, STOP, and ABORT when a match cannot go
on) goes to all players at once, as ggp-base's GameServer sends it: each seat
has a thread of its own, so a step takes one play clock however many players
use theirs, and the manager waits no longer than the clock plus the grace of
:data:`matches.seats.GRACE`.  A player still busy then is timed out; its late
call keeps its thread, and its next call waits behind it.

A match whose game does not end within ``max_steps`` steps (default
:data:`MAX_STEPS`) is aborted by the manager: every player gets ABORT, the
record has no goals and says why in ``aborted``.  So is a match whose game
breaks its own rules in play (:class:`ggp.RuleError`: a role with no legal
move, or a terminal state without exactly one goal for each role, as
chess.kif gives none after its 200th move): the moves played are kept.

Players are reached through seats (:mod:`matches.seats`): a local match and a
match over HTTP run this same code with the transport swapped.

The compiled reasoner is built in the background (:meth:`ggp.Game.build`),
and START is not held back by it: until it is built, the manager follows
the match on the demand-driven reasoner and moves to the compiled one at the
first step boundary after (the state carried over by its facts), as players
thinking on the clock do (:mod:`players.base`).  Only when a player in this
process must wait for the build at START (a player not on the clock, whose
moves must not depend on when the build ends) does the manager wait for it
before START, so that the build is not counted against that player's clock.
"""

from __future__ import annotations

import logging
import random
import time
import uuid
from concurrent.futures import ThreadPoolExecutor, as_completed
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field

from ggp import RuleError
from ggp.handover import Handover
from ggp.reasoners import COMPILED
from matches.records import game_source
from matches.seats import GRACE, Fault, LocalSeat, RemoteSeat
from players import Observation

log = logging.getLogger("matches.manager")

#: The steps a match may take before the manager aborts it: 50 times the
#: longest bound a public game puts on its length (gt_two_thirds_6p's 600
#: rounds; chess 200 moves), so only a game whose terminal is never reached
#: meets it.
MAX_STEPS = 10_000


@dataclass
class MatchRecord:
    """What happened: per step the joint move, the state before it, the faults."""

    game: str
    roles: tuple
    players: dict  # role -> player spec or name
    states: list = field(default_factory=list)  # facts of each state, first to last
    moves: list = field(default_factory=list)  # joint moves, in role order
    errors: list = field(default_factory=list)  # per step, per role: "" or TO/CE/IL
    goals: dict = field(default_factory=dict)  # role -> goal in the final state
    match_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    start_time: float = field(default_factory=time.time)  # seconds since the epoch
    state_times: list = field(default_factory=list)  # time.time() of each state
    start_clock: float = 0
    play_clock: float = 0
    game_source: str = ""  # what load_game needs (matches.records.game_source)
    #: every fault of every phase: {"phase": "start" | "play" | "stop" | "abort",
    #: "step": number of the step (1 = the first PLAY) or None, "role", "code", "reason"}
    faults: list = field(default_factory=list)
    #: per step, per role: the simulations a search player in this process made
    #: for its move (its ``last_simulations``), else None
    simulations: list = field(default_factory=list)
    #: per step, per role: the reasoner a player in this process made its move
    #: with ("compiled", or "demand" while the compiled one was building), else None
    reasoners: list = field(default_factory=list)
    #: why the manager aborted the match before the game ended ("" when it ended)
    aborted: str = ""
    #: the rules' own fault that ended the match (``aborted`` says it in
    #: words), for a command to report as ``ggp check`` would; not recorded
    broken: RuleError | None = field(default=None, repr=False, compare=False)


def run_match(
    game,
    players: dict,
    seed: int | None = None,
    start_clock: float = 10,
    play_clock: float = 10,
    reasoner: str = COMPILED,
    on_step=None,
    specs: dict | None = None,
    on_fault=None,
    max_steps: int = MAX_STEPS,
) -> MatchRecord:
    """Play one match; ``players`` maps every non-random role to a seat
    (:class:`~matches.seats.LocalSeat`, :class:`~matches.seats.RemoteSeat`)
    or to a :class:`players.Player`, which gets a local seat.

    ``on_step(record, sm, state)`` is called after every step (and once after
    START) with the record so far, the state machine and its state (the
    machine changes when the compiled one, built meanwhile, replaces the
    fallback: see the module docstring);
    ``on_fault(fault)`` as soon as a fault is known, with its entry of
    ``record.faults``.  A game that breaks its rules during the match (a role
    with no legal move, no goal: :class:`ggp.RuleError`) or that is not over
    after ``max_steps`` steps is aborted: every player is sent ABORT, and the
    record, without goals, says why in ``aborted``.  Any other error is
    raised after every player has been sent ABORT.
    """
    if not isinstance(max_steps, int) or max_steps < 1:
        raise ValueError(f"max_steps must be an integer >= 1, got {max_steps!r}")
    rng = random.Random(seed)
    roles = game.roles
    missing = [r for r in roles if r != "random" and r not in players]
    if missing:
        raise ValueError(f"no player for role(s) {', '.join(missing)}")
    seats = {
        r: p if isinstance(p, (LocalSeat, RemoteSeat)) else LocalSeat(p) for r, p in players.items()
    }
    if any(isinstance(s, RemoteSeat) for s in seats.values()) and not all(
        float(c).is_integer() and c >= 1 for c in (start_clock, play_clock)
    ):
        raise ValueError(
            f"the GGP protocol's clocks are whole seconds, at least 1: "
            f"got {start_clock:g} and {play_clock:g}"
        )
    record = MatchRecord(
        game.name,
        roles,
        dict(specs or {r: s.name for r, s in seats.items()}),
        start_clock=start_clock,
        play_clock=play_clock,
        game_source=game_source(game),
    )
    machine = _Machine(game, reasoner, any(s.waits_for_build for s in seats.values()))
    with _Rounds(seats, record, on_fault) as rounds:
        try:
            _play(game, machine, rng, rounds, record, on_step, max_steps)
        except RuleError as exc:
            record.broken = exc  # before the goals were set: the record has none
            record.aborted = f"the rules broke at step {len(record.moves)}: {exc}"
            log.warning("%s: match %s aborted: %s", game.name, record.match_id, record.aborted)
            rounds.abort()
        except BaseException:
            rounds.abort()
            raise
    return record


class _Machine:
    """The manager's state machine (``sm``): the ``reasoner``'s; for the
    compiled one, until its build ends, the fallback's, unless ``wait``
    (:class:`ggp.handover.Handover`, as players do: the module docstring).
    :meth:`moved` carries states over when the compiled one replaces the
    fallback."""

    def __init__(self, game, reasoner: str, wait: bool):
        self.game = game
        self.handover = Handover(game, reasoner, wait)
        self.sm = self.handover.sm
        if self.handover.building is not None:
            log.info(
                "%s: the compiled reasoner is still building; the manager follows the "
                "match on the demand-driven reasoner meanwhile",
                game.name,
            )

    def moved(self, *states) -> tuple | None:
        """``states`` on the compiled machine once its build has ended (and the
        game grounded), the manager moving to it; else None."""
        old, new = self.sm, self.handover.moved()
        if new is None:
            return None
        self.sm = new
        log.info("%s: the compiled reasoner is ready; the manager moved to it", self.game.name)
        return tuple(
            None if s is None else new.state_from_facts(old.state_facts(s)) for s in states
        )


def _play(game, machine, rng, rounds, record, on_step, max_steps):
    seats, match_id = rounds.seats, record.match_id
    start_clock, play_clock = record.start_clock, record.play_clock
    sm = machine.sm
    state = sm.initial_state()
    record.states.append(sm.state_facts(state))
    record.state_times.append(time.time())  # before START, as ggp-base's GameServer
    started = rounds.run(
        "start",
        None,
        start_clock,
        {r: (seat.start, game, match_id, r, start_clock, play_clock) for r, seat in seats.items()},
    )
    for role, reply in started.items():
        if reply is not None and str(reply).lower() != "ready":
            rounds.fault("start", None, role, Fault("CE", f"answered {reply} to START"))
    if on_step:
        on_step(record, sm, state)
    previous, turn = None, 0
    while not sm.is_terminal(state):
        if turn == max_steps:
            record.aborted = (
                f"the game did not end within {max_steps:,} steps (the manager's step cap)"
            )
            log.warning("%s: match %s aborted: %s", game.name, match_id, record.aborted)
            rounds.abort()
            return
        moved = machine.moved(state, previous and previous[0])
        if moved:
            sm, (state, before) = machine.sm, moved
            previous = previous and (before, previous[1])
        legal = dict(zip(sm.roles, sm.playable_moves(state)))
        deadline = time.monotonic() + play_clock
        calls = {
            r: (
                seat.play,
                game,
                match_id,
                _observation(game, sm, r, previous, turn, deadline),
                legal[r],
                play_clock,
            )
            for r, seat in seats.items()
        }
        answers = rounds.run("play", turn + 1, play_clock, calls)
        joint, errors = [], []
        record.simulations.append(
            [seats[r].simulations() if r in seats else None for r in sm.roles]
        )
        record.reasoners.append([seats[r].reasoner() if r in seats else None for r in sm.roles])
        for role in sm.roles:
            move = answers.get(role)
            if move is None:  # the random role, or a fault
                move = rng.choice(legal[role])
            joint.append(move)
            errors.append(rounds.codes.get(role, ""))
        joint = tuple(joint)
        previous = (state, joint)
        state = sm.next_state(state, joint)
        turn += 1
        record.moves.append(joint)
        record.errors.append(errors)
        record.states.append(sm.state_facts(state))
        record.state_times.append(time.time())
        if on_step:
            on_step(record, sm, state)
    record.goals = {r: sm.goal(state, r) for r in sm.roles if r != "random"}
    rounds.run(
        "stop",
        None,
        play_clock,
        {
            r: (
                seat.stop,
                game,
                match_id,
                _observation(game, sm, r, previous, turn, time.monotonic() + play_clock),
                play_clock,
            )
            for r, seat in seats.items()
        },
    )


class _Rounds:
    """Message rounds: one call per seat, all at once, each seat's calls in
    order on a thread of its own; faults go into the record as they come."""

    def __init__(self, seats: dict, record: MatchRecord, on_fault=None):
        self.seats, self.record, self.on_fault = seats, record, on_fault
        self.workers = {
            r: ThreadPoolExecutor(1, thread_name_prefix=f"seat-{r}")
            for r, seat in seats.items()
            if seat.waits
        }
        self.codes: dict = {}  # role -> fault code of the last round

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        for worker in self.workers.values():
            worker.shutdown(wait=False)  # a player still thinking keeps its thread

    def abort(self):
        """ABORT to every seat."""
        clock = self.record.play_clock
        self.run(
            "abort",
            None,
            clock,
            {r: (seat.abort, self.record.match_id, clock) for r, seat in self.seats.items()},
        )

    def run(self, phase: str, step, clock: float, calls: dict) -> dict:
        """Send every seat its call (``role -> (function, *args)``); return
        role -> answer (None on a fault) after at most ``clock + GRACE``.

        The calls of seats that wait (a remote player, a local one thinking on
        the clock) go out at once on their threads; those of local players that
        answer as soon as they have computed (no clock to wait for: a budget
        of simulations, or no search) are made here meanwhile, since Python
        runs one of them at a time anyway, and a thread round costs a few
        hundred microseconds."""
        self.codes = {}
        futures = {
            self.workers[r].submit(*call): r for r, call in calls.items() if r in self.workers
        }
        answers = dict.fromkeys(calls)
        for role, (function, *args) in calls.items():
            if role not in self.workers:
                self._answer(phase, step, role, answers, function, *args)
        if not futures:
            return answers
        try:
            for future in as_completed(futures, timeout=clock + GRACE):
                self._answer(phase, step, futures[future], answers, future.result)
        except FutureTimeout:
            for future, role in futures.items():
                if not future.done():
                    self.fault(
                        phase,
                        step,
                        role,
                        Fault("TO", f"no answer within {clock:g} s + {GRACE:g} s of grace"),
                    )
        return answers

    def _answer(self, phase, step, role, answers, call, *args):
        """Record what ``call`` gives for ``role``: its answer, or its fault."""
        try:
            answers[role], fault = call(*args)
        except Exception as exc:  # a seat's own bug: the match goes on
            fault = Fault("CE", f"{type(exc).__name__}: {exc}")
        if fault is not None:
            self.fault(phase, step, role, fault)

    def fault(self, phase, step, role, fault: Fault):
        entry = {
            "phase": phase,
            "step": step,
            "role": role,
            "code": fault.code,
            "reason": fault.reason,
        }
        self.record.faults.append(entry)
        if phase == "play":
            self.codes[role] = fault.code
        if self.on_fault:
            self.on_fault(entry)


def _observation(game, sm, role, previous, turn, deadline) -> Observation:
    """Only what the protocol gives ``role``: the joint move (GDL-I), or its own
    move and its percepts (GDL-II)."""
    if previous is None:
        return Observation(turn=turn, deadline=deadline)
    state, joint = previous
    if not game.is_gdl2:
        return Observation(turn=turn, joint=joint, deadline=deadline)
    return Observation(
        turn=turn,
        own_move=joint[sm.roles.index(role)],
        percepts=sm.percepts(state, joint, role),
        deadline=deadline,
    )
