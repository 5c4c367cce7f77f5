"""State changes per second of bit-parallel playouts (ggp.reasoners._lanes.Lanes)
against the incremental kernel (ggp.reasoners._propnet.Kernel), in the same process.

    python benchmarks/lanes.py [--seconds 4] [GAME...]

Each game (a name in games_gdl or a .kif path; by default six public games
from ../shared/games/gdl1) is built once; then both run random playouts from
the initial state in alternating rounds (a batch of about a quarter second
each) until each has run ``--seconds``.  Printed as a Markdown table with the
network's size (nodes, edges: gate inputs; moves; base propositions), what
a lanes step sweeps (ints in the phase-1 and phase-2 programs) and how long
``sm.new_lanes()`` took to build (the network with its moves' ORs complemented).
A state change is one step of one playout, as in ``ggp bench``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from ggp import load_game
from ggp.reasoners import COMPILED
from ggp.shared import named_game

DEFAULT = ["ticTacToe", "connectFour", "breakthrough", "checkers", "reversi", "speedChess"]


def calibrate(run, target: float) -> int:
    """A batch size (a multiple of 64 playouts, at least 64: lanes run 64 at
    a time) that takes about ``target`` seconds."""
    batch = 64
    while True:
        start = time.perf_counter()
        run(batch, 0)
        elapsed = time.perf_counter() - start
        if elapsed >= target or batch >= 1 << 24:
            return 64 * max(1, round(batch * target / max(elapsed, 1e-9) / 64))
        batch *= 4 if elapsed < target / 16 else 2


def alternate(runs: dict, seconds: float, check=None) -> dict:
    """Call each of ``runs`` (name -> function of a seed returning (steps,
    ...)) in turn with the same seed, round after round, so that all see the
    same machine load, until each has run ``seconds``; each one's steps a
    second.  ``check(seed, name, result)`` sees every result."""
    steps, spent = dict.fromkeys(runs, 0), dict.fromkeys(runs, 0.0)
    seed = 1
    while min(spent.values()) < seconds:
        for name, run in runs.items():
            start = time.perf_counter()
            result = run(seed)
            spent[name] += time.perf_counter() - start
            steps[name] += result[0]
            if check is not None:
                check(seed, name, result)
        seed += 1
    return {name: steps[name] / spent[name] for name in runs}


def arguments(doc: str, default: list, seconds: float, what: str) -> argparse.ArgumentParser:
    """The benchmark scripts' command line: games, and ``--seconds`` of
    playouts per game and per ``what``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("games", nargs="*", default=default)
    parser.add_argument(
        "--seconds",
        type=float,
        default=seconds,
        help=f"seconds of playouts per game and per {what} (default {seconds:g})",
    )
    return parser


def measure(name: str, seconds: float, round_seconds: float = 0.25, limit: int = 1_000_000) -> dict:
    game = load_game(named_game(name))
    sm = game.state_machine(COMPILED, limit)
    if not hasattr(sm, "network"):
        raise SystemExit(f"{name} does not ground within {limit} rules (try --limit)")
    start = time.perf_counter()
    lanes = sm.new_lanes()
    build = time.perf_counter() - start
    arrays = sm._lanes_arrays
    root = sm.initial_state()
    runners = {"kernel": sm.kernel.playouts, "lanes": lanes.playouts}
    batch = {
        k: calibrate(lambda n, s, run=run: run(root, n, s), round_seconds)
        for k, run in runners.items()
    }
    rate = alternate(
        {k: lambda seed, k=k, run=run: run(root, batch[k], seed) for k, run in runners.items()},
        seconds,
    )
    sizes = lanes.sizes
    return {
        "game": Path(str(name)).stem,
        "nodes": len(arrays["kind"]),
        "edges": len(arrays["in_lit"]),
        "moves": len(arrays["does_node"]),
        "base": len(arrays["base_node"]),
        "swept": sizes["phase1"] + sizes["phase2"],
        "goal_ints": sizes["goals"],
        "depth": depth(sm, root),
        "kernel": rate["kernel"],
        "lanes": rate["lanes"],
        "ratio": rate["lanes"] / rate["kernel"],
        "build": build,
    }


def depth(sm, root, playouts: int = 64) -> float:
    """The mean length of random playouts from ``root``."""
    return sm.kernel.playouts(root, playouts, 0)[0] / playouts


def main(argv=None):
    parser = arguments(__doc__, DEFAULT, 4.0, "reasoner")
    parser.add_argument(
        "--limit",
        type=int,
        default=1_000_000,
        help="grounding limit, ground rules (default 1,000,000)",
    )
    args = parser.parse_args(argv)
    print(
        "| game | nodes | edges | moves | base | swept ints | mean depth "
        "| kernel states/s | lanes states/s | lanes / kernel | Lanes() s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.games:
        r = measure(name, args.seconds, limit=args.limit)
        print(
            f"| {r['game']} | {r['nodes']} | {r['edges']} | {r['moves']} | {r['base']} "
            f"| {r['swept']} | {r['depth']:.1f} | {r['kernel']:,.0f} | {r['lanes']:,.0f} "
            f"| {r['ratio']:.2f} | {r['build']:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
