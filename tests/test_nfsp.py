"""Neural Fictitious Self-Play (players.learning.nfsp) and its numpy networks (players.learning.neural)."""

import json
import math

import numpy as np
import pytest

import players
from ggp import load_game
from ggp.solvers.cfr import exploitability, uniform_policy
from ggp.solvers.efg import Unit, build_tree, game_unit
from ggp.solvers.features import Encoding
from matches.cli import main
from matches.manager import run_match
from players.learning.neural import (
    Adam,
    NeuralNetwork,
    OneHot,
    Reservoir,
    policy_loss,
    policy_value_loss,
    q_loss,
)
from players.learning.nfsp import NFSP
from players.learning.selfplay import train


def numeric_gradient(net, x, loss, eps=1e-6):
    grads = []
    for w in net.params:
        g = np.zeros_like(w)
        for idx in np.ndindex(w.shape):
            old = w[idx]
            w[idx] = old + eps
            up = loss(net.forward(x))[0]
            w[idx] = old - eps
            down = loss(net.forward(x))[0]
            w[idx] = old
            g[idx] = (up - down) / (2 * eps)
        grads.append(g)
    return grads


@pytest.mark.parametrize("which", ["q", "policy", "distribution", "policy-value"])
def test_gradients_match_finite_differences(which):
    rng = np.random.default_rng(0)
    net = NeuralNetwork((6, 5, 5 if which == "policy-value" else 4), rng)
    x = rng.normal(size=(7, 6))
    actions = rng.integers(0, 4, 7)
    legal = rng.random((7, 4)) < 0.7
    legal[np.arange(7), actions] = True
    # a search's visit distribution over the legal moves (MC-NFSP's targets)
    visits = np.where(legal, rng.random((7, 4)), 0.0)
    visits /= visits.sum(axis=1, keepdims=True)
    if which == "q":
        loss = q_loss(actions, rng.normal(size=7))
    elif which == "policy":
        loss = policy_loss(actions, legal)
    elif which == "distribution":
        loss = policy_loss(visits, legal)
    else:
        loss = policy_value_loss(visits, legal, rng.uniform(-1, 1, 7))
    _, grads = net.gradients(x, loss)
    for analytic, numeric in zip(grads, numeric_gradient(net, x, loss)):
        assert np.allclose(analytic, numeric, atol=1e-6)


@pytest.mark.parametrize("sizes", [(40, 16, 5), (40, 16, 8, 5)])
def test_one_hot_rows_give_the_dense_outputs_and_gradients(sizes):
    """A batch of :class:`OneHot` rows (first layer in C on the positions of
    the ones) against the same rows as a dense matrix, repeated rows included."""
    rng = np.random.default_rng(5)
    matrix = (rng.random((30, sizes[0])) < 0.15).astype(np.float32)
    matrix[3] = 0.0  # a row without ones
    table, net = OneHot(matrix), NeuralNetwork(sizes, rng, np.float32)
    assert np.array_equal(table.dense(), matrix)
    rows = np.array([3, 0, 7, 7, 29, 12])
    actions = rng.integers(0, sizes[-1], len(rows))
    loss = q_loss(actions, rng.normal(size=len(rows)))
    assert np.allclose(net.forward(table[rows]), net.forward(matrix[rows]), atol=1e-5)
    assert np.allclose(net.forward(table[2:9]), net.forward(matrix[2:9]), atol=1e-5)
    for sparse, dense in zip(
        net.gradients(table[rows], loss)[1], net.gradients(matrix[rows], loss)[1]
    ):
        assert sparse.dtype == np.float32 and np.allclose(sparse, dense, atol=1e-5)


def test_adam_fits_a_small_regression():
    rng = np.random.default_rng(1)
    net = NeuralNetwork((3, 16, 2), rng)
    x = rng.normal(size=(64, 3))
    actions = rng.integers(0, 2, 64)
    targets = x[:, 0] - 2 * x[:, 1]
    opt = Adam(net.params, 0.01)
    first = net.gradients(x, q_loss(actions, targets))[0]
    for _ in range(500):
        value, grads = net.gradients(x, q_loss(actions, targets))
        opt.step(grads)
    assert value < 0.05 * first


def test_reservoir_keeps_every_offer_with_the_same_probability():
    """10 slots, 100 offers, 2,000 reservoirs: each offer is kept 200 times
    in expectation; a chi-square test with 99 degrees of freedom at 0.1%."""
    rng = np.random.default_rng(7)
    kept = np.zeros(100)
    for _ in range(2000):
        r = Reservoir(10, {"s": np.int32}, rng)
        for i in range(100):
            r.add(s=i)
        kept[r.columns["s"]] += 1
    chi2 = float(((kept - 200) ** 2 / 200).sum())
    assert chi2 < 148.2  # the 99.9% quantile of chi-square(99)
    assert kept[:10].sum() < 2 * 200 * 10  # the first offers are not favoured


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_features_tell_every_information_state_apart(name):
    tree = build_tree(load_game(name))
    for p in range(len(tree.players)):
        enc = Encoding(tree, p)
        rows = {tuple(row) for row in enc.matrix}
        assert len(rows) == len(enc.infosets) == tree.information_states()[tree.players[p]]
        assert len(enc.slots()) == enc.size == enc.matrix.shape[1]
    shared = Encoding(tree, (0, 1))  # MC-NFSP's players share one encoding
    assert len({tuple(row) for row in shared.matrix}) == len(shared.infosets) == len(tree.infosets)
    assert shared.slots()[-2:] == [f"to act {role}" for role in tree.players]


@pytest.fixture(scope="module")
def kuhn_tree():
    return build_tree(load_game("kuhn"))


def test_a_short_kuhn_run_beats_uniform(kuhn_tree):
    uniform = exploitability(kuhn_tree, uniform_policy(kuhn_tree))
    learner = train(kuhn_tree, "nfsp:hidden=32", episodes=20_000, seed=3)
    assert learner.curve[-1].exploitability < 0.75 * uniform
    assert all(abs(sum(p) - 1) < 1e-9 for p in learner.average_policy())


def test_whole_tables_and_row_by_row_agree():
    """Leduc's tables are computed whole when first read after an update, a
    large game's a row at a time: both give the same policies and targets."""
    learner = NFSP(build_tree(load_game("leduc")), {"seed": 2})
    assert all(a.whole for a in learner.agents)
    learner.run(3000)
    assert all(a.updates > learner.params["refit"] for a in learner.agents)  # refitted
    rows = np.arange(len(learner.agents[0].enc.infosets))
    for agent in learner.agents:
        whole = (
            [agent.average_rows[r] for r in rows],
            [agent.greedy_rows[r] for r in rows],
            agent._target_best(rows),
        )
        agent.whole = False
        agent.tabulate()
        one = (
            [agent.average_rows[r] for r in rows],
            [agent.greedy_rows[r] for r in rows],
            agent._target_best(rows),
        )
        assert np.allclose(whole[0], one[0], atol=1e-6)
        assert whole[1] == one[1]
        assert np.allclose(whole[2], one[2], atol=1e-5)


def test_eta_one_is_dqn_alone(kuhn_tree):
    """eta = 1: every move is the epsilon-greedy best response's, so every
    move goes to the reservoir (the average of what DQN played)."""
    learner = NFSP(kuhn_tree, {"eta": 1.0, "seed": 1, "hidden": 16})
    learner.run(500)
    assert sum(a.sl_memory.offered for a in learner.agents) == learner.steps
    greedy = learner.greedy_policy()
    assert all(sorted(p) == [0.0] * (len(p) - 1) + [1.0] for p in greedy)
    other = NFSP(kuhn_tree, {"eta": 0.0, "seed": 1, "hidden": 16}).run(500)
    assert sum(a.sl_memory.offered for a in other.agents) == 0


def test_a_resumed_learner_goes_on_as_if_never_stopped(kuhn_tree, tmp_path):
    straight = train(kuhn_tree, "nfsp:hidden=16,every=16", episodes=3000, points=[1500], seed=4)
    first = train(kuhn_tree, "nfsp:hidden=16,every=16", episodes=1500, seed=4)
    first.save(tmp_path / "run")
    resumed = train(
        kuhn_tree, "nfsp", episodes=3000, learner=NFSP.load(kuhn_tree, tmp_path / "run")
    )
    assert resumed.curve[-1].exploitability == pytest.approx(straight.curve[-1].exploitability)
    assert [p.episodes for p in resumed.curve] == [1000, 1500, 2000, 3000]


def test_cli_trains_saves_resumes_and_plays(tmp_path, capsys):
    folder, curve = tmp_path / "kuhn", tmp_path / "curve.csv"
    args = [
        "exploit",
        "kuhn",
        "--player",
        "nfsp:hidden=16",
        "--curve",
        str(curve),
        "--save",
        str(folder),
        "--json",
    ]
    assert main(args + ["--episodes", "2000"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["episodes"] == 2000 and (folder / "nfsp.npz").is_file()
    assert main(args + ["--episodes", "3000", "--resume", "--append"]) == 0
    assert json.loads(capsys.readouterr().out)["episodes"] == 3000
    assert [line.split(",")[-4] for line in curve.read_text().splitlines()[1:]] == [
        "1000",
        "2000",
        "3000",
    ]
    assert main(["exploit", "kuhn", "--player", "smooth-uct", "--save", str(folder)]) == 1
    assert "only nfsp and mc-nfsp learners are saved" in capsys.readouterr().err
    game = load_game("kuhn")
    record = run_match(
        game,
        {
            "first": players.make(f"nfsp:load={folder},seed=1"),
            "second": players.make("random:seed=2"),
        },
        seed=3,
    )
    assert not [e for step in record.errors for e in step if e] and record.goals


def test_info_shows_the_features(capsys):
    assert main(["info", "kuhn", "--features", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    first = data["features"][0]
    assert first["role"] == "first" and first["size"] == len(first["slots"])
    assert first["slots"][-1].startswith("legal ")


@pytest.mark.parametrize("card, best", [("king", "call"), ("jack", "fold")])
def test_mc_nfsp_search_finds_the_plain_best_response(kuhn_tree, card, best):
    """Facing a bet, the king always wins a call and the jack always loses
    one, whatever the opponent's average policy: the search's visits say so."""
    from players.learning.nfsp import MCNFSP

    learner = MCNFSP(kuhn_tree, {"seed": 5, "simulations": 400})
    key = f"second: noop {{}} / noop {{(yourcard {card})}} / noop {{(did first bet)}} ? call fold"
    info = next(i for i, s in enumerate(kuhn_tree.infosets) if s.key == key)
    node = kuhn_tree.infosets[info].nodes[0]
    moves = learner._moves[1][info]
    learner.begin_episode()
    picks = [learner.best_response(1, node, learner._row[1][info], moves) for _ in range(20)]
    names = kuhn_tree.infosets[info].moves
    assert sum(names[k] == best for k in picks) >= 18


def test_mc_nfsp_keeps_the_searchs_visit_distributions(kuhn_tree):
    """Zhang et al.'s MC-NFSP ("Monte Carlo Neural Fictitious Self-Play", 2019):
    both memories keep the search's visit distribution (on the legal moves,
    summing to 1), and the networks learn every ``every`` episodes;
    ``targets=move`` keeps the move drawn instead."""
    from players.learning.nfsp import MCNFSP

    params = {"seed": 1, "eta": 1.0, "simulations": 30, "every": 50, "batch": 8}
    learner = MCNFSP(kuhn_tree, params)
    assert "targets=visits" in learner.spec
    learner.run(49)
    assert [a.updates for a in learner.agents] == [0, 0]
    learner.run(1)
    assert [a.updates for a in learner.agents] == [1, 1]
    for agent in learner.agents:
        for memory in (agent.sl_memory, agent.rl):
            targets = memory.columns["a"][: memory.size]
            legal = agent.enc.legal[memory.columns["s"][: memory.size]]
            assert targets.ndim == 2 and np.allclose(targets.sum(axis=1), 1)
            assert not targets[~legal].any()
    moves = MCNFSP(kuhn_tree, {**params, "targets": "move"}).run(20)
    assert "targets=move" in moves.spec
    for memory in (moves.agents[0].sl_memory, moves.agents[0].rl):
        drawn = memory.columns["a"][: memory.size]
        assert memory.size > 0 and drawn.ndim == 1
        assert moves.agents[0].enc.legal[memory.columns["s"][: memory.size], drawn].all()


def test_a_short_mc_nfsp_kuhn_run_beats_uniform_and_resumes(kuhn_tree, tmp_path):
    uniform = exploitability(kuhn_tree, uniform_policy(kuhn_tree))
    straight = train(kuhn_tree, "mc-nfsp:simulations=20", episodes=4000, points=[2000], seed=6)
    assert straight.curve[-1].exploitability < 0.75 * uniform
    first = train(kuhn_tree, "mc-nfsp:simulations=20", episodes=2000, seed=6)
    first.save(tmp_path / "mc")
    resumed = NFSP.load(kuhn_tree, tmp_path / "mc")
    assert resumed.name == "mc-nfsp" and resumed.params["simulations"] == 20
    train(kuhn_tree, "mc-nfsp", episodes=4000, learner=resumed)
    assert resumed.curve[-1].exploitability == pytest.approx(straight.curve[-1].exploitability)


def test_a_learner_of_another_game_is_refused(kuhn_tree, tmp_path):
    NFSP(kuhn_tree, {"hidden": 8}).save(tmp_path / "kuhn")
    with pytest.raises(ValueError, match="a learner of another game"):
        NFSP.load(build_tree(load_game("rps")), tmp_path / "kuhn")
    with pytest.raises(ValueError, match="no saved learner"):
        NFSP.load(kuhn_tree, tmp_path / "nothing")


def test_a_long_interval_is_kept_as_it_goes(kuhn_tree):
    """keep (the CLI's --save) runs between curve points too, every
    keep_seconds of training, without changing what is learned."""
    kept = []
    plain = train(kuhn_tree, "nfsp:hidden=16", episodes=3000, points=[], seed=8)
    saved = train(
        kuhn_tree,
        "nfsp:hidden=16",
        episodes=3000,
        points=[],
        seed=8,
        keep=lambda learner: kept.append(learner.episodes),
        keep_seconds=0.001,
    )
    assert len(kept) > 2 and kept[-1] == 3000
    assert saved.curve[-1].exploitability == plain.curve[-1].exploitability


def test_epsilon_decays_with_the_inverse_square_root(kuhn_tree):
    literal = NFSP(kuhn_tree, {"hidden": 4})
    slower = NFSP(kuhn_tree, {"hidden": 4, "decay": 10_000})
    literal.episodes = slower.episodes = 30_000
    assert literal.epsilon() == pytest.approx(0.06 / math.sqrt(30_001))
    assert slower.epsilon() == pytest.approx(0.06 / 2)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_torch_back_end_computes_what_numpy_computes(dtype):
    """``nfsp:backend=torch``: the same weights (the same initialisation
    draws), the same outputs and gradients on the same batch, dense and
    one-hot, for the losses NFSP and MC-NFSP use."""
    pytest.importorskip("torch")
    from players.learning.neural_torch import TorchNetwork

    rng = np.random.default_rng(3)
    matrix = (rng.random((30, 12)) < 0.2).astype(np.float32)
    ours, theirs = (
        cls((12, 9, 5), np.random.default_rng(1), dtype) for cls in (NeuralNetwork, TorchNetwork)
    )
    assert all(np.array_equal(a, b) for a, b in zip(ours.params, theirs.params))
    rows = rng.integers(0, 30, 16)
    legal = rng.random((16, 4)) < 0.7
    actions = rng.integers(0, 4, 16)
    legal[np.arange(16), actions] = True
    tol = 1e-12 if dtype == np.float64 else 1e-5
    for batch in (matrix[rows].astype(dtype), OneHot(matrix)[rows]):
        if isinstance(batch, np.ndarray) or dtype == np.float32:
            assert np.allclose(ours.forward(batch), theirs.forward(batch), atol=tol)
            loss = policy_value_loss(actions, legal, rng.uniform(-1, 1, 16))
            for a, b in zip(ours.gradients(batch, loss)[1], theirs.gradients(batch, loss)[1]):
                assert np.allclose(a, b, atol=tol)


def test_nfsp_learns_kuhn_on_the_torch_back_end(kuhn_tree):
    pytest.importorskip("torch")
    uniform = exploitability(kuhn_tree, uniform_policy(kuhn_tree))
    learner = train(kuhn_tree, "nfsp:backend=torch", episodes=20_000, points=[], seed=2)
    assert learner.curve[-1].exploitability < 0.6 * uniform


def test_the_torch_back_end_without_pytorch_says_so_in_one_line(kuhn_tree, monkeypatch, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    with pytest.raises(ValueError, match=r"backend=torch needs PyTorch: pip install"):
        NFSP(kuhn_tree, {"backend": "torch"})
    assert main(["exploit", "kuhn", "--player", "nfsp:backend=torch", "--episodes", "10"]) == 1
    err = capsys.readouterr().err
    assert "needs PyTorch" in err and "Traceback" not in err


def test_mc_nfsp_players_share_one_pair_of_networks_unless_told(kuhn_tree, tmp_path):
    """Zhang et al.'s Algorithm 1 ("players share networks B and Pi"): one
    agent, networks and memories for both players by default, which both
    players' searches fill; ``nets=per-role`` gives each player its own; a
    learner saved before the choice existed (per role) loads as per role."""
    from players.learning.nfsp import MCNFSP

    params = {"seed": 1, "eta": 1.0, "simulations": 10, "every": 20, "batch": 8}
    shared = MCNFSP(kuhn_tree, params).run(100)
    agent = shared.agents[0]
    assert shared.agents[1] is agent and shared.distinct_agents == [agent]
    assert agent.updates == 5  # one update every 20 episodes, not one per player
    rows = agent.rl.columns["s"][: agent.rl.size]
    assert {kuhn_tree.infosets[agent.enc.infosets[r]].player for r in rows} == {0, 1}
    assert "nets=shared" in shared.spec
    per_role = MCNFSP(kuhn_tree, {**params, "nets": "per-role"}).run(100)
    assert len(per_role.distinct_agents) == 2 and per_role.agents[0].updates == 5
    per_role.save(tmp_path / "old")
    meta = json.loads((tmp_path / "old" / "nfsp.json").read_text())
    del meta["params"]["nets"]
    (tmp_path / "old" / "nfsp.json").write_text(json.dumps(meta))
    old = NFSP.load(kuhn_tree, tmp_path / "old")
    assert old.params["nets"] == "per-role"
    assert old.average_policy() == per_role.average_policy()


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["nfsp", "mc-nfsp"])
def test_default_training_on_kuhn_without_comments_is_below_the_bar(spec, tmp_path, capsys):
    """On Kuhn as a public file would give it (every comment line, the unit
    header too, taken out of games_gdl/kuhn.kif), ``ggp exploit --player
    SPEC`` with its default training (1,000,000 episodes, seed 0) is below 2.5
    goal points (0.1 chip): the utilities come from the rules alone."""
    source = load_game("kuhn").description.path
    path = tmp_path / "kuhn.kif"
    path.write_text("".join(line for line in open(source) if not line.lstrip().startswith(";")))
    game = load_game(str(path))
    assert (game.goal_range, game_unit(game)) == ((0, 100), Unit())
    assert main(["exploit", str(path), "--player", spec, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["episodes"] == 1_000_000 and data["unit"] == "goal points"
    assert data["exploitability"] < 2.5
