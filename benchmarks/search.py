"""Search speed beside the reasoner's: in one run, alternating, per game the
incremental kernel's random playouts one at a time, and the MCTS players'
simulations a second thinking about the first move, with the tree in C and
(``--python``) with the Python tree; then the imperfect-information players'
simulations a second on the GDL-II games; with ``--openspiel-python`` (a Python
with OpenSpiel installed, in its own venv), OpenSpiel's C++ IS-MCTS on its
Leduc poker in the same rounds as ours on leduc.

    python benchmarks/search.py [--seconds 2] [--python] [--games ...] [--gdl2 ...]
        [--openspiel-python /tmp/osvenv/bin/python]

Per game: the kernel's state changes a second and playouts a second
(``Kernel.playouts`` from the initial state, one playout at a time), and each
player's simulations a second (``simulations`` budget on the first move, a
fresh player each round), with the ratio of ``uct``'s simulations to the
kernel's playouts (the bar: 70%); and ``uct`` on the clock as ``ggp bench
--player`` runs it (:func:`players.bench.bench_player`: a player started at a
start clock of 0, its machine built first), with its ratio to the kernel's
playouts, which catches a player that searches on another reasoner than the
one measured beside it.  Rounds alternate between the
measures so that all see the same machine load; each gets ``--seconds`` in all.
Printed as Markdown tables.
"""

from __future__ import annotations

import argparse
import math
import subprocess
import time
from pathlib import Path

import players
from ggp import load_game
from ggp.reasoners import COMPILED
from ggp.shared import named_game
from players.bench import bench_player

GAMES = ["ticTacToe", "connectFour", "breakthrough", "speedChess", "reversi", "checkers"]
PLAYERS = ["uct", "mast", "nst", "lgr"]
GDL2 = ["leduc", "iigs13", "phantomttt"]
GDL2_PLAYERS = ["ismcts", "smooth-uct", "efg-uct"]


def simulations(game, spec: str, budget: int, c_tree: bool) -> float:
    """Seconds for ``budget`` simulations on the first move of a fresh player."""
    engine = "c" if c_tree else "python"
    player = players.make(f"{spec}:simulations={budget},seed=1,engine={engine}")
    player.start(game, game.roles[0], 1000, 1000)
    start = time.perf_counter()
    player.select(player.legal_moves(), time.monotonic() + 1000)
    return time.perf_counter() - start


def gdl2_simulations(game, spec: str, budget: int, in_c: bool) -> float:
    """Seconds for ``budget`` simulations from the initial belief (whether or
    not the first step is a decision)."""
    engine = "c" if in_c else "python"
    player = players.make(f"{spec}:simulations={budget},seed=1,engine={engine}")
    role = next(r for r in game.roles if r != "random")
    player.start(game, role, 1000, 1000)
    start = time.perf_counter()
    player.think(math.inf, budget)
    return time.perf_counter() - start


OPENSPIEL = """
import sys, time
import pyspiel
game = pyspiel.load_game("leduc_poker")
state = game.new_initial_state()
while state.is_chance_node():           # both cards dealt: the first decision
    state.apply_action(state.legal_actions()[0])
seed = 0
for line in sys.stdin:                  # a budget a line; answers its seconds
    seed += 1
    bot = pyspiel.ISMCTSBot(seed, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, int(line))
    start = time.perf_counter()
    bot.step(state)
    print(time.perf_counter() - start, flush=True)
"""


def openspiel_ismcts(python: str):
    """``run(n) -> (n, seconds)`` for ``n`` simulations of OpenSpiel's C++
    IS-MCTS (a fresh bot, random rollouts, c = 2) at Leduc's first decision,
    in a process of ``python``."""
    try:
        proc = subprocess.Popen(
            [python, "-c", OPENSPIEL], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
    except OSError as exc:
        raise SystemExit(f"--openspiel-python {python}: {exc.strerror}") from None

    def run(n):
        n = max(n, 2)  # with one simulation its root has no visit, and it fails
        proc.stdin.write(f"{n}\n")
        proc.stdin.flush()
        return n, float(proc.stdout.readline())

    return run


def clocked(result: dict) -> tuple:
    """(simulations, seconds) of one :func:`players.bench.bench_player` run."""
    return result["simulations"], result["seconds"]


class Measure:
    """One quantity measured in rounds: ``run(n) -> (units, seconds)``, its
    batch ``n`` grown until a round takes about ``round_seconds``."""

    def __init__(self, run, round_seconds: float):
        self.run, self.target = run, round_seconds
        self.n, self.units, self.spent = 1, 0.0, 0.0

    def round(self):
        units, seconds = self.run(self.n)
        self.units += units
        self.spent += seconds
        if seconds < self.target and self.n < 1 << 24:
            self.n = max(
                self.n + 1, min(8 * self.n, int(self.n * self.target / max(seconds, 1e-6)))
            )

    @property
    def rate(self) -> float:
        return self.units / self.spent if self.spent else 0.0


def kernel_measures(sm, round_seconds):
    root = sm.initial_state()
    seed = [1]

    def run(n):
        start = time.perf_counter()
        steps, _, _ = sm.kernel.playouts(root, n, seed[0])
        seed[0] += 1
        return steps, time.perf_counter() - start

    def playouts(n):
        start = time.perf_counter()
        sm.kernel.playouts(root, n, seed[0])
        seed[0] += 1
        return n, time.perf_counter() - start

    return Measure(run, round_seconds), Measure(playouts, round_seconds)


def run_rounds(measures: dict, seconds: float):
    while min(m.spent for m in measures.values()) < seconds:
        for m in measures.values():
            if m.spent < seconds:
                m.round()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--round", type=float, default=0.25, help="seconds a round")
    parser.add_argument(
        "--python", action="store_true", help="also the Python tree and the Python simulations"
    )
    parser.add_argument("--games", nargs="*", default=GAMES)
    parser.add_argument("--gdl2", nargs="*", default=GDL2)
    parser.add_argument(
        "--openspiel-python",
        default=None,
        metavar="PYTHON",
        help="also OpenSpiel's C++ IS-MCTS on Leduc, run by this Python",
    )
    args = parser.parse_args(argv)
    trees = [("C", True)] + ([("Python", False)] if args.python else [])
    head = (
        ["game", "kernel: state changes/s", "kernel: playouts/s"]
        + [f"{p} ({t}): simulations/s" for p in PLAYERS for t, _ in trees]
        + ["uct (C) / kernel playouts", "uct on the clock: simulations/s", "on the clock / kernel"]
    )
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name in args.games:
        game = load_game(named_game(name))
        sm = game.state_machine(COMPILED)
        steps, outs = kernel_measures(sm, args.round)
        measures = {"steps": steps, "playouts": outs}
        for p in PLAYERS:
            for t, c_tree in trees:
                measures[p, t] = Measure(
                    lambda n, p=p, c=c_tree: (n, simulations(game, p, n, c)), args.round
                )
        measures["clock"] = Measure(
            lambda n: clocked(bench_player(game, "uct", args.round)), args.round
        )
        run_rounds(measures, args.seconds)
        row = (
            [Path(str(name)).stem, f"{steps.rate:,.0f}", f"{outs.rate:,.0f}"]
            + [f"{measures[p, t].rate:,.0f}" for p in PLAYERS for t, _ in trees]
            + [f"{measures['uct', 'C'].rate / outs.rate:.2f}"]
            + [f"{measures['clock'].rate:,.0f}", f"{measures['clock'].rate / outs.rate:.2f}"]
        )
        print("| " + " | ".join(row) + " |", flush=True)
    if not args.gdl2:
        return 0
    print()
    columns = [(p, t, in_c) for p in GDL2_PLAYERS for t, in_c in trees]
    openspiel = args.openspiel_python and "leduc" in args.gdl2
    print(
        "| game | "
        + " | ".join(f"{p} ({t}): simulations/s" for p, t, _ in columns)
        + (" | OpenSpiel C++ IS-MCTS: simulations/s |" if openspiel else " |")
    )
    print("|---|" + "---|" * (len(columns) + bool(openspiel)))
    for name in args.gdl2:
        game = load_game(named_game(name))
        measures = {
            (p, t): Measure(lambda n, p=p, c=in_c: (n, gdl2_simulations(game, p, n, c)), args.round)
            for p, t, in_c in columns
        }
        if openspiel and name == "leduc":
            measures["openspiel"] = Measure(openspiel_ismcts(args.openspiel_python), args.round)
        run_rounds(measures, args.seconds)
        cells = [f"{measures[p, t].rate:,.0f}" for p, t, _ in columns]
        if openspiel:
            cells.append(f"{measures['openspiel'].rate:,.0f}" if name == "leduc" else "")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
