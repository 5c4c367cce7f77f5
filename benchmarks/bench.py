"""Reasoner speed over a list of games: ours (compiled and reference, measured
here in one run) beside the anchors' published figures (measured elsewhere).

    python benchmarks/bench.py [--seconds 10] [--out benchmarks/bench.md] [GAME...]

Each measurement is ``ggp bench GAME --json`` in its own process (so peak RSS
is per game).  Default games: ticTacToe, connectFour, breakthrough, checkers,
speedChess, reversi from ../shared/games/gdl1.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

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


def measure(game: str, reasoner: str, seconds: float) -> dict:
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=list(ANCHORS))
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    lines = [
        "| game | compiled: playouts/s | compiled: state changes/s | reference: state "
        "changes/s | compiled / reference | build s | peak RSS MB | anchors, state "
        "changes/s (measured elsewhere) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for game in args.games:
        fast = measure(game, COMPILED, args.seconds)
        slow = measure(game, REFERENCE, args.seconds)
        ratio = fast["states_per_sec"] / slow["states_per_sec"] if slow["states_per_sec"] else 0
        anchors = ", ".join(f"{k} {v:,}" for k, v in ANCHORS.get(game, {}).items())
        lines.append(
            f"| {game} | {fast['playouts_per_sec']:,.0f} | "
            f"{fast['states_per_sec']:,.0f} | {slow['states_per_sec']:,.0f} | "
            f"{ratio:,.0f}x | {fast['build_seconds']} | {fast['peak_rss_mb']:.0f} | "
            f"{anchors} |"
        )
        print(lines[-1], flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
