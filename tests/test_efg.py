"""The extensive-form view (ggp.solvers.efg), CFR / CFR+ and exploitability (ggp.solvers.cfr),
checked on our GDL-II Kuhn poker against OpenSpiel's figures
(../shared/REFERENCES.md), and the `ggp info --tree`, `solve`, `exploit` commands."""

import json

import pytest
from conftest import in_unit, values_in_unit

from ggp import load_game
from ggp.solvers import cfr
from ggp.solvers.efg import CHANCE, DECISION, Unit, build_tree
from ggp.solvers.solve import make_solver
from matches.cli import main


@pytest.mark.parametrize("reasoner", ["compiled", "reference"])
def test_kuhn_counts_match_openspiel(reasoner):
    tree = build_tree(load_game("kuhn"), reasoner)
    assert (tree.histories, tree.terminals) == (58, 30)
    assert tree.information_states() == {"first": 6, "second": 6}
    assert tree.kind.count(CHANCE) == 1 + 3
    assert tree.kind.count(DECISION) == 6 * 4


def test_kuhn_unit_and_zero_sum(kuhn):
    # utilities on the -1..1 scale of Kuhn's goals 0..100; figures in the declared chips
    assert (kuhn.unit, kuhn.display) == (Unit("utility", 50.0, 50.0), Unit("chip", 25.0, 50.0))
    payoffs = sorted({u for u in kuhn.utility if u})
    assert payoffs == [(-1, 1), (-0.5, 0.5), (0.5, -0.5), (1, -1)]


def test_information_states_hide_the_other_card(kuhn):
    for info in kuhn.infosets:
        assert len(info.nodes) == 2  # the two cards the opponent may hold
        assert info.key.startswith(kuhn.players[info.player] + ":")


def test_uniform_policy_exploitability(kuhn):
    gap = in_unit(kuhn, cfr.exploitability(kuhn, cfr.uniform_policy(kuhn)))
    assert gap == pytest.approx(0.458333, abs=1e-6)


@pytest.mark.parametrize(
    "algo, figures",
    [
        ("cfr", {10: 0.0686988, 100: 0.00822598, 1000: 0.0009376}),
        ("cfr+", {10: 0.0326871, 100: 0.0011944, 1000: 0.00008737}),
    ],
)
def test_cfr_exploitability_matches_openspiel(kuhn, algo, figures):
    solver = cfr.CFRSolver(kuhn, plus=algo == "cfr+")
    for iterations, expected in figures.items():
        solver.run(iterations - solver.iteration)
        gap = in_unit(kuhn, cfr.exploitability(kuhn, solver.average_policy()))
        assert gap == pytest.approx(expected, abs=1e-6)


def test_cfr_plus_value_is_kuhns(kuhn):
    values = values_in_unit(
        kuhn, cfr.expected_values(kuhn, make_solver(kuhn, "cfr+").run(1000).average_policy())
    )
    assert values[0] == pytest.approx(-1 / 18, abs=1e-3)
    assert values[1] == pytest.approx(1 / 18, abs=1e-3)


def test_policy_file_round_trip(kuhn, tmp_path):
    policy = make_solver(kuhn, "cfr").run(20).average_policy()
    path = tmp_path / "policy.json"
    cfr.save_policy(kuhn, policy, path)
    loaded = cfr.load_policy(kuhn, path)
    assert [p for probs in loaded for p in probs] == pytest.approx(
        [p for probs in policy for p in probs]
    )
    data = json.loads(path.read_text())
    del data[kuhn.infosets[0].key]
    with pytest.raises(ValueError, match="no entry"):
        cfr.policy_from_dict(kuhn, data)


def test_simultaneous_moves_are_hidden_within_a_step():
    tree = build_tree(load_game("rps"))  # GDL-I: every player sees past joint moves
    assert (tree.histories, tree.terminals) == (4 + 36 + 324 + 729, 729)
    assert tree.information_states() == {"left": 91, "right": 91}
    first_right = next(i for i in tree.infosets if i.player == 1)
    assert len(first_right.nodes) == 3  # right does not see left's rock/paper/scissors
    assert cfr.exploitability(tree, cfr.uniform_policy(tree)) == pytest.approx(0.0, abs=1e-9)


def run_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_info_tree(capsys):
    data = run_json(capsys, "info", "kuhn", "--tree")
    assert (data["histories"], data["terminals"]) == (58, 30)
    assert data["information_states"] == {"first": 6, "second": 6}


def test_cli_solve_and_exploit(capsys, tmp_path):
    out = tmp_path / "kuhn.json"
    data = run_json(
        capsys, "solve", "kuhn", "--algo", "cfr", "--iterations", "100", "--out", str(out)
    )
    # every command reports goal points and the game's unit, under the same keys
    assert data["unit"] == "chip"
    assert data["exploitability_in_unit"] == pytest.approx(0.00822598, abs=1e-6)
    assert data["exploitability"] == pytest.approx(25 * 0.00822598, abs=1e-5)
    assert data["values_in_unit"]["first"] == pytest.approx(-1 / 18, abs=0.01)
    assert data["values"]["first"] == pytest.approx(50 - 25 / 18, abs=0.25)
    solved = data
    data = run_json(capsys, "exploit", "kuhn", "--policy", str(out))
    for key in ("unit", "exploitability", "exploitability_in_unit", "values", "values_in_unit"):
        assert data[key] == pytest.approx(solved[key]) if key != "unit" else data[key] == "chip"
    data = run_json(capsys, "exploit", "kuhn", "--policy", "uniform")
    assert data["exploitability"] == pytest.approx(25 * 0.458333, abs=1e-4)
    assert data["exploitability_in_unit"] == pytest.approx(0.458333, abs=1e-6)


def test_cli_exploit_rejects_a_bad_policy(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert main(["exploit", "kuhn", "--policy", str(bad), "--json"]) == 1
    assert "no entry" in json.loads(capsys.readouterr().out)["error"]["message"]


# --- Leduc hold'em and imperfect-information Goofspiel, written for this project ----------


def test_leduc_matches_openspiel(leduc):
    assert (leduc.histories, leduc.terminals) == (9457, 5520)
    assert leduc.information_states() == {"first": 468, "second": 468}
    uniform = cfr.uniform_policy(leduc)
    assert in_unit(leduc, cfr.exploitability(leduc, uniform)) == pytest.approx(2.373611, abs=1e-6)
    assert values_in_unit(leduc, cfr.expected_values(leduc, uniform))[0] == pytest.approx(
        -0.078125, abs=1e-9
    )


@pytest.mark.parametrize("algo, figure", [("cfr", 0.888579), ("cfr+", 0.610439)])
def test_leduc_cfr_after_ten_iterations_matches_openspiel(leduc, algo, figure):
    policy = make_solver(leduc, algo).run(10).average_policy()
    assert in_unit(leduc, cfr.exploitability(leduc, policy)) == pytest.approx(figure, abs=1e-6)


def test_iigs4_matches_openspiel():
    tree = build_tree(load_game("iigs4"))
    assert tree.terminals == 576
    assert tree.information_states() == {"first": 81, "second": 81}
    gap = in_unit(tree, cfr.exploitability(tree, cfr.uniform_policy(tree)))
    assert gap == pytest.approx(0.708333, abs=1e-6)


@pytest.mark.parametrize("algo, figure", [("cfr", 0.0957164), ("cfr+", 0.0134160)])
def test_leduc_cfr_after_a_hundred_iterations_matches_openspiel(leduc, algo, figure):
    policy = make_solver(leduc, algo).run(100).average_policy()
    assert in_unit(leduc, cfr.exploitability(leduc, policy)) == pytest.approx(figure, abs=1e-6)


@pytest.mark.slow
def test_leduc_cfr_plus_below_1e_5_within_a_minute(leduc):
    import time

    start = time.perf_counter()
    solver = cfr.CFRSolver(leduc, plus=True)
    while in_unit(leduc, cfr.exploitability(leduc, solver.run(100).average_policy())) >= 1e-5:
        assert time.perf_counter() - start < 60
    assert time.perf_counter() - start < 60


@pytest.mark.parametrize("name", ["kuhn", "leduc", "iigs5", "rps"])
def test_the_estimate_of_the_histories_is_near_the_count(name):
    """Knuth's estimator over 1,000 random paths lands within 10% of the
    tree's exact count on these games."""
    from ggp.solvers.efg import estimate_histories

    game = load_game(name)
    estimate, paths = estimate_histories(game, seconds=60)
    assert paths == 1000
    assert estimate == pytest.approx(build_tree(game).histories, rel=0.1)
