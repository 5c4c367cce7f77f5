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
from functools import lru_cache
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
        return      # a syntax error: nothing to validate
    found = gdl.validate(desc)
    errors = [d for d in found if d.severity == "error"]
    with pytest.raises(gdl.GdlError) as info:
        gdl.check(desc)
    assert tuple(errors) == info.value.diagnostics
    assert gdl.validate(desc) == found      # stable


def test_corpus_covers_every_kind_of_error():
    assert len(CORPUS) >= 22
    expected = [expectation(p) for p in CORPUS]
    kinds = {kind for _, _, kind, _ in expected}
    assert kinds >= {"syntax", "arity", "negation", "safety", "stratification", "recursion",
                     "keyword", "roles", "terminal", "legal", "goal"}
    # One file per mistake: no two files expect the same message.
    messages = [(kind, msg) for _, _, kind, msg in expected]
    assert len(set(messages)) == len(messages)
    # Each arity-checked keyword has its own file.
    arity = " ".join(msg for _, _, kind, msg in expected if kind == "arity")
    for keyword in ("role", "init", "true", "next", "legal", "does", "goal", "terminal",
                    "sees", "distinct"):
        assert f"'{keyword}' takes" in arity, keyword
    # Both dialects are represented, and the files are small.
    assert any(p.suffix == ".pl" for p in CORPUS)
    for p in CORPUS:
        assert len(p.read_text().splitlines()) <= 15, p.name


def test_unclosed_paren_is_reported_where_it_was_opened():
    text = ("(role robot)\n"
            "; a comment with a stray ( paren\n"
            "(<= (legal robot go)\n"
            "    (true (on a))\n"
            "(<= terminal (true (on b)))\n")
    with pytest.raises(gdl.GdlError) as info:
        gdl.parse(text, "game.kif")
    assert str(info.value) == "game.kif:3:1: error[syntax]: '(' opened here is never closed"


def test_several_errors_first_is_raised_all_are_kept():
    text = ("(role robot)\n"
            "(<= (legal robot ?m) (true (on a)))\n"
            "(<= (goal robot 200) (true (on b)))\n")
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


# --- public games ---------------------------------------------------------------

GAMES = shared_games("gdl1", "gdl2")
CONFORMANCE = shared_games("conformance")
needs_shared = needs_shared()


@lru_cache(maxsize=None)
def parsed(path: Path):
    return gdl.parse_file(path)


def by_name(name: str) -> Path:
    return SHARED / "conformance" / f"{name}.kif"


# EXPECTED.md, "Validation".
VALID_CLEAN = ["simpleMutex", "test_case_1b", "test_case_2a", "test_case_2b", "test_case_2c",
               "test_case_3c", "test_case_3d", "test_case_4a", "test_case_5a", "test_case_5b",
               "test_case_5c"]
VALID_WITH_WARNINGS = {"test_case_1a": "style",      # (<= (goal you 100)): a rule with no body
                       "test_case_3a": "style",      # (open2): a 0-arity relation in parentheses
                       "test_invalid_function_arities_differ": "arity",
                       "test_invalid_sentence_arities_differ": "arity"}
# Invalid, and why: unsafe rules; (not (distinct ...)).
INVALID_CASES = {"test_case_3b": "safety", "test_case_3e": "safety", "test_case_3f": "safety",
                 "test_clean_not_distinct": "negation"}
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
    for d in found:     # warnings are one line and name the file
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
    warnings = gdl.check(desc)      # does not raise
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
