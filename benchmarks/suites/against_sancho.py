"""Matches against Sancho, the champion of the 2014 International GGP Competition,
at equal thinking time.

Sancho is built outside the repository from its public source, as
../shared/peers/README.md describes; this suite takes the command that starts
it on a port (``SANCHO``) and its configuration file (``SANCHO_CFG``, the
``data/cfg/NAME.properties`` it reads) from the environment; with PATH/TO
standing for wherever Sancho was built (its start script beside its source
folder)::

    SANCHO="sh PATH/TO/run_sancho.sh" SANCHO_CFG=PATH/TO/sancho/data/cfg/ggp.properties \\
        python -m benchmarks against_sancho --panel --player uct

**Equal thinking time.**  Sancho stops thinking ``SAFETY_MARGIN`` ms before
each deadline (2,500 by default; its competition files used 1,000-3,300).  The
suite writes ``--margin`` (1,000 ms by default) into Sancho's configuration as
its ``SAFETY_MARGIN`` and gives our player the same: ``ggp serve``'s own
margin plus the player's ``margin`` parameter add up to it.  Every row records
both (``margin``, ``sancho_margin``, in seconds), and the summary says them.

Each side runs in a process of its own pinned to its own core (``taskset``):
our player behind ``ggp serve`` on core 0, Sancho on core 1, and ``ggp match``
is the game manager (it writes clocks as integers, as Sancho's ggp-base
expects), roles swapped every match.  Each match is recorded in the match
database (``--db``) and as a row of the results folder, with the settings
(our player, clocks, margins) it was played at; a match is a job, so a run
resumes where it stopped.

``--panel`` plays the fixed panel: the two-player games of ``PANEL``
(``--matches`` each, 10 by default) and the puzzles of ``PUZZLES``, which each
side plays alone on the same clocks (``--puzzle-runs`` each).  The table, for
each setting, gives per game our score (goal points, 0..100) against Sancho
with its 95% Wilson interval, wins, draws and losses, and the same over the
panel; matches in which either side faulted are counted apart and not scored.
Puzzles give each side's mean goal.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.harness import Suite
from ggp.shared import named_game
from matches.study import score_interval

#: The fixed panel of ``--panel``: the two-player games, then the puzzles each side plays alone.
PANEL = (
    "connectFour",
    "breakthrough",
    "checkers",
    "reversi",
    "hex",
    "skirmish",
    "connect5",
    "nineBoardTicTacToe",
)
PUZZLES = ("eightPuzzle", "hanoi", "knightsTour", "lightsOut", "maze")

#: ``ggp serve``'s margin (seconds kept for the reply to travel); the player's
#: own ``margin`` is the rest of ``--margin``.
SERVE_MARGIN = 0.25


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port: int, seconds: float = 120.0):
    """Until the player on ``port`` answers the protocol's INFO, with anything.
    Sancho takes a while to start, and a port that accepts connections may not
    yet be a player that reads them: twice a Sancho started again after a
    faulted match, sent START as soon as its port listened, then ignored every
    PLAY of that match as "not intended for current game" (waiting for an
    answer is the likely cure, not yet confirmed)."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        with contextlib.suppress(OSError, http.client.HTTPException):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("POST", "/", body="( info )", headers={"Content-Type": "text/acl"})
            connection.getresponse()  # any answer: the player reads its messages
            return
        time.sleep(0.5)
    raise SystemExit(f"nothing answers INFO on port {port} after {seconds:.0f} s")


class Side:
    """A player's process (``argv`` and a port) pinned to ``core``, its output
    appended to ``log``; started again by :meth:`revive` when it has died."""

    def __init__(self, name: str, argv: list, port: int, core: int, log: Path):
        self.name, self.argv, self.port, self.core, self.log = name, argv, port, core, log
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                ["taskset", "-c", str(self.core), *self.argv],
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        wait_for(self.port)

    def died(self) -> int | None:
        """Its exit status if it has died, else None."""
        assert self.proc is not None
        return self.proc.poll()

    def revive(self) -> None:
        self.stop()
        self.start()

    def stop(self) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, 15)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, 9)


def set_safety_margin(cfg: Path, ms: int) -> None:
    """Write ``SAFETY_MARGIN=ms`` into Sancho's configuration file, keeping
    its other settings."""
    lines = cfg.read_text().splitlines() if cfg.exists() else []
    lines = [line for line in lines if not re.match(r"\s*SAFETY_MARGIN\s*=", line)]
    cfg.write_text("\n".join([*lines, f"SAFETY_MARGIN={ms}"]) + "\n")


def our_spec(spec: str, margin: float) -> str:
    """Our player's spec thinking until ``margin`` seconds before the
    deadline: its own ``margin`` is what ``ggp serve``'s does not keep."""
    if re.search(r"(^|[:,])margin=", spec):
        raise SystemExit(f"{spec}: leave margin out, --margin sets both sides' margins")
    own = round(margin - SERVE_MARGIN, 3)
    return f"{spec}{',' if ':' in spec else ':'}margin={own}"


def manage(game: str, players: list, args, seed: int) -> dict:
    """One match through ``ggp match``: its JSON record."""
    argv = [
        sys.executable,
        "-m",
        "matches.cli",
        "match",
        str(named_game(game)),
        "--json",
        "--startclock",
        str(args.startclock),
        "--playclock",
        str(args.playclock),
        "--seed",
        str(seed),
    ]
    if args.db:
        argv += ["--db", args.db]
    for p in players:
        argv += ["--player", p]
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"ggp match failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def faults_of(record: dict, role_index: int) -> int:
    return sum(bool(step[role_index]) for step in record["errors"])


def play(game: str, ours: str, sancho: str, first: bool, args, seed: int) -> dict:
    """One match against Sancho; our player's role first when ``first``."""
    record = manage(game, [ours, sancho] if first else [sancho, ours], args, seed)
    roles = list(record["players"])
    me, them = (0, 1) if first else (1, 0)
    return {
        "kind": "match",
        "game": game,
        "seed": seed,
        "our_role": roles[me],
        "ours": record["goals"][roles[me]],
        "sancho": record["goals"][roles[them]],
        "our_faults": faults_of(record, me),
        "sancho_faults": faults_of(record, them),
        "steps": record["steps"],
    }


def solve(game: str, url: str, side: str, args, seed: int) -> dict:
    """One side playing a puzzle alone."""
    record = manage(game, [url], args, seed)
    (role,) = record["players"]
    return {
        "kind": "puzzle",
        "game": game,
        "seed": seed,
        "side": side,
        "goal": record["goals"][role],
        "faults": faults_of(record, 0),
        "steps": record["steps"],
    }


def faults_by_side(row: dict) -> tuple:
    """(Sancho's, ours) faults of a match or puzzle run, in ``sides``' order."""
    if row["kind"] == "puzzle":
        return (row["faults"], 0) if row["side"] == "sancho" else (0, row["faults"])
    return row["sancho_faults"], row["our_faults"]


def faulted_by(row: dict, side: str) -> bool:
    """Whether ``side`` ("Sancho" or "our player") faulted in a match or died during it."""
    faults = row["sancho_faults"] if side == "Sancho" else row["our_faults"]
    return bool(faults) or side in row.get("died", ())


def faulted(row: dict) -> bool:
    return faulted_by(row, "Sancho") or faulted_by(row, "our player")


def score_row(label: str, rows: list) -> str:
    scores = [r["ours"] for r in rows]
    n = len(scores)
    wins = sum(r["ours"] > r["sancho"] for r in rows)
    losses = sum(r["ours"] < r["sancho"] for r in rows)
    low, high = score_interval(scores)
    return (
        f"| {label} | {n} | {sum(scores) / n:.1f} ({low} .. {high}) | "
        f"{wins} / {n - wins - losses} / {losses} |"
    )


def summary(rows: list) -> str:
    """The Markdown tables: per game and over the panel, faulted matches
    apart; the puzzles, each side's mean goal."""
    clocks = {(r.get("startclock"), r.get("playclock")) for r in rows}
    margins = {(r.get("margin"), r.get("sancho_margin")) for r in rows}
    out = [
        f"Clocks (start, play) {sorted(clocks, key=str)}; margins (ours, Sancho's) "
        f"{sorted(margins, key=str)} s: both sides stop thinking that long before each "
        "deadline; each on its own core.",
        "",
    ]
    matches = [r for r in rows if r.get("kind", "match") == "match"]
    if matches:
        out += [
            "| game | matches scored | our score (95% CI) | wins / draws / losses | "
            "faulted (ours / Sancho's) |",
            "|---|---|---|---|---|",
        ]
        clean_all = []
        for game in dict.fromkeys(r["game"] for r in matches):
            games = [r for r in matches if r["game"] == game]
            clean = [r for r in games if not faulted(r)]
            ours = sum(faulted_by(r, "our player") for r in games)
            theirs = sum(faulted_by(r, "Sancho") for r in games)
            clean_all += clean
            line = score_row(game, clean) if clean else f"| {game} | 0 | - | - |"
            out.append(f"{line} {ours} / {theirs} |")
        if len({r["game"] for r in matches}) > 1 and clean_all:
            out.append(f"{score_row('**panel**', clean_all)} |")
        out.append("")
    puzzles = [r for r in rows if r.get("kind") == "puzzle"]
    if puzzles:
        out += ["| puzzle | runs | our mean goal | Sancho's mean goal | faults (ours / Sancho's) |"]
        out += ["|---|---|---|---|---|"]
        for game in dict.fromkeys(r["game"] for r in puzzles):
            side = {
                s: [r for r in puzzles if r["game"] == game and r["side"] == s]
                for s in ("ours", "sancho")
            }
            mean = {
                s: f"{sum(r['goal'] for r in v) / len(v):.1f}" if v else "-"
                for s, v in side.items()
            }
            out.append(
                f"| {game} | {len(side['ours'])} / {len(side['sancho'])} | {mean['ours']} | "
                f"{mean['sancho']} | {sum(r['faults'] for r in side['ours'])} / "
                f"{sum(r['faults'] for r in side['sancho'])} |"
            )
    return "\n".join(out) + "\n"


#: A row's settings: a run resumes the jobs of the same settings only.
SETTINGS = ("player", "startclock", "playclock", "margin", "sancho_margin")


class AgainstSancho(Suite):
    about = "matches against Sancho, the 2014 champion, at equal thinking time (SANCHO)"
    duration = "10 hours for the panel"

    def __init__(self):
        self.sides: list[Side] = []
        self.urls: dict = {}

    def options(self, parser):
        parser.add_argument("--player", default="uct", help="our player's spec (no margin)")
        parser.add_argument(
            "--games",
            nargs="*",
            default=None,
            help="default: connectFour, breakthrough (none: the puzzles alone)",
        )
        parser.add_argument("--panel", action="store_true", help="the panel's games and puzzles")
        parser.add_argument(
            "--puzzles", nargs="*", default=None, help="default: none (--panel: its)"
        )
        parser.add_argument("--matches", type=int, default=None, help="per game, roles swapped")
        parser.add_argument("--puzzle-runs", type=int, default=2, help="per puzzle and side")
        parser.add_argument("--startclock", type=int, default=30)
        parser.add_argument("--playclock", type=int, default=5)
        parser.add_argument(
            "--margin", type=int, default=1000, help="ms both sides keep back from each deadline"
        )
        parser.add_argument("--db", default=None, help="match database (default: the user's)")

    def jobs(self, args):
        games = (
            list(PANEL)
            if args.panel
            else args.games
            if args.games is not None
            else ["connectFour", "breakthrough"]
        )
        puzzles = args.puzzles if args.puzzles is not None else list(PUZZLES) if args.panel else []
        matches = args.matches or (10 if args.panel else 20)
        if args.margin / 1000 <= SERVE_MARGIN:
            raise SystemExit(f"--margin must be more than ggp serve's {SERVE_MARGIN * 1000:.0f} ms")
        same = {
            "player": args.player,
            "startclock": args.startclock,
            "playclock": args.playclock,
            "margin": args.margin / 1000,
            "sancho_margin": args.margin / 1000,
        }
        # round by round (a match of every game, then each puzzle by each side), so that
        # a run stopped early has played every game
        return [
            job
            for i in range(max(matches, args.puzzle_runs))
            for job in [
                {"kind": "match", "game": g, "seed": i, **same} for g in games if i < matches
            ]
            + [
                {"kind": "puzzle", "game": g, "seed": i, "side": side, **same}
                for g in puzzles
                if i < args.puzzle_runs
                for side in ("ours", "sancho")
            ]
        ]

    def start(self, args):
        command, cfg = os.environ.get("SANCHO"), os.environ.get("SANCHO_CFG")
        if not command or not cfg:
            raise SystemExit(
                "set SANCHO to the command that starts Sancho on a port given as its last "
                "argument, and SANCHO_CFG to the configuration file it reads (its "
                "SAFETY_MARGIN is set from --margin; see ../shared/peers/README.md)"
            )
        set_safety_margin(Path(cfg), args.margin)
        spec = our_spec(args.player, args.margin / 1000)
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        ours_port, sancho_port = free_port(), free_port()
        serve = [
            sys.executable,
            "-m",
            "matches.cli",
            "serve",
            spec,
            "--port",
            str(ours_port),
            "--margin",
            str(SERVE_MARGIN),
        ]
        self.sides = [
            Side(
                "Sancho",
                [*shlex.split(command), str(sancho_port)],
                sancho_port,
                1,
                out / "sancho.log",
            ),
            Side("our player", serve, ours_port, 0, out / "ours.log"),
        ]
        for side in self.sides:
            side.start()
        self.urls = {
            "ours": f"http://127.0.0.1:{ours_port}",
            "sancho": f"http://127.0.0.1:{sancho_port}",
        }

    def stop(self):
        for side in self.sides:
            side.stop()
        self.sides = []

    def measure(self, job, args):
        game, i = job["game"], job["seed"]
        if job["kind"] == "match":
            row = play(game, self.urls["ours"], self.urls["sancho"], i % 2 == 0, args, i)
        else:
            row = solve(game, self.urls[job["side"]], job["side"], args, i)
        # a side that died (Sancho runs out of memory building some games) played
        # substituted moves from then on: the match is recorded as faulted, counted
        # apart, and the side started again for the next one; so is a side that
        # faulted, which may still be busy with this game (Sancho building checkers
        # went on for minutes after the match, and faulted the next two games)
        for player, faults in zip(self.sides, faults_by_side(row)):
            status = player.died()
            if status is not None:
                row.setdefault("died", []).append(player.name)
                print(
                    f"{player.name} exited (status {status}) during {game} #{i}: "
                    "the match is counted apart; started again",
                    file=sys.stderr,
                    flush=True,
                )
            if status is not None or faults:
                player.revive()
        return [row]

    def progress(self, job, rows):
        (row,) = rows
        if row["kind"] == "match":
            return f"{row['game']} #{row['seed']}: ours {row['ours']}, Sancho {row['sancho']}"
        return f"{row['game']} #{row['seed']} ({row['side']} alone): goal {row['goal']}"

    def table(self, rows):
        """A summary for each setting (our player, clocks, margins)."""
        settings: dict = {}
        for row in rows:
            settings.setdefault(tuple(row.get(k) for k in SETTINGS), []).append(row)
        return "\n".join(
            f"Our player `{key[0]}`. {summary(mine)}" for key, mine in settings.items()
        )


SUITE = AgainstSancho()
