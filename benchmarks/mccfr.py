"""Outcome-sampling MCCFR on Leduc: ours (ggp/solvers/_mccfr.pyx) beside OpenSpiel's C++
solver, run in the same window.

    python benchmarks/mccfr.py --seconds 60 --openspiel-python /tmp/osvenv/bin/python

For each side: iterations a second over ``--seconds`` of iterations and the
exploitability (chips) then; and the exploitability after ``--iterations``
iterations for ``--seeds`` seeds (OpenSpiel's seeds vary by a factor of 2-3, so
compare ranges).  OpenSpiel runs in a separate interpreter (its own venv: ``pip
install open_spiel``); without one, only our rows are printed.  One core each,
one after the other.  Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time

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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--iterations", type=int, default=1_000_000)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument(
        "--openspiel-python",
        default=None,
        metavar="PYTHON",
        help="an interpreter with open_spiel installed",
    )
    args = ap.parse_args(argv)
    rows = {
        "ours (ggp/solvers/_mccfr.pyx)": ours(
            build_tree(load_game("leduc")), args.seconds, args.iterations, args.seeds
        )
    }
    if args.openspiel_python:
        out = subprocess.run(
            [
                args.openspiel_python,
                "-c",
                OPENSPIEL,
                str(args.seconds),
                str(args.iterations),
                str(args.seeds),
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        rows["OpenSpiel C++ (pyspiel)"] = json.loads(out.strip().splitlines()[-1])
    print(
        f"| outcome sampling, Leduc | iterations / s | after {args.seconds:g} s "
        f"| after {args.iterations:,} iterations ({args.seeds} seeds) |"
    )
    print("|---|---:|---|---|")
    for name, r in rows.items():
        t = r["timed"]
        fixed = ", ".join(f"{g:.3f}" for g in r["fixed"])
        print(
            f"| {name} | {t['iterations'] / t['seconds']:,.0f} | {t['iterations']:,} "
            f"iterations, {t['exploitability']:.4f} chip | {fixed} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
