"""What an equilibrium and a best response win against uniform random, and how many
matches a 95% Wilson interval (:func:`matches.study.score_interval`) needs before an
equilibrium's mean goal against random measurably lies above the game's mean: the
bar of the head-to-head tables' against-random check (the ``h2h`` report).

The equilibrium is CFR+'s average policy over the game's whole tree (Tammelin,
"Solving Large Imperfect Information Games Using CFR+"); its value and the best
response's against uniform random are exact, averaged over the two seats, in goal
points.  A row a game.
"""

from __future__ import annotations

from benchmarks.harness import Suite, markdown
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


class EquilibriumVsRandom(Suite):
    about = "what an equilibrium and a best response win against random; the matches to show it"
    duration = "1 minute"

    def options(self, parser):
        parser.add_argument("games", nargs="+", help="two-player GDL-II games")
        parser.add_argument("--iterations", type=int, default=2000, help="CFR+ iterations")

    def jobs(self, args):
        return [{"game": game, "iterations": args.iterations} for game in args.games]

    def measure(self, job, args):
        return [figures(job["game"], job["iterations"])]

    def table(self, rows):
        return markdown(
            rows,
            [
                ("game", "{game}"),
                ("CFR+ iterations", "{iterations:,}"),
                ("equilibrium against random", "{equilibrium:.2f}"),
                ("best response against random", "{best_response:.2f}"),
                ("the equilibrium's exploitability", "{exploitability:.4f}"),
                ("the game's mean", "{mean:.1f}"),
                ("matches before the interval is above the mean", "{matches}"),
            ],
        )


def figures(game_name: str, iterations: int) -> dict:
    """The equilibrium's and a best response's mean goal against uniform random
    (over both seats), the equilibrium's exploitability and the game's mean, in goal
    points, with the Wilson matches the equilibrium's figure needs."""
    game = load_game(game_name)
    tree, unit = build_tree(game), utility_unit(game)
    if len(tree.players) != 2:
        raise SystemExit(
            f"equilibrium_vs_random: {game_name} has {len(tree.players)} players, not 2"
        )
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


SUITE = EquilibriumVsRandom()
