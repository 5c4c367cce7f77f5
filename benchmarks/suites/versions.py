"""Two checkouts of this project side by side: the compiled reasoner's build
and speed on the same games, in alternating rounds on the same machine.

    git worktree add /tmp/old <commit>
    (cd /tmp/old && python setup.py build_ext --inplace -q)
    python -m benchmarks versions /tmp/old . [--rounds 3] [--seconds 3] [GAME...]

Each round runs, for each checkout in turn, a fresh process that imports
``ggp`` from that checkout, builds the game's compiled reasoner (seconds
timed) and runs random playouts from the initial state for ``--seconds``
twice: 64 at a time in bit-parallel lanes (what ``ggp bench`` measures) and
one at a time on the incremental kernel (what a player's playouts use).
A row a game: the network's nodes in each and the median over the rounds of
each rate, with the new/old ratio; medians of alternating rounds, since a
shared machine's noise moves single runs by more than the differences looked
for.  Games: names under ../shared/games/gdl1 (default: the six of
:data:`benchmarks.timing.GAMES`) or .kif paths.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks.harness import Suite, markdown
from benchmarks.timing import GAMES
from ggp.shared import named_game

PROBE = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from ggp import load_game
game = load_game(sys.argv[2])
start = time.perf_counter()
sm = game.state_machine("compiled")
build = time.perf_counter() - start
root = sm.initial_state()

def rate(run, seconds):
    done = steps = 0
    batch, start = 1, time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += run(batch, done)
        done += batch
        batch = min(batch * 2, 4096)
    return steps / (time.perf_counter() - start)

seconds = float(sys.argv[3])
lanes = rate(lambda n, seed: sm.playouts(root, max(n, 64), seed)[0], seconds)
kernel = rate(lambda n, seed: sm.kernel.playouts(root, n, seed, 100000)[0], seconds)
print(json.dumps({"build": build, "lanes": lanes, "kernel": kernel, "nodes": sm.network.n}))
"""


class Versions(Suite):
    about = "two checkouts side by side: build time and speed on the same games"
    duration = "1 minute a game"

    def options(self, parser):
        parser.add_argument("old", type=Path, help="the checkout measured first in every round")
        parser.add_argument("new", type=Path, help="the checkout compared with it")
        parser.add_argument("games", nargs="*", default=GAMES)
        parser.add_argument("--rounds", type=int, default=3)
        parser.add_argument(
            "--seconds",
            type=float,
            default=3.0,
            help="seconds of playouts per rate and round (default 3)",
        )

    def jobs(self, args):
        return [
            {
                "game": game,
                "old": str(args.old),
                "new": str(args.new),
                "rounds": args.rounds,
                "seconds": args.seconds,
            }
            for game in args.games
        ]

    def measure(self, job, args):
        game = str(named_game(job["game"]))
        runs: dict = {"old": [], "new": []}
        for _ in range(job["rounds"]):
            for tag in runs:
                runs[tag].append(probe(Path(job[tag]).resolve(), game, job["seconds"]))
        row = {f"nodes_{tag}": runs[tag][0]["nodes"] for tag in runs}
        for key in ("lanes", "kernel", "build"):
            for tag in runs:
                row[f"{key}_{tag}"] = statistics.median(run[key] for run in runs[tag])
        return [row]

    def table(self, rows):
        return markdown(
            rows,
            [
                ("game", lambda r: Path(r["game"]).stem),
                ("nodes old -> new", "{nodes_old:,} -> {nodes_new:,}"),
                ("lanes old", "{lanes_old:,.0f}"),
                ("lanes new", "{lanes_new:,.0f}"),
                ("new/old", lambda r: f"{r['lanes_new'] / r['lanes_old']:.2f}"),
                ("kernel old", "{kernel_old:,.0f}"),
                ("kernel new", "{kernel_new:,.0f}"),
                ("new/old", lambda r: f"{r['kernel_new'] / r['kernel_old']:.2f}"),
                ("build s old -> new", "{build_old:.2f} -> {build_new:.2f}"),
            ],
        )


def probe(checkout: Path, game: str, seconds: float) -> dict:
    """One fresh process's figures for ``game`` on ``checkout``'s code."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(checkout), game, str(seconds)],
        capture_output=True,
        text=True,
        cwd="/",
    )
    if out.returncode:
        raise SystemExit(
            f"versions: {checkout} on {game}: {(out.stderr.strip().splitlines() or ['failed'])[-1]}"
        )
    return json.loads(out.stdout.strip().splitlines()[-1])


SUITE = Versions()
