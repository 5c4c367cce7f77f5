"""GGP protocol messages: read and write what a game manager and a player say.

Every message is a frozen dataclass; :func:`parse_message` reads one from
text and :func:`print_message` writes it back, so that
``parse_message(print_message(m)) == m`` for every valid message ``m``
(PROTOCOL.md, "Messages"):

=========  ======================================================  ============
class      wire form                                               reply
=========  ======================================================  ============
Start      ``(START id role (rules...) startclock playclock)``     ``ready``
Play       ``(PLAY id NIL)``, ``(PLAY id (m1 m2 ...))`` (GDL-I)     a move
PlayII     ``(PLAY id turn lastmove percepts)`` (GDL-II)           a move
Stop       ``(STOP id NIL)``, ``(STOP id (m1 m2 ...))`` (GDL-I)     ``done``
StopII     ``(STOP id turn lastmove percepts)`` (GDL-II)           ``done``
Abort      ``(ABORT id)``                                          ``aborted``
Info       ``(INFO)``                                              InfoReply
Preview    ``(PREVIEW (rules...) clock)``                          ``ready``
=========  ======================================================  ============

Fields:

* match ids and roles are KIF symbols (no whitespace, parentheses or ``;``),
  kept in the case the message uses;
* moves and percepts are terms as in the rest of the framework: a constant is
  a ``str``, a compound term a ``tuple`` with its functor (a symbol) first.
  They keep the message's spelling; ``Game.parse_move(gdl.to_kif(t))`` spells
  them as the rules do (the Dresden manager upper-cases everything);
* ``NIL`` where the protocol allows it (the first turn's moves, lastmove and
  percepts) is ``None``: a lastmove that is the bare symbol ``nil`` cannot be
  told apart from it, on the wire or here, so it becomes ``None``;
* ``rules`` is KIF text without the enclosing parentheses.  A message keeps
  it canonical: comments dropped, one top-level expression a line, tokens
  separated by single spaces (``Start(..., rules=open(path).read(), ...)``
  canonicalises a file's text on construction);
* clocks are seconds, ``int`` or ``float``, finite and not negative; whole
  seconds are written as integers (``10``, never ``10.0``: ggp-base's player
  reads them with Integer.valueOf), and a decimal from another manager is
  read too; turns are integers from 0.

Replies: a player answers a bare term (``ready``, ``busy``, ``done``,
``aborted`` or a move); INFO is answered with an :class:`InfoReply`
(``((name N) (status available))``).  :func:`parse_reply` and
:func:`print_reply` read and write both.

Reading is case-insensitive for message names and ``NIL`` and tolerant of any
whitespace, newlines and ``;`` comments.  Anything malformed -- unbalanced
parentheses, a wrong shape, nesting deeper than :data:`MAX_DEPTH` -- raises
:class:`ProtocolError` with a one-line message, and nothing else.

>>> m = parse_message("(play Match.1 ((MARK 1 1) noop))")
>>> m
Play(match_id='Match.1', moves=(('MARK', '1', '1'), 'noop'))
>>> print_message(m)
'(PLAY Match.1 ((MARK 1 1) noop))'
>>> print_message(PlayII("m", 0, None, None))
'(PLAY m 0 NIL NIL)'
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import ClassVar

from gdl.printer import term_to_kif

Term = str | tuple

#: Lists nest at most this deep in a message (GDL rules nest a few levels);
#: deeper input is refused rather than risking the interpreter's stack.
MAX_DEPTH = 100

_TOKEN = re.compile(r"(?P<skip>\s+|;[^\n]*)|(?P<open>\()|(?P<close>\))|(?P<symbol>[^\s();]+)")
_SYMBOL = re.compile(r"[^\s();]+")
_INTEGER = re.compile(r"[0-9]{1,18}")
_DECIMAL = re.compile(r"[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]{1,3})?")


class ProtocolError(ValueError):
    """A message or reply that is not well-formed; the text is one line."""


def one_line(exc: BaseException) -> str:
    """An exception's message on one line (its type's name when it has none)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


# --- s-expressions ---------------------------------------------------------------


def read_sexprs(text: str) -> list:
    """The s-expressions of ``text``: symbols as ``str``, lists as tuples.

    >>> read_sexprs("(a (b c)) ; note\\n d ()")
    [('a', ('b', 'c')), 'd', ()]
    """
    if not isinstance(text, str):
        raise ProtocolError(f"expected text, not {type(text).__name__}")
    stack: list[list] = [[]]
    opened: list = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "open":
            if len(stack) > MAX_DEPTH:
                raise ProtocolError(
                    f"lists nested deeper than {MAX_DEPTH} at offset {match.start()}"
                )
            stack.append([])
            opened.append(match.start())
        elif kind == "close":
            if len(stack) == 1:
                raise ProtocolError(f"unbalanced ')' at offset {match.start()}")
            items = tuple(stack.pop())
            opened.pop()
            stack[-1].append(items)
        elif kind == "symbol":
            stack[-1].append(match.group())
    if opened:
        raise ProtocolError(f"'(' at offset {opened[-1]} is never closed")
    return stack[0]


def canonical_rules(text: str) -> str:
    """Rules text without comments, one top-level expression a line.

    >>> canonical_rules("(role x) ; the only role\\n(<= terminal\\n   (true done))")
    '(role x)\\n(<= terminal (true done))'
    """
    return "\n".join(term_to_kif(x) for x in read_sexprs(text))


def _show(x, width: int = 60) -> str:
    text = term_to_kif(x) if isinstance(x, (str, tuple)) else repr(x)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _is_nil(x) -> bool:
    return isinstance(x, str) and x.lower() == "nil"


# --- field checks (run by every message's constructor) ----------------------------


def _symbol(value, what: str) -> str:
    if not (isinstance(value, str) and _SYMBOL.fullmatch(value)):
        raise ProtocolError(f"{what} must be a symbol, not {_show(value)}")
    return value


def _term(value, what: str) -> Term:
    if isinstance(value, str):
        return _symbol(value, what)
    if not (isinstance(value, tuple) and value and isinstance(value[0], str)):
        raise ProtocolError(f"{what} must be a symbol or a term (f ...), not {_show(value)}")
    _symbol(value[0], what)
    for arg in value[1:]:
        _term(arg, what)
    return value


def _terms(values, what: str) -> tuple | None:
    if values is None:
        return None
    if not isinstance(values, (tuple, list, set, frozenset)):
        raise ProtocolError(f"{what} must be a list of terms, not {_show(values)}")
    return tuple(_term(v, what) for v in values)


def _clock(value, what: str):
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value < 0
    ):
        raise ProtocolError(f"{what} must be a number of seconds, not {_show(value)}")
    return value


def _turn(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ProtocolError(f"turn must be an integer from 0, not {_show(value)}")
    return value


def _set(message, **fields):
    for name, value in fields.items():
        object.__setattr__(message, name, value)


# --- messages ---------------------------------------------------------------------


@dataclass(frozen=True)
class Start:
    """``(START id role (rules...) startclock playclock)``; reply ``ready``."""

    match_id: str
    role: str
    rules: str
    start_clock: float
    play_clock: float
    name: ClassVar[str] = "START"

    def __post_init__(self):
        if not isinstance(self.rules, str):
            raise ProtocolError(f"rules must be KIF text, not {_show(self.rules)}")
        _set(
            self,
            match_id=_symbol(self.match_id, "match id"),
            role=_symbol(self.role, "role"),
            rules=canonical_rules(self.rules),
            start_clock=_clock(self.start_clock, "start clock"),
            play_clock=_clock(self.play_clock, "play clock"),
        )


@dataclass(frozen=True)
class _Joint:
    """GDL-I PLAY and STOP: the previous joint move in role order, or None."""

    match_id: str
    moves: tuple | None = None

    def __post_init__(self):
        _set(self, match_id=_symbol(self.match_id, "match id"), moves=_terms(self.moves, "a move"))


@dataclass(frozen=True)
class Play(_Joint):
    """``(PLAY id NIL)`` on the first turn, then ``(PLAY id (m1 m2 ...))``;
    reply a move."""

    name: ClassVar[str] = "PLAY"


@dataclass(frozen=True)
class Stop(_Joint):
    """``(STOP id (m1 m2 ...))``, the last joint move; reply ``done``."""

    name: ClassVar[str] = "STOP"


@dataclass(frozen=True)
class _Seen:
    """GDL-II PLAY and STOP (Dresden): the turn (0 for the first PLAY, one more
    with each PLAY or STOP), the role's own move as executed and its percepts
    (both None, NIL on the wire, on turn 0; percepts may be ``()``)."""

    match_id: str
    turn: int
    last_move: Term | None = None
    percepts: tuple | None = None

    def __post_init__(self):
        last = None if self.last_move is None or _is_nil(self.last_move) else self.last_move
        _set(
            self,
            match_id=_symbol(self.match_id, "match id"),
            turn=_turn(self.turn),
            last_move=None if last is None else _term(last, "lastmove"),
            percepts=_terms(self.percepts, "a percept"),
        )


@dataclass(frozen=True)
class PlayII(_Seen):
    """``(PLAY id turn lastmove percepts)``; reply a move."""

    name: ClassVar[str] = "PLAY"


@dataclass(frozen=True)
class StopII(_Seen):
    """``(STOP id turn lastmove percepts)``; reply ``done``."""

    name: ClassVar[str] = "STOP"


@dataclass(frozen=True)
class Abort:
    """``(ABORT id)``; reply ``aborted``."""

    match_id: str
    name: ClassVar[str] = "ABORT"

    def __post_init__(self):
        _symbol(self.match_id, "match id")


@dataclass(frozen=True)
class Info:
    """``(INFO)``; reply an :class:`InfoReply`."""

    name: ClassVar[str] = "INFO"


@dataclass(frozen=True)
class Preview:
    """``(PREVIEW (rules...) clock)``; reply ``ready``."""

    rules: str
    clock: float
    name: ClassVar[str] = "PREVIEW"

    def __post_init__(self):
        if not isinstance(self.rules, str):
            raise ProtocolError(f"rules must be KIF text, not {_show(self.rules)}")
        _set(self, rules=canonical_rules(self.rules), clock=_clock(self.clock, "clock"))


Message = Start | Play | PlayII | Stop | StopII | Abort | Info | Preview


# --- printing ---------------------------------------------------------------------


def _number(x) -> str:
    """Clocks as the protocol writes them: whole seconds as integers (ggp-base
    reads them with Integer.valueOf), anything finer as a decimal."""
    return str(int(x)) if float(x).is_integer() else repr(x)


def _list(items) -> str:
    return "NIL" if items is None else term_to_kif(tuple(items))


def print_message(message: Message) -> str:
    """The wire text of ``message``: upper-case names, one line but for rules."""
    m = message
    if isinstance(m, Start):
        fields = [m.match_id, m.role, f"({m.rules})", _number(m.start_clock), _number(m.play_clock)]
    elif isinstance(m, _Joint):
        fields = [m.match_id, _list(m.moves)]
    elif isinstance(m, _Seen):
        fields = [
            m.match_id,
            str(m.turn),
            "NIL" if m.last_move is None else term_to_kif(m.last_move),
            _list(m.percepts),
        ]
    elif isinstance(m, Abort):
        fields = [m.match_id]
    elif isinstance(m, Info):
        fields = []
    elif isinstance(m, Preview):
        fields = [f"({m.rules})", _number(m.clock)]
    else:
        raise ProtocolError(f"not a protocol message: {_show(m)}")
    return "(" + " ".join([m.name] + fields) + ")"


# --- parsing ----------------------------------------------------------------------


def _read_one(text: str, what: str):
    items = read_sexprs(text)
    if len(items) != 1:
        raise ProtocolError(f"expected one {what}, found {len(items)} expressions")
    return items[0]


def _read_rules(x, what: str) -> str:
    if not isinstance(x, tuple):
        raise ProtocolError(f"{what}: rules must be a list, not {_show(x)}")
    return "\n".join(term_to_kif(rule) for rule in x)


def _read_number(x, what: str):
    if isinstance(x, str) and _INTEGER.fullmatch(x):
        return int(x)
    if isinstance(x, str) and _DECIMAL.fullmatch(x):
        return float(x)
    raise ProtocolError(f"{what} must be a number of seconds, not {_show(x)}")


def _read_list(x, what: str):
    if _is_nil(x):
        return None
    if not isinstance(x, tuple):
        raise ProtocolError(f"{what} must be a list or NIL, not {_show(x)}")
    return x


def _read_seen(cls, f):
    if not (isinstance(f[1], str) and _INTEGER.fullmatch(f[1])):
        raise ProtocolError(f"{cls.name}: turn must be an integer from 0, not {_show(f[1])}")
    return cls(f[0], int(f[1]), f[2], _read_list(f[3], f"{cls.name} percepts"))


# name -> {number of fields after the name: build the message from them}
_FORMS = {
    "start": {
        5: lambda f: Start(
            f[0],
            f[1],
            _read_rules(f[2], "START"),
            _read_number(f[3], "start clock"),
            _read_number(f[4], "play clock"),
        )
    },
    "play": {
        2: lambda f: Play(f[0], _read_list(f[1], "PLAY moves")),
        4: lambda f: _read_seen(PlayII, f),
    },
    "stop": {
        2: lambda f: Stop(f[0], _read_list(f[1], "STOP moves")),
        4: lambda f: _read_seen(StopII, f),
    },
    "abort": {1: lambda f: Abort(f[0])},
    "info": {0: lambda f: Info()},
    "preview": {2: lambda f: Preview(_read_rules(f[0], "PREVIEW"), _read_number(f[1], "clock"))},
}


#: Whitespace and comments, then '(' and the message's name.
_HEAD = re.compile(r"(?:\s|;[^\n]*(?:\n|\Z))*\((?:\s|;[^\n]*(?:\n|\Z))*([^\s();]+)")


def message_name(head: str) -> str:
    """The name (lower case: ``start``, ``play``, ...) of the message whose
    text begins with ``head``, read from the head alone, before the rest is
    read or parsed; :class:`ProtocolError` when ``head`` does not begin one.

    >>> message_name("(START m1 xplayer ((role xplayer) (role oplay")
    'start'
    """
    match = _HEAD.match(head)
    if match is None:
        raise ProtocolError(
            f"not a message: it starts {head[:20]!r}, not '(' and the message's name"
        )
    name = match.group(1)
    if name.lower() not in _FORMS:
        raise ProtocolError(f"unknown message {_show(name)}")
    return name.lower()


def parse_message(text: str) -> Message:
    """The message in ``text``; :class:`ProtocolError` if it is not one."""
    sexpr = _read_one(text, "message")
    if not (isinstance(sexpr, tuple) and sexpr and isinstance(sexpr[0], str)):
        raise ProtocolError(f"a message is a list starting with its name, not {_show(sexpr)}")
    forms = _FORMS.get(sexpr[0].lower())
    if forms is None:
        raise ProtocolError(f"unknown message {_show(sexpr[0])}")
    fields = sexpr[1:]
    if len(fields) not in forms:
        counts = " or ".join(str(n) for n in forms)
        raise ProtocolError(f"{sexpr[0].upper()} takes {counts} field(s), not {len(fields)}")
    return forms[len(fields)](fields)


# --- replies ----------------------------------------------------------------------


@dataclass(frozen=True)
class InfoReply:
    """A player's answer to INFO: ``((name N) (status available))``.

    ``status`` is ``available`` or ``busy`` by convention; ``name`` may be
    None (then the reply is ``((status S))``).
    """

    status: str
    name: str | None = None

    def __post_init__(self):
        _symbol(self.status, "status")
        if self.name is not None:
            _symbol(self.name, "name")


Reply = Term | InfoReply


def print_reply(reply: Reply) -> str:
    """The wire text of a reply: a term (``ready``, a move) or an InfoReply."""
    if isinstance(reply, InfoReply):
        pairs = ([("name", reply.name)] if reply.name is not None else []) + [
            ("status", reply.status)
        ]
        return term_to_kif(tuple(pairs))
    return term_to_kif(_term(reply, "a reply"))


def parse_reply(text: str) -> Reply:
    """A player's reply: an :class:`InfoReply` when it is a list of
    ``(key value)`` pairs with a ``status`` (keys in any case), else a term
    as sent (compare words such as ``ready`` case-insensitively)."""
    sexpr = _read_one(text, "reply")
    if isinstance(sexpr, tuple) and sexpr and isinstance(sexpr[0], tuple):
        pairs = {}
        for pair in sexpr:
            if not (
                isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(x, str) for x in pair)
            ):
                raise ProtocolError(f"an INFO reply holds (key value) pairs, not {_show(pair)}")
            pairs[pair[0].lower()] = pair[1]
        if "status" not in pairs:
            raise ProtocolError("an INFO reply needs (status ...)")
        return InfoReply(pairs["status"], pairs.get("name"))
    return _term(sexpr, "a reply")
