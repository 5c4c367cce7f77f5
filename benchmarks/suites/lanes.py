"""State changes per second of bit-parallel playouts (ggp.reasoners._lanes.Lanes)
against the incremental kernel (ggp.reasoners._propnet.Kernel), in the same process.

Each game (a name in games_gdl or a .kif path; by default the six public games
of :data:`benchmarks.timing.GAMES`) is built once; then both run random playouts from
the initial state in alternating rounds (a batch of about a quarter second
each) until each has run ``--seconds``.  A row a game: the network's size
(nodes, edges: gate inputs; moves; base propositions), what a lanes step
sweeps (ints in the phase-1 and phase-2 programs), the mean depth of a
random playout, both rates and how long ``sm.new_lanes()`` took to build (the
network with its moves' ORs complemented).  A state change is one step of
one playout, as in ``ggp bench``.
"""

from __future__ import annotations

import time
from pathlib import Path

from benchmarks.harness import markdown
from benchmarks.timing import GAMES, GameSpeed, alternate, calibrate
from ggp import load_game
from ggp.reasoners import COMPILED
from ggp.shared import named_game


class Lanes(GameSpeed):
    about = "bit-parallel lanes against the incremental kernel: state changes a second"
    duration = "2 minutes"
    games, seconds, what = GAMES, 4.0, "reasoner"

    def options(self, parser):
        super().options(parser)
        parser.add_argument(
            "--limit",
            type=int,
            default=1_000_000,
            help="grounding limit, ground rules (default 1,000,000)",
        )

    def jobs(self, args):
        return [{**job, "limit": args.limit} for job in super().jobs(args)]

    def measure(self, job, args):
        return [measure(job["game"], job["seconds"], limit=job["limit"])]

    def table(self, rows):
        return markdown(
            rows,
            [
                ("game", lambda r: Path(r["game"]).stem),
                ("nodes", "{nodes}"),
                ("edges", "{edges}"),
                ("moves", "{moves}"),
                ("base", "{base}"),
                ("swept ints", "{swept}"),
                ("mean depth", "{depth:.1f}"),
                ("kernel states/s", "{kernel:,.0f}"),
                ("lanes states/s", "{lanes:,.0f}"),
                ("lanes / kernel", "{ratio:.2f}"),
                ("Lanes() s", "{build:.2f}"),
            ],
        )


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


SUITE = Lanes()
