"""What the browser viewer shows (``ggp view``, :mod:`matches.viewer`): match
records, a running match and a study's results as JSON documents for the
page in ``matches/static``.

A match is shown step by step.  Step 0 is the initial state; step ``k`` is
the state after the ``k``-th joint move.  Each step carries the joint move
that led to it with its fault codes, the state's facts, the board when the
game has a grid (:mod:`matches.board`, found from the game's own domains,
with glyphs for chess, draughts and go pieces) and the cells the joint move
changed on it (highlighted by the page), every role's number of legal
moves, and in GDL-II what each role saw on arriving there (its percepts).
The page shows GDL-II matches omnisciently or as one role saw them (its own
moves and percepts only).

Records are ggp.org match JSON (:mod:`matches.records`): ours carry the
game's source and roles, so the match is replayed with the rules for the
legal-move counts, the board and the percepts; a record from another manager
(ggp-base writes no roles and no game, only ``gameMetaURL``) is matched to a
game of games_gdl by that URL's game key, or else shown from its states
alone, its board guessed from the facts.  A record that cannot be read is a
:class:`Damaged` with one sentence saying why.
"""

from __future__ import annotations

import functools
import gzip
import json
import re
import threading
import time
import zlib
from pathlib import Path

import gdl
from gdl import to_kif
from ggp import load_game
from ggp.game import game_names
from matches.board import Board, board_of
from matches.records import MatchStore, check_record, state_facts_of, step_errors
from matches.study import match_lines, matches_path


class Damaged(ValueError):
    """A record the viewer cannot show; the message says why, in one sentence."""


# --- reading records -----------------------------------------------------------------


def read_record(path) -> dict:
    """A match record from a JSON file, checked for the keys the viewer reads."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise Damaged(f"{path}: cannot read it: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise Damaged(f"{path}: not JSON: {exc}") from None
    return checked(data, str(path))


def checked(data, where: str) -> dict:
    """``data`` when it has the shape of a ggp.org match record (its fields'
    types: :func:`matches.records.check_record`), else :class:`Damaged`."""
    try:
        check_record(data)
    except ValueError as exc:
        raise Damaged(f"{where}: {exc}") from None
    if not data["states"]:
        raise Damaged(f"{where}: the record has no states")
    if len(data["states"]) not in (len(data["moves"]) + 1, len(data["moves"])):
        raise Damaged(
            f"{where}: {len(data['states'])} states for {len(data['moves'])} "
            f"moves (one more state than moves expected)"
        )
    if len({len(joint) for joint in data["moves"]}) > 1:
        raise Damaged(f"{where}: the moves are not one list per step with a move per role")
    return data


def summary(data: dict, match_id: str | None = None, problem: str | None = None) -> dict:
    """One line of the match list."""
    roles = roles_of(data)
    names = data.get("playerNamesFromHost") or [None] * len(roles)
    goals = data.get("goalValues") or [None] * len(roles)
    faults = data.get("faults")
    return {
        "id": match_id or data.get("matchId"),
        "game": game_name(data),
        "roles": roles,
        "players": dict(zip(roles, names)),
        "goals": {r: g for r, g in zip(roles, goals) if g is not None},
        "steps": len(data["moves"]),
        "start": data.get("startTime"),
        "faults": len(faults)
        if isinstance(faults, list)
        else sum(1 for step in step_errors(data) for e in step if e),
        "completed": data.get("isCompleted", True),
        "problem": problem,
    }


def roles_of(data: dict, game=None) -> list:
    """The record's roles; ggp-base's records name none: the game's, else role 1, 2, ..."""
    if isinstance(data.get("roles"), list):
        return list(data["roles"])
    if game is not None:
        return list(game.roles)
    width = len(data["moves"][0]) if data["moves"] else len(data.get("goalValues") or [])
    return [f"role {i + 1}" for i in range(width)]


def game_name(data: dict) -> str:
    """The game's name: ours, else the game key of ggp.org's ``gameMetaURL``."""
    if data.get("gameName"):
        return data["gameName"]
    url = data.get("gameMetaURL") or ""
    match = re.search(r"/games/([^/]+)/", url)
    return match.group(1) if match else "unknown game"


def find_game(data: dict):
    """The record's game (or None and why not): its ``gdl`` or ``gameSource``,
    else the game of games_gdl whose name is the record's (any case)."""
    source = data.get("gdl") or data.get("gameSource")
    if source:
        try:
            return load_game(source), None
        except Exception as exc:  # noqa: BLE001 - any failure: shown without rules
            return None, f"the game could not be loaded ({exc}); shown from the record alone"
    name = game_name(data).lower()
    known = {n.lower(): n for n in game_names()}
    if name in known:
        return load_game(known[name]), None
    return None, (
        f"the record names no game this viewer has ({game_name(data)}); shown from its states alone"
    )


# --- a match, step by step -------------------------------------------------------------


def match_view(data: dict, game=None) -> dict:
    """The page's document of one match record (see the module docstring)."""
    data = checked(data, data.get("matchId") or "the record")
    notes = []
    if game is None:
        game, why = find_game(data)
        if why:
            notes.append(why)
    roles = roles_of(data, game)
    if game is not None and [r.lower() for r in roles] != [r.lower() for r in game.roles]:
        notes.append(
            f"the record's roles {roles} are not the game's {list(game.roles)}; "
            "shown from its states alone"
        )
        game, roles = None, roles_of(data)
    try:
        steps = _steps(data, roles, game)
    except _Astray as exc:
        notes.append(
            f"{exc}: the record does not follow the rules of {game.name}; "
            "shown from its states alone"
        )
        roles = roles_of(data)
        steps = _steps(data, roles, None)
    goals = data.get("goalValues") or []
    return {
        "id": data.get("matchId"),
        "game": game_name(data),
        "roles": roles,
        "players": dict(zip(roles, data.get("playerNamesFromHost") or [None] * len(roles))),
        "goals": {r: g for r, g in zip(roles, goals) if g is not None},
        "gdl2": bool(game is not None and game.is_gdl2),
        "faults": [f for f in data.get("faults") or [] if isinstance(f, dict)],
        "start": data.get("startTime"),
        "completed": data.get("isCompleted", True),
        "notes": notes,
        "steps": steps,
    }


class _Astray(Exception):
    """A record that leaves the rules (an illegal move, another state)."""


def _steps(data: dict, roles: list, game) -> list:
    """The steps of a record, followed with ``game``'s rules when given."""
    tracker = Tracker(game, roles) if game is not None else None
    moves, errors = data["moves"], step_errors(data)
    simulations = data.get("simulations") or []
    steps = []
    for k, text in enumerate(data["states"]):
        joint = moves[k - 1] if k else None
        step = _step(
            roles,
            joint and [_kif(m) for m in joint],
            errors[k - 1] if k and k <= len(errors) else None,
            simulations[k - 1] if k and k <= len(simulations) else None,
            [_kif(f) for f in state_facts_of(text)],
        )
        if tracker is not None:
            try:
                tracker.advance(joint and [game.parse_move(m) for m in joint])
            except (ValueError, gdl.GdlError) as exc:
                raise _Astray(f"step {k}: {exc}") from None
            if {f.lower() for f in step["facts"]} != {f.lower() for f in tracker.facts()}:
                raise _Astray(f"step {k}: the recorded state is not the rules' state")
            step.update(tracker.seen())
        steps.append(step)
    if tracker is None:
        _boards_from_record(steps)
    return steps


def _step(roles, joint, errors, simulations, facts) -> dict:
    """One step of a match's document: the joint move that led to it (KIF,
    role order; None at the start) with its fault codes and simulations per
    role, and the state's facts (KIF, sorted)."""
    return {
        "moves": joint and dict(zip(roles, joint)),
        "errors": dict(zip(roles, errors or ())),
        "simulations": dict(zip(roles, simulations or ())),
        "facts": sorted(facts, key=str.lower),
    }


class Tracker:
    """Follows a match with the rules: the state, and what each step shows of it
    (board, legal-move counts, each role's percepts)."""

    def __init__(self, game, roles, sm=None):
        self.game, self.roles = game, list(roles)
        self.sm = sm or game.state_machine()
        self.state = None
        self.terms: frozenset = frozenset()  # the facts of self.state

    def advance(self, joint) -> None:
        """To the initial state (``joint`` None) or past ``joint`` (terms, role order)."""
        sm = self.sm
        if joint is None:
            self.arrived(sm.initial_state())
            return
        for role, move in zip(self.roles, joint):
            if move not in sm.legal_moves(self.state, role):
                raise ValueError(f"{role}'s move {to_kif(move)} is not legal")
        self.arrived(sm.next_state(self.state, joint), self.state, joint)

    def arrived(self, state, previous=None, joint=None) -> None:
        """At ``state``, reached from ``previous`` by ``joint`` (None at the start)."""
        self.percepts = (
            {r: sorted(to_kif(p) for p in self.sm.percepts(previous, joint, r)) for r in self.roles}
            if self.game.is_gdl2 and previous is not None
            else None
        )
        if previous is None:
            self.before = None
        elif previous is self.state:
            self.before = self.terms  # the facts of the state it left, known already
        else:
            self.before = self.sm.state_facts(previous)
        self.state, self.terms = state, self.sm.state_facts(state)

    def facts(self) -> list:
        """The state's facts, in KIF."""
        return [to_kif(f) for f in self.terms]

    def seen(self) -> dict:
        """What a step shows that the record does not say: board, legal counts, percepts."""
        sm, state, facts = self.sm, self.state, self.terms
        terminal = sm.is_terminal(state)
        board = board_of(facts, self.game, sm)
        return {
            "board": board and _board(board, facts),
            "changed": _changed(board, self.before, facts),
            "legal": {r: 0 if terminal else len(sm.legal_moves(state, r)) for r in self.roles},
            **({"percepts": self.percepts} if self.percepts is not None else {}),
        }


def _board(board: Board, facts) -> dict:
    """A board as the page draws it: coordinates, the rows of cell symbols,
    and the glyph of each symbol that has one (:func:`matches.board.piece_glyphs`)
    with its colour when the glyph does not say it."""
    glyphs = board.glyphs_of(facts)
    return {
        "columns": [str(c) for c in board.columns],
        "rows": [str(r) for r in board.rows],
        "cells": board.grid(facts),
        "glyphs": {symbol: glyph for symbol, (glyph, _) in glyphs.items()},
        "colors": {symbol: colour for symbol, (_, colour) in glyphs.items() if colour},
    }


def _changed(board: Board | None, before, after) -> list:
    """The cells the last move changed, ``[column, row]`` each (the page
    highlights them); none at the start or without a board."""
    if board is None or before is None:
        return []
    return [[str(c), str(r)] for c, r in board.changed(before, after)]


def _boards_from_record(steps: list) -> None:
    """Boards of a match shown without rules: one grid guessed from every state's facts."""
    terms = [[_term(f) for f in step["facts"]] for step in steps]
    board = Board.from_state({t for facts in terms for t in facts})
    for k, (step, facts) in enumerate(zip(steps, terms)):
        step["board"] = board and _board(board, facts)
        step["changed"] = _changed(board, terms[k - 1] if k else None, facts)
        step["legal"] = None


def _term(text: str):
    try:
        return gdl.parse_term(text)
    except gdl.GdlError:
        return text


def _kif(text: str) -> str:
    """ggp-base's spaced spelling ``( mark 1 1 )`` as KIF: ``(mark 1 1)``."""
    return re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", text.strip()))


# --- where records come from -------------------------------------------------------------


class Library:
    """The matches ``ggp view`` lists: a SQLite store (:class:`MatchStore`) and
    record files.  A file that cannot be read stays in the list with its
    problem; the others are unaffected."""

    def __init__(self, db=None, files=()):
        self.db, self.files = db, [Path(f) for f in files]

    def matches(self) -> list:
        rows = []
        for i, path in enumerate(self.files):
            try:
                rows.append(summary(read_record(path), f"file:{i}"))
            except Damaged as exc:
                rows.append({"id": f"file:{i}", "game": path.name, "problem": str(exc)})
        if self.db is not None:
            with MatchStore(self.db) as store:
                for row in store.matches():
                    rows.append(
                        {
                            "id": row["match_id"],
                            "game": row["game"],
                            "roles": row["roles"],
                            "players": row["players"],
                            "goals": row["goals"],
                            "steps": row["steps"],
                            "start": row["start_time"],
                            "faults": row["faults"],
                            "study": row["study"],
                            "completed": True,
                            "problem": None,
                        }
                    )
        return rows

    def record(self, match_id: str) -> dict:
        if match_id.startswith("file:"):
            index = int(match_id[5:])
            if not 0 <= index < len(self.files):
                raise Damaged(f"no match {match_id}")
            return read_record(self.files[index])
        if self.db is not None:
            with MatchStore(self.db) as store:
                data = store.get(match_id)
            if data is not None:
                return data
        raise Damaged(f"no match {match_id}")


# --- a study's results ---------------------------------------------------------------


def study_view(folder) -> dict:
    """A study's tables from its folder (``matches.jsonl.gz``, written by ``ggp
    study``): the score of each pair with its 95% interval, the Bradley-Terry
    ranking, and the plots it drew.  Computed once per state of the file (its
    modification time and size), so that loading the page again costs
    nothing until the study writes the file again."""
    folder = Path(folder)
    try:
        path = matches_path(folder)
        state = path.stat()
    except OSError as exc:
        raise Damaged(str(exc)) from None
    document = _study_tables(path, state.st_mtime_ns, state.st_size)
    return {**document, "plots": plots_in(folder)}


@functools.lru_cache(maxsize=8)
def _study_tables(path: Path, mtime_ns: int, size: int) -> dict:
    """The document of the study whose matches file is ``path``, in the
    state given by its modification time and size (the cache's key)."""
    rows = []
    try:
        lines = match_lines(path)
    except (OSError, EOFError, UnicodeDecodeError, zlib.error, gzip.BadGzipFile) as exc:
        raise Damaged(f"{path}: not readable ({exc})") from None
    for n, line in enumerate(lines, 1):
        try:
            m = json.loads(line)
            rows.append(
                {
                    "key": m["key"],
                    "game": m["game"],
                    "players": {role: label for label, role in m["roles"].items()},
                    "goals": {m["roles"][label]: g for label, g in m["goals"].items()},
                }
            )
        except KeyError as exc:
            raise Damaged(f"{path}, line {n}: not a match of a study (no {exc})") from None
        except (ValueError, TypeError, AttributeError):
            raise Damaged(f"{path}, line {n}: not a match of a study") from None
    return study_document(path.parent.name, rows)


def plots_in(folder) -> list:
    """The plots (PNG files) a study drew in its out folder, by name."""
    return sorted(p.name for p in Path(folder).glob("*.png"))


def study_document(name: str, rows: list, plots=(), finished=None, total=None) -> dict:
    """The page's document of a study from its match rows (key, game, players, goals)."""
    from matches.study import ranking
    from matches.study import summary as scores

    labels = sorted({r["players"][role] for r in rows for role in r["goals"]})
    return {
        "name": name,
        "table": scores(rows),
        "ranking": ranking(rows, labels) if rows else [],
        "plots": list(plots),
        "finished": len(rows) if finished is None else finished,
        "total": total,
    }


# --- live documents -----------------------------------------------------------------------


class Live:
    """A document that changes while a match or a study runs; the viewer
    pushes each version to the pages that watch it (server-sent events)."""

    def __init__(self, kind: str):
        self.kind = kind
        self.version = 0
        self.document: dict | None = None
        self._changed = threading.Condition()

    def publish(self, document: dict) -> None:
        with self._changed:
            self.version += 1
            self.document = {
                **document,
                "live": self.kind,
                "version": self.version,
                "time": time.time(),
            }
            self._changed.notify_all()

    def wait(self, after: int, timeout: float) -> tuple:
        """(version, document) once the version passes ``after``, or at ``timeout``."""
        with self._changed:
            self._changed.wait_for(lambda: self.version > after, timeout)
            return self.version, self.document


class LiveMatch:
    """Publishes a running match to ``live``: :meth:`on_step` is the
    ``on_step`` hook of :func:`matches.manager.run_match`; :meth:`finish`
    publishes the finished record."""

    def __init__(self, live: Live, game):
        self.live, self.game = live, game
        self.steps: list[dict] = []
        self.tracker: Tracker | None = None
        self.state = None  # the last state, once a step has been tracked

    def on_step(self, record, sm, state) -> None:
        tracker = self.tracker
        if tracker is None or tracker.sm is not sm:  # START, or a new reasoner
            if tracker is not None and self.state is not None:  # a new reasoner
                self.state = sm.state_from_facts(tracker.sm.state_facts(self.state))
            self.tracker = tracker = Tracker(self.game, record.roles, sm)
        k, roles = len(record.moves), record.roles
        joint = record.moves[-1] if k else None
        tracker.arrived(state, self.state, joint)
        self.state = state
        self.steps.append(
            {
                **_step(
                    roles,
                    joint and [to_kif(m) for m in joint],
                    record.errors[-1] if k else None,
                    record.simulations[-1] if k else None,
                    tracker.facts(),
                ),
                **tracker.seen(),
            }
        )
        self.live.publish(
            {
                "id": record.match_id,
                "game": self.game.name,
                "roles": list(roles),
                "players": dict(record.players),
                "goals": {},
                "gdl2": self.game.is_gdl2,
                "faults": list(record.faults),
                "start": round(record.start_time * 1000),
                "completed": False,
                "notes": [],
                "steps": list(self.steps),
            }
        )

    def finish(self, record) -> None:
        from matches.records import to_ggp_json

        self.live.publish(match_view(to_ggp_json(record), self.game))
