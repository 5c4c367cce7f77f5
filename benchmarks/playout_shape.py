"""What a learned playout policy does to the playouts: after a search of the
first move, ``--playouts`` playouts from the initial state with the search's
statistics, and per player spec the mean playout length, how often a role
plays the move it played last time (in connectFour, the same column), and
the first role's wins.

    python benchmarks/playout_shape.py ../shared/games/gdl1/connectFour.kif
"""

from __future__ import annotations

import argparse
import statistics

import players
from ggp import load_game
from players.base import Observation

SPECS = ["uct", "mast:policy=gibbs,tau=10", "mast:epsilon=0.4", "mast:epsilon=0.7"]


def shape(game, spec: str, simulations: int, playouts: int) -> dict:
    player = players.make(
        f"{spec},simulations={simulations},seed=1"
        if ":" in spec
        else f"{spec}:simulations={simulations},seed=1"
    )
    player.start(game, game.roles[0], 10, 10)
    player.play(Observation())
    policy, moves_of = player.search.policy, player.sm._moves
    lengths, repeats, pairs, first_wins = [], 0, 0, 0
    for _ in range(playouts):
        goals, depth, _, joints = policy.playout(player.position(), [], 0, 10000, True)
        lengths.append(depth)
        first_wins += goals[0] > max(goals[1:], default=-1)
        for r in range(len(goals)):
            own = [moves_of[j[r]] for j in joints if moves_of[j[r]] != "noop"]
            repeats += sum(a == b for a, b in zip(own, own[1:]))
            pairs += max(0, len(own) - 1)
    return {
        "length": statistics.mean(lengths),
        "repeat": repeats / max(1, pairs),
        "first": first_wins / playouts,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("--specs", nargs="+", default=SPECS)
    ap.add_argument("--simulations", type=int, default=3000)
    ap.add_argument("--playouts", type=int, default=1000)
    args = ap.parse_args(argv)
    game = load_game(args.game)
    print("| player | mean playout length | a role repeats its last move | first role wins |")
    print("|---|---:|---:|---:|")
    for spec in args.specs:
        s = shape(game, spec, args.simulations, args.playouts)
        print(f"| {spec} | {s['length']:.1f} | {s['repeat']:.1%} | {s['first']:.1%} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
