"""The knowledge a player switches on per game at the start clock
(players.perfect.choice, the ``auto`` option of ``uct``)."""

import logging
import math

import pytest
from conftest import SHARED, needs_shared

from ggp import load_game
from players import make
from players.perfect.choice import CAPTURES, choose


def machine(name):
    return load_game(name).state_machine("compiled")


def test_a_race_with_captures_gets_capture_first_playouts():
    """breakthrough: the rules give the pawns a distance to the goal and
    random play shows moves that win at once, so the playouts win, defend
    and take; what was learned on the way is handed over."""
    choice = choose(machine("breakthrough"), seed=0)
    assert choice.settings == CAPTURES
    victims, wins, threats = choice.lessons
    assert wins and threats and any(victims)
    assert choice.evaluation is not None and "win at once" in choice.reason


@pytest.mark.parametrize(
    ("game", "why"),
    [
        ("connectfour", "no piece in the rules has a distance to a goal"),
        ("tictactoe", "no move wins at once in random play (0 moves take pieces)"),
    ],
)
def test_games_without_pieces_racing_to_a_goal_get_nothing(game, why):
    """connect four: every disc is at distance 0 from a line, nothing to
    weigh; tic-tac-toe: no mark wins every time it is made."""
    choice = choose(machine(game), seed=0)
    assert choice.settings == {} and choice.reason == why


@needs_shared()
def test_checkers_captures_but_no_move_wins_at_once_so_nothing():
    """checkers' goal counts pieces at the end: no move wins at once, and
    capture-first playouts were not a gain there (docs/players.md)."""
    choice = choose(load_game(SHARED / "gdl1" / "checkers.kif").state_machine("compiled"), seed=0)
    assert choice.settings == {} and choice.reason.startswith("no move wins at once")


def test_random_play_out_of_time_switches_nothing_on():
    choice = choose(machine("breakthrough"), seed=0, until=-math.inf)
    assert choice.settings == {} and "took too long" in choice.reason


def started(spec, game):
    g = load_game(game)
    player = make(spec)
    player.start(g, g.roles[0], 10, 10)
    return player


def test_uct_decides_per_game_and_says_so(caplog):
    """``uct`` (auto on by default) turns capture-first playouts on for
    breakthrough with one log line, and off again for the next game of the
    same player; ``auto=false`` is plain UCT."""
    with caplog.at_level(logging.INFO, logger="players"):
        player = started("uct:simulations=10,seed=1", "breakthrough")
    assert (player.greedy, player.defend, player.fit) == (1.0, True, "rules")
    assert any(
        "greedy=1.0,defend=True,fit=rules for breakthrough" in r.message for r in caplog.records
    )
    g = load_game("connectfour")
    player.start(g, g.roles[0], 10, 10)
    assert (player.greedy, player.defend, player.fit) == (0.0, False, "playouts")
    assert player.chosen.settings == {}
    plain = started("uct:simulations=10,seed=1,auto=false", "breakthrough")
    assert plain.greedy == 0.0 and plain.chosen is None


@pytest.mark.parametrize(
    "options", ["greedy=0.5,fit=rules", "heuristic=0.5", "imm=0.2,fit=rules", "leaf=64"]
)
def test_what_is_given_is_kept(options):
    player = started(f"uct:simulations=10,seed=1,{options}", "breakthrough")
    assert player.chosen is None
    assert player.greedy == (0.5 if "greedy" in options else 0.0)


def test_the_learning_players_do_not_decide():
    player = started("mast:simulations=10,seed=1", "breakthrough")
    assert player.chosen is None and player.greedy == 0.0
