"""Local matches: faulty players get a legal move and the fault is logged;
GDL-II players see only their own move and percepts; a compiled build
slower than the start clock."""

import logging
import threading
import time
from pathlib import Path

import pytest
from conftest import SHARED, needs_shared

import players
from ggp import load_game
from matches.manager import run_match
from matches.records import replay, to_ggp_json
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


@pytest.mark.parametrize(
    "faulty, code", [(Crashing, "CE"), (Illegal, "IL (mark 9 9)"), (Silent, "IL nil")]
)
def test_faulty_player_gets_a_legal_move(faulty, code):
    game = load_game("tictactoe")
    record = run_match(
        game, {"xplayer": faulty(), "oplayer": players.make("random:seed=1")}, seed=5
    )
    assert record.goals and set(record.goals) == {"xplayer", "oplayer"}
    x_turns = [e[0] for e in record.errors if e[0]]
    assert x_turns and all(e == code for e in x_turns)
    sm = game.state_machine()
    s = sm.initial_state()
    for joint in record.moves:  # every move actually played was legal
        s = sm.next_state(s, joint)
    assert sm.is_terminal(s)


def test_gdl1_players_get_the_joint_move():
    game = load_game("tictactoe")
    spy = Spy(seed=2)
    record = run_match(game, {"xplayer": spy, "oplayer": players.make("legal")}, seed=1)
    assert spy.seen[0].joint is None
    assert [o.joint for o in spy.seen[1:]] == record.moves[: len(spy.seen) - 1]
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
    assert players.parse_spec("mast:policy=gibbs,tau=10") == (
        "mast",
        {"policy": "gibbs", "tau": "10"},
    )
    assert players.make("mast:policy=gibbs,tau=10").tau == 10.0
    assert players.make("random:seed=3").rng.random() == players.make("random:seed=3").rng.random()
    with pytest.raises(ValueError, match="unknown player"):
        players.make("nobody")
    with pytest.raises(
        ValueError, match="player random: unknown parameter depth; known: reasoner, seed"
    ):
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
    record = run_match(
        game, {"left": ClockUser(), "right": ClockUser()}, seed=1, start_clock=1, play_clock=1
    )
    times = record.state_times[1:]
    steps = [b - a for a, b in zip(times, times[1:])]
    assert len(steps) == 2 and all(0.8 < s < 1.5 for s in steps), steps  # not 2 s
    assert not record.faults


def test_budgeted_local_players_are_asked_in_the_managers_thread():
    # nothing to wait for: no thread round (they cost more than a tictactoe move)
    assert not players.make("uct:simulations=10").on_clock
    assert players.make("uct").on_clock and not players.make("random").on_clock


# --- every answer on time, whatever the reasoner is doing ---------------------------------


def slow_game(cells: int):
    """Two roles taking turns for three steps, where every state asks for a
    transitive closure over a chain of ``cells`` numbers before its legal
    moves: a reasoner made slow on purpose (at 250, seconds a state on the
    reference reasoner, minutes on the demand-driven one)."""
    chain = " ".join(f"(succ {i} {i + 1})" for i in range(cells))
    return load_game(f"""(role a) (role b) {chain}
        (init (step 0)) (init (control a))
        (<= (reach ?x ?y) (true (step ?s)) (succ ?x ?y))
        (<= (reach ?x ?z) (reach ?x ?y) (succ ?y ?z))
        (<= slow (reach 0 ?y) (reach ?y {cells}))
        (<= (legal ?r go) (true (control ?r)) slow) (<= (legal ?r stay) (true (control ?r)) slow)
        (<= (legal a noop) (true (control b))) (<= (legal b noop) (true (control a)))
        (<= (next (control b)) (true (control a))) (<= (next (control a)) (true (control b)))
        (<= (next (step 1)) (true (step 0))) (<= (next (step 2)) (true (step 1)))
        (<= (next (step 3)) (true (step 2))) (<= terminal (true (step 3)))
        (goal a 50) (goal b 50)""")


@pytest.mark.parametrize("reasoner", ["reference", "demand"])
def test_every_answer_comes_before_the_deadline_on_a_slow_reasoner(reasoner, caplog):
    """A state's questions take longer than the play clock: each player gives
    them up at its deadline (ggp.Interrupted) and answers a legal move in
    time, with one warning a match; none is late."""
    game = slow_game(250)
    specs = {"a": f"uct:reasoner={reasoner}", "b": f"random:reasoner={reasoner}"}
    with caplog.at_level(logging.WARNING, logger="players"):
        record = run_match(
            game,
            {r: players.make(s) for r, s in specs.items()},
            seed=1,
            start_clock=1,
            play_clock=0.5,
            reasoner="reference",  # the manager's own: it is not on the clock
        )
    assert record.faults == [] and len(record.moves) == 3
    said = [r.getMessage() for r in caplog.records if "by the deadline" in r.getMessage()]
    assert 1 <= len(said) <= 2  # once a player
    assert len({m.split(": ")[1] for m in said}) == len(said)
    assert all(
        "playing a legal move at random" in m or "at START; it follows the game from" in m
        for m in said
    )


class Overrunning(Player):
    """Overruns its first turn by 0.3 s in a step no reasoner check covers,
    and keeps the deadline each turn gives it."""

    name = "overrunning"

    def __init__(self, **kw):
        super().__init__(**kw)
        self.deadlines = []

    def select(self, legal, deadline):
        self.deadlines.append(deadline)
        if len(self.deadlines) == 1:
            time.sleep(max(0.0, deadline - time.monotonic()) + 0.3)
        return legal[0]


def test_the_margin_grows_by_the_slowest_overrun():
    """An overrun past the instant a turn's questions are given up (the
    deadline less the margin, 0.05 s here) is kept back from later deadlines:
    the second turn's answer is due about 0.3 s earlier."""
    from players.base import ANSWER_MARGIN

    game = load_game("rps")
    player = Overrunning()
    player.start(game, "left", 10, 2)
    for turn in range(2):
        deadline = time.monotonic() + 1.0
        legal = tuple(player.sm.legal_moves(player.position(), "left"))
        joint = None if turn == 0 else (legal[0], legal[0])
        player.play(players.Observation(turn=turn, joint=joint, deadline=deadline, legal=legal))
        early = deadline - player.deadlines[-1]
    kept = (
        0.3 + ANSWER_MARGIN - ANSWER_MARGIN / 2
    )  # the overrun past the instant, less half the margin
    assert kept - 0.02 < early < kept + 0.1, early


def test_one_margin_rule_for_every_player():
    """A turn stops thinking at its deadline less the player's margin: the one
    parameter the search and solving players declare, else ANSWER_MARGIN."""
    from players.base import ANSWER_MARGIN, MARGIN
    from players.registry import player_class

    assert players.make("uct:margin=0.3").think_until(10.0) == 10.0 - 0.3
    assert players.make("mccfr:margin=0.2").think_until(10.0) == 10.0 - 0.2
    assert players.make("random").think_until(10.0) == 10.0 - ANSWER_MARGIN
    for name in ("uct", "ismcts", "mccfr", "nfsp"):
        assert MARGIN in player_class(name).params


@pytest.mark.parametrize("reasoner", ["reference", "demand"])
def test_a_question_given_up_leaves_the_machine_as_if_not_asked(reasoner):
    from ggp import Interrupted

    game = slow_game(20)
    sm = game.state_machine(reasoner)
    root = sm.initial_state()
    sm.deadline = time.monotonic()
    with pytest.raises(Interrupted, match="given up at the deadline"):
        sm.legal_moves(root, "a")
    sm.deadline = float("inf")
    assert sm.legal_moves(root, "a") == ["go", "stay"]
    after = sm.next_state(root, ("go", "noop"))
    assert after == game.state_machine(reasoner).next_state(root, ("go", "noop"))


# --- a compiled build slower than the start clock -------------------------------------


def _held_match(game, specs, held_build, release_after, **clocks):
    """A match whose compiled build is released after ``release_after`` steps;
    its record and JSON."""

    def on_step(record, sm, state):
        if len(record.moves) == release_after:
            held_build.set()

    record = run_match(
        game, {r: players.make(s) for r, s in specs.items()}, seed=1, on_step=on_step, **clocks
    )
    return record, to_ggp_json(record)


def _moved_to_compiled(reasoners, first_steps: int) -> bool:
    """The first steps' moves on the fallback, the last ones' on the compiled
    reasoner, and never back."""
    kinds = [set(step) for step in reasoners]
    switched = [i for i, k in enumerate(kinds) if k == {"compiled"}]
    return (
        all(k == {"demand"} for k in kinds[:first_steps])
        and switched
        and switched == list(range(switched[0], len(kinds)))
    )


def test_a_build_slower_than_the_start_clock(held_build, caplog):
    """START does not wait for the compiled build: players on the clock and
    the manager follow the match on the demand-driven reasoner, then move to
    the compiled one; the record says which reasoner each move came from."""
    caplog.set_level(logging.INFO)
    game = load_game("tictactoe")
    record, data = _held_match(
        game,
        {"xplayer": "uct:seed=1", "oplayer": "uct:seed=2"},
        held_build,
        2,
        start_clock=1,
        play_clock=1,
    )
    start_and_first_step = record.state_times[1] - record.state_times[0]
    assert start_and_first_step < 2.5  # the two clocks, not the build
    assert not record.faults and record.goals
    assert _moved_to_compiled(data["reasoners"], 2), data["reasoners"]
    assert "the manager follows the match on the demand-driven reasoner" in caplog.text
    assert "the compiled reasoner is ready; the manager moved to it" in caplog.text
    for role in game.roles:
        assert f"role {role} searches on the demand-driven reasoner meanwhile" in caplog.text
        assert f"role {role} moved to it at turn" in caplog.text
    assert replay(data).ok


def test_a_gdl2_player_replays_its_percepts_on_the_compiled_reasoner(held_build):
    """Phantom tic-tac-toe: each role rebuilds its belief on the compiled
    reasoner from its own moves and percepts, and plays on with no fault."""
    game = load_game("phantomttt")
    record, data = _held_match(
        game,
        {"xplayer": "ismcts:seed=1", "oplayer": "ismcts:seed=2"},
        held_build,
        3,
        start_clock=1,
        play_clock=0.5,
    )
    assert not record.faults and record.goals
    assert _moved_to_compiled(data["reasoners"], 3), data["reasoners"]
    assert replay(data).ok


def test_a_player_not_on_the_clock_waits_for_the_build(held_build):
    """A budgeted player's moves must not depend on when a build ends: the
    manager waits for the build before START, and every move is compiled."""
    game = load_game("tictactoe")
    threading.Timer(1.5, held_build.set).start()
    record, data = _held_match(
        game,
        {"xplayer": "uct:simulations=20,seed=1", "oplayer": "uct"},
        held_build,
        -1,
        start_clock=1,
        play_clock=1,
    )
    assert not record.faults
    assert all(step == ["compiled", "compiled"] for step in data["reasoners"])
    assert record.state_times[0] - record.start_time >= 1.4  # the wait came before START


#: A GDL-II game with a ``random`` role and no ``sees``: nobody sees anything.
#: Its two turns flip every step, so the compiled reasoner splits its kernel
#: by them (ggp.reasoners.compiled, "Split by control").
BLIND = """
(role random) (role first) (role second)
(player first) (player second) (other first second) (other second first)
(card 1) (card 2) (card 3)
(succ 0 1) (succ 1 2) (succ 2 3)
(init (control random)) (init (round 0))
(<= (legal random (draw ?c)) (true (control random)) (card ?c))
(<= (legal random noop) (true (control players)))
(<= (legal ?p (guess ?c)) (player ?p) (true (control players)) (card ?c))
(<= (legal ?p noop) (player ?p) (true (control random)))
(<= (next (control players)) (true (control random)))
(<= (next (control random)) (true (control players)))
(<= (next (drawn ?c)) (does random (draw ?c)))
(<= (next (hit ?p ?n)) (true (hit ?p ?n)))
(<= (next (hit ?p ?n)) (true (drawn ?c)) (does ?p (guess ?c)) (true (round ?n)))
(<= (next (round ?m)) (true (round ?n)) (true (control players)) (succ ?n ?m))
(<= (next (round ?n)) (true (round ?n)) (true (control random)))
(<= (hits ?p) (true (hit ?p ?n)))
(<= terminal (true (round 3)))
(<= (goal ?p 100) (other ?p ?q) (hits ?p) (not (hits ?q)))
(<= (goal ?p 0) (other ?p ?q) (not (hits ?p)) (hits ?q))
(<= (goal ?p 50) (other ?p ?q) (hits ?p) (hits ?q))
(<= (goal ?p 50) (other ?p ?q) (not (hits ?p)) (not (hits ?q)))
(<= (goal random 0))
"""


@pytest.fixture(scope="module")
def blind():
    return load_game(BLIND)


@pytest.mark.parametrize("name", players.names())
def test_every_player_plays_a_gdl2_game_without_sees_on_a_split_kernel(name, blind):
    """A player's belief reads percepts on a kernel split by control (whose
    networks number their nodes differently), which once refused them."""
    game = blind
    assert game.state_machine().controls, "the kernel is split"
    for budget in ("iterations=30", "simulations=30", ""):
        try:
            player = players.make(f"{name}:seed=1,{budget}")
            break
        except ValueError:
            continue
    record = run_match(
        game,
        {"first": player, "second": players.make("random:seed=2")},
        seed=1,
        start_clock=0.5,
        play_clock=0.3,
    )
    assert record.faults == [] and len(record.moves) == 6
    assert sum(record.goals.values()) == 100


#: A game whose terminal is never reached: two roles flip a light forever.
ENDLESS = """
(role a) (role b)
(init (off))
(<= (legal ?r flip) (role ?r))
(<= (next (on)) (true (off)))
(<= (next (off)) (true (on)))
(<= terminal (true (never)))
(<= (goal ?r 50) (role ?r))
"""


class Aborted(players.RandomPlayer):
    """Counts the ABORTs and STOPs it gets."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.aborts = self.stops = 0

    def abort(self):
        self.aborts += 1

    def stop(self, obs=None):
        self.stops += 1


def test_a_match_that_never_ends_is_aborted_at_the_step_cap():
    """``_play`` stops at the step cap: a game never over once ran until the
    memory was gone."""
    game = load_game(ENDLESS)
    seats = {"a": Aborted(seed=1), "b": Aborted(seed=2)}
    record = run_match(game, seats, seed=1, max_steps=25)
    assert len(record.moves) == 25 and len(record.states) == 26
    assert record.goals == {}
    assert record.aborted == "the game did not end within 25 steps (the manager's step cap)"
    assert all(p.aborts == 1 and p.stops == 0 for p in seats.values())
    data = to_ggp_json(record)
    assert data["isAborted"] is True and data["isCompleted"] is False
    assert data["abortReason"] == record.aborted and data["goalValues"] == [None, None]
    report = replay(data)
    assert report.ok and report.lines[-1] == f"aborted: {record.aborted}"


class Last(Aborted):
    """Plays its last legal move."""

    def select(self, legal, deadline):
        return legal[-1]


@pytest.mark.parametrize(
    "path, reason",
    [
        (
            "tests/invalid/play/goal_none.kif",
            "the rules broke at step 1: role b has no goal values in a terminal state; "
            "GDL requires exactly one",
        ),
        (
            "tests/invalid/play/legal_none.kif",
            "the rules broke at step 1: role a has no legal move in a reachable non-terminal state",
        ),
    ],
)
def test_a_match_whose_rules_break_in_play_is_aborted_with_its_moves(path, reason):
    """chess.kif has no goal after its 200th move; the manager, which once
    raised there and lost 200 moves, keeps them in the record and says why
    it ended, every player gets ABORT, and the replay agrees."""
    game = load_game(Path(__file__).parent.parent / path)
    seats = {r: Last(seed=i) for i, r in enumerate(game.roles)}  # goal_none: a plays right
    record = run_match(game, seats, seed=1)
    assert record.aborted == reason and record.goals == {} and len(record.moves) == 1
    assert all(p.aborts == 1 and p.stops == 0 for p in seats.values())
    data = to_ggp_json(record)
    assert data["isAborted"] is True and data["goalValues"] == [None] * len(game.roles)
    report = replay(data)
    assert report.ok and report.lines[-1] == f"aborted: {reason}"


def test_a_match_that_ends_is_not_aborted():
    record = run_match(
        load_game("tictactoe"),
        {r: players.make("legal") for r in ("xplayer", "oplayer")},
        max_steps=9,
    )
    data = to_ggp_json(record)
    assert record.aborted == "" and data["isAborted"] is False and data["abortReason"] is None
    with pytest.raises(ValueError, match="max_steps must be an integer >= 1"):
        run_match(load_game("tictactoe"), {}, max_steps=0)
