"""How long a game's background build keeps other threads from running.

Python runs one thread at a time; a long call in C (a garbage collection, a
pickle read, a C loop that keeps the interpreter's lock) stops every other
thread until it returns, and a player cannot answer on time meanwhile.  This
starts ``Game.build()`` and, until it ends, sleeps 5 ms at a time in the main
thread: every sleep that overshoots by more than ``--over`` seconds is a
stall, printed with the build's stage at the time (its last ``ggp.build`` log
line).  A row a game: the build's seconds, the longest stall and every stall
with its stage.
"""

from __future__ import annotations

import logging
import time

from benchmarks.harness import Suite, markdown
from ggp import load_game


class Stalls(Suite):
    about = "how long a background build keeps every other thread from running"
    duration = "the game's build"

    def options(self, parser):
        parser.add_argument("games", nargs="+", help=".kif paths or names")
        parser.add_argument("--over", type=float, default=0.3, help="seconds a stall must last")

    def jobs(self, args):
        return [{"game": game, "over": args.over} for game in args.games]

    def measure(self, job, args):
        start = time.monotonic()
        stage = ["start"]

        class Stage(logging.Handler):
            def emit(self, record):
                stage[0] = record.getMessage()[:70]

        handler = Stage()
        build_log = logging.getLogger("ggp.build")
        build_log.addHandler(handler)
        build_log.setLevel(logging.INFO)
        try:
            game = load_game(job["game"])
            built = game.build()
            longest, stalls = 0.0, []
            while not built.done():
                before = time.monotonic()
                time.sleep(0.005)
                stall = time.monotonic() - before - 0.005
                longest = max(longest, stall)
                if stall > job["over"]:
                    stalls.append([round(before - start, 1), round(stall, 2), stage[0]])
                    print(f"{before - start:7.1f} s  stalled {stall:5.2f} s  during: {stage[0]}")
        finally:
            build_log.removeHandler(handler)
        return [
            {
                "name": game.name,
                "built": str(built.result()),
                "seconds": round(time.monotonic() - start, 1),
                "longest": round(longest, 2),
                "stalls": stalls,
            }
        ]

    def table(self, rows):
        return markdown(
            rows,
            [
                ("game", "{name}"),
                ("built", "{built}"),
                ("build s", "{seconds}"),
                ("longest stall s", "{longest:.2f}"),
                (
                    "stalls over the bar (at s: lasting s, during)",
                    lambda r: "; ".join(f"{at}: {s:.2f}, {what}" for at, s, what in r["stalls"]),
                ),
            ],
        )


SUITE = Stalls()
