"""The network kernel one playout at a time against ggplib's C++ depth-charge
loop, in alternating rounds on the same machine.

    GGPLIB="/path/to/ggplib-venv/bin/python /path/to/ggplib_bench.py" \\
        python -m benchmarks against_ggplib [--seconds 2] [--rounds 3] [GAME...]

ggplib (github.com/richemslie/ggplib, C++ with a Python 2 front end, its
propnets made by ggp-base's Java factory) is built outside the repository;
``GGPLIB`` is a command that, given ``--seconds S --games GAME``, runs its
depth charges from the game's initial state for S seconds and prints a line
``GAME playouts/s state_changes/s ...`` (the way we built it is in
docs/reasoners.md, "Against ggplib").  Each round runs, per game, ours
(``Kernel.playouts``, batches of playouts from the initial state) then ggplib
for ``--seconds`` each; a row a game gives each side's mean over the rounds.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import time

from benchmarks.harness import Suite, markdown
from ggp import load_game
from ggp.reasoners import COMPILED
from ggp.shared import named_game

DEFAULT = ["ticTacToe", "connectFour", "breakthrough", "speedChess", "reversi"]


class AgainstGgplib(Suite):
    about = "our network kernel one playout at a time against ggplib's C++ loop (GGPLIB)"
    duration = "1 minute"

    def options(self, parser):
        parser.add_argument("games", nargs="*", default=DEFAULT)
        parser.add_argument("--seconds", type=float, default=2.0)
        parser.add_argument("--rounds", type=int, default=3)

    def jobs(self, args):
        if not os.environ.get("GGPLIB"):
            raise SystemExit(
                "against_ggplib: set GGPLIB to the command that runs ggplib's depth "
                "charges (see the suite's docstring)"
            )
        return [
            {"game": game, "seconds": args.seconds, "rounds": args.rounds} for game in args.games
        ]

    def measure(self, job, args):
        command = shlex.split(os.environ["GGPLIB"])
        sm = load_game(named_game(job["game"])).state_machine(COMPILED)
        mine, others = [], []
        for r in range(job["rounds"]):
            mine.append(ours(sm, job["seconds"], 1000 * r))
            rate = theirs(command, job["game"], job["seconds"])
            if rate is not None:
                others.append(rate)
        return [
            {
                "ours": sum(mine) / len(mine),
                "ggplib": sum(others) / len(others) if others else None,
            }
        ]

    def table(self, rows):
        return markdown(
            rows,
            [
                ("game", "{game}"),
                ("ours: state changes/s", "{ours:,.0f}"),
                (
                    "ggplib: state changes/s",
                    lambda r: "did not run" if r["ggplib"] is None else f"{r['ggplib']:,.0f}",
                ),
                (
                    "ours / ggplib",
                    lambda r: "" if r["ggplib"] is None else f"{r['ours'] / r['ggplib']:.2f}",
                ),
            ],
        )


def ours(sm, seconds: float, seed: int) -> float:
    """Our kernel's state changes a second over ``seconds``."""
    root, steps, batch, seed0 = sm.initial_state(), 0, 16, seed
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        n, _, _ = sm.kernel.playouts(root, batch, seed)
        steps += n
        seed += 1
        if seed - seed0 < 4:
            batch *= 2
    return steps / (time.perf_counter() - start)


def theirs(command: list, game: str, seconds: float) -> float | None:
    """ggplib's state changes a second, or None if it did not run."""
    done = subprocess.run(
        [*command, "--seconds", str(seconds), "--games", game], capture_output=True, text=True
    )
    for line in done.stdout.splitlines():
        words = line.split()
        if len(words) >= 3 and words[0] == game and words[1] != "FAILED":
            return float(words[2])
    return None


SUITE = AgainstGgplib()
