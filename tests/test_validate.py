"""The validator against a corpus of broken descriptions and against public games.

``tests/invalid/`` holds one small description per kind of mistake.  Each begins
with a comment line

    ; expect: <line>:<column> <kind> <substring of the message>

(``%`` instead of ``;`` for the infix dialect).  Every file holds exactly one
mistake, so reading and checking it must raise a :class:`gdl.GdlError` with
exactly one error, and that error (``str(e)``, one line) must name the file,
the line and column, the kind and the message.

The public games (``../shared/games``, not part of the repository) must all
parse; the conformance cases must validate as their EXPECTED.md says; every
GDL-I and GDL-II game must validate without errors.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from conftest import SHARED, needs_shared, shared_games

import gdl

HERE = Path(__file__).resolve().parent
INVALID = HERE / "invalid"

EXPECT = re.compile(r"^[;%] expect: (\d+):(\d+) ([a-z]+) (\S.*)$")

CORPUS = sorted(p for p in INVALID.iterdir() if p.suffix in (".kif", ".pl"))


def expectation(path: Path):
    first = path.read_text().splitlines()[0]
    m = EXPECT.match(first)
    assert m, f"{path.name}: first line must be '; expect: LINE:COL KIND MESSAGE', got {first!r}"
    return int(m[1]), int(m[2]), m[3], m[4].strip()


def read_and_check(path: Path):
    """What a user of the package does with a file: parse it, then check it."""
    desc = gdl.parse_file(path)
    return gdl.check(desc)


# --- the corpus of invalid descriptions --------------------------------------


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_invalid_file_is_rejected_with_one_precise_error(path):
    line, column, kind, substring = expectation(path)
    with pytest.raises(gdl.GdlError) as info:
        read_and_check(path)
    e = info.value
    errors = [d for d in e.diagnostics if d.severity == "error"]
    # One mistake, one error: no cascade of follow-up errors.
    assert len(errors) == 1, "expected exactly one error, got:\n" + "\n".join(map(str, errors))
    d = errors[0]
    # str(e) is the first (here: the only) diagnostic, on one line.
    assert str(e) == str(e.first) == str(d)
    text = str(e)
    assert "\n" not in text and "\r" not in text
    assert text.startswith(f"{path}:{line}:{column}: error[{kind}]: "), text
    assert substring in d.message, f"{substring!r} not in {d.message!r}"
    assert text.endswith(d.message)
    # The structured fields agree with the line.
    assert (d.pos.path, d.pos.line, d.pos.column) == (str(path), line, column)
    assert (d.kind, d.severity) == (kind, "error")


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_validate_reports_what_check_raises(path):
    """For files that parse, validate() lists the same error that check() raises."""
    try:
        desc = gdl.parse_file(path)
    except gdl.GdlError:
        return  # a syntax error: nothing to validate
    found = gdl.validate(desc)
    errors = [d for d in found if d.severity == "error"]
    with pytest.raises(gdl.GdlError) as info:
        gdl.check(desc)
    assert tuple(errors) == info.value.diagnostics
    assert gdl.validate(desc) == found  # stable


def test_corpus_covers_every_kind_of_error():
    assert len(CORPUS) >= 22
    expected = [expectation(p) for p in CORPUS]
    kinds = {kind for _, _, kind, _ in expected}
    assert kinds >= {
        "syntax",
        "arity",
        "negation",
        "safety",
        "stratification",
        "recursion",
        "keyword",
        "roles",
        "terminal",
        "legal",
        "goal",
    }
    # One file per mistake: no two files expect the same message.
    messages = [(kind, msg) for _, _, kind, msg in expected]
    assert len(set(messages)) == len(messages)
    # Each arity-checked keyword has its own file.
    arity = " ".join(msg for _, _, kind, msg in expected if kind == "arity")
    for keyword in (
        "role",
        "init",
        "true",
        "next",
        "legal",
        "does",
        "goal",
        "terminal",
        "sees",
        "distinct",
    ):
        assert f"'{keyword}' takes" in arity, keyword
    # Both dialects are represented, and the files are small.
    assert any(p.suffix == ".pl" for p in CORPUS)
    for p in CORPUS:
        assert len(p.read_text().splitlines()) <= 15, p.name


def test_unclosed_paren_is_reported_where_it_was_opened():
    text = (
        "(role robot)\n"
        "; a comment with a stray ( paren\n"
        "(<= (legal robot go)\n"
        "    (true (on a))\n"
        "(<= terminal (true (on b)))\n"
    )
    with pytest.raises(gdl.GdlError) as info:
        gdl.parse(text, "game.kif")
    assert str(info.value) == "game.kif:3:1: error[syntax]: '(' opened here is never closed"


def test_several_errors_first_is_raised_all_are_kept():
    text = (
        "(role robot)\n(<= (legal robot ?m) (true (on a)))\n(<= (goal robot 200) (true (on b)))\n"
    )
    desc = gdl.parse(text, "g.kif")
    with pytest.raises(gdl.GdlError) as info:
        gdl.check(desc)
    e = info.value
    assert str(e) == str(e.diagnostics[0])
    kinds = [d.kind for d in e.diagnostics]
    assert kinds == ["safety", "terminal", "goal"]
    assert all(d.severity == "error" for d in e.diagnostics)


def test_check_returns_warnings_of_a_valid_description():
    desc = gdl.parse("(role r) (<= (legal r go)) (<= terminal (p)) (p) (goal r 100)", "w.kif")
    warnings = gdl.check(desc)
    assert warnings and all(d.severity == "warning" for d in warnings)
    assert {d.kind for d in warnings} == {"style"}
    for d in warnings:
        assert str(d).startswith("w.kif:1:") and "warning[style]" in str(d)


# --- keywords, arities and the recursion restriction, on small inline games -----

#: A game missing only 'terminal': the cases below add it, and their mistake, from line 6.
GAME = (
    "(role robot)\n"
    "(init (on a))\n"
    "(<= (legal robot go) (true (on a)))\n"
    "(<= (next (on b)) (does robot go))\n"
    "(<= (goal robot 100) (true (on b)))\n"
)


def errors_in(text: str, path: str = "g.kif"):
    return [d for d in gdl.validate(gdl.parse(text, path)) if d.severity == "error"]


@pytest.mark.parametrize(
    "rules, line, column, message",
    [
        # (not open) without its parentheses
        (
            "(<= terminal not open)\n(<= open (true (on b)))",
            6,
            14,
            "keyword 'not' used as a proposition in the rule for terminal; write (not literal)",
        ),
        (
            "(<= terminal (true (on b)) or open)\n(<= open (true (on b)))",
            6,
            28,
            "keyword 'or' used as a proposition in the rule for terminal; write (or literal ...)",
        ),
        (
            "(<= terminal (true (on b)) distinct)",
            6,
            28,
            "keyword 'distinct' used as a proposition in the rule for terminal",
        ),
        ("(<= terminal (true (on b)) <=)", 6, 28, "keyword '<=' used as a proposition"),
        ("(<= terminal (or (true (on b)) and))", 6, 14, "keyword 'and' used as a proposition"),
        (
            "(<= terminal true)",
            6,
            14,
            "keyword 'true' used as a proposition in the rule for terminal; 'true' takes 1 argument",
        ),
        (
            "(<= terminal (true (on b)) (not does))",
            6,
            28,
            "keyword 'does' used as a proposition in the rule for terminal; 'does' takes 2 arguments",
        ),
        (
            "(<= terminal (true (on b)))\ninit",
            7,
            1,
            "keyword 'init' used as a proposition in a fact; 'init' takes 1 argument",
        ),
        (
            "(<= terminal (true (on b)))\n(<= legal (true (on a)))",
            7,
            1,
            "keyword 'legal' used as a proposition in a rule head",
        ),
        ("(<= terminal (true (on b)))\nnot", 7, 1, "keyword 'not' used as a proposition in a fact"),
    ],
)
def test_keyword_used_as_a_proposition_is_one_located_error(rules, line, column, message):
    (d,) = errors_in(GAME + rules)
    assert str(d) == f"g.kif:{line}:{column}: error[keyword]: {d.message}"
    assert message in d.message


def test_keyword_used_as_a_relation_in_infix_is_an_error():
    # Read as a fact named 'distinct' (the validator used to crash on it).
    text = (
        "role(robot).\ninit(on(a)).\nlegal(robot, go) :- true(on(a)).\n"
        "next(on(b)) :- does(robot, go).\ngoal(robot, 100) :- true(on(b)).\n"
        "terminal :- true(on(b)).\ndistinct(a, b).\n"
    )
    (d,) = errors_in(text, "g.pl")
    assert str(d) == (
        "g.pl:7:1: error[keyword]: keyword 'distinct' used as a relation "
        "in a fact; write (distinct term term)"
    )


def test_keywords_inside_terms_and_random_stay_accepted():
    text = (
        "(role robot) (role random)\n"
        "(init (on a)) (init (mark not or distinct true))\n"
        "(<= (legal robot go) (true (on a)))\n"
        "(<= (legal random (pick ?x)) (true (mark ?x ?y ?z ?w)))\n"
        "(<= (next (on b)) (does robot go))\n"
        "(<= (sees robot (does ?p ?m)) (does ?p ?m))\n"
        "(<= terminal (true (on b)) (not (true (mark random terminal does init))))\n"
        "(goal robot 100)\n"
    )
    assert errors_in(text) == []


def test_an_error_in_a_rule_with_or_is_reported_once():
    rules = "(<= terminal (init (on b)) (or (true (on a)) (true (on b))))"
    (d,) = errors_in(GAME + rules)
    assert str(d) == "g.kif:6:14: error[keyword]: 'init' may only appear in rule heads"


def test_relation_with_two_arities_is_one_error_without_follow_ups():
    # (reach ?x) is a slip for a 2-ary relation; read as one relation 'reach', it
    # would also break the recursion restriction, in a rule that is right.
    rules = (
        "(<= terminal (true (on b)))\n"
        "(edge a b)\n"
        "(<= (reach ?x ?z) (edge ?x ?y) (reach ?y ?z))\n"
        "(<= (reach ?x) (reach ?x ?y))\n"
    )
    (d,) = errors_in(GAME + rules)
    assert str(d) == (
        "g.kif:9:1: error[arity]: relation 'reach' used with 1 arguments here but 2 at g.kif:8:1"
    )


def test_recursion_restriction_binds_variables_inside_function_terms():
    # ?p is bound by (true (next-player ?p ?q)), a non-recursive literal, inside
    # a function term: the specification's "appears in" reaches there too.
    rules = (
        "(<= terminal (true (on b)))\n"
        "(<= (after ?p) (true (first-player ?p)))\n"
        "(<= (after ?q) (true (next-player ?p ?q)) (after ?p))\n"
    )
    assert errors_in(GAME + rules) == []


def test_recursion_restriction_refuses_an_argument_bound_nowhere():
    rules = (
        "(<= terminal (true (on b)))\n"
        "(<= (after ?p) (true (first-player ?p)))\n"
        "(<= (after ?q) (true (next-player ?q)) (after ?p))\n"
    )
    (d,) = errors_in(GAME + rules)
    assert str(d).startswith(
        "g.kif:8:40: error[recursion]: recursion restriction: "
        "argument ?p of the recursive literal (after ?p) is not ground"
    )


# --- public games ---------------------------------------------------------------

GAMES = shared_games("gdl1", "gdl2")
CONFORMANCE = shared_games("conformance")
needs_shared = needs_shared()


@cache
def parsed(path: Path):
    return gdl.parse_file(path)


def by_name(name: str) -> Path:
    return SHARED / "conformance" / f"{name}.kif"


# EXPECTED.md, "Validation".
VALID_CLEAN = [
    "simpleMutex",
    "test_case_1b",
    "test_case_2a",
    "test_case_2b",
    "test_case_2c",
    "test_case_3c",
    "test_case_3d",
    "test_case_4a",
    "test_case_5a",
    "test_case_5b",
    "test_case_5c",
]
VALID_WITH_WARNINGS = {
    "test_case_1a": "style",  # (<= (goal you 100)): a rule with no body
    "test_case_3a": "style",  # (open2): a 0-arity relation in parentheses
    "test_invalid_function_arities_differ": "arity",
}
# Invalid, and why: unsafe rules; (not (distinct ...)); a relation with two arities.
# EXPECTED.md lists test_invalid_sentence_arities_differ as valid with a warning,
# as ggp-base does; here, as the GDL specification (and the file's own comment)
# says, a relation used with two arities is an error.
INVALID_CASES = {
    "test_case_3b": "safety",
    "test_case_3e": "safety",
    "test_case_3f": "safety",
    "test_clean_not_distinct": "negation",
    "test_invalid_sentence_arities_differ": "arity",
}
# Not in the Validation table but played in its Reasoning table: must have no errors.
PLAYED = ["test_case_5d", "test_case_5e", "test_distinct_beginning_rule"]


@needs_shared
def test_shared_games_are_there():
    assert len(shared_games("gdl1")) >= 40 and len(shared_games("gdl2")) >= 10
    names = {p.stem for p in CONFORMANCE}
    assert names >= set(VALID_CLEAN) | set(VALID_WITH_WARNINGS) | set(INVALID_CASES) | set(PLAYED)


@pytest.mark.parametrize("path", GAMES + CONFORMANCE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_shared_game_parses(path):
    desc = parsed(path)
    assert len(desc.rules) > 0
    assert desc.path == str(path)


@pytest.mark.parametrize("path", GAMES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_public_game_validates_without_errors(path):
    found = gdl.validate(parsed(path))
    errors = [str(d) for d in found if d.severity == "error"]
    assert errors == []
    for d in found:  # warnings are one line and name the file
        assert "\n" not in str(d) and str(d).startswith(f"{path}:")


@needs_shared
@pytest.mark.parametrize("name", VALID_CLEAN + PLAYED)
def test_conformance_valid(name):
    found = gdl.validate(parsed(by_name(name)))
    if name in VALID_CLEAN:
        assert [str(d) for d in found] == []
    else:
        assert [str(d) for d in found if d.severity == "error"] == []


@needs_shared
@pytest.mark.parametrize("name", sorted(VALID_WITH_WARNINGS))
def test_conformance_valid_with_warnings(name):
    desc = parsed(by_name(name))
    warnings = gdl.check(desc)  # does not raise
    assert warnings, "expected at least one warning"
    assert all(d.severity == "warning" for d in warnings)
    assert VALID_WITH_WARNINGS[name] in {d.kind for d in warnings}


@needs_shared
@pytest.mark.parametrize("name", sorted(INVALID_CASES))
def test_conformance_invalid(name):
    path = by_name(name)
    with pytest.raises(gdl.GdlError) as info:
        gdl.check(parsed(path))
    e = info.value
    assert e.first.kind == INVALID_CASES[name]
    assert str(e).startswith(f"{path}:") and "\n" not in str(e)
    assert all(d.severity == "error" for d in e.diagnostics)
