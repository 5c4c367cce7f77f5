"""Local matches per minute of a study, with one worker and with one per core.

    python benchmarks/throughput.py [--matches 200] [GAME...]

Each game gets a study of ``random`` against ``uct:simulations=100`` (fast
players), run by the study runner into a scratch database, once with one
worker and once with ``os.cpu_count()``; printed as a Markdown table with the
matches per minute and how busy the cores were (CPU time of the workers over
wall time times workers).
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

from matches.study import Study, run_study


def measure(game: str, matches: int, workers: int) -> dict:
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
    return {
        "game": Path(game).stem,
        "workers": workers,
        "matches": matches,
        "per_minute": 60 * matches / wall,
        "busy": cpu / (wall * workers),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=["tictactoe", "connectfour", "breakthrough"])
    parser.add_argument("--matches", type=int, default=200)
    args = parser.parse_args(argv)
    print("| game | workers | matches | matches / minute | cores busy |")
    print("|---|---|---|---|---|")
    for game in args.games:
        for workers in sorted({1, os.cpu_count() or 1}):
            r = measure(game, args.matches, workers)
            print(
                f"| {r['game']} | {r['workers']} | {r['matches']} | {r['per_minute']:,.0f} | "
                f"{100 * r['busy']:.0f}% |",
                flush=True,
            )


if __name__ == "__main__":
    main()
