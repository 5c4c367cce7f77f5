"""Learning curves at equal wall time: NFSP, MC-NFSP and NFSP's DQN ablation
beside Smooth UCT, CFR+ and outcome-sampling MCCFR, on Kuhn and Leduc.

The DQN ablation (``nfsp:eta=1``; Heinrich and Silver, "Deep Reinforcement
Learning from Self-Play in Imperfect-Information Games", 2016, section 6) is
scored twice: its average policy (label ``dqn``) and its greedy policy
(``dqn-greedy``).
``nfsp-decay`` is NFSP with epsilon's schedule stretched (``decay=10000``),
``nfsp-tuned`` the same with the action values' learning rate at 0.01,
``nfsp-explore`` that with epsilon's schedule stretched ten times more;
``--only`` picks labels, e.g. ``--only nfsp-decay`` for that run alone.

Every run trains for ``--seconds`` (per game) of its own time and is scored
by exact exploitability at log-spaced points; all runs go to one CSV per game
(``game, player, seed, unit, episodes, seconds, exploitability,
exploitability_in_unit``, as ``ggp exploit --curve`` writes) and a log-log plot
of exploitability against training seconds beside it.  Runs are spread over
``--workers`` processes (one per core):

    python benchmarks/nfsp.py --game leduc --seconds 1800 --seeds 3 --workers 2 \\
        --seconds-for mc-nfsp=600 --seconds-for dqn=600 --seconds-for smooth-uct=30 \\
        --seconds-for cfr+=30 --seconds-for mccfr=30 --out benchmarks/results/nfsp
"""

from __future__ import annotations

import argparse
import csv
import time
from multiprocessing import Pool
from pathlib import Path

from ggp import load_game
from ggp.solvers.cfr import exploitability
from ggp.solvers.efg import build_tree, exploitability_in_unit
from ggp.solvers.solve import solve
from players.learning.curves import CSV_FIELDS, checkpoints, plot_curves
from players.learning.selfplay import learner_for

#: What runs: (label in the files, spec); the spec is a self-play learner or
#: (prefix ``solve:``) a solver of ggp.solvers.solve.solve.  Smooth UCT tuned as in
#: Heinrich, "Smooth UCT Search" (thesis chapter).
LEARNERS = {
    "kuhn": [
        ("nfsp", "nfsp"),
        ("mc-nfsp", "mc-nfsp"),
        ("dqn", "nfsp:eta=1"),
        ("smooth-uct", "smooth-uct:c=0.875,gamma=0.1,eta0=0.9,d=0.001"),
        ("cfr+", "solve:cfr+"),
        ("mccfr", "solve:mccfr"),
    ],
    "leduc": [
        ("nfsp", "nfsp"),
        ("nfsp-decay", "nfsp:decay=10000"),
        ("nfsp-tuned", "nfsp:decay=10000,rl_lr=0.01"),
        ("nfsp-explore", "nfsp:decay=100000,rl_lr=0.01"),
        ("mc-nfsp", "mc-nfsp"),
        ("dqn", "nfsp:eta=1"),
        ("smooth-uct", "smooth-uct:c=1.3846,gamma=0.1,eta0=0.9,d=0.002"),
        ("cfr+", "solve:cfr+"),
        ("mccfr", "solve:mccfr"),
    ],
    # the deepest GDL-II game of games_gdl whose exact best response is quick
    # (221,155 histories, 12 steps): where Zhang et al. ("Monte Carlo Neural Fictitious
    # Self-Play", 2019) say NFSP's DQN falls short
    "liarsdice": [
        ("nfsp", "nfsp"),
        ("nfsp-tuned", "nfsp:decay=10000,rl_lr=0.01"),
        ("mc-nfsp", "mc-nfsp"),
    ],
}


def run(job) -> list:
    """One run: (game, label, spec, seed, seconds) -> its curve rows."""
    game, label, spec, seed, seconds = job
    tree = build_tree(load_game(game))
    if spec.startswith("solve:"):
        _, curve = solve(tree, spec[6:], None, seconds, seed, checkpoints(10**15)[:-1])
    else:
        learner = learner_for(tree, spec, {"seed": seed})
        curve, greedy, points = [], [], iter(checkpoints(10**15))
        target = next(points)
        while learner.seconds < seconds:
            chunk = min(target - learner.episodes, 20_000 if "nfsp" in spec else 10**7)
            learner.run(chunk)
            if learner.episodes >= target or learner.seconds >= seconds:
                point = learner.checkpoint()
                curve.append((point.episodes, point.seconds, point.exploitability))
                if "eta=1" in spec:
                    greedy.append(
                        (
                            point.episodes,
                            point.seconds,
                            exploitability(tree, learner.greedy_policy()),
                        )
                    )
                if learner.episodes >= target:
                    target = next(points)
    if spec.startswith("solve:"):
        greedy = []
    rows = [
        {
            "game": game,
            "player": name,
            "seed": seed,
            "episodes": n,
            "seconds": round(t, 3),
            **tree.in_units(gap),
        }
        for name, points in ((label, curve), ("dqn-greedy", greedy))
        for n, t, gap in points
    ]
    print(
        f"{game} {label} seed {seed}: {curve[-1][0]:,} episodes in {curve[-1][1]:.0f} s, "
        f"exploitability {rows[len(curve) - 1]['exploitability_in_unit']:.4f} "
        f"{tree.display.name}",
        flush=True,
    )
    return rows


def summary(path: Path) -> str:
    """A Markdown table of a results file: per learner, its last point of each
    seed (training seconds, episodes a second, exploitability: mean, lowest - highest)."""
    last: dict = {}
    with path.open(newline="") as f:
        for row in csv.DictReader(f):
            key = (row["player"], row["seed"])
            if key not in last or float(row["seconds"]) >= float(last[key]["seconds"]):
                last[key] = row
    unit = next(iter(last.values()))["unit"]
    lines = [
        f"| learner | seeds | training s | episodes (iterations) / s | exploitability ({unit}) |",
        "|---|---:|---:|---:|---:|",
    ]
    for label in dict.fromkeys(player for player, _ in last):
        rows = [r for (player, _), r in last.items() if player == label]
        gaps = [exploitability_in_unit(r) for r in rows]
        rate = sum(int(r["episodes"]) / float(r["seconds"]) for r in rows) / len(rows)
        seconds = sum(float(r["seconds"]) for r in rows) / len(rows)
        spread = f" ({min(gaps):.3g} - {max(gaps):.3g})" if len(gaps) > 1 else ""
        lines.append(
            f"| {label} | {len(rows)} | {seconds:.0f} | {rate:,.0f} | "
            f"{sum(gaps) / len(gaps):.3g}{spread} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(LEARNERS), required=True)
    parser.add_argument(
        "--summary", action="store_true", help="print the table of the game's results file and stop"
    )
    parser.add_argument("--seconds", type=float, default=60.0, help="training time of a run")
    parser.add_argument(
        "--seconds-for",
        action="append",
        default=[],
        metavar="LABEL=S",
        help="another training time for the runs of one learner",
    )
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--first-seed", type=int, default=1, help="the seeds are FIRST, ...")
    parser.add_argument("--only", default=None, help="comma-separated labels to run")
    parser.add_argument(
        "--spec",
        action="append",
        default=[],
        metavar="LABEL=SPEC",
        help="a learner of one's own to run as well, e.g. "
        "fast=nfsp:rl_lr=0.3 (with --only, name its label)",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/nfsp"))
    args = parser.parse_args()
    if args.summary:
        print(summary(args.out / f"{args.game}.csv"))
        return
    given = [tuple(item.split("=", 1)) for item in args.spec]
    chosen = [
        (label, spec)
        for label, spec in LEARNERS[args.game] + given
        if args.only is None or label in args.only.split(",")
    ]
    seconds = {
        label: float(value)
        for label, _, value in (item.partition("=") for item in args.seconds_for)
    }
    jobs = sorted(
        (
            (args.game, label, spec, seed, seconds.get(label, args.seconds))
            for label, spec in chosen
            for seed in range(args.first_seed, args.first_seed + args.seeds)
        ),
        key=lambda job: -job[-1],
    )  # the longest first, to fill both cores
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"{args.game}.csv"
    keep = path.is_file()
    with Pool(args.workers) as pool, path.open("a" if keep else "w", newline="") as f:
        writer = csv.DictWriter(f, CSV_FIELDS)
        if not keep:
            writer.writeheader()
        for rows in pool.imap_unordered(run, jobs):
            writer.writerows(rows)
            f.flush()
    plot_curves(path, path.with_suffix(".png"), x="seconds")
    started = time.strftime("%Y-%m-%d")
    print(f"{path} and {path.with_suffix('.png')} ({started})")


if __name__ == "__main__":
    main()
