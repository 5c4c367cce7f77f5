"""Learning curves of Smooth UCT and extensive-form UCT in self-play
(:mod:`players.learning.selfplay`), as ``ggp exploit --player P --curve``
makes them, with the tuned parameters of Heinrich, "Smooth UCT Search"
(Section 3.5):

- Kuhn: smooth-uct c=1.75 gamma=0.1 eta0=0.9 d=0.001; efg-uct c=2 (10 million
  episodes, 3 seeds);
- Leduc: smooth-uct c=18 gamma=0.1 eta0=0.9 d=0.002; efg-uct c=20
  (``--leduc-episodes``, 500 million by default; one seed).

The thesis gives c in chips; here it is on the utilities' -1..1 scale
(:func:`ggp.solvers.efg.utility_unit`): a chip is 25 goal points of Kuhn's half
range of 50 and 3 of Leduc's 39, so c/2 and c*3/39.  A job is a run (game,
player, seed), a row per checkpoint; one run at a time (each is one core).
Beside the rows, a log-log plot a game against episodes (``GAME.png``).
"""

from __future__ import annotations

import functools
from pathlib import Path

from benchmarks.harness import Suite
from benchmarks.suites.smooth_uct_thesis import decades
from ggp import load_game
from ggp.solvers.efg import build_tree, exploitability_in_unit
from players.learning.curves import checkpoints, curve_rows, plot_curve_rows
from players.learning.selfplay import learner_for, train

KUHN = ("smooth-uct:c=0.875,gamma=0.1,eta0=0.9,d=0.001", "efg-uct:c=1")
LEDUC = ("smooth-uct:c=1.3846,gamma=0.1,eta0=0.9,d=0.002", "efg-uct:c=1.5385")


class SelfplayCurves(Suite):
    about = "Smooth UCT and extensive-form UCT self-play curves on Kuhn and Leduc (ggp exploit)"
    duration = "2.5 minutes"

    def options(self, parser):
        parser.add_argument("--kuhn-episodes", type=int, default=10_000_000)
        parser.add_argument("--kuhn-seeds", type=int, default=3)
        parser.add_argument("--leduc-episodes", type=int, default=500_000_000)

    def jobs(self, args):
        kuhn = [
            {"game": "kuhn", "spec": spec, "seed": seed, "training_episodes": args.kuhn_episodes}
            for seed in range(args.kuhn_seeds)
            for spec in KUHN
        ]
        leduc = [
            {"game": "leduc", "spec": spec, "seed": 0, "training_episodes": args.leduc_episodes}
            for spec in LEDUC
        ]
        return kuhn + leduc

    def measure(self, job, args):
        tree = built(job["game"])
        episodes = job["training_episodes"]
        learner = learner_for(tree, job["spec"], {"seed": job["seed"]})
        train(tree, episodes=episodes, learner=learner, points=checkpoints(episodes))
        return [
            {k: v for k, v in row.items() if k not in ("game", "seed")}
            for row in curve_rows(learner, job["game"])
        ]

    def progress(self, job, rows):
        return (
            f"{job['game']} {job['spec']} seed {job['seed']}: {rows[-1]['episodes']:,} "
            f"episodes, exploitability {exploitability_in_unit(rows[-1]):.4f} {rows[-1]['unit']}"
        )

    def table(self, rows):
        """Per game, each player's mean over its runs (lowest, highest) at
        every power of ten of the episodes."""
        tables = []
        for game in dict.fromkeys(r["game"] for r in rows):
            mine = [
                {**r, "exploitability_in_unit": exploitability_in_unit(r)}
                for r in rows
                if r["game"] == game
            ]
            unit = mine[0]["unit"]
            tables.append(f"{game}\n\n" + decades(mine, "exploitability_in_unit", unit))
        return "\n\n".join(tables) + "\n"

    def finish(self, rows, args):
        for game in dict.fromkeys(r["game"] for r in rows):
            plot_curve_rows([r for r in rows if r["game"] == game], Path(args.out) / f"{game}.png")


@functools.lru_cache(maxsize=1)
def built(game: str):
    """The game's tree, built once for all its runs."""
    return build_tree(load_game(game))


SUITE = SelfplayCurves()
