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
    """The packed features unpack to the legal moves and the slots of the
    history's moves and percepts; a step past the depth is refused until the
    features grow, and growing keeps every slot (an old row is a prefix)."""
    enc = StepEncoding(range(moves), range(terms), depth)
    legal = [m for m in legal if m < moves] or [0]
    active = []
    for t, (m, seen) in enumerate(history):
        if t >= enc.depth:
            with pytest.raises(ValueError, match="past the features' depth"):
                enc.extend(active, t, m, seen)
            short = enc.packed(active, enc.actions(legal))
            enc.grow(t + 1)
            assert enc.widened(short).tolist() == enc.packed(active, enc.actions(legal)).tolist()
        enc.extend(active, t, m, seen)
    row = enc.packed(active, enc.actions(legal))[None]
    dense = enc.unpacked(row)[0]
    want = np.zeros(enc.size, dtype=np.float32)
    want[legal] = 1
    for t, (m, seen) in enumerate(history):
        base = moves + t * enc.step_width
        if m < moves:
            want[base + m] = 1
        for s in seen:
            if s < terms:
                want[base + moves + s] = 1
    assert enc.depth == max(depth, len(history))
    assert dense.tolist() == want.tolist()
    assert enc.legal(row)[0].tolist() == [m in legal for m in range(moves)]


#: A GDL-II game of 70 steps, longer than the 64 playouts' default depth
#: could ever tell from the game: both play a or b at every step, the second
#: sees the first's move, and the first wins when both play the same at the
#: last step.
LONG_STEPS = 70
LONG_GAME = "\n".join(
    [
        "(role first) (role second) (init (step 0)) (move a) (move b)",
        "(<= (legal ?r ?m) (role ?r) (move ?m))",
        "(<= (sees second (saw ?m)) (does first ?m))",
        "(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))",
        f"(<= (next same) (true (step {LONG_STEPS - 1})) (does first ?m) (does second ?m))",
        f"(<= terminal (true (step {LONG_STEPS})))",
        "(<= (goal first 100) (true same)) (<= (goal first 0) (not (true same)))",
        "(<= (goal second 0) (true same)) (<= (goal second 100) (not (true same)))",
        *(f"(succ {n} {n + 1})" for n in range(LONG_STEPS)),
    ]
)


def test_features_grow_past_their_depth_and_never_merge_two_histories(tmp_path):
    """On a game of 70 steps whose features start at 4 steps, training grows
    them to every step an episode reaches (networks, optimisers and memories
    with them), deterministically given the seed; a match's history deeper
    than the features grows them too, with the policy of a shorter history
    unchanged; two histories that differ only in the order of two moves past
    the first depth get different features; a grown learner saves and loads."""
    game = load_game(LONG_GAME)
    params = {"seed": 4, "depth": 4, "hidden": 8, "every": 16, "batch": 16, "optimizer": "adam"}
    learner = SampledNFSP(game, params).run(3)
    assert learner.params["depth"] == LONG_STEPS
    for agent in learner.agents:
        assert agent.enc.depth == LONG_STEPS
        assert agent.nets["q"].params[0].shape[0] == agent.enc.size == agent.nets["q"].sizes[0]
        assert agent.opts["q"].m[0].shape == agent.nets["q"].params[0].shape
        assert agent.rl.columns["next"].shape[1] == agent.enc.bytes
        assert agent.updates > 0
    again = SampledNFSP(game, params).run(3)
    for a, b in zip(learner.agents, again.agents):
        assert all(np.array_equal(x, y) for x, y in zip(a.nets["sl"].params, b.nets["sl"].params))

    steps = learner.stepper
    second = steps.roles.index("second")
    p = learner.players.index(second)
    a, b = (steps.move_id(second, m) for m in ("a", "b"))
    legal = [a, b]
    shallow = SampledNFSP(game, {**params, "depth": 2})
    short = shallow.policy(p, [(a, [])], legal)
    deep = [(a, [])] * 68
    swapped = deep[:65] + [(b, [])] + deep[66:]
    deep = deep[:66] + [(b, [])] + deep[67:]
    assert shallow.policy(p, deep, legal) and shallow.params["depth"] == 68
    assert shallow.policy(p, [(a, [])], legal) == short
    enc = shallow.agents[p].enc
    packed = []
    for history in (deep, swapped):
        active: list = []
        for t, (move, seen) in enumerate(history):
            enc.extend(active, t, move, seen)
        packed.append(enc.packed(active, enc.actions(legal)).tobytes())
    assert packed[0] != packed[1]

    learner.save(tmp_path / "long")
    loaded = SampledNFSP.load(game, tmp_path / "long")
    assert loaded.params["depth"] == LONG_STEPS
    assert loaded.policy(p, deep, legal) == learner.policy(p, deep, legal)


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
