"""Monte Carlo CFR (ggp.solvers.mccfr, ggp.solvers._mccfr): convergence against the figures of
OpenSpiel's solvers (REFERENCES.md), unbiased targeting, and ggp solve --algo mccfr."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from conftest import in_unit

from ggp import load_game
from ggp.solvers.cfr import CFRSolver, exploitability, uniform_policy
from ggp.solvers.efg import build_tree
from ggp.solvers.mccfr import MCCFRSolver
from ggp.solvers.solve import parse_algo
from matches.cli import main


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_outcome_sampling_converges_on_kuhn(kuhn, seed):
    # OpenSpiel's outcome sampling: 0.0013-0.0046 chip after 1e6 iterations
    solver = MCCFRSolver(kuhn, seed=seed).run(1_000_000)
    assert in_unit(kuhn, exploitability(kuhn, solver.average_policy())) < 0.01


def test_external_sampling_converges_on_kuhn(kuhn):
    solver = MCCFRSolver(kuhn, sampling="external", seed=1).run(100_000)
    assert in_unit(kuhn, exploitability(kuhn, solver.average_policy())) < 0.005


def test_outcome_sampling_on_leduc_is_openspiels(leduc):
    # OpenSpiel, mean of 3 seeds: 1.08 chips after 1e4 iterations, 0.557 after 1e5
    solver = MCCFRSolver(leduc, seed=1).run(10_000)
    assert 0.6 < in_unit(leduc, exploitability(leduc, solver.average_policy())) < 1.6
    solver.run(90_000)
    assert 0.3 < in_unit(leduc, exploitability(leduc, solver.average_policy())) < 0.8


def test_same_seed_same_tables_other_seed_other_tables(kuhn):
    a = MCCFRSolver(kuhn, seed=5).run(1000)
    b = MCCFRSolver(kuhn, seed=5).run(1000)
    c = MCCFRSolver(kuhn, seed=6).run(1000)
    assert a.regret == b.regret and a.cumulative == b.cumulative
    assert a.regret != c.regret


def test_regrets_are_unbiased_with_and_without_targeting(kuhn):
    """From the uniform policy, the expected sampled regrets of one
    iteration are the true counterfactual regrets (Lanctot et al. 2009, Lemma 1),
    whatever the sampling scheme: plain, or targeted at one information state
    (Lisy et al. 2015).  Averaged over many one-iteration solvers they agree with
    full-width CFR's first iteration."""
    from ggp.solvers.cfr import CFRSolver
    from ggp.solvers.efg import flatten

    flat = flatten(kuhn)
    exact = np.concatenate([np.array(r) for r in CFRSolver(kuhn).run(1).regret])
    target_node = kuhn.infosets[3].nodes[0]
    mask = _ancestors_and_below(kuhn, [target_node])
    for targeted in (False, True):
        total = np.zeros_like(exact)
        runs = 20_000
        for seed in range(runs):
            solver = MCCFRSolver(kuhn, seed=seed, flat=flat)
            if targeted:
                solver.target(mask, 0.9)
            solver.run(1)
            total += np.concatenate([np.array(r) for r in solver.regret])
        # one CFR iteration updates player 0 then player 1 against player 0's
        # new policy; with alternating updates the second player's regrets differ
        first = np.array(
            [
                kuhn.infosets[i].player == 0
                for i in range(len(kuhn.infosets))
                for _ in kuhn.infosets[i].moves
            ]
        )
        assert np.allclose(total[first] / runs, exact[first], atol=0.06)


def _ancestors_and_below(tree, nodes):
    parent = {c: n for n, kids in enumerate(tree.children) for c in kids}
    mask = np.zeros(tree.histories, dtype=np.uint8)
    stack = list(nodes)
    while stack:
        n = stack.pop()
        mask[n] = 1
        stack.extend(tree.children[n])
    for n in nodes:
        while n in parent:
            n = parent[n]
            mask[n] = 1
    return mask


def test_parse_algo():
    assert parse_algo("cfr+") == ("cfr+", {})
    assert parse_algo("mccfr:sampling=external,epsilon=0.4") == (
        "mccfr",
        {"sampling": "external", "epsilon": 0.4},
    )
    for bad in ("mccfr:sampling=some", "mccfr:epsilon=0", "mccfr:eps=1", "cfr:x=1", "dcfr"):
        with pytest.raises(ValueError):
            parse_algo(bad)


def test_cli_solve_mccfr_with_a_curve(capsys, tmp_path):
    out = tmp_path / "curve.csv"
    assert (
        main(
            [
                "solve",
                "kuhn",
                "--algo",
                "mccfr",
                "--iterations",
                "20000",
                "--seed",
                "3",
                "--curve",
                str(out),
                "--json",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["iterations"] == 20000 and data["seed"] == 3
    rows = list(csv.DictReader(out.open()))
    assert [int(r["episodes"]) for r in rows] == [1000, 2000, 5000, 10000, 20000]
    assert float(rows[-1]["exploitability_in_unit"]) == pytest.approx(
        data["exploitability_in_unit"]
    )
    assert float(rows[0]["exploitability_in_unit"]) < exploitability(
        build_tree(load_game("kuhn")), uniform_policy(build_tree(load_game("kuhn")))
    )
    assert out.with_suffix(".png").stat().st_size > 0


def test_cli_solve_for_seconds(capsys):
    assert (
        main(["solve", "kuhn", "--algo", "mccfr:sampling=external", "--seconds", "0.2", "--json"])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["iterations"] > 1000 and data["iterations_per_sec"] > 0


@pytest.mark.parametrize(
    "argv",
    [
        ["--algo", "mccfr:sampling=full"],
        ["--algo", "mccfr", "--iterations", "0"],
        ["--iterations", "10", "--seconds", "1"],
        ["--algo", "mccfr:epsilon=2"],
    ],
)
def test_cli_solve_rejects_bad_input_in_one_line(capsys, argv):
    assert main(["solve", "kuhn", *argv]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("seed", [1, 2])
def test_tracked_values_average_the_iterations_values(kuhn, seed):
    """Outcome sampling's tracked values (what ``mccr`` keeps by default): at
    the root every traversal counts a reach of 1, and the value per unit of
    reach, averaged over the iterations, goes to the second player's value of
    Kuhn, 1/18 chip (1/36 on the -1..1 utilities); CFR's exact tracking too."""
    solver = MCCFRSolver(kuhn, seed=seed).track(1).run(1_000_000)
    value, reach = solver.tracked()
    assert reach[0] == 2_000_000
    assert value[0] / reach[0] == pytest.approx(1 / 36, abs=0.002)
    exact = CFRSolver(kuhn).track(1).run(3000)
    value, reach = exact.tracked()
    assert reach[0] == 3000 and value[0] / reach[0] == pytest.approx(1 / 36, abs=0.002)
    with pytest.raises(ValueError, match="outcome sampling only"):
        MCCFRSolver(kuhn, sampling="external").track(1)
