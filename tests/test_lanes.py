"""Bit-parallel playouts (ggp.reasoners._lanes) against the reference reasoner and the
incremental kernel.

* every recorded playout (each lane's first one, and with ``count`` > 64 the
  restarted ones too) is replayed with the reference reasoner: each move is
  legal there, the playout ends exactly where the reference says terminal (or
  at max_steps, or where a role has no legal move) and its goals are the
  reference's;
* ``playouts`` returns exactly the totals of the playouts ``traces`` records
  for the same seed (so exactly ``count`` playouts are run);
* mean depth and goals agree with the kernel's within a few standard errors;
* networks with cycle blocks (in the legal, the move-dependent and the goal
  parts) still match the reference.
"""

import math
import random

import numpy as np
import pytest
from conftest import SHARED, needs_shared

from ggp import GameError, load_game

LOCAL = ["tictactoe", "nim", "rps", "tictactoe3p", "lightsout", "kuhn", "leduc", "iigs5"]
PUBLIC = ["ticTacToe", "connectFour", "breakthrough"]

#: Cycles of positive dependencies in all three parts of a step: `path`
#: (over the edges) is read by legal, `wet` (spreading from the flooded node
#: along the edges) depends on the move and is read by next, and `soaked`
#: (spreading from the wetted nodes) only by the goals.
CYCLIC = """
(role r)
(node a) (node b) (node c) (node d)
(init (edge a b)) (init (edge b c)) (init (edge c a)) (init (edge c d)) (init (step 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(<= (link ?x ?y) (true (edge ?x ?y)))
(<= (path ?x ?y) (link ?x ?y))
(<= (path ?x ?z) (path ?x ?y) (link ?y ?z))
(<= (legal r (cut ?x ?y)) (true (edge ?x ?y)) (path ?y ?x))
(<= (legal r (join ?x ?y)) (node ?x) (node ?y) (distinct ?x ?y) (not (true (edge ?x ?y))))
(<= (legal r (flood ?x)) (node ?x) (not (true (wetted ?x))))
(<= (wet ?x) (does r (flood ?x)))
(<= (wet ?y) (wet ?x) (link ?x ?y))
(<= (next (edge ?x ?y)) (true (edge ?x ?y)) (not (does r (cut ?x ?y))))
(<= (next (edge ?x ?y)) (does r (join ?x ?y)))
(<= (next (wetted ?x)) (wet ?x))
(<= (next (wetted ?x)) (true (wetted ?x)))
(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
(<= (soaked ?x) (true (wetted ?x)))
(<= (soaked ?y) (soaked ?x) (link ?x ?y))
(<= terminal (true (step 6)))
(<= terminal (true (wetted a)) (true (wetted b)) (true (wetted c)) (true (wetted d)))
(<= (goal r 100) (soaked a) (soaked d))
(<= (goal r 50) (soaked a) (not (soaked d)))
(<= (goal r 0) (not (soaked a)))
"""


def game_of(name):
    if name in PUBLIC:
        path = SHARED / "gdl1" / f"{name}.kif"
        if not path.exists():
            pytest.skip(f"{path} is absent")
        return load_game(path)
    return load_game(name)


def lanes_of(game):
    sm = game.state_machine()
    assert sm.name == "compiled"
    return sm, sm.new_lanes()


def goal_sum(ref, state, role):
    """The role's goal values in ``state`` summed, as the kernels sum them (GDL
    wants exactly one; a state where a playout was cut may have none)."""
    try:
        return ref.goal(state, role)
    except GameError:
        return sum(
            {
                int(a[2])
                for a in ref._state(state).get("goal")
                if a[1] == role and str(a[2]).isdigit()
            }
        )


def replay(game, traces, max_steps):
    """Check every recorded playout step by step with the reference reasoner."""
    ref, sm = game.state_machine("reference"), game.state_machine()
    inputs = sm.ground_program.inputs
    for p, (moves, terminal, goals) in enumerate(traces):
        state = ref.initial_state()
        for d, joint in enumerate(moves):
            assert not ref.is_terminal(state), f"playout {p} goes on after a terminal state"
            assert len(joint) == len(ref.roles)
            for r, m in enumerate(joint):
                role, move = inputs[m]
                assert role == ref.roles[r]
                assert sm.move_terms[m] == move
                assert move in ref.legal_moves(state, role), (
                    f"playout {p}, step {d}: {move} is not legal for {role}"
                )
            state = ref.next_state(state, tuple(inputs[m][1] for m in joint))
        if terminal:
            assert ref.is_terminal(state), f"playout {p} ends in a non-terminal state"
        else:
            assert not ref.is_terminal(state)
            assert len(moves) == max_steps or not all(ref.all_legal_moves(state))
        assert goals == tuple(goal_sum(ref, state, role) for role in ref.roles), f"playout {p}"


def totals(traces, nroles):
    """What ``playouts`` should return for these recorded playouts."""
    steps = sum(len(moves) for moves, _, _ in traces)
    sums = [sum(goals[r] for _, _, goals in traces) for r in range(nroles)]
    return steps, sums, sum(1 for _, terminal, _ in traces if not terminal)


# --- (a) differential ------------------------------------------------------------
@pytest.mark.parametrize("name", LOCAL)
def test_every_lane_matches_the_reference(name):
    game = load_game(name)
    sm, lanes = lanes_of(game)
    root = sm.initial_state()
    for seed in (1, 2):
        traces = lanes.traces(root, seed, max_steps=300)
        assert len(traces) == 64
        replay(game, traces, 300)
    # 150 playouts: the restarted lanes (first moves in the step they restart)
    traces = lanes.traces(root, 3, max_steps=300, count=150)
    assert len(traces) == 150
    replay(game, traces, 300)


@needs_shared()
@pytest.mark.parametrize("name", PUBLIC)
def test_every_lane_matches_the_reference_public(name):
    game = game_of(name)
    sm, lanes = lanes_of(game)
    traces = lanes.traces(sm.initial_state(), 7, max_steps=500, count=100)
    assert all(terminal for _, terminal, _ in traces)
    replay(game, traces, 500)


def test_cycle_blocks_in_every_part_match_the_reference():
    game = load_game(CYCLIC)
    sm, lanes = lanes_of(game)
    assert sm.network.blocks
    assert all(lanes.sizes["blocks"]), lanes.sizes  # a block in phase 1, phase 2, goals
    root = sm.initial_state()
    for seed in range(4):
        traces = lanes.traces(root, seed, max_steps=50, count=200)
        replay(game, traces, 50)
        assert lanes.playouts(root, 200, seed, 50) == totals(traces, 1)
    ends = {goals for _, _, goals in lanes.traces(root, 9, count=500)}
    assert ends == {(0,), (50,), (100,)}


# --- (b) playouts return exactly what the recorded playouts add up to ----------
@pytest.mark.parametrize("name", ["tictactoe", "connectfour", "kuhn", "tictactoe3p", "nim"])
@pytest.mark.parametrize("count", [1, 63, 64, 65, 1000])
def test_playouts_are_the_sum_of_the_traces(name, count):
    sm, lanes = lanes_of(load_game(name))
    root = sm.initial_state()
    traces = lanes.traces(root, 11, max_steps=200, count=count)
    assert len(traces) == count
    assert lanes.playouts(root, count, 11, 200) == totals(traces, len(sm.roles))
    if count == 64:  # lanes' first moves come before any restart draws numbers
        more = lanes.traces(root, 11, max_steps=200, count=200)
        assert [m[:1] for m, _, _ in traces] == [m[:1] for m, _, _ in more[:64]]


@pytest.mark.parametrize("count", [1, 2, 63, 64, 65, 127, 1000])
def test_exactly_count_playouts(count):
    """Tic-tac-toe's goals add up to 100 in every final state: the summed goals
    count the playouts."""
    sm, lanes = lanes_of(load_game("tictactoe"))
    steps, sums, cut = lanes.playouts(sm.initial_state(), count, 3)
    assert sum(sums) == 100 * count and cut == 0
    assert 5 * count <= steps <= 9 * count


def test_seeded_and_deterministic():
    sm, lanes = lanes_of(load_game("connectfour"))
    root = sm.initial_state()
    first = lanes.playouts(root, 500, seed=5)
    assert lanes.playouts(root, 200, seed=1) != first
    assert lanes.playouts(root, 500, seed=5) == first
    steps, sums, cut = first
    assert cut == 0 and 500 * 7 <= steps <= 500 * 42
    assert sum(sums) == 500 * 100
    assert lanes.traces(root, 3) == lanes.traces(root, 3)
    assert lanes.traces(root, 3) != lanes.traces(root, 4)


def test_count_zero_and_state_checks():
    sm, lanes = lanes_of(load_game("tictactoe"))
    assert lanes.playouts(sm.initial_state(), 0, 1) == (0, [0, 0], 0)
    assert lanes.traces(sm.initial_state(), 1, count=0) == []
    with pytest.raises(ValueError):
        lanes.playouts(b"\x00", 5, 1)


def test_from_another_state_and_from_terminal_states():
    game = load_game("tictactoe")
    sm, lanes = lanes_of(game)
    rng = random.Random(4)
    state = sm.initial_state()
    while not sm.is_terminal(state):
        traces = lanes.traces(state, 5, count=70)
        assert lanes.playouts(state, 70, 5) == totals(traces, 2)
        for moves, terminal, goals in traces[::7]:
            s = state
            for joint in moves:
                s = sm.next_state(s, [sm.move_terms[m] for m in joint])
            assert terminal and sm.is_terminal(s)
            assert goals == tuple(sm.goal(s, r) for r in sm.roles)
        state = sm.next_state(state, [rng.choice(m) for m in sm.all_legal_moves(state)])
    goals = [sm.goal(state, r) for r in sm.roles]
    assert lanes.playouts(state, 100, 1) == (0, [100 * g for g in goals], 0)
    assert lanes.traces(state, 1, count=3) == [([], True, tuple(goals))] * 3


# --- (c) statistics against the kernel -------------------------------------------
def batch_means(run, batches, size):
    """Per batch of ``size`` playouts (seeds 0..), the mean depth and goals."""
    out = []
    for seed in range(batches):
        steps, sums, cut = run(seed, size)
        assert cut == 0
        out.append([steps / size] + [s / size for s in sums])
    return np.array(out)


@pytest.mark.parametrize("name", ["tictactoe", "connectFour"])
def test_statistics_agree_with_the_kernel(name):
    game = game_of(name) if name in PUBLIC else load_game(name)
    sm, lanes = lanes_of(game)
    root = sm.initial_state()
    batches, size = 40, 500  # 20,000 playouts each
    a = batch_means(lambda s, n: lanes.playouts(root, n, 1000 + s), batches, size)
    b = batch_means(lambda s, n: sm.kernel.playouts(root, n, 1000 + s), batches, size)
    for column, what in enumerate(["depth"] + [f"goal of {r}" for r in sm.roles]):
        se = math.sqrt(a[:, column].var(ddof=1) / batches + b[:, column].var(ddof=1) / batches)
        diff = a[:, column].mean() - b[:, column].mean()
        assert abs(diff) <= 4.5 * se + 1e-9, f"{name}: mean {what} differs by {diff} (se {se})"


def test_first_moves_are_uniform():
    """Chi-square of the first player's first move over 64 x 60 lanes (8 degrees
    of freedom: 0.01 % of uniform samples exceed 33.7)."""
    sm, lanes = lanes_of(load_game("tictactoe"))
    root = sm.initial_state()
    first = [moves[0][0] for seed in range(60) for moves, _, _ in lanes.traces(root, seed)]
    counts = np.bincount(first)
    counts = counts[counts > 0]
    assert len(counts) == 9
    expected = len(first) / 9
    assert ((counts - expected) ** 2 / expected).sum() < 33.7


# --- (d) max_steps -----------------------------------------------------------------
@pytest.mark.parametrize("max_steps", [0, 1, 3])
def test_max_steps_cuts_playouts(max_steps):
    game = load_game("tictactoe")
    sm, lanes = lanes_of(game)
    root = sm.initial_state()
    steps, _, cut = lanes.playouts(root, 130, 2, max_steps)
    assert (steps, cut) == (130 * max_steps, 130)
    assert (steps, cut) == sm.kernel.playouts(root, 130, 2, max_steps)[::2]
    traces = lanes.traces(root, 2, max_steps=max_steps, count=130)
    assert all(len(m) == max_steps and not t for m, t, _ in traces)
    assert lanes.playouts(root, 130, 2, max_steps) == totals(traces, 2)
    replay(game, traces, max_steps)


def test_max_steps_mixed_with_terminal_ends():
    """Some playouts end before max_steps, others are cut at it."""
    game = load_game("connectfour")
    sm, lanes = lanes_of(game)
    root = sm.initial_state()
    traces = lanes.traces(root, 3, max_steps=12, count=200)
    ends = {terminal for _, terminal, _ in traces}
    assert ends == {True, False}
    assert all(len(m) <= 12 and (t or len(m) == 12) for m, t, _ in traces)
    assert lanes.playouts(root, 200, 3, 12) == totals(traces, 2)
    replay(game, traces[:80], 12)
