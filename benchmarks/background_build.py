"""A compiled build in the background, in a thread or in a process, alone and
beside a search on the fallback reasoner (docs/matches.md, "Ready within
the start clock").

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

With ``--memory``, each design's build in a fresh process of its own: the
memory of that (the player's) process at its peak and after the build.

With ``--fallbacks``, which fallback to search on: per game and reasoner
(demand-driven, reference), the seconds to build its machine and a ``uct``
player's simulations a second on it, thinking about the first move for
``--seconds``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import threading
import time
import warnings

import players
from ggp import load_game
from ggp.reasoners import COMPILED


def build(game, design: str):
    """Start the compiled build of ``game`` by ``design``; a function that
    says whether it is done."""
    if design == "process":
        return game.build(COMPILED).done
    thread = threading.Thread(target=game.state_machine, args=(COMPILED,), daemon=True)
    thread.start()
    return lambda: not thread.is_alive()


def searching(game, fallback: str, until, slice_seconds: float = 2.0) -> tuple:
    """(simulations, seconds) of a ``uct`` player on ``fallback`` thinking
    about the first move in slices until ``until()`` is true (a playout that
    would not end within its slice is not started: slices as long as a play
    clock)."""
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
        quiet, seconds = searching(
            load_game(path),
            fallback,
            lambda deadline=time.monotonic() + beside: time.monotonic() >= deadline,
        )
    return {
        "game": path.rsplit("/", 1)[-1].removesuffix(".kif"),
        "design": design,
        "build alone s": round(alone, 1),
        "build beside search s": round(beside, 1),
        "sims/s beside build": round(simulations / beside, 1),
        "sims/s alone": round(quiet / seconds, 1),
    }


def memory(path: str, design: str) -> dict:
    """The build by ``design`` in this process: its resident memory at the
    peak and after (MB)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        done = build(load_game(path), design)
        while not done():
            time.sleep(0.01)
    with open("/proc/self/statm") as statm:
        after = int(statm.read().split()[1]) * resource.getpagesize() / 2**20
    return {
        "game": path.rsplit("/", 1)[-1].removesuffix(".kif"),
        "design": design,
        "peak MB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "after MB": round(after),
    }


def in_a_process(path: str, design: str) -> dict:
    """:func:`memory` in a fresh process (peaks are per process)."""
    done = subprocess.run(
        [sys.executable, __file__, "--memory-here", design, path],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.splitlines()[-1])


def fallback(path: str, reasoner: str, seconds: float) -> dict:
    game = load_game(path)
    start = time.monotonic()
    game.state_machine(reasoner)
    built = time.monotonic() - start
    simulations, spent = searching(
        game,
        reasoner,
        lambda deadline=time.monotonic() + seconds: time.monotonic() >= deadline,
        seconds,
    )
    return {
        "game": path.rsplit("/", 1)[-1].removesuffix(".kif"),
        "reasoner": reasoner,
        "machine built s": round(built, 2),
        "uct sims/s": round(simulations / spent, 2),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="+")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--fallback", default="demand", choices=("demand", "reference"))
    parser.add_argument("--fallbacks", action="store_true")
    parser.add_argument("--memory", action="store_true")
    parser.add_argument("--memory-here", choices=("thread", "process"), help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args(argv)
    if args.memory_here:
        print(json.dumps(memory(args.games[0], args.memory_here)))
        return
    if args.memory:
        rows = (
            in_a_process(path, design)
            for path in args.games
            for _ in range(args.repeat)
            for design in ("thread", "process")
        )
    elif args.fallbacks:
        rows = (
            fallback(path, reasoner, args.seconds)
            for path in args.games
            for _ in range(args.repeat)
            for reasoner in ("demand", "reference")
        )
    else:
        rows = (
            measure(path, design, args.fallback)
            for path in args.games
            for _ in range(args.repeat)
            for design in ("thread", "process")
        )
    for i, row in enumerate(rows):
        if i == 0:
            print("| " + " | ".join(row) + " |")
            print("|" + "---|" * len(row))
        print("| " + " | ".join(str(v) for v in row.values()) + " |", flush=True)


if __name__ == "__main__":
    main()
