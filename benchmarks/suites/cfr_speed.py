"""Speed of CFR and CFR+ (ggp/solvers/_cfr.pyx) on our GDL-II Kuhn and Leduc, and how fast CFR+
brings Leduc below an exploitability target.

For each game and algorithm: iterations a second over ``--seconds`` of iterations (the
tree built and flattened beforehand, not timed).  Then CFR+ on Leduc from scratch,
checking the exploitability of the average policy every ``--every`` iterations until it
is below ``--target`` chips: the iterations and the seconds it took, with and without
the checks (a check is an exact best response, the dearer part), and the
exploitability at 1,000, 2,000 and 5,000 iterations.  One core.
"""

from __future__ import annotations

import time

from benchmarks.harness import Suite, markdown
from ggp import load_game
from ggp.solvers.cfr import CFRSolver, exploitability
from ggp.solvers.efg import build_tree

#: The iterations whose exploitability the row to the target keeps.
MARKS = (1000, 2000, 5000)


class CfrSpeed(Suite):
    about = "CFR and CFR+ iterations a second on Kuhn and Leduc; CFR+ to a target on Leduc"
    duration = "1 minute"

    def options(self, parser):
        parser.add_argument("--seconds", type=float, default=5.0)
        parser.add_argument("--target", type=float, default=1e-5)
        parser.add_argument("--every", type=int, default=100)

    def jobs(self, args):
        return [
            {"game": game, "algorithm": algorithm, "seconds": args.seconds}
            for game in ("kuhn", "leduc")
            for algorithm in ("CFR", "CFR+")
        ] + [{"game": "leduc", "algorithm": "CFR+", "target": args.target, "every": args.every}]

    def measure(self, job, args):
        tree = build_tree(load_game(job["game"]))
        if "target" in job:
            return [to_target(tree, job["target"], job["every"])]
        return [{"per_second": rate(tree, job["algorithm"] == "CFR+", job["seconds"])}]

    def table(self, rows):
        timed = [r for r in rows if "per_second" in r]
        lines = [
            markdown(
                timed,
                [
                    ("game", "{game}"),
                    ("algorithm", "{algorithm}"),
                    ("iterations / s", "{per_second:,.0f}"),
                ],
            )
        ]
        for r in rows:
            if "target" in r:
                lines.append(
                    f"\n{r['game']} {r['algorithm']} below {r['target']:g} chip: "
                    f"{r['iterations']:,} iterations ({r['exploitability']:.3g}), "
                    f"{r['solving']:.2f} s of iterations + {r['checking']:.2f} s of checks "
                    f"every {r['every']}; trajectory: "
                    + ", ".join(f"{gap:.2g} at {it:,}" for it, gap in r["marks"])
                    + "\n"
                )
        return "".join(lines)


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
    marks = []
    while True:
        start = time.perf_counter()
        solver.run(every)
        solving += time.perf_counter() - start
        iterations += every
        start = time.perf_counter()
        gap = exploitability(tree, solver.average_policy())
        checking += time.perf_counter() - start
        if iterations in MARKS:
            marks.append((iterations, gap))
        if gap < target:
            return {
                "iterations": iterations,
                "exploitability": gap,
                "solving": solving,
                "checking": checking,
                "marks": marks,
            }


SUITE = CfrSpeed()
