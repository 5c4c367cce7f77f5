"""The corpus harness: every public game validated, built, timed and played.

    python benchmarks/coverage.py [FOLDER or FILE ...] [--jobs N] [--no-match]
        [--csv benchmarks/results/coverage.csv] [--md docs/coverage.md]
    python benchmarks/coverage.py --compare A.csv B.csv

A folder is a name under ../shared/games (``gdl1``, ``gdl2``, ``corpus``: all
three when none is given) or a path; a file is a ``.kif`` path or a game as
the table names it (``corpus/blocks``).  Each game is checked in a process of
its own (its memory and its crashes are its own), in stages: ``load`` (parse
and validate), ``build`` (the compiled reasoner, or the demand-driven one it
falls back to, and why), ``check`` (random playouts as ``ggp check`` plays
them: a number of them within a number of steps, no time limit), ``bench``
(:func:`ggp.tools.bench.bench`, state changes a second) and ``match`` (``uct``
against ``mast`` on the clocks; skipped by ``--no-match``).  The row's
``status`` is one of :data:`STATUSES`.  ``--timeout`` only decides when the
harness stops waiting for a game: such a game is reported as ``timeout``, with
the stage it was in and what the stages before it found.

The CSV gets one row per game as it finishes; run again with the same
``--csv``, the harness skips the games already in it (a killed run resumes),
and at the end rewrites it in order of the games.  ``--md`` writes the summary
(counts, the games not compiled and why, the rejected ones with their rule and
place, the faults) between the file's ``<!-- coverage: begin/end -->`` marks,
or as the whole file when it has none.  ``--compare`` tells whether two runs
gave every game the same reasoner and the same network (exit 1 if not).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import resource
import signal
import subprocess
import sys
import threading
import time
import zlib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from tqdm import tqdm

from ggp.progress import Progress
from ggp.reasoners import COMPILED
from ggp.shared import shared_games_folder

SHARED = shared_games_folder()
FOLDERS = ("gdl1", "gdl2", "corpus")

#: What a row's ``status`` says about its game.
STATUSES = {
    "compiled": "built on the compiled reasoner (a propositional network), checked and played",
    "demand": "past the grounding limits: built on the demand-driven reasoner (``why`` says "
    "which limit), checked and played",
    "rejected": "faulty: the GDL rule it breaks (``rule``) and where (``where``), found when "
    "loading (static validation) or in play (a random playout or the match)",
    "crashed": "stopped on an error that is not a rule of the game: an exception of the "
    "reasoner or a player (``message``, with the innermost place in the code; "
    "MemoryError past --memory), or the process died",
    "timeout": "not done within --timeout seconds; ``stage`` is where it was",
}

#: The CSV's columns, in order.
FIELDS = (
    "game",
    "status",
    "stage",
    "rule",
    "where",
    "message",
    "gdl",
    "roles",
    "reasoner",
    "why",
    "build_seconds",
    "build_effort",
    "ground_rules",
    "base",
    "inputs",
    "nodes",
    "edges",
    "build_rss_mb",
    "playouts",
    "check_steps",
    "mean_depth",
    "max_depth",
    "sweep_steps",
    "states_per_sec",
    "bench_fault",
    "clocks",
    "seed",
    "players",
    "steps",
    "goals",
    "faults",
    "step_errors",
    "fault_text",
    "match_seconds",
    "peak_rss_mb",
    "seconds",
    "code",
)
#: What must be the same in two runs of the same game (``--compare``): the
#: limits of grounding count work, never time, so load must not change them.
SAME = ("reasoner", "why", "build_effort", "ground_rules", "base", "inputs", "nodes", "edges")
#: The players of a match, by role in the order of the rules (GDL-II's
#: ``random`` role is the manager's): ``uct`` alone in a puzzle, ``uct``
#: against ``mast``, and ``random`` for every role past the second.
SEATS = ("uct", "mast")
MARK = "coverage-row "  # prefixes the child's lines of JSON on stdout


# --- one game, in a process of its own ---------------------------------------


def game_id(path: Path) -> str:
    """A game's name in the table: ``folder/stem`` under ../shared/games, else
    its path without ``.kif`` (relative to here when it can be)."""
    path = path.resolve()
    for root in (SHARED.resolve(), Path.cwd()):
        if path.is_relative_to(root):
            return str(path.relative_to(root).with_suffix(""))
    return str(path.with_suffix(""))


def game_seed(path: Path) -> int:
    """The seed of a game's playouts and match: the same in every run and for
    every copy of the file."""
    return zlib.crc32(path.stem.encode()) & 0x7FFFFFF


def seat_specs(roles, seed: int) -> dict:
    """role -> player spec for the roles that play (every one but ``random``)."""
    playing = [r for r in roles if r != "random"]
    return {
        role: f"{SEATS[i] if i < len(SEATS) else 'random'}:seed={seed + i}"
        for i, role in enumerate(playing)
    }


def check_game(path: Path, settings: dict, emit) -> None:
    """Check one game, stage by stage (load, build, check, bench, match),
    calling ``emit(fields)`` as each starts (``{"stage": name}``) and ends
    (what it found), so that a game stopped midway still reports the stages
    it finished.

    ``settings``: ``playouts``, ``check_steps`` and ``sweep_steps`` (of the
    check), ``seconds``
    (of the bench), ``match`` (play one or not), ``start_clock`` and
    ``play_clock``.
    """
    import warnings

    import gdl
    import players
    from ggp import RuleError, load_game
    from ggp.tools.bench import bench
    from matches.manager import run_match

    def place(pos) -> str:
        return (
            f"{game_id(Path(pos.path))}{Path(pos.path).suffix}:{pos.line}:{pos.column}"
            if pos.line
            else str(pos)
        )

    def rejected(diagnostic):
        emit(
            {
                "status": "rejected",
                "rule": diagnostic.kind,
                "where": place(diagnostic.pos),
                "message": diagnostic.message,
                "peak_rss_mb": rss(),
            }
        )

    def rss() -> float:
        """Peak resident memory in MB, of this process or of a process it
        started (a build may ground in one)."""
        return round(
            max(
                resource.getrusage(who).ru_maxrss
                for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
            )
            / 1024,
            1,
        )

    seed = game_seed(path)
    emit({"stage": "load"})
    try:
        game = load_game(path)
    except gdl.GdlError as exc:
        rejected(next((d for d in exc.diagnostics if d.severity == "error"), exc.first))
        return
    emit({"gdl": "II" if game.is_gdl2 else "I", "roles": " ".join(game.roles), "seed": seed})

    emit({"stage": "build"})
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sm = game.state_machine(COMPILED)
    built = {
        "reasoner": sm.name,
        "build_seconds": round(time.perf_counter() - start, 3),
        "why": " ".join(str(w.message) for w in caught),
        "build_rss_mb": rss(),
    }
    program = getattr(sm, "ground_program", None)
    if program is not None:
        built.update(
            build_effort=getattr(sm, "build_effort", None),
            ground_rules=len(program.rule_head),
            base=len(program.base),
            inputs=len(program.inputs),
            nodes=sm.network.n,
            edges=sm.network_edges,
        )
    emit(built)

    emit({"stage": "check"})
    error = check(sm, settings["playouts"], settings["check_steps"], seed, emit)
    if error is None and sm.name == COMPILED:
        swept, error = sweep(sm, settings["sweep_steps"], seed)
        emit({"sweep_steps": swept})
    if error is not None:
        rejected(game.diagnostic(error))
        return

    emit({"stage": "bench"})
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        try:
            speed = bench(game, COMPILED, seconds=settings["seconds"], seed=seed)
            emit({"states_per_sec": speed["states_per_sec"], "bench_fault": speed["fault"]})
        except RuleError as exc:
            emit({"bench_fault": str(exc)})

    if settings["match"]:
        emit({"stage": "match"})
        specs = seat_specs(game.roles, seed)
        clocks = (settings["start_clock"], settings["play_clock"])
        emit(
            {
                "clocks": "{:g}/{:g}".format(*clocks),
                "players": " ".join(f"{r}={s}" for r, s in specs.items()),
            }
        )
        start = time.perf_counter()
        try:
            record = run_match(
                game,
                {r: players.make(s) for r, s in specs.items()},
                seed=seed,
                start_clock=clocks[0],
                play_clock=clocks[1],
                specs=specs,
            )
        except RuleError as exc:
            rejected(game.diagnostic(exc))
            return
        emit(
            {
                "steps": len(record.moves),
                "goals": " ".join(f"{r}={g}" for r, g in record.goals.items()),
                "faults": len(record.faults),
                "step_errors": sum(1 for step in record.errors for code in step if code),
                "fault_text": "; ".join(
                    f"{f['phase']}{'' if f['step'] is None else ' ' + str(f['step'])} "
                    f"{f['role']} {f['code']}: {f['reason']}"
                    for f in record.faults
                ),
                "match_seconds": round(time.perf_counter() - start, 1),
            }
        )
    emit({"stage": "done", "status": sm.name, "peak_rss_mb": rss()})


def check(sm, playouts: int, steps: int, seed: int, emit):
    """The random playouts of ``ggp check`` (:func:`ggp.tools.check.check_playouts`),
    one at a time from seeds ``seed``, ``seed + 1``, ...: ``playouts`` of them,
    but none begun once ``steps`` steps have been played (work, not time: a
    game on the demand-driven reasoner may take seconds a step).  Emits the
    playouts, steps and depths; returns the first RuleError met, or None."""
    from ggp.tools.check import check_playouts

    depths, played = [], 0
    for i in range(playouts):
        if played >= steps:
            break
        report = check_playouts(sm, 1, seed=seed + i)
        played += report["steps"]
        if report["error"] is not None:
            return report["error"]
        depths.append(report["max_depth"])
        emit(
            {
                "playouts": len(depths),
                "check_steps": played,
                "mean_depth": round(sum(depths) / len(depths), 1),
                "max_depth": max(depths),
            }
        )
    return None


def sweep(sm, steps: int, seed: int) -> tuple:
    """Random playouts of the compiled reasoner with their goals, 64 at a
    time (in its lanes) from seeds ``seed``, ``seed + 1``, ...: none begun
    once ``steps`` steps are played, work and not time, so that the verdict
    is the same on any machine.  The check's playouts are few; a goal missing
    in a rare terminal state shows only in thousands (corpus/asteroidsParallel:
    none in the check's 2,000, found within the first 1,000 of these).
    Returns (steps played, the first RuleError met or None)."""
    from ggp import RuleError

    root, played, batch = sm.initial_state(), 0, 0
    while played < steps:
        try:
            played += sm.playouts(root, 64, seed + batch, goals=True)[0]
        except RuleError as exc:
            return played, exc
        batch += 1
    return played, None


def _child(spec: str) -> int:
    """The process of one game: its stages' findings on stdout, one line of
    JSON each; an exception that is not the game's fault ends the row as
    ``crashed`` with the innermost place of our code it came from."""
    import traceback

    def emit(fields):
        print(MARK + json.dumps(fields), flush=True)

    settings = json.loads(spec)
    limit = settings["memory_mb"] * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        check_game(Path(settings["path"]), settings, emit)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 -- the row says what it was
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        emit(
            {
                "status": "crashed",
                "message": f"{type(exc).__name__}: {exc} (at {frame.filename}:{frame.lineno})",
            }
        )
    return 0


class Runner:
    """Runs games in child processes and keeps track of them, so that an
    interrupted harness ends the children it started and records nothing
    they leave half done.  Each child leads a process group of its own,
    ended whole: a process it started (a build grounding elsewhere) goes
    with it."""

    def __init__(self, settings: dict, timeout: float):
        self.settings, self.timeout = settings, timeout
        self.live: set = set()
        self.lock = threading.Lock()
        self.stopping = threading.Event()

    def run(self, path: Path) -> dict | None:
        """The row of one game (None when the harness is being stopped)."""
        spec = json.dumps({**self.settings, "path": str(path)})
        command = [sys.executable, "-X", "faulthandler", __file__, "--child", spec]
        start = time.perf_counter()
        with subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        ) as child:
            with self.lock:
                if self.stopping.is_set():
                    _end(child)
                self.live.add(child)
            try:
                out, err = child.communicate(timeout=self.timeout)
                timed_out = False
            except subprocess.TimeoutExpired:
                _end(child)
                out, err = child.communicate()
                timed_out = True
            finally:
                with self.lock:
                    self.live.discard(child)
        if self.stopping.is_set():
            return None
        row = {"game": game_id(path)}
        for line in out.splitlines():
            if line.startswith(MARK):
                row.update(json.loads(line[len(MARK) :]))
        if timed_out:
            row.update(
                status="timeout",
                message=f"not done within {self.timeout:g} s (in stage {row.get('stage')})",
            )
        elif "status" not in row:
            row.update(status="crashed", message=_death(child.returncode, err))
        row["seconds"] = round(time.perf_counter() - start, 1)
        return row

    def stop(self):
        """End every child still running; rows not yet written are dropped."""
        with self.lock:
            self.stopping.set()
            for child in self.live:
                _end(child)


def _end(child) -> None:
    """Kill a child's whole process group (unless the child was reaped: its
    number may be another's by now)."""
    if child.returncode is not None:
        return
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except ProcessLookupError:  # already gone
        pass


def _death(code: int, err: str) -> str:
    """Why a child ended without a row: its exit status and last words."""
    how = (
        f"killed by {signal.Signals(-code).name}"
        if code < 0 and -code in signal.valid_signals()
        else f"exit status {code}"
    )
    last = [line.strip() for line in err.splitlines() if line.strip()]
    return f"the process ended ({how})" + (f": {last[-1]}" if last else "")


# --- the table ---------------------------------------------------------------


def read_rows(path: Path) -> list[dict]:
    """The rows of a coverage CSV, a column it lacks (written by an earlier
    version) left empty; SystemExit with one line if it is not one."""
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            if "game" not in (reader.fieldnames or ()) or not set(reader.fieldnames) <= set(FIELDS):
                raise SystemExit(
                    f"coverage: {path}: not a coverage table (other columns); give another --csv"
                )
            return [{k: row.get(k) or "" for k in FIELDS} for row in reader]
    except OSError as exc:
        raise SystemExit(f"coverage: {path}: cannot read it: {exc.strerror}") from None


def write_rows(path: Path, rows) -> None:
    """The whole table, in order of the games (through a file beside it, so
    that an interruption leaves the old one)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        writer.writeheader()
        writer.writerows(sorted(rows, key=lambda r: r["game"]))
    os.replace(tmp, path)


def _int(value) -> int:
    return int(value) if value not in (None, "") else 0


def summary(rows: list[dict], note: str = "") -> str:
    """The Markdown summary of a table: counts by folder and status, the games
    not compiled and why, those rejected with rule and place, the faults, and
    the games that timed out or crashed."""

    def folder(row):
        return row["game"].split("/")[0] if "/" in row["game"] else "."

    present = {folder(r) for r in rows}
    folders = [f for f in FOLDERS if f in present] + sorted(present - set(FOLDERS))
    statuses = list(STATUSES)
    lines = [note, ""] if note else []
    lines += [
        "| folder | games | " + " | ".join(statuses) + " |",
        "|---|" + "---:|" * (len(statuses) + 1),
    ]
    for f in folders + ["all"]:
        of = [r for r in rows if f == "all" or folder(r) == f]
        cells = [str(sum(1 for r in of if r["status"] == s)) for s in statuses]
        lines.append(
            f"| {'**all**' if f == 'all' else f} | {len(of)} | " + " | ".join(cells) + " |"
        )
    built = Counter(r["reasoner"] for r in rows if r["reasoner"])
    lines += [
        "",
        f"Built: {built['compiled']} on the compiled reasoner, {built['demand']} on the "
        f"demand-driven one (games rejected in play included).",
    ]
    played = [r for r in rows if r["match_seconds"]]
    faulty = [r for r in rows if _int(r["faults"]) or r["bench_fault"]]
    lines += [
        "",
        f"Matches played to the end: {len(played)}, "
        f"with faults: {sum(1 for r in played if _int(r['faults']))}.",
    ]

    def table(title, header, picked):
        nonlocal lines
        lines += ["", f"### {title} ({len(picked)})", ""]
        if not picked:
            lines.append("None.")
        else:
            lines += ["| " + " | ".join(h for h, _ in header) + " |", "|" + "---|" * len(header)]
            lines += [
                "| " + " | ".join(str(get(r)).replace("|", "\\|") for _, get in header) + " |"
                for r in picked
            ]

    table(
        "Not compiled: on the demand-driven reasoner, and why",
        [("game", lambda r: r["game"]), ("why", lambda r: r["why"])],
        [r for r in rows if r["reasoner"] == "demand"],
    )
    table(
        "Rejected: the rule broken and where",
        [
            ("game", lambda r: r["game"]),
            ("found in", lambda r: r["stage"]),
            ("rule", lambda r: r["rule"]),
            ("where", lambda r: r["where"]),
            ("message", lambda r: r["message"]),
        ],
        [r for r in rows if r["status"] == "rejected"],
    )
    table(
        "Faults in play",
        [
            ("game", lambda r: r["game"]),
            ("faults", lambda r: r["faults"]),
            (
                "what",
                lambda r: "; ".join(
                    x
                    for x in (r["bench_fault"] and f"bench: {r['bench_fault']}", r["fault_text"])
                    if x
                ),
            ),
        ],
        faulty,
    )
    table(
        "Timed out or crashed",
        [
            ("game", lambda r: r["game"]),
            ("status", lambda r: r["status"]),
            ("stage", lambda r: r["stage"]),
            ("message", lambda r: r["message"]),
        ],
        [r for r in rows if r["status"] in ("timeout", "crashed")],
    )
    return "\n".join(lines) + "\n"


BEGIN, END = "<!-- coverage: begin -->", "<!-- coverage: end -->"


def write_summary(path: Path, text: str) -> None:
    """``text`` between the file's marks, each on a line of its own (the
    prose around them kept, where the marks may be named), or as the whole
    file when it has no such marks."""
    old = path.read_text() if path.exists() else ""
    marks = re.search(f"^{re.escape(BEGIN)}\n(.*?)^{re.escape(END)}$", old, re.M | re.S)
    if marks:
        text = f"{old[: marks.start(1)]}{text}{old[marks.end(1) :]}"
    path.write_text(text)


def compare(a: Path, b: Path) -> int:
    """Print every game whose reasoner or network differs between two tables
    (or that only one has); 0 when there is none, else 1."""
    rows_a = {r["game"]: r for r in read_rows(a)}
    rows_b = {r["game"]: r for r in read_rows(b)}
    differences = 0
    for name in sorted(rows_a.keys() | rows_b.keys()):
        if name not in rows_a or name not in rows_b:
            print(f"{name}: only in {a if name in rows_a else b}")
            differences += 1
            continue
        changed = [
            f"{k} {rows_a[name][k] or '-'} != {rows_b[name][k] or '-'}"
            for k in SAME
            if rows_a[name][k] != rows_b[name][k]
        ]
        if changed:
            print(f"{name}: " + "; ".join(changed))
            differences += 1
    print(
        f"{len(rows_a.keys() | rows_b.keys())} games, {differences} with differences "
        f"(compared: {', '.join(SAME)})"
    )
    return 1 if differences else 0


# --- the command -------------------------------------------------------------


def games_of(arguments) -> list[Path]:
    """The .kif files the arguments name: folders and files, each a path or a
    name under ../shared/games (a game as the table names it, ``corpus/blocks``,
    will do); SystemExit with one line for anything else."""
    paths = []
    for arg in arguments:
        found = next(
            (p for p in (Path(arg), SHARED / arg, SHARED / f"{arg}.kif") if p.exists()), None
        )
        if found is None:
            raise SystemExit(f"coverage: {arg}: no such folder or file (here or under {SHARED})")
        paths += sorted(found.glob("*.kif")) if found.is_dir() else [found]
    return paths


def _positive(kind):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or value <= 0:
            raise argparse.ArgumentTypeError(f"expected a {kind.__name__} > 0, got {text!r}")
        return value

    return parse


def _line(row: dict, done: int, total: int) -> str:
    """One game's progress line."""
    parts = [f"[{done}/{total}] {row['game']}: {row['status']}"]
    if row.get("status") in ("rejected", "crashed", "timeout"):
        parts.append(
            " ".join(x for x in (row.get("rule"), row.get("where"), row.get("message")) if x)
        )
    if row.get("reasoner"):
        parts.append(
            f"built in {row['build_seconds']} s"
            + (f", {row['nodes']:,} nodes" if row.get("nodes") else "")
        )
    if row.get("states_per_sec") is not None:
        parts.append(f"{row['states_per_sec']:,} states/s")
    if row.get("match_seconds"):
        parts.append(
            f"match {row['steps']} steps, {row['faults']} faults, {row['match_seconds']} s"
        )
    return "; ".join(parts) + f" ({row['seconds']} s)"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "games",
        nargs="*",
        metavar="FOLDER_OR_FILE",
        help=f"folders under ../shared/games or paths, or .kif files "
        f"(default: {' '.join(FOLDERS)})",
    )
    parser.add_argument(
        "--jobs", type=_positive(int), default=1, help="games checked at once (default 1)"
    )
    parser.add_argument(
        "--no-match", action="store_true", help="build, check and bench only: no match"
    )
    parser.add_argument(
        "--csv",
        type=Path,
        help="the whole table, one row per game as it finishes; games already in it are skipped",
    )
    parser.add_argument(
        "--md",
        type=Path,
        help=f"the summary, between the file's {BEGIN} and {END} marks or as the whole file",
    )
    parser.add_argument(
        "--compare",
        nargs=2,
        type=Path,
        metavar=("A", "B"),
        help="which games differ in reasoner or network between two tables",
    )
    parser.add_argument(
        "--seconds",
        type=_positive(float),
        default=2.0,
        help="seconds of random playouts timed per game (default 2)",
    )
    parser.add_argument(
        "--playouts",
        type=_positive(int),
        default=20,
        help="random playouts checking each game's rules in play (default 20)",
    )
    parser.add_argument(
        "--check-steps",
        type=_positive(int),
        default=2000,
        help="no further playout of the check once it has played this many steps (default 2000)",
    )
    parser.add_argument(
        "--sweep-steps",
        type=_positive(int),
        default=100_000,
        help="steps of the compiled reasoner's goal sweep after the check: "
        "random playouts 64 at a time (default 100,000)",
    )
    parser.add_argument(
        "--start-clock",
        type=_positive(float),
        default=5.0,
        help="the match's start clock, seconds (default 5)",
    )
    parser.add_argument(
        "--play-clock",
        type=_positive(float),
        default=1.0,
        help="the match's play clock, seconds (default 1)",
    )
    parser.add_argument(
        "--timeout",
        type=_positive(float),
        default=1800.0,
        help="seconds to wait for one game before reporting it as timeout (default 1800)",
    )
    parser.add_argument(
        "--memory",
        type=_positive(int),
        default=6000,
        metavar="MB",
        help="address space one game's process may take; past it the game "
        "is crashed (MemoryError), not the machine (default 6000)",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return _child(args.child)
    if args.compare:
        return compare(*args.compare)

    paths = games_of(args.games or FOLDERS)
    rows = read_rows(args.csv) if args.csv and args.csv.exists() else []
    done = {r["game"] for r in rows}
    todo = [p for p in paths if game_id(p) not in done]
    if len(todo) < len(paths):
        print(
            f"{len(paths) - len(todo)} of {len(paths)} games already in {args.csv}; "
            f"checking the other {len(todo)}"
        )
    settings = {
        "match": not args.no_match,
        "seconds": args.seconds,
        "memory_mb": args.memory,
        "playouts": args.playouts,
        "check_steps": args.check_steps,
        "sweep_steps": args.sweep_steps,
        "start_clock": args.start_clock,
        "play_clock": args.play_clock,
    }
    runner = Runner(settings, args.timeout)
    out = None
    if args.csv:
        write_rows(args.csv, rows)  # with this version's columns, then row by row
        out = open(args.csv, "a", newline="")
    writer = csv.DictWriter(out, FIELDS) if out else None
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    start = time.perf_counter()
    pool = ThreadPoolExecutor(args.jobs)
    try:
        futures = [pool.submit(runner.run, p) for p in todo]
        code = _code()
        with Progress("coverage", "game", total=len(todo)) as progress:
            progress(0)
            for n, future in enumerate(as_completed(futures), 1):
                row = {k: v for k, v in future.result().items() if k in FIELDS}
                row["code"] = code
                rows.append({k: "" if row.get(k) is None else str(row[k]) for k in FIELDS})
                if writer:
                    writer.writerow(rows[-1])
                    out.flush()
                tqdm.write(_line(row, n, len(todo)), file=sys.stdout)
                progress(n)
    except KeyboardInterrupt:
        runner.stop()
        pool.shutdown(cancel_futures=True)
        print(
            f"coverage: interrupted after {len(rows) - len(done)} of {len(todo)} games"
            + (f"; run again with --csv {args.csv} to go on" if args.csv else ""),
            file=sys.stderr,
        )
        return 130
    finally:
        if out:
            out.close()
    pool.shutdown()
    print(f"{len(todo)} games in {time.perf_counter() - start:.0f} s")
    if args.csv:
        write_rows(args.csv, rows)
    if args.md:
        write_summary(args.md, summary(rows, note=_note(rows)))
    return 0


def _code() -> str:
    """The commit of the code checked (of this file's repository, ``+`` when it
    has uncommitted changes), or ``?``: the rows say what they measured."""
    try:
        done = subprocess.run(
            ["git", "describe", "--always", "--dirty=+"],
            cwd=Path(__file__).parent,
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    return done.stdout.strip() if done.returncode == 0 else "?"


def _note(rows) -> str:
    """The summary's first line: how many games, when, of which code, with
    matches or not."""
    clocks = sorted({r["clocks"] for r in rows if r["clocks"]})
    codes = sorted({r["code"] or "?" for r in rows})
    return f"{len(rows)} games, {time.strftime('%Y-%m-%d')}, code {', '.join(codes)}; matches " + (
        f"at start/play clocks of {', '.join(clocks)} s." if clocks else "not played."
    )


if __name__ == "__main__":
    sys.exit(main())
