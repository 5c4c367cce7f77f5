"""Complete matches of every GDL-II game in ../shared/games/gdl2 through
``ggp match``, every seat held by one imperfect-information player playing on
the clock; a row a game and player: steps, faults (TO, CE or IL per step),
goals and the match's seconds.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Suite, markdown
from ggp import load_game
from ggp.shared import shared_games


class Gdl2Matches(Suite):
    about = "every GDL-II game played to the end through ggp match by each player on the clock"
    duration = "1 hour"

    def options(self, parser):
        parser.add_argument("--players", nargs="+", default=["ismcts", "smooth-uct"])
        parser.add_argument("--startclock", type=int, default=60)
        parser.add_argument("--playclock", type=int, default=2)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--games", nargs="*", help="only these (file stems); default: all")

    def jobs(self, args):
        return [
            {
                "game": path.stem,
                "player": spec,
                "startclock": args.startclock,
                "playclock": args.playclock,
                "seed": args.seed,
            }
            for path in sorted((shared_games() / "gdl2").glob("*.kif"))
            if not args.games or path.stem in args.games
            for spec in args.players
        ]

    def measure(self, job, args):
        path = shared_games() / "gdl2" / f"{job['game']}.kif"
        roles = [r for r in load_game(path).roles if r != "random"]
        seats = [a for _ in roles for a in ("--player", job["player"])]
        start = time.monotonic()
        with tempfile.TemporaryDirectory() as tmp:
            out = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "matches.cli",
                    "match",
                    str(path),
                    *seats,
                    "--startclock",
                    str(job["startclock"]),
                    "--playclock",
                    str(job["playclock"]),
                    "--seed",
                    str(job["seed"]),
                    "--db",
                    str(Path(tmp) / "matches.sqlite"),
                    "--json",
                ],
                capture_output=True,
                text=True,
            )
        seconds = time.monotonic() - start
        if out.returncode:
            return [{"failed": out.stderr.strip()[-200:]}]
        record = json.loads(out.stdout)
        faults = [f"{i + 1}:{e}" for i, step in enumerate(record["errors"]) for e in step if e]
        return [
            {
                "steps": record["steps"],
                "faults": faults,
                "goals": record["goals"],
                "seconds": seconds,
            }
        ]

    def table(self, rows):
        def cell(key):
            def text(r):
                if "failed" in r:
                    return f"failed: {r['failed']}" if key == "faults" else ""
                if key == "faults":
                    return " ".join(r["faults"]) or "none"
                if key == "goals":
                    return ", ".join(f"{k} {v}" for k, v in r["goals"].items())
                return f"{r['seconds']:.0f}" if key == "seconds" else str(r[key])

            return text

        return markdown(
            rows,
            [
                ("game", "{game}"),
                ("player", "{player}"),
                ("clocks s", "{startclock}/{playclock}"),
                ("steps", cell("steps")),
                ("faults", cell("faults")),
                ("match seconds", cell("seconds")),
                ("goals", cell("goals")),
            ],
        )


SUITE = Gdl2Matches()
