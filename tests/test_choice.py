"""The knowledge a player switches on per game at the start clock
(players.perfect.choice, the ``auto`` option of ``uct``)."""

import logging
import math

import pytest
from conftest import SHARED, needs_shared

from ggp import load_game
from players import make
from players.perfect.choice import CAPTURES, choose, goal_spread


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
        ("connectfour", "no piece in the rules has a distance to a goal; the goals differ"),
        ("tictactoe", "no move wins at once in random play (0 moves take pieces); the goals"),
    ],
)
def test_games_without_pieces_racing_to_a_goal_or_goals_on_the_way_get_nothing(game, why):
    """connect four: every disc is at distance 0 from a line, nothing to
    weigh; tic-tac-toe: no mark wins every time it is made; and in neither
    do the goals differ between the players before a line is made."""
    choice = choose(machine(game), seed=0)
    assert choice.settings == {} and choice.reason.startswith(why)
    assert choice.reason.endswith("into 0% of random games")


def test_goals_that_differ_on_the_way_score_playouts_cut_early(tmp_path):
    """The six-step counting game (tests/test_mcts.py): every random game
    lasts 6 plies, so the cut is a quarter of that, 2 plies (rounded), where
    a's goal is 10 a count and b's 0: they differ unless a has not counted
    yet, in about three games of four."""
    from test_mcts import COUNTING

    path = tmp_path / "counting.kif"
    path.write_text(COUNTING)
    sm = load_game(path).state_machine("compiled")
    choice = choose(sm, seed=0)
    assert choice.settings == {"early": 2}
    plies, share = goal_spread(sm, seed=0)
    assert plies == 2 and 0.6 <= share <= 0.9
    assert f"2 plies into {share:.0%} of random games" in choice.reason


@needs_shared()
def test_checkers_captures_but_no_move_wins_at_once_and_its_goals_count_pieces():
    """checkers' goal compares the piece counts: no move wins at once, and
    the goals differ between the roles in most random games a quarter of the
    way through, so playouts are cut there and scored by the goals."""
    choice = choose(load_game(SHARED / "gdl1" / "checkers.kif").state_machine("compiled"), seed=0)
    assert list(choice.settings) == ["early"]
    assert choice.reason.startswith("no move wins at once")


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
    assert (player.greedy, player.defend, player.fit, player.early) == (0.0, False, "playouts", 0)
    assert player.chosen.settings == {}
    plain = started("uct:simulations=10,seed=1,auto=false", "breakthrough")
    assert plain.greedy == 0.0 and plain.chosen is None


def test_uct_cuts_playouts_where_it_chose_to(tmp_path):
    from test_mcts import COUNTING

    path = tmp_path / "counting.kif"
    path.write_text(COUNTING)
    player = started("uct:simulations=10,seed=1", path)
    assert player.early == 2 and player.greedy == 0.0
    assert started("uct:simulations=10,seed=1,early=4", path).early == 4  # given: kept


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
