"""The one-player games of ../shared/games played alone by each of several
player specs: the puzzle mode's study against the player without it.

Every one-player game of gdl1/ and corpus/ (one ``role`` in its rules) is
played by ``ggp play`` in a process of its own, ``--runs`` times a spec with
seeds 0, 1, ...; a row a match: its goal, steps, faults (moves the manager
chose for it because it answered late or illegally) and whether it was
aborted, or the error that ended it.  The table gives per game each spec's
mean goal, its faults and the matches that did not end.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from benchmarks.harness import Suite
from ggp.shared import shared_games


class Puzzles(Suite):
    about = "the one-player games played alone by each spec: the puzzle mode against none"
    duration = "2 hours"

    def options(self, parser):
        parser.add_argument("--specs", nargs="+", default=["uct", "uct:puzzle=false"])
        parser.add_argument("--runs", type=int, default=2, help="matches per game and spec")
        parser.add_argument("--startclock", type=int, default=10)
        parser.add_argument("--playclock", type=int, default=2)
        parser.add_argument("--max-steps", type=int, default=1000)
        parser.add_argument("--timeout", type=float, default=3600, help="seconds a match may take")
        parser.add_argument("--games", nargs="*", help="names like corpus/peg (default: all)")

    def jobs(self, args):
        games = [f"{g.parent.name}/{g.stem}" for g in one_player_games()]
        if args.games:
            games = [g for g in games if g in args.games]
        return [
            {"game": game, "spec": spec, "seed": seed}
            for seed in range(args.runs)
            for game in games
            for spec in args.specs
        ]

    def measure(self, job, args):
        return [play(shared_games() / f"{job['game']}.kif", job["spec"], job["seed"], args)]

    def progress(self, job, rows):
        (row,) = rows
        return f"{row['game']} {row['spec']} #{row['seed']}: " + (
            row["error"] if "error" in row else f"goal {row['goal']}"
        )

    def table(self, rows):
        """Per game and spec the mean goal (faults, unfinished)."""
        specs = list(dict.fromkeys(r["spec"] for r in rows))
        games = list(dict.fromkeys(r["game"] for r in rows))
        head = "| game | " + " | ".join(f"`{s}`" for s in specs) + " |"
        lines = [head, "|---" * (len(specs) + 1) + "|"]
        totals: dict = {s: [] for s in specs}
        for game in games:
            cells = []
            for spec in specs:
                mine = [r for r in rows if r["game"] == game and r["spec"] == spec]
                goals = [r["goal"] or 0 for r in mine if "error" not in r]
                totals[spec] += goals
                notes = []
                faults = sum(r.get("faults", 0) for r in mine)
                if faults:
                    notes.append(f"{faults} faults")
                broken = sum("error" in r or bool(r.get("aborted")) for r in mine)
                if broken:
                    notes.append(f"{broken} unfinished")
                mean = f"{sum(goals) / len(goals):.0f}" if goals else "-"
                cells.append(mean + (f" ({', '.join(notes)})" if notes else ""))
            lines.append(f"| {game} | " + " | ".join(cells) + " |")
        lines.append(
            "| **mean** | "
            + " | ".join(
                f"**{sum(v) / len(v):.1f}** ({len(v)} matches)" if v else "-"
                for v in totals.values()
            )
            + " |"
        )
        return "\n".join(lines) + "\n"


def one_player_games() -> list:
    """The games of gdl1/ and corpus/ with a single role, by path."""
    role = re.compile(r"\(\s*role\s+([^\s()]+)\s*\)", re.IGNORECASE)
    return [
        path
        for folder in ("gdl1", "corpus")
        for path in sorted((shared_games() / folder).glob("*.kif"))
        if len(set(role.findall(path.read_text(errors="replace")))) == 1
    ]


def play(path: Path, spec: str, seed: int, args) -> dict:
    """One match of ``spec`` alone on the game at ``path``."""
    argv = [
        sys.executable,
        "-m",
        "matches.cli",
        "play",
        str(path),
        spec,
        "--json",
        "--seed",
        str(seed),
        "--startclock",
        str(args.startclock),
        "--playclock",
        str(args.playclock),
        "--max-steps",
        str(args.max_steps),
    ]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"no result in {args.timeout} s"}
    if done.returncode != 0:
        try:  # --json: the error as an object
            return {"error": json.loads(done.stdout)["error"]["message"]}
        except (ValueError, KeyError, TypeError):
            lines = (done.stdout + done.stderr).strip().splitlines()
            return {"error": lines[-1] if lines else f"exit {done.returncode}"}
    (match,) = json.loads(done.stdout)["matches"]
    return {
        "goal": next(iter(match["goals"].values()), None) if match["goals"] else None,
        "steps": len(match["moves"]),
        "faults": len(match["faults"]),
        "aborted": match["aborted"],
    }


SUITE = Puzzles()
