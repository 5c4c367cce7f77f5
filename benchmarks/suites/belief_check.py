"""Phantom tic-tac-toe matches of ``smooth-uct`` against ``uct``, roles
alternating: the faults of every match, and how many of smooth-uct's
simulations start from a sampled history whose game is already over (none
should: a role asked to move knows the game is not over).  A row a match.
"""

from __future__ import annotations

import collections

import players
from benchmarks.harness import Suite, markdown
from ggp import load_game
from matches.manager import run_match
from players.imperfect.search import InformationSetPlayer


class BeliefCheck(Suite):
    about = "smooth-uct against uct on phantom tic-tac-toe: faults, searches from finished games"
    duration = "3 minutes"

    def options(self, parser):
        parser.add_argument("--matches", type=int, default=30)
        parser.add_argument("--simulations", type=int, default=300)
        parser.add_argument("--game", default="phantomttt")

    def jobs(self, args):
        return [
            {"game": args.game, "simulations": args.simulations, "match": i}
            for i in range(args.matches)
        ]

    def measure(self, job, args):
        game, i = load_game(job["game"]), job["match"]
        specs = [
            f"smooth-uct:simulations={job['simulations']}",
            f"uct:simulations={job['simulations']}",
        ]
        order = specs if i % 2 == 0 else specs[::-1]
        seated = {role: players.make(f"{spec},seed={i}") for role, spec in zip(game.roles, order)}
        starts: collections.Counter = collections.Counter()
        for player in seated.values():
            if isinstance(player, InformationSetPlayer):
                counted(player, starts)
        record = run_match(game, seated, seed=i)
        faults = [f"{fault['code']} ({fault['role']})" for fault in record.faults]
        return [
            {"faults": faults, "over": starts["over"], "simulations_seen": sum(starts.values())}
        ]

    def table(self, rows):
        totals: dict = {}
        for r in rows:
            total = totals.setdefault(
                (r["game"], r["simulations"]), {"matches": 0, "faults": [], "over": 0, "seen": 0}
            )
            total["matches"] += 1
            total["faults"] += r["faults"]
            total["over"] += r["over"]
            total["seen"] += r["simulations_seen"]
        return markdown(
            [{"game": g, "simulations": s, **t} for (g, s), t in totals.items()],
            [
                ("game", "{game}"),
                ("simulations a move", "{simulations}"),
                ("matches", "{matches}"),
                (
                    "faults",
                    lambda r: (
                        ", ".join(f"{k} x{n}" for k, n in collections.Counter(r["faults"]).items())
                        or "none"
                    ),
                ),
                ("simulations starting in a finished game", "{over:,} of {seen:,}"),
            ],
        )


def counted(player, starts: collections.Counter):
    """Wrap the player's ``simulate`` to count the sampled histories that have ended."""
    simulate = player.simulate

    def wrapped(hypothesis):
        starts["over" if player.steps.legal(hypothesis.state) is None else "live"] += 1
        return simulate(hypothesis)

    player.simulate = wrapped


SUITE = BeliefCheck()
