"""The demand-driven reasoner (ggp.reasoners.demand) against the reference, step by step.

Every game (games_gdl, the public games and the conformance cases) is played
by random playouts asked of both: legal moves per role in order, next states,
terminality, goals and percepts must agree (tests/test_compiled.compare).
CI plays for 2 s a game; the slow run plays 20 playouts whatever the time,
and the games that do not ground (chess takes the reference ~30 s a step).
"""

import warnings

import pytest
from conftest import SHARED, needs_shared
from test_compiled import GAMES, INVALID, UNGROUNDABLE, compare

from ggp import load_game
from ggp.tools.count import count


def load(source):
    stem = getattr(source, "stem", source)
    if stem in INVALID:
        pytest.skip("invalid GDL (EXPECTED.md)")
    if stem in UNGROUNDABLE:
        pytest.skip("the reference takes seconds a step: compared in the slow run")
    return load_game(source)


@pytest.mark.parametrize("source", GAMES)
def test_differential(source):
    done, steps = compare(load(source), playouts=50, seconds=2.0, reasoner="demand")
    assert steps >= 1 or done >= 1


@pytest.mark.slow
@pytest.mark.parametrize("source", GAMES)
def test_differential_20_playouts(source):
    stem = getattr(source, "stem", source)
    if stem in INVALID:
        pytest.skip("invalid GDL (EXPECTED.md)")
    game = load_game(source)
    if stem in UNGROUNDABLE:  # a few steps of one playout: the reference is slow
        _, steps = compare(game, playouts=1, seconds=120.0, seed=3, reasoner="demand")
        assert steps >= 2
        return
    done, _ = compare(game, playouts=20, seconds=3600.0, seed=3, reasoner="demand")
    assert done == 20


#: Reachability over edges that form a cycle (a -> b -> c -> a), written
#: left-recursively: a call of ``reach`` reads its own answers while they are
#: being found, so its episode must be evaluated again to its fixpoint.  The
#: move ``cut`` removes an edge; ``d`` is reached only through the cycle.
CYCLE = """(role p)
(init (edge a b)) (init (edge b c)) (init (edge c a)) (init (edge c d))
(<= (reach ?x ?y) (true (edge ?x ?y)))
(<= (reach ?x ?z) (reach ?x ?y) (true (edge ?y ?z)))
(<= (legal p (go ?y)) (reach a ?y))
(<= (legal p (cut ?x ?y)) (true (edge ?x ?y)) (not (reach ?y ?x)))
(<= (legal p (cut ?x ?y)) (true (edge ?x ?y)) (reach ?y ?x) (reach ?x d))
(<= (next (edge ?x ?y)) (true (edge ?x ?y)) (not (does p (cut ?x ?y))))
(<= (next (at ?y)) (does p (go ?y)))
(<= terminal (true (at d)))
(<= terminal (not (reach a d)))
(<= (goal p 100) (true (at d)))
(<= (goal p 0) (not (true (at d))))"""


def test_recursion_through_a_cycle_reaches_its_fixpoint():
    game = load_game(CYCLE)
    ref, dem = game.state_machine("reference"), game.state_machine("demand")
    state = dem.initial_state()
    moves = dem.legal_moves(state, "p")
    assert moves == ref.legal_moves(ref.initial_state(), "p")
    assert [m for m in moves if m[0] == "go"] == [("go", y) for y in "abcd"]
    assert ("cut", "c", "d") in moves and ("cut", "a", "b") in moves
    after = dem.next_state(state, [("cut", "c", "d")])
    assert dem.is_terminal(after) and dem.goal(after, "p") == 0
    assert count(dem, 3) == count(ref, 3)


def test_states_and_moves_are_kept_apart():
    """A state's answers do not leak into another's, nor a joint move's into another's."""
    game = load_game("tictactoe")
    dem, ref = game.state_machine("demand"), game.state_machine("reference")
    s = dem.initial_state()
    first = dem.next_state(s, [("mark", "1", "1"), "noop"])
    second = dem.next_state(s, [("mark", "2", "2"), "noop"])
    assert first != second
    assert first == ref.next_state(s, (("mark", "1", "1"), "noop"))
    assert dem.legal_moves(first, "oplayer") == ref.legal_moves(first, "oplayer")
    assert dem.legal_moves(s, "xplayer") == ref.legal_moves(s, "xplayer")


def test_illegal_and_malformed_moves_are_refused():
    from ggp import GameError

    sm = load_game("tictactoe").state_machine("demand")
    s = sm.initial_state()
    for joint in [("noop", "noop"), (("mark", "1", "1"),), (("mark", "9", "9"), "noop")]:
        with pytest.raises(GameError):
            sm.next_state(s, joint)


def test_forks_answer_apart():
    sm = load_game("connectfour").state_machine("demand")
    other = sm.fork()
    s = sm.initial_state()
    assert other.all_legal_moves(s) == sm.all_legal_moves(s)
    assert other._states is not sm._states


@needs_shared()
def test_a_game_that_does_not_ground_plays_on_it():
    """Grounding gives up on chess (its relaxed domain passes the fact
    limit): the game falls back to the demand-driven reasoner, which answers
    a state in milliseconds where the reference takes ~30 s."""
    game = load_game(SHARED / "gdl1" / "chess.kif")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sm = game.state_machine("compiled", limit=100_000)
    assert sm.name == "demand"
    assert "using the demand-driven reasoner" in str(caught[0].message)
    state = sm.initial_state()
    white = sm.legal_moves(state, "white")
    assert len(white) == 20 and sm.legal_moves(state, "black") == ["noop"]
    state = sm.next_state(state, (("move", "wp", "e", "2", "e", "4"), "noop"))
    assert len(sm.legal_moves(state, "black")) == 20 and not sm.is_terminal(state)


@needs_shared()
def test_chess_counts_are_the_perft_numbers():
    """Chess's known move counts (perft: 20 first moves, 400 positions after
    two plies, 8,902 after three) from the public chess.kif, which plays one
    ply a step (the other role noops).  CI counts two plies; the slow run three."""
    sm = load_game(SHARED / "gdl1" / "chess.kif").state_machine("demand")
    result = count(sm, 2)
    assert result["nodes"] == 1 + 20 + 400


@pytest.mark.slow
@needs_shared()
def test_chess_counts_three_plies():
    sm = load_game(SHARED / "gdl1" / "chess.kif").state_machine("demand")
    assert count(sm, 3)["nodes"] == 1 + 20 + 400 + 8902


@needs_shared()
def test_amazons_has_its_2176_first_moves():
    """Amazons on 10x10 has 2,176 first moves (queen move then arrow), a
    count known from the game's literature (perft 1)."""
    sm = load_game(SHARED / "gdl1" / "amazons.kif").state_machine("demand")
    state = sm.initial_state()
    assert len(sm.legal_moves(state, "white")) == 2176
    assert sm.legal_moves(state, "black") == ["noop"]


@pytest.mark.slow
@needs_shared()
def test_amazons_compiled_counts_agree_with_the_demand_reasoner():
    """Amazons is compiled (1.5 million ground rules, about a
    minute's build).  Its 2,176 first moves on both reasoners, and black's
    replies after every sixteenth of them (136 positions), move for move:
    the demand-driven reasoner, which never grounds, is the oracle here (the
    reference takes minutes a step).  The 4,307,152 positions after two
    plies are counted on the compiled reasoner alone (docs/reasoners.md)."""
    game = load_game(SHARED / "gdl1" / "amazons.kif")
    fast = game.state_machine("compiled")
    slow = game.state_machine("demand")
    assert fast.name == "compiled" and slow.name == "demand"
    a, b = fast.initial_state(), slow.initial_state()
    first = fast.legal_moves(a, "white")
    assert first == slow.legal_moves(b, "white") and len(first) == 2176
    replies = 0
    for i, move in enumerate(first):
        after = fast.next_state(a, (move, "noop"))
        legal = fast.legal_moves(after, "black")
        replies += len(legal)
        if i % 16 == 0:
            there = slow.next_state(b, (move, "noop"))
            assert fast.state_facts(after) == slow.state_facts(there)
            assert legal == slow.legal_moves(there, "black"), move
    assert replies == 4_307_152


def test_a_failed_question_leaves_no_half_filled_tables():
    """A recursion deeper than Python allows is one GameError, and the
    state's tables are dropped, so the next question starts clean."""
    import sys

    from ggp import GameError

    game = load_game(
        """(role p) (init (n 0))
        (<= (chain ?x ?z) (succ ?x ?y) (true (n 0)) (chain ?y ?z))
        (<= (chain ?x ?x) (last ?x))
        (<= (legal p go) (true (n ?x)) (chain ?x ?y))
        (<= (next (n ?x)) (true (n ?x))) (<= terminal (true (n 1)))
        (<= (goal p 100) (true (n 0)))
        """
        + " ".join(f"(succ {i} {i + 1})" for i in range(100))
        + " (last 100)"
    )
    sm = game.state_machine("demand")
    state = sm.initial_state()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(150)
    try:
        with pytest.raises(GameError, match="recursed too deeply answering legal"):
            sm.legal_moves(state, "p")
        assert not sm._questions(state).state_tables
    finally:
        sys.setrecursionlimit(limit)
    assert sm.legal_moves(state, "p") == ["go"]


def test_a_call_with_too_many_answers_fails_at_its_limit():
    """A role with 200^4 legal moves: the call (legal a ?) is refused once it
    has more than ANSWERS answers in the state (it filled the memory answer
    by answer), its tables dropped; a call within the limit still answers."""
    from pathlib import Path

    from ggp.reasoners.demand import ANSWERS, TooManyAnswers

    path = Path(__file__).parent / "invalid" / "play" / "legal_too_many.kif"
    sm = load_game(path).state_machine("demand")
    state = sm.initial_state()
    with pytest.raises(TooManyAnswers) as info:
        sm.legal_moves(state, "a")
    assert str(info.value) == (
        "(legal a ?) has more than 100,000 answers in one state, more "
        "than the demand-driven reasoner holds"
    )
    assert ANSWERS == 100_000 and not sm._questions(state).state_tables
    assert not sm.is_terminal(state)
    rules = path.read_text().split("(number 1)")[0]
    few = load_game(rules + " ".join(f"(number {i})" for i in range(1, 18)))
    assert len(few.state_machine("demand").legal_moves(state, "a")) == 17**4 <= ANSWERS
