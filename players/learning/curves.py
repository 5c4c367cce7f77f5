"""Learning curves: the exploitability of a learner's average policy at
log-spaced episode counts (:func:`checkpoints`), as points
(:class:`CurvePoint`), CSV files (:func:`write_curve`, :func:`read_curve`) and
log-log plots (:func:`plot_curves`, :func:`plot_online`), for every self-play
learner (:mod:`players.learning.selfplay`, :mod:`players.learning.nfsp`),
``ggp solve``'s solvers and ``ggp exploit --online``'s players."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from ggp.solvers.efg import RENAMED, exploitability_in_unit

CSV_FIELDS = (
    "game",
    "player",
    "seed",
    "unit",
    "episodes",
    "seconds",
    "exploitability",
    "exploitability_in_unit",
)


@dataclass(frozen=True)
class CurvePoint:
    """The exploitability (tree's unit) of the average policy after
    ``episodes`` episodes, which took ``seconds`` of training (evaluation
    excluded)."""

    episodes: int
    seconds: float
    exploitability: float


def checkpoints(episodes: int) -> list:
    """Log-spaced episode counts: 1, 2, 5 times 10**k from 1000 below ``episodes``, then
    ``episodes``."""
    points: list[int] = []
    k = 1000
    while k < episodes:
        points.extend(x for x in (k, 2 * k, 5 * k) if x < episodes)
        k *= 10
    return points + [episodes]


def curve_rows(learner, game: str) -> list:
    """``learner``'s curve as rows of a curve file (``CSV_FIELDS``)."""
    return [
        {
            "game": game,
            "player": learner.spec,
            "seed": learner.params["seed"],
            "episodes": p.episodes,
            "seconds": round(p.seconds, 3),
            **learner.tree.in_units(p.exploitability),
        }
        for p in learner.curve
    ]


def write_curve(path, rows: list, append: bool = False, fields: tuple = CSV_FIELDS) -> None:
    """Write ``rows`` to the CSV file ``path`` with columns ``fields`` (after its
    rows with ``append``, in the columns' old names if the file has them,
    :data:`ggp.solvers.efg.RENAMED`; ValueError when that file has other columns)."""
    path = Path(path)
    keep = append and path.is_file() and path.stat().st_size > 0
    if keep:
        with path.open(newline="") as f:
            header = tuple(next(csv.reader(f), []))
        old = tuple(RENAMED.get(name, name) for name in fields)
        if header == old != tuple(fields):  # written before the rename: go on in its names
            rows = [{RENAMED.get(k, k): v for k, v in row.items()} for row in rows]
            fields = old
        elif header != tuple(fields):
            raise ValueError(f"{path} is not a curve file (columns {', '.join(fields)})")
    with path.open("a" if keep else "w", newline="") as f:
        writer = csv.DictWriter(f, fields)
        if not keep:
            writer.writeheader()
        writer.writerows(rows)


def read_curve(path) -> list[dict]:
    """The rows of a curve file, every value as its text."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def plot_curves(csv_path, png_path, x: str = "episodes") -> None:
    """:func:`plot_curve_rows` of the curve file ``csv_path``."""
    plot_curve_rows(read_curve(csv_path), png_path, x)


def plot_curve_rows(rows, png_path, x: str = "episodes") -> None:
    """A log-log plot of every run in ``rows`` (a curve file's, as text or
    numbers): exploitability in the game's unit against episodes (or,
    ``x="seconds"``, training seconds), as the thesis' figures 3.2 and 3.3;
    one line per run (game, player, seed), one colour per game and player."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs: dict[tuple, list] = {}
    for row in rows:
        runs.setdefault((row["game"], row["player"], str(row["seed"])), []).append(
            (float(row[x]), exploitability_in_unit(row), row["unit"])
        )
    games = sorted({game for game, _, _ in runs})
    units = sorted({unit for points in runs.values() for _, _, unit in points})
    seeds: dict[tuple, list] = {}
    for game, player, seed in runs:
        seeds.setdefault((game, player), []).append(seed)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for colour, ((game, player), its_seeds) in enumerate(seeds.items()):
        label: str | None = (
            f"{player} (seed{'s' if len(its_seeds) > 1 else ''} {', '.join(its_seeds)})"
            + (f", {game}" if len(games) > 1 else "")
        )
        for seed in its_seeds:
            xs, gaps, _ = zip(*sorted(p for p in runs[game, player, seed] if p[0] > 0))
            ax.plot(xs, gaps, marker=".", color=f"C{colour % 10}", label=label)
            label = None
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("training seconds (one core)" if x == "seconds" else "episodes")
    ax.set_ylabel(f"exploitability ({' / '.join(units)})")
    ax.set_title(f"self-play: {', '.join(games)}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)


def plot_online(rows, png_path) -> None:
    """Exploitability against the budget a move, log-log, one line per game
    and player, of ``ggp exploit --online``'s rows (a curve file's, as text
    or numbers); a player without a budget is a dashed level line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lines: dict = {}
    for row in rows:
        budget = None if row["budget"] in (None, "", "None") else int(row["budget"])
        lines.setdefault((row["game"], row["player"]), []).append(
            (budget, exploitability_in_unit(row), row["unit"])
        )
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for (game, player), points in lines.items():
        if all(b is None for b, _, _ in points):
            ax.axhline(points[0][1], ls="--", color="grey", label=f"{player} ({game})")
            continue
        points = sorted((b, g) for b, g, _ in points if b is not None)
        ax.plot(*zip(*points), marker="o", label=f"{player} ({game})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("budget a move (iterations or simulations)")
    units = sorted({u for points in lines.values() for _, _, u in points})
    ax.set_ylabel(f"exploitability ({' / '.join(units)})")
    ax.set_title("online players: exploitability of the seeds' average strategy")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)
