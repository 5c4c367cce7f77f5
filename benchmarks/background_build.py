"""A compiled build in the background, in a thread or in a process, alone and
beside a search on the fallback reasoner (README, "Matches": "Ready within the
start clock").

Two designs of :meth:`ggp.Game.build`, measured side by side on the same
machine, one after the other for each game and repetition:

* ``thread``: ``game.state_machine("compiled")`` in a thread of this process
  (grounding is Python: it holds the interpreter's lock against the search);
* ``process``: ``game.build("compiled")`` as the project does it (grounding in
  a fresh Python process, the network and kernel built here from its ground
  program).

For each: the build's wall time alone; then its wall time while a ``uct``
player on the fallback reasoner thinks in this process's main thread until the
build is done, with the player's simulations a second meanwhile, beside the
same player's simulations a second with no build running (``alone``).

    python benchmarks/background_build.py ../shared/games/gdl1/checkers.kif \\
        ../shared/games/corpus/shogi_ctk.kif --repeat 2
"""
from __future__ import annotations

import argparse
import threading
import time
import warnings

import players
from ggp import load_game


def build(game, design: str):
    """Start the compiled build of ``game`` by ``design``; a function that
    says whether it is done."""
    if design == "process":
        return game.build("compiled").done
    thread = threading.Thread(target=game.state_machine, args=("compiled",), daemon=True)
    thread.start()
    return lambda: not thread.is_alive()


def searching(game, fallback: str, until, slice_seconds: float = 0.25) -> tuple:
    """(simulations, seconds) of a ``uct`` player on ``fallback`` thinking
    about the first move in slices until ``until()`` is true."""
    player = players.make(f"uct:reasoner={fallback},seed=1")
    player.start(game, game.roles[0], start_clock=0.0, play_clock=1.0)
    simulations, start = 0, time.monotonic()
    while not until():
        player.think(time.monotonic() + slice_seconds)
        simulations += player.last_simulations
    return simulations, time.monotonic() - start


def measure(path: str, design: str, fallback: str) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.monotonic()
        done = build(load_game(path), design)
        while not done():
            time.sleep(0.01)
        alone = time.monotonic() - start
        game = load_game(path)
        start = time.monotonic()
        done = build(game, design)
        simulations, _ = searching(game, fallback, done)
        beside = time.monotonic() - start
        quiet, seconds = searching(load_game(path), fallback,
                                   lambda deadline=time.monotonic() + beside:
                                   time.monotonic() >= deadline)
    return {"game": path.rsplit("/", 1)[-1].removesuffix(".kif"), "design": design,
            "build alone s": round(alone, 1), "build beside search s": round(beside, 1),
            "sims/s beside build": round(simulations / beside, 1),
            "sims/s alone": round(quiet / seconds, 1)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="+")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--fallback", default="demand", choices=("demand", "reference"))
    args = parser.parse_args(argv)
    rows = [measure(path, design, args.fallback)
            for path in args.games for _ in range(args.repeat)
            for design in ("thread", "process")]
    keys = list(rows[0])
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for row in rows:
        print("| " + " | ".join(str(row[k]) for k in keys) + " |", flush=True)


if __name__ == "__main__":
    main()
