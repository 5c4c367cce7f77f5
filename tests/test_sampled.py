"""MCCFR over a tree grown by sampling (players.imperfect.sampled) and the solving
players on games whose whole tree is too large to build."""

from __future__ import annotations

import gc
import logging
import time

import pytest

import players
from ggp import load_game
from ggp.solvers.cfr import exploitability
from ggp.solvers.efg import build_tree, utility_unit
from matches.manager import run_match
from players.belief import ROOT_KEY, Steps, extend_key
from players.imperfect.evaluation import online_policy
from players.imperfect.online import View
from players.imperfect.sampled import SampledMCCFR, Target


@pytest.fixture(scope="module")
def kuhn():
    game = load_game("kuhn")
    steps = Steps(game.state_machine("compiled"), True)
    return game, build_tree(game), steps


def solver_for(game, steps, seed):
    unit = utility_unit(game)
    return SampledMCCFR(steps, lambda goals: [unit.from_goal(g) for g in goals], seed=seed)


def tree_policy(tree, steps, solver):
    """The solver's average strategy at every information state of the whole
    tree (found by the key of the state's observation history)."""
    policy = []
    for info in tree.infosets:
        r = steps.roles.index(tree.players[info.player])
        key = ROOT_KEY
        for move, seen in info.history:
            key = extend_key(key, steps.move_id(r, move), steps.seen_ids(r, seen))
        moves, probs = solver.policy(r, key)
        policy.append([probs[moves.index(steps.move_id(r, m))] for m in info.moves])
    return policy


def test_sampled_outcome_sampling_converges_on_kuhn(kuhn):
    game, tree, steps = kuhn
    solver = solver_for(game, steps, seed=1)
    early = exploitability(tree, tree_policy(tree, steps, solver.run(1000)))
    late = exploitability(tree, tree_policy(tree, steps, solver.run(99_000)))
    assert late < 0.02 < early
    # the tree holds exactly the information states that were sampled: all of Kuhn's
    assert sum(map(len, solver.tables)) == len(tree.infosets)


def test_the_sampled_tree_adds_nothing_for_the_garbage_collector_to_scan():
    """Nodes as objects made full collections take up to 0.7 s on stratego, past
    a 1 s play clock; the flat tables add a few objects however many nodes."""
    game = load_game("iigs13")
    solver = solver_for(game, Steps(game.state_machine("compiled"), True), seed=4)
    gc.collect()
    before = len(gc.get_objects())
    solver.run(300)
    gc.collect()
    assert sum(map(len, solver.tables)) > 5000
    assert len(gc.get_objects()) - before < 100


def test_a_deadline_stops_the_traversal_under_way():
    game = load_game("iigs13")
    solver = solver_for(game, Steps(game.state_machine("compiled"), True), seed=5)
    solver.run(10**9, until=time.monotonic() - 1)
    assert sum(map(len, solver.tables)) == 0, "the abandoned traversal updated nothing"
    began = time.monotonic()
    solver.run(10**9, until=began + 0.2)
    assert time.monotonic() - began < 1.0
    assert sum(map(len, solver.tables)) > 0


def test_targeting_keeps_the_estimates_unbiased(kuhn):
    """With 90% of the traversals replaying two deals (one three times as
    likely), the mixture probabilities still make the average converge."""
    game, tree, steps = kuhn
    first = steps.legal(steps.sm.initial_state())
    paths = [[tuple(m[k] if len(m) > 1 else m[0] for m in first)] for k in (0, 1)]
    solver = solver_for(game, steps, seed=2)
    solver.target = Target(paths, [1, 3], 0.9)
    assert exploitability(tree, tree_policy(tree, steps, solver.run(100_000))) < 0.05


def test_sampled_players_online_exploitability_falls_with_the_budget():
    game = load_game("kuhn")
    view = View(build_tree(game))
    for spec in ("mccr:tree=sampled", "oos:tree=sampled,targeting=ist"):
        small = exploitability(view.tree, online_policy(game, view, spec, 2, 10))
        large = exploitability(view.tree, online_policy(game, view, spec, 2, 1000))
        assert large < small and large < 0.12, spec


@pytest.fixture
def fresh_warnings(monkeypatch):
    """Forget the warnings given so far (each is given once per process)."""
    import players.imperfect.online

    monkeypatch.setattr(players.imperfect.online, "_WARNED", set())


def test_a_game_too_large_is_solved_over_a_sampled_tree_with_one_warning(caplog, fresh_warnings):
    game = load_game("iigs13")
    with caplog.at_level(logging.WARNING, logger="players.imperfect.online"):
        for seed in (1, 2):
            player = players.make(f"mccr:iterations=50,seed={seed}")
            seats = {"first": player, "second": players.make("random:seed=3")}
            record = run_match(game, seats, seed=seed, start_clock=1)
            assert player.sampled and player.fallback is None
            assert not [e for step in record.errors for e in step if e]
            assert player.kept, "the resolves kept the opponent's values"
    assert sum("tree grown by sampling" in r.message for r in caplog.records) == 1


def test_oos_public_targeting_on_a_sampled_tree_warns_once(caplog, fresh_warnings):
    game = load_game("iigs5")
    with caplog.at_level(logging.WARNING, logger="players.imperfect.online"):
        for seed in (1, 2):
            seats = {
                "first": players.make(f"oos:tree=sampled,iterations=20,seed={seed}"),
                "second": players.make("random:seed=3"),
            }
            run_match(game, seats, seed=seed)
    assert sum("targeting the information state" in r.message for r in caplog.records) == 1


def test_mccr_plays_a_game_it_cannot_resolve_as_ismcts(caplog, fresh_warnings):
    with caplog.at_level(logging.WARNING, logger="players.imperfect.online"):
        player = players.make("mccr:tree=sampled,iterations=20,seed=1")
        seats = {"x": player, "o": players.make("random:seed=2"), "z": players.make("random")}
        game = load_game("tictactoe3p")
        seats = dict(zip(game.roles, seats.values()))
        run_match(game, seats, seed=3)
    assert player.fallback is not None
    assert any("needs two players" in r.message for r in caplog.records)


def test_sampled_mccr_without_kept_values_plays_its_last_solve_with_one_warning(
    caplog, fresh_warnings, monkeypatch
):
    """A gadget none of whose histories has a kept value for the opponent
    would not bound what the opponent gets: sampled MCCR does not resolve
    then, it plays the strategy of its last solve, and says so once."""
    monkeypatch.setattr(SampledMCCFR, "kept_values", lambda self: {})
    resolves = []
    monkeypatch.setattr(SampledMCCFR, "resolving", lambda self, gadget: resolves.append(gadget))
    game = load_game("kuhn")
    with caplog.at_level(logging.WARNING, logger="players.imperfect.online"):
        for seed in range(1, 9):  # some of these matches give mccr a second decision
            seats = {
                "first": players.make(f"mccr:tree=sampled,iterations=50,seed={seed}"),
                "second": players.make(f"random:seed={seed}"),
            }
            record = run_match(game, seats, seed=seed)
            assert not [e for step in record.errors for e in step if e]
    assert not resolves
    assert sum("no value was kept" in r.message for r in caplog.records) == 1
