"""A text picture of grid games, for ``ggp play`` and ``ggp match``.

The grid is found once per game, in the game's base propositions (the
relaxed reachable domain, :mod:`ggp.reasoners.domains`), not in the cells a state
happens to occupy, so the whole board is drawn from the first step on::

    >>> from ggp import load_game
    >>> board = Board.for_game(load_game("tictactoe"))
    >>> print(board.render({("square", "1", "1", "x")}))
    3 . . .
    2 . . .
    1 x . .
      1 2 3

A grid relation is one whose base propositions are ``(rel x y content...)``
(tictactoe's ``square``, chess's ``cell``), ``(rel content... x y)``
(pacman's ``location``), or ``(rel x y)`` over a whole rectangle (lights
out's ``lit``, chomp's ``chocolate``: an occupied cell is drawn ``#``).  A
coordinate is a number, a letter (chess files a..h) or a word followed by a
number (``c1``, ``r7``); each axis has 2 to 30 values.  The first coordinate
gives the column, the second the row; rows that are numbers are drawn with
the highest on top, rows that are letters with ``a`` on top.  Among several
grid relations the one with the most cells wins, then one with its
coordinates first (hex's ``(cell a 1 red)`` over ``(connected 17 a 1)``),
then the one with the most base propositions.  Empty contents (``b``,
``blank``, ``empty``, ...) and cells without a fact are drawn ``.``, cells
that no base proposition mentions (outside an irregular board) as blanks,
and pieces as the shortest prefixes of their words that keep them apart
(``blackKing`` -> ``bki`` next to ``blackKnight`` -> ``bkn``; chess's ``wp``
stays ``wp``), right-aligned to a common width.

For the browser viewer, :meth:`Board.changed` gives the cells a move
changed (computed from the two states) and :func:`piece_glyphs` Unicode
glyphs for pieces named as in chess, draughts or go (read from the names
alone; other names stay text).

The match printers call ``render(facts, game, sm)``: the board is built on
the first call and kept for the game, from the compiled machine's base
propositions when there is one (nothing to compute), else from
:func:`ggp.reasoners.domains.relaxed_facts` within a budget (:data:`EFFORT`), past
which the grid is taken from the initial state.  ``render(facts)`` alone
guesses the grid from the state (only the cells it mentions and those
between).
"""

from __future__ import annotations

import re
import weakref
from collections import defaultdict

#: Contents drawn as an empty cell.
EMPTY = frozenset({"b", "blank", "empty", "e", "0", "none", "free"})
#: The largest number of columns or rows of a grid.
MAX_SIDE = 30
#: The symbol of an occupied cell of a relation without contents.
OCCUPIED = "#"
#: Candidate atoms the relaxed domain may examine when a board is built
#: without a compiled machine (see :func:`ggp.reasoners.datalog.solutions`): 1 to 3 s
#: at most on the public games (amazons is the slowest to give up).
#: Tictactoe needs 500, connect four 7,000, reversi 330,000; checkers
#: (1.8 million, 5 s) and chess (past 20 million, a minute) go past it and
#: are drawn from their initial state instead.
EFFORT = 500_000

_PREFIXED = re.compile(r"([A-Za-z_]*)(\d+)\Z")
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


class Board:
    """One relation of a grid game, drawn as a grid by :meth:`render`.

    ``relation`` and ``arity`` (the length of its tuples) name the
    relation, ``at`` the positions of its two coordinates in a tuple,
    ``columns`` and ``rows`` the coordinates in drawing order (rows top
    first), ``cells`` the (column, row) pairs that exist.
    """

    def __init__(self, relation, arity, at, columns, rows, cells, contents=()):
        self.relation, self.arity, self.at = relation, arity, at
        self.content_at = tuple(i for i in range(1, arity) if i not in at)
        self.columns, self.rows = tuple(columns), tuple(rows)
        self.cells = frozenset(cells)
        self.symbols = _symbols(contents)
        self.width = max([1] + [len(s) for s in self.symbols.values()])
        found = piece_glyphs(contents)
        #: The glyph (and colour, or None) of each piece symbol that has one
        #: (:func:`piece_glyphs`), for the browser viewer.
        self.glyphs = {self.symbols[c]: g for c, g in found.items() if c in self.symbols}

    # --- building --------------------------------------------------------------

    @classmethod
    def for_game(cls, game, sm=None, effort: int = EFFORT) -> Board | None:
        """The board of ``game`` (a :class:`~ggp.game.Game`), or None when it
        has no grid.

        Pass the game's state machine when there is one: a compiled machine
        already holds the base propositions (the same relaxed domain), so
        nothing is computed.  Otherwise the relaxed domain is computed, and
        when that takes more than ``effort`` candidate atoms the grid is
        taken from the initial state instead (enough for games that write
        their empty cells, like chess; not for connect four).
        """
        base = getattr(getattr(sm, "ground_program", None), "base", None)
        if base is None:
            from ggp.reasoners import REFERENCE
            from ggp.reasoners.domains import relaxed_facts
            from ggp.reasoners.reference import Effort
            from ggp.statemachine import GameError

            try:
                facts = relaxed_facts(game.rules, effort=Effort(effort))
                base = [a[1] for a in facts.get("true")]
            except GameError:
                machine = sm if sm is not None else game.state_machine(REFERENCE)
                return cls.from_state(machine.state_facts(machine.initial_state()))
        return cls.from_base(base)

    @classmethod
    def from_base(cls, base) -> Board | None:
        """The board of a game whose base propositions are ``base``, or None."""
        return cls._best(base, guessed=False)

    @classmethod
    def from_state(cls, facts) -> Board | None:
        """The board guessed from one state, or None: the grid of the cells
        it mentions, numbers and letters between them filled in (1 to 10
        when it mentions 1, 4, 7 and 10), every cell taken to exist."""
        return cls._best(facts, guessed=True)

    @classmethod
    def _best(cls, base, guessed) -> Board | None:
        by_relation = defaultdict(list)
        for fact in base:
            if isinstance(fact, tuple) and len(fact) >= 3 and isinstance(fact[0], str):
                by_relation[fact[0], len(fact)].append(fact)
        best, best_key = None, None
        for (relation, arity), facts in sorted(by_relation.items()):
            board = cls._detect(relation, arity, facts, guessed)
            if board is not None:
                key = (len(board.cells), board.at == (1, 2), len(facts))
                if best_key is None or key > best_key:
                    best, best_key = board, key
        return best

    @classmethod
    def _detect(cls, relation, arity, facts, guessed) -> Board | None:
        shapes = [(1, 2)]
        if arity > 3:
            shapes.append((arity - 2, arity - 1))
        for at in shapes:
            columns = _axis({f[at[0]] for f in facts})
            rows = _axis({f[at[1]] for f in facts})
            if columns is None or rows is None:
                continue
            content_at = [i for i in range(1, arity) if i not in at]
            contents = {tuple(f[i] for i in content_at) for f in facts}
            cells = {(f[at[0]], f[at[1]]) for f in facts}
            if not content_at and (guessed or len(cells) < len(columns) * len(rows)):
                continue  # (heap a 3): a value per name, not a set of cells
            if len(content_at) >= 2 and all(
                _coordinate(c) for content in contents for c in content
            ):
                continue  # (line 1 1 1 2): an edge between two cells
            if guessed:
                columns, rows = _fill(columns), _fill(rows)
                if len(columns) > MAX_SIDE or len(rows) > MAX_SIDE:
                    continue
                cells = {(c, r) for c in columns for r in rows}
            if _numeric(rows):
                rows = rows[::-1]
            return cls(relation, arity, at, columns, rows, cells, contents)
        return None

    # --- drawing ---------------------------------------------------------------

    def grid(self, facts) -> list:
        """The state whose true base propositions are ``facts`` as rows (top
        first) of cell symbols: ``"."`` for an empty cell, ``""`` for a cell
        that is not on the board."""
        found = defaultdict(list)
        for cell, content in self._cell_facts(facts):
            found[cell].append(content)
        shown = {cell: self._show(contents) for cell, contents in found.items()}
        return [
            [shown.get((c, r), "." if (c, r) in self.cells else "") for c in self.columns]
            for r in self.rows
        ]

    def contents(self, facts) -> dict:
        """The non-empty contents of each cell of the state whose true base
        propositions are ``facts``: (column, row) -> frozenset of contents
        (``True`` for an occupied cell of a relation without contents)."""
        found = defaultdict(set)
        for cell, content in self._cell_facts(facts):
            if not _empty(content):
                found[cell].add(content or True)
        return {cell: frozenset(c) for cell, c in found.items()}

    def _cell_facts(self, facts):
        """``((column, row), content)`` of each of ``facts`` that is the
        board's relation: the cell it names and the rest of its arguments."""
        for f in facts:
            if isinstance(f, tuple) and len(f) == self.arity and f[0] == self.relation:
                yield (f[self.at[0]], f[self.at[1]]), tuple(f[i] for i in self.content_at)

    def changed(self, before, after) -> list:
        """The cells whose contents differ between two states (their facts),
        as (column, row) pairs in drawing order (top row first): the last
        move as the board shows it, whatever the game (a piece moved is its
        two cells, a capture in passing three, castling four).  An empty
        content (``b``) and no fact at all are the same."""
        was, now = self.contents(before), self.contents(after)
        return [
            (c, r)
            for r in self.rows
            for c in self.columns
            if was.get((c, r), frozenset()) != now.get((c, r), frozenset())
        ]

    def glyphs_of(self, facts) -> dict:
        """The glyph (and colour) of each symbol of the state whose true base
        propositions are ``facts``: :attr:`glyphs`, read again with the
        pieces the board did not know (a board taken from the initial state
        meets checkers' kings later on)."""
        new = {
            c
            for found in self.contents(facts).values()
            for c in found
            if c is not True and c not in self.symbols
        }
        if not new:
            return self.glyphs
        found = piece_glyphs(set(self.symbols) | new)
        return {self.symbols.get(c) or _symbol(c): g for c, g in found.items()}

    def render(self, facts) -> str:
        """The state whose true base propositions are ``facts``, as text:
        rows labelled on the left, columns below."""
        grid = self.grid(facts)
        width = max(
            [self.width]
            + [len(s) for row in grid for s in row]
            + [len(str(c)) for c in self.columns]
        )
        margin = max(len(str(r)) for r in self.rows)
        lines = [
            (str(r).rjust(margin) + " " + " ".join(s.rjust(width) for s in row)).rstrip()
            for r, row in zip(self.rows, grid)
        ]
        lines.append(" " * (margin + 1) + " ".join(str(c).rjust(width) for c in self.columns))
        return "\n".join(lines)

    def _show(self, contents) -> str:
        if not self.content_at:
            return OCCUPIED
        symbols = sorted({self.symbols.get(c) or _symbol(c) for c in contents} - {"."})
        if len(symbols) > 1:  # several pieces in one cell: as many as fit
            return "".join(symbols)[: self.width]
        return symbols[0] if symbols else "."

    def __repr__(self) -> str:
        return (
            f"Board({self.relation!r}, {len(self.columns)}x{len(self.rows)}, "
            f"columns={' '.join(map(str, self.columns))}, "
            f"rows={' '.join(map(str, self.rows))})"
        )


_boards: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def board_of(facts, game=None, sm=None) -> Board | None:
    """The board to draw a state of ``game`` on, or None when there is no grid.

    With ``game`` (and, if there is one, its state machine ``sm``), the
    whole board of the game (:meth:`Board.for_game`, built on the first call
    and kept for the game).  Without, the grid is guessed from ``facts``
    alone, so only the cells the state mentions are drawn.
    """
    if game is None:
        return Board.from_state(facts)
    if game not in _boards:
        _boards[game] = Board.for_game(game, sm)
    return _boards[game]


def render(facts, game=None, sm=None) -> str | None:
    """The board of a state as text (:func:`board_of`), or None when there is no grid."""
    board = board_of(facts, game, sm)
    return None if board is None else board.render(facts)


# --- coordinates and symbols -----------------------------------------------------


def _coordinate(c) -> bool:
    return isinstance(c, str) and (
        c.isdigit() or (len(c) == 1 and c.isalpha()) or _PREFIXED.match(c) is not None
    )


def _axis(values) -> list | None:
    """The values of one axis in order, or None unless they are 2 to
    MAX_SIDE coordinates of one kind (numbers, letters, or one word
    followed by numbers)."""
    if not 2 <= len(values) <= MAX_SIDE or not all(_coordinate(v) for v in values):
        return None
    kinds = {_kind(v) for v in values}
    if len(kinds) != 1:
        return None
    return sorted(values, key=_order)


def _kind(v: str) -> str:
    """A coordinate's kind: a number, a letter, or the word before its number."""
    if v.isdigit():
        return "number"
    if len(v) == 1 and v.isalpha():
        return "letter"
    m = _PREFIXED.match(v)
    assert m is not None  # a coordinate (_coordinate) that is neither of the above
    return m.group(1).lower()


def _fill(axis) -> list:
    """An axis with the numbers or letters between its values added."""
    numbers = [_PREFIXED.match(v) for v in axis]
    found = [m for m in numbers if m is not None]
    if len(found) == len(numbers) and all(str(int(m.group(2))) == m.group(2) for m in found):
        prefix, values = found[0].group(1), [int(m.group(2)) for m in found]
        return [f"{prefix}{i}" for i in range(min(values), max(values) + 1)]
    if not any(numbers):
        return [chr(i) for i in range(ord(min(axis)), ord(max(axis)) + 1)]
    return list(axis)


def _order(c):
    c = str(c)
    m = _PREFIXED.match(c)
    return (m.group(1).lower(), int(m.group(2)), c) if m else (c.lower(), -1, c)


def _numeric(coords) -> bool:
    """Numbers (``3``, ``r3``), drawn highest on top; letters are drawn a on top."""
    return all(_PREFIXED.match(str(c)) for c in coords)


def _words(content) -> list:
    """The words of a content: its arguments, split at camelCase, ``_`` and ``-``."""
    words: list[str] = []
    for arg in content:
        text = arg if isinstance(arg, str) else str(arg[0]) if isinstance(arg, tuple) else str(arg)
        words.extend(w.lower() for w in _WORDS.findall(text) or [text])
    return words


def _symbols(contents) -> dict:
    """A short symbol for each content: empties ``.``; otherwise, word by
    word, the shortest prefix that keeps the words in that place apart
    (numbers in full)."""
    symbols, pieces = {}, []
    for content in contents:
        if len(content) == 1 and isinstance(content[0], str) and content[0].lower() in EMPTY:
            symbols[content] = "."
        elif content:
            pieces.append(content)
    split = {c: _words(c) for c in pieces}
    places = defaultdict(set)
    for words in split.values():
        for i, w in enumerate(words):
            places[i].add(w)
    keep = {i: _prefix_length(ws) for i, ws in places.items()}
    short = {
        c: "".join(w if w.isdigit() else w[: keep[i]] for i, w in enumerate(words))
        for c, words in split.items()
    }
    if len(set(short.values())) < len(short):  # collided: the words in full
        short = {c: "".join(words) for c, words in split.items()}
    symbols.update(short)
    return symbols


def _prefix_length(words) -> int:
    longest = max(len(w) for w in words)
    for n in range(1, longest + 1):
        if len({w[:n] for w in words}) == len(words):
            return n
    return longest


def _symbol(content) -> str:
    """A content the domain did not have: its words, up to three letters."""
    if _empty(content):
        return "."
    return "".join(_words(content))[:3]


def _empty(content) -> bool:
    return len(content) == 1 and isinstance(content[0], str) and content[0].lower() in EMPTY


# --- piece glyphs -------------------------------------------------------------------

#: Chess glyphs by colour and kind.
CHESS = {
    "white": {"king": "♔", "queen": "♕", "rook": "♖", "bishop": "♗", "knight": "♘", "pawn": "♙"},
    "black": {"king": "♚", "queen": "♛", "rook": "♜", "bishop": "♝", "knight": "♞", "pawn": "♟"},
}
#: Draughts glyphs: (light, dark) for a man and a king.
CHECKERS = {"man": ("⛀", "⛂"), "king": ("⛁", "⛃")}
#: Stones: light and dark.
STONES = ("○", "●")
#: Piece kinds by their names and one-letter abbreviations (knight is n).
KINDS = {
    **{k: k for k in ("king", "queen", "rook", "bishop", "knight", "pawn", "man")},
    **{"k": "king", "q": "queen", "r": "rook", "b": "bishop", "n": "knight", "p": "pawn"},
    **{"castle": "rook", "men": "man", "checker": "man", "kn": "knight"},
}
#: Colour words of pieces and stones (also their CSS colours); ``w`` and
#: ``b`` only as the first letter of a two-letter chess code (``wk``).
COLOURS = frozenset(
    {
        "white",
        "black",
        "red",
        "blue",
        "green",
        "yellow",
        "orange",
        "purple",
        "brown",
        "grey",
        "gray",
    }
)


def piece_glyphs(contents) -> dict:
    """Unicode glyphs for a board's pieces, when their names are those of
    chess, draughts or go; ``{}`` when they are not.

    ``contents`` are all the contents a board's cells may hold (the argument
    tuples beside the coordinates, as :class:`Board` finds them in the
    rules; empties such as ``b`` are left out).  Only these names decide,
    never the game: each piece must read as a colour and a kind (``wk``,
    ``bq``, ``(white king)``, ``blackKnight``, ``white_pawn``: colours
    ``w``/``white`` and ``b``/``black``, kinds as :data:`KINDS`) or as a
    colour alone (``black``, ``red``: a stone).  Then

    - pieces with a kind, some of them a queen, rook, bishop or knight, are
      chess: ♔♕♖♗♘♙ for white, ♚♛♜♝♞♟ for black;
    - pieces with a kind, none but pawns (men) and kings, are draughts
      (checkers' ``wp``, ``bk``): ⛀ ⛁ for a light man and king, ⛂ ⛃ for
      a dark one (``red`` ones dark, drawn red);
    - colours alone are stones: ○ for ``white``, ● for the others, drawn in
      their colour (``red`` a red ●).

    The value of each recognised content is ``(glyph, colour)``, the colour
    a CSS colour word or None (the glyph says it).  A set with any piece
    that reads as none of these (``x`` and ``o``, ``1``, ``wall``, a chess
    piece beside a bare colour) gets no glyphs at all: its pieces stay text.
    """
    pieces = [c for c in contents if c and not _empty(c)]
    read = {c: _piece(c) for c in pieces}
    if not read or None in read.values():
        return {}
    kinds = {kind for _, kind in read.values()}
    if None in kinds:
        if kinds != {None}:
            return {}
        return {
            c: (STONES[0], None) if colour == "white" else (STONES[1], _css(colour))
            for c, (colour, _) in read.items()
        }
    if kinds <= {"pawn", "man", "king"}:
        return {
            c: (
                CHECKERS["king" if kind == "king" else "man"][colour != "white"],
                None if colour == "white" else _css(colour),
            )
            for c, (colour, kind) in read.items()
        }
    if "man" in kinds or not {colour for colour, _ in read.values()} <= {"white", "black"}:
        return {}
    return {c: (CHESS[colour][kind], None) for c, (colour, kind) in read.items()}


def _css(colour):
    return None if colour == "black" else colour


def _piece(content):
    """(colour, kind) of a piece's name, kind None for a bare colour; None
    when the name is not read as a piece."""
    words = _words(content)
    if len(words) == 1:
        word = words[0]
        if word in COLOURS:
            return word, None
        if len(word) in (2, 3) and word[0] in "wb" and word[1:] in KINDS:
            return ("white" if word[0] == "w" else "black"), KINDS[word[1:]]
        return None
    if len(words) == 2:
        for colour, kind in (words, words[::-1]):
            if colour in ("w", "b"):
                colour = "white" if colour == "w" else "black"
            if colour in COLOURS and kind in KINDS:
                return colour, KINDS[kind]
    return None
