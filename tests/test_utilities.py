"""Utilities found in the rules (``Game.goal_range``, ``ggp.solvers.efg.utility_unit``):
every solver, learner and search of imperfect information computes the same on
a file with and without this project's ``; efg:`` header line; the header only
names the unit figures are reported in."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from ggp import load_game
from ggp.solvers.cfr import exploitability
from ggp.solvers.efg import Unit, build_tree, utility_unit
from ggp.solvers.solve import solve
from players.imperfect.evaluation import online_policy
from players.imperfect.online import View
from players.learning.selfplay import learner_for

HEADER = re.compile(r"^\s*;+\s*efg:.*$", re.MULTILINE)


def without_header(name: str, folder) -> str:
    """The path of a copy of ``games_gdl/NAME.kif`` without its header line."""
    source = open(load_game(name).description.path).read()
    assert Unit.parse(source) != Unit()  # the file has one to take out
    path = folder / f"{name}.kif"
    path.write_text(HEADER.sub("; (the unit line taken out)", source))
    return str(path)


@pytest.fixture(scope="module", params=["kuhn", "leduc", "iigs5"])
def pair(request, tmp_path_factory):
    """(the game with its header, the same rules without)."""
    name = request.param
    plain = load_game(without_header(name, tmp_path_factory.mktemp(name)))
    return load_game(name), plain


@pytest.fixture(scope="module")
def trees(pair):
    return tuple(build_tree(g) for g in pair)


def test_the_goal_range_is_read_from_the_rules():
    assert load_game("kuhn").goal_range == (0, 100)
    assert load_game("leduc").goal_range == (11, 89)  # goals through a payoff table
    assert utility_unit(load_game("leduc")) == Unit("utility", 39.0, 50.0)
    assert load_game("""(role a) (role random) (init (s 0))
        (<= (legal a go) (true (s 0))) (<= (legal random go) (true (s 0)))
        (<= (next (s 1)) (true (s 0))) (<= terminal (true (s 1)))
        (pay 20) (pay 70) (<= (goal a ?x) (pay ?x)) (goal random 100)""").goal_range == (20, 70)


def test_a_goal_range_past_the_limits_is_gdls_with_a_warning(monkeypatch):
    import ggp.game

    monkeypatch.setattr(ggp.game, "GOAL_FACTS", 3)
    game = load_game("leduc")
    with pytest.warns(UserWarning, match="goal values are not bounded.*0..100"):
        assert game.goal_range == (0, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert game.goal_range == (0, 100)  # warned once


def test_the_tree_is_the_same_without_the_header(trees):
    marked, plain = trees
    assert marked.utility == plain.utility and marked.unit == plain.unit
    low, high = min(min(u) for u in marked.utility if u), max(max(u) for u in marked.utility if u)
    assert low >= -1 and high <= 1 and max(-low, high) == 1  # the range is the game's
    assert plain.display == Unit() and marked.display.name != "goal points"
    gap = 0.125
    assert plain.in_units(gap)["exploitability"] == marked.in_units(gap)["exploitability"]
    assert plain.in_units(gap)["exploitability_in_unit"] == gap * marked.unit.scale


@pytest.mark.parametrize("algo", ["cfr+", "mccfr", "mccfr:sampling=external"])
def test_a_solver_solves_the_same_without_the_header(trees, algo):
    curves = [solve(t, algo, 300, seed=3)[1] for t in trees]
    assert curves[0][-1][2] == curves[1][-1][2] > 0


@pytest.mark.parametrize(
    "spec, episodes", [("smooth-uct", 20_000), ("efg-uct", 20_000), ("nfsp", 600), ("mc-nfsp", 60)]
)
def test_a_learner_learns_the_same_without_the_header(trees, spec, episodes):
    policies = [learner_for(t, spec, {"seed": 5}).run(episodes).average_policy() for t in trees]
    assert policies[0] == policies[1] or np.array_equal(policies[0], policies[1])
    gaps = [exploitability(t, p) for t, p in zip(trees, policies)]
    assert gaps[0] == gaps[1] > 0


@pytest.mark.parametrize(
    "spec, budget", [("mccr", 30), ("oos", 30), ("ismcts", 40), ("smooth-uct", 40)]
)
def test_an_online_player_plays_the_same_without_the_header(pair, trees, spec, budget):
    if pair[0].name != "kuhn":
        pytest.skip("Kuhn only: the online evaluation visits every decision")
    policies = [online_policy(g, View(t), spec, 1, budget) for g, t in zip(pair, trees)]
    assert np.array_equal(np.concatenate(policies[0]), np.concatenate(policies[1]))
