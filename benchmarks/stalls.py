"""How long a game's background build keeps other threads from running.

Python runs one thread at a time; a long call in C (a garbage collection, a
pickle read, a C loop that keeps the interpreter's lock) stops every other
thread until it returns, and a player cannot answer on time meanwhile.  This
starts ``Game.build()`` and, until it ends, sleeps 5 ms at a time in the main
thread: every sleep that overshoots by more than ``--over`` seconds is a
stall, printed with the build's stage at the time (its last ``ggp.build`` log
line), then the longest.

    python benchmarks/stalls.py ../shared/games/gdl1/amazons.kif [--over 0.3]
"""

from __future__ import annotations

import argparse
import logging
import time

from ggp import load_game


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--over", type=float, default=0.3, help="seconds a stall must last")
    args = parser.parse_args(argv)
    start = time.monotonic()
    stage = ["start"]

    class Stage(logging.Handler):
        def emit(self, record):
            stage[0] = record.getMessage()[:70]

    build_log = logging.getLogger("ggp.build")
    build_log.addHandler(Stage())
    build_log.setLevel(logging.INFO)
    game = load_game(args.game)
    built = game.build()
    longest = 0.0
    while not built.done():
        before = time.monotonic()
        time.sleep(0.005)
        stall = time.monotonic() - before - 0.005
        longest = max(longest, stall)
        if stall > args.over:
            print(
                f"{before - start:7.1f} s  stalled {stall:5.2f} s  during: {stage[0]}", flush=True
            )
    print(
        f"{game.name}: built ({built.result()}) in {time.monotonic() - start:.1f} s; "
        f"longest stall {longest:.2f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
