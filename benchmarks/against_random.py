"""What an equilibrium and a best response win against uniform random, and how many
matches a 95% Wilson interval (:func:`matches.study.score_interval`) needs before an
equilibrium's mean goal against random measurably lies above the game's mean: the
bar of the head-to-head tables' against-random check (``benchmarks/h2h.py``).

    python benchmarks/against_random.py leduc --iterations 2000

The equilibrium is CFR+'s average policy over the game's whole tree (Tammelin,
"Solving Large Imperfect Information Games Using CFR+"); its value and the best
response's against uniform random are exact, averaged over the two seats, in goal
points.  One line a figure.
"""

from __future__ import annotations

import argparse

from ggp import load_game
from ggp.solvers.cfr import (
    CFRSolver,
    best_response_value,
    expected_values,
    exploitability,
    uniform_policy,
)
from ggp.solvers.efg import build_tree, utility_unit
from matches.study import score_interval


def figures(game_name: str, iterations: int) -> dict:
    """The equilibrium's and a best response's mean goal against uniform random
    (over both seats), the equilibrium's exploitability and the game's mean, in goal
    points, with the Wilson matches the equilibrium's figure needs."""
    game = load_game(game_name)
    tree, unit = build_tree(game), utility_unit(game)
    if len(tree.players) != 2:
        raise SystemExit(f"against_random: {game_name} has {len(tree.players)} players, not 2")
    average = CFRSolver(tree, plus=True).run(iterations).average_policy()
    uniform = uniform_policy(tree)
    equilibrium = best = 0.0
    for seat in range(2):
        mixed = [
            average[i] if info.player == seat else uniform[i]
            for i, info in enumerate(tree.infosets)
        ]
        equilibrium += expected_values(tree, mixed)[seat] / 2
        best += best_response_value(tree, uniform, seat) / 2
    # the players' average goal: the game's mean in a constant-sum game
    mean = unit.offset + unit.scale * sum(expected_values(tree, uniform)) / 2
    goal = unit.offset + unit.scale * equilibrium
    return {
        "equilibrium": goal,
        "best_response": unit.offset + unit.scale * best,
        "exploitability": unit.scale * exploitability(tree, average),
        "mean": mean,
        "matches": matches_needed(goal, mean),
    }


def matches_needed(goal: float, mean: float, most: int = 10**6) -> int | None:
    """The fewest matches of mean ``goal`` whose Wilson interval lies above
    ``mean``; None when even ``most`` are not enough."""
    if score_interval([goal] * most)[0] <= mean:
        return None
    low, high = 1, most
    while low < high:
        middle = (low + high) // 2
        if score_interval([goal] * middle)[0] > mean:
            high = middle
        else:
            low = middle + 1
    return low


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("--iterations", type=int, default=2000, help="CFR+ iterations")
    args = ap.parse_args(argv)
    f = figures(args.game, args.iterations)
    print(f"equilibrium against random: {f['equilibrium']:.2f} goal points")
    print(f"best response against random: {f['best_response']:.2f}")
    print(f"the equilibrium's exploitability: {f['exploitability']:.4f}")
    print(f"the game's mean: {f['mean']:.1f}")
    print(
        f"matches before a Wilson interval at the equilibrium's figure is above it: {f['matches']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
