"""What a learned playout policy does to the playouts: after a search of the
first move, ``--playouts`` playouts from the initial state with the search's
statistics, and per player spec the mean playout length, how often a role
plays the move it played last time (in connectFour, the same column), and
the first role's wins.
"""

from __future__ import annotations

import statistics

import players
from benchmarks.harness import Suite, markdown
from ggp import load_game
from players.base import Observation
from players.perfect.mcts import MCTSPlayer

SPECS = ["uct", "mast:policy=gibbs,tau=10", "mast:epsilon=0.4", "mast:epsilon=0.7"]


class PlayoutShape(Suite):
    about = "what a learned playout policy does to the playouts: length, repeats, first role's wins"
    duration = "1 minute"

    def options(self, parser):
        parser.add_argument("game", help="a .kif path or a name")
        parser.add_argument("--specs", nargs="+", default=SPECS)
        parser.add_argument("--simulations", type=int, default=3000)
        parser.add_argument("--playouts", type=int, default=1000)

    def jobs(self, args):
        return [
            {
                "game": args.game,
                "spec": spec,
                "simulations": args.simulations,
                "playouts": args.playouts,
            }
            for spec in args.specs
        ]

    def measure(self, job, args):
        game = load_game(job["game"])
        return [shape(game, job["spec"], job["simulations"], job["playouts"])]

    def table(self, rows):
        return markdown(
            rows,
            [
                ("player", "{spec}"),
                ("mean playout length", "{length:.1f}"),
                ("a role repeats its last move", "{repeat:.1%}"),
                ("first role wins", "{first:.1%}"),
            ],
        )


def shape(game, spec: str, simulations: int, playouts: int) -> dict:
    player = players.make(
        f"{spec},simulations={simulations},seed=1"
        if ":" in spec
        else f"{spec}:simulations={simulations},seed=1"
    )
    assert isinstance(player, MCTSPlayer), spec
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


SUITE = PlayoutShape()
