"""The MCTS players (players/mcts.py): they find forced wins, are reproducible
under a simulation budget, and answer within the play clock."""
import time

import pytest
from conftest import SHARED, needs_shared

from ggp import load_game
from ggp.game import games_dir
from matches.manager import run_match
from players import Observation, make

#: Tic-tac-toe from a position where x, to move, wins in two only by (mark 1 3):
#:   x . .      (mark 1 3) threatens row 1 and column 3 at once (and blocks
#:   . o .      o's diagonal 3,1 - 2,2 - 1,3); any other x move lets o win.
#:   o . x
POSITION = {(1, 1): "x", (2, 2): "o", (3, 1): "o", (3, 3): "x"}


def fork_game():
    text = (games_dir() / "tictactoe.kif").read_text()
    for (r, c), mark in POSITION.items():
        text = text.replace(f"(init (square {r} {c} e))", f"(init (square {r} {c} {mark}))")
    assert sum(f"(init (square {r} {c} {m}))" in text for (r, c), m in POSITION.items()) == 4
    return load_game(text)


def winning_moves(sm, state, me):
    """Moves of ``me`` that force a win within two of its moves (exhaustive)."""
    def wins(state, plies):
        if sm.is_terminal(state):
            return sm.goal(state, me) == 100
        if plies == 0:
            return False
        legal = sm.all_legal_moves(state)
        mine = sm.roles.index(me)
        options = [j for j in sm.joint_moves(state)]
        if len(legal[mine]) > 1:       # our turn: some move wins
            return any(wins(sm.next_state(state, j), plies - 1) for j in options)
        return all(wins(sm.next_state(state, j), plies - 1) for j in options)
    me_i = sm.roles.index(me)
    return [j[me_i] for j in sm.joint_moves(state) if wins(sm.next_state(state, j), 3)]


@pytest.mark.parametrize("spec", ["uct", "mast", "nst", "lgr"])
def test_finds_the_forced_win_in_two(spec):
    game = fork_game()
    sm = game.state_machine("reference")
    assert winning_moves(sm, sm.initial_state(), "xplayer") == [("mark", "1", "3")]
    player = make(f"{spec}:simulations=3000,seed=7")
    player.start(game, "xplayer", 10, 10)
    assert player.play(Observation()) == ("mark", "1", "3")


def test_finds_the_forced_win_on_the_reference_reasoner_too():
    game = fork_game()
    player = make("uct:simulations=3000,seed=7,reasoner=reference")
    player.start(game, "xplayer", 10, 10)
    assert player.play(Observation()) == ("mark", "1", "3")


@pytest.mark.parametrize("spec", ["uct", "mast:policy=gibbs,tau=10", "nst:transpositions=true",
                                  "lgr:fallback=mast,final=average"])
def test_a_match_is_reproducible_move_for_move(spec):
    game = load_game("connectfour")

    def play(seed=3):
        sep = "," if ":" in spec else ":"
        players = {"red": make(f"{spec}{sep}simulations=60,seed={seed}"),
                   "black": make("uct:simulations=60,seed=4")}
        return run_match(game, players, seed=5)

    first = play()
    play(seed=99)       # the shared state machine goes through other states meanwhile
    second = play()
    assert first.moves == second.moves and first.goals == second.goals
    assert len(first.moves) >= 7


def test_different_seeds_give_different_matches():
    game = load_game("connectfour")
    records = [run_match(game, {"red": make(f"uct:simulations=30,seed={s}"),
                                "black": make(f"uct:simulations=30,seed={s + 10}")})
               for s in (1, 2)]
    assert records[0].moves != records[1].moves


def test_simulation_budget_is_exact_and_statistics_add_up():
    game = load_game("tictactoe")
    player = make("uct:simulations=500,seed=1")
    player.start(game, "xplayer", 10, 10)
    player.play(Observation())
    assert player.last_simulations == 500
    stats = player.root_statistics()
    assert sum(v for v, _ in stats.values()) == 500
    assert all(0 <= q <= 100 for _, q in stats.values())


def test_tree_is_kept_between_turns():
    game = load_game("tictactoe")
    player = make("uct:simulations=400,seed=1")
    player.start(game, "xplayer", 10, 10)
    move = player.play(Observation())
    child = next(c for j, c in player.root.children.items()
                 if player.search.move(0, j[0]) == move)
    joint = (move, "noop")
    player.play(Observation(turn=1, joint=joint))
    assert player.root is child
    assert player.root.n > 0


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="final"):
        make("uct:final=best")
    with pytest.raises(ValueError, match="simulations"):
        make("uct:simulations=0")


@needs_shared()
def test_answers_within_a_one_second_play_clock_for_100_moves():
    game = load_game(SHARED / "gdl1" / "breakthrough.kif")
    late = []
    moves = 0
    while moves < 100:
        player = make("uct:seed=1")
        opponent = make("random:seed=2")
        answers = []
        original = player.play

        def play(obs, original=original):
            started = time.monotonic()
            move = original(obs)
            answers.append(time.monotonic() - started)
            return move
        player.play = play
        record = run_match(game, {"white": player, "black": opponent}, seed=moves,
                           start_clock=2.0, play_clock=1.0)
        assert not [step[0] for step in record.errors if step[0]], record.errors
        late += [t for t in answers if t > 1.0]
        moves += len(answers)
    assert late == [] and moves >= 100
