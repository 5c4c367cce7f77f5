"""The corpus harness: every public game validated, built, timed and played.

    python -m benchmarks coverage [FOLDER or FILE ...] [--workers N] [--no-match]
        [--md docs/coverage.md]
    python -m benchmarks coverage --compare A B

A folder is a name under ../shared/games (``gdl1``, ``gdl2``, ``corpus``: all
three when none is given) or a path; a file is a ``.kif`` path or a game as
the table names it (``corpus/blocks``).  Each game is checked in a process of
its own (its memory and its crashes are its own), in stages: ``load`` (parse
and validate), ``build`` (the compiled reasoner, or the demand-driven one it
falls back to, and why), ``check`` (random playouts as ``ggp check`` plays
them: a number of them within a number of steps, no time limit), ``bench``
(:func:`ggp.tools.bench.bench`, state changes a second) and ``match`` (``uct``
against ``mast`` on the clocks; skipped by ``--no-match``).  The row's
``status`` is one of :data:`STATUSES`; every value of a row is text (empty
when its stage was not reached), its columns :data:`FIELDS`.  ``--timeout``
only decides when the harness stops waiting for a game: such a game is
reported as ``timeout``, with the stage it was in and what the stages before
it found.

A game is a job: run again with the same folder, the harness skips the games
already in it (a killed run resumes).  ``--md`` writes the summary (counts,
the games not compiled and why, the rejected ones with their rule and place,
the faults) between the file's ``<!-- coverage: begin/end -->`` marks, or as
the whole file when it has none.  ``--compare`` tells whether two results
folders gave every game the same reasoner and the same network (exit 1 if
not).
"""

from __future__ import annotations

import json
import re
import resource
import signal
import sys
import time
import zlib
from collections import Counter
from pathlib import Path

from benchmarks.harness import Children, Results, Suite, code_version, positive, read_rows
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
    """Runs games in child processes (:class:`benchmarks.harness.Children`)."""

    def __init__(self, settings: dict, timeout: float):
        self.settings, self.timeout = settings, timeout
        self.children = Children()

    def run(self, path: Path) -> dict | None:
        """The row of one game (None when the harness is being stopped)."""
        spec = json.dumps({**self.settings, "path": str(path)})
        start = time.perf_counter()
        done = self.children.run(
            [sys.executable, "-X", "faulthandler", "-m", __name__, spec], self.timeout
        )
        if done is None:
            return None
        status, out, err = done
        row: dict = {"game": game_id(path)}
        for line in out.splitlines():
            if line.startswith(MARK):
                row.update(json.loads(line[len(MARK) :]))
        if status is None:
            row.update(
                status="timeout",
                message=f"not done within {self.timeout:g} s (in stage {row.get('stage')})",
            )
        elif "status" not in row:
            row.update(status="crashed", message=_death(status, err))
        row["seconds"] = round(time.perf_counter() - start, 1)
        return row


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


def coverage_rows(folder: Path) -> list[dict]:
    """The rows of a results folder of this suite; SystemExit with one line
    when it holds another suite's."""
    rows = Results(folder).rows()
    if any("game" not in row or not set(row) <= set(FIELDS) for row in rows):
        raise SystemExit(
            f"coverage: {folder}: not a coverage folder (other columns); give another --out"
        )
    return rows


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
    """Print every game whose reasoner or network differs between two results
    folders (or that only one has); 0 when there is none, else 1."""
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


def _line(row: dict) -> str:
    """One game's progress line."""
    parts = [f"{row['game']}: {row['status']}"]
    if row["status"] in ("rejected", "crashed", "timeout"):
        parts.append(" ".join(x for x in (row["rule"], row["where"], row["message"]) if x))
    if row["reasoner"]:
        parts.append(
            f"built in {row['build_seconds']} s"
            + (f", {int(row['nodes']):,} nodes" if row["nodes"] else "")
        )
    if row["states_per_sec"]:
        parts.append(f"{float(row['states_per_sec']):,.0f} states/s")
    if row["match_seconds"]:
        parts.append(
            f"match {row['steps']} steps, {row['faults']} faults, {row['match_seconds']} s"
        )
    return "; ".join(parts) + f" ({row['seconds']} s)"


class Coverage(Suite):
    about = "every public game validated, built, timed and played"
    duration = "2 hours"
    workers = True

    def __init__(self):
        self.paths: dict = {}
        self.runner: Runner | None = None
        self.code = "?"

    def options(self, parser):
        parser.add_argument(
            "games",
            nargs="*",
            metavar="FOLDER_OR_FILE",
            help=f"folders under ../shared/games or paths, or .kif files "
            f"(default: {' '.join(FOLDERS)})",
        )
        parser.add_argument(
            "--no-match", action="store_true", help="build, check and bench only: no match"
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
            help="which games differ in reasoner or network between two results folders",
        )
        parser.add_argument(
            "--seconds",
            type=positive(float),
            default=2.0,
            help="seconds of random playouts timed per game (default 2)",
        )
        parser.add_argument(
            "--playouts",
            type=positive(int),
            default=20,
            help="random playouts checking each game's rules in play (default 20)",
        )
        parser.add_argument(
            "--check-steps",
            type=positive(int),
            default=2000,
            help="no further playout of the check once it has played this many steps "
            "(default 2000)",
        )
        parser.add_argument(
            "--sweep-steps",
            type=positive(int),
            default=100_000,
            help="steps of the compiled reasoner's goal sweep after the check: "
            "random playouts 64 at a time (default 100,000)",
        )
        parser.add_argument(
            "--start-clock",
            type=positive(float),
            default=5.0,
            help="the match's start clock, seconds (default 5)",
        )
        parser.add_argument(
            "--play-clock",
            type=positive(float),
            default=1.0,
            help="the match's play clock, seconds (default 1)",
        )
        parser.add_argument(
            "--timeout",
            type=positive(float),
            default=1800.0,
            help="seconds to wait for one game before reporting it as timeout (default 1800)",
        )
        parser.add_argument(
            "--memory",
            type=positive(int),
            default=6000,
            metavar="MB",
            help="address space one game's process may take; past it the game "
            "is crashed (MemoryError), not the machine (default 6000)",
        )

    def report(self, args):
        return compare(*args.compare) if args.compare else None

    def jobs(self, args):
        coverage_rows(args.out)
        self.paths = {game_id(p): p for p in games_of(args.games or FOLDERS)}
        return [{"game": game} for game in self.paths]

    def start(self, args):
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
        self.runner = Runner(settings, args.timeout)
        self.code = code_version()

    def stop(self):
        if self.runner is not None:
            self.runner.children.stop()

    def measure(self, job, args):
        assert self.runner is not None
        row = self.runner.run(self.paths[job["game"]])
        if row is None:  # stopped
            return []
        row["code"] = self.code
        return [{k: "" if row.get(k) is None else str(row[k]) for k in FIELDS}]

    def progress(self, job, rows):
        return _line(rows[0]) if rows else f"{job['game']}: stopped"

    def table(self, rows):
        rows = [{k: row.get(k, "") for k in FIELDS} for row in rows]
        return summary(rows, note=_note(rows))

    def finish(self, rows, args):
        if args.md:
            rows = [{k: row.get(k, "") for k in FIELDS} for row in rows]
            write_summary(args.md, summary(rows, note=_note(rows)))


def _note(rows) -> str:
    """The summary's first line: how many games, of which code, with matches
    or not."""
    clocks = sorted({r["clocks"] for r in rows if r["clocks"]})
    codes = sorted({r["code"] or "?" for r in rows})
    return f"{len(rows)} games, code {', '.join(codes)}; matches " + (
        f"at start/play clocks of {', '.join(clocks)} s." if clocks else "not played."
    )


SUITE = Coverage()

if __name__ == "__main__":  # a game's child process (Runner.run): its settings as JSON
    sys.exit(_child(sys.argv[1]))
