"""NFSP by sampling (players.learning.nfsp_sampled) on games whose tree is too large,
checked on small games against their trees: the features tell the trees'
information states apart, the learner learns Kuhn without enumerating it,
runs and resumes reproducibly, and plays IIGS-13 and phantom tic-tac-toe."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import players
from ggp import load_game
from ggp.solvers.cfr import exploitability, uniform_policy
from ggp.solvers.efg import build_tree
from ggp.solvers.features import StepEncoding
from matches.cli import main
from matches.manager import run_match
from players.learning.nfsp_sampled import SampledNFSP


def tree_policy(learner, tree) -> list:
    """The learner's average policy at every information state of ``tree``,
    asked as a player asks it: from the role's own moves and percepts."""
    steps, policy = learner.stepper, []
    for info in tree.infosets:
        r = steps.roles.index(tree.players[info.player])
        history = [(steps.move_id(r, m), steps.seen_ids(r, seen)) for m, seen in info.history]
        policy.append(
            learner.policy(
                learner.players.index(r), history, [steps.move_id(r, m) for m in info.moves]
            )
        )
    return policy


def packed_of(learner, tree, info) -> bytes:
    steps = learner.stepper
    r = steps.roles.index(tree.players[info.player])
    enc = learner.agents[learner.players.index(r)].enc
    active = []
    for t, (m, seen) in enumerate(info.history):
        enc.extend(active, t, steps.move_id(r, m), steps.seen_ids(r, seen))
    return enc.packed(active, enc.actions([steps.move_id(r, m) for m in info.moves])).tobytes()


@pytest.mark.parametrize("name", ["kuhn", "leduc", "iigs4"])
def test_the_features_tell_every_information_state_apart(name):
    """Built from the reasoner's moves and percepts alone, the features of
    two different information states of the tree differ."""
    game = load_game(name)
    tree = build_tree(game)
    learner = SampledNFSP(game, {"seed": 0})
    assert learner.params["depth"] >= max(len(i.history) for i in tree.infosets)
    packed = {(info.player, packed_of(learner, tree, info)) for info in tree.infosets}
    assert len(packed) == len(tree.infosets)


@settings(max_examples=60, deadline=None)
@given(
    moves=st.integers(1, 6),
    terms=st.integers(0, 6),
    depth=st.integers(1, 5),
    history=st.lists(
        st.tuples(st.integers(0, 5), st.lists(st.integers(0, 5), max_size=3)), max_size=8
    ),
    legal=st.lists(st.integers(0, 5), min_size=1, max_size=6, unique=True),
)
def test_step_features_pack_and_unpack(moves, terms, depth, history, legal):
    """The packed features unpack to the slots of the history's moves and
    percepts (steps past the depth in its last block) and the legal moves."""
    enc = StepEncoding(range(moves), range(terms), depth)
    legal = [m for m in legal if m < moves] or [0]
    active = []
    for t, (m, seen) in enumerate(history):
        enc.extend(active, t, m, seen)
    row = enc.packed(active, enc.actions(legal))[None]
    dense = enc.unpacked(row)[0]
    want = np.zeros(enc.size, dtype=np.float32)
    for t, (m, seen) in enumerate(history):
        base = min(t, depth - 1) * enc.step_width
        if m < moves:
            want[base + m] = 1
        for s in seen:
            if s < terms:
                want[base + moves + s] = 1
    want[[enc.legal_at + m for m in legal]] = 1
    assert dense.tolist() == want.tolist()
    assert enc.legal(row)[0].tolist() == [m in legal for m in range(moves)]


def test_kuhn_is_learned_by_sampling():
    """Without its tree, the learner's policy (asked as a player asks it) is
    scored on the tree: well below uniform after 20,000 episodes."""
    game = load_game("kuhn")
    tree = build_tree(game)
    learner = SampledNFSP(game, {"seed": 3, "hidden": 32}).run(20_000)
    policy = tree_policy(learner, tree)
    assert all(abs(sum(p) - 1) < 1e-6 for p in policy)
    assert exploitability(tree, policy) < 0.75 * exploitability(tree, uniform_policy(tree))


def test_a_run_is_reproducible_and_resumes_as_if_never_stopped(tmp_path):
    game = load_game("iigs13")
    params = {"seed": 5, "hidden": 16, "every": 32, "batch": 32}
    straight = SampledNFSP(game, params).run(300)
    again = SampledNFSP(game, params).run(300)
    first = SampledNFSP(game, params).run(150)
    first.save(tmp_path / "run")
    resumed = SampledNFSP.load(game, tmp_path / "run").run(150)
    for other in (again, resumed):
        assert other.episodes == straight.episodes and other.steps == straight.steps
        for a, b in zip(straight.agents, other.agents):
            for name in a.nets:
                assert all(
                    np.array_equal(x, y) for x, y in zip(a.nets[name].params, b.nets[name].params)
                )
    with pytest.raises(ValueError, match="another game|whole tree"):
        SampledNFSP.load(load_game("phantomttt"), tmp_path / "run")


@pytest.mark.parametrize("name", ["iigs13", "phantomttt"])
def test_nfsp_plays_a_game_too_large_for_its_tree(name):
    """The player learns by sampling when the tree cannot be built, and plays
    every move itself (no fault, no fallback to ismcts)."""
    game = load_game(name)
    nfsp = players.make("nfsp:iterations=50,tree=sampled,seed=1,hidden=16")
    record = run_match(game, dict(zip(game.roles, [nfsp, players.make("random:seed=2")])), seed=3)
    assert not [e for step in record.errors for e in step if e] and record.goals
    assert nfsp.fallback is None and nfsp.trained.sampled
    assert nfsp.trained.episodes >= 50


def test_exploit_on_a_game_too_large_trains_by_sampling_and_says_what_it_measures(tmp_path, capsys):
    folder = tmp_path / "iigs13"
    args = ["exploit", "iigs13", "--player", "nfsp:hidden=16", "--save", str(folder)]
    assert main(args + ["--episodes", "200", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["episodes"] == 200 and data["depth"] == 13
    assert data["exploitability"].startswith("not measured (")
    assert main(args + ["--episodes", "300", "--resume", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["episodes"] == 300
    assert main(["exploit", "iigs13", "--player", "mc-nfsp"]) == 1
    err = capsys.readouterr().err
    # one line (a slow build's progress lines may come before it)
    assert "exploitability needs the whole tree" in err.strip().splitlines()[-1]
    assert "Traceback" not in err
    assert main(args + ["--curve", str(tmp_path / "c.csv")]) == 1
    assert "a curve or a policy file needs the tree" in capsys.readouterr().err
    game = load_game("iigs13")
    record = run_match(
        game,
        {
            "first": players.make("random:seed=1"),
            "second": players.make(f"nfsp:load={folder},seed=2"),
        },
        seed=3,
    )
    assert not [e for step in record.errors for e in step if e] and record.goals


def test_mc_nfsp_on_a_game_too_large_plays_as_ismcts():
    game = load_game("iigs13")
    player = players.make("mc-nfsp:iterations=5,tree=sampled,seed=1")
    run_match(game, {"first": player, "second": players.make("random:seed=2")}, seed=3)
    assert player.fallback is not None
