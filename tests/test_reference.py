"""The reference reasoner against the conformance cases of ggp-base
(../shared/games/conformance/EXPECTED.md) and facts known independently."""

import random

import pytest
from conftest import SHARED, needs_shared

from ggp import GameError, load_game
from ggp.tools.count import count

pytestmark = needs_shared()


def machine(name, folder="conformance"):
    return load_game(SHARED / folder / f"{name}.kif").state_machine("reference")


def play(sm, *joints):
    s = sm.initial_state()
    for joint in joints:
        s = sm.next_state(s, joint)
    return s


@pytest.mark.parametrize("name, role, goal0", [("test_case_1a", "you", 100)])
def test_time_invariant_goal(name, role, goal0):
    sm = machine(name)
    s = sm.initial_state()
    assert not sm.is_terminal(s)
    assert sm.goal(s, role) == goal0
    s = sm.next_state(s, ("proceed",))
    assert sm.is_terminal(s) and sm.goal(s, role) == 100


def test_undefined_proposition_is_false():
    sm = machine("test_case_3c")
    s = sm.initial_state()
    assert not sm.is_terminal(s)
    assert sm.legal_moves(s, "xplayer") == ["win"]
    s = sm.next_state(s, ("win",))
    assert sm.is_terminal(s) and sm.goal(s, "xplayer") == 100


@pytest.mark.parametrize("name", ["test_case_5a", "test_case_5c", "test_case_5d"])
def test_recursion_cases(name):
    sm = machine(name)
    s = sm.initial_state()
    assert sm.legal_moves(s, "you") == ["proceed"]
    s = sm.next_state(s, ("proceed",))
    assert sm.is_terminal(s) and sm.goal(s, "you") == 100


def test_doubled_up_variables():
    sm = machine("test_case_5b")
    s = sm.initial_state()
    assert sm.legal_moves(s, "you") == [("draw", "1", "1", "1", "2")]
    assert sm.is_terminal(sm.next_state(s, (("draw", "1", "1", "1", "2"),)))


def test_recursive_smaller_gives_seven_moves():
    sm = machine("test_case_5e")
    moves = sm.legal_moves(sm.initial_state(), "robot")
    assert moves == [
        ("reduce", "a", "0"),
        ("reduce", "a", "1"),
        ("reduce", "c", "0"),
        ("reduce", "c", "1"),
        ("reduce", "c", "2"),
        ("reduce", "c", "3"),
        ("reduce", "c", "4"),
    ]


def test_distinct_at_the_beginning_of_a_rule():
    sm = machine("test_distinct_beginning_rule")
    s = sm.initial_state()
    assert sm.legal_moves(s, "you") == [("do", "a", "b"), ("do", "b", "a")]
    s = sm.next_state(s, (("do", "a", "b"),))
    assert sm.is_terminal(s) and sm.goal(s, "you") == 100


def test_zero_arity_relation_with_parentheses():
    """EXPECTED.md: open1 and (open2) both hold, so the sound answer is correct_correct."""
    sm = machine("test_case_3a")
    assert sm.legal_moves(sm.initial_state(), "xplayer") == [("move", "correct_correct")]


def test_public_tictactoe_line():
    sm = machine("ticTacToe", "gdl1")
    s = sm.initial_state()
    assert len(list(sm.joint_moves(s))) == 9
    assert sm.legal_moves(s, "oplayer") == ["noop"]

    def x(m, n):
        return ("mark", str(m), str(n)), "noop"

    def o(m, n):
        return "noop", ("mark", str(m), str(n))

    s = play(sm, x(1, 1), o(1, 3), x(3, 1), o(2, 2), x(2, 1))
    assert sm.is_terminal(s)
    assert sm.goals(s) == (100, 0)


def test_public_tictactoe_counts():
    """REFERENCES.md: 549,946 nodes, 255,168 terminals, 5,478 distinct states."""
    assert count(machine("ticTacToe", "gdl1")) == {
        "nodes": 549946,
        "terminals": 255168,
        "distinct_states": 5478,
        "max_depth": 9,
    }


def test_illegal_and_malformed_moves_are_refused():
    sm = machine("ticTacToe", "gdl1")
    s = sm.initial_state()
    with pytest.raises(GameError, match="not legal"):
        sm.next_state(s, ("noop", "noop"))
    with pytest.raises(GameError, match="one move per role"):
        sm.next_state(s, (("mark", "1", "1"),))


def test_montyhall_switching_wins_two_thirds():
    """REFERENCES.md: always switching wins with probability 2/3 (exact, by enumeration)."""
    sm = machine("montyhall", "gdl2")
    roles = sm.roles
    me = roles.index("candidate")

    def value(s, prob):
        """Expected goal of the switching candidate, chance uniform."""
        if sm.is_terminal(s):
            return prob * sm.goal(s, "candidate")
        total = 0.0
        legal = sm.all_legal_moves(s)
        options = list(legal[me])
        switch = [m for m in options if "switch" in str(m)]
        mine = switch or options[:1]
        chance = [len(ms) for r, ms in zip(roles, legal) if r == "random"]
        weight = 1.0 / (chance[0] if chance else 1)
        for joint in sm.joint_moves(s):
            if joint[me] != mine[0]:
                continue
            total += value(sm.next_state(s, joint), prob * weight)
        return total

    assert value(sm.initial_state(), 1.0) == pytest.approx(200 / 3)


def test_percepts_of_gdl2_game():
    sm = machine("montyhall", "gdl2")
    s = sm.initial_state()
    rng = random.Random(3)
    seen_any = False
    while not sm.is_terminal(s):
        joint = tuple(rng.choice(ms) for ms in sm.all_legal_moves(s))
        for role in sm.roles:
            p = sm.percepts(s, joint, role)
            assert isinstance(p, frozenset)
            seen_any |= bool(p) and role == "candidate"
        s = sm.next_state(s, joint)
    assert seen_any
