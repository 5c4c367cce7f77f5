"""Search speed beside the reasoner's: in one run, alternating, per game the
incremental kernel's random playouts one at a time, and the MCTS players'
simulations a second thinking about the first move, with the tree in C and
(``--python``) with the Python tree; then the imperfect-information players'
simulations a second on the GDL-II games; with ``--openspiel-python`` (a Python
with OpenSpiel installed, in its own venv), OpenSpiel's C++ IS-MCTS on its
Leduc poker in the same rounds as ours on leduc.

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
"""

from __future__ import annotations

import math
import subprocess
import time
from pathlib import Path

import players
from benchmarks.harness import Suite, markdown
from benchmarks.timing import GAMES, Measure, run_rounds
from ggp import load_game
from ggp.reasoners import COMPILED
from ggp.shared import named_game
from players.bench import bench_player
from players.imperfect.search import InformationSetPlayer

PLAYERS = ["uct", "mast", "nst", "lgr"]
GDL2 = ["leduc", "iigs13", "phantomttt"]
GDL2_PLAYERS = ["ismcts", "smooth-uct", "efg-uct"]


class SearchSpeed(Suite):
    about = "the MCTS players' simulations a second beside the kernel's playouts, C and Python tree"
    duration = "2 minutes"

    def options(self, parser):
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

    def jobs(self, args):
        settings = {"seconds": args.seconds, "round": args.round, "python": args.python}
        return [{"game": g, "gdl": "I", **settings} for g in args.games] + [
            {
                "game": g,
                "gdl": "II",
                "openspiel": bool(args.openspiel_python) and g == "leduc",
                **settings,
            }
            for g in args.gdl2
        ]

    def measure(self, job, args):
        trees = [("C", True)] + ([("Python", False)] if job["python"] else [])
        game = load_game(named_game(job["game"]))
        if job["gdl"] == "I":
            sm = game.state_machine(COMPILED)
            steps, outs = kernel_measures(sm, job["round"])
            measures = {"steps": steps, "playouts": outs}
            for p in PLAYERS:
                for t, c_tree in trees:
                    measures[f"{p} ({t})"] = Measure(
                        lambda n, p=p, c=c_tree: (n, simulations(game, p, n, c)), job["round"]
                    )
            measures["clock"] = Measure(
                lambda n: clocked(bench_player(game, "uct", job["round"])), job["round"]
            )
        else:
            measures = {
                f"{p} ({t})": Measure(
                    lambda n, p=p, c=in_c: (n, gdl2_simulations(game, p, n, c)), job["round"]
                )
                for p in GDL2_PLAYERS
                for t, in_c in trees
            }
            if job["openspiel"]:
                measures["openspiel"] = Measure(
                    openspiel_ismcts(args.openspiel_python), job["round"]
                )
        run_rounds(measures, job["seconds"])
        return [{"rates": {name: m.rate for name, m in measures.items()}}]

    def table(self, rows):
        tables = []
        for gdl in ("I", "II"):
            mine = [r for r in rows if r["gdl"] == gdl]
            if not mine:
                continue
            names = list(dict.fromkeys(n for r in mine for n in r["rates"]))
            columns = [("game", lambda r: Path(r["game"]).stem)]
            if gdl == "I":
                columns += [
                    ("kernel: state changes/s", lambda r: f"{r['rates']['steps']:,.0f}"),
                    ("kernel: playouts/s", lambda r: f"{r['rates']['playouts']:,.0f}"),
                ]
            players_ = [n for n in names if n not in ("steps", "playouts", "clock", "openspiel")]
            columns += [
                (f"{n}: simulations/s", lambda r, n=n: _rate(r["rates"].get(n))) for n in players_
            ]
            if gdl == "I":
                columns += [
                    (
                        "uct (C) / kernel playouts",
                        lambda r: f"{r['rates']['uct (C)'] / r['rates']['playouts']:.2f}",
                    ),
                    ("uct on the clock: simulations/s", lambda r: f"{r['rates']['clock']:,.0f}"),
                    (
                        "on the clock / kernel",
                        lambda r: f"{r['rates']['clock'] / r['rates']['playouts']:.2f}",
                    ),
                ]
            elif "openspiel" in names:
                columns.append(
                    (
                        "OpenSpiel C++ IS-MCTS: simulations/s",
                        lambda r: _rate(r["rates"].get("openspiel")),
                    )
                )
            tables.append(markdown(mine, columns))
        return "\n".join(tables)


def _rate(value) -> str:
    return "" if value is None else f"{value:,.0f}"


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
    assert isinstance(player, InformationSetPlayer), spec
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


def kernel_measures(sm, round_seconds):
    """The kernel's random playouts one at a time from the initial state: a
    measure of its state changes and one of its playouts."""
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


SUITE = SearchSpeed()
