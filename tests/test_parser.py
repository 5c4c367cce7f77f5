"""The reader and the printer: round trips, case, comments, dialects, odd corners."""

from __future__ import annotations

import time
from functools import cache
from pathlib import Path

import pytest
from conftest import SHARED
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gdl
from gdl import And, Distinct, Not, Or, Rule, Var
from gdl.parser import MAX_NESTING, is_infix

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


# --- random rules -------------------------------------------------------------

CONNECTIVES = {"<=", "not", "or", "and", "distinct"}
# Lower-case names only: symbols are case-insensitive, so 'Ab' and 'ab' would be
# one symbol and a generated pair of them could not survive a round trip.
# GDL keywords are fine as relation and function names (e.g. percepts
# (sees ?r (does ?p ?m))); connectives are not.
LOWER = "abcdefghijklmnopqrstuvwxyz"
names = st.one_of(
    st.builds(str.__add__, st.sampled_from(LOWER), st.text(LOWER + "0123456789_-", max_size=6)),
    st.sampled_from(
        [
            "role",
            "true",
            "does",
            "next",
            "legal",
            "goal",
            "init",
            "sees",
            "terminal",
            "random",
            "+",
            "a.b",
            "x*y",
            "<",
            ">=",
            "1st",
            "c3po",
        ]
    ),
).filter(lambda s: s not in CONNECTIVES)
numbers = st.integers(min_value=-5, max_value=1000).map(str)
constants = st.one_of(names, numbers, st.sampled_from(sorted(CONNECTIVES)))
variables = st.builds(
    lambda a, b: Var("?" + a + b),
    st.sampled_from(LOWER),
    st.text(LOWER + "0123456789_", max_size=4),
)

terms = st.recursive(
    st.one_of(constants, variables),
    lambda inner: st.builds(
        lambda f, args: (f,) + tuple(args), names, st.lists(inner, min_size=1, max_size=3)
    ),
    max_leaves=8,
)
atoms = st.one_of(
    names,
    st.builds(lambda f, args: (f,) + tuple(args), names, st.lists(terms, min_size=1, max_size=3)),
)
literals = st.recursive(
    st.one_of(atoms, st.builds(Distinct, terms, terms)),
    lambda inner: st.one_of(
        st.builds(Not, inner),
        st.builds(lambda xs: Or(tuple(xs)), st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda xs: And(tuple(xs)), st.lists(inner, min_size=1, max_size=3)),
    ),
    max_leaves=6,
)
rules = st.builds(
    lambda head, body: Rule(head, tuple(body)), atoms, st.lists(literals, min_size=0, max_size=4)
)


# Generating nested rules is what costs time: keep the whole module to a few seconds.
def fast(n):
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@fast(60)
@given(st.lists(rules, min_size=0, max_size=5))
def test_round_trip_random_rules(rs):
    text = gdl.to_kif(rs)
    assert gdl.parse(text).rules == tuple(rs)
    # A description's own tuple of rules prints the same way.
    assert gdl.to_kif(tuple(rs)) == text


@fast(120)
@given(rules)
def test_round_trip_one_rule(rule):
    (back,) = gdl.parse(gdl.to_kif(rule)).rules
    assert back == rule
    assert type(back.head) is type(rule.head)


@fast(200)
@given(terms)
def test_round_trip_terms(t):
    back = gdl.parse_term(gdl.to_kif(t))
    assert back == t
    assert isinstance(back, Var) == isinstance(t, Var)


@fast(120)
@given(literals)
def test_round_trip_literals(lit):
    (rule,) = gdl.parse(f"(<= p {gdl.to_kif(lit)})").rules
    assert rule.body == (lit,)


@fast(40)
@given(st.lists(rules, min_size=0, max_size=5))
def test_validator_accepts_anything_the_parser_reads(rs):
    """validate() never crashes; its findings are one-line diagnostics naming the file."""
    found = gdl.validate(gdl.parse(gdl.to_kif(rs), "fuzz.kif"))
    for d in found:
        assert isinstance(d, gdl.Diagnostic) and d.severity in ("error", "warning")
        assert "\n" not in str(d) and str(d).startswith("fuzz.kif:")


# --- round trips of real files ------------------------------------------------------


def kif_files():
    out = sorted((REPO / "games_gdl").glob("*.kif"))
    if SHARED.is_dir():
        out += sorted(SHARED.glob("*/*.kif"))
    return out


@cache
def parsed(path: Path):
    return gdl.parse_file(path)


@pytest.mark.parametrize("path", kif_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_round_trip_game_files(path):
    desc = parsed(path)
    text = gdl.to_kif(desc)
    assert gdl.to_kif(desc.rules) == text  # the rules tuple prints as the description
    again = gdl.parse(text, str(path))
    assert again.rules == desc.rules
    # Printing is stable, and the spelling of every symbol survives.
    assert gdl.to_kif(again) == text
    assert again.symbols == desc.symbols


# --- case ----------------------------------------------------------------------------


def test_symbols_are_case_insensitive_first_spelling_wins():
    d = gdl.parse("(ROLE X) (role x) (Role xPlayer) (init (Cell 1 1 B)) (init (CELL 1 2 b))")
    assert [r.head for r in d.rules] == [
        ("role", "X"),
        ("role", "X"),
        ("role", "xPlayer"),
        ("init", ("Cell", "1", "1", "B")),
        ("init", ("Cell", "1", "2", "B")),
    ]
    assert d.symbols["x"] == "X" and d.symbols["cell"] == "Cell"


def test_keywords_are_lower_case_whatever_the_spelling():
    upper = gdl.parse(
        "(<= (LEGAL ?P NOOP) (ROLE ?P) (TRUE (CONTROL ?P)) (NOT TERMINAL) "
        "(DISTINCT ?P RANDOM) (OR (DOES ?P X) (AND (INIT Y) (NEXT Z))))"
    )
    lower = gdl.parse(
        "(<= (legal ?P NOOP) (role ?P) (true (CONTROL ?P)) (not terminal) "
        "(distinct ?P random) (or (does ?P X) (and (init Y) (next Z))))"
    )
    assert upper.rules == lower.rules
    rule = upper.rules[0]
    assert rule.head[0] == "legal"
    assert isinstance(rule.body[2], Not) and rule.body[2].literal == "terminal"
    assert isinstance(rule.body[3], Distinct) and rule.body[3].right == "random"
    assert isinstance(rule.body[4], Or) and isinstance(rule.body[4].literals[1], And)


def test_variables_are_case_insensitive_first_spelling_wins():
    (rule,) = gdl.parse("(<= (p ?X) (q ?x ?X))").rules
    assert rule == Rule(("p", Var("?X")), (("q", Var("?X"), Var("?X")),))
    assert all(isinstance(v, Var) for v in rule.body[0][1:])


def test_parse_term_spells_as_the_rules_do():
    d = gdl.parse(
        "(role xPlayer) (init (cell 1 1 b)) (<= (legal xPlayer (Mark ?x ?y)) (true (cell ?x ?y b)))"
    )
    assert gdl.parse_term("(MARK 1 1)", d.symbols) == ("Mark", "1", "1")
    assert gdl.parse_term("XPLAYER", d.symbols) == "xPlayer"
    assert gdl.parse_term("(cell 1 1 B)", d.symbols) == ("cell", "1", "1", "b")
    assert gdl.parse_term("(DOES XPLAYER NOOP)", d.symbols) == ("does", "xPlayer", "NOOP")
    # Without a table the text's own spelling is kept; the table is not changed.
    assert gdl.parse_term("(MARK 1 1)") == ("MARK", "1", "1")
    assert "noop" not in d.symbols
    assert gdl.parse_term("?X") == Var("?X")
    with pytest.raises(gdl.GdlError):
        gdl.parse_term("a b")
    with pytest.raises(gdl.GdlError):
        gdl.parse_term("")


# --- comments, numbers, odd corners -------------------------------------------------


def test_comments_are_ignored():
    text = (
        "; a header ( with a paren\n"
        ";; another\n"
        "(role robot) ; trailing (comment\n"
        "(<= (legal robot go) ; inside a rule )\n"
        "    (true (on a)))\n"
        "; last line without a newline"
    )
    d = gdl.parse(text)
    assert d.rules == (
        Rule(("role", "robot")),
        Rule(("legal", "robot", "go"), (("true", ("on", "a")),)),
    )
    assert d.rules[1].pos.line == 4 and d.rules[1].literal_pos[0].line == 5
    assert gdl.parse("; nothing but a comment").rules == ()
    assert gdl.parse("").rules == ()


def test_numbers_are_constants():
    (rule,) = gdl.parse("(<= (goal ?r 100) (role ?r) (score ?r 007) (succ -1 0))").rules
    assert rule.head == ("goal", Var("?r"), "100")
    assert not isinstance(rule.head[2], Var) and type(rule.head[2]) is str
    assert rule.body[1] == ("score", Var("?r"), "007")
    assert rule.body[2] == ("succ", "-1", "0")


def test_zero_arity_parenthesised_relation_reads_as_constant_with_warning():
    d = gdl.parse("(role r)\n(<= terminal (p) (true (on (b))))\n(p)", "z.kif")
    assert d.rules[1].body == ("p", ("true", ("on", "b")))
    assert d.rules[2].head == "p"
    assert len(d.warnings) == 3
    for w in d.warnings:
        assert w.severity == "warning" and w.kind == "style"
        assert "has no arguments" in w.message
    assert [(w.pos.line, w.pos.column) for w in d.warnings] == [(2, 14), (2, 28), (3, 1)]
    # The warnings reach the validator's report.
    assert set(d.warnings) <= set(gdl.validate(d))


def test_keywords_as_function_symbols_inside_percepts():
    (rule,) = gdl.parse("(<= (sees ?r (does ?p ?m)) (role ?r) (does ?p ?m))").rules
    assert rule.head == ("sees", Var("?r"), ("does", Var("?p"), Var("?m")))
    assert rule.body == (("role", Var("?r")), ("does", Var("?p"), Var("?m")))
    upper = gdl.parse("(<= (SEES ?R (DOES ?P ?M)) (ROLE ?R) (DOES ?P ?M))").rules[0]
    assert upper.head[0] == "sees" and upper.head[2][0] == "does"
    game = gdl.parse("""
        (role robot) (role random)
        (init (on a))
        (<= (legal ?r go) (role ?r) (true (on a)))
        (<= (next (on b)) (does robot go))
        (<= (sees ?r (does ?p ?m)) (role ?r) (does ?p ?m))
        (<= (sees ?r (did ?p ?m)) (role ?r) (does ?p ?m))
        (<= terminal (true (on b)))
        (goal robot 100)
    """)
    assert [d for d in gdl.validate(game) if d.severity == "error"] == []


def test_connectives_print_and_read_back():
    text = "(<= (p ?x) (q ?x) (not (r ?x)) (distinct ?x a) (or (s ?x) (and (t ?x) (not u))))"
    (rule,) = gdl.parse(text).rules
    assert rule.body == (
        ("q", Var("?x")),
        Not(("r", Var("?x"))),
        Distinct(Var("?x"), "a"),
        Or((("s", Var("?x")), And((("t", Var("?x")), Not("u"))))),
    )
    assert gdl.parse(gdl.to_kif(rule)).rules == (rule,)


def test_kif_starting_with_a_constant_fact_is_not_taken_for_infix():
    # A printed description whose first rule is a 0-arity fact.
    rules = (Rule("terminal"), Rule(("role", "r")), Rule(("goal", "r", "100")))
    text = gdl.to_kif(rules)
    assert text.startswith("terminal\n(role r)")
    assert gdl.parse(text).rules == rules


# --- the infix dialect -------------------------------------------------------------------


def test_infix_rule_reads_as_the_kif_equivalent():
    infix = gdl.parse("legal(P, mark(X,Y)) :- true(cell(X,Y,b)) & ~p(X)")
    kif = gdl.parse("(<= (legal ?P (mark ?X ?Y)) (true (cell ?X ?Y b)) (not (p ?X)))")
    assert infix.rules == kif.rules
    (rule,) = infix.rules
    assert rule.head == ("legal", Var("?P"), ("mark", Var("?X"), Var("?Y")))
    assert rule.body[1] == Not(("p", Var("?X")))


def test_infix_description_reads_as_the_kif_equivalent():
    infix = gdl.parse(
        """
        % tic-tac-toe fragment
        role(xplayer).
        init(control(xplayer)).
        legal(W, mark(X, Y)) :- true(cell(X, Y, b)), true(control(W)).
        next(cell(M, N, x)) :- does(xplayer, mark(M, N)) & distinct(M, 4).
        open :- (true(cell(X, Y, b)) | ~terminal).
        done :- ~distinct(X, Y) & index(X) & index(Y).
        terminal :- ~open.
        goal(xplayer, 100) :- line(x).
    """,
        "t.pl",
    )
    kif = gdl.parse("""
        (role xplayer)
        (init (control xplayer))
        (<= (legal ?W (mark ?X ?Y)) (true (cell ?X ?Y b)) (true (control ?W)))
        (<= (next (cell ?M ?N x)) (does xplayer (mark ?M ?N)) (distinct ?M 4))
        (<= open (or (true (cell ?X ?Y b)) (not terminal)))
        (<= done (not (distinct ?X ?Y)) (index ?X) (index ?Y))
        (<= terminal (not open))
        (<= (goal xplayer 100) (line x))
    """)
    assert infix.rules == kif.rules
    assert [r.pos.line for r in infix.rules] == [3, 4, 5, 6, 7, 8, 9, 10]


def test_infix_distinct_inside_negation_and_disjunction_is_distinct():
    infix = gdl.parse("r(X) :- q(X, Y) & (p(X) | distinct(X, Y)) & not(distinct(X, a))")
    kif = gdl.parse("(<= (r ?X) (q ?X ?Y) (or (p ?X) (distinct ?X ?Y)) (not (distinct ?X a)))")
    assert infix.rules == kif.rules


def test_infix_keeps_spelling_case_insensitively():
    d = gdl.parse("role(xPlayer).\nlegal(xplayer, noop) :- true(on).")
    assert d.rules[1].head == ("legal", "xPlayer", "noop")


def test_infix_errors_name_file_and_line():
    with pytest.raises(gdl.GdlError) as info:
        gdl.parse("role(robot).\nlegal(robot, go) :- true(on(a)) &\n", "bad.pl")
    assert str(info.value).startswith("bad.pl:")
    assert "error[syntax]" in str(info.value) and "\n" not in str(info.value)


def test_infix_not_is_negation():
    kif = gdl.parse("(<= q (r ?X) (not (p ?X)) (not s) (or t (not u)))").rules
    for text in (
        "q :- r(X) & not p(X) & not s & (t | not u).",
        "q :- r(X), not(p(X)), not(s), (t | not(u))",
        "q :- r(X) & ~p(X) & ~s & (t | ~u)",
    ):
        assert gdl.parse(text).rules == kif, text


def test_infix_not_is_a_plain_symbol_inside_terms():
    (rule,) = gdl.parse("f(not) :- g(not(x), nothing) & not nothing").rules
    assert rule == Rule(("f", "not"), (("g", ("not", "x"), "nothing"), Not("nothing")))


@pytest.mark.parametrize(
    "text",
    [
        "q :- not p.",
        "% a (comment\nrole(r).\nq :-\n    not p.\n",
        "q :- not p\np :- true(on(a))\n",
    ],
)
def test_prolog_style_negation_is_read_as_infix(text):
    assert is_infix(text)
    assert Rule("q", (Not("p"),)) in gdl.parse(text).rules


@pytest.mark.parametrize(
    "text, line, column, message",
    [
        ("q :- not.", 1, 9, "unexpected '.'"),
        (
            "q :- not p q.",
            1,
            12,
            "unexpected 'q': a statement ends with '.' or at the end of its line",
        ),
        ("q :- p or r.", 1, 8, "unexpected 'or': a statement ends with '.'"),
        ("q :- ~~p.", 1, 7, "unexpected '~'"),
        ("role(r).\nq :- p\n   & r s\n", 3, 8, "unexpected 's'"),
    ],
)
def test_infix_unreadable_body_is_a_located_syntax_error(text, line, column, message):
    with pytest.raises(gdl.GdlError) as info:
        gdl.parse(text, "bad.pl")
    assert str(info.value).startswith(f"bad.pl:{line}:{column}: error[syntax]: {message}")


# --- deep nesting --------------------------------------------------------------------

DEEP = 200_000


@pytest.mark.parametrize(
    "text, line, column",
    [
        ("(" * DEEP + ")" * DEEP, 1, MAX_NESTING + 1),
        ("(" * DEEP, 1, MAX_NESTING + 1),
        # Comments do not count; below one outer '(', the MAX_NESTING-th 'f(' crosses the limit.
        (
            "; (((\n(role r)\n(init " + "(f " * DEEP + "a" + ")" * DEEP + ")",
            3,
            7 + 3 * (MAX_NESTING - 1),
        ),
        ("% (((\np :- q(" + "f(" * DEEP + "a" + ")" * DEEP + ")", 2, 9 + 2 * (MAX_NESTING - 1)),
    ],
)
def test_deep_nesting_is_a_located_error_at_once(text, line, column):
    start = time.perf_counter()
    with pytest.raises(gdl.GdlError) as info:
        gdl.parse(text, "deep.kif")
    elapsed = time.perf_counter() - start
    assert str(info.value) == (
        f"deep.kif:{line}:{column}: error[syntax]: "
        f"parentheses nested deeper than {MAX_NESTING} levels"
    )
    assert elapsed < 5  # well under a second, unless the machine is very busy


@pytest.mark.parametrize(
    "text, column",
    [
        ("(" * DEEP + ")" * DEEP, MAX_NESTING + 1),
        ("(mark " + "(f " * DEEP + "1" + ")" * DEEP + ")", 7 + 3 * (MAX_NESTING - 1)),
    ],
)
def test_parse_term_refuses_deep_nesting_at_once(text, column):
    start = time.perf_counter()
    with pytest.raises(gdl.GdlError) as info:
        gdl.parse_term(text)
    elapsed = time.perf_counter() - start
    assert str(info.value) == (
        f"<term>:1:{column}: error[syntax]: parentheses nested deeper than {MAX_NESTING} levels"
    )
    assert elapsed < 5


def test_nesting_up_to_the_limit_is_read_printed_and_validated():
    n = MAX_NESTING - 2  # (init (on ...)) takes two levels
    deep = "(f " * n + "a" + ")" * n
    text = (
        f"(role r)\n(init (on {deep}))\n(<= (legal r go) (true (on ?x)))\n"
        "(<= (next (on ?x)) (true (on ?x)))\n(<= terminal (true (on a)))\n(goal r 100)"
    )
    desc = gdl.parse(text)
    assert gdl.parse(gdl.to_kif(desc)).rules == desc.rules
    assert gdl.validate(desc) == []
    term = "(f " * MAX_NESTING + "a" + ")" * MAX_NESTING
    assert gdl.to_kif(gdl.parse_term(term)) == term
    with pytest.raises(gdl.GdlError):
        gdl.parse_term(f"(g {term})")


def test_parentheses_in_comments_do_not_count_as_nesting():
    assert gdl.parse(";" + "(" * 500 + "\n(role r)").rules == (Rule(("role", "r")),)
    assert gdl.parse("%" + "(" * 500 + "\nrole(r).").rules == (Rule(("role", "r")),)


# --- size ------------------------------------------------------------------------------


def test_a_file_past_max_bytes_is_refused_before_it_is_read(tmp_path):
    """A regular file by its size on disk: a sparse 1 GB file is refused at
    once (reading it would take seconds and a gigabyte)."""
    path = tmp_path / "big.kif"
    with open(path, "wb") as f:
        f.truncate(2**30)
    start = time.perf_counter()
    with pytest.raises(gdl.TooLarge) as info:
        gdl.parse_file(path, max_bytes=2**20)
    assert time.perf_counter() - start < 0.5
    assert str(info.value) == (
        f"{path}: error[io]: the file has 1,073,741,824 bytes, more than the 1,048,576 allowed"
    )
    assert isinstance(info.value, gdl.GdlError) and info.value.first.kind == "io"


def test_a_stream_past_max_bytes_is_refused_after_max_bytes_and_one():
    """A character device (or a pipe) has no size: at most max_bytes + 1 bytes are read."""
    with pytest.raises(
        gdl.TooLarge, match="^/dev/zero: error.io.: the file has more than the 1,000 bytes allowed$"
    ):
        gdl.parse_file("/dev/zero", max_bytes=1000)


def test_reading_a_file_is_bounded_unless_told_otherwise():
    """Without max_bytes a reader of games is bounded all the same (gdl.MAX_BYTES):
    /dev/zero was read whole, to a MemoryError."""
    with pytest.raises(
        gdl.TooLarge,
        match="^/dev/zero: error.io.: the file has more than the 1,048,576 bytes allowed$",
    ):
        gdl.parse_file("/dev/zero")


@pytest.mark.parametrize("char", ["\x00", "\x01", "\x08", "\x0e", "\x1b", "\x7f"])
@pytest.mark.parametrize(
    "text, line, column",
    [
        ("(role x)\n(init (on a{c}))", 2, 12),  # in a symbol
        ("(role x)\n(<= (p ?x{c}) (q ?x))", 2, 10),  # in a variable
        ("(role x){c}(role y)", 1, 9),  # between statements
        ("{c}(role x)", 1, 1),
    ],
)
def test_a_control_character_is_refused_where_it_stands(char, text, line, column):
    """NUL was read inside symbols and as a statement of its own, as were
    the other control characters but the few Python counts as whitespace."""
    with pytest.raises(gdl.GdlError) as info:
        gdl.parse(text.format(c=char), "g.kif")
    assert str(info.value) == (
        f"g.kif:{line}:{column}: error[syntax]: control character U+{ord(char):04X} is not allowed"
    )


def test_tabs_form_feeds_and_line_ends_are_whitespace():
    assert gdl.parse("(role\tx)\f\r\n(role y)").rules == (Rule(("role", "x")), Rule(("role", "y")))


def test_max_bytes_counts_bytes_and_keeps_line_ends(tmp_path):
    """Up to the limit a file reads as before (line ends as a text file reads
    them); text given whole is measured in UTF-8 bytes, not characters."""
    text = "(role a)\r\n(init (é 1))\r(<= (legal a go) (true (é 1)))"
    path = tmp_path / "g.kif"
    path.write_bytes(text.encode())
    size = len(text.encode())
    rules = gdl.parse_file(path, max_bytes=size).rules
    assert rules == gdl.parse(text.replace("\r\n", "\n").replace("\r", "\n")).rules
    assert [r.pos.line for r in rules] == [1, 2, 3]
    with pytest.raises(
        gdl.TooLarge, match=f"the file has {size} bytes, more than the {size - 1} allowed"
    ):
        gdl.parse_file(path, max_bytes=size - 1)
    assert gdl.parse(text, max_bytes=size).rules == rules
    with pytest.raises(
        gdl.TooLarge,
        match=f"^<string>: error.io.: the text has {size} bytes, "
        f"more than the {len(text)} allowed$",
    ):
        gdl.parse(text, max_bytes=len(text))
