"""Phantom tic-tac-toe matches of ``smooth-uct`` against ``uct``, roles
alternating: the faults of every match, and how many of smooth-uct's
simulations start from a sampled history whose game is already over (none
should: a role asked to move knows the game is not over).

    python benchmarks/belief_check.py --matches 30 --simulations 300
"""

from __future__ import annotations

import argparse
import collections

import players
from ggp import load_game
from matches.manager import run_match
from players.imperfect.search import InformationSetPlayer


def counted(player, starts: collections.Counter):
    """Wrap the player's ``simulate`` to count the sampled histories that have ended."""
    simulate = player.simulate

    def wrapped(hypothesis):
        starts["over" if player.steps.legal(hypothesis.state) is None else "live"] += 1
        return simulate(hypothesis)

    player.simulate = wrapped


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=30)
    ap.add_argument("--simulations", type=int, default=300)
    ap.add_argument("--game", default="phantomttt")
    args = ap.parse_args(argv)
    game = load_game(args.game)
    specs = [f"smooth-uct:simulations={args.simulations}", f"uct:simulations={args.simulations}"]
    starts, faults = collections.Counter(), collections.Counter()
    for i in range(args.matches):
        order = specs if i % 2 == 0 else specs[::-1]
        seated = {role: players.make(f"{spec},seed={i}") for role, spec in zip(game.roles, order)}
        for player in seated.values():
            if isinstance(player, InformationSetPlayer):
                counted(player, starts)
        record = run_match(game, seated, seed=i)
        for fault in record.faults:
            faults[f"{fault['code']} ({fault['role']})"] += 1
    print(
        f"{args.matches} matches of {args.game}: faults {dict(faults) or 'none'}; "
        f"simulations starting in a finished game: {starts['over']} of {sum(starts.values())}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
