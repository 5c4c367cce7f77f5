"""The board printer (matches/board.py): the whole grid of a game, with coordinates,
found in the game's base propositions."""

import time

import pytest
from conftest import SHARED, needs_shared

from ggp import load_game
from ggp.reasoners.domains import base_and_input
from matches.board import Board, piece_glyphs, render


def play(game, *joints, reasoner="compiled"):
    """The facts of the state after ``joints`` from the initial state."""
    sm = game.state_machine(reasoner)
    state = sm.initial_state()
    for joint in joints:
        state = sm.next_state(state, joint)
    return sm.state_facts(state)


def board_of(game):
    board = Board.for_game(game)
    assert board is not None, game.name
    return board


TICTACTOE_EMPTY = """\
3 . . .
2 . . .
1 . . .
  1 2 3"""

CONNECTFOUR_EMPTY = """\
6 . . . . . . .
5 . . . . . . .
4 . . . . . . .
3 . . . . . . .
2 . . . . . . .
1 . . . . . . .
  1 2 3 4 5 6 7"""


# --- our games ---------------------------------------------------------------------


def test_tictactoe_initial_board_is_three_by_three_dots():
    game = load_game("tictactoe")
    assert board_of(game).render(play(game)) == TICTACTOE_EMPTY


def test_tictactoe_mark_lands_in_its_cell():
    game = load_game("tictactoe")
    board = board_of(game)
    # (mark 2 3): column 2, row 3 (the first coordinate is the column)
    assert (
        board.render(play(game, (("mark", "2", "3"), "noop")))
        == """\
3 . x .
2 . . .
1 . . .
  1 2 3"""
    )
    assert (
        board.render(play(game, (("mark", "1", "1"), "noop"), ("noop", ("mark", "3", "1"))))
        == """\
3 . . .
2 . . .
1 x . o
  1 2 3"""
    )


def test_connectfour_initial_board_is_seven_by_six():
    game = load_game("connectfour")
    board = board_of(game)
    assert (board.relation, len(board.columns), len(board.rows)) == ("disc", 7, 6)
    assert board.render(play(game)) == CONNECTFOUR_EMPTY


def test_connectfour_drop_falls_to_the_bottom_of_its_column():
    game = load_game("connectfour")
    board = board_of(game)
    assert (
        board.render(play(game, (("drop", "3"), "noop")))
        == """\
6 . . . . . . .
5 . . . . . . .
4 . . . . . . .
3 . . . . . . .
2 . . . . . . .
1 . . r . . . .
  1 2 3 4 5 6 7"""
    )
    assert (
        board.render(
            play(game, (("drop", "3"), "noop"), ("noop", ("drop", "3")), (("drop", "7"), "noop"))
        )
        == """\
6 . . . . . . .
5 . . . . . . .
4 . . . . . . .
3 . . . . . . .
2 . . b . . . .
1 . . r . . . r
  1 2 3 4 5 6 7"""
    )


def test_breakthrough_initial_board():
    game = load_game("breakthrough")
    assert (
        board_of(game).render(play(game))
        == """\
8 b b b b b b b b
7 b b b b b b b b
6 . . . . . . . .
5 . . . . . . . .
4 . . . . . . . .
3 . . . . . . . .
2 w w w w w w w w
1 w w w w w w w w
  1 2 3 4 5 6 7 8"""
    )


def test_tictactoe3p_board_is_four_by_four():
    game = load_game("tictactoe3p")
    board = board_of(game)
    assert (
        board.render(play(game))
        == """\
4 . . . .
3 . . . .
2 . . . .
1 . . . .
  1 2 3 4"""
    )
    assert (
        board.render(play(game, (("mark", "1", "1"), "noop", "noop"))).splitlines()[3]
        == "1 r . . ."
    )


def test_lightsout_occupancy_grid():
    """(lit x y) over the whole 3x3 rectangle: lit cells are #."""
    game = load_game("lightsout")
    board = board_of(game)
    assert board.relation == "lit"
    text = board.render(play(game))
    assert text.splitlines()[-1] == "  1 2 3"
    lit = {f for f in play(game) if f[0] == "lit"}
    assert text.count("#") == len(lit)


@pytest.mark.parametrize("name", ["nim", "kuhn", "leduc", "rps", "iigs4"])
def test_games_without_a_grid(name):
    # nim's (heap a 3) is one size per heap (a ragged domain), not cells;
    # kuhn's (holds first jack) has no coordinates
    assert Board.for_game(load_game(name)) is None


def test_phantomttt_draws_the_board_not_the_taken_squares():
    game = load_game("phantomttt")
    assert board_of(game).relation == "square"
    assert board_of(game).render(play(game, reasoner="reference")) == TICTACTOE_EMPTY


@pytest.mark.parametrize("name", ["tictactoe", "connectfour", "breakthrough", "lightsout"])
def test_compiled_machine_gives_the_same_board(name):
    """A compiled machine's base propositions are the relaxed domain: no recomputation."""
    game = load_game(name)
    sm = game.state_machine()
    assert list(sm.ground_program.base) == base_and_input(game.rules)[0]
    with_sm, without = Board.for_game(game, sm), Board.for_game(game)
    facts = play(game)
    assert with_sm.render(facts) == without.render(facts)


@pytest.mark.parametrize(
    "name", ["tictactoe", "connectfour", "breakthrough", "tictactoe3p", "lightsout", "nim", "kuhn"]
)
def test_domain_is_fast_on_our_games(name):
    game = load_game(name)
    start = time.perf_counter()
    Board.for_game(game)
    assert time.perf_counter() - start < 2.0


# --- render(): the callers' entry point --------------------------------------------


def test_render_with_game_draws_the_whole_board():
    game = load_game("connectfour")
    sm = game.state_machine()
    assert render(play(game), game, sm) == CONNECTFOUR_EMPTY
    assert render(play(game), game) == CONNECTFOUR_EMPTY  # kept for the game


def test_render_without_game_guesses_from_the_state():
    game = load_game("connectfour")
    assert render(play(game)) is None  # no disc yet: nothing to guess from
    assert (
        render(
            play(game, (("drop", "3"), "noop"), ("noop", ("drop", "3")), (("drop", "5"), "noop"))
        )
        == """\
2 b . .
1 r . r
  3 4 5"""
    )
    tictactoe = load_game("tictactoe")
    assert render(play(tictactoe)) == TICTACTOE_EMPTY  # it writes its empty cells
    assert render(play(load_game("nim"))) is None


# --- shapes and symbols -------------------------------------------------------------


def test_letters_numbers_and_symbols():
    base = [
        ("cell", f, r, c)
        for f in "abc"
        for r in "12"
        for c in ("b", "blackKing", "blackKnight", "wp")
    ]
    board = Board.from_base(base + [("control", "white")])
    # word by word, the shortest prefixes that keep the words in that place apart
    assert board.symbols == {
        ("b",): ".",
        ("blackKing",): "bki",
        ("blackKnight",): "bkn",
        ("wp",): "w",
    }
    assert (
        board.render(
            {("cell", "a", "2", "blackKing"), ("cell", "c", "1", "wp"), ("cell", "b", "1", "b")}
        )
        == """\
2 bki   .   .
1   .   .   w
    a   b   c"""
    )


def test_letter_rows_a_on_top_and_prefixed_numbers_highest_on_top():
    letters = Board.from_base([("cell", x, y, "x") for x in "ab" for y in "ab"])
    assert letters.rows == ("a", "b")
    prefixed = Board.from_base(
        [("cell", f"c{x}", f"r{y}", "x") for x in range(1, 11) for y in range(1, 4)]
    )
    assert prefixed.columns[-1] == "c10" and prefixed.rows == ("r3", "r2", "r1")


def test_irregular_board_leaves_missing_cells_blank():
    base = [
        ("cell", x, y, c) for x in "123" for y in "123" for c in ("b", "x") if (x, y) != ("3", "3")
    ]
    assert (
        Board.from_base(base).render({("cell", "1", "1", "x")})
        == """\
3 . .
2 . . .
1 x . .
  1 2 3"""
    )


def test_content_first_relation():
    base = [
        ("location", who, x, y)
        for who in ("pacman", "pellet", "blinky")
        for x in "123"
        for y in "12"
    ]
    board = Board.from_base(base)
    assert board.at == (2, 3)
    assert (
        board.render({("location", "pacman", "1", "1"), ("location", "pellet", "2", "2")})
        == """\
2  . pe  .
1 pa  .  .
   1  2  3"""
    )


def test_the_relation_with_most_cells_wins_and_edges_are_not_boards():
    boxes = [("box", x, y, c) for x in "12" for y in "12" for c in "xo"]
    lines = [("line", x, y, x, str(int(y) + 1)) for x in "123" for y in "12"] * 2
    lines += [("line", x, y, str(int(x) + 1), y) for x in "12" for y in "123"]
    assert len(set(lines)) > len(boxes)
    assert Board.from_base(boxes + lines).relation == "box"
    cells = [("cell", x, y, c) for x in "123" for y in "123" for c in "xob"]
    assert Board.from_base(boxes + cells).relation == "cell"
    marks = [("mark", x, y) for x in "123" for y in "123"]  # as many cells, fewer facts
    assert Board.from_base(marks + cells).relation == "cell"


def test_coordinates_first_beats_contents_first_on_the_same_cells():
    """hex: (cell a 1 red) is the board, (connected 17 a 1) a group number per cell,
    though it has more base propositions."""
    cells = [("cell", x, y, c) for x in "abc" for y in "123" for c in ("red", "blue")]
    groups = [("connected", str(k), x, y) for k in range(1, 40) for x in "abc" for y in "123"]
    assert len(groups) > len(cells)
    assert Board.from_base(cells + groups).relation == "cell"


def test_too_large_or_too_small_axes_are_not_grids():
    assert Board.from_base([("cell", str(x), "1", "x") for x in range(1, 10)]) is None
    assert (
        Board.from_base([("cell", str(x), str(y), "x") for x in range(1, 32) for y in range(1, 3)])
        is None
    )


# --- public games --------------------------------------------------------------------


def public(name):
    return load_game(SHARED / "gdl1" / f"{name}.kif")


@needs_shared()
def test_public_connectfour_is_eight_by_six():
    game = public("connectFour")
    board = board_of(game)
    assert board.render(play(game)) == "\n".join(
        [f"{r} . . . . . . . ." for r in range(6, 0, -1)] + ["  1 2 3 4 5 6 7 8"]
    )
    after = board.render(play(game, (("drop", "5"), "noop"))).splitlines()
    assert after[5] == "1 . . . . r . . ."


@needs_shared()
def test_public_tictactoe():
    game = public("ticTacToe")
    board = board_of(game)
    assert board.render(play(game)) == TICTACTOE_EMPTY
    assert board.render(play(game, (("mark", "3", "2"), "noop"))).splitlines()[1] == "2 . . x"


@needs_shared()
@pytest.mark.parametrize(
    "name, relation, size",
    [
        ("breakthrough", "cellHolds", (8, 8)),
        ("reversi", "cell", (8, 8)),
        ("connect5", "cell", (8, 8)),
        ("speedChess", "cell", (8, 8)),
        ("dotsAndBoxes", "box", (5, 5)),
        ("blocker", "cell", (4, 4)),
        ("knightsTour", "cell", (6, 5)),
        ("pacman3p", "location", (8, 8)),
    ],
)
def test_public_grid_games(name, relation, size):
    board = board_of(public(name))
    assert (board.relation, len(board.columns), len(board.rows)) == (relation, *size)


@needs_shared()
def test_public_reversi_and_speedchess_initial_boards():
    game = public("reversi")
    lines = board_of(game).render(play(game, reasoner="reference")).splitlines()
    assert lines[3:5] == ["5 . . . r b . . .", "4 . . . b r . . ."]
    game = public("speedChess")
    lines = board_of(game).render(play(game, reasoner="reference")).splitlines()
    assert lines[0] == "8 bro bkn bbi bqu bki bbi bkn bro"
    assert lines[-1] == "    a   b   c   d   e   f   g   h"


@needs_shared()
@pytest.mark.parametrize("name", ["nim1", "hanoi", "coins", "buttons", "roshambo2"])
def test_public_games_without_a_grid(name):
    assert Board.for_game(public(name)) is None


@needs_shared()
@pytest.mark.slow
def test_public_games_too_dear_for_the_domain_are_drawn_from_their_initial_state():
    """chess's relaxed domain takes minutes: past the budget, its initial
    state (which writes every empty cell) gives the grid, within seconds."""
    game = public("chess")
    start = time.perf_counter()
    board = board_of(game)
    assert time.perf_counter() - start < 20
    lines = board.render(play(game, reasoner="demand")).splitlines()
    assert lines[0] == "8 br bn bb bq bk bb bn br" and lines[3] == "5  .  .  .  .  .  .  .  ."
    checkers = board_of(public("checkers"))
    assert (len(checkers.columns), len(checkers.rows)) == (8, 8)


# --- glyphs and the last move ---------------------------------------------------------


def names(*pieces):
    """Contents as a board holds them: one tuple of arguments each."""
    return [p if isinstance(p, tuple) else (p,) for p in pieces]


def test_chess_pieces_get_chess_glyphs_in_every_spelling():
    two_letters = piece_glyphs(names("wk", "wq", "wr", "wb", "wn", "wp", "bk", "bq", "b", "bp"))
    assert "".join(two_letters[(p,)][0] for p in ("wk", "wq", "wr", "wb", "wn", "wp")) == "♔♕♖♗♘♙"
    assert two_letters[("bk",)] == ("♚", None) and two_letters[("bp",)] == ("♟", None)
    assert ("b",) not in two_letters  # the empty cell
    words = piece_glyphs(names(("white", "king"), ("black", "knight"), ("black", "pawn")))
    assert [g for g, _ in words.values()] == ["♔", "♞", "♟"]
    assert piece_glyphs(names("wK", "bN", "wkn")) == {
        ("wK",): ("♔", None),
        ("bN",): ("♞", None),
        ("wkn",): ("♘", None),
    }
    assert piece_glyphs(names("whiteQueen", "blackRook", "black_bishop")) == {
        ("whiteQueen",): ("♕", None),
        ("blackRook",): ("♜", None),
        ("black_bishop",): ("♝", None),
    }


def test_men_and_kings_alone_are_draughts():
    glyphs = piece_glyphs(names("wp", "bp", "wk", "bk", "b"))
    assert {c[0]: g for c, g in glyphs.items()} == {
        "wp": ("⛀", None),
        "bp": ("⛂", None),
        "wk": ("⛁", None),
        "bk": ("⛃", None),
    }
    red = piece_glyphs(names(("red", "man"), ("red", "king"), ("white", "man")))
    assert red[("red", "man")] == ("⛂", "red") and red[("white", "man")] == ("⛀", None)


def test_bare_colours_are_stones():
    assert piece_glyphs(names("black", "white", "b")) == {
        ("black",): ("●", None),
        ("white",): ("○", None),
    }
    assert piece_glyphs(names("red", "blue")) == {("red",): ("●", "red"), ("blue",): ("●", "blue")}


@pytest.mark.parametrize(
    "pieces",
    [
        ("x", "o"),  # tic-tac-toe's marks stay letters
        ("1", "2", "3"),
        ("wall", "pacman"),
        ("wk", "black"),  # a chess piece beside a bare colour: no family
        ("wk", "bk", "wx"),  # one piece not read: none
        ("redKnight", "blueChecker"),
        (),
    ],
)
def test_names_of_no_family_stay_text(pieces):
    assert piece_glyphs(names(*pieces)) == {}


def test_a_board_keys_its_glyphs_by_the_symbols_it_draws():
    board = Board.from_state(
        {("cell", "a", "1", "white", "rook"), ("cell", "b", "2", "black", "king")}
    )
    assert board.render({("cell", "a", "1", "white", "rook")}).splitlines()[-2] == "1 wr  ."
    assert board.glyphs == {"wr": ("♖", None), "bk": ("♚", None)}


def test_a_piece_the_board_did_not_know_is_read_with_the_others():
    """A board taken from the initial state (checkers past the domain's budget)
    has men only; a king crowned later gets its draughts glyph."""
    start = {("cell", "a", "1", "wp"), ("cell", "b", "2", "bp"), ("cell", "a", "2", "b")}
    board = Board.from_state(start)
    assert board.glyphs_of(start) == {"w": ("⛀", None), "b": ("⛂", None)}
    crowned = start - {("cell", "a", "1", "wp")} | {("cell", "a", "1", "wk")}
    assert board.grid(crowned)[1][0] == "wk"
    assert board.glyphs_of(crowned)["wk"] == ("⛁", None)
    assert board.glyphs_of(start | {("cell", "a", "2", "x")}) == {}  # no family any more


def test_changed_cells_are_the_last_move_wherever_the_game():
    game = load_game("tictactoe")
    board = board_of(game)
    start = play(game)
    after = play(game, (("mark", "2", "3"), "noop"))
    assert board.changed(start, after) == [("2", "3")]
    assert board.changed(after, after) == []
    # a piece moving is its two cells; an empty content and no fact are the same
    before = {("cell", "a", "1", "wp"), ("cell", "a", "2", "b"), ("cell", "b", "2", "bk")}
    board = Board.from_state(before)
    moved = {("cell", "a", "1", "b"), ("cell", "a", "2", "wp"), ("cell", "b", "2", "bk")}
    assert board.changed(before, moved) == [("a", "2"), ("a", "1")]
    assert board.changed(before, before - {("cell", "a", "2", "b")}) == []
    # an occupancy grid (lights out): a cell turned on or off
    lit = Board.from_base({("lit", x, y) for x in "12" for y in "12"})
    assert lit.changed({("lit", "1", "1")}, {("lit", "1", "2")}) == [("1", "2"), ("1", "1")]
