"""The network kernel one playout at a time against ggplib's C++ depth-charge
loop, in alternating rounds on the same machine.

    GGPLIB="/path/to/ggplib-venv/bin/python /path/to/ggplib_bench.py" \\
        python benchmarks/ggplib.py [--seconds 2] [--rounds 3] [GAME...]

ggplib (github.com/richemslie/ggplib, C++ with a Python 2 front end, its
propnets made by ggp-base's Java factory) is built outside the repository;
``GGPLIB`` is a command that, given ``--seconds S --games GAME``, runs its
depth charges from the game's initial state for S seconds and prints a line
``GAME playouts/s state_changes/s ...`` (the way we built it is in
docs/reasoners.md, "Against ggplib").  Each round runs, per game, ours (``Kernel.playouts``,
batches of playouts from the initial state) then ggplib for ``--seconds``
each; the table gives each side's mean over the rounds and the ratio.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import time

from ggp import load_game
from ggp.reasoners import COMPILED
from ggp.shared import named_game

DEFAULT = ["ticTacToe", "connectFour", "breakthrough", "speedChess", "reversi"]


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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=DEFAULT)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if not os.environ.get("GGPLIB"):
        raise SystemExit(
            "ggplib.py: set GGPLIB to the command that runs ggplib's depth "
            "charges (see the module docstring)"
        )
    command = shlex.split(os.environ["GGPLIB"])
    machines = {g: load_game(named_game(g)).state_machine(COMPILED) for g in args.games}
    rates = {g: ([], []) for g in args.games}
    for r in range(args.rounds):
        for g, sm in machines.items():
            rates[g][0].append(ours(sm, args.seconds, 1000 * r))
            theirs_rate = theirs(command, g, args.seconds)
            if theirs_rate is not None:
                rates[g][1].append(theirs_rate)
    print("| game | ours: state changes/s | ggplib: state changes/s | ours / ggplib |")
    print("|---|---:|---:|---:|")
    for g, (a, b) in rates.items():
        mine = sum(a) / len(a)
        if b:
            other = sum(b) / len(b)
            print(f"| {g} | {mine:,.0f} | {other:,.0f} | {mine / other:.2f} |")
        else:
            print(f"| {g} | {mine:,.0f} | did not run | |")


if __name__ == "__main__":
    main()
