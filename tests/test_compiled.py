"""The compiled reasoner against the reference, step by step, on every game.

For each game (games_gdl and every public game that grounds), random playouts
compare legal moves per role (in order), the next state's facts, terminality,
goals and percepts.  CI plays 200 playouts or as many as 8 s per game allow;
the `slow` run plays 200 whatever the time.
"""

import random
import time
import warnings

import pytest
from conftest import SHARED, needs_shared, shared_games, wins_at_once

import gdl
from ggp import GameError, RuleError, load_game
from ggp.game import GroundingWarning, game_names
from ggp.tools.count import count

GAMES = [pytest.param(name, id=name) for name in game_names()] + [
    pytest.param(p, id=f"{p.parent.name}/{p.stem}")
    for p in shared_games("gdl1", "gdl2", "conformance")
]

#: Public files the validator rejects (EXPECTED.md): nothing to compare.  We
#: also reject test_invalid_sentence_arities_differ (a relation with two
#: arities), which ggp-base, and so EXPECTED.md, accepts with a warning.
INVALID = {
    "test_case_3b",
    "test_case_3e",
    "test_case_3f",
    "test_clean_not_distinct",
    "test_invalid_sentence_arities_differ",
}

#: Public games that do not ground within the default limits or within 60 s
#: (docs/coverage.md); they fall back to the demand-driven reasoner
#: (tests/test_demand.py), checked in the slow run.
UNGROUNDABLE = {"amazons", "chess", "small_dominion"}

#: Games whose comparison takes more than a minute (kalaha_2009's build, 20-40 s;
#: chineseCheckers3 and 4: 154 and 93 s in a full run, the reference's steps):
#: compared in the slow run only, to keep CI short.
SLOW_BUILD = {"kalaha_2009", "chineseCheckers3", "chineseCheckers4"}


def outcome(f):
    """The value of a question, or the error it raises (both reasoners must agree)."""
    try:
        return f()
    except GameError as exc:
        return ("error", type(exc).__name__)


def compare(game, playouts, seconds, seed=1, reasoner="compiled"):
    """Random playouts of ``game`` asked of ``reasoner`` and of the reference,
    step by step; (playouts finished, steps taken)."""
    ref = game.state_machine("reference")
    fast = game.state_machine(reasoner)
    assert fast.name == reasoner and fast.roles == ref.roles
    rng = random.Random(seed)
    deadline = time.perf_counter() + seconds
    steps = done = 0
    while done < playouts and time.perf_counter() < deadline:
        a, b = ref.initial_state(), fast.initial_state()
        while time.perf_counter() < deadline:
            assert ref.state_facts(a) == fast.state_facts(b), f"state after {steps} steps"
            assert fast.state_from_facts(fast.state_facts(b)) == b
            terminal = ref.is_terminal(a)
            assert fast.is_terminal(b) == terminal
            if terminal:
                for role in ref.roles:
                    assert outcome(lambda: fast.goal(b, role)) == outcome(lambda: ref.goal(a, role))
                done += 1
                break
            legal = ref.all_legal_moves(a)
            assert fast.all_legal_moves(b) == legal
            if not all(legal):
                break
            joint = tuple(rng.choice(m) for m in legal)
            for role in ref.roles:
                assert fast.percepts(b, joint, role) == ref.percepts(a, joint, role)
            a, b = ref.next_state(a, joint), fast.next_state(b, joint)
            steps += 1
    return done, steps


def compare_c_playouts(game, playouts, seconds):
    """Replay playouts of the C loop (which keeps legal moves and the changing
    base propositions incrementally) with the reference reasoner."""
    ref, fast = game.state_machine("reference"), game.state_machine("compiled")
    deadline = time.perf_counter() + seconds
    done = 0
    while done < playouts and time.perf_counter() < deadline:
        state = ref.initial_state()
        trace = fast.playout_trace(fast.initial_state(), seed=done, max_steps=300)
        for counts, joint in trace:
            legal = ref.all_legal_moves(state)
            assert counts == tuple(len(m) for m in legal)
            assert all(move in moves for move, moves in zip(joint, legal))
            state = ref.next_state(state, joint)
        assert len(trace) == 300 or ref.is_terminal(state) or not all(ref.all_legal_moves(state))
        done += 1
    return done


def load(source, slow=False):
    stem = getattr(source, "stem", source)
    if stem in INVALID:
        pytest.skip("invalid GDL (EXPECTED.md)")
    if stem in UNGROUNDABLE:
        pytest.skip("does not ground within the limits")
    if stem in SLOW_BUILD and not slow:
        pytest.skip("more than a minute to compare: compared in the slow run")
    return load_game(source)


@pytest.mark.parametrize("source", GAMES)
def test_differential(source):
    """Every step of random playouts the same on both reasoners, for at most
    200 playouts or 4 s, then the C loop's playouts replayed for at most 1 s
    (the slow run compares 200 whole playouts of every game, however long)."""
    game = load(source)
    done, steps = compare(game, playouts=200, seconds=4.0)
    assert steps >= 1 or done >= 1
    assert compare_c_playouts(game, playouts=20, seconds=1.0) >= 1


@pytest.mark.slow
@pytest.mark.parametrize(
    "source", [pytest.param(p, id=f"corpus/{p.stem}") for p in shared_games("corpus")]
)
def test_differential_corpus(source):
    """Every corpus game the grounder compiles, against the reference for a
    minute (some reference reasoners take minutes to compute their static
    relations, so one step is the least asked)."""
    try:
        game = load_game(source)
    except gdl.GdlError:
        pytest.skip("rejected as faulty (docs/coverage.md)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GroundingWarning)
        if game.state_machine("compiled").name != "compiled":
            pytest.skip("not compiled (benchmarks/results/coverage says why)")
    done, steps = compare(game, playouts=50, seconds=60.0)
    assert steps >= 1 or done >= 1


@pytest.mark.slow
@pytest.mark.parametrize("source", GAMES)
def test_differential_200_playouts(source):
    done, _ = compare(load(source, slow=True), playouts=200, seconds=3600.0, seed=2)
    assert done == 200


def test_count_tictactoe_compiled():
    assert count(load_game("tictactoe").state_machine("compiled")) == {
        "nodes": 549946,
        "terminals": 255168,
        "distinct_states": 5478,
        "max_depth": 9,
    }


@needs_shared()
@pytest.mark.parametrize(
    "name, depth",
    [
        ("montyhall", None),
        ("meier", 4),
        ("pennies", None),
        ("kriegTTT_5x5", 1),
        ("transit", 4),
        ("latenttictactoe", 3),
    ],
)
def test_count_gdl2_both_reasoners(name, depth):
    game = load_game(SHARED / "gdl2" / f"{name}.kif")
    fast = count(game.state_machine("compiled"), depth)
    assert fast == count(game.state_machine("reference"), depth)
    assert fast["nodes"] > 1


def test_moves_come_in_the_reference_order():
    game = load_game("connectfour")
    ref, fast = game.state_machine("reference"), game.state_machine("compiled")
    s = fast.initial_state()
    assert fast.legal_moves(s, "red") == ref.legal_moves(ref.initial_state(), "red")


def test_malformed_and_illegal_moves_are_refused():
    sm = load_game("tictactoe").state_machine("compiled")
    s = sm.initial_state()
    for joint in [
        ("noop", "noop"),
        (("mark", "1", "1"),),
        ([1, 2], "noop"),
        (("mark", "1", "1"), ("mark", "1", "1")),
        (None, "noop"),
    ]:
        with pytest.raises(GameError):
            sm.next_state(s, joint)
    with pytest.raises(GameError, match="no role"):
        sm.legal_moves(s, "nobody")
    with pytest.raises(GameError, match="not a base proposition"):
        sm.state_from_facts([("cell", "9", "9", "x")])


@pytest.mark.slow
@needs_shared()
@pytest.mark.parametrize("name", sorted(UNGROUNDABLE))
def test_ungroundable_public_games_fall_back(name):
    game = load_game(SHARED / "gdl1" / f"{name}.kif")
    with pytest.warns(GroundingWarning):
        sm = game.state_machine("compiled", limit=200_000)
    assert sm.name == "demand"


def test_too_large_to_ground_falls_back_with_a_warning():
    game = load_game("breakthrough")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sm = game.state_machine("compiled", limit=100)
    assert sm.name == "demand"
    assert len(caught) == 1 and issubclass(caught[0].category, GroundingWarning)
    assert "using the demand-driven reasoner" in str(caught[0].message)


WRAPPING = """(role a) (init (msg m)) (<= (legal a go) (true (msg ?x)))
(<= (next (msg (wrap ?x))) (true (msg ?x)))
(<= terminal (true (msg (wrap (wrap (wrap m))))))
(<= (goal a 100) terminal) (<= (goal a 0) (not terminal))"""


def test_terms_nested_without_bound_fall_back_at_once():
    """A message that wraps itself every step has no finite relaxed domain:
    the 101st round of the recursion finds terms nested deeper than 100
    levels and grounding gives up, naming the relation, where counting to
    the fact limit cost time quadratic in the count (hours at a million);
    the demand-driven reasoner plays it."""
    game = load_game(WRAPPING)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sm = game.state_machine("compiled")
    assert sm.name == "demand"
    (warning,) = caught
    assert str(warning.message).startswith(
        "<text>: the relaxed domain cannot be computed: relation 'next' builds terms nested "
        "deeper than 100 levels, as (next (msg (wrap (wrap"
    )
    assert str(warning.message).endswith(
        "...: they have no bound; using the demand-driven reasoner"
    )
    state = sm.initial_state()
    for _ in range(3):
        state = sm.next_state(state, ["go"])
    assert sm.is_terminal(state) and sm.goal(state, "a") == 100


def test_relations_called_with_constants_are_specialized_to_their_calls():
    """ggp.reasoners.rewrite.specialize: ``count`` is only ever asked with constants in
    its first two places, so its rules become the calls' (a head that cannot
    take them goes); ``near``, asked once with a variable, stays; and the
    game plays the same on both reasoners."""
    from gdl import Var
    from ggp.reasoners.rewrite import factor, specialize

    game = load_game("""(role a) (init (cell c1 on)) (init (cell c2 off))
(<= (legal a (flip ?x)) (true (cell ?x ?s)))
(<= (next (cell ?x on)) (does a (flip ?x)) (true (cell ?x off)))
(<= (next (cell ?x off)) (does a (flip ?x)) (true (cell ?x on)))
(<= (next (cell ?x ?s)) (true (cell ?x ?s)) (not (does a (flip ?x))))
(<= (count ?x ?y 100) (true (cell ?x on)) (true (cell ?y on)))
(<= (count ?x ?x 50) (true (cell ?x on)))
(<= (near ?x) (true (cell ?x on)))
(<= (goal a ?p) (count c1 c2 ?p))
(<= (goal a 0) (not (count c1 c2 100)))
(<= terminal (count c1 c2 100))
(<= terminal (near c2) (near ?x) (true (cell ?x off)))""")
    rules = specialize(factor(game.rules))
    heads = [r.head for r in rules if r.head[0] in ("count", "near")]
    assert heads == [("count", "c1", "c2", "100"), ("near", Var("?x"))]
    compare(game, playouts=50, seconds=5.0)


def test_grounding_stops_at_its_effort_limit():
    # breakthrough's joins examine some 55,000 candidate atoms: a budget of
    # 1,000 stops them with a clear error, the default lets them through
    from ggp.reasoners.ground import EFFORT, GroundingTooLarge, ground

    game = load_game("breakthrough")
    with pytest.raises(GroundingTooLarge, match="more than 1,000 candidate atoms"):
        ground(game.rules, game.roles, effort=1_000)
    assert ground(game.rules, game.roles, effort=EFFORT).base


def test_playouts_in_c_are_seeded():
    sm = load_game("connectfour").state_machine("compiled")
    root = sm.initial_state()
    first = sm.playouts(root, 200, seed=5)
    assert first == sm.playouts(root, 200, seed=5)
    steps, sums, cut = first
    assert cut == 0 and 200 * 7 <= steps <= 200 * 42
    assert sum(sums) == 200 * 100  # connect four: the goals of a game add to 100


FAULTY_GOALS = """(role a) (role b) (init (step 0))
    (<= (legal a left) (true (step 0))) (<= (legal a right) (true (step 0)))
    (<= (legal b wait) (true (step 0)))
    (<= (next (went ?m)) (does a ?m)) (<= (next (step 1)) (true (step 0)))
    (<= terminal (true (step 1))) (goal a 100) (score 150)
    """


@pytest.mark.parametrize(
    "goals, message",
    [
        (
            "(<= (goal b 50) (true (went left)))",
            "role b has no goal values in a terminal state; GDL requires exactly one",
        ),
        (
            "(goal b 50) (<= (goal b 60) (true (went left)))",
            "role b has 2 goal values (50, 60) in a terminal state; GDL requires exactly one",
        ),
        (
            "(<= (goal b 50) (true (went left))) (<= (goal b ?x) (score ?x) (true (went right)))",
            "goal value '150' of role b is not an integer 0..100",
        ),
    ],
)
@pytest.mark.parametrize("count", [10, 200], ids=["kernel", "lanes"])
def test_playouts_in_c_check_the_goals_of_terminal_states(goals, message, count):
    """The sums of the C playouts cannot show a missing or doubled goal: the
    kernel and the lanes check GDL's rule in the terminal states they reach
    and the machine raises the RuleError the reference raises."""
    game = load_game(FAULTY_GOALS + goals)
    compiled = game.state_machine("compiled")
    assert compiled.name == "compiled" and compiled._use_lanes(count) == (count == 200)
    for sm in (compiled, game.state_machine("reference")):
        with pytest.raises(RuleError) as info:
            sm.playouts(sm.initial_state(), count, seed=1)
        assert (str(info.value), info.value.kind, info.value.role) == (message, "goal", "b")
        steps, sums, cut = sm.playouts(sm.initial_state(), count, seed=1, goals=False)
        assert (steps, sums, cut) == (count, None, 0)


@pytest.mark.parametrize("count", [10, 200], ids=["kernel", "lanes"])
def test_the_random_role_needs_no_goal(count):
    """GDL-II's random role may have no goal: C playouts of kuhn raise nothing."""
    sm = load_game("kuhn").state_machine("compiled")
    assert "random" in sm.roles  # and kuhn.kif gives it no goal
    steps, sums, cut = sm.playouts(sm.initial_state(), count, seed=3)
    assert cut == 0 and sums[sm.roles.index("random")] == 0


@pytest.mark.parametrize("name", ["tictactoe", "breakthroughsmall", "nim"])
def test_seeded_playouts_depend_only_on_the_state_and_the_seed(name):
    """The kernel's legal-move sets are kept incrementally; whatever state it
    was in before, a seeded playout from a state must come out the same."""
    sm = load_game(name).state_machine("compiled")
    root = sm.initial_state()
    first = sm.playouts(root, 20, seed=9)
    rng = random.Random(1)
    for _ in range(20):
        state = root
        for _ in range(rng.randrange(1, 8)):
            if sm.is_terminal(state):
                break
            state = sm.next_state(state, [rng.choice(m) for m in sm.all_legal_moves(state)])
        sm.is_terminal(state)  # the kernel now holds that state
        assert sm.playouts(root, 20, seed=9) == first


#: Reachability over edges that moves cut and restore: `path` is recursive
#: over state-dependent facts, so the network has cycles of positive
#: dependencies (blocks settled to their least fixpoint by the kernel).
CYCLIC = """
(role r)
(node a) (node b) (node c) (node d)
(init (edge a b)) (init (edge b c)) (init (edge c a)) (init (edge c d)) (init (step 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
(<= (legal r (cut ?x ?y)) (true (edge ?x ?y)))
(<= (legal r (join ?x ?y)) (node ?x) (node ?y) (distinct ?x ?y) (not (true (edge ?x ?y))))
(<= (next (edge ?x ?y)) (true (edge ?x ?y)) (not (does r (cut ?x ?y))))
(<= (next (edge ?x ?y)) (does r (join ?x ?y)))
(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
(<= (link ?x ?y) (true (edge ?x ?y)))
(<= (path ?x ?y) (link ?x ?y))
(<= (path ?x ?z) (path ?x ?y) (link ?y ?z))
(<= terminal (true (step 4)))
(<= (goal r 100) (path d a))
(<= (goal r 50) (not (path d a)) (path a d))
(<= (goal r 0) (not (path d a)) (not (path a d)))
"""


def test_cycles_in_the_network_reach_the_least_fixpoint():
    game = load_game(CYCLIC)
    fast = game.state_machine("compiled")
    assert fast.name == "compiled" and fast.network.blocks
    assert count(fast) == count(game.state_machine("reference"))
    done, _ = compare(game, playouts=300, seconds=20.0)
    assert done == 300


@pytest.mark.parametrize("name", ["cyclic", "leduc", "kuhn", "liarsdice", "tictactoe3p", "reversi"])
def test_a_kernel_with_lazy_goals_answers_as_the_eager_one(name):
    """Goal-only gates settled when goals are read (ggp.reasoners._propnet.Kernel, lazy
    goals; forced here on small games, which keep them eager by default):
    along random walks, the same legal moves, next states, terminal flags, and
    goals in every state, terminal or not, as the eager kernel.  CYCLIC's
    goals read a cycle block (its least fixpoint)."""
    from ggp.reasoners._propnet import Kernel
    from ggp.reasoners.propnet import lazy_goals

    if name == "reversi":
        if not (SHARED / "gdl1" / "reversi.kif").exists():
            pytest.skip("needs ../shared/games")
        game = load_game(SHARED / "gdl1" / "reversi.kif")
    else:
        game = load_game(CYCLIC if name == "cyclic" else name)
    sm = game.state_machine("compiled")
    arrays, program = lazy_goals(sm._arrays, [n for seen in sm._sees for n, _ in seen])
    assert len(program["node"]) > 0
    if name == "cyclic":
        assert max(program["hi"]) >= 0  # a block among the lazy gates
    lazy, eager = Kernel(**arrays, lazy=program), Kernel(**sm._arrays)
    rng = random.Random(2)
    roles = range(len(sm.roles))
    for _ in range(3 if name == "reversi" else 30):
        state = sm.initial_state()
        while True:
            for k in (lazy, eager):
                k.load(state)
            assert lazy.terminal() == eager.terminal()
            assert [lazy.goals(r) for r in roles] == [eager.goals(r) for r in roles]
            if lazy.terminal():
                break
            legal = [sorted(lazy.legal(r)) for r in roles]
            assert legal == [sorted(eager.legal(r)) for r in roles]
            joint = [rng.choice(moves) for moves in legal]
            after = lazy.next_state(state, joint)
            assert after == eager.next_state(state, joint)
            state = after
    assert lazy.playouts(sm.initial_state(), 50, 7) == eager.playouts(sm.initial_state(), 50, 7)


@pytest.mark.parametrize("name", ["breakthrough", "connectfour", "tictactoe3p", "leduc"])
def test_gated_kernel_answers_as_the_ungated_one(name):
    """Gating the ANDs of control-like propositions (ggp.reasoners._propnet.Kernel)
    changes no answer: along random walks, the same legal moves, next states,
    terminal flags and goals as a kernel without gating."""
    from ggp.reasoners._propnet import Kernel

    sm = load_game(name).state_machine("compiled")
    gated, plain = Kernel(**sm._arrays, gating=sm.gating), Kernel(**sm._arrays)
    if name == "breakthrough":
        controls = {sm._base[list(sm._arrays["base_node"]).index(g)] for g in sm.gating}
        assert controls == {("control", "white"), ("control", "black")}
    rng = random.Random(1)
    for _ in range(20):
        state = sm.initial_state()
        while True:
            for k in (gated, plain):
                k.load(state)
            assert gated.terminal() == plain.terminal()
            if gated.terminal():
                break
            legal = [sorted(gated.legal(r)) for r in range(len(sm.roles))]
            assert legal == [sorted(plain.legal(r)) for r in range(len(sm.roles))]
            joint = [rng.choice(moves) for moves in legal]
            after = gated.next_state(state, joint)
            assert after == plain.next_state(state, joint)
            state = after
        assert [gated.goals(r) for r in range(len(sm.roles))] == [
            plain.goals(r) for r in range(len(sm.roles))
        ]


@pytest.mark.parametrize("name", ["breakthroughsmall", "connectfour", "tictactoe"])
def test_split_kernel_answers_as_the_whole_network(name):
    """A kernel split by control (Kernel.split) answers as the whole network
    along random walks, also in states where no control or both hold (there
    the whole network answers); and with no room for its log of flips, each
    network catching up by comparing every base proposition, its playouts are
    still the game's (the reference replays them)."""
    from ggp.reasoners._propnet import Kernel

    game = load_game(name)
    sm, ref = game.state_machine("compiled"), game.state_machine("reference")
    assert {sm._base[c][0] for c in sm.controls} <= {"control", "turn"} and len(sm.controls) == 2
    split, whole = sm.kernel, Kernel(**sm._arrays)
    rng = random.Random(3)
    roles = range(len(sm.roles))
    for _ in range(10):
        state = sm.initial_state()
        while True:
            odd = bytearray(state)
            odd[sm.controls[0]] = odd[sm.controls[1]] = rng.random() < 0.5
            for s in (state, bytes(odd)):
                for k in (split, whole):
                    k.load(s)
                assert split.terminal() == whole.terminal()
                assert [split.goals(r) for r in roles] == [whole.goals(r) for r in roles]
                legal = [sorted(split.legal(r)) for r in roles]
                assert legal == [sorted(whole.legal(r)) for r in roles]
                if all(legal):
                    joint = [rng.choice(moves) for moves in legal]
                    assert split.next_state(s, joint) == whole.next_state(s, joint)
            split.load(state)
            if split.terminal():
                break
            joint = [rng.choice(split.legal(r)) for r in roles]
            state = split.next_state(state, joint)
    tight = Kernel.split([k.copy() for k in split.subs], sm.controls, logcap=0)
    start = sm.initial_state()
    for seed in range(10):
        state = ref.initial_state()
        for step in tight.trace(start, seed):
            legal = ref.all_legal_moves(state)
            assert tuple(k for k, _ in step) == tuple(len(m) for m in legal)
            state = ref.next_state(state, [sm.move_terms[m] for _, m in step])
        assert ref.is_terminal(state)


def test_kernels_split_only_by_control():
    """Only turn-taking games are split: not a simultaneous-move game, not a
    game with percepts, not a one-player game."""
    for name in ("rps", "leduc", "lightsout"):
        assert load_game(name).state_machine("compiled").controls == ()


def test_an_or_of_most_moves_reads_the_rest():
    """Network._complement_does: in breakthrough no move is read by more than
    a few gates (the ORs of "no move touched this cell" read the moves that
    touch it), where the rules read each by 63."""
    import numpy as np

    arrays = load_game("breakthroughsmall").state_machine("compiled")._arrays
    reads = np.bincount(np.asarray(arrays["in_lit"]) >> 1, minlength=len(arrays["kind"]))
    assert reads[arrays["does_node"]].max() <= 8


def test_only_control_like_propositions_gate():
    """Much-read propositions that seldom flip (the cells) do not gate; on
    tic-tac-toe nothing is read by enough gates to gate."""
    assert len(load_game("tictactoe").state_machine("compiled").gating) == 0
    sm = load_game("breakthrough").state_machine("compiled")
    assert len(sm.gating) == 2


@pytest.mark.parametrize("name", ["breakthroughsmall", "connectfour", "tictactoe", "tictactoe3p"])
def test_decisive_moves_are_the_winning_ones(name):
    """Kernel.decisive (the kernel of Network.with_wins, split or not) names
    the first legal move, in move order, after which the reference finds the
    game over with the mover's goal 100; along random walks, where such
    moves exist and where they do not."""
    game = load_game(name)
    sm, ref = game.state_machine("compiled"), game.state_machine("reference")
    kernel = sm.decisive_kernel()
    rng = random.Random(5)
    wins = 0
    for _ in range(30):
        state, rstate = sm.initial_state(), ref.initial_state()
        while not ref.is_terminal(rstate):
            legal = [sm.legal_moves(state, role) for role in sm.roles]
            for r in range(len(sm.roles)):
                first = [moves[0] for moves in legal]
                found = wins_at_once(ref, rstate, r, first, legal[r])
                expected = sm._move_index[r][found[0]] if found else -1
                assert kernel.decisive(state, r) == expected
                wins += expected >= 0
            joint = [rng.choice(moves) for moves in legal]
            state, rstate = sm.next_state(state, joint), ref.next_state(rstate, joint)
    assert wins > 0


@pytest.mark.slow
@needs_shared()
def test_hex_counts_agree_at_depth_two():
    """hex (9x9): 1 + 81 + 81 x 80 positions in two plies, on both reasoners."""
    game = load_game(SHARED / "gdl1" / "hex.kif")
    fast = count(game.state_machine("compiled"), 2)
    assert fast == count(game.state_machine("reference"), 2)
    assert fast["nodes"] == 1 + 81 + 81 * 80
