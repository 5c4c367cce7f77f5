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

Every point (a job, a row) is the online exploitability of
:mod:`players.imperfect.evaluation` (each role's strategy run at every decision it
can reach, ``--seeds`` seeds averaged), in the game's declared unit.  Beside the
rows, a plot a sweep and game (``SWEEP_GAME.png``).
"""

from __future__ import annotations

import functools
import time
from pathlib import Path

from benchmarks.harness import Suite, markdown
from ggp import load_game
from ggp.solvers.cfr import exploitability
from ggp.solvers.efg import build_tree, exploitability_in_unit
from players.imperfect.evaluation import online_policy
from players.imperfect.online import View

#: A job's fields (the rest of a row is what was measured).
JOB_FIELDS = ("sweep", "game", "player", "root", "iterations", "epsilon", "seeds")


class MccrBudgets(Suite):
    about = "mccr against its budgets: the root and resolve grid, time, outcome sampling's epsilon"
    duration = "hours a sweep"

    def options(self, parser):
        parser.add_argument("sweep", choices=("grid", "time", "epsilon"))
        parser.add_argument("--game", default="iigs5")
        parser.add_argument("--seeds", type=int, default=5)
        parser.add_argument(
            "--roots",
            type=lambda t: [int(x) for x in t.split(",")],
            default=[100, 1000, 10_000, 100_000],
        )
        parser.add_argument(
            "--budgets",
            type=lambda t: [int(x) for x in t.split(",")],
            default=[100, 1000, 10_000],
        )
        parser.add_argument(
            "--epsilons",
            type=lambda t: [float(x) for x in t.split(",")],
            default=[0.2, 0.4, 0.6, 0.8, 1.0],
        )

    def jobs(self, args):
        return [
            dict(zip(JOB_FIELDS, (args.sweep, args.game, spec, root, iterations, eps, args.seeds)))
            for spec, root, iterations, eps in points(args)
        ]

    def measure(self, job, args):
        game, view = built(job["game"])
        return [
            point(
                game,
                view,
                job["player"],
                job["seeds"],
                job["root"],
                job["iterations"],
                job["epsilon"],
            )
        ]

    def progress(self, job, rows):
        (row,) = rows
        return (
            f"{row['player']} T0={row['root']} TR={row['iterations']} eps={row['epsilon']}: "
            f"{row['exploitability_in_unit']:.4f} {row['unit']}, "
            f"{row['ms_a_decision']} ms a decision evaluated"
        )

    def table(self, rows):
        return markdown(
            rows,
            [
                (heading, lambda r, k=k: "" if r[k] is None else str(r[k]))
                for heading, k in (
                    ("sweep", "sweep"),
                    ("game", "game"),
                    ("player", "player"),
                    ("T0", "root"),
                    ("TR", "iterations"),
                    ("epsilon", "epsilon"),
                    ("seeds", "seeds"),
                )
            ]
            + [
                (
                    "exploitability",
                    lambda r: f"{exploitability_in_unit(r):.4f} {r['unit']}",
                ),
                ("ms a decision evaluated", "{ms_a_decision}"),
            ],
        )

    def finish(self, rows, args):
        for sweep, game in dict.fromkeys((r["sweep"], r["game"]) for r in rows):
            plot(
                [r for r in rows if (r["sweep"], r["game"]) == (sweep, game)],
                sweep,
                Path(args.out) / f"{sweep}_{game}.png",
            )


@functools.lru_cache(maxsize=1)
def built(name: str) -> tuple:
    """The game and its view, built once for all its jobs."""
    game = load_game(name)
    return game, View(build_tree(game))


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
        **view.tree.in_units(exploitability(view.tree, policy)),
        "ms_a_decision": round(1000 * seconds / decisions, 4),
    }


def points(args) -> list:
    """(spec, root, iterations, epsilon) of every point the sweep asks for."""
    if args.sweep == "grid":
        return [
            (f"mccr:variant={v}", t0, tr, None)
            for v in ("keep", "reset")
            for t0 in args.roots
            for tr in args.budgets
        ]
    if args.sweep == "time":
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
                    (r["iterations"], exploitability_in_unit(r))
                    for r in rows
                    if r["player"] == spec and r["root"] == t0
                )
                ax.plot(*zip(*line), marker="o", label=f"{spec}, T0={t0:g}")
        ax.set_xlabel("iterations a resolve (TR)")
    elif command == "time":
        for spec in sorted({r["player"] for r in rows}):
            line = sorted(
                (r["ms_a_decision"], exploitability_in_unit(r)) for r in rows if r["player"] == spec
            )
            ax.plot(*zip(*line), marker="o", label=spec)
        ax.set_xlabel("evaluation milliseconds a decision")
    else:
        for spec in sorted({r["player"] for r in rows}):
            line = sorted(
                (r["epsilon"], exploitability_in_unit(r)) for r in rows if r["player"] == spec
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


SUITE = MccrBudgets()
