"""The demand-driven reasoner against the reference, on the games that do not ground.

Each reasoner walks the same seeded random play from the initial state (a
step: every role's legal moves, the next state, terminality; a new game from
the start at the end) for ``--seconds``; a row a game gives the steps a second
of each and their ratio, measured in one run.  Without games it takes the
public games that do not ground (chess, amazons, small_dominion in
../shared/games).
"""

from __future__ import annotations

import random
import time

from benchmarks.harness import Suite, markdown
from ggp import load_game
from ggp.shared import shared_games

#: The games taken without any, under the shared games' folder.
DEFAULT = ("gdl1/chess.kif", "gdl1/amazons.kif", "gdl2/small_dominion.kif")


class DemandSpeed(Suite):
    about = "the demand-driven reasoner against the reference on games that do not ground"
    duration = "6 minutes"

    def options(self, parser):
        parser.add_argument("games", nargs="*", help="paths (default: those that do not ground)")
        parser.add_argument("--seconds", type=float, default=60.0)

    def jobs(self, args):
        paths = args.games or [str(shared_games() / g) for g in DEFAULT]
        return [{"game": str(path), "seconds": args.seconds} for path in paths]

    def measure(self, job, args):
        game = load_game(job["game"])
        rates = {}
        for reasoner in ("demand", "reference"):
            steps, seconds = walk(game.state_machine(reasoner), job["seconds"])
            rates[reasoner] = steps / seconds
        return [{"name": game.name, **rates}]

    def table(self, rows):
        return markdown(
            rows,
            [
                ("game", "{name}"),
                ("demand steps/s", "{demand:,.1f}"),
                ("reference steps/s", "{reference:,.3f}"),
                ("ratio", lambda r: f"{r['demand'] / r['reference']:,.0f}x"),
            ],
        )


def walk(sm, seconds: float, seed: int = 1) -> tuple:
    """(steps, seconds) of seeded random play for about ``seconds`` (one step at least)."""
    rng = random.Random(seed)
    state, steps = sm.initial_state(), 0
    start = time.perf_counter()
    while steps == 0 or time.perf_counter() - start < seconds:
        if sm.is_terminal(state):
            state = sm.initial_state()
        state = sm.next_state(state, tuple(rng.choice(m) for m in sm.all_legal_moves(state)))
        steps += 1
    return steps, time.perf_counter() - start


SUITE = DemandSpeed()
