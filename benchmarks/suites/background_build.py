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

With ``--memory``, each design's build in a fresh process of its own: the
memory of that (the player's) process at its peak and after the build.

With ``--fallbacks``, which fallback to search on: per game and reasoner
(demand-driven, reference), the seconds to build its machine and a ``uct``
player's simulations a second on it, thinking about the first move for
``--seconds``.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import players
from benchmarks.harness import Suite, child_env, markdown
from ggp import load_game
from ggp.reasoners import COMPILED
from players.perfect.mcts import MCTSPlayer

#: A job's fields (the rest of a row is what was measured).
JOB_FIELDS = ("measure", "game", "repeat", "way", "seconds", "fallback")


class BackgroundBuild(Suite):
    about = "a compiled build in the background (thread or process) beside a search"
    duration = "the games' builds, several times"

    def options(self, parser):
        parser.add_argument("games", nargs="+", help=".kif paths or names")
        parser.add_argument("--repeat", type=int, default=1)
        parser.add_argument("--fallback", default="demand", choices=("demand", "reference"))
        parser.add_argument("--fallbacks", action="store_true")
        parser.add_argument("--memory", action="store_true")
        parser.add_argument("--seconds", type=float, default=10.0)

    def jobs(self, args):
        if args.fallbacks:
            kind, settings = "fallback", {"seconds": args.seconds}
        else:
            kind, settings = (
                ("memory", {}) if args.memory else ("beside", {"fallback": args.fallback})
            )
        ways = ("demand", "reference") if args.fallbacks else ("thread", "process")
        return [
            {"measure": kind, "game": path, "repeat": r, "way": way, **settings}
            for path in args.games
            for r in range(args.repeat)
            for way in ways
        ]

    def measure(self, job, args):
        path, way = job["game"], job["way"]
        if job["measure"] == "memory":
            return [in_a_process(path, way)]
        if job["measure"] == "fallback":
            return [fallback(path, way, job["seconds"])]
        return [beside(path, way, job["fallback"])]

    def table(self, rows):
        tables = []
        for kind in ("beside", "memory", "fallback"):
            mine = [r for r in rows if r["measure"] == kind]
            if mine:
                way = "reasoner" if kind == "fallback" else "design"
                measured = [k for k in mine[0] if k not in JOB_FIELDS]
                columns = [
                    ("game", lambda r: Path(r["game"]).stem),
                    (way, "{way}"),
                    *[(k, lambda r, k=k: str(r[k])) for k in measured],
                ]
                tables.append(markdown(mine, columns))
        return "\n".join(tables)


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
    clock), its first slice the start clock.  The fallback's machine is built
    before the clock starts: a player whose machine is not ready by the end
    of START has no search until the next turn."""
    game.state_machine(fallback)
    player = players.make(f"uct:reasoner={fallback},seed=1")
    assert isinstance(player, MCTSPlayer)
    start = time.monotonic()
    player.start(game, game.roles[0], start_clock=slice_seconds, play_clock=slice_seconds)
    simulations = player.last_simulations
    while not until():
        player.think(time.monotonic() + slice_seconds)
        simulations += player.last_simulations
    return simulations, time.monotonic() - start


def beside(path: str, design: str, fallback: str) -> dict:
    """The build alone, then beside a search on ``fallback``."""
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
        with_search = time.monotonic() - start
        quiet, seconds = searching(
            load_game(path),
            fallback,
            lambda deadline=time.monotonic() + with_search: time.monotonic() >= deadline,
        )
    return {
        "build alone s": round(alone, 1),
        "build beside search s": round(with_search, 1),
        "sims/s beside build": round(simulations / with_search, 1),
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
        "peak MB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "after MB": round(after),
    }


def in_a_process(path: str, design: str) -> dict:
    """:func:`memory` in a fresh process (peaks are per process)."""
    done = subprocess.run(
        [sys.executable, "-m", __name__, design, path],
        capture_output=True,
        text=True,
        check=True,
        env=child_env(),
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
    return {"machine built s": round(built, 2), "uct sims/s": round(simulations / spent, 2)}


SUITE = BackgroundBuild()

if __name__ == "__main__":  # in_a_process's child: DESIGN PATH
    print(json.dumps(memory(sys.argv[2], sys.argv[1])))
