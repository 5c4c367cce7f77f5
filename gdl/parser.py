"""Reading GDL text (KIF s-expressions, or Stanford's infix dialect) into rules.

Lark reads the structure (``grammar.lark``, ``infix.lark``); one transformer per
dialect turns Lark's tree into :mod:`gdl.ast` rules.  Symbols are
case-insensitive, as the Dresden manager requires: every spelling of a symbol is
read as the first spelling met in the description (keywords always lower case),
so that moves can be answered in the case the rules use.  Text nesting
parentheses deeper than :data:`MAX_NESTING` is refused before Lark runs.
"""

from __future__ import annotations

import builtins
import os
import re
import stat
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import lark

from gdl.ast import And, Distinct, Not, Or, Position, Rule, Var
from gdl.errors import Diagnostic, GdlError, TooLarge

#: GDL's reserved words (compared lower-case).
KEYWORDS = frozenset(
    {
        "role",
        "init",
        "true",
        "next",
        "legal",
        "does",
        "goal",
        "terminal",
        "base",
        "input",
        "sees",
        "random",
        "distinct",
        "not",
        "or",
        "and",
        "<=",
    }
)


@dataclass(frozen=True)
class Description:
    """A parsed game description: its rules in file order, where they came
    from, the parser's warnings, and the spelling of every symbol."""

    rules: tuple
    path: str = "<string>"
    warnings: tuple = ()
    symbols: dict = field(default_factory=dict, compare=False, repr=False)

    def __iter__(self):
        return iter(self.rules)

    def __len__(self):
        return len(self.rules)


class SymbolTable:
    """Case-insensitive interning: the first spelling of a symbol wins."""

    def __init__(self, spellings: dict | None = None):
        self.spellings = dict(spellings or {})

    def symbol(self, text: str) -> str:
        key = text.lower()
        if key in KEYWORDS:
            return key
        return self.spellings.setdefault(key, text)

    def variable(self, text: str) -> Var:
        return Var(self.spellings.setdefault(text.lower(), text))


def _grammar(name: str) -> str:
    return resources.files("gdl").joinpath(name).read_text()


_KIF = lark.Lark(
    _grammar("grammar.lark"), parser="lalr", propagate_positions=True, maybe_placeholders=False
)
_INFIX = lark.Lark(
    _grammar("infix.lark"), parser="lalr", propagate_positions=True, maybe_placeholders=False
)


# --- KIF --------------------------------------------------------------------


@dataclass(frozen=True)
class _Atom:
    """A symbol or variable token with its position (parse-tree level)."""

    text: str
    is_var: bool
    pos: Position


@dataclass(frozen=True)
class _List:
    items: tuple
    pos: Position


class _KifReader(lark.Transformer):
    """The one step from Lark's tree to rules, for KIF text."""

    def __init__(self, path: str, symbols: SymbolTable):
        super().__init__()
        self.path = path
        self.symbols = symbols
        self.warnings: list[Diagnostic] = []

    def _pos(self, line, column) -> Position:
        return Position(self.path, line, column)

    # Lark callbacks: tokens and lists become _Atom / _List ...
    def SYMBOL(self, tok):
        return _Atom(str(tok), False, self._pos(tok.line, tok.column))

    def VARIABLE(self, tok):
        return _Atom(str(tok), True, self._pos(tok.line, tok.column))

    def list(self, children):
        lpar = children[0]
        return _List(tuple(children[1:-1]), self._pos(lpar.line, lpar.column))

    def start(self, children):
        return children

    # ... and then each top-level s-expression is read as a rule.
    def read(self, tree) -> builtins.list:  # ``list`` here is the rule above
        """The rules of a parsed text."""
        return [self.statement(x) for x in self.transform(tree)]

    # --- meaning -------------------------------------------------------------
    def error(self, x, kind: str, message: str):
        raise GdlError([Diagnostic(x.pos, kind, message)])

    def keyword(self, x) -> str | None:
        """The lower-case head symbol of a list (or the symbol itself)."""
        if isinstance(x, _List):
            x = x.items[0] if x.items else None
        if isinstance(x, _Atom) and not x.is_var:
            return x.text.lower()
        return None

    def statement(self, x):
        if isinstance(x, _List) and self.keyword(x) == "<=":
            if len(x.items) < 2:
                self.error(x, "syntax", "rule '(<= ...)' has no head")
            if len(x.items) == 2:
                self.warnings.append(
                    Diagnostic(
                        x.pos,
                        "style",
                        "rule '(<= head)' has an empty body; read as a fact",
                        "warning",
                    )
                )
            body = x.items[2:]
            return Rule(
                self.atom(x.items[1], "rule head"),
                tuple(self.literal(b) for b in body),
                x.pos,
                tuple(b.pos for b in body),
            )
        return Rule(self.atom(x, "fact"), (), x.pos, ())

    def atom(self, x, where: str):
        if isinstance(x, _Atom):
            if x.is_var:
                self.error(x, "syntax", f"a variable ({x.text}) cannot stand as a {where}")
            return self.symbols.symbol(x.text)
        if not x.items:
            self.error(x, "syntax", f"empty list '()' cannot stand as a {where}")
        head = x.items[0]
        if not isinstance(head, _Atom) or head.is_var:
            self.error(
                x,
                "syntax",
                f"a {where} must start with a relation name, not "
                f"{'a variable' if isinstance(head, _Atom) else 'a list'}",
            )
        name = self.symbols.symbol(head.text)
        if name in ("<=", "not", "or", "and", "distinct"):
            self.error(x, "syntax", f"'{name}' cannot stand as a {where}")
        if len(x.items) == 1:
            self.warnings.append(
                Diagnostic(
                    x.pos,
                    "style",
                    f"'({head.text})' has no arguments; read as '{head.text}'",
                    "warning",
                )
            )
            return name
        return (name,) + tuple(self.term(a) for a in x.items[1:])

    def literal(self, x):
        kw = self.keyword(x) if isinstance(x, _List) else None
        if kw == "not":
            if len(x.items) != 2:
                self.error(x, "syntax", f"'not' takes exactly one literal, got {len(x.items) - 1}")
            return Not(self.literal(x.items[1]), x.pos)
        if kw in ("or", "and"):
            kind = Or if kw == "or" else And
            return kind(tuple(self.literal(a) for a in x.items[1:]), x.pos)
        if kw == "distinct":
            if len(x.items) != 3:
                self.error(
                    x, "arity", f"'distinct' takes exactly two terms, got {len(x.items) - 1}"
                )
            return Distinct(self.term(x.items[1]), self.term(x.items[2]), x.pos)
        return self.atom(x, "literal")

    def term(self, x):
        if isinstance(x, _Atom):
            if x.is_var:
                return self.symbols.variable(x.text)
            return self.symbols.symbol(x.text)
        return self.atom(x, "function term")


# --- infix ------------------------------------------------------------------


class _InfixReader(lark.Transformer):
    """The one step from Lark's tree to rules, for Stanford's infix text."""

    def __init__(self, path: str, symbols: SymbolTable):
        super().__init__()
        self.path = path
        self.symbols = symbols
        self.warnings: list[Diagnostic] = []

    def _pos(self, meta) -> Position:
        return Position(self.path, meta.line, meta.column)

    def var(self, children):
        return self.symbols.variable("?" + str(children[0]))

    def const(self, children):
        return self.symbols.symbol(str(children[0]))

    def compound(self, children):
        name = self.symbols.symbol(str(children[0]))
        args = tuple(c for c in children[1:] if c is not None)
        return (name,) + args if args else name

    @lark.v_args(meta=True)
    def negation(self, meta, children):
        return Not(self._literal(children[0], meta), self._pos(meta))

    @lark.v_args(meta=True)
    def disjunction(self, meta, children):
        return Or(tuple(self._literal(c, meta) for c in children), self._pos(meta))

    @lark.v_args(meta=True)
    def fact(self, meta, children):
        return Rule(children[0], (), self._pos(meta), ())

    @lark.v_args(meta=True)
    def rule(self, meta, children):
        head, *body = children
        pos = self._pos(meta)
        return Rule(
            head,
            tuple(self._literal(b, meta) for b in body),
            pos,
            tuple(getattr(b, "pos", pos) for b in body),
        )

    def _literal(self, x, meta):
        """``distinct(a, b)``, written as a call."""
        if isinstance(x, tuple) and x[0] == "distinct" and len(x) == 3:
            return Distinct(x[1], x[2], self._pos(meta))
        return x

    def start(self, children):
        return [c for c in children if isinstance(c, Rule)]  # not the '.' tokens

    def read(self, tree) -> list:
        """The rules of a parsed text."""
        _check_statement_ends(tree, self.path)
        return self.transform(tree)


# --- entry points -----------------------------------------------------------

#: The deepest nesting of parentheses read.  Real games nest fewer than 10
#: levels; every later stage (printer, validator, reasoners) recurses once or a
#: few times per level, and a protocol message nests the rules 2 levels deeper
#: and is refused beyond 100 (matches.protocol.MAX_DEPTH).
MAX_NESTING = 90

_PARENS = {";": re.compile(r";[^\n]*|[()\n]"), "%": re.compile(r"%[^\n]*|[()\n]")}


def _parens(text: str, comment: str):
    """``(char, line, column)`` of every parenthesis outside ``comment``-to-end-of-line."""
    line, line_start = 1, 0
    for m in _PARENS[comment].finditer(text):
        c = m.group()
        if c == "\n":
            line, line_start = line + 1, m.end()
        elif c in ("(", ")"):
            yield c, line, m.start() - line_start + 1


def _unclosed_paren(text: str):
    """(line, column) of the outermost '(' still open at the end of KIF text."""
    stack = []
    for c, line, column in _parens(text, ";"):
        if c == "(":
            stack.append((line, column))
        elif stack:
            stack.pop()
    return stack[0] if stack else None


def _check_nesting(text: str, path: str, infix: bool):
    """Refuse text nesting parentheses deeper than :data:`MAX_NESTING`, naming
    the '(' that crosses the limit; a scan of the text before Lark (whose trees
    are transformed recursively) sees it."""
    depth = 0
    for c, line, column in _parens(text, "%" if infix else ";"):
        depth = depth + 1 if c == "(" else max(depth - 1, 0)
        if depth > MAX_NESTING:
            raise GdlError(
                [
                    Diagnostic(
                        Position(path, line, column),
                        "syntax",
                        f"parentheses nested deeper than {MAX_NESTING} levels",
                    )
                ]
            )


def _check_statement_ends(tree, path: str):
    """Refuse an infix statement starting on the line where the one before it
    ends without a '.': ``q :- p r`` is a mistake, not the rule ``q :- p`` and
    the fact ``r``."""
    previous = None
    for node in tree.children:
        if isinstance(node, lark.Token):  # the '.' ending the statement before
            previous = None
            continue
        if previous is not None and node.meta.line == previous.meta.end_line:
            first = next(node.scan_values(lambda v: isinstance(v, lark.Token)))
            raise GdlError(
                [
                    Diagnostic(
                        Position(path, node.meta.line, node.meta.column),
                        "syntax",
                        f"unexpected '{first}': a statement ends with '.' "
                        "or at the end of its line",
                    )
                ]
            )
        previous = node


def _syntax_error(exc: lark.LarkError, text: str, path: str, infix: bool) -> GdlError:
    """One actionable line for whatever Lark could not read."""
    if isinstance(exc, lark.UnexpectedEOF) or (
        isinstance(exc, lark.UnexpectedToken) and exc.token.type == "$END"
    ):
        opened = None if infix else _unclosed_paren(text)
        if opened:
            return GdlError(
                [Diagnostic(Position(path, *opened), "syntax", "'(' opened here is never closed")]
            )
        line = text.count("\n") + 1
        return GdlError([Diagnostic(Position(path, line, 1), "syntax", "unexpected end of text")])
    line = getattr(exc, "line", 0) or 0
    col = getattr(exc, "column", 0) or 0
    if isinstance(exc, lark.UnexpectedToken):
        tok = str(exc.token)
        if not infix and tok == ")":
            msg = "')' closes nothing: there is no '(' open here"
        else:
            msg = f"unexpected '{tok}'"
    elif isinstance(exc, lark.UnexpectedCharacters):
        char = text[exc.pos_in_stream or 0]
        msg = (
            f"control character U+{ord(char):04X} is not allowed"
            if _CONTROL.match(char)
            else f"unexpected character {char!r}"
        )
    else:
        msg = str(exc).splitlines()[0]
    return GdlError([Diagnostic(Position(path, line, col), "syntax", msg)])


def _read_tree(text: str, path: str, infix: bool):
    """Lark's tree of the text; :class:`GdlError` for what cannot be read."""
    _check_nesting(text, path, infix)
    try:
        return (_INFIX if infix else _KIF).parse(text)
    except lark.LarkError as exc:
        raise _syntax_error(exc, text, path, infix) from None


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_INFIX_HINT = re.compile(r":-|^\s*[a-z][A-Za-z0-9_]*[ \t]*\(", re.MULTILINE)


def is_infix(text: str) -> bool:
    """True when the text is in Stanford's infix dialect rather than KIF."""
    stripped = re.sub(r"(;|%)[^\n]*", "", text)
    return bool(_INFIX_HINT.search(stripped)) and not stripped.lstrip().startswith("(")


def parse(
    text: str, path: str = "<string>", symbols: dict | None = None, max_bytes: int | None = None
) -> Description:
    """Read a game description (KIF, or infix when it looks like infix).

    Raises :class:`GdlError` naming ``path``, line and column when the text
    cannot be read.  ``symbols`` seeds the case-insensitive spelling table.
    With ``max_bytes``, text of more bytes (UTF-8) is refused with
    :class:`TooLarge` before it is parsed.
    """
    if max_bytes is not None and len(text) > max_bytes // 4:  # else it cannot be too large
        size = len(text.encode("utf-8", errors="replace"))
        if size > max_bytes:
            raise _too_large(path, "text", max_bytes, size)
    table = SymbolTable(symbols)
    infix = is_infix(text)
    tree = _read_tree(text, path, infix)
    reader = (_InfixReader if infix else _KifReader)(path, table)
    rules = reader.read(tree)
    return Description(tuple(rules), path, tuple(reader.warnings), table.spellings)


#: The bytes a game file may have unless told otherwise: 15 times the largest
#: public game (68 kB, duplicateStateLarge); parsing costs 13-18 s and 220-350 MB
#: a MB of GDL, so a larger file is refused at once, before it is read.
MAX_BYTES = 1 << 20


def parse_file(path, max_bytes: int | None = MAX_BYTES) -> Description:
    """Read a description from a file; errors name the file.

    A file of more than ``max_bytes`` (:data:`MAX_BYTES` unless told; None:
    no limit) is refused with :class:`TooLarge` without reading it whole: a
    regular file by its size on disk, anything else (a pipe, ``/dev/zero``)
    once ``max_bytes`` + 1 bytes have been read.
    Line ends are read as text files read them (``\\r\\n`` and ``\\r`` as ``\\n``).
    """
    p = Path(path)
    try:
        with open(p, "rb") as f:
            info = os.fstat(f.fileno())
            if max_bytes is not None and stat.S_ISREG(info.st_mode) and info.st_size > max_bytes:
                raise _too_large(str(p), "file", max_bytes, info.st_size)
            data = f.read() if max_bytes is None else f.read(max_bytes + 1)
    except OSError as exc:
        raise GdlError(
            [Diagnostic(Position(str(p), 0, 0), "io", f"cannot read file: {exc.strerror or exc}")]
        ) from None
    if max_bytes is not None and len(data) > max_bytes:
        raise _too_large(str(p), "file", max_bytes)
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    return parse(text, str(p))


def _too_large(path: str, what: str, max_bytes: int, size: int | None = None) -> TooLarge:
    """The error for ``what`` (file or text) at ``path`` past ``max_bytes``;
    ``size`` is its bytes when known (a pipe's are not)."""
    has = (
        f"has {size:,} bytes, more than the {max_bytes:,} allowed"
        if size is not None
        else f"has more than the {max_bytes:,} bytes allowed"
    )
    return TooLarge([Diagnostic(Position(path, 0, 0), "io", f"the {what} {has}")])


def parse_term(text: str, symbols: dict | None = None):
    """Read one ground or non-ground term (KIF), e.g. a move ``(mark 1 1)``.

    With ``symbols`` (a description's spelling table) the term is spelled as
    the rules spell it, whatever case the text uses.  Errors name ``<term>``.
    """
    reader = _KifReader("<term>", SymbolTable(symbols))
    items = reader.transform(_read_tree(text, "<term>", infix=False))
    if len(items) != 1:
        raise GdlError(
            [Diagnostic(Position("<term>", 1, 1), "syntax", f"not a single term: {text!r}")]
        )
    return reader.term(items[0])
