"""Local matches per minute of a study, with one worker and with one per core.

Each game gets a study of ``random`` against ``uct:simulations=100`` (fast
players), run by the study runner into a scratch database, once with one
worker and once with ``os.cpu_count()``; a row each with the matches per
minute and how busy the cores were (CPU time of the workers over wall time
times workers).
"""

from __future__ import annotations

import os
import resource
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Suite, markdown
from matches.study import Study, run_study


class StudyThroughput(Suite):
    about = "local matches a minute of a study, one worker and one per core"
    duration = "2 minutes"

    def options(self, parser):
        parser.add_argument(
            "games", nargs="*", default=["tictactoe", "connectfour", "breakthrough"]
        )
        parser.add_argument("--matches", type=int, default=200)

    def jobs(self, args):
        return [
            {"game": game, "workers": workers, "matches": args.matches}
            for game in args.games
            for workers in sorted({1, os.cpu_count() or 1})
        ]

    def measure(self, job, args):
        game, matches, workers = job["game"], job["matches"], job["workers"]
        with tempfile.TemporaryDirectory() as tmp:
            study = Study(
                name=f"throughput-{game}",
                games=[game],
                players={"random": "random", "uct": "uct:simulations=100"},
                pairs=[("uct", "random")],
                matches=matches,
                seed=1,
                out=Path(tmp),
            )
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            run_study(study, workers=workers, db=Path(tmp) / "m.sqlite", progress=None)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return [{"per_minute": 60 * matches / wall, "busy": cpu / (wall * workers)}]

    def table(self, rows):
        return markdown(
            rows,
            [
                ("game", lambda r: Path(r["game"]).stem),
                ("workers", "{workers}"),
                ("matches", "{matches}"),
                ("matches / minute", "{per_minute:,.0f}"),
                ("cores busy", lambda r: f"{100 * r['busy']:.0f}%"),
            ],
        )


SUITE = StudyThroughput()
