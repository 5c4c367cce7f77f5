"""Outcome-sampling MCCFR on Leduc: ours (ggp/solvers/_mccfr.pyx) beside OpenSpiel's C++
solver, run in the same window.

For each side: iterations a second over ``--seconds`` of iterations and the
exploitability (chips) then; and the exploitability after ``--iterations``
iterations for ``--seeds`` seeds (OpenSpiel's seeds vary by a factor of 2-3, so
compare ranges).  OpenSpiel runs in a separate interpreter (its own venv: ``pip
install open_spiel``) given by ``--openspiel-python``; without one, only our
row is measured.  One core each, one after the other.
"""

from __future__ import annotations

import json
import subprocess
import time

from benchmarks.harness import Suite, markdown
from ggp import load_game
from ggp.solvers.cfr import exploitability
from ggp.solvers.efg import build_tree
from ggp.solvers.mccfr import MCCFRSolver

OPENSPIEL = """
import json, sys, time
import pyspiel
seconds, iterations, seeds = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
game = pyspiel.load_game("leduc_poker")
solver = pyspiel.OutcomeSamplingMCCFRSolver(game, epsilon=0.6, seed=1)
done, start = 0, time.perf_counter()
while time.perf_counter() - start < seconds:
    for _ in range(1000):
        solver.run_iteration()
    done += 1000
elapsed = time.perf_counter() - start
timed = {"iterations": done, "seconds": elapsed,
         "exploitability": pyspiel.exploitability(game, solver.average_policy())}
fixed = []
for seed in range(1, seeds + 1):
    solver = pyspiel.OutcomeSamplingMCCFRSolver(game, epsilon=0.6, seed=seed)
    for _ in range(iterations):
        solver.run_iteration()
    fixed.append(pyspiel.exploitability(game, solver.average_policy()))
print(json.dumps({"timed": timed, "fixed": fixed}))
"""

OURS, THEIRS = "ours (ggp/solvers/_mccfr.pyx)", "OpenSpiel C++ (pyspiel)"


class MccfrSpeed(Suite):
    about = "outcome-sampling MCCFR on Leduc, ours beside OpenSpiel's C++ solver"
    duration = "15 minutes"

    def options(self, parser):
        parser.add_argument("--seconds", type=float, default=60.0)
        parser.add_argument("--iterations", type=int, default=1_000_000)
        parser.add_argument("--seeds", type=int, default=3)
        parser.add_argument(
            "--openspiel-python",
            default=None,
            metavar="PYTHON",
            help="an interpreter with open_spiel installed",
        )

    def jobs(self, args):
        sides = [OURS] + ([THEIRS] if args.openspiel_python else [])
        settings = {"seconds": args.seconds, "iterations": args.iterations, "seeds": args.seeds}
        return [{"solver": side, **settings} for side in sides]

    def measure(self, job, args):
        if job["solver"] == OURS:
            return [
                ours(
                    build_tree(load_game("leduc")), job["seconds"], job["iterations"], job["seeds"]
                )
            ]
        out = subprocess.run(
            [
                args.openspiel_python,
                "-c",
                OPENSPIEL,
                str(job["seconds"]),
                str(job["iterations"]),
                str(job["seeds"]),
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return [json.loads(out.strip().splitlines()[-1])]

    def table(self, rows):
        return markdown(
            rows,
            [
                ("outcome sampling, Leduc", "{solver}"),
                (
                    "iterations / s",
                    lambda r: f"{r['timed']['iterations'] / r['timed']['seconds']:,.0f}",
                ),
                (
                    "after the seconds",
                    lambda r: (
                        f"{r['timed']['iterations']:,} iterations in {r['seconds']:g} s, "
                        f"{r['timed']['exploitability']:.4f} chip"
                    ),
                ),
                (
                    "after the iterations (a seed each)",
                    lambda r: f"{r['iterations']:,}: " + ", ".join(f"{g:.3f}" for g in r["fixed"]),
                ),
            ],
        )


def ours(tree, seconds: float, iterations: int, seeds: int) -> dict:
    solver, done, batch = MCCFRSolver(tree, seed=1), 0, 1000
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        solver.run(batch)
        done += batch
        batch = min(batch * 2, 1_000_000)
    elapsed = time.perf_counter() - start
    timed = {
        "iterations": done,
        "seconds": elapsed,
        "exploitability": exploitability(tree, solver.average_policy()),
    }
    fixed = [
        exploitability(tree, MCCFRSolver(tree, seed=s).run(iterations).average_policy())
        for s in range(1, seeds + 1)
    ]
    return {"timed": timed, "fixed": fixed}


SUITE = MccfrSpeed()
