"""The knowledge a player switches on per game at the start clock
(players.perfect.choice, the ``auto`` option of ``uct``)."""

import logging
import math

import pytest
from conftest import SHARED, needs_shared

from ggp import load_game
from players import make
from players.perfect.choice import CAPTURES, CUT, NGRAMS, choose, goal_samples
from players.perfect.rules import line_evaluation


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
        ("connectfour", "no piece in the rules has a distance to a goal; "),
        ("tictactoe", "no move wins at once in random play (0 moves take pieces); "),
    ],
)
def test_games_without_pieces_racing_to_a_goal_or_goals_on_the_way_get_learned_playouts(game, why):
    """connect four: every disc is at distance 0 from a line, nothing to
    weigh; tic-tac-toe: no mark wins every time it is made; and in neither
    do the goals differ between the players before a line is made: the
    playouts learn which moves win (N-grams) instead."""
    choice = choose(machine(game), seed=0)
    assert choice.settings == NGRAMS and choice.reason.startswith(why)
    assert "differ between the roles in 0% of them" in choice.reason


def test_goals_that_differ_on_the_way_score_playouts_cut_early(tmp_path):
    """The six-step counting game (tests/test_mcts.py): every random game
    lasts 6 plies, so the cut is a quarter of that, 2 plies (rounded), where
    a's goal is 10 a count and b's 0: they differ unless a has not counted
    yet (about one game in four), and a count of 1 is the commonest set of
    goals, in fewer than 90% of the games."""
    from test_mcts import COUNTING

    path = tmp_path / "counting.kif"
    path.write_text(COUNTING)
    sm = load_game(path).state_machine("compiled")
    choice = choose(sm, seed=0)
    assert choice.settings == {"early": 2}
    plies, goals, ends = goal_samples(sm, seed=0)
    assert plies == 2 and len(goals) == len(ends) == 100
    assert all(end[0] >= goal[0] for goal, end in zip(goals, ends))  # a count never falls
    assert set(goals) == {(0, 0), (10, 0), (20, 0)}
    assert 0.6 <= sum(g != (0, 0) for g in goals) / 100 <= 0.9
    assert max(set(goals), key=goals.count) == (10, 0) and goals.count((10, 0)) <= 90


TURNS = """(role a) (role b)
(init (control a)) (init (step 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(<= (legal ?r go) (true (control ?r))) (<= (legal ?r wait) (true (control ?r)))
(<= (legal a noop) (true (control b))) (<= (legal b noop) (true (control a)))
(<= (next (control b)) (true (control a))) (<= (next (control a)) (true (control b)))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= terminal (true (step 6)))
(<= (goal a 100) (true (control b))) (<= (goal a 0) (true (control a)))
(<= (goal b 100) (true (control a))) (<= (goal b 0) (true (control b)))"""


def test_goals_read_from_whose_turn_it_is_do_not_score_playouts(tmp_path):
    """A goal that only says whose turn it is (amazons' files give the
    player to move 0) differs between the roles in every game but is the same
    in every game: it says nothing of the position, so no early cutoffs."""
    path = tmp_path / "turns.kif"
    path.write_text(TURNS)
    choice = choose(load_game(path).state_machine("compiled"), seed=0)
    assert choice.settings == NGRAMS
    assert "differ between the roles in 100% of them, 100% have the same ones" in choice.reason


def test_goals_that_do_not_foretell_the_end_do_not_score_playouts(tmp_path):
    """The counting game with a's goal 100 on an odd count and b's on an
    even one: two plies in the goals differ and vary from game to game, but
    four more random plies make the parity a coin toss, so who leads at the
    cut wins about half the time: no early cutoffs (reversi's disc count a
    quarter of the way through is like this, and scored 0 of 12 with them)."""
    from test_mcts import COUNTING

    rules = COUNTING[: COUNTING.index("(<= (goal a 0)")]
    rules += """(odd 1) (odd 3) (odd 5) (even 0) (even 2) (even 4) (even 6)
(<= (goal a 100) (true (count ?n)) (odd ?n)) (<= (goal a 0) (true (count ?n)) (even ?n))
(<= (goal b 100) (true (count ?n)) (even ?n)) (<= (goal b 0) (true (count ?n)) (odd ?n))"""
    path = tmp_path / "parity.kif"
    path.write_text(rules)
    choice = choose(load_game(path).state_machine("compiled"), seed=0)
    assert choice.settings == NGRAMS
    share = int(choice.reason.split("who leads there wins in ")[1].split("%")[0])
    assert 30 <= share <= 66 and "differ between the roles in 100% of them" in choice.reason


@needs_shared()
def test_checkers_captures_but_no_move_wins_at_once_and_its_goals_count_pieces():
    """checkers' goal compares the piece counts: no move wins at once, and
    the goals differ between the roles in most random games a quarter of the
    way through, so playouts are cut there and scored by the goals."""
    choice = choose(load_game(SHARED / "gdl1" / "checkers.kif").state_machine("compiled"), seed=0)
    assert list(choice.settings) == ["early"]
    assert choice.reason.startswith("no move wins at once")


@needs_shared()
@pytest.mark.parametrize(
    ("game", "cut"),
    [("connect5", True), ("connectFour", False), ("nineBoardTicTacToe", False)],
)
def test_long_games_of_lines_get_playouts_cut_and_scored_by_the_lines(game, cut):
    """connect5 (five in a row on 8 x 8): lines of five, random games about 46
    plies long, so playouts stop after 8 plies, scored by the open lines;
    connect four has lines of four but random games of about 22 plies, and
    nine-board tic-tac-toe lines of three: not for them."""
    sm = load_game(SHARED / "gdl1" / f"{game}.kif").state_machine("compiled")
    choice = choose(sm, seed=0)
    assert "the goal has lines of" in choice.reason
    if cut:
        assert choice.settings == {"fit": "lines", "cutoff": CUT}
        assert choice.evaluation[3] == line_evaluation(sm)[3]
    else:
        assert choice.settings == NGRAMS


@needs_shared()
def test_uct_cuts_playouts_by_the_lines_then_not_in_the_next_game():
    player = started("uct:simulations=10,seed=1", SHARED / "gdl1" / "connect5.kif")
    assert (player.fit, player.cutoff, len(player.evaluation)) == ("lines", CUT, 4)
    g = load_game("connectfour")
    player.start(g, g.roles[0], 600, 10)
    assert (player.fit, player.cutoff, player.evaluation) == ("playouts", 0, None)
    assert player.playout == "nst"
    given = started("uct:simulations=10,seed=1,cutoff=4", SHARED / "gdl1" / "connect5.kif")
    assert given.chosen is None and given.cutoff == 4 and given.fit == "playouts"


def test_a_game_over_before_the_cut_gets_only_learned_playouts():
    """brps ends after one joint move: no random game is still going at the
    cut, so there are no goals to read."""
    choice = choose(machine("brps"), seed=0)
    assert choice.settings == NGRAMS and choice.reason.endswith("random games end within 1 ply")


def test_random_play_out_of_time_switches_only_learned_playouts_on():
    """The playouts learn without the random play that the other choices
    read; breakthrough would have had capture-first playouts."""
    choice = choose(machine("breakthrough"), seed=0, until=-math.inf)
    assert choice.settings == NGRAMS and "took too long" in choice.reason


def started(spec, game):
    g = load_game(game)
    player = make(spec)
    player.start(g, g.roles[0], 600, 10)  # the decision may take a quarter of the start clock
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
    player.start(g, g.roles[0], 600, 10)
    assert (player.greedy, player.defend, player.fit, player.early) == (0.0, False, "playouts", 0)
    assert player.chosen.settings == NGRAMS
    plain = started("uct:simulations=10,seed=1,auto=false", "breakthrough")
    assert plain.greedy == 0.0 and plain.chosen is None


def test_uct_learns_its_playouts_where_nothing_else_is_chosen(caplog):
    """connect four: the ``nst`` player's playouts, policy and decay, said in
    the log line; back to random playouts for the next game, where capture-
    first playouts are chosen; a player with playouts of its own keeps them."""
    from players.perfect.mcts import NSTPlayer, UCTPlayer

    with caplog.at_level(logging.INFO, logger="players"):
        player = started("uct:simulations=10,seed=1", "connectfour")
    nst = NSTPlayer()
    assert (player.playout, player.policy_params, player.decay) == (
        "nst",
        nst.policy_params,
        nst.decay,
    )
    assert player.search.kind == "nst"
    assert any("playout=nst for connectfour" in r.message for r in caplog.records)
    g = load_game("breakthrough")
    player.start(g, g.roles[0], 600, 10)
    assert (player.playout, player.policy_params, player.decay) == ("random", {}, UCTPlayer.decay)
    assert player.greedy == 1.0
    lgr = started("lgr:simulations=10,seed=1,auto=true", "connectfour")
    assert lgr.chosen.settings == NGRAMS and lgr.playout == "lgr"


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
