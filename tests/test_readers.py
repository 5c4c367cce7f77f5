"""Readers of users' files (match records, study files) against any JSON or
YAML: one clean error line or success, never an internal error."""

from __future__ import annotations

import contextlib
import io
import json

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gdl
from ggp.specs import Spec
from matches.cli import main
from matches.study import load_study

#: One step of two roles, then the end: a record of it replays in about 40 ms.
GDL = """(role a) (role b) (init (step 0)) (<= (legal ?r go) (role ?r) (true (step 0)))
(<= (next (step 1)) (true (step 0))) (<= terminal (true (step 1))) (<= (goal ?r 50) (role ?r))"""
RECORD = {
    "matchId": "m1",
    "states": ["( ( step 0 ) )", "( ( step 1 ) )"],
    "moves": [["go", "go"]],
    "roles": ["a", "b"],
    "goalValues": [50, 50],
    "errors": [["", ""], ["", ""]],
    "gdl": GDL,
    "gameSource": None,
}
STUDY = {
    "name": "s",
    "games": ["tictactoe"],
    "players": {"a": "random", "b": "legal"},
    "pairs": [["a", "b"]],
    "matches": 2,
    "seed": 1,
    "startclock": 1,
    "playclock": 1,
    "out": "out",
    "executor": "process",
}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def field(value):
    """A field of a good file: as it is, anything, or a list of its items and anything."""
    options = [st.just(value), json_values]
    if isinstance(value, list) and value:
        options.append(st.lists(st.sampled_from(value) | json_values, max_size=3))
    if isinstance(value, dict) and value:
        options.append(
            st.dictionaries(
                st.sampled_from(list(value)) | st.text(max_size=4),
                st.sampled_from(list(value.values())) | json_values,
                max_size=3,
            )
        )
    return st.one_of(options)


def files_like(good: dict):
    """Anything, the good file with one field of any value, or a mapping with
    some of the good file's fields, each maybe broken."""
    return (
        json_values
        | st.builds(
            lambda key, value: {**good, key: value}, st.sampled_from(list(good)), json_values
        )
        | st.fixed_dictionaries({}, optional={key: field(value) for key, value in good.items()})
    )


def run(argv) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, err.getvalue()


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=files_like(RECORD))
def test_replay_reads_any_json_into_one_line_or_a_replay(tmp_path, monkeypatch, data):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(data))
    code, err = run(["replay", str(path)])
    assert code in (0, 1)
    assert "internal error" not in err and "Traceback" not in err
    assert all(line.startswith("ggp: ") for line in err.splitlines())
    assert len([line for line in err.splitlines() if not line.startswith("ggp: warning")]) <= 1


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=files_like(STUDY) | st.text(max_size=40))
def test_a_study_file_of_any_yaml_is_read_or_refused_in_one_line(tmp_path, data):
    path = tmp_path / "study.yaml"
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data))
    try:
        study = load_study(path)
    except (ValueError, gdl.GdlError) as exc:  # what `ggp study` prints on one line
        assert "\n" not in str(exc)
    else:  # read as written: no value of another type taken for a string
        players = data["players"]
        assert study.name == data.get("name", "study")
        assert all(isinstance(spec, str) for spec in players.values())
        assert study.players == {label: Spec.parse(spec) for label, spec in players.items()}
        assert study.out == tmp_path / data.get("out", "results/study") and study.out.is_dir()


@pytest.mark.parametrize(
    "data, line",
    [
        ([1, 2], "not a match record: it must be a JSON object, not a list"),
        (
            {**RECORD, "moves": "go go"},
            "not a match record: 'moves' must be a list of steps, "
            "each a list of moves (strings) in role order, not a string",
        ),
        (
            {**RECORD, "moves": [["go", 1]]},
            "not a match record: 'moves' must be a list of steps, "
            "each a list of moves (strings) in role order; moves[0][1] is an integer",
        ),
        (
            {**RECORD, "states": {"0": "( )"}},
            "not a match record: 'states' must be a list of "
            "states, each a string of facts, not a mapping",
        ),
        (
            {**RECORD, "states": [None]},
            "not a match record: 'states' must be a list of states, "
            "each a string of facts; states[0] is null",
        ),
        (
            {**RECORD, "roles": "a b"},
            "not a match record: 'roles' must be a list of role names, not a string",
        ),
        (
            {**RECORD, "roles": [1, 2]},
            "not a match record: 'roles' must be a list of role names; roles[0] is an integer",
        ),
        (
            {**RECORD, "goalValues": [50, "50"]},
            "not a match record: 'goalValues' must be a list "
            "of goal values (numbers or null); goalValues[1] is a string",
        ),
        (
            {"moves": []},
            "not a match record: 'states' is required: a list of states, each a string of facts",
        ),
    ],
)
def test_a_record_of_the_wrong_shape_is_one_line_naming_the_field(tmp_path, data, line):
    """Each was an internal error (a JSON list; moves, states or roles of the wrong type)."""
    path = tmp_path / "record.json"
    path.write_text(json.dumps(data))
    assert run(["replay", str(path)]) == (1, f"ggp: {path}: {line}\n")


def test_the_good_record_replays(tmp_path):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(RECORD))
    assert run(["replay", str(path)]) == (0, "")
