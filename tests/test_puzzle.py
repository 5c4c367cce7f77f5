"""The one-player planner (players.perfect._plan) and the search players'
puzzle mode (players.perfect.puzzle): plans checked against independent
searches of the same games (tests/brute_force.py, the reference reasoner)."""

import math
import time

import pytest
from brute_force import LightsOut
from conftest import SHARED, needs_shared

from ggp import load_game
from matches.manager import run_match
from players import make
from players.perfect._plan import Planner

#: A walk on 0..6 for four steps, a step up, down or nowhere; the game ends
#: at step 4 scoring by where the walker stands: 3 is best (60), 6 would
#: score 100 but is out of reach, so the best plan is proved by exhausting.
WALK = """
(role walker)
(init (at 0)) (init (step 0))
(num 0) (num 1) (num 2) (num 3) (num 4) (num 5) (num 6)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(score 0 0) (score 1 20) (score 2 40) (score 3 60) (score 4 10) (score 5 0) (score 6 100)
(<= (legal walker up) (true (at ?x)) (succ ?x ?y))
(<= (legal walker down) (true (at ?x)) (succ ?y ?x))
(legal walker stay)
(<= (next (at ?y)) (does walker up) (true (at ?x)) (succ ?x ?y))
(<= (next (at ?y)) (does walker down) (true (at ?x)) (succ ?y ?x))
(<= (next (at ?x)) (does walker stay) (true (at ?x)))
(<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
(<= terminal (true (step 4)))
(<= (goal walker ?g) (true (at ?x)) (score ?x ?g))
"""


def best_ending(sm, state):
    """The best goal of any ending from ``state``: every path walked on ``sm``."""
    if sm.is_terminal(state):
        return sm.goal(state, sm.roles[0])
    return max(
        best_ending(sm, sm.next_state(state, (m,))) for m in sm.legal_moves(state, sm.roles[0])
    )


def replay(sm, moves):
    """The state after the kernel's move numbers ``moves`` from the start."""
    state = sm.initial_state()
    for m in moves:
        state = sm.kernel.next_state(state, (m,))
    return state


def shortest_solution():
    """Presses in a shortest solution of lightsout, by breadth-first search of
    the plain-Python model of its rules."""
    model = LightsOut()
    frontier, depth, seen = [model.initial()], 0, set()
    while not any(model.terminal(s) and model.goals(s) == (100,) for s in frontier):
        frontier = [
            c
            for s in frontier
            if not model.terminal(s)
            for c in (model.next(s, (m,)) for m in model.legal(s)[0])
            if not (c in seen or seen.add(c))
        ]
        depth += 1
    return depth


def planned(game, budget=-1, limit=1_000_000):
    sm = game.state_machine()
    planner = Planner(sm.kernel, sm.initial_state(), limit)
    done = planner.run(budget, math.inf)
    return sm, planner, done


def test_lightsout_plan_is_a_shortest_solution():
    """Proved best at the highest goal; replayed on the plain-Python model of
    the rules it switches every lamp off, in as few presses as its own
    breadth-first search needs."""
    sm, planner, _ = planned(load_game("lightsout"))
    assert planner.solved and planner.best == 100
    moves = [sm.move_terms[m] for m in planner.plan()]
    model = LightsOut()
    state = model.initial()
    for move in moves:
        state = model.next(state, (move,))
    assert model.terminal(state) and model.goals(state) == (100,)
    assert len(moves) == shortest_solution()


def test_unreachable_top_is_proved_by_exhausting_the_graph():
    game = load_game(WALK)
    sm, planner, _ = planned(game)
    reference = game.state_machine("reference")
    assert planner.solved
    assert planner.best == best_ending(reference, reference.initial_state()) == 60
    end = replay(sm, planner.plan())
    assert sm.is_terminal(end) and sm.goal(end, "walker") == 60


def test_a_full_table_proves_nothing():
    """With room for 5 states the graph cannot be exhausted: whatever is
    found is not called the best."""
    _, planner, _ = planned(load_game(WALK), limit=5)
    assert not planner.solved
    assert planner.states <= 10


def test_a_budget_of_expansions_gives_the_same_plan_anywhere():
    """The same plan from the same budget however it is split into runs: work
    is counted in expansions, not seconds."""
    game = load_game("lightsout")
    _, whole, done = planned(game, budget=300)
    assert done <= 300
    sm = game.state_machine()
    split = Planner(sm.kernel, sm.initial_state(), 1_000_000)
    assert split.run(100, math.inf) + split.run(200, math.inf) == done
    assert (split.best, split.plan(), split.solved) == (whole.best, whole.plan(), whole.solved)


#: Sixteen lamps, one switched a step, fifteen steps: 100 with every lamp on,
#: which needs sixteen; a graph of about a million states to exhaust.
LAMPS = (
    "(role p) (init (step 0))"
    + "".join(f" (lamp {i}) (succ {i} {i + 1})" for i in range(16))
    + " (succ 16 17) (lamp 16)"
    + """
(<= (legal p (press ?l)) (lamp ?l) (distinct ?l 0))
(<= (next (on ?l)) (true (on ?l)) (not (does p (press ?l))))
(<= (next (on ?l)) (lamp ?l) (not (true (on ?l))) (does p (press ?l)))
(<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
(<= terminal (true (step 15)))
(<= off (lamp ?l) (distinct ?l 0) (not (true (on ?l))))
(<= (goal p 100) (not off))
(<= (goal p 0) off)
"""
)


def test_the_clock_stops_a_run():
    sm = load_game(LAMPS).state_machine()
    planner = Planner(sm.kernel, sm.initial_state(), 1_000_000)
    began = time.monotonic()
    done = planner.run(-1, began + 0.2)
    assert time.monotonic() - began < 2 and done > 0 and not planner.solved
    assert planner.run(-1, time.monotonic() - 1) == 0  # past its instant: nothing


def test_one_role_only():
    sm = load_game("tictactoe").state_machine()
    with pytest.raises(ValueError, match="one-player"):
        Planner(sm.kernel, sm.initial_state(), 1000)


@pytest.mark.parametrize("puzzle", [True, False])
def test_uct_plays_lightsout(puzzle):
    """With the planner the match is won at the shortest solution whatever the
    tree saw; without it the tree plays alone."""
    game = load_game("lightsout")
    player = make(f"uct:simulations=20,seed=2,puzzle={str(puzzle).lower()}")
    record = run_match(game, {"player": player}, seed=1)
    if puzzle:
        assert record.goals == {"player": 100} and len(record.moves) == shortest_solution()
    assert (player.planning is not None) == puzzle


def test_no_planner_where_there_is_more_than_one_role():
    player = make("uct:simulations=10,seed=1")
    run_match(load_game("tictactoe"), {"xplayer": player, "oplayer": make("random:seed=1")}, seed=1)
    assert player.planning is None


@needs_shared()
@pytest.mark.parametrize("name", ["hanoi", "knightsTour", "maze"])
def test_shared_puzzles_solved_and_replayed_on_the_reference(name):
    game = load_game(SHARED / "gdl1" / f"{name}.kif")
    sm, planner, _ = planned(game)
    assert planner.solved and planner.best == 100
    reference = game.state_machine("reference")
    state = reference.initial_state()
    for m in planner.plan():
        state = reference.next_state(state, (sm.move_terms[m],))
    assert reference.is_terminal(state) and reference.goal(state, reference.roles[0]) == 100


@pytest.mark.slow
@needs_shared()
def test_eight_puzzle_solved_at_its_optimum():
    """eightPuzzle scores 100 only for a solution of exactly 30 moves, the
    instance's optimum (its start is the mirror image of the goal)."""
    sm, planner, _ = planned(load_game(SHARED / "gdl1" / "eightPuzzle.kif"), limit=4_000_000)
    assert planner.solved and planner.best == 100 and len(planner.plan()) == 30


def test_a_planner_out_of_memory_warns_once_and_the_player_plays_on():
    from players.perfect.puzzle import Puzzle

    class Full:
        def run(self, budget, until):
            raise MemoryError

    sm = load_game("lightsout").state_machine()
    puzzle = Puzzle(sm.kernel, sm.initial_state())
    puzzle.planner = Full()
    with pytest.warns(RuntimeWarning, match="ran out of memory"):
        assert puzzle.think(math.inf, 10) == 0
    assert puzzle.think(math.inf, 10) == 0 and puzzle.next_move() is None
