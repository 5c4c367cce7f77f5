"""Monte Carlo Continual Resolving against its budgets, as Šustr, Kovařík and Lisý
measure it ("Monte Carlo Continual Resolving for Online Strategy Computation in
Imperfect Information Games", AAMAS 2019; the results on slides 46-50 of their
"Monte Carlo Continual Resolving" slides):

- ``grid``: the exploitability of ``mccr`` (``keep`` and ``reset``) over a grid
  of root (preplay) iterations T0 and iterations a resolve TR (slides 46-47),
  whose rows and columns are the slices of slide 48;
- ``time``: ``mccr``, ``oos`` and ``mccfr`` at the same iteration budgets,
  with the evaluation's milliseconds per decision evaluated (the x axis):
  work shared between decisions (a root solve, a resolve above several
  decisions) is spread over them, so this is not a player's thinking time a
  move, slide 49's axis;
- ``epsilon``: exploitability against outcome sampling's exploration epsilon
  at a fixed budget (slide 50).

Every point is the online exploitability of :mod:`players.imperfect.evaluation` (each
role's strategy run at every decision it can reach, ``--seeds`` seeds
averaged), in the game's declared unit.  One CSV a run, with a PNG beside it:

    python benchmarks/mccr_budgets.py grid --game iigs5 --seeds 5 --out grid.csv
    python benchmarks/mccr_budgets.py time --game leduc --seeds 5 --out time.csv
    python benchmarks/mccr_budgets.py epsilon --game iigs5 --seeds 5 --out eps.csv
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

from ggp import load_game
from ggp.solvers.cfr import exploitability
from ggp.solvers.efg import build_tree
from players.imperfect.evaluation import online_policy
from players.imperfect.online import View

FIELDS = (
    "game",
    "player",
    "root",
    "iterations",
    "epsilon",
    "seeds",
    "unit",
    "exploitability",
    "exploitability_in_unit",
    "ms_a_decision",
)


def point(game, view, spec: str, seeds: int, root, iterations, epsilon) -> dict:
    """One measured point of ``spec`` (its budgets and epsilon given apart)."""
    options = [f"iterations={iterations}"]
    if root is not None:
        options.append(f"root={root}")
    if epsilon is not None:
        options.append(f"epsilon={epsilon}")
    full = spec + (":" if ":" not in spec else ",") + ",".join(options)
    began = time.perf_counter()
    policy = online_policy(game, view, full, seeds, None)
    seconds = time.perf_counter() - began
    decisions = seeds * len(view.tree.infosets)
    return {
        "game": game.name,
        "player": spec,
        "root": root,
        "iterations": iterations,
        "epsilon": epsilon,
        "seeds": seeds,
        **view.tree.in_units(exploitability(view.tree, policy)),
        "ms_a_decision": round(1000 * seconds / decisions, 4),
    }


def jobs(args) -> list:
    """(spec, root, iterations, epsilon) of every point the command asks for."""
    if args.command == "grid":
        return [
            (f"mccr:variant={v}", t0, tr, None)
            for v in ("keep", "reset")
            for t0 in args.roots
            for tr in args.budgets
        ]
    if args.command == "time":
        return [
            (spec, None, b, None)
            for spec in ("mccr", "mccr:variant=reset", "oos", "mccfr")
            for b in args.budgets
        ]
    return [
        (f"mccr:variant={v}", None, args.budgets[-1], e)
        for v in ("keep", "reset")
        for e in args.epsilons
    ]


def plot(rows: list, command: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    if command == "grid":
        for spec in sorted({r["player"] for r in rows}):
            for t0 in sorted({r["root"] for r in rows}):
                line = sorted(
                    (r["iterations"], r["exploitability_in_unit"])
                    for r in rows
                    if r["player"] == spec and r["root"] == t0
                )
                ax.plot(*zip(*line), marker="o", label=f"{spec}, T0={t0:g}")
        ax.set_xlabel("iterations a resolve (TR)")
    elif command == "time":
        for spec in sorted({r["player"] for r in rows}):
            line = sorted(
                (r["ms_a_decision"], r["exploitability_in_unit"])
                for r in rows
                if r["player"] == spec
            )
            ax.plot(*zip(*line), marker="o", label=spec)
        ax.set_xlabel("evaluation milliseconds a decision")
    else:
        for spec in sorted({r["player"] for r in rows}):
            line = sorted(
                (r["epsilon"], r["exploitability_in_unit"]) for r in rows if r["player"] == spec
            )
            ax.plot(*zip(*line), marker="o", label=spec)
        ax.set_xlabel("outcome sampling's epsilon")
    if command != "epsilon":
        ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylabel(f"exploitability ({rows[0]['unit']})")
    ax.set_title(f"{rows[0]['game']}: {command}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("grid", "time", "epsilon"))
    parser.add_argument("--game", default="iigs5")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument(
        "--roots",
        type=lambda t: [int(x) for x in t.split(",")],
        default=[100, 1000, 10_000, 100_000],
    )
    parser.add_argument(
        "--budgets", type=lambda t: [int(x) for x in t.split(",")], default=[100, 1000, 10_000]
    )
    parser.add_argument(
        "--epsilons",
        type=lambda t: [float(x) for x in t.split(",")],
        default=[0.2, 0.4, 0.6, 0.8, 1.0],
    )
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    game = load_game(args.game)
    view = View(build_tree(game))
    rows = []
    with args.out.open("w", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        writer.writeheader()
        for spec, root, iterations, epsilon in jobs(args):
            rows.append(point(game, view, spec, args.seeds, root, iterations, epsilon))
            writer.writerow(rows[-1])
            f.flush()
            print(
                f"{spec} T0={root} TR={iterations} eps={epsilon}: "
                f"{rows[-1]['exploitability_in_unit']:.4f} {rows[-1]['unit']}, "
                f"{rows[-1]['ms_a_decision']} ms a decision evaluated",
                flush=True,
            )
    plot(rows, args.command, args.out.with_suffix(".png"))
    print(f"{args.out} and {args.out.with_suffix('.png')}")


if __name__ == "__main__":
    main()
