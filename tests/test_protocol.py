"""GGP protocol messages: round trips, case and whitespace tolerance, fuzzing."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gdl.printer import term_to_kif
from matches.protocol import (
    MAX_DEPTH,
    Abort,
    Info,
    InfoReply,
    Play,
    PlayII,
    Preview,
    ProtocolError,
    Start,
    Stop,
    StopII,
    message_name,
    parse_message,
    parse_reply,
    print_message,
    print_reply,
)
from matches.server import HEAD_BYTES


def fast(n):
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- random messages ------------------------------------------------------------------

# Symbols: anything but whitespace, parentheses and ';' (any script, any case).
symbol_chars = st.characters(
    blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"), blacklist_characters="();"
).filter(lambda c: not c.isspace())
symbols = st.one_of(
    st.text(symbol_chars, min_size=1, max_size=8),
    st.sampled_from(["xplayer", "MARK", "noop", "1", "?x", "<=", "+", "a.b", "Match.42"]),
)
terms = st.recursive(
    symbols,
    lambda inner: st.builds(
        lambda f, args: (f,) + tuple(args), symbols, st.lists(inner, min_size=1, max_size=3)
    ),
    max_leaves=10,
)
moves = terms.filter(lambda t: not (isinstance(t, str) and t.lower() == "nil"))
# Anything a list may hold in rules, even (), ((a) b): the protocol layer does not judge rules.
sexprs = st.recursive(symbols, lambda inner: st.lists(inner, max_size=3).map(tuple), max_leaves=10)
rules_texts = st.lists(sexprs, max_size=5).map(lambda xs: "\n".join(map(term_to_kif, xs)))
clocks = st.one_of(st.integers(0, 10**6), st.floats(0, 1e6, allow_nan=False, allow_infinity=False))
turns = st.integers(0, 10**6)
percepts = st.one_of(st.none(), st.lists(terms, max_size=4).map(tuple))
joints = st.one_of(st.none(), st.lists(terms, min_size=1, max_size=4).map(tuple))

messages = st.one_of(
    st.builds(Start, symbols, symbols, rules_texts, clocks, clocks),
    st.builds(Play, symbols, joints),
    st.builds(Stop, symbols, joints),
    st.builds(PlayII, symbols, turns, st.one_of(st.none(), moves), percepts),
    st.builds(StopII, symbols, turns, st.one_of(st.none(), moves), percepts),
    st.builds(Abort, symbols),
    st.just(Info()),
    st.builds(Preview, rules_texts, clocks),
)


@fast(200)
@given(messages)
def test_round_trip(m):
    assert parse_message(print_message(m)) == m


def _noise(draw):
    """Whitespace, newlines and comments, as a manager or a person might write."""
    return draw(
        st.sampled_from(
            [" ", "  ", "\n", "\t", "\r\n", " ; a comment (with parens\n", "\n;;; (START x)\n  "]
        )
    )


@fast(100)
@given(messages, st.data())
def test_case_whitespace_and_comments_do_not_matter(m, data):
    text = print_message(m)
    # Message names and NIL in any case.
    text = re.sub(
        r"^\((\w+)",
        lambda g: "(" + data.draw(st.sampled_from([g[1].lower(), g[1].title(), g[1]])),
        text,
    )
    text = text.replace(" NIL", data.draw(st.sampled_from([" nil", " Nil", " NIL"])))
    # Noise around every token (tokens are separated by single spaces or parentheses).
    text = re.sub(r" |(?<=\()|(?=\))", lambda g: _noise(data.draw), text)
    text = _noise(data.draw) + text + _noise(data.draw)
    assert parse_message(text) == m
    assert message_name(text[:HEAD_BYTES]) == m.name.lower()  # as the server reads it


def test_examples_from_the_protocol():
    assert parse_message("(START match.1 xplayer ((role xplayer) (role oplayer)) 30 10)") == Start(
        "match.1", "xplayer", "(role xplayer)\n(role oplayer)", 30, 10
    )
    assert parse_message("(play m nil)") == Play("m")
    assert parse_message("(PLAY m ((mark 1 1) noop))") == Play("m", (("mark", "1", "1"), "noop"))
    assert parse_message("(PLAY m 0 NIL NIL)") == PlayII("m", 0)
    assert parse_message("(PLAY m 3 (bet 2) ())") == PlayII("m", 3, ("bet", "2"), ())
    assert parse_message("(STOP m 4 noop ((card a) (sees x (does y z))))") == StopII(
        "m", 4, "noop", (("card", "a"), ("sees", "x", ("does", "y", "z")))
    )
    assert parse_message("(STOP m (noop (mark 3 3)))") == Stop("m", ("noop", ("mark", "3", "3")))
    assert parse_message("(abort m)") == Abort("m")
    assert parse_message(" ( info ) ") == Info()
    assert parse_message("(PREVIEW ((role r)) 2.5)") == Preview("(role r)", 2.5)


def test_rules_are_canonical_whatever_the_source():
    text = "; tic\n(role x)  ; the only one\n\n(<= terminal\n    (true (done)))\n"
    m = Start("m", "x", text, 10, 5)
    assert m.rules == "(role x)\n(<= terminal (true (done)))"
    assert m == Start("m", "x", m.rules, 10, 5)
    assert parse_message(print_message(m)) == m


def test_lastmove_nil_is_none():
    assert PlayII("m", 2, "NIL", ()) == PlayII("m", 2, None, ())


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "found 0"),
        ("(INFO) (INFO)", "found 2"),
        ("(PLAY m", "never closed"),
        ("(PLAY m nil))", "unbalanced"),
        ("(HELLO)", "unknown message"),
        ("INFO", "list starting with its name"),
        ("(PLAY m x)", "list or NIL"),
        ("(PLAY m 1 2)", "takes 2 or 4"),
        ("(PLAY m -1 nil nil)", "turn"),
        ("(PLAY m 1 nil x)", "list or NIL"),
        ("(PLAY m (((a) b)))", "a move must be"),
        ("(PLAY m (()))", "a move must be"),
        ("(START m r ((role r)) ten 5)", "start clock"),
        ("(START m r ((role r)) 1e999 5)", "start clock"),
        ("(START m r role 10 5)", "rules must be a list"),
        ("(START (m) r () 10 5)", "match id must be a symbol"),
        ("(PREVIEW () -1)", "clock"),
        ("(ABORT)", "takes 1"),
        ("(" * (MAX_DEPTH + 2), "nested deeper"),
    ],
)
def test_malformed_messages_say_why_on_one_line(text, words):
    with pytest.raises(ProtocolError, match=words) as info:
        parse_message(text)
    assert "\n" not in str(info.value)


def test_constructors_check_their_fields():
    for bad in (
        lambda: Play("a b"),
        lambda: Play("m", "noop"),
        lambda: PlayII("m", -1),
        lambda: Start("m", "r", "(", 1, 1),
        lambda: Start("m", "r", "", 1, True),
        lambda: Preview("", float("nan")),
        lambda: InfoReply("busy", "my name"),
    ):
        with pytest.raises(ProtocolError):
            bad()


# --- replies ---------------------------------------------------------------------------


@fast(100)
@given(st.one_of(moves, st.builds(InfoReply, symbols, st.one_of(st.none(), symbols))))
def test_reply_round_trip(reply):
    assert parse_reply(print_reply(reply)) == reply


def test_info_reply():
    assert print_reply(InfoReply("available", "ggp")) == "((name ggp) (status available))"
    assert parse_reply("((STATUS busy) (NAME x) (species alien))") == InfoReply("busy", "x")
    assert parse_reply(" ready ") == "ready"
    for bad in ("((name x))", "((name x y) (status busy))", "", "(a) (b)"):
        with pytest.raises(ProtocolError):
            parse_reply(bad)


# --- fuzzing: ProtocolError and nothing else --------------------------------------------


def _only_protocol_errors(text):
    try:
        parse_message(text)
    except ProtocolError as exc:
        assert "\n" not in str(exc)


@fast(300)
@given(
    st.one_of(
        st.text(max_size=200),
        st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
        st.text("() \n;abNIL0123456789.", max_size=60),
    )
)
def test_garbage_raises_only_protocol_errors(text):
    _only_protocol_errors(text)
    try:
        assert message_name(text) in ("start", "play", "stop", "abort", "info", "preview")
    except ProtocolError:
        pass
    try:
        parse_reply(text)
    except ProtocolError:
        pass


@fast(100)
@given(messages)
def test_every_truncation_is_an_error(m):
    text = print_message(m)
    for end in range(len(text)):
        with pytest.raises(ProtocolError):
            parse_message(text[:end])


@fast(150)
@given(messages, st.data())
def test_mutations_raise_only_protocol_errors(m, data):
    text = print_message(m)
    for _ in range(3):
        i = data.draw(st.integers(0, len(text)))
        op = data.draw(st.sampled_from(["insert", "delete", "replace"]))
        c = data.draw(st.sampled_from(list("() ;\nx0.-") + ["NIL", "\x00", "é"]))
        text = {
            "insert": text[:i] + c + text[i:],
            "delete": text[:i] + text[i + 1 :],
            "replace": text[:i] + c + text[i + 1 :],
        }[op]
    _only_protocol_errors(text)
