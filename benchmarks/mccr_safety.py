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
default before the warm-up).  Prints a Markdown table:

    python benchmarks/mccr_safety.py
    python benchmarks/mccr_safety.py --games kuhn:100:1000 iigs4:300:3000
"""

from __future__ import annotations

import argparse

from ggp import load_game
from ggp.solvers.cfr import exploitability
from ggp.solvers.efg import build_tree
from players.imperfect.online import View
from players.registry import player_class

GAMES = ("kuhn:100:1000", "iigs4:300:3000", "leduc:100:1000")
MODES = ("br:0", "br:0.5", "iterations:0", "iterations:0.5")


def continual(view: View, variant: str, values: str, warmup: float, root: int, iterations: int):
    """(blueprint, resolved) exploitability with exact resolves."""
    start = view.flat.move_start

    def as_list(flat_policy):
        return [flat_policy[start[i] : start[i + 1]].tolist() for i in range(len(start) - 1)]

    resolved, blueprint = player_class("mccr").exact_continual(
        view, variant, values, warmup, root, iterations
    )
    return exploitability(view.tree, as_list(blueprint)), exploitability(
        view.tree, as_list(resolved)
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=GAMES, help="GAME:ROOT:ITERATIONS")
    parser.add_argument("--modes", nargs="+", default=MODES, help="VALUES:WARMUP")
    args = parser.parse_args(argv)
    print("| game (T0, TR) | variant | values | warmup | blueprint | resolved | ratio |")
    print("|---|---|---|---:|---:|---:|---:|")
    for spec in args.games:
        name, root, iterations = spec.split(":")
        view = View(build_tree(load_game(name)))
        for variant in ("keep", "reset"):
            for mode in args.modes:
                values, warmup = mode.split(":")
                before, after = continual(
                    view, variant, values, float(warmup), int(root), int(iterations)
                )
                print(
                    f"| {name} ({root}, {iterations}) | {variant} | `{values}` | {warmup} "
                    f"| {before:.5f} | {after:.5f} | {after / before:.2f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
