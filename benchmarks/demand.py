"""The demand-driven reasoner against the reference, on the games that do not ground.

Each reasoner walks the same seeded random play from the initial state (a
step: every role's legal moves, the next state, terminality; a new game from
the start at the end) for ``--seconds``; the table gives the steps a second
of each and their ratio, measured in one run:

    python benchmarks/demand.py [--seconds 60] [GAME.kif ...]

Without games it takes the public games that do not ground (chess, amazons,
small_dominion in ../shared/games).
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from ggp import load_game
from ggp.shared import shared_games

#: The games taken without any, under the shared games' folder.
DEFAULT = ("gdl1/chess.kif", "gdl1/amazons.kif", "gdl2/small_dominion.kif")


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", type=Path)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    print("| game | demand steps/s | reference steps/s | ratio |")
    print("|---|---:|---:|---:|")
    for path in args.games or [shared_games() / g for g in DEFAULT]:
        game = load_game(path)
        rates = {}
        for reasoner in ("demand", "reference"):
            steps, seconds = walk(game.state_machine(reasoner), args.seconds)
            rates[reasoner] = steps / seconds
        print(
            f"| {game.name} | {rates['demand']:,.1f} | {rates['reference']:,.3f} | "
            f"{rates['demand'] / rates['reference']:,.0f}x |",
            flush=True,
        )


if __name__ == "__main__":
    main()
