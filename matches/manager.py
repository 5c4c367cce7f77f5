"""The game manager: one match between players in this process or anywhere.

The match is a record first: every joint move, every state, and every fault.
A player that raises, answers nothing, answers an illegal move, or runs past
the play clock gets a legal move chosen for it (uniformly at random, as
ggp-base's manager does) and the fault is logged for that step and role as
``CE``, ``IL <move>`` or ``TO`` (PROTOCOL.md).  The ``random`` role of GDL-II
is played by the manager itself, uniformly.  Each role learns only what the
protocol gives it: the joint move in GDL-I, its own move and its percepts in
GDL-II.

Players are reached through seats (:mod:`matches.seats`): a local match and a
match over HTTP run this same code with the transport swapped.
"""
from __future__ import annotations

import random
import time
import uuid
from dataclasses import dataclass, field

from matches.records import game_source
from players import Observation

from .seats import LocalSeat, RemoteSeat


@dataclass
class MatchRecord:
    """What happened: per step the joint move, the state before it, the faults."""

    game: str
    roles: tuple
    players: dict                          # role -> player spec or name
    states: list = field(default_factory=list)   # facts of each state, first to last
    moves: list = field(default_factory=list)    # joint moves, in role order
    errors: list = field(default_factory=list)   # per step, per role: "" or TO/CE/IL
    goals: dict = field(default_factory=dict)    # role -> goal in the final state
    match_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    start_time: float = field(default_factory=time.time)   # seconds since the epoch
    state_times: list = field(default_factory=list)  # time.time() of each state
    start_clock: float = 0.0
    play_clock: float = 0.0
    game_source: str = ""          # what load_game needs (matches.records.game_source)


def run_match(game, players: dict, seed: int | None = None, start_clock: float = 10.0,
              play_clock: float = 10.0, reasoner: str = "compiled", on_step=None,
              specs: dict | None = None) -> MatchRecord:
    """Play one match; ``players`` maps every non-random role to a seat
    (:class:`~matches.seats.LocalSeat`, :class:`~matches.seats.RemoteSeat`)
    or to a :class:`players.Player`, which gets a local seat.

    ``on_step(record, sm, state)`` is called after every step (and once at
    the start) with the record so far, the state machine and its state.
    """
    sm = game.state_machine(reasoner)
    rng = random.Random(seed)
    roles = sm.roles
    missing = [r for r in roles if r != "random" and r not in players]
    if missing:
        raise ValueError(f"no player for role(s) {', '.join(missing)}")
    seats = {r: p if isinstance(p, (LocalSeat, RemoteSeat)) else LocalSeat(p)
             for r, p in players.items()}
    record = MatchRecord(game.name, roles, dict(specs or {r: s.name for r, s in seats.items()}),
                         start_clock=start_clock, play_clock=play_clock,
                         game_source=game_source(game))
    for role, seat in seats.items():
        _quietly(seat.start, game, record.match_id, role, start_clock, play_clock)
    state = sm.initial_state()
    record.states.append(sm.state_facts(state))
    record.state_times.append(time.time())
    if on_step:
        on_step(record, sm, state)
    previous, turn = None, 0
    while not sm.is_terminal(state):
        joint, errors = [], []
        for i, role in enumerate(roles):
            legal = sm.legal_moves(state, role)
            if role == "random":
                joint.append(rng.choice(legal))
                errors.append("")
                continue
            obs = _observation(game, sm, role, i, previous, turn, time.monotonic() + play_clock)
            move, error = seats[role].play(game, record.match_id, obs, legal, play_clock)
            if error:
                move = rng.choice(legal)
            joint.append(move)
            errors.append(error)
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
    record.goals = {r: sm.goal(state, r) for r in roles if r != "random"}
    for i, role in enumerate(roles):
        if role in seats:
            _quietly(seats[role].stop, game, record.match_id,
                     _observation(game, sm, role, i, previous, turn, time.monotonic()))
    return record


def _quietly(call, *args):
    """START and STOP: a player that fails them still plays (or has played) the
    match; its faults show where they matter, in its moves."""
    try:
        call(*args)
    except Exception:
        pass


def _observation(game, sm, role, index, previous, turn, deadline) -> Observation:
    """Only what the protocol gives ``role``: the joint move (GDL-I), or its own
    move and its percepts (GDL-II)."""
    if previous is None:
        return Observation(turn=turn, deadline=deadline)
    state, joint = previous
    if not game.is_gdl2:
        return Observation(turn=turn, joint=joint, deadline=deadline)
    return Observation(turn=turn, own_move=joint[index],
                       percepts=sm.percepts(state, joint, role), deadline=deadline)
