"""Learning curves at equal wall time: NFSP, MC-NFSP and NFSP's DQN ablation
beside Smooth UCT, CFR+ and outcome-sampling MCCFR, on Kuhn, Leduc and Liar's Dice.

The DQN ablation (``nfsp:eta=1``; Heinrich and Silver, "Deep Reinforcement
Learning from Self-Play in Imperfect-Information Games", 2016, section 6) is
scored twice: its average policy (label ``dqn``) and its greedy policy
(``dqn-greedy``).
``nfsp-decay`` is NFSP with epsilon's schedule stretched (``decay=10000``),
``nfsp-tuned`` the same with the action values' learning rate at 0.01,
``nfsp-explore`` that with epsilon's schedule stretched ten times more;
``--only`` picks labels, e.g. ``--only nfsp-decay`` for that run alone.

A job is a run (learner and seed): it trains for ``--seconds`` (per learner:
``--seconds-for``) of its own time, in a process of its own, and is scored
by exact exploitability at log-spaced points, a row each (``game, player,
seed, unit, episodes, seconds, exploitability, exploitability_in_unit``, as
``ggp exploit --curve`` writes); the longest runs go first, ``--workers`` at
a time (one per core).  Beside the rows, a log-log plot a game of
exploitability against training seconds (``GAME.png``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from benchmarks.harness import Children, Suite, markdown
from ggp import load_game
from ggp.solvers.cfr import exploitability
from ggp.solvers.efg import build_tree, exploitability_in_unit
from ggp.solvers.solve import solve
from players.learning.curves import checkpoints, plot_curve_rows
from players.learning.selfplay import learner_for

#: What runs: (label in the rows, spec); the spec is a self-play learner or
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


class NfspCurves(Suite):
    about = "NFSP and MC-NFSP learning curves at equal wall time beside Smooth UCT, CFR+, MCCFR"
    duration = "1 hour (Leduc: 10 hours)"
    workers = True

    def __init__(self):
        self.children = Children()

    def options(self, parser):
        parser.add_argument("--game", choices=sorted(LEARNERS), required=True)
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

    def jobs(self, args):
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
        jobs = [
            {
                "game": args.game,
                "label": label,
                "spec": spec,
                "seed": seed,
                "training": seconds.get(label, args.seconds),
            }
            for label, spec in chosen
            for seed in range(args.first_seed, args.first_seed + args.seeds)
        ]
        return sorted(jobs, key=lambda job: -job["training"])  # the longest first

    def start(self, args):
        self.children = Children()

    def stop(self):
        self.children.stop()

    def measure(self, job, args):
        done = self.children.run([sys.executable, "-m", __name__, json.dumps(job)])
        if done is None:  # stopped
            return []
        status, out, err = done
        if status != 0:
            raise SystemExit(f"nfsp_curves: {job['label']} seed {job['seed']}: {err.strip()}")
        return json.loads(out.splitlines()[-1])

    def progress(self, job, rows):
        last = [r for r in rows if r["player"] == job["label"]][-1]
        return (
            f"{job['game']} {job['label']} seed {job['seed']}: {last['episodes']:,} episodes in "
            f"{last['seconds']:.0f} s, exploitability {exploitability_in_unit(last):.4f} "
            f"{last['unit']}"
        )

    def table(self, rows):
        """Per game and learner, its last point of each seed (training seconds,
        episodes a second, exploitability: mean, lowest - highest)."""
        last: dict = {}
        for row in rows:
            key = (row["game"], row["player"], row["seed"])
            if key not in last or float(row["seconds"]) >= float(last[key]["seconds"]):
                last[key] = row
        summary = []
        for (game, label), mine in _by_learner(last).items():
            gaps = [exploitability_in_unit(r) for r in mine]
            summary.append(
                {
                    "game": game,
                    "learner": label,
                    "seeds": len(mine),
                    "seconds": sum(float(r["seconds"]) for r in mine) / len(mine),
                    "rate": sum(int(r["episodes"]) / float(r["seconds"]) for r in mine) / len(mine),
                    "gap": f"{sum(gaps) / len(gaps):.3g}"
                    + (f" ({min(gaps):.3g} - {max(gaps):.3g})" if len(gaps) > 1 else ""),
                    "unit": mine[0]["unit"],
                }
            )
        return markdown(
            summary,
            [
                ("game", "{game}"),
                ("learner", "{learner}"),
                ("seeds", "{seeds}"),
                ("training s", "{seconds:.0f}"),
                ("episodes (iterations) / s", "{rate:,.0f}"),
                ("exploitability", "{gap} {unit}"),
            ],
        )

    def finish(self, rows, args):
        for game in dict.fromkeys(r["game"] for r in rows):
            plot_curve_rows(
                [r for r in rows if r["game"] == game], Path(args.out) / f"{game}.png", "seconds"
            )


def _by_learner(last: dict) -> dict:
    """(game, player) -> the rows of ``last`` of that learner, in order."""
    groups: dict = {}
    for (game, player, _), row in last.items():
        groups.setdefault((game, player), []).append(row)
    return groups


def run(job: dict) -> list:
    """One run: its curve rows (and, for the DQN ablation, its greedy policy's)."""
    game, label, spec, seed, seconds = (
        job["game"],
        job["label"],
        job["spec"],
        job["seed"],
        job["training"],
    )
    tree = build_tree(load_game(game))
    greedy: list = []
    if spec.startswith("solve:"):
        _, curve = solve(tree, spec[6:], None, seconds, seed, checkpoints(10**15)[:-1])
    else:
        learner = learner_for(tree, spec, {"seed": seed})
        curve, points = [], iter(checkpoints(10**15))
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
    return [
        {
            "player": name,
            "episodes": n,
            "seconds": round(t, 3),
            **tree.in_units(gap),
        }
        for name, points in ((label, curve), ("dqn-greedy", greedy))
        for n, t, gap in points
    ]


SUITE = NfspCurves()

if __name__ == "__main__":  # one run, in a process of its own: JOB as JSON
    print(json.dumps(run(json.loads(sys.argv[1]))))
