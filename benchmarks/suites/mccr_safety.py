"""Continual resolving with exact resolves, for every ``values=`` mode of
``mccr`` and the warm-up: the exploitability of the blueprint (the root
solve) and of the strategy continual resolving plays from it, both players,
each solve full-width CFR+ run through ``mccr``'s own resolver
(:class:`players.imperfect.online.Resolver`).  Šustr, Kovařík and Lisý's CR
bound ("Monte Carlo Continual Resolving for Online Strategy Computation in
Imperfect Information Games", AAMAS 2019) says the second may exceed the
first only by the resolves' own errors and the kept values' errors against
the opponent's counterfactual best response; the table shows which values
keep to it.  ``warmup=0`` keeps values averaged over every iteration (the
default before the warm-up).  Games are ``GAME:ROOT:ITERATIONS`` (T0, TR).
"""

from __future__ import annotations

from benchmarks.harness import Suite, markdown
from ggp import load_game
from ggp.solvers.cfr import exploitability
from ggp.solvers.efg import build_tree
from players.imperfect.online import MCCRPlayer, View

GAMES = ("kuhn:100:1000", "iigs4:300:3000", "leduc:100:1000")
MODES = ("br:0", "br:0.5", "iterations:0", "iterations:0.5")


class MccrSafety(Suite):
    about = "mccr with exact resolves: the blueprint's exploitability and continual resolving's"
    duration = "10 minutes"

    def options(self, parser):
        parser.add_argument("--games", nargs="+", default=GAMES, help="GAME:ROOT:ITERATIONS")
        parser.add_argument("--modes", nargs="+", default=MODES, help="VALUES:WARMUP")

    def jobs(self, args):
        jobs = []
        for spec in args.games:
            name, root, iterations = spec.split(":")
            for variant in ("keep", "reset"):
                for mode in args.modes:
                    values, warmup = mode.split(":")
                    jobs.append(
                        {
                            "game": name,
                            "root": int(root),
                            "iterations": int(iterations),
                            "variant": variant,
                            "values": values,
                            "warmup": float(warmup),
                        }
                    )
        return jobs

    def measure(self, job, args):
        view = View(build_tree(load_game(job["game"])))
        before, after = continual(
            view, job["variant"], job["values"], job["warmup"], job["root"], job["iterations"]
        )
        return [{"blueprint": before, "resolved": after}]

    def table(self, rows):
        return markdown(
            rows,
            [
                ("game (T0, TR)", "{game} ({root}, {iterations})"),
                ("variant", "{variant}"),
                ("values", "`{values}`"),
                ("warmup", "{warmup:g}"),
                ("blueprint", "{blueprint:.5f}"),
                ("resolved", "{resolved:.5f}"),
                ("ratio", lambda r: f"{r['resolved'] / r['blueprint']:.2f}"),
            ],
        )


def continual(view: View, variant: str, values: str, warmup: float, root: int, iterations: int):
    """(blueprint, resolved) exploitability with exact resolves."""
    start = view.flat.move_start

    def as_list(flat_policy):
        return [flat_policy[start[i] : start[i + 1]].tolist() for i in range(len(start) - 1)]

    resolved, blueprint = MCCRPlayer.exact_continual(
        view, variant, values, warmup, root, iterations
    )
    return exploitability(view.tree, as_list(blueprint)), exploitability(
        view.tree, as_list(resolved)
    )


SUITE = MccrSafety()
