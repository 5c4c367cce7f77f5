"""Extensive-form MCTS in self-play (players.imperfect._infotree, players.learning.selfplay):
SELECT and UPDATE of UCT and Smooth UCT against hand computations, the
information-state tables, Algorithm 1 on Kuhn and Leduc, and `ggp exploit
--player` (Heinrich, "Smooth UCT Search", Algorithms 1-3, eq. 3.1)."""

import csv
import json
import math
from collections import Counter

import pytest
from conftest import in_unit

from ggp.solvers import cfr
from ggp.solvers.efg import flatten
from matches.cli import main
from players.imperfect._infotree import InfoTrees
from players.learning.curves import CSV_FIELDS, checkpoints, plot_curves, write_curve
from players.learning.selfplay import SelfPlay, train

# the thesis' tuned values, c = 1.75 chips on the utilities' scale (a chip is 25 / 50 of it)
KUHN_SMOOTH = {"c": 0.875, "gamma": 0.1, "eta0": 0.9, "d": 0.001}


def node_with(trees, moves, plays):
    """A node of ``moves`` moves updated with (move, reward) ``plays``."""
    u = trees.node(0, 7, moves)
    for a, r in plays:
        trees.update(u, a, r)
    return u


def frequencies(trees, u, n=20_000):
    counts = Counter(trees.select(u) for _ in range(n))
    return [counts[a] / n for a in range(max(counts) + 1)]


# --- UPDATE -------------------------------------------------------------------------------


def test_update_keeps_counts_and_running_means():
    trees = InfoTrees(1, "ucb")
    u = node_with(trees, 3, [(1, 1.0), (1, 2.0), (1, 6.0), (2, -0.5)])
    assert trees.visits(u) == 4
    assert trees.counts(u) == [0, 3, 1]
    assert trees.values(u) == pytest.approx([0.0, 3.0, -0.5])
    assert trees.average(u) == pytest.approx([0.0, 0.75, 0.25])
    assert trees.average(trees.node(0, 8, 4)) == [0.25] * 4  # N(u) = 0: uniform


# --- SELECT: UCT (Algorithm 2) --------------------------------------------------------------


def test_ucb_tries_every_move_first_uniformly():
    trees = InfoTrees(1, "ucb", c=0.0, seed=3)
    u = node_with(trees, 4, [(0, 10.0), (2, 10.0)])
    freq = frequencies(trees, u, 4000)
    assert freq[0] == freq[2] == 0
    assert freq[1] == pytest.approx(0.5, abs=0.05) and freq[3] == pytest.approx(0.5, abs=0.05)


@pytest.mark.parametrize("c, expected", [(0.0, 0), (0.5, 0), (2.0, 1), (5.0, 1)])
def test_ucb_argmax_matches_a_hand_computation(c, expected):
    # N(u) = 11; Q = 1, 0.5, 0.2 with N(u, a) = 6, 2, 3: scores for c = 0.5 are
    # 1.316, 1.048, 0.647 and for c = 2 they are 2.264, 2.690, 1.988
    plays = [(0, 1.0)] * 6 + [(1, 0.0), (1, 1.0)] + [(2, 0.2)] * 3
    trees = InfoTrees(1, "ucb", c=c)
    u = node_with(trees, 3, plays)
    scores = [q + c * math.sqrt(math.log(11) / n) for q, n in [(1.0, 6), (0.5, 2), (0.2, 3)]]
    assert scores.index(max(scores)) == expected
    assert {trees.select(u) for _ in range(50)} == {expected}


def test_ucb_breaks_exact_ties_at_random():
    trees = InfoTrees(1, "ucb", c=1.0, seed=5)
    u = node_with(trees, 3, [(0, 1.0), (1, 1.0), (2, 0.0)])
    freq = frequencies(trees, u, 4000)
    assert freq[0] == pytest.approx(0.5, abs=0.05) and freq[1] == pytest.approx(0.5, abs=0.05)


# --- SELECT: Smooth UCT (Algorithm 3, eq. 3.1) -----------------------------------------------


def test_eta_follows_equation_3_1():
    trees = InfoTrees(1, "smooth", gamma=0.1, eta0=0.9, d=0.5)
    u = trees.node(0, 1, 2)
    for visits, eta in [
        (0, 0.9),
        (4, 0.9 / (1 + 0.5 * 2)),
        (100, 0.9 / (1 + 0.5 * 10)),
        (400, 0.1),
    ]:  # 0.9 / 11 < gamma
        while trees.visits(u) < visits:
            trees.update(u, 0, 0.0)
        assert trees.eta(u) == pytest.approx(eta)
    ucb = InfoTrees(1, "ucb", gamma=0.0, eta0=0.0)
    assert ucb.eta(ucb.node(0, 1, 2)) == 1.0


def test_smooth_select_without_ucb_samples_the_average_policy():
    trees = InfoTrees(1, "smooth", c=1.0, gamma=0.0, eta0=0.0, seed=11)
    u = node_with(trees, 4, [(0, 5.0)] + [(1, 0.0)] * 3 + [(3, 0.0)] * 6)
    assert trees.eta(u) == 0.0
    assert frequencies(trees, u) == pytest.approx([0.1, 0.3, 0.0, 0.6], abs=0.015)


def test_smooth_select_with_eta_one_is_ucb_and_at_zero_visits_too():
    trees = InfoTrees(1, "smooth", c=0.0, gamma=1.0, seed=2)
    u = node_with(trees, 3, [(0, 0.0)] * 5 + [(1, 1.0), (2, 0.5)])
    assert {trees.select(u) for _ in range(100)} == {1}
    fresh = InfoTrees(1, "smooth", gamma=0.0, eta0=0.0, seed=2)
    v = fresh.node(0, 1, 3)
    assert {fresh.select(v) for _ in range(200)} == {0, 1, 2}  # untried, uniformly


# --- the tables ------------------------------------------------------------------------------


def test_tables_grow_and_keep_their_nodes():
    trees = InfoTrees(2, "ucb")
    keys = [0, 2**64 - 1, 2**63] + [k * 0x9E3779B97F4A7C15 for k in range(1, 6000)]
    ids = {k: trees.node(0, k, 1 + k % 5) for k in keys}
    trees.update(ids[0], 0, 4.0)
    others = {k: trees.node(1, k, 2) for k in range(3000)}
    assert len(set(ids.values()) | set(others.values())) == len(keys) + 3000
    assert trees.size(0) == len(keys) and trees.size(1) == 3000
    assert all(trees.find(0, k) == u and trees.node(0, k, 1 + k % 5) == u for k, u in ids.items())
    assert all(trees.find(1, k) == u for k, u in others.items())
    assert trees.find(1, 3000) == -1 and trees.find(0, 1) == -1
    assert trees.find(0, -1) == ids[2**64 - 1]  # keys are taken mod 2**64
    assert trees.values(ids[0])[0] == 4.0 and len(trees.counts(ids[keys[7]])) == 1 + keys[7] % 5


def test_bad_arguments_are_errors(kuhn):
    trees = InfoTrees(2, "smooth")
    u = trees.node(0, 5, 3)
    with pytest.raises(ValueError, match="3 moves"):
        trees.node(0, 5, 2)
    with pytest.raises(IndexError):
        trees.node(2, 5, 3)
    with pytest.raises(IndexError):
        trees.update(u, 3, 1.0)
    with pytest.raises(IndexError):
        trees.select(u + 1)
    with pytest.raises(ValueError):
        InfoTrees(2, "greedy")
    with pytest.raises(ValueError, match="players"):
        InfoTrees(3).selfplay(flatten(kuhn), 1)


# --- Algorithm 1 in self-play ------------------------------------------------------------------


def test_expansion_adds_at_most_one_node_per_player_per_episode(leduc):
    flat = flatten(leduc)
    trees = InfoTrees(2, "smooth", c=1.3846, d=0.002, seed=1)
    trees.selfplay(flat, 1)
    assert (trees.size(0), trees.size(1)) == (1, 1)  # both act in every Leduc episode
    first = 0  # the first node: player 0's
    assert trees.visits(first) == 1 and sorted(trees.counts(first)) == [0, 1]  # updated
    for episode in range(2, 301):
        before = [trees.size(0), trees.size(1)]
        trees.selfplay(flat, 1)
        assert [trees.size(p) - before[p] for p in (0, 1)] in ([0, 0], [0, 1], [1, 0], [1, 1])
        assert trees.size(0) <= episode and trees.size(1) <= episode
    trees.selfplay(flat, 200_000)
    assert (trees.size(0), trees.size(1)) == (468, 468)  # every information state
    assert trees.visits(first) == sum(trees.counts(first)) > 200_000 / 8  # 1 card in 6


def test_untrained_policy_is_uniform(kuhn):
    learner = SelfPlay(kuhn, "smooth-uct")
    assert learner.params["c"] == 0.8  # 40 goal points of the 0..100 goals
    assert in_unit(kuhn, learner.exploitability()) == pytest.approx(0.458333, abs=1e-6)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_smooth_uct_learns_kuhn_and_uct_does_less_well(kuhn, seed):
    smooth = train(kuhn, "smooth-uct", KUHN_SMOOTH, 10**6, [10**4, 10**5], seed=seed)
    gaps = [in_unit(kuhn, p.exploitability) for p in smooth.curve]
    assert [p.episodes for p in smooth.curve] == [10**4, 10**5, 10**6]
    assert gaps[0] > gaps[1] > gaps[2]
    assert gaps[1] < 0.03 and gaps[2] < 0.006  # uniform: 0.458 chip
    uct = train(kuhn, "efg-uct:c=1", None, 10**6, [], seed=seed)
    assert in_unit(kuhn, uct.curve[-1].exploitability) > 2 * gaps[2]


def test_selfplay_is_deterministic_for_a_seed(leduc):
    policies = [
        SelfPlay(leduc, "smooth-uct:c=1.3846,d=0.002", seed=s).run(20_000).average_policy()
        for s in (4, 4, 5)
    ]
    assert policies[0] == policies[1] != policies[2]


def test_efg_uct_has_no_mixing_parameters(kuhn):
    with pytest.raises(ValueError, match="unknown parameters eta0, gamma"):
        SelfPlay(kuhn, "efg-uct:c=1,gamma=0,eta0=0")
    learner = SelfPlay(kuhn, "efg-uct:c=1", seed=1).run(1000)
    node = learner.trees.find(0, 0)
    assert learner.trees.eta(node) == 1.0
    assert learner.spec == "efg-uct:c=1"
    assert SelfPlay(kuhn, "smooth-uct", c=2).spec == "smooth-uct:c=2,gamma=0.1,eta0=0.9,d=0.001"


@pytest.mark.parametrize(
    "spec, message",
    [
        ("uct", "does not learn by self-play"),
        ("nope", "unknown self-play player"),
        ("smooth-uct:tau=1", "unknown parameter"),
        ("smooth-uct:gamma=2", r"gamma=2: expected a number in \[0, 1\]"),
        ("smooth-uct:simulations=10", "unknown parameter simulations"),
    ],
)
def test_bad_players(kuhn, spec, message):
    with pytest.raises(ValueError, match=message):
        SelfPlay(kuhn, spec)


def test_checkpoints_are_log_spaced():
    assert checkpoints(20_000) == [1000, 2000, 5000, 10_000, 20_000]
    assert checkpoints(10**5) == [1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000]
    assert checkpoints(300) == [300]


# --- ggp exploit --player ----------------------------------------------------------------------


def run_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_learns_and_writes_the_curve(capsys, tmp_path, kuhn):
    curve, policy = tmp_path / "kuhn.csv", tmp_path / "policy.json"
    data = run_json(
        capsys,
        "exploit",
        "kuhn",
        "--player",
        "smooth-uct:c=0.875",
        "--episodes",
        "20000",
        "--curve",
        str(curve),
        "--seed",
        "3",
        "--out",
        str(policy),
    )
    assert {
        "game",
        "player",
        "episodes",
        "exploitability",
        "exploitability_in_unit",
        "unit",
        "episodes_per_sec",
        "seconds",
    } <= set(data)
    assert (data["game"], data["episodes"], data["unit"]) == ("kuhn", 20000, "chip")
    assert data["exploitability"] == pytest.approx(25 * data["exploitability_in_unit"])
    assert 0 < data["exploitability_in_unit"] < 0.458
    learned = cfr.load_policy(kuhn, policy)
    assert in_unit(kuhn, cfr.exploitability(kuhn, learned)) == pytest.approx(
        data["exploitability_in_unit"]
    )
    run_json(
        capsys,
        "exploit",
        "kuhn",
        "--player",
        "efg-uct:c=1",
        "--episodes",
        "5000",
        "--curve",
        str(curve),
        "--append",
    )
    with curve.open() as f:
        rows = list(csv.DictReader(f))
    assert [int(r["episodes"]) for r in rows] == [
        1000,
        2000,
        5000,
        10_000,
        20_000,
        1000,
        2000,
        5000,
    ]
    assert {r["player"] for r in rows} == {
        "smooth-uct:c=0.875,gamma=0.1,eta0=0.9,d=0.001",
        "efg-uct:c=1",
    }
    assert float(rows[4]["exploitability"]) == pytest.approx(data["exploitability"])
    assert curve.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--player", "uct"], "does not learn by self-play"),
        (["--player", "smooth-uct", "--episodes", "0"], "expected an integer >= 1, got '0'"),
        (["--policy", "uniform", "--episodes", "10"], "only with --player"),
        (["--player", "smooth-uct", "--curve", "/nonexistent/kuhn.csv"], "no such directory"),
    ],
)
def test_cli_self_play_errors_are_one_line(capsys, argv, message):
    assert main(["exploit", "kuhn", *argv, "--json"]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert set(error) == {"kind", "message", "file", "line", "column"}
    assert message in error["message"] and "\n" not in error["message"]


def test_a_curve_file_of_the_old_column_name_is_read_and_appended_to(tmp_path):
    """Curve files written when the exploitability in the game's unit was
    ``exploitability_unit`` (rows in benchmarks/results) are still plotted, and a run
    appended to one keeps its columns; a file of other columns is refused."""
    old = tmp_path / "old.csv"
    header = [
        name if name != "exploitability_in_unit" else "exploitability_unit" for name in CSV_FIELDS
    ]
    row = {"game": "kuhn", "player": "p", "seed": 0, "unit": "chip", "seconds": 1.0}
    with old.open("w", newline="") as f:
        writer = csv.DictWriter(f, header)
        writer.writeheader()
        writer.writerow(
            {**row, "episodes": 1000, "exploitability": 5.0, "exploitability_unit": 0.2}
        )
    write_curve(
        old,
        [{**row, "episodes": 2000, "exploitability": 2.5, "exploitability_in_unit": 0.1}],
        append=True,
    )
    rows = list(csv.DictReader(old.open()))
    assert list(rows[0]) == header
    assert [r["exploitability_unit"] for r in rows] == ["0.2", "0.1"]
    plot_curves(old, tmp_path / "old.png")
    assert (tmp_path / "old.png").read_bytes()[:4] == b"\x89PNG"
    (tmp_path / "other.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="not a curve file"):
        write_curve(tmp_path / "other.csv", [], append=True)
