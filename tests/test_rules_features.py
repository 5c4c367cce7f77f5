"""Features read from the rules (players.perfect.rules): distances to the goal
found in the grounded network, and the evaluation made of them."""

import math
from collections import Counter

import numpy as np
import pytest
from conftest import SHARED, needs_shared

from ggp import load_game
from players import Observation, make
from players.perfect.rules import (
    LINE_UNIT,
    goal_distances,
    goal_lines,
    line_evaluation,
    move_lessons,
    rules_evaluation,
)


@pytest.fixture(scope="module")
def breakthrough():
    return load_game("breakthrough").state_machine("compiled")


def test_a_pawns_distance_to_its_goal_is_the_rows_it_still_has_to_go(breakthrough):
    """In the project's breakthrough white moves up to row 8 and black down
    to row 1 (its rules' goal and move rules): a pawn's distance is the rows
    left, and a pawn of the other colour never reaches the goal."""
    sm = breakthrough
    base = sm.base_propositions
    relation = next(b[0] for b in base if isinstance(b, tuple) and len(b) == 4)
    white, black = (sm.roles.index(r) for r in ("white", "black"))
    distances = goal_distances(sm)
    for i, b in enumerate(base):
        if not (isinstance(b, tuple) and b[0] == relation):
            continue
        row = int(b[2])
        if b[3] == "white":
            assert distances[white][i] == 8 - row and i not in distances[black]
        elif b[3] == "black":
            assert distances[black][i] == row - 1 and i not in distances[white]
    pawns = Counter(
        (sm.roles[r], d)
        for r, distance in enumerate(distances)
        for i, d in distance.items()
        if isinstance(base[i], tuple) and base[i][0] == relation
    )
    assert pawns == {(role, d): 8 for role in ("white", "black") for d in range(8)}


def value(evaluation, sm, state):
    weights, bias, _ = evaluation
    return bias + weights @ np.frombuffer(state, np.uint8)


def test_the_rules_evaluation_counts_material_and_the_way_to_the_goal(breakthrough):
    sm = breakthrough
    evaluation = rules_evaluation(sm)
    white, black = (sm.roles.index(r) for r in ("white", "black"))
    start = sm.initial_state()
    assert list(value(evaluation, sm, start)) == pytest.approx([50.0, 50.0])
    # white advances a pawn: better for white, worse for black
    [advance] = [j for j in sm.joint_moves(start) if j[white] == ("move", "4", "2", "4", "3")]
    after = value(evaluation, sm, sm.next_state(start, advance))
    assert after[white] > 50 > after[black]
    # a state without one of black's pawns (the facts edited): white ahead by a pawn
    facts = [b for b, bit in zip(sm.base_propositions, start) if bit]
    pawn = next(b for b in facts if isinstance(b, tuple) and b[-1] == "black")
    fewer = sm.state_from_facts([b for b in facts if b != pawn])
    ahead = value(evaluation, sm, fewer)
    assert ahead[white] > 50 > ahead[black]
    assert ahead[white] - 50 == pytest.approx(50 - ahead[black])


def test_no_pieces_no_rules_evaluation():
    sm = load_game("nim").state_machine("compiled")
    assert rules_evaluation(sm) is None


def test_fit_rules_gives_the_player_the_rules_evaluation(breakthrough):
    game = load_game("breakthrough")
    player = make("uct:simulations=1,seed=2,imm=0.4,fit=rules")
    player.start(game, "white", 10, 10)
    weights, bias, scale = player.evaluation
    expected = rules_evaluation(player.sm)
    assert np.array_equal(weights, expected[0]) and np.array_equal(bias, expected[1])
    assert math.isfinite(scale) and scale > 0


@needs_shared()
def test_the_public_breakthrough_files_distances_too():
    """The same distances in the public breakthrough.kif (other names:
    cellHolds, its own coordinates)."""
    sm = load_game(SHARED / "gdl1" / "breakthrough.kif").state_machine("compiled")
    base = sm.base_propositions
    white = sm.roles.index("white")
    pawns = {
        (int(base[i][2]), d)
        for i, d in goal_distances(sm)[white].items()
        if len(base[i]) == 4 and base[i][-1] == "white"
    }
    assert pawns == {(row, 8 - row) for row in range(1, 9)}


def test_a_move_takes_the_other_colours_pawn_on_the_square_it_goes_to():
    """move_lessons on breakthrough: each move seen taking something takes
    exactly the pawn of the other role's colour on the square it moves to
    (the move's last two arguments, as the rules' capture says), only
    diagonal moves take, and most of them were seen doing so in 100 random
    playouts; each move seen winning every time puts its pawn on its goal
    row (distance 0, from the rules), and each threat is a pawn of its
    role's colour a row from that goal."""
    check_victims(load_game("breakthrough").state_machine("compiled"))


@needs_shared()
def test_the_public_breakthrough_files_captures_too():
    check_victims(load_game(SHARED / "gdl1" / "breakthrough.kif").state_machine("compiled"))


def check_victims(sm):
    weights, _, _ = rules_evaluation(sm)
    base = sm.base_propositions
    victims, wins, threats = move_lessons(sm, weights, playouts=100, seed=0)
    role_of = {
        n: sm.roles[r] for r, numbers in enumerate(sm.move_numbers) for n in numbers.values()
    }
    # a winning move puts a pawn where it is at distance 0 from its role's goal
    distances = goal_distances(sm)
    assert wins
    for number in wins:
        move, role = sm.move_terms[number], role_of[number]
        [arrived] = [i for i, b in enumerate(base) if b[1:] == (move[3], move[4], role)]
        assert distances[sm.roles.index(role)][arrived] == 0
    # a threat is a pawn one row from its goal, where a learned win starts
    assert threats
    for i in threats:
        [role] = [r for r, distance in enumerate(distances) if distance.get(i) == 1]
        assert base[i][3] == sm.roles[role]
    diagonal = seen = 0
    for number, (move, taken) in enumerate(zip(sm.move_terms, victims)):
        if not (isinstance(move, tuple) and move[0] == "move"):
            assert taken == []
            continue
        x1, _, x2, y2 = move[1:]
        diagonal += x1 != x2
        if not taken:
            continue
        seen += 1
        assert x1 != x2
        [victim] = [base[i] for i in taken]
        assert victim[1:] == (x2, y2, next(r for r in sm.roles if r != role_of[number]))
    assert seen >= 0.75 * diagonal


# --- the lines of a goal ------------------------------------------------------------------


def _windows(columns, rows, length):
    """Every run of ``length`` squares in a row, column or diagonal of a
    board, by geometry alone."""
    out = set()
    for x in range(1, columns + 1):
        for y in range(1, rows + 1):
            for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                run = [(x + k * dx, y + k * dy) for k in range(length)]
                if all(1 <= a <= columns and 1 <= b <= rows for a, b in run):
                    out.add(frozenset(run))
    return out


@needs_shared()
def test_the_lines_of_connect_four_are_its_rows_columns_and_diagonals():
    """The public connectFour.kif (8 columns, 6 rows, by its cells): each
    colour's lines are the runs of four of its discs, 30 in rows, 24 in
    columns, 15 on each diagonal, whatever the rules call them."""
    sm = load_game(SHARED / "gdl1" / "connectFour.kif").state_machine("compiled")
    base = sm.base_propositions
    cells = [b for b in base if b[0] == "cell"]
    columns, rows = (max(int(b[k]) for b in cells) for k in (1, 2))
    assert (columns, rows) == (8, 6)
    expected = _windows(columns, rows, 4)
    assert len(expected) == 30 + 24 + 15 + 15
    for role, lines in zip(sm.roles, goal_lines(sm)):
        assert {frozenset((int(base[i][1]), int(base[i][2])) for i in line) for line in lines} == (
            expected
        )
        assert {base[i][3] for line in lines for i in line} == {role}


def _tictactoe_value(board, x, o):
    """x's value of a tic-tac-toe ``board`` (square -> mark) by
    :func:`line_evaluation`'s rule, counted from the board's geometry: each
    of the 8 lines with no mark of the other player, k of one's own marks
    worth unit * 4 ** (k - 1), unit = LINE_UNIT / 4 (the centre is on four
    lines)."""
    unit, value = LINE_UNIT / 4, 50.0
    for line in _windows(3, 3, 3):
        marks = [board.get(square) for square in line]
        for mark, sign in ((x, 1), (o, -1)):
            k = marks.count(mark)
            if k and len([m for m in marks if m is not None]) == k:
                value += sign * unit * 4 ** (k - 1)
    return value


def test_the_line_evaluation_counts_open_lines_in_the_tree():
    """tic-tac-toe with ``fit=lines`` and implicit minimax values (imm) after
    one simulation: each of x's first moves holds the value of the board it
    makes (the centre on four open lines, 50 + 4 x 1.25; a corner three; an
    edge two), or, for the move the simulation expanded, the least of those
    after o's replies (a line o's mark blocks counts for no one), as a
    geometric count of the board says."""
    game = load_game("tictactoe")
    player = make("uct:simulations=1,seed=0,fit=lines,imm=0.5,auto=false")
    player.start(game, "xplayer", 10, 10)
    player.play(Observation())
    x = game.roles.index("xplayer")
    moves = player.ctree.root_moves(x)[0]
    values = player.ctree.root_values(x)
    squares = [tuple(int(a) for a in player.search.move(x, m)[1:]) for m in moves]
    assert sorted(squares) == [(a, b) for a in (1, 2, 3) for b in (1, 2, 3)]
    own = [_tictactoe_value({s: "x"}, "x", "o") for s in squares]
    assert sorted(set(own)) == [52.5, 53.75, 55.0]
    assert sum(v == e for v, e in zip(values, own)) == 8
    for s, value, e in zip(squares, values, own):
        if value != e:
            replies = [_tictactoe_value({s: "x", t: "o"}, "x", "o") for t in squares if t != s]
            assert value == pytest.approx(min(replies))


def test_lines_are_blocked_by_the_other_players_marks_on_their_squares():
    """tic-tac-toe: each player's 8 lines of 3 marks, each blocked by the
    other player's marks on the same three squares; breakthrough's goal is a
    pawn on one square, no line; nim's has none."""
    sm = load_game("tictactoe").state_machine("compiled")
    base = sm.base_propositions
    roles, own, blocks, gains = line_evaluation(sm)[3]
    assert sorted(Counter(roles).values()) == [8, 8]
    for line, blocking in zip(own, blocks):
        assert len(line) == 3 and len(blocking) == 3
        assert {base[i][1:3] for i in line} == {base[i][1:3] for i in blocking}
        assert len({base[i][3] for i in line} | {base[i][3] for i in blocking}) == 2
    assert gains == pytest.approx([0, LINE_UNIT / 4, LINE_UNIT, 4 * LINE_UNIT])
    for game in ("breakthrough", "nim"):
        assert line_evaluation(load_game(game).state_machine("compiled")) is None


def test_fit_lines_gives_the_player_the_line_evaluation_or_warns_once():
    """``fit=lines`` hands the C tree the lines read from the rules; a game
    with none (nim) gets a warning naming why and a search without them."""
    game = load_game("tictactoe")
    player = make("uct:simulations=1,seed=0,fit=lines,cutoff=4")
    player.start(game, "xplayer", 10, 10)
    assert player.evaluation[3] == line_evaluation(player.sm)[3]
    nim = load_game("nim")
    player = make("uct:simulations=1,seed=0,fit=lines,cutoff=4")
    with pytest.warns(RuntimeWarning, match="no goal in this game's rules has lines"):
        player.start(nim, nim.roles[0], 10, 10)
    assert player.evaluation is None
