"""Two checkouts of this project side by side: the compiled reasoner's build
and speed on the same games, in alternating rounds on the same machine.

    git worktree add /tmp/old <commit>
    (cd /tmp/old && python setup.py build_ext --inplace -q)
    python benchmarks/versions.py /tmp/old . [--rounds 3] [--seconds 3] [GAME...]

Each round runs, for each checkout in turn, a fresh process that imports
``ggp`` from that checkout, builds the game's compiled reasoner (seconds
timed) and runs random playouts from the initial state for ``--seconds``
twice: 64 at a time in bit-parallel lanes (what ``ggp bench`` measures) and
one at a time on the incremental kernel (what a player's playouts use).
Printed per game: the network's nodes in each and the median over the
rounds of each rate, with the new/old ratio; medians of alternating rounds,
since a shared machine's noise moves single runs by more than the
differences looked for.  Games: names under ../shared/games/gdl1 (default:
the speed table of docs/reasoners.md) or .kif paths.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from lanes import DEFAULT

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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, help="the checkout measured first in every round")
    parser.add_argument("new", type=Path, help="the checkout compared with it")
    parser.add_argument("games", nargs="*", default=DEFAULT)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--seconds",
        type=float,
        default=3.0,
        help="seconds of playouts per rate and round (default 3)",
    )
    args = parser.parse_args(argv)
    print(
        "| game | nodes old -> new | lanes old | lanes new | new/old | kernel old "
        "| kernel new | new/old | build s old -> new |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for name in args.games:
        game = str(named_game(name))
        runs: dict = {"old": [], "new": []}
        for _ in range(args.rounds):
            for tag in runs:
                runs[tag].append(probe(getattr(args, tag).resolve(), game, args.seconds))

        def median(tag, key):
            return statistics.median(run[key] for run in runs[tag])

        lanes, kernel = (
            (median("old", "lanes"), median("new", "lanes")),
            (median("old", "kernel"), median("new", "kernel")),
        )
        print(
            f"| {Path(name).stem} | {runs['old'][0]['nodes']:,} -> {runs['new'][0]['nodes']:,} "
            f"| {lanes[0]:,.0f} | {lanes[1]:,.0f} | {lanes[1] / lanes[0]:.2f} "
            f"| {kernel[0]:,.0f} | {kernel[1]:,.0f} | {kernel[1] / kernel[0]:.2f} "
            f"| {median('old', 'build'):.2f} -> {median('new', 'build'):.2f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
