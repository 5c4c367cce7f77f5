"""The grounder: compiled joins, condensation, demanded static relations,
constant base facts, and its limits counted in work.

Each rewrite is checked twice: on what it does to the rules or the domain,
and on the game it builds, move by move against the reference reasoner
(``compare`` of tests/test_compiled.py).
"""

import time

import numpy as np
import pytest
from conftest import SHARED, needs_shared
from test_compiled import compare

from gdl import Var
from ggp import load_game
from ggp.reasoners.datalog import Effort, TooMuchWork
from ggp.reasoners.domains import Domain
from ggp.reasoners.ground import GroundingTooLarge, ground
from ggp.reasoners.joins import Store, plan
from ggp.reasoners.rewrite import factor, fix_constants, specialize

#: Three players guess 0..N; the goal rewards the total: the chain of sums
#: ``total`` is N^3 combinations before condensation.
GUESSES = """(role p1) (role p2) (role p3)
{numbers}
(<= (number ?n) (succ ?n ?m)) (number 0)
(<= (sum ?x 0 ?x) (number ?x))
(<= (sum ?x ?y ?z) (succ ?y1 ?y) (sum ?x ?y1 ?z1) (succ ?z1 ?z))
(<= (legal ?p (guess ?n)) (role ?p) (number ?n) (not (done ?p)) (guessable ?n))
(<= (legal ?p noop) (done ?p))
(<= (done ?p) (true (guessed ?p ?m)))
(<= (guessable ?n) (number ?n) (not (big ?n)))
(<= (big ?n) (succ {limit} ?n))
(<= (big ?n) (succ ?m ?n) (big ?m))
(<= (next (guessed ?p ?n)) (does ?p (guess ?n)))
(<= (next (guessed ?p ?n)) (true (guessed ?p ?n)))
(<= (total ?t) (true (guessed p1 ?a)) (true (guessed p2 ?b)) (sum ?a ?b ?ab)
    (true (guessed p3 ?c)) (sum ?ab ?c ?t))
(<= terminal (true (guessed p1 ?a)) (true (guessed p2 ?b)) (true (guessed p3 ?c)))
(<= (goal ?p 100) (role ?p) (total ?t) (even ?t))
(<= (goal ?p 0) (role ?p) (total ?t) (not (even ?t)))
(<= (goal ?p 0) (role ?p) (not terminal))
(even 0) (<= (even ?n) (succ ?m ?n) (succ ?k ?m) (even ?k))
"""


def guesses(limit: int):
    numbers = " ".join(f"(succ {i} {i + 1})" for i in range(3 * limit + 2))
    return load_game(GUESSES.format(numbers=numbers, limit=limit))


def test_a_chain_of_sums_is_condensed_and_plays_as_the_reference():
    """``total`` joins three guesses of 0..80 (531,441 combinations): the
    grounder condenses it into helpers over partial sums, which ground to
    a tenth of that, and the game plays as the reference says."""
    game = guesses(80)
    gp = ground(game.rules, game.roles)
    assert len(gp.rule_head) < 60_000
    assert any(isinstance(a, tuple) and a[0].startswith("__c") for a in gp.atoms)
    done, _ = compare(game, playouts=30, seconds=30.0)
    assert done == 30


def test_a_cheap_rule_is_left_as_written():
    """Below the threshold nothing is condensed: the same game with guesses
    of 0..5 has no helper relation."""
    game = guesses(5)
    gp = ground(game.rules, game.roles)
    assert not any(isinstance(a, tuple) and a[0].startswith("__c") for a in gp.atoms)


#: A maze whose walls are base facts that only ever keep themselves, on a
#: grid numbered beyond the board (succ runs to 30, the board is 0..3).
MAZE = """(role r)
(init (at 0 0)) (init (wall 1 0)) (init (wall 1 1)) (init (wall 3 2)) (init (step 0))
{succ}
(<= (next (wall ?x ?y)) (true (wall ?x ?y)))
(<= (legal r (go ?x2 ?y)) (true (at ?x1 ?y)) (succ ?x1 ?x2) (not (true (wall ?x2 ?y))) (inside ?x2))
(<= (legal r (go ?x ?y2)) (true (at ?x ?y1)) (succ ?y1 ?y2) (not (true (wall ?x ?y2))) (inside ?y2))
(<= (legal r stay) (true (at ?x ?y)))
(<= (next (at ?x ?y)) (does r (go ?x ?y)))
(<= (next (at ?x ?y)) (does r stay) (true (at ?x ?y)))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(inside 0) (inside 1) (inside 2) (inside 3)
(<= terminal (true (step 6)))
(<= (goal r 100) (true (at 3 3)))
(<= (goal r 0) (not (true (at 3 3))))
"""


def maze():
    return load_game(MAZE.format(succ=" ".join(f"(succ {i} {i + 1})" for i in range(30))))


def test_base_facts_that_only_keep_themselves_become_static():
    """The walls: the only ``next`` rule that makes one keeps it, so every
    ``(true (wall ..))`` of the other rules reads ``init`` instead (static,
    so the negation is exact and the relaxed positions stay on the board);
    the keeping rule itself stays, so that states still hold the walls."""
    game = maze()
    rewritten = fix_constants(game.rules)
    bodies = [lit for r in rewritten for lit in r.body]
    assert not any(
        "wall" in str(lit) and "true" in str(lit)
        for lit in bodies
        if not isinstance(lit, tuple) or lit[0] != "true"
    )
    keepers = [r for r in rewritten if r.head == ("next", ("wall", Var("?x"), Var("?y")))]
    assert keepers and keepers[0].body == (("true", ("wall", Var("?x"), Var("?y"))),)
    gp = ground(game.rules, game.roles)
    positions = {b for b in gp.base if b[0] == "at"}
    assert positions <= {("at", str(x), str(y)) for x in range(4) for y in range(4)}
    done, _ = compare(game, playouts=50, seconds=20.0)
    assert done == 50


def test_a_fact_that_a_rule_can_make_stays_dynamic():
    """A wall that a move can build is not constant: nothing is rewritten."""
    game = load_game(
        MAZE.format(succ="(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)")
        + "(<= (next (wall 2 2)) (does r stay))"
    )
    bodies = [lit for r in fix_constants(game.rules) for lit in r.body]
    assert not any(isinstance(lit, tuple) and lit[0] == "init" for lit in bodies)
    done, _ = compare(game, playouts=30, seconds=20.0)
    assert done == 30


#: A static relation over every pair of squares of a 12 x 12 grid (20,736
#: facts) of which the game asks about its own square only.
DISTANCES = """(role r)
{succ}
(<= (index ?x) (succ ?x ?y)) (index 12)
(<= (lt ?x ?y) (succ ?x ?y))
(<= (lt ?x ?z) (succ ?x ?y) (lt ?y ?z))
(<= (dir ?x1 ?x2 up) (lt ?x1 ?x2))
(<= (dir ?x1 ?x2 down) (lt ?x2 ?x1))
(<= (dir ?x ?x level) (index ?x))
(<= (toward ?x1 ?y1 ?x2 ?y2 ?a ?b) (dir ?x1 ?x2 ?a) (dir ?y1 ?y2 ?b))
(init (at 0 0)) (init (step 0)) (init (target 2 3))
(<= (next (target ?x ?y)) (true (target ?x ?y)))
(<= (legal r (go ?x ?y)) (true (at ?x1 ?y1)) (true (target ?tx ?ty)) (toward ?x1 ?y1 ?tx ?ty ?a ?b)
    (move ?a ?x1 ?x) (move ?b ?y1 ?y))
(<= (legal r stay) (true (at 2 3)))
(<= (move up ?x ?y) (succ ?x ?y)) (<= (move down ?x ?y) (succ ?y ?x)) (<= (move level ?x ?x) (index ?x))
(<= (next (at ?x ?y)) (does r (go ?x ?y)))
(<= (next (at 2 3)) (does r stay))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= terminal (true (step 5)))
(<= (goal r 100) (true (at 2 3)))
(<= (goal r 0) (not (true (at 2 3))))
"""


def test_a_static_relation_too_large_is_answered_on_demand(monkeypatch):
    """With the demand threshold lowered to 1,000 facts, ``toward`` (20,736
    facts) is not computed whole: the joins ask it about the squares the
    relaxed domain reaches, and the game plays as the reference says."""
    import ggp.reasoners.domains

    monkeypatch.setattr(ggp.reasoners.domains, "DEMAND_FACTS", 1_000)
    game = load_game(DISTANCES.format(succ=" ".join(f"(succ {i} {i + 1})" for i in range(12))))
    domain = Domain(specialize(factor(fix_constants(game.rules))), 1_000_000, Effort(10**8))
    assert "toward" in domain.facts.demanded
    asked = domain.facts.demanded["toward"]
    assert 0 < sum(len(calls.answers) for calls in asked._calls.values()) < 200
    done, _ = compare(game, playouts=40, seconds=20.0)
    assert done == 40


def test_joins_are_planned_by_their_estimated_fanout():
    """``(sum ?x ?dx ?zx)`` with ``?x`` unbound offers every sum; after
    ``(at ?zx)`` binds the result, only the sums that give it: the planner
    puts the small relation first, and a literal whose variables nothing
    later reads is only tested."""
    store = Store(
        {
            "sum": [("sum", str(a), str(b), str(a + b)) for a in range(30) for b in range(30)],
            "at": [("at", "7")],
            "piece": [("piece", "p", "1"), ("piece", "q", "2")],
        }
    )
    x, dx, zx, p = Var("?x"), Var("?dx"), Var("?zx"), Var("?p")
    body = (("sum", x, dx, zx), ("at", zx), ("piece", p, dx))
    steps = plan(body, store, outputs=(x,))
    assert [s.lit[0] for s in steps] == ["at", "piece", "sum"]
    assert [s.kind for s in steps] == ["loop", "loop", "loop"]
    steps = plan(body, store, outputs=(zx,))
    assert [(s.lit[0], s.kind) for s in steps] == [
        ("at", "loop"),
        ("piece", "loop"),
        ("sum", "exists"),
    ]


def test_a_join_of_four_roles_moves_stops_at_the_fact_limit():
    """Four roles' 200 moves each recorded in one ``next`` fact: 1.6 billion
    facts.  The join stops as soon as it has found more than the limit
    allows (it used to fill the memory: 3 GB after a minute)."""
    numbers = " ".join(f"(number {i})" for i in range(1, 201))
    game = load_game(f"""(role a) (role b) (role c) (role d) {numbers} (init (step 0))
        (succ 0 1) (succ 1 2) (succ 2 3) (<= (legal ?r (pick ?n)) (role ?r) (number ?n))
        (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
        (<= (next (last ?w ?x ?y ?z)) (does a (pick ?w)) (does b (pick ?x))
            (does c (pick ?y)) (does d (pick ?z)))
        (<= terminal (true (step 3))) (<= (goal ?r 100) (role ?r))""")
    start = time.perf_counter()
    with pytest.raises(GroundingTooLarge, match="more than 5,000 facts derived .relation 'next'"):
        ground(game.rules, game.roles, limit=10_000)
    assert time.perf_counter() - start < 5


def test_the_effort_is_counted_the_same_in_every_run():
    """The work a build does is counted, not timed: two builds of a game
    spend exactly the same effort and make the same ground program, and a
    budget one atom short of it stops the build."""
    game = load_game("breakthrough")
    first, second = ground(game.rules, game.roles), ground(game.rules, game.roles)
    assert first.effort == second.effort > 0
    assert first.atoms == second.atoms and first.rule_lits == second.rule_lits
    with pytest.raises(GroundingTooLarge, match="candidate atoms"):
        ground(game.rules, game.roles, effort=first.effort - 1)
    assert ground(game.rules, game.roles, effort=first.effort).rule_head == first.rule_head


def test_an_effort_object_names_its_limit():
    effort = Effort(10)
    effort.spend(10, "r")
    assert effort.used == 10
    with pytest.raises(TooMuchWork, match="more than 10 candidate atoms .at relation 'r'"):
        effort.spend(1, "r")


#: Public games each rewrite fixed, built in CI and played; those whose
#: static relations the reference reasoner computes quickly are compared
#: with it (mummymaze1p's 6.5 million static facts take it minutes,
#: gt_two_thirds_4p's sums four; the slow run compares every corpus game,
#: tests/test_compiled.py).
FIXED = {
    "mummymaze1p": "a constant maze's walls and a demanded direction relation",
    "gt_two_thirds_4p": "the chain of four sums condensed",
    "quad_7x7": "joins ordered by fan-out",
    "knightwar": "a role-less legal move",
    "crossers3": "goals condensed",
}
SLOW_REFERENCE = {"mummymaze1p", "gt_two_thirds_4p"}


@needs_shared()
@pytest.mark.parametrize("name", sorted(FIXED))
def test_public_games_the_grounder_now_builds(name):
    game = load_game(SHARED / "corpus" / f"{name}.kif")
    sm = game.state_machine("compiled")
    assert sm.name == "compiled"
    steps, _, cut = sm.playouts(sm.initial_state(), 20, seed=1)
    assert steps > 0 and cut == 0
    if name not in SLOW_REFERENCE:
        done, steps = compare(game, playouts=3, seconds=20.0)
        assert done >= 1 or steps >= 20


def test_a_loaded_machine_builds_the_same_network():
    """Two processes burn both cores while a game builds: the network is
    the one built on a quiet machine, node for node (no limit is counted in
    seconds)."""
    import subprocess
    import sys

    game = load_game("breakthrough")
    quiet = game.state_machine("compiled")
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        loaded = load_game("breakthrough").state_machine("compiled")
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    assert loaded.name == quiet.name == "compiled"
    assert loaded.build_effort == quiet.build_effort
    assert loaded.ground_program.atoms == quiet.ground_program.atoms
    quiet_arrays, loaded_arrays = quiet.network.arrays(), loaded.network.arrays()
    for key, value in quiet_arrays.items():
        assert np.array_equal(np.asarray(loaded_arrays[key]), np.asarray(value)), key
