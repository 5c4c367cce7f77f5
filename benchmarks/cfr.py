"""Speed of CFR and CFR+ (ggp/solvers/_cfr.pyx) on our GDL-II Kuhn and Leduc, and how fast CFR+
brings Leduc below an exploitability target.

    python benchmarks/cfr.py --seconds 5

For each game and algorithm: iterations a second over ``--seconds`` of iterations (the
tree built and flattened beforehand, not timed).  Then CFR+ on Leduc from scratch,
checking the exploitability of the average policy every ``--every`` iterations until it
is below ``--target`` chips: the iterations and the seconds it took, with and without
the checks (a check is an exact best response, the dearer part).  One core; prints a
Markdown table.
"""

from __future__ import annotations

import argparse
import sys
import time

from ggp import load_game
from ggp.solvers.cfr import CFRSolver, exploitability
from ggp.solvers.efg import build_tree


def rate(tree, plus: bool, seconds: float) -> float:
    """Iterations a second, in batches that double until ``seconds`` have passed."""
    solver, done, batch = CFRSolver(tree, plus=plus), 0, 10
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        solver.run(batch)
        done += batch
        batch *= 2
    return done / (time.perf_counter() - start)


def to_target(tree, target: float, every: int) -> dict:
    solver = CFRSolver(tree, plus=True)
    iterations, solving, checking = 0, 0.0, 0.0
    trajectory = []
    while True:
        start = time.perf_counter()
        solver.run(every)
        solving += time.perf_counter() - start
        iterations += every
        start = time.perf_counter()
        gap = exploitability(tree, solver.average_policy())
        checking += time.perf_counter() - start
        trajectory.append((iterations, gap))
        if gap < target:
            return {
                "iterations": iterations,
                "exploitability": gap,
                "solving": solving,
                "checking": checking,
                "trajectory": trajectory,
            }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--target", type=float, default=1e-5)
    ap.add_argument("--every", type=int, default=100)
    args = ap.parse_args(argv)
    trees = {game: build_tree(load_game(game)) for game in ("kuhn", "leduc")}
    print("| game | algorithm | iterations / s |\n|---|---|---:|")
    for game, tree in trees.items():
        for plus in (False, True):
            print(
                f"| {game} | {'CFR+' if plus else 'CFR'} | {rate(tree, plus, args.seconds):,.0f} |",
                flush=True,
            )
    result = to_target(trees["leduc"], args.target, args.every)
    print(
        f"\nLeduc CFR+ below {args.target:g} chip: {result['iterations']:,} iterations "
        f"({result['exploitability']:.3g}), {result['solving']:.2f} s of iterations "
        f"+ {result['checking']:.2f} s of checks every {args.every}"
    )
    marks = {1000, 2000, 5000}
    print(
        "trajectory: "
        + ", ".join(f"{gap:.2g} at {it:,}" for it, gap in result["trajectory"] if it in marks)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
