"""The MCTS players (players/perfect/mcts.py): they find forced wins, are reproducible
under a simulation budget, and answer within the play clock; UCB1 and the
discounted backup agree with hand computations, decoupled UCT approaches the
mixed equilibrium of matrix games, the policy learns from every simulation and
decays once per decision."""

import math
import time
import warnings
from collections import Counter

import pytest
from conftest import SHARED, needs_shared, wins_at_once

from ggp import load_game
from ggp.game import games_dir
from matches.manager import run_match
from players import Observation, make

#: Tic-tac-toe from a position where x, to move, wins in two only by (mark 1 3):
#:   x . .      (mark 1 3) threatens row 1 and column 3 at once (and blocks
#:   . o .      o's diagonal 3,1 - 2,2 - 1,3); any other x move lets o win.
#:   o . x
POSITION = {(1, 1): "x", (2, 2): "o", (3, 1): "o", (3, 3): "x"}


def fork_game(position=POSITION):
    """Tic-tac-toe from ``position`` (square -> mark), x to move."""
    text = (games_dir() / "tictactoe.kif").read_text()
    for (r, c), mark in position.items():
        text = text.replace(f"(init (square {r} {c} e))", f"(init (square {r} {c} {mark}))")
    assert all(f"(init (square {r} {c} {m}))" in text for (r, c), m in position.items())
    return load_game(text)


def winning_moves(sm, state, me):
    """Moves of ``me`` that force a win within two of its moves (exhaustive)."""

    def wins(state, plies):
        if sm.is_terminal(state):
            return sm.goal(state, me) == 100
        if plies == 0:
            return False
        legal = sm.all_legal_moves(state)
        mine = sm.roles.index(me)
        options = [j for j in sm.joint_moves(state)]
        if len(legal[mine]) > 1:  # our turn: some move wins
            return any(wins(sm.next_state(state, j), plies - 1) for j in options)
        return all(wins(sm.next_state(state, j), plies - 1) for j in options)

    me_i = sm.roles.index(me)
    return [j[me_i] for j in sm.joint_moves(state) if wins(sm.next_state(state, j), 3)]


@pytest.mark.parametrize("spec", ["uct", "mast", "nst", "lgr", "uct:leaf=64", "uct:rave=500"])
def test_finds_the_forced_win_in_two(spec):
    game = fork_game()
    sm = game.state_machine("reference")
    assert winning_moves(sm, sm.initial_state(), "xplayer") == [("mark", "1", "3")]
    player = make(f"{spec}{',' if ':' in spec else ':'}simulations=3000,seed=7")
    player.start(game, "xplayer", 10, 10)
    assert player.play(Observation()) == ("mark", "1", "3")


@pytest.mark.parametrize("spec", ["uct", "mast", "mast:policy=gibbs"])
def test_finds_the_forced_win_on_the_reference_reasoner_too(spec):
    game = fork_game()
    player = make(f"{spec}{',' if ':' in spec else ':'}simulations=3000,seed=7,reasoner=reference")
    player.start(game, "xplayer", 10, 10)
    assert player.play(Observation()) == ("mark", "1", "3")


def test_mast_learns_on_the_reference_reasoner():
    """MAST kept in Python (players.perfect.searches.ReferenceSearch): every move played
    in a simulation is credited with its role's goal, so a move's score is
    the mean goal of the simulations that played it; a move never played
    scores 100; decay scales the statistics (not the means)."""
    game = load_game("tictactoe")
    player = make("mast:simulations=200,seed=3,reasoner=reference")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # MAST runs here: no fallback warning
        player.start(game, "xplayer", 10, 10)
        player.play(Observation())
    search = player.search
    assert search.mast and search.scores
    for (r, move), (total, n) in search.scores.items():
        assert n >= 1 and 0 <= total / n <= 100
    some = next(iter(search.scores))
    mean = search._score(*some)
    search.decay(0.5)
    assert search._score(*some) == pytest.approx(mean)
    assert search._score(0, ("mark", "9", "9")) == 100.0


def test_a_playout_stops_at_the_searchs_time():
    """On a slow reasoner one playout can outlast the play clock: past the
    search's time it stops, and the simulation is neither backed up nor counted."""
    game = load_game("connectfour")
    player = make("uct:seed=1,reasoner=demand")
    player.start(game, game.roles[0], 0.5, 1)
    visits = player.root.n
    player.search.until = time.monotonic() - 1
    goals, _ = player.search.playout(player.sm.initial_state(), [], [])
    assert goals is None
    assert player.simulate() is False and player.root.n == visits


def test_a_slow_reasoner_keeps_twice_its_slowest_question_in_hand():
    """On the demand-driven reasoner a state's questions can take tenths of a
    second, and a later position twice what the earlier ones took (the
    corpus harness: alexChess answered 0.01-0.28 s late at a 1 s clock, its
    searches timing only their playouts' steps and keeping one such step in
    hand).  Expansions are timed too, and a playout begins no step that
    twice the slowest question so far could take past the search's time."""
    game = load_game("connectfour")
    player = make("uct:seed=1,reasoner=demand")
    player.start(game, game.roles[0], 0.5, 1)
    search = player.search
    search.step_seconds = 0.0
    search.expand(player.sm.initial_state())
    assert search.step_seconds > 0
    search.step_seconds = 10.0
    search.until = time.monotonic() + 15
    assert search.playout(player.sm.initial_state(), [], [])[0] is None
    search.until = time.monotonic() + 25
    assert search.playout(player.sm.initial_state(), [], [])[0] is not None


@pytest.mark.parametrize(
    "spec",
    [
        "uct",
        "mast:policy=gibbs,tau=10",
        "nst:transpositions=true",
        "lgr:fallback=mast,final=average",
    ],
)
def test_a_match_is_reproducible_move_for_move(spec):
    game = load_game("connectfour")

    def play(seed=3):
        sep = "," if ":" in spec else ":"
        players = {
            "red": make(f"{spec}{sep}simulations=60,seed={seed}"),
            "black": make("uct:simulations=60,seed=4"),
        }
        return run_match(game, players, seed=5)

    first = play()
    play(seed=99)  # the shared state machine goes through other states meanwhile
    second = play()
    assert first.moves == second.moves and first.goals == second.goals
    assert len(first.moves) >= 7


def test_different_seeds_give_different_matches():
    game = load_game("connectfour")
    records = [
        run_match(
            game,
            {
                "red": make(f"uct:simulations=30,seed={s}"),
                "black": make(f"uct:simulations=30,seed={s + 10}"),
            },
        )
        for s in (1, 2)
    ]
    assert records[0].moves != records[1].moves


def test_simulation_budget_is_exact_and_statistics_add_up():
    game = load_game("tictactoe")
    player = make("uct:simulations=500,seed=1")
    player.start(game, "xplayer", 10, 10)
    player.play(Observation())
    assert player.last_simulations == 500
    stats = player.root_statistics()
    assert sum(v for v, _ in stats.values()) == 500
    assert all(0 <= q <= 100 for _, q in stats.values())


@pytest.mark.parametrize("engine", ["c", "python"])
def test_tree_is_kept_between_turns(engine):
    game = load_game("tictactoe")
    player = make(f"uct:simulations=400,seed=1,engine={engine}")
    player.start(game, "xplayer", 10, 10)
    move = player.play(Observation())
    visits = dict(zip(*player._root_rows(0)[:2]))[player.search.ids((move, "noop"))[0]]
    player.observe(Observation(turn=1, joint=(move, "noop")))
    # before any new simulation the root is the child, with its visits
    assert sum(player._root_rows(1)[1]) == visits - 1 > 0


@pytest.fixture
def python_tree(monkeypatch):
    """The Python tree, for the tests that set or read its nodes (the C tree
    makes the same simulations: test_the_c_tree_is_the_python_tree)."""
    from dataclasses import replace

    from players.perfect.mcts import MCTSPlayer

    classes, todo = [], [MCTSPlayer]
    while todo:
        classes.append(todo.pop())
        todo.extend(classes[-1].__subclasses__())
    for cls in classes:
        monkeypatch.setattr(
            cls,
            "params",
            type(cls.params)(
                replace(p, default="python") if p.name == "engine" else p for p in cls.params
            ),
        )


def play_three_moves(game, spec):
    """Three moves of ``spec`` as the first role, the others playing their first
    legal move: per move the move, the root's rows of every role and the
    policy's MAST statistics."""
    player = make(spec)
    player.start(game, game.roles[0], 1000, 1000)
    seen = []
    for turn in range(3):
        move = player.select(player.legal_moves(), time.monotonic() + 1000)
        rows = [player._root_rows(r) for r in range(len(game.roles))]
        policy = player.search.policy
        seen.append((move, rows, [policy.mast(m) for m in range(len(player.sm.move_terms))]))
        state = player.position()
        if player.sm.is_terminal(state):
            break
        joint = tuple(
            move if r == game.roles[0] else player.sm.legal_moves(state, r)[0] for r in game.roles
        )
        player.observe(Observation(turn=turn + 1, joint=joint))
    return seen


@pytest.mark.parametrize(
    "name, spec",
    [
        ("tictactoe", "uct:simulations=300,seed=3,auto=false"),
        ("connectfour", "mast:simulations=300,seed=4"),
        ("connectfour", "nst:simulations=300,seed=5,final=mixed"),
        ("breakthroughsmall", "lgr:simulations=300,seed=6"),
        ("tictactoe3p", "lgr:simulations=300,seed=7,transpositions=true"),
        ("nim", "uct:simulations=300,seed=8,transpositions=true,discount=0.9,auto=false"),
    ],
)
def test_the_c_tree_is_the_python_tree(name, spec):
    """Same seed, same simulations: the same moves, root statistics (visits,
    reward sums, best rewards of every role) and policy statistics, move after
    move, with the tree kept between moves (``uct`` with ``auto`` off: only the
    C tree decides per game what to switch on)."""
    game = load_game(name)
    assert play_three_moves(game, spec) == play_three_moves(game, spec + ",engine=python")


@needs_shared()
def test_the_c_tree_is_the_python_tree_in_a_simultaneous_game():
    game = load_game(SHARED / "gdl1" / "connectFourSimultaneous.kif")
    spec = "nst:simulations=300,seed=9"
    assert play_three_moves(game, spec) == play_three_moves(game, spec + ",engine=python")


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="final"):
        make("uct:final=robust")
    with pytest.raises(ValueError, match="simulations"):
        make("uct:simulations=0")
    with pytest.raises(ValueError, match="n=4"):
        make("nst:n=4")
    with pytest.raises(ValueError, match="replies=3"):
        make("lgr:replies=3")


@needs_shared()
@pytest.mark.parametrize("count", [30, pytest.param(100, marks=pytest.mark.slow)])
def test_answers_within_a_one_second_play_clock(count):
    """Every answer of ``count`` moves (matches against a random player) within
    the 1 s play clock; the 100 moves of the slow run take about two minutes."""
    game = load_game(SHARED / "gdl1" / "breakthrough.kif")
    late = []
    moves = 0
    while moves < count:
        player = make("uct:seed=1")
        opponent = make("random:seed=2")
        answers = []
        original = player.play

        def play(obs, original=original):
            started = time.monotonic()
            move = original(obs)
            answers.append(time.monotonic() - started)
            return move

        player.play = play
        record = run_match(
            game, {"white": player, "black": opponent}, seed=moves, start_clock=2.0, play_clock=1.0
        )
        assert not [step[0] for step in record.errors if step[0]], record.errors
        late += [t for t in answers if t > 1.0]
        moves += len(answers)
    assert late == [] and moves >= count


# --- the search by hand -------------------------------------------------------------
def matrix_game(payoff):
    """A one-step simultaneous game: left and right choose at once, left's
    goal is ``payoff[(left's move, right's move)]``, right's 100 minus it."""
    lines = [
        "(role left)",
        "(role right)",
        "(init start)",
        "(<= (legal ?p ?m) (role ?p) (choice ?m))",
        "(<= (next (played ?p ?m)) (does ?p ?m))",
        "(<= (next done) (true start))",
        "(<= terminal (true done))",
    ]
    lines += [f"(choice {m})" for m in sorted({a for a, _ in payoff})]
    for (a, b), v in payoff.items():
        for role, goal in (("left", v), ("right", 100 - v)):
            lines.append(
                f"(<= (goal {role} {goal}) (true (played left {a})) (true (played right {b})))"
            )
    return load_game("\n".join(lines))


WEAPONS = ("rock", "paper", "scissors")
BEATS = {("rock", "scissors"), ("scissors", "paper"), ("paper", "rock")}
RPS = {(a, b): 50 if a == b else 100 if (a, b) in BEATS else 0 for a in WEAPONS for b in WEAPONS}
#: Matching pennies with a bias: left scores 100 on (heads, heads), 50 on
#: (tails, tails), 0 otherwise.  Its equilibrium is heads with probability
#: 1/3 for both: then left's heads (100 q) and tails (50 (1 - q)) are worth the
#: same for q = 1/3, and right's heads (100 (1 - p)) and tails (100 p + 50 (1 - p))
#: for p = 1/3.
PENNIES = {
    ("heads", "heads"): 100,
    ("heads", "tails"): 0,
    ("tails", "heads"): 0,
    ("tails", "tails"): 50,
}


def started(spec, game, role):
    """A player of ``spec`` started as ``role`` (give it a simulation budget:
    without one it would think for the whole start clock)."""
    player = make(spec)
    player.start(game, role, 10, 10)
    return player


def set_statistics(player, node, stats):
    """Give ``node`` the statistics ``stats``: per role, move -> (visits, average)."""
    for r, moves in enumerate(stats):
        index = {player.search.move(r, m): j for j, m in enumerate(node.legal[r])}
        for move, (visits, average) in moves.items():
            node.visits[r][index[move]] = visits
            node.sums[r][index[move]] = visits * average
    node.n = sum(v for v, _ in stats[0].values())


def test_ucb1_picks_the_hand_computed_move(python_tree):
    """UCB1 on the 0..100 scale, Q + C sqrt(ln N / n) with C = 40, N = 40 (ln N = 3.689):
    left: rock 60 + 40 sqrt(3.689 / 25) = 75.37, paper 40 + 40 sqrt(3.689 / 5) = 74.36,
          scissors 52 + 40 sqrt(3.689 / 10) = 76.30: scissors (neither the best
          average, rock, nor the least visited, paper; with sqrt(2 ln N / n), paper);
    right: rock 45 + 40 sqrt(3.689 / 4) = 83.41, paper 55 + 40 sqrt(3.689 / 16) = 74.21,
           scissors 60 + 40 sqrt(3.689 / 20) = 77.18: rock, the worst average.
    With C = 10: left 63.84, 48.59, 58.07: rock; right 54.60, 59.80, 64.30: scissors."""
    stats = [
        {"rock": (25, 60.0), "paper": (5, 40.0), "scissors": (10, 52.0)},
        {"rock": (4, 45.0), "paper": (16, 55.0), "scissors": (20, 60.0)},
    ]
    assert math.log(40) == pytest.approx(3.689, abs=1e-3)
    for spec, expected in [
        ("uct:simulations=1", ("scissors", "rock")),
        ("uct:c=10,simulations=1", ("rock", "scissors")),
    ]:
        player = started(spec, matrix_game(RPS), "left")
        set_statistics(player, player.root, stats)
        assert player.root.n == 40
        joint, pick = player._choose_joint(player.root, [])
        assert tuple(player.search.move(r, m) for r, m in enumerate(joint)) == expected


#: x to move with two squares left:   x x .   (mark 1 3) wins at once (100, 0);
#:                                    o o x   (mark 3 3) leaves o the forced
#:                                    x o .   (mark 1 3): a full board, a draw.
ENDGAME = {
    (1, 1): "x",
    (1, 2): "x",
    (2, 1): "o",
    (2, 2): "o",
    (2, 3): "x",
    (3, 1): "x",
    (3, 2): "o",
}


def test_backup_discounts_by_gamma_to_the_power_of_the_plies(python_tree):
    """With discount 0.5: (mark 1 3) ends the game one ply from the root, so
    each of its visits adds 100 * 0.5 = 50 for x; (mark 3 3) ends it two plies
    from the root (o's forced reply: in a playout on the first visit, in the
    tree afterwards), so x and o each get 50 * 0.25 = 12.5 there, and o's
    reply, one ply from its node, 50 * 0.5 = 25 from its second visit on.
    The best reward seen (final=best) is the largest such term."""
    game = fork_game(ENDGAME)
    player = started("uct:simulations=40,discount=0.5,seed=3", game, "xplayer")
    assert player.play(Observation()) == ("mark", "1", "3")
    root, move = player.root, player.search.move
    stats = {
        move(0, m): (v, s, t)
        for m, v, s, t in zip(root.legal[0], root.visits[0], root.sums[0], root.tops[0])
    }
    (wins, win_sum, win_top), (draws, draw_sum, draw_top) = (
        stats[("mark", "1", "3")],
        stats[("mark", "3", "3")],
    )
    assert wins + draws == 40 and wins > 1 and draws > 1
    assert (win_sum, win_top) == (50.0 * wins, 50.0)
    assert (draw_sum, draw_top) == (12.5 * draws, 12.5)
    assert (root.visits[1], root.sums[1], root.tops[1]) == ([40], [12.5 * draws], [12.5])
    child = next(c for j, c in root.children.items() if move(0, j[0]) == ("mark", "3", "3"))
    assert child.n == draws
    assert (child.visits[1], child.sums[1]) == ([draws - 1], [25.0 * (draws - 1)])


@pytest.mark.parametrize(
    "payoff, frequencies",
    [(RPS, {m: 1 / 3 for m in WEAPONS}), (PENNIES, {"heads": 1 / 3, "tails": 2 / 3})],
    ids=["rps", "biased-pennies"],
)
def test_decoupled_uct_approaches_the_mixed_equilibrium(payoff, frequencies):
    """Each role's root visit frequencies after 20,000 simulations are within
    0.04 of its equilibrium strategy (UCB1 cycles around it and gets closer
    slowly: about 0.03 off at 20,000, 0.02 at 100,000)."""
    player = started("uct:simulations=20000,seed=1", matrix_game(payoff), "left")
    player.play(Observation())
    for role in ("left", "right"):
        stats = player.root_statistics(role)
        assert stats.keys() == frequencies.keys()
        for move, (visits, _) in stats.items():
            assert visits / 20000 == pytest.approx(frequencies[move], abs=0.04), (role, stats)


def test_final_move_choices(python_tree):
    """visits: most visited; average: best average; best: best reward seen;
    mixed: drawn in proportion to the visits (and played as such)."""
    left = {"rock": (10, 70.0), "paper": (30, 40.0), "scissors": (60, 50.0)}
    tops = {"rock": 80.0, "paper": 100.0, "scissors": 90.0}

    def final_move(player):
        return player.search.move(0, player._best(0, set(player.root.legal[0])))

    game = matrix_game(RPS)
    for final, expected in [
        ("visits", "scissors"),
        ("average", "rock"),
        ("best", "paper"),
        ("mixed", None),
    ]:
        player = started(f"uct:final={final},seed=5,simulations=1", game, "left")
        set_statistics(player, player.root, [left, {m: (100 / 3, 50.0) for m in WEAPONS}])
        for j, m in enumerate(player.root.legal[0]):
            player.root.tops[0][j] = tops[player.search.move(0, m)]
        if expected:
            assert final_move(player) == expected
    drawn = Counter(final_move(player) for _ in range(5000))
    for move, (visits, _) in left.items():
        assert drawn[move] / 5000 == pytest.approx(visits / 100, abs=0.03)
    game = matrix_game(RPS)
    played = Counter(
        started(f"uct:final=mixed,simulations=1000,seed={s}", game, "left").play(Observation())
        for s in range(30)
    )
    assert set(played) == set(WEAPONS)


@pytest.mark.parametrize("engine", ["c", "python"])
def test_the_move_played_is_one_of_the_legal_moves_given(engine):
    """A GDL-II search is rooted at one state consistent with what the role
    saw; when the belief is lost, that state's moves can differ from the
    role's legal moves (small_dominion: ``noop``, illegal, played four times
    in one match).  The move played is the best of the root's moves that are
    legal, and a legal one when none is."""
    game = fork_game()
    player = make(f"uct:simulations=300,seed=3,engine={engine}")
    player.start(game, "xplayer", 10, 10)
    assert player.select([("mark", "2", "3")], time.monotonic() + 10) == ("mark", "2", "3")
    assert player.select([("noop",)], time.monotonic() + 10) == ("noop",)


# --- the policy learns from every simulation, and decays once per decision -----------
#:   x o .    x to move, four squares left: many simulations end inside the
#:   . o .    tree, at a terminal state, without a playout.
#:   o . x
FOUR_LEFT = {**POSITION, (1, 2): "o"}


@pytest.mark.parametrize("spec", ["mast", "nst", "lgr"])
def test_the_policy_is_credited_at_terminal_tree_leaves(spec, python_tree):
    """Every simulation credits its tree moves and its playout moves, one count
    per move and role in MAST's statistics: their total is twice the tree
    steps (the visits of every node below the root) plus the playout steps,
    also for the simulations that end at a terminal state in the tree."""
    player = started(f"{spec}:simulations=2000,seed=2", fork_game(FOUR_LEFT), "xplayer")
    playout, playout_steps = player.search.playout, []

    def counted(*args):
        goals, depth = playout(*args)
        playout_steps.append(depth)
        return goals, depth

    player.search.playout = counted
    player.play(Observation())
    tree_steps, todo = 0, list(player.root.children.values())
    while todo:
        node = todo.pop()
        tree_steps += node.n
        todo.extend(node.children.values())
    assert tree_steps >= 2000 and len(playout_steps) < 200  # most end in the tree
    policy = player.search.policy
    credited = sum(policy.mast(m)[1] for m in range(len(player.sm.move_terms)))
    assert credited == 2 * (tree_steps + sum(playout_steps))


def test_decay_runs_once_per_decision_of_ours():
    """Tic-tac-toe against a random player: the statistics decay before each of
    x's five moves, not at the o turns where x can only play noop."""
    player = make("mast:simulations=50,seed=1")
    decays = []
    meta_game = player.meta_game

    def watched(deadline):
        meta_game(deadline)
        decay = player.search.decay
        player.search.decay = lambda factor: (decays.append(factor), decay(factor))

    player.meta_game = watched
    record = run_match(
        load_game("tictactoe"), {"xplayer": player, "oplayer": make("random:seed=1")}, seed=1
    )
    decisions = sum(1 for joint in record.moves if joint[0] != "noop")
    assert len(record.moves) > decisions > 0
    assert decays == [0.2] * decisions


def test_root_parallel_trees_are_reproducible_and_summed():
    """threads=2 splits the budget between two trees; the first is the
    single-tree search of the same seed with its share, and the root
    statistics played from are the two trees' sums."""
    game = load_game("connectfour")

    def first_move(spec):
        player = make(spec)
        player.start(game, game.roles[0], 10, 10)
        move = player.select(player.legal_moves(), time.monotonic() + 10)
        return player, move

    pair, move = first_move("uct:threads=2,simulations=1001,seed=3")
    again, move_again = first_move("uct:threads=2,simulations=1001,seed=3")
    alone, _ = first_move("uct:simulations=501,seed=3")
    assert move == move_again and pair._root_rows(0) == again._root_rows(0)
    assert pair.last_simulations == 1001 == sum(pair._root_rows(0)[1])
    trees = pair.ctree.trees
    assert trees[0].root_moves(0) == alone._root_rows(0)
    assert [
        sum(x) for x in zip(trees[0].root_moves(0)[1], trees[1].root_moves(0)[1])
    ] == pair._root_rows(0)[1]


def test_root_parallel_search_plays_a_match_on_the_clock():
    game = load_game("tictactoe")
    seats = {"xplayer": make("mast:threads=2,margin=0.05"), "oplayer": make("random:seed=1")}
    record = run_match(game, seats, seed=1, start_clock=1, play_clock=0.2)
    assert not [e for step in record.errors for e in step if e]
    assert seats["xplayer"].last_simulations > 0


# --- MCTS-Solver --------------------------------------------------------------------------


def _minimax(sm, state, roles):
    """The goals under best play of a two-player turn-taking game, by brute
    force on the reference reasoner: the mover maximises its own goal."""
    if sm.is_terminal(state):
        return tuple(sm.goals(state))
    legal = sm.all_legal_moves(state)
    mover = (
        next(r for r, moves in enumerate(legal) if len(moves) > 1)
        if any(len(moves) > 1 for moves in legal)
        else 0
    )
    best = None
    for move in legal[mover]:
        joint = [moves[0] for moves in legal]
        joint[mover] = move
        value = _minimax(sm, sm.next_state(state, joint), roles)
        if best is None or value[mover] > best[mover]:
            best = value
    return best


def _random_play(player, sm, rng, done):
    """Random joint moves from the start of ``sm``'s game, each observed by
    ``player``, until ``done(state, turns)``: the state reached."""
    state, turns = sm.initial_state(), 0
    while not done(state, turns):
        joint = tuple(rng.choice(moves) for moves in sm.all_legal_moves(state))
        turns += 1
        player.observe(Observation(turn=turns, joint=joint))
        state = sm.next_state(state, joint)
    return state


def _searched_position(seed, option):
    """Tic-tac-toe after four random moves from ``seed`` (x to move), searched
    by ``uct`` with ``option`` for 20,000 simulations: (game, reference
    reasoner, player, state, the mover's index, the move played)."""
    import random

    game = load_game("tictactoe")
    reference = game.state_machine("reference")
    rng = random.Random(seed)
    player = make(f"uct:simulations=20000,seed={seed},{option}")
    player.start(game, game.roles[0], 10, 10)
    state = _random_play(player, reference, rng, lambda state, turns: turns == 4)
    assert not reference.is_terminal(state)
    mover = next(r for r, moves in enumerate(reference.all_legal_moves(state)) if len(moves) > 1)
    return game, reference, player, state, mover, player.select(player.legal_moves(), math.inf)


@pytest.mark.parametrize("option", ["solver=true", "tactics=true"])
@pytest.mark.parametrize("seed", range(6))
def test_the_solver_finds_the_value_under_best_play(seed, option):
    """From tic-tac-toe positions with five empty cells (reached by random
    moves), the solver proves the root, and its value is minimax's; with
    tactics too (nodes solved at once where their mover wins at once)."""
    game, reference, player, state, mover, move = _searched_position(seed, option)
    tree = player.ctree.trees[0]
    exact = [p and p[0] for p in player.ctree.root_proofs(mover)]
    value = _minimax(reference, state, game.roles)
    assert tree.solved and max(x for x in exact if x is not None) == value[mover]
    # the move played is one that keeps the value
    joint = [moves[0] for moves in reference.all_legal_moves(state)]
    joint[mover] = move
    assert _minimax(reference, reference.next_state(state, joint), game.roles) == value


@pytest.mark.parametrize("option", ["solver=true", "tactics=true"])
@pytest.mark.parametrize("seed", [15, 16, 19, 37])
def test_a_proven_loss_is_played_out_not_thrown_away(seed, option):
    """Tic-tac-toe positions (four random moves from ``seed``, x to move) lost
    under best play where four of x's five moves let o win at once and one
    blocks: the solver proves every move lost, and the move played is the
    block, which a fallible opponent may still not punish, not the first
    known loss in the list (the solver keeps the plies to the end of each
    proof, and puts a loss off longest)."""
    game, reference, player, state, mover, move = _searched_position(seed, option)
    legal = reference.all_legal_moves(state)
    assert _minimax(reference, state, game.roles)[mover] == 0
    assert player.ctree.trees[0].solved
    moves = [player.search.move(mover, m) for m in player.ctree.root_moves(mover)[0]]
    proofs = dict(zip(moves, player.ctree.root_proofs(mover)))
    assert {goal for goal, _ in proofs.values()} == {0.0}
    joint = [moves[0] for moves in legal]
    joint[mover] = move
    after = reference.next_state(state, joint)
    assert not reference.is_terminal(after)
    replies = [moves[0] for moves in reference.all_legal_moves(after)]
    assert not wins_at_once(reference, after, 1 - mover, replies)
    # o wins two plies after each other move (its win, then the end), later after the block
    plies = sorted(p for _, p in proofs.values())
    assert plies[:-1] == [2] * (len(plies) - 1) and plies[-1] > 2
    assert proofs[move][1] == plies[-1]


def test_tactics_know_each_move_that_lets_the_opponent_win_at_once_after_one_visit():
    """In the fork position every x move but (mark 1 3) lets o complete its
    diagonal at once.  With tactics the node after each such move is solved
    when it is made (o wins at once there), so after one simulation a root
    move those four are known losses (the anti-decisive moves of Teytaud and
    Teytaud, CIG 2010), and the winning move is proved soon after; the plain
    solver knows nothing after five, with decisive playouts or without."""
    game = fork_game()

    def exact(option, simulations):
        player = make(f"uct:{option},simulations={simulations},seed=7")
        player.start(game, "xplayer", 10, 10)
        player.select(player.legal_moves(), math.inf)
        moves = player.ctree.root_moves(0)[0]
        proofs = player.ctree.root_proofs(0)
        return {player.search.move(0, m): p and p[0] for m, p in zip(moves, proofs)}

    found = exact("tactics=true", 5)
    assert found.pop(("mark", "1", "3")) is None
    assert set(found.values()) == {0.0} and len(found) == 4
    assert set(exact("solver=true", 5).values()) == {None}
    # decisive playouts run on the kernel that reads wins; the solver beside
    # them is still the plain one
    assert set(exact("solver=true,decisive=true", 5).values()) == {None}
    assert exact("tactics=true", 60)[("mark", "1", "3")] == 100.0


def test_the_solver_changes_nothing_until_it_proves_something():
    """Early in connect four nothing is proved: with and without the solver,
    the same simulations."""
    game = load_game("connectfour")
    assert first_search(game, "uct:solver=false") == first_search(game, "uct:solver=true")


def first_search(game, spec):
    """The first role's root statistics after 300 simulations (seed 3) on the
    first move."""
    player = make(f"{spec},simulations=300,seed=3")
    player.start(game, game.roles[0], 10, 10)
    player.select(player.legal_moves(), math.inf)
    return sorted((str(m), v, a) for m, (v, a) in player.root_statistics().items())


@pytest.mark.parametrize(
    "option",
    [
        "threads=4",
        "solver=true",
        "tactics=true",
        "leaf=64",
        "rave=500",
        "heuristic=0.5",
        "prior=5",
        "imm=0.4",
        "cutoff=5",
        "early=5",
    ],
)
def test_the_c_tree_options_without_the_c_tree_warn(option):
    game = load_game("tictactoe")
    player = make(f"uct:simulations=10,seed=1,{option},engine=python")
    with pytest.warns(RuntimeWarning, match=f"{option.split('=')[0]} needs the tree in C"):
        player.start(game, game.roles[0], 10, 10)


def test_the_c_tree_options_dropped_are_one_warning_once():
    """The options that need the C tree, dropped without it, are one warning
    at the first START (threads was once dropped without a word, the others
    a warning each at every START)."""
    game = load_game("tictactoe")
    player = make("uct:simulations=10,seed=1,threads=4,rave=500,engine=python")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        player.start(game, game.roles[0], 10, 10)
        player.start(game, game.roles[0], 10, 10)
    assert [str(w.message) for w in caught] == [
        "uct: threads, rave need the tree in C (engine=c on the compiled reasoner); "
        "searching without"
    ]


def test_decisive_playouts_in_both_trees_and_a_warning_without_the_kernel():
    """decisive=true changes the simulations, the same in the C and the
    Python tree (the playouts are the policy's either way), and warns once,
    searching without, on the reference reasoner."""
    game = load_game("connectfour")
    decisive = first_search(game, "uct:decisive=true,auto=false")
    assert decisive == first_search(game, "uct:decisive=true,engine=python")
    assert decisive != first_search(game, "uct:decisive=false,auto=false")
    player = make("uct:simulations=10,seed=1,decisive=true,reasoner=reference")
    with pytest.warns(RuntimeWarning, match="decisive playouts need the compiled reasoner"):
        player.start(game, game.roles[0], 10, 10)


# --- leaf parallelism -----------------------------------------------------------------
def test_a_new_leaf_is_played_out_leaf_times_in_the_lanes():
    """One simulation from the start of tic-tac-toe: the move it tried holds
    ``leaf`` visits and ``leaf`` times the mean goal of the lanes' playouts
    from its state (same seed), discounted by the mean depth plus the ply."""
    game = load_game("tictactoe")
    sm = game.state_machine()
    player = make("uct:simulations=1,seed=5,leaf=64")
    player.start(game, "xplayer", 10, 10)
    player.play(Observation())
    moves, visits, sums, _ = player._root_rows(0)
    [tried] = [j for j, v in enumerate(visits) if v]
    assert visits[tried] == 64 and sum(visits) == 64
    move = player.search.move(0, moves[tried])
    child = sm.next_state(sm.initial_state(), (move, "noop"))
    steps, goals, cut = sm.new_lanes().playouts(child, 64, player.search.seed)
    assert cut == 0 and 0 < goals[0] < 64 * 100
    assert sums[tried] == pytest.approx(goals[0] * 0.999 ** (steps / 64 + 1))


def test_with_leaf_parallelism_every_simulation_counts_leaf_times():
    """Terminal nodes reached in the tree too (tic-tac-toe has many)."""
    game = load_game("tictactoe")
    player = make("uct:simulations=3000,seed=2,leaf=16")
    player.start(game, "xplayer", 10, 10)
    player.play(Observation())
    assert sum(player._root_rows(0)[1]) == 16 * 3000
    assert all(0 <= q <= 100 for _, q in player.root_statistics().values())


# --- RAVE ----------------------------------------------------------------------------
def test_rave_credits_each_move_played_at_or_below_a_node():
    """The first nine simulations from the start of tic-tac-toe each try a new
    root move, with RAVE or without: recorded from the Python tree (the same
    simulations), every move a role played in a simulation, in the tree or
    the playout, must be credited at the root once with that simulation's
    discounted reward."""
    game = load_game("tictactoe")
    reference = make("uct:simulations=9,seed=3,engine=python")
    reference.start(game, "xplayer", 10, 10)
    search, sims = reference.search, []

    def playout(state, history, joints):
        context = history[-2:]
        goals, depth, _, moves = search.policy.playout(
            state, context + joints, len(context), record=True
        )
        sims.append((list(joints) + list(moves), goals, depth))
        return goals, depth

    search.playout = playout
    reference.play(Observation())
    assert len(sims) == 9
    player = make("uct:simulations=9,seed=3,rave=500,auto=false")
    player.start(game, "xplayer", 10, 10)
    player.play(Observation())
    assert player._root_rows(0)[:2] == reference._root_rows(0)[:2]
    tree = player.ctree.trees[0]
    for r in range(2):
        moves = player._root_rows(r)[0]
        want_n, want_sum = [0] * len(moves), [0.0] * len(moves)
        for steps, goals, depth in sims:
            played = {joint[r] for joint in steps}
            for j, m in enumerate(moves):
                if m in played:
                    want_n[j] += 1
                    want_sum[j] += goals[r] * 0.999 ** (depth + 1)
        got_n, got_sum = tree.root_amaf(r)
        assert got_n == want_n and got_sum == pytest.approx(want_sum)
    assert sum(tree.root_amaf(0)[0]) > 9  # later moves are credited too


def test_rave_and_leaf_parallelism_are_refused_together():
    with pytest.raises(ValueError, match="rave needs the playouts' moves"):
        make("uct:rave=500,leaf=64")


# --- the material heuristic --------------------------------------------------------------
def test_the_learned_material_evaluation_prefers_having_more_pawns():
    """Breakthrough's pawns are found as its pieces (players.perfect.heuristic), and a
    position where black has lost a pawn is worth more to white, less to black."""
    import numpy as np

    from players.perfect.heuristic import content_features, material_evaluation

    sm = load_game("breakthrough").state_machine()
    assert set(content_features(sm.base_propositions)) == {("pawn", "white"), ("pawn", "black")}
    # 400 playouts, the count (not the clock) bounding the sample: with 100
    # the fit happened to give a lost black pawn a small negative weight for
    # white (-1.4 points), whatever the seed; with 400, +0.8 to +0.9
    weights, bias, _ = material_evaluation(sm, playouts=400, seed=1)
    start = sm.initial_state()
    fewer = sm.state_from_facts(sm.state_facts(start) - {("pawn", "1", "8", "black")})
    value = {
        name: bias + weights @ np.frombuffer(state, np.uint8)
        for name, state in (("start", start), ("fewer", fewer))
    }
    white, black = sm.roles.index("white"), sm.roles.index("black")
    assert value["fewer"][white] > value["start"][white]
    assert value["fewer"][black] < value["start"][black]


def test_priors_start_a_capture_above_the_quiet_moves():
    """prior=5: each root move starts with five visits at a value from how much
    it changes white's learned material evaluation.  After 4,2-4,3, 5,7-5,6,
    4,3-4,4, 5,6-5,5 white's one capture (4,4 takes 5,5) starts above 50 and
    every quiet move at 50 (it changes no piece count); before the
    move's search the root's statistics are the priors alone."""
    player = make("uct:prior=5,simulations=1,seed=1")
    game = load_game("breakthrough")
    player.start(game, "white", 10, 10)
    for turn, joint in enumerate(
        [
            (("move", "4", "2", "4", "3"), "noop"),
            ("noop", ("move", "5", "7", "5", "6")),
            (("move", "4", "3", "4", "4"), "noop"),
            ("noop", ("move", "5", "6", "5", "5")),
        ]
    ):
        player.observe(Observation(turn=turn + 1, joint=joint))
    moves, visits, sums, _ = player.ctree.root_moves(0)
    value = {player.search.move(0, m): s / v for m, v, s in zip(moves, visits, sums)}
    assert set(visits) == {5}
    capture = value.pop(("move", "4", "4", "5", "5"))
    # a quiet move's value is 50 up to the rounding of the evaluation's sum,
    # whose terms come in another order once a piece has moved
    assert capture > 55 and all(v == pytest.approx(50.0, abs=1e-9) for v in value.values())


def test_the_material_evaluation_is_the_same_however_long_it_may_take():
    """The sample is counted in playouts: the same evaluation with a deadline
    far off or none, and none at all (OutOfTime) past its deadline."""
    import numpy as np

    from players.perfect.heuristic import OutOfTime, material_evaluation

    sm = load_game("breakthrough").state_machine()
    a = material_evaluation(sm, playouts=30, seed=3)
    b = material_evaluation(sm, playouts=30, seed=3, until=time.monotonic() + 600)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    with pytest.raises(OutOfTime, match="0 of 30 playouts"):
        material_evaluation(sm, playouts=30, seed=3, until=time.monotonic() - 1)


def test_a_heuristic_without_time_to_learn_is_dropped_with_a_warning():
    game = load_game("breakthrough")
    player = make("uct:simulations=1,seed=4,heuristic=0.5")
    with pytest.warns(RuntimeWarning, match="took too long"):
        player.start(game, "white", 0.0001, 10)
    assert player.evaluation is None


def test_the_heuristic_is_mixed_into_a_new_leaf_value():
    """With weight 1 and no discount, the move the one simulation tried holds
    the evaluation of the state it leads to."""
    import numpy as np

    sm, (weights, bias, _), child, reward = one_simulation("heuristic=1")
    value = bias[0] + weights[0] @ np.frombuffer(child, np.uint8)
    assert reward == pytest.approx(min(100.0, max(0.0, value)))


def one_simulation(option):
    """White's first move on breakthrough after one simulation (seed 4, no
    discount) with ``option``: the state machine, the player's evaluation,
    the state the simulated root move leads to and the reward it got."""
    game = load_game("breakthrough")
    sm = game.state_machine()
    player = make(f"uct:simulations=1,seed=4,discount=1,{option}")
    player.start(game, "white", 600, 10)  # the evaluation's wait: a quarter of it
    player.play(Observation())
    moves, visits, sums, _ = player._root_rows(0)
    [tried] = [j for j, v in enumerate(visits) if v]
    child = sm.next_state(sm.initial_state(), (player.search.move(0, moves[tried]), "noop"))
    return sm, player.evaluation, child, sums[tried]


def test_a_game_without_pieces_warns_and_searches_without_the_heuristic():
    game = load_game("nim")
    player = make("uct:simulations=10,seed=1,heuristic=0.5")
    with pytest.warns(RuntimeWarning, match="searching without the heuristic"):
        player.start(game, game.roles[0], 10, 10)
    assert player.evaluation is None


NO_GOAL_AT_THE_END = """(role p) (init (at 0))
(<= (legal p stop) (true (at 0))) (<= (legal p go) (true (at 0)))
(<= (next (at 1)) (does p go)) (<= (next (at 2)) (does p stop))
(<= terminal (true (at 1))) (<= terminal (true (at 2)))
(<= (goal p 100) (true (at 1)))"""


@pytest.mark.parametrize("reasoner", ["compiled", "demand"])
def test_a_terminal_state_without_a_goal_counts_zero_in_the_search(reasoner):
    """chess.kif gives no goal after its 200th move (no checkmate): a search
    meeting such a state counts it 0, as the kernel does, with one warning,
    where it used to crash the player; the manager still reports the fault."""
    game = load_game(NO_GOAL_AT_THE_END)
    player = make(f"uct:simulations=50,seed=1,reasoner={reasoner},engine=python")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        player.start(game, "p", 10, 10)
        assert player.play(Observation()) == "go"
    assert len([w for w in caught if "no goal values" in str(w.message)]) == (
        reasoner != "compiled"
    )


# --- implicit minimax backups and early playout termination -------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_implicit_minimax_values_are_minimax_once_the_tree_reaches_every_end(seed):
    """From tic-tac-toe positions with five empty cells, a search that
    explores nearly uniformly (c=1000) soon holds every state to the end of
    the game in its tree.  Each root move's implicit minimax value (Lanctot et
    al. 2014) is then the minimax of the ends' goals, whatever the evaluation
    at the leaves said on the way."""
    import random

    game = load_game("tictactoe")
    reference = game.state_machine("reference")
    rng = random.Random(seed)
    player = make(f"uct:simulations=20000,seed={seed},imm=0.5,c=1000")
    player.start(game, game.roles[0], 600, 10)
    assert player.evaluation is not None
    state = _random_play(player, reference, rng, lambda state, turns: turns == 4)
    legal = reference.all_legal_moves(state)
    mover = next(r for r, moves in enumerate(legal) if len(moves) > 1)
    player.select(player.legal_moves(), math.inf)
    moves = player.ctree.root_moves(mover)[0]
    values = player.ctree.root_values(mover)
    for move, value in zip(moves, values):
        joint = [moves[0] for moves in legal]
        joint[mover] = player.search.move(mover, move)
        after = reference.next_state(state, joint)
        assert value == _minimax(reference, after, game.roles)[mover]
    # the other role has no choice at the root: no values for it
    assert set(player.ctree.root_values(1 - mover)) == {None}


def test_implicit_minimax_values_are_kept_with_the_tree_between_moves():
    """The tree kept after a move keeps every row's values: from the same
    five-empty-cell positions, after x's searched move is observed, each of
    o's root moves holds its minimax value before any new simulation."""
    import random

    game = load_game("tictactoe")
    reference = game.state_machine("reference")
    rng = random.Random(0)
    player = make("uct:simulations=20000,seed=0,imm=0.5,c=1000")
    player.start(game, game.roles[0], 600, 10)
    state = _random_play(player, reference, rng, lambda state, turns: turns == 4)
    mover = next(r for r, moves in enumerate(reference.all_legal_moves(state)) if len(moves) > 1)
    played = player.select(player.legal_moves(), math.inf)
    joint = [moves[0] for moves in reference.all_legal_moves(state)]
    joint[mover] = played
    player.observe(Observation(turn=5, joint=tuple(joint)))
    state = reference.next_state(state, joint)
    other = 1 - mover
    legal = reference.all_legal_moves(state)
    moves = player.ctree.root_moves(other)[0]
    values = player.ctree.root_values(other)
    assert len(moves) > 1
    for move, value in zip(moves, values):
        joint = [choices[0] for choices in legal]
        joint[other] = player.search.move(other, move)
        after = reference.next_state(state, joint)
        assert value == _minimax(reference, after, game.roles)[other]


def _takes(weights, mover, before, after):
    """Whether the step from ``before`` to ``after`` (states as bytes) leaves
    a role other than ``mover`` holding fewer of the propositions its
    evaluation counts for it (a positive weight)."""
    import numpy as np

    here, there = np.frombuffer(before, np.uint8), np.frombuffer(after, np.uint8)
    return any(there[w > 0].sum() < here[w > 0].sum() for r, w in enumerate(weights) if r != mover)


def _steps(sm, state):
    """The one role with a choice at ``state`` (0 when none) and each of its
    moves with the state it leads to."""
    legal = sm.all_legal_moves(state)
    mover = next((r for r, moves in enumerate(legal) if len(moves) > 1), 0)
    for move in legal[mover]:
        joint = [moves[0] for moves in legal]
        joint[mover] = move
        yield mover, move, sm.next_state(state, tuple(joint))


def _settled(sm, evaluation, state, plies):
    """Every role's value of ``state`` once its exchanges are played out,
    written plainly on the state machine: the mover stands on its clipped
    evaluation or takes a capture (:func:`_takes`), valued so in turn, up to
    ``plies`` captures; a terminal state has its goals.  (Breakthrough has
    one role with a choice at every step.)"""
    import numpy as np

    weights, bias, _ = evaluation
    if sm.is_terminal(state):
        return list(sm.goals(state))
    here = np.frombuffer(state, np.uint8)
    out = [float(np.clip(b + w @ here, 0, 100)) for w, b in zip(weights, bias)]
    if plies <= 0:
        return out
    for mover, _, after in _steps(sm, state):
        if _takes(weights, mover, state, after):
            value = _settled(sm, evaluation, after, plies - 1)
            if value[mover] > out[mover]:
                out = value
    return out


@pytest.mark.parametrize("seed", range(3))
def test_a_capture_is_valued_once_its_exchanges_are_played_out(seed):
    """quiesce=3: each root move of a breakthrough middle game that takes a
    pawn gets, as its implicit minimax value, the value after the best
    sequence of up to three further captures either side may choose to make
    (or not), and some such value is not the plain evaluation of the state
    after the move."""
    import random

    game = load_game("breakthrough")
    sm = game.state_machine()
    rng = random.Random(seed)
    player = make(f"uct:simulations=1,seed={seed},imm=0.4,fit=rules,quiesce=3")
    player.start(game, game.roles[0], 600, 10)
    weights = player.evaluation[0]

    def exchanges(state):
        """How many of the mover's captures can be answered by a capture."""
        return sum(
            _settled(sm, player.evaluation, a, 3) != _settled(sm, player.evaluation, a, 0)
            for m, _, a in _steps(sm, state)
            if _takes(weights, m, state, a)
        )

    # random moves until there are exchanges
    state = _random_play(
        player, sm, rng, lambda state, turns: turns >= 16 and exchanges(state) >= 2
    )
    mover = next(_steps(sm, state))[0]
    player.select(player.legal_moves(), math.inf)
    rows, visits, _, _ = player._root_rows(mover)
    values = player.ctree.root_values(mover)
    after = {move: a for _, move, a in _steps(sm, state)}
    differs = 0
    for row, visited, value in zip(rows, visits, values):
        if visited:
            continue  # its value came back from the simulation
        there = after[player.search.move(mover, row)]
        took = _takes(weights, mover, state, there)
        expected = _settled(sm, player.evaluation, there, 3 if took else 0)[mover]
        assert value == pytest.approx(expected)
        differs += value != pytest.approx(_settled(sm, player.evaluation, there, 0)[mover])
    assert differs > 0


def test_quiescence_needs_implicit_minimax():
    with pytest.raises(ValueError, match="give imm too"):
        make("uct:simulations=1,quiesce=3")


@pytest.mark.parametrize("option", ["mvv", "defend"])
def test_the_choices_among_captures_need_capture_first_playouts(option):
    with pytest.raises(ValueError, match="give greedy too"):
        make(f"uct:simulations=1,{option}=true")


def test_capture_first_playouts_and_the_lanes_are_refused_together():
    with pytest.raises(ValueError, match="capture-first playouts"):
        make("uct:simulations=1,greedy=1,leaf=64")


def test_without_implicit_minimax_there_are_no_values():
    game = load_game("tictactoe")
    player = make("uct:simulations=50,seed=1")
    player.start(game, game.roles[0], 10, 10)
    player.select(player.legal_moves(), math.inf)
    assert set(player.ctree.root_values(0)) == {None}


def test_a_playout_cut_short_is_scored_by_the_evaluation():
    """cutoff=1, no discount, one simulation: the new child of the root is
    played out one ply and the evaluation of where that ply leads is the
    simulation's reward (Lorentz, "Early Playout Termination in MCTS", 2015),
    not a goal of the game's end."""
    import numpy as np

    sm, (weights, bias, _), child, reward = one_simulation("cutoff=1")
    reachable = {
        float(
            np.clip(bias[0] + weights[0] @ np.frombuffer(sm.next_state(child, j), np.uint8), 0, 100)
        )
        for j in sm.joint_moves(child)
    }
    assert any(reward == pytest.approx(v) for v in reachable)
    assert 0 < reward < 100


COUNTING = """(role a) (role b)
(init (count 0)) (init (step 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(<= (legal a inc) (true (step ?s))) (<= (legal a stay) (true (step ?s)))
(legal b noop)
(<= (next (count ?m)) (does a inc) (true (count ?n)) (succ ?n ?m))
(<= (next (count ?n)) (does a stay) (true (count ?n)))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= terminal (true (step 6)))
(<= (goal a 0) (true (count 0))) (<= (goal a 10) (true (count 1)))
(<= (goal a 20) (true (count 2))) (<= (goal a 30) (true (count 3)))
(<= (goal a 40) (true (count 4))) (<= (goal a 50) (true (count 5)))
(<= (goal a 60) (true (count 6))) (<= (goal b 0) (true (step ?s)))"""


@pytest.mark.parametrize("seed", range(8))
def test_a_playout_cut_early_is_scored_by_the_goals_where_it_stopped(seed, tmp_path):
    """early=1, no discount, one simulation: the root's move and one more ply
    (a's count goes up by at most 2) and the goal there, 10 a count, is the
    reward: at most 20, where a playout to the end (six plies) would reach
    more than 20 in two of three (Finnsson, "Generalized Monte-Carlo Tree
    Search Extensions for General Game Playing", AAAI 2012)."""
    path = tmp_path / "counting.kif"
    path.write_text(COUNTING)
    game = load_game(path)
    player = make(f"uct:simulations=1,seed={seed},discount=1,early=1")
    player.start(game, "a", 10, 10)
    player.play(Observation())
    _, visits, sums, _ = player._root_rows(0)
    assert sum(visits) == 1 and sum(sums) in (0, 10, 20)


def test_early_and_cutoff_are_refused_together():
    with pytest.raises(ValueError, match="use one or the other"):
        make("uct:simulations=1,early=3,cutoff=3")


def test_the_lanes_and_early_termination_are_refused_together():
    with pytest.raises(ValueError, match="early playout termination"):
        make("uct:simulations=1,seed=4,cutoff=3,leaf=64")
    with pytest.raises(ValueError, match="early playout termination"):
        make("uct:simulations=1,seed=4,early=3,leaf=64")


def test_the_evaluation_may_be_fitted_on_self_play():
    """fit=selfplay: the evaluation comes from games of a small search
    (players.perfect.evaluation), the same for the same seed."""
    import numpy as np

    game = load_game("tictactoe")

    def fitted(fit):
        player = make(f"uct:simulations=1,seed=4,imm=0.4,fit={fit}")
        player.start(game, game.roles[0], 600, 10)  # the fit's wait: a quarter of it
        return player.evaluation[0]

    selfplay = fitted("selfplay")
    assert np.array_equal(selfplay, fitted("selfplay"))
    assert not np.array_equal(selfplay, fitted("playouts"))


# --- the proof search ---------------------------------------------------------------------

#: x to move must block o's row at (1 3), and cannot win first; the block
#: holds (a draw under best play).
#:   o o .
#:   x . .
#:   . . x
MUST_BLOCK = {(1, 1): "o", (1, 2): "o", (2, 1): "x", (3, 3): "x"}


def test_a_proved_forced_win_is_played_without_searching():
    """In the fork position x forces a win in three plies by (mark 1 3) alone
    (winning_moves above): proof=N finds it and plays it at once."""
    game = fork_game()
    player = make("uct:simulations=50,seed=3,proof=2000")
    player.start(game, "xplayer", 10, 10)
    assert player.select(player.legal_moves(), math.inf) == ("mark", "1", "3")
    assert player.last_simulations == 0


@pytest.mark.parametrize("seed", range(5))
def test_a_move_proved_lost_is_not_played(seed):
    """Every x move but the block at (1 3) lets o complete its row (checked by
    brute force): with proof the block is played even after a single
    simulation (without, not for every seed: the next test)."""
    game = fork_game(MUST_BLOCK)
    reference = game.state_machine("reference")
    start = reference.initial_state()
    lost = {
        j[0]
        for j in reference.joint_moves(start)
        if _minimax(reference, reference.next_state(start, j), game.roles)[1] == 100
    }
    assert len(lost) == 4 and ("mark", "1", "3") not in lost

    def move(spec):
        player = make(spec)
        player.start(fork_game(MUST_BLOCK), "xplayer", 10, 10)
        return player.select(player.legal_moves(), math.inf)

    assert move(f"uct:simulations=1,seed={seed},proof=2000") == ("mark", "1", "3")


def test_without_the_proof_search_one_simulation_does_not_block():
    played = set()
    for seed in range(5):
        player = make(f"uct:simulations=1,seed={seed}")
        player.start(fork_game(MUST_BLOCK), "xplayer", 10, 10)
        played.add(player.select(player.legal_moves(), math.inf))
    assert played != {("mark", "1", "3")}


def test_the_prover_answers_exactly_on_the_fork_position():
    """players.perfect._proof.Prover against the brute force above: the
    forced win in three plies (none in one), and which x moves let o win."""
    from players.perfect._proof import Prover

    game = fork_game()
    sm = game.state_machine("compiled")
    reference = game.state_machine("reference")
    prover = Prover(sm.kernel.copy())
    start = sm.initial_state()
    names = {sm.move_numbers[0][m]: m for m in sm.legal_moves(start, "xplayer")}
    assert prover.forced_win(start, 0, 1, 1000) == -1
    assert names[prover.forced_win(start, 0, 3, 1000)] == ("mark", "1", "3")
    lost = {names[m] for m in names if prover.loses(start, 0, m, 1, 1, 1000)}
    ref = reference.initial_state()
    assert lost == {
        j[0]
        for j in reference.joint_moves(ref)
        if _minimax(reference, reference.next_state(ref, j), game.roles)[1] == 100
    } - {("mark", "1", "3")}
    with pytest.raises(ValueError, match="not one of"):
        prover.loses(start, 0, 10**6, 1, 1, 1000)


def test_the_prover_gives_up_at_its_instant():
    """On the clock the search stops at its instant, whatever its budget: no
    proof then (the win in three plies of the fork position is not found)."""
    from players.perfect._proof import Prover

    sm = fork_game().state_machine("compiled")
    prover = Prover(sm.kernel.copy())
    start = sm.initial_state()
    assert prover.forced_win(start, 0, 3, 10**9, time.monotonic() - 1) == -1
    assert prover.exhausted
    assert prover.forced_win(start, 0, 3, 10**9, time.monotonic() + 60) >= 0
