"""Features read from the rules (players.perfect.rules): distances to the goal
found in the grounded network, and the evaluation made of them."""

import math
from collections import Counter

import numpy as np
import pytest
from conftest import SHARED, needs_shared

from ggp import load_game
from players import make
from players.perfect.rules import goal_distances, move_lessons, rules_evaluation


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
