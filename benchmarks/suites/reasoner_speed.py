"""Reasoner speed over a list of games: ours (compiled and reference, measured
here in one run) beside the anchors' published figures (measured elsewhere).

Each measurement is ``ggp bench GAME --json`` in its own process (so peak RSS
is per game).  Default games: ticTacToe, connectFour, breakthrough, checkers,
speedChess, reversi from ../shared/games/gdl1.
"""

from __future__ import annotations

import json
import subprocess
import sys

from benchmarks.harness import Suite, markdown
from ggp.reasoners import COMPILED, REFERENCE
from ggp.shared import shared_games

#: State changes per second published in REFERENCES.md (not measured by us).
#: ggp-base prover and ggplib: measured on this kind of machine by others;
#: Sancho: gdl-perf, on its authors' machine.
ANCHORS = {
    "ticTacToe": {"ggp-base prover": 4519, "ggplib (C++)": 2_180_000, "Sancho": 773_722},
    "connectFour": {"ggp-base prover": 1282, "ggplib (C++)": 2_020_000, "Sancho": 975_782},
    "breakthrough": {"ggp-base prover": 631, "ggplib (C++)": 1_160_000, "Sancho": 840_430},
    "checkers": {"Sancho": 239_832},
    "speedChess": {"Sancho": 204_239},
    "reversi": {"Sancho": 76_783},
}


class ReasonerSpeed(Suite):
    about = "the compiled and reference reasoners' state changes a second beside published anchors"
    duration = "3 minutes"

    def options(self, parser):
        parser.add_argument("games", nargs="*", default=list(ANCHORS))
        parser.add_argument("--seconds", type=float, default=10.0)

    def jobs(self, args):
        return [{"game": game, "seconds": args.seconds} for game in args.games]

    def measure(self, job, args):
        fast = bench(job["game"], COMPILED, job["seconds"])
        slow = bench(job["game"], REFERENCE, job["seconds"])
        return [
            {
                "playouts_per_sec": fast["playouts_per_sec"],
                "states_per_sec": fast["states_per_sec"],
                "reference_states_per_sec": slow["states_per_sec"],
                "build_seconds": fast["build_seconds"],
                "peak_rss_mb": fast["peak_rss_mb"],
            }
        ]

    def table(self, rows):
        def ratio(r):
            slow = r["reference_states_per_sec"]
            return f"{r['states_per_sec'] / slow if slow else 0:,.0f}x"

        return markdown(
            rows,
            [
                ("game", "{game}"),
                ("compiled: playouts/s", "{playouts_per_sec:,.0f}"),
                ("compiled: state changes/s", "{states_per_sec:,.0f}"),
                ("reference: state changes/s", "{reference_states_per_sec:,.0f}"),
                ("compiled / reference", ratio),
                ("build s", "{build_seconds}"),
                ("peak RSS MB", "{peak_rss_mb:.0f}"),
                (
                    "anchors, state changes/s (measured elsewhere)",
                    lambda r: ", ".join(
                        f"{k} {v:,}" for k, v in ANCHORS.get(r["game"], {}).items()
                    ),
                ),
            ],
        )


def bench(game: str, reasoner: str, seconds: float) -> dict:
    """``ggp bench``'s figures for a game of ../shared/games/gdl1."""
    path = shared_games() / "gdl1" / f"{game}.kif"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "matches.cli",
            "bench",
            str(path),
            "--json",
            "--reasoner",
            reasoner,
            "--seconds",
            str(seconds),
        ],
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


SUITE = ReasonerSpeed()
