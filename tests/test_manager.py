"""Local matches: faulty players get a legal move and the fault is logged;
GDL-II players see only their own move and percepts."""
import time

import pytest
from conftest import SHARED, needs_shared

import players
from ggp import load_game
from matches.manager import run_match
from players import Player


class Crashing(Player):
    name = "crashing"

    def select(self, legal, deadline):
        raise RuntimeError("boom")


class Illegal(Player):
    name = "illegal"

    def select(self, legal, deadline):
        return ("mark", "9", "9")


class Silent(Player):
    name = "silent"

    def select(self, legal, deadline):
        return None


class Spy(players.RandomPlayer):
    """Records every observation it is given."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.seen = []

    def play(self, obs):
        self.seen.append(obs)
        return super().play(obs)


@pytest.mark.parametrize("faulty, code", [(Crashing, "CE"), (Illegal, "IL (mark 9 9)"),
                                          (Silent, "IL nil")])
def test_faulty_player_gets_a_legal_move(faulty, code):
    game = load_game("tictactoe")
    record = run_match(game, {"xplayer": faulty(), "oplayer": players.make("random:seed=1")},
                       seed=5)
    assert record.goals and set(record.goals) == {"xplayer", "oplayer"}
    x_turns = [e[0] for e in record.errors if e[0]]
    assert x_turns and all(e == code for e in x_turns)
    sm = game.state_machine()
    s = sm.initial_state()
    for joint in record.moves:          # every move actually played was legal
        s = sm.next_state(s, joint)
    assert sm.is_terminal(s)


def test_gdl1_players_get_the_joint_move():
    game = load_game("tictactoe")
    spy = Spy(seed=2)
    record = run_match(game, {"xplayer": spy, "oplayer": players.make("legal")}, seed=1)
    assert spy.seen[0].joint is None
    assert [o.joint for o in spy.seen[1:]] == record.moves[:len(spy.seen) - 1]
    assert all(o.percepts is None for o in spy.seen)


@needs_shared()
def test_gdl2_players_see_only_their_percepts():
    game = load_game(SHARED / "gdl2" / "montyhall.kif")
    spy = Spy(seed=4)
    record = run_match(game, {"candidate": spy}, seed=9)
    sm = game.state_machine()
    s = sm.initial_state()
    for obs, joint in zip(spy.seen[1:], record.moves):
        assert obs.joint is None
        assert obs.own_move == joint[sm.roles.index("candidate")]
        assert obs.percepts == sm.percepts(s, joint, "candidate")
        s = sm.next_state(s, joint)
    assert record.goals["candidate"] in (0, 100)
    assert all(e == ["", ""] for e in record.errors)


def test_registry_specs():
    assert players.parse_spec("mast:policy=gibbs,tau=10") == ("mast", {"policy": "gibbs",
                                                                        "tau": "10"})
    assert players.make("mast:policy=gibbs,tau=10").tau == 10.0
    assert players.make("random:seed=3").rng.random() == players.make("random:seed=3").rng.random()
    with pytest.raises(ValueError, match="unknown player"):
        players.make("nobody")
    with pytest.raises(ValueError, match="player random: unknown parameter depth; known: "
                                         "reasoner, seed"):
        players.make("random:depth=3")
    with pytest.raises(ValueError, match="not key=value"):
        players.make("random:seed")


class ClockUser(Player):
    """Uses its whole play clock, as a search player on the clock does."""

    name = "clock-user"
    on_clock = True

    def select(self, legal, deadline):
        time.sleep(max(0.0, deadline - time.monotonic() - 0.05))
        return legal[0]


def test_local_players_on_the_clock_are_asked_at_once():
    game = load_game("rps")
    record = run_match(game, {"left": ClockUser(), "right": ClockUser()}, seed=1,
                       start_clock=1, play_clock=1)
    times = record.state_times[1:]
    steps = [b - a for a, b in zip(times, times[1:])]
    assert len(steps) == 2 and all(0.8 < s < 1.5 for s in steps), steps   # not 2 s
    assert not record.faults


def test_budgeted_local_players_are_asked_in_the_managers_thread():
    # nothing to wait for: no thread round (they cost more than a tictactoe move)
    assert not players.make("uct:simulations=10").on_clock
    assert players.make("uct").on_clock and not players.make("random").on_clock
