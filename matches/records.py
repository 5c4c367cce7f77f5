"""Match records: the ggp.org match JSON, a SQLite store of them, and replay.

``to_ggp_json`` writes a :class:`~matches.manager.MatchRecord` in the shape of
ggp-base's ``Match.toJSON``, so that other GGP
tools can read our matches.  States and moves are spelled as ggp-base spells
them, every parenthesis spaced: ``"( ( cell 1 1 b ) ( control xplayer ) )"``,
``"( mark 1 1 )"``.  Every list indexed by role (``moves`` of a step,
``errors`` of a state, ``goalValues``, ``playerNamesFromHost``) follows the
order of the game's roles, the GDL-II ``random`` role included (it has no
player and no goal: ``null``).

To make a record replayable without the ggp.org game repository it carries a
few keys of ours, which ggp.org readers ignore (they read the keys they know):
``gameName``, ``roles``, and ``gameSource`` (a name in games_gdl or the path
of the .kif) or, for a game given as text, ``gdl`` (its rules); and
``faults``, every fault of the match with its reason, START and STOP
included (``{"phase", "step", "role", "code", "reason"}``); and
``simulations``, per step and role, the simulations a search player in the
manager's process made for its move (null otherwise); ``reasoners``, per step
and role, the reasoner such a player made its move with (``"compiled"``, or
``"demand"`` while the compiled one was still building; null otherwise);
and ``abortReason``, why the manager aborted the match (ggp-base's
``isAborted`` then true, ``isCompleted`` false, the goals null), null when
the game ended.  As in ggp-base,
``errors`` has one entry per state, the codes of START's faults first, and
``stateTimes`` starts before START.

``MatchStore`` keeps records in SQLite; ``replay`` re-checks one with the
reasoner.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from gdl import to_kif
from ggp import RuleError, load_game
from ggp.game import games_dir
from matches import schema
from matches.board import render

# --- the ggp.org match JSON ---------------------------------------------------


def game_source(game) -> str:
    """What ``load_game`` needs to load ``game`` again: its name when it is
    one of games_gdl, the path of its .kif, or its rules as text."""
    path = Path(game.description.path)
    if not path.is_file():
        return to_kif(game.rules)
    if path.resolve().parent == games_dir().resolve():
        return game.name
    return str(path.resolve())


def to_ggp_json(record) -> dict:
    """The ggp.org match JSON of a MatchRecord (plus our keys, see above)."""
    roles = list(record.roles)
    source = record.game_source
    from_text = "(" in source
    return {
        "matchId": record.match_id,
        "randomToken": record.match_id,  # our match ids are random already
        "startTime": _ms(record.start_time),
        "gameMetaURL": None,  # our games are not on a ggp.org repository
        "isCompleted": bool(record.goals),
        "isAborted": bool(record.aborted),
        "states": [_state_text(facts) for facts in record.states],
        "moves": [[_spaced(move) for move in joint] for joint in record.moves],
        "stateTimes": [_ms(t) for t in record.state_times],
        "errors": [_start_errors(record)] + [list(step) for step in record.errors],
        "goalValues": [record.goals.get(r) for r in roles],
        "previewClock": -1,
        "startClock": _seconds(record.start_clock),
        "playClock": _seconds(record.play_clock),
        "playerNamesFromHost": [record.players.get(r) for r in roles],
        "isPlayerHuman": [False] * len(roles),
        "tournamentNameFromHost": None,
        "scrambled": False,
        "gameName": record.game,
        "roles": roles,
        "faults": list(record.faults),
        "simulations": [list(step) for step in record.simulations],
        "reasoners": [list(step) for step in record.reasoners],
        "abortReason": record.aborted or None,
        "gameSource": None if from_text else source,
        **({"gdl": source} if from_text else {}),
    }


def _start_errors(record) -> list:
    """The codes of START's faults in role order, the first entry of ``errors``."""
    codes = {f["role"]: f["code"] for f in record.faults if f["phase"] == "start"}
    return [codes.get(r, "") for r in record.roles]


def step_errors(data: dict) -> list:
    """Per step (move), the error codes of a record's ``errors``: ggp-base writes one
    entry per state, START's first; our records before 2026-11-23 one per step."""
    errors = data.get("errors") or []
    return errors[1:] if len(errors) == len(data["moves"]) + 1 else errors


def write_json(record, path) -> None:
    """Write a record (a MatchRecord or its JSON) to ``path``."""
    data = record if isinstance(record, dict) else to_ggp_json(record)
    Path(path).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def read_json(path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def _seconds(clock):
    """A clock as ggp-base writes it: whole seconds as an integer."""
    return int(clock) if float(clock).is_integer() else clock


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _tokens(text: str) -> list[str]:
    return re.findall(r"[()]|[^\s()]+", text)


def _spaced(term) -> str:
    """ggp-base's spelling of a term: ``( mark 1 1 )``."""
    return " ".join(_tokens(to_kif(term)))


def _state_text(facts) -> str:
    return " ".join(["(", *sorted(_spaced(f) for f in facts), ")"])


def state_facts_of(text: str) -> set[str]:
    """The facts of a state string, each spaced as ``_spaced`` spells it."""
    facts, current, depth = [], [], 0
    for token in _tokens(text)[1:-1]:
        current.append(token)
        depth += {"(": 1, ")": -1}.get(token, 0)
        if depth == 0:
            facts.append(" ".join(current))
            current = []
    return set(facts)


# --- the store ------------------------------------------------------------------

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    match_id   TEXT PRIMARY KEY,
    game       TEXT NOT NULL,
    roles      TEXT NOT NULL,        -- JSON list, role order
    players    TEXT NOT NULL,        -- JSON object role -> player name
    goals      TEXT NOT NULL,        -- JSON object role -> goal
    steps      INTEGER NOT NULL,
    faults     INTEGER NOT NULL,     -- faults of every phase (TO, CE, IL)
    start_time INTEGER,              -- ms since the epoch
    study      TEXT,
    key        TEXT,
    record     TEXT NOT NULL         -- the full ggp.org match JSON
);
CREATE UNIQUE INDEX IF NOT EXISTS matches_study_key ON matches (study, key);
CREATE INDEX IF NOT EXISTS matches_game ON matches (game);
"""
_COLUMNS = (
    "match_id",
    "game",
    "roles",
    "players",
    "goals",
    "steps",
    "faults",
    "start_time",
    "study",
    "key",
)


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/ggp/matches.sqlite`` (``~/.local/share`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "ggp" / "matches.sqlite"


class MatchStore:
    """Match records in a SQLite database (created on demand, parents too).

    One writer process with any number of concurrent readers (WAL journal).
    Every ``add`` is committed at once, so a killed writer loses nothing it
    had finished.  ``study`` and ``key`` name a match of a study: adding the
    same pair again changes nothing, and ``keys(study)`` says what to skip
    when the study resumes.
    """

    def __init__(self, path=None):
        self.path = Path(path or default_db_path())
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)

    def add(self, record, study: str | None = None, key: str | None = None) -> bool:
        """Store a MatchRecord or its JSON; False when it was there already."""
        data = record if isinstance(record, dict) else to_ggp_json(record)
        roles = data["roles"]
        players = dict(zip(roles, data["playerNamesFromHost"]))
        goals = {r: g for r, g in zip(roles, data["goalValues"]) if g is not None}
        faults = (
            len(data["faults"])
            if "faults" in data
            else sum(1 for step in data["errors"] for e in step if e)
        )
        cursor = self._db.execute(
            f"INSERT OR IGNORE INTO matches ({', '.join(_COLUMNS)}, record) "
            f"VALUES ({', '.join('?' * (len(_COLUMNS) + 1))})",
            (
                data["matchId"],
                data["gameName"],
                json.dumps(roles),
                json.dumps(players),
                json.dumps(goals),
                len(data["moves"]),
                faults,
                data["startTime"],
                study,
                key,
                json.dumps(data),
            ),
        )
        return cursor.rowcount == 1

    def get(self, match_id: str) -> dict | None:
        """The ggp.org JSON of a match, or None."""
        row = self._db.execute(
            "SELECT record FROM matches WHERE match_id = ?", (match_id,)
        ).fetchone()
        return row and json.loads(row["record"])

    def matches(self, study: str | None = None, game: str | None = None) -> list[dict]:
        """One summary a match (the columns but the record), oldest first."""
        where, args = self._where(study=study, game=game)
        rows = self._db.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM matches{where} ORDER BY start_time, rowid", args
        )
        return [
            {**dict(row), **{c: json.loads(row[c]) for c in ("roles", "players", "goals")}}
            for row in rows
        ]

    def keys(self, study: str) -> set:
        """The keys of the matches of ``study`` already stored."""
        rows = self._db.execute(
            "SELECT key FROM matches WHERE study = ? AND key IS NOT NULL", (study,)
        )
        return {row["key"] for row in rows}

    def count(self, study: str | None = None) -> int:
        where, args = self._where(study=study)
        return self._db.execute(f"SELECT COUNT(*) FROM matches{where}", args).fetchone()[0]

    def close(self) -> None:
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @staticmethod
    def _where(**filters):
        given = {k: v for k, v in filters.items() if v is not None}
        where = " AND ".join(f"{k} = ?" for k in given)
        return (f" WHERE {where}" if where else ""), list(given.values())


# --- replay -------------------------------------------------------------------


@dataclass
class ReplayReport:
    """What ``replay`` found: ``problems`` (empty when the record holds up)
    and the match step by step as text lines."""

    problems: list = field(default_factory=list)
    lines: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


#: The fields of a match record that :func:`replay` reads, checked before use
#: (:mod:`matches.schema`); ``states`` and ``moves`` are required.
RECORD = {
    "states": ([str], "a list of states, each a string of facts"),
    "moves": ([[str]], "a list of steps, each a list of moves (strings) in role order"),
    "roles": ((None, [str]), "a list of role names"),
    "errors": ((None, [[str]]), "a list of steps, each a list of error codes (strings)"),
    "goalValues": ((None, [(None, float)]), "a list of goal values (numbers or null)"),
    "gdl": ((None, str), "the game's rules as text"),
    "gameSource": ((None, str), "a game's name or the path of its file"),
}


def check_record(data) -> dict:
    """``data`` when it has the shape of :data:`RECORD`, else ValueError on
    one line naming the field."""
    try:
        return schema.check(
            data, RECORD, required=("states", "moves"), what="it must be a JSON object"
        )
    except ValueError as exc:
        raise ValueError(f"not a match record: {exc}") from None


def replay(data: dict, game=None) -> ReplayReport:
    """Re-check a ggp.org match JSON with the reasoner.

    The game is ``game`` (a Game) or else the record's ``gdl`` or
    ``gameSource``.  From the initial state, every recorded move must be legal
    for its role in its state (a faulty player's entry in ``errors`` does not
    excuse it: the record holds the move executed in its place), every
    recorded state must hold exactly the facts the rules give, the last state
    must be terminal, and ``goalValues`` must be the rules' goals.  Facts and
    moves compare case-insensitively, as GDL symbols do.  A record of another
    shape raises ValueError (:func:`check_record`).
    """
    check_record(data)
    if game is None:
        source = data.get("gdl") or data.get("gameSource")
        if not source:
            raise ValueError("the record names no game (no gameSource or gdl): give one")
        game = load_game(source)
    sm = game.state_machine()
    roles = list(sm.roles)
    report = ReplayReport()
    recorded = data.get("roles")
    if recorded is not None and [r.lower() for r in recorded] != [r.lower() for r in roles]:
        report.problems.append(f"roles {data['roles']} are not the game's {roles}")
        return report
    states, moves = data["states"], data["moves"]
    errors = step_errors(data)
    if len(states) != len(moves) + 1:
        report.problems.append(
            f"{len(states)} states for {len(moves)} steps (one more state than steps expected)"
        )
    state = sm.initial_state()
    _describe(report, "start", sm.state_facts(state), game, sm)
    if states:
        _compare(report, 0, sm.state_facts(state), states[0])
    for step, texts in enumerate(moves, 1):
        faults = errors[step - 1] if step <= len(errors) else ()
        joint = tuple(game.parse_move(t) for t in texts)
        if len(joint) != len(roles):
            report.problems.append(f"step {step}: {len(joint)} moves for {len(roles)} roles")
            return report
        illegal = [
            f"{role} {to_kif(move)}"
            for role, move in zip(roles, joint)
            if move not in sm.legal_moves(state, role)
        ]
        if illegal:
            report.problems.append(f"step {step}: illegal move(s): {', '.join(illegal)}")
            return report
        state = sm.next_state(state, joint)
        facts = sm.state_facts(state)
        played = ", ".join(f"{r} {to_kif(m)}" for r, m in zip(roles, joint))
        faulty = "; ".join(f"{r}: {e}" for r, e in zip(roles, faults) if e)
        _describe(
            report, f"step {step}: {played}" + (f"   [{faulty}]" if faulty else ""), facts, game, sm
        )
        if step < len(states):
            _compare(report, step, facts, states[step])
    aborted = data.get("isAborted") is True
    said = f"aborted: {data.get('abortReason') or 'no reason given'}"
    if not sm.is_terminal(state):
        if aborted:
            report.lines.append(said)
        else:
            report.problems.append(f"step {len(moves)}: the last state is not terminal")
        return report
    if aborted:  # ended by the rules' own fault: they must give no goals
        try:
            goals = [sm.goal(state, role) for role in roles]
        except RuleError:
            report.lines.append(said)
        else:
            report.problems.append(f"aborted in a terminal state whose goals are {goals}")
        return report
    goals = data.get("goalValues") or []
    if len(goals) != len(roles):
        report.problems.append(f"{len(goals)} goalValues for {len(roles)} roles")
    for role, recorded in zip(roles, goals):
        if role != "random" and recorded != sm.goal(state, role):
            report.problems.append(
                f"goal of {role}: recorded {recorded}, the rules give {sm.goal(state, role)}"
            )
    return report


def _describe(report, header, facts, game, sm):
    report.lines.append(header)
    board = render(facts, game, sm)
    if board:
        report.lines.append(board)


def _compare(report, step, facts, recorded: str):
    """A problem when the recorded state is not the state the rules give."""
    expected = {_spaced(f).lower() for f in facts}
    found = {f.lower() for f in state_facts_of(recorded)}
    if expected != found:
        missing, extra = sorted(expected - found), sorted(found - expected)
        report.problems.append(
            f"step {step}: state differs from the rules'"
            + (f"; missing {', '.join(missing[:3])}" if missing else "")
            + (f"; extra {', '.join(extra[:3])}" if extra else "")
        )
