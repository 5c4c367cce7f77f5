"""The games in ``games_gdl`` against independent plain-Python versions (brute_force.py).

For each game: the description validates without errors; tree counts from
``ggp.tools.count.count`` over the reference reasoner equal those of the brute-force
walk (exhaustive where cheap, else to a depth that runs in a few seconds);
initial legal moves agree; seeded random playouts replayed move by move in both
agree on legal moves, terminality and goals, with exactly one goal per role at
the end; and subtrees below random mid-game positions (where terminals are
near) count the same in both.
"""

from __future__ import annotations

import random
from pathlib import Path

import brute_force
import pytest

import gdl
from ggp import load_game
from ggp.tools.count import count

HERE = Path(__file__).resolve().parent

GAMES_DIR = HERE.parent / "games_gdl"
ALL = sorted(brute_force.GAMES)

# depth of the count comparison per game (None: the whole tree), chosen so that
# the reference reasoner takes a few seconds at most; deeper ones are marked slow
QUICK_DEPTH = {
    "nim": None,
    "rps": None,
    "lightsout": None,
    "kuhn": None,
    "iigs4": None,
    "connectfour": 4,
    "breakthrough": 2,
    "breakthroughsmall": 3,
    "tictactoe3p": 3,
}
SLOW_DEPTH = {"connectfour": 5, "breakthrough": 3, "breakthroughsmall": 4, "tictactoe3p": 4}

# depth of the subtree walks below mid-game positions where the game can end
MIDGAME = {
    "connectfour": 3,
    "breakthroughsmall": 2,
    "breakthrough": 2,
    "tictactoe3p": 3,
    "tictactoe": 4,
    "nim": 6,
}

_machines: dict = {}


def machine(name):
    if name not in _machines:
        _machines[name] = load_game(name).state_machine()
    return _machines[name]


class _StartingAt:
    """A state machine seen as if ``state`` were its initial state (for count)."""

    def __init__(self, sm, state):
        self._sm, self._state = sm, state

    def initial_state(self):
        return self._state

    def __getattr__(self, name):
        return getattr(self._sm, name)


class _BruteStartingAt:
    def __init__(self, game, state):
        self._game, self._state = game, state

    def initial(self):
        return self._state

    def __getattr__(self, name):
        return getattr(self._game, name)


def _same_moves(sm, state, game, bstate):
    for role, mine, theirs in zip(sm.roles, sm.all_legal_moves(state), game.legal(bstate)):
        assert sorted(map(repr, mine)) == sorted(map(repr, theirs)), role


# --- static checks -------------------------------------------------------------------


def test_every_game_file_has_a_brute_force_twin():
    assert sorted(p.stem for p in GAMES_DIR.glob("*.kif")) == ALL


@pytest.mark.parametrize("name", ALL)
def test_description_is_valid_and_documented(name):
    path = GAMES_DIR / f"{name}.kif"
    found = gdl.validate(gdl.parse_file(path))
    assert [d for d in found if d.severity == "error"] == []
    assert path.read_text().startswith(";"), "a game starts with its comment block"


@pytest.mark.parametrize("name", ALL)
def test_roles_and_initial_moves(name):
    sm, game = machine(name), brute_force.make(name)
    assert tuple(sm.roles) == game.roles
    _same_moves(sm, sm.initial_state(), game, game.initial())
    assert not sm.is_terminal(sm.initial_state())


def test_tictactoe_initial_moves_spelled_out():
    sm = machine("tictactoe")
    s = sm.initial_state()
    assert sm.legal_moves(s, "oplayer") == ["noop"]
    assert sorted(sm.legal_moves(s, "xplayer")) == [
        ("mark", str(r), str(c)) for r in range(1, 4) for c in range(1, 4)
    ]


# --- counts ----------------------------------------------------------------------------


def test_tictactoe_exhaustive_figures():
    figures = {"nodes": 549946, "terminals": 255168, "distinct_states": 5478, "max_depth": 9}
    assert brute_force.count(brute_force.tictactoe()) == figures
    assert count(machine("tictactoe")) == figures


def test_rps_exhaustive_figures():
    assert brute_force.count(brute_force.make("rps")) == {
        "nodes": 820,
        "terminals": 729,
        "distinct_states": 20,
        "max_depth": 3,
    }
    assert count(machine("rps")) == {
        "nodes": 820,
        "terminals": 729,
        "distinct_states": 20,
        "max_depth": 3,
    }


@pytest.mark.parametrize("name", sorted(QUICK_DEPTH))
def test_count_matches_brute_force(name):
    depth = QUICK_DEPTH[name]
    assert count(machine(name), depth) == brute_force.count(brute_force.make(name), depth)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SLOW_DEPTH))
def test_deeper_count_matches_brute_force(name):
    depth = SLOW_DEPTH[name]
    assert count(machine(name), depth) == brute_force.count(brute_force.make(name), depth)


def _near_the_end(sm, game, depth, rng):
    """A non-terminal position, reached by random joint moves played in both in
    lockstep, whose subtree of ``depth`` plies holds terminal states."""
    while True:
        s, b = sm.initial_state(), game.initial()
        while not sm.is_terminal(s):
            start = _BruteStartingAt(game, b)
            if brute_force.count(start, depth)["terminals"]:
                return s, b
            joint = tuple(rng.choice(m) for m in sm.all_legal_moves(s))
            s, b = sm.next_state(s, joint), game.next(b, joint)


@pytest.mark.parametrize("name", sorted(MIDGAME))
def test_midgame_subtree_counts(name):
    """Counts below positions reached by seeded random play, near the game's end."""
    sm, game = machine(name), brute_force.make(name)
    depth = MIDGAME[name]
    rng = random.Random(name)
    for _ in range(2):
        s, b = _near_the_end(sm, game, depth, rng)
        mine = count(_StartingAt(sm, s), depth)
        theirs = brute_force.count(_BruteStartingAt(game, b), depth)
        assert mine == theirs
        assert mine["terminals"] > 0


# --- random play -----------------------------------------------------------------------

PLAYOUTS = {
    "breakthrough": 5,
    "breakthroughsmall": 10,
    "connectfour": 20,
    "tictactoe3p": 40,
    "tictactoe": 40,
    "nim": 20,
}


@pytest.mark.parametrize("name", ALL)
def test_random_playouts_agree_with_brute_force(name):
    sm, game = machine(name), brute_force.make(name)
    rng = random.Random(f"playout {name}")
    for _ in range(PLAYOUTS.get(name, 6)):
        s, b = sm.initial_state(), game.initial()
        steps = 0
        while True:
            assert sm.is_terminal(s) == game.terminal(b)
            if sm.is_terminal(s):
                break
            moves = sm.all_legal_moves(s)
            assert all(moves), "every role has a legal move in a non-terminal state"
            _same_moves(sm, s, game, b)
            joint = tuple(rng.choice(m) for m in moves)
            s, b = sm.next_state(s, joint), game.next(b, joint)
            steps += 1
            assert steps < 200
        goals = sm.goals(s)  # raises GameError unless exactly one goal per role
        assert all(0 <= g <= 100 for g in goals)
        assert goals == game.goals(b)


def test_two_player_zero_sum_outcomes():
    """Win/loss games give 100/0 at every terminal reached by random play."""
    for name in ("breakthroughsmall", "nim"):
        sm = machine(name)
        rng = random.Random(name)
        for _ in range(5):
            s, _ = sm.random_playout(sm.initial_state(), rng)
            assert sorted(sm.goals(s)) == [0, 100]
