"""State changes per second of the kernel with lazy goals (goal-only gates
settled when goals are read) against the same kernel keeping them up to date,
in the same process, alternating rounds.

    python benchmarks/lazy_goals.py [--seconds 4] [GAME...]

Both kernels are built from the game's network with the same gated ANDs; the
lazy one is forced whatever ``ggp.reasoners.compiled.LAZY_GOAL_EDGES`` decides, and the
table says what the compiled reasoner chose.  Random playouts from the initial
state, one at a time (``Kernel.playouts``); both must sum the same goals.
"""

from __future__ import annotations

from lanes import alternate, arguments, calibrate

from ggp import load_game
from ggp.reasoners import COMPILED
from ggp.reasoners._propnet import Kernel
from ggp.reasoners.compiled import LAZY_GOAL_EDGES
from ggp.reasoners.propnet import lazy_goals
from ggp.shared import named_game

DEFAULT = [
    "ticTacToe",
    "connectFour",
    "breakthrough",
    "speedChess",
    "reversi",
    "checkers",
    "othello-comp2007",
    "dotsAndBoxes",
    "pacman3p",
    "leduc",
]


def measure(name: str, seconds: float, round_seconds: float = 0.25) -> dict:
    sm = load_game(named_game(name)).state_machine(COMPILED)
    arrays = sm._arrays
    lazy_arrays, program = lazy_goals(arrays, [n for seen in sm._sees for n, _ in seen])
    kernels = {
        "eager": Kernel(**arrays, gating=sm.gating),
        "lazy": Kernel(**lazy_arrays, gating=sm.gating, lazy=program),
    }
    root = sm.initial_state()
    batch = calibrate(lambda n, s: kernels["eager"].playouts(root, n, s), round_seconds)
    goals = {}

    def same_goals(seed, _, result):
        assert goals.setdefault(seed, result[1]) == result[1], (
            f"{name}: lazy and eager goals differ (seed {seed})"
        )

    rate = alternate(
        {
            k: lambda seed, kernel=kernel: kernel.playouts(root, batch, seed)
            for k, kernel in kernels.items()
        },
        seconds,
        same_goals,
    )
    return {
        "game": str(name).rsplit("/", 1)[-1].removesuffix(".kif"),
        "edges": len(arrays["in_lit"]),
        "lazy_gates": len(program["node"]),
        "lazy_edges": len(program["lit"]),
        "chosen": len(program["lit"]) >= LAZY_GOAL_EDGES,
        "eager": rate["eager"],
        "lazy": rate["lazy"],
        "ratio": rate["lazy"] / rate["eager"],
    }


def main(argv=None):
    args = arguments(__doc__, DEFAULT, 4.0, "kernel").parse_args(argv)
    print(
        "| game | edges | goal-only gates | their edges | lazy by default | eager states/s "
        "| lazy states/s | lazy / eager |"
    )
    print("|---|---:|---:|---:|---|---:|---:|---:|")
    for name in args.games:
        r = measure(name, args.seconds)
        print(
            f"| {r['game']} | {r['edges']:,} | {r['lazy_gates']:,} | {r['lazy_edges']:,} "
            f"| {'yes' if r['chosen'] else 'no'} | {r['eager']:,.0f} | {r['lazy']:,.0f} "
            f"| {r['ratio']:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
