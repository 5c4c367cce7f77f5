"""The experiments of Heinrich, "Smooth UCT Search" (thesis chapter, Section 3.5), with
its own protocol.

* Kuhn poker (figure 3.2): Smooth UCT (c=1.75, gamma=0.1, eta0=0.9, d=0.001) and
  extensive-form UCT (c=2), 20 million episodes, averaged over repeated runs; learning
  measured as the thesis does, by the mean squared error of the average policy to the
  closest Nash equilibrium of Kuhn poker's one-parameter family (Hoehn et al. 2005), and
  also by exploitability.
* Leduc hold'em (figure 3.3): Smooth UCT (c=18, d=0.002) and UCT (c=20), exploitability of
  the average policy, several seeds (the thesis averages five).

The thesis' ``c`` is in chips; the players take it on the utilities' -1..1 scale
(:func:`ggp.solvers.efg.utility_unit`), where a chip is 25 / 50 of a unit in Kuhn and 3 / 39 in
Leduc: c = 0.875 and 1 in Kuhn, 1.3846 and 1.5385 in Leduc.

A job is a run (game, player, seed), a row per checkpoint; beside the rows
``kuhn.png`` and ``leduc.png`` (mean over seeds, band from the lowest to the
highest run), and the table gives the mean and the range at each decade.

The Kuhn equilibria (Hoehn et al., "Effective short-term opponent exploitation in
simplified poker", AAAI 2005): the first player, for some alpha in [0, 1/3], bets a jack
with probability alpha, a king with 3 alpha and never a queen, and after check-bet calls
with a queen with probability alpha + 1/3, always with a king, never with a jack; the
second player calls a bet with a king always, a queen 1/3 of the time, a jack never, and
after a check bets a king always, a jack 1/3 of the time, a queen never.  The squared
error is quadratic in alpha, so the closest equilibrium is found in closed form.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from benchmarks.harness import Suite
from ggp import load_game
from ggp.solvers.efg import build_tree
from players.learning.curves import checkpoints
from players.learning.selfplay import SelfPlay

KUHN_PLAYERS = ("smooth-uct:c=0.875,gamma=0.1,eta0=0.9,d=0.001", "efg-uct:c=1")
LEDUC_PLAYERS = ("smooth-uct:c=1.3846,gamma=0.1,eta0=0.9,d=0.002", "efg-uct:c=1.5385")


def kuhn_situations(tree) -> list:
    """Per information state of Kuhn's tree: (player, card, facing a bet), the
    probability index of its aggressive move (bet or call)."""
    out = []
    for info in tree.infosets:
        found = re.search(r"\(yourcard (\w+)\)", info.key)
        assert found, info.key
        card = found[1]
        facing = "bet)}" in info.key.rsplit("/", 1)[-1]
        out.append(
            (info.player, card, facing, info.moves.index("call" if "call" in info.moves else "bet"))
        )
    return out


def kuhn_mse(policy, situations) -> float:
    """Mean squared error of ``policy`` (per information state, move
    probabilities) to the closest Kuhn Nash equilibrium."""
    p = {
        (pl, card, facing): policy[i][aggressive]
        for i, (pl, card, facing, aggressive) in enumerate(situations)
    }
    alpha = (p[0, "jack", False] + p[0, "queen", True] - 1 / 3 + 3 * p[0, "king", False]) / 11
    alpha = min(max(alpha, 0.0), 1 / 3)
    target = {
        (0, "jack", False): alpha,
        (0, "queen", False): 0.0,
        (0, "king", False): 3 * alpha,
        (0, "jack", True): 0.0,
        (0, "queen", True): alpha + 1 / 3,
        (0, "king", True): 1.0,
        (1, "jack", True): 0.0,
        (1, "queen", True): 1 / 3,
        (1, "king", True): 1.0,
        (1, "jack", False): 1 / 3,
        (1, "queen", False): 0.0,
        (1, "king", False): 1.0,
    }
    # both moves of every information state count, as a policy's squared error
    return sum(2 * (p[k] - v) ** 2 for k, v in target.items()) / (2 * len(target))


class SmoothUctThesis(Suite):
    about = "Smooth UCT and extensive-form UCT in self-play on Kuhn and Leduc, the thesis' protocol"
    duration = "days (Kuhn: 50 seeds of 20 million episodes)"

    def options(self, parser):
        parser.add_argument("--kuhn-seeds", type=int, default=50)
        parser.add_argument("--kuhn-episodes", type=int, default=20_000_000)
        parser.add_argument("--leduc-seeds", type=int, default=5)
        parser.add_argument("--leduc-episodes", type=int, default=500_000_000)

    def jobs(self, args):
        return [
            {"game": game, "player": spec, "seed": seed, "training_episodes": episodes}
            for game, players, seeds, episodes in (
                ("kuhn", KUHN_PLAYERS, args.kuhn_seeds, args.kuhn_episodes),
                ("leduc", LEDUC_PLAYERS, args.leduc_seeds, args.leduc_episodes),
            )
            for spec in players
            for seed in range(seeds)
        ]

    def measure(self, job, args):
        game = job["game"]
        tree = built(game)
        situations = kuhn_situations(tree) if game == "kuhn" else None
        return run(tree, job["player"], job["seed"], job["training_episodes"], situations)

    def progress(self, job, rows):
        return (
            f"{job['game']} {job['player']} seed {job['seed']}: "
            f"{rows[-1]['exploitability']:.5f} ({rows[-1]['seconds']:.0f} s)"
        )

    def table(self, rows):
        tables = []
        for game in dict.fromkeys(r["game"] for r in rows):
            mine = [r for r in rows if r["game"] == game]
            for measure in MEASURES[game]:
                unit = "chips" if measure[0] == "exploitability" else "probability^2"
                tables.append(f"{game}\n\n" + decades(mine, measure[0], unit))
        return "\n\n".join(tables) + "\n"

    def finish(self, rows, args):
        for game in dict.fromkeys(r["game"] for r in rows):
            plot(
                [r for r in rows if r["game"] == game],
                MEASURES[game],
                Path(args.out) / f"{game}.png",
                f"{game}: self-play, Heinrich's protocol",
            )


#: What the table and plot show of a game's rows: (field, axis label).
MEASURES = {
    "kuhn": [
        ("exploitability", "exploitability (chips)"),
        ("mse", "mean squared error to the closest Nash equilibrium"),
    ],
    "leduc": [("exploitability", "exploitability (chips)")],
}


@functools.lru_cache(maxsize=1)
def built(game: str):
    """The game's tree, built once for all its runs."""
    return build_tree(load_game(game))


def run(tree, spec: str, seed: int, episodes: int, situations=None) -> list:
    learner = SelfPlay(tree, spec, seed=seed)
    rows = []
    for point in checkpoints(episodes):
        learner.run(point - learner.episodes)
        policy = learner.average_policy()
        rows.append(
            {
                "episodes": point,
                "seconds": round(learner.seconds, 3),
                "exploitability": learner.exploitability(),
                "mse": kuhn_mse(policy, situations) if situations else None,
            }
        )
    return rows


def summarise(rows: list, measure: str) -> dict:
    """(player, episodes) -> (mean, lowest, highest, runs) of ``measure``."""
    groups: dict = {}
    for r in rows:
        groups.setdefault((r["player"], int(r["episodes"])), []).append(float(r[measure]))
    return {k: (sum(v) / len(v), min(v), max(v), len(v)) for k, v in groups.items()}


def plot(rows: list, measures: list, path: Path, title: str):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(measures), figsize=(6.5 * len(measures), 4.5))
    axes = [axes] if len(measures) == 1 else axes
    for ax, (measure, label) in zip(axes, measures):
        stats = summarise(rows, measure)
        for colour, player in enumerate(sorted({p for p, _ in stats})):
            points = sorted((e, s) for (p, e), s in stats.items() if p == player)
            xs = [e for e, _ in points]
            runs = points[0][1][3]
            ax.plot(
                xs,
                [s[0] for _, s in points],
                color=f"C{colour}",
                label=f"{player} (mean of {runs})",
            )
            ax.fill_between(
                xs,
                [s[1] for _, s in points],
                [s[2] for _, s in points],
                color=f"C{colour}",
                alpha=0.2,
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("episodes")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def decades(rows: list, measure: str, unit: str) -> str:
    """The mean and range over the runs of ``measure`` at every power of ten
    of the episodes and at the end, per player."""
    stats = summarise(rows, measure)
    last = max(e for _, e in stats)
    lines = [
        f"| player | episodes | mean {measure} ({unit}) | lowest | highest | runs |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for (player, episodes), (mean, low, high, n) in sorted(stats.items()):
        if str(episodes).rstrip("0") == "1" or episodes == last:
            lines.append(f"| {player} | {episodes:,} | {mean:.4g} | {low:.4g} | {high:.4g} | {n} |")
    return "\n".join(lines)


SUITE = SmoothUctThesis()
