"""What splitting the kernel by control buys one playout at a time: state
changes per second of the whole network's kernel, of the kernel split by
control (``Kernel.split``) without and with the moves' ORs complemented in its
networks (``Network._complement_does``), in the same process, alternating
rounds; split whether or not the compiled reasoner would (the last column
says what it chooses, ``ggp.reasoners.compiled.SPLIT_RATIO``).

Random playouts from the initial state (``Kernel.playouts``); each network
keeps the gated ANDs and lazy goals the compiled reasoner chooses for it.
The playouts differ between variants (the order of the legal moves is each
kernel's own), not their length on average.
"""

from __future__ import annotations

from benchmarks.harness import markdown
from benchmarks.timing import GAMES, GameSpeed, alternate, calibrate
from ggp import load_game
from ggp.reasoners import COMPILED, compiled
from ggp.reasoners.propnet import Network
from ggp.shared import named_game

DEFAULT = [*GAMES, "nineBoardTicTacToe", "pentago", "knightThrough"]


class SplitKernel(GameSpeed):
    about = "the kernel split by control against the whole network's kernel"
    duration = "2 minutes"
    games, seconds, what = DEFAULT, 3.0, "variant"

    def game(self, name: str, seconds: float, round_seconds: float = 0.25) -> dict:
        sm = build(name)
        if not sm.controls:
            return {"controls": 0}
        kernels = {
            "whole": sm.kernel.subs[-1].copy(),
            "split": build(name, complement=False).kernel,
            "complemented": sm.kernel,
        }
        root = sm.initial_state()
        batch = calibrate(lambda n, s: kernels["whole"].playouts(root, n, s), round_seconds)
        rate = alternate(
            {
                k: lambda seed, kernel=kernel: kernel.playouts(root, batch, seed)
                for k, kernel in kernels.items()
            },
            seconds,
        )
        return {
            "controls": len(sm.controls),
            "chosen": bool(build(name, ratio=compiled.SPLIT_RATIO).controls),
            **rate,
        }

    def table(self, rows):
        def cells(r):
            if not r["controls"]:
                return ["no control propositions", "", "", "", "", "no"]
            return [
                f"{r['whole']:,.0f}",
                f"{r['split']:,.0f}",
                f"{r['complemented']:,.0f}",
                f"{r['split'] / r['whole']:.2f}",
                f"{r['complemented'] / r['whole']:.2f}",
                "yes" if r["chosen"] else "no",
            ]

        headings = [
            "whole states/s",
            "split",
            "split, ORs complemented",
            "split / whole",
            "complemented / whole",
            "split by default",
        ]
        return markdown(
            rows,
            [("game", "{game}")]
            + [(h, lambda r, i=i: cells(r)[i]) for i, h in enumerate(headings)],
        )


def build(name, complement: bool = True, ratio: float = 0.0):
    """The compiled reasoner of a game, splitting when ``ratio`` allows it,
    complementing the split networks' move ORs or not."""
    saved = compiled.SPLIT_RATIO, Network._complement_does
    compiled.SPLIT_RATIO = ratio
    if not complement:
        setattr(Network, "_complement_does", lambda self: None)
    try:
        return load_game(named_game(name)).state_machine(COMPILED)
    finally:
        compiled.SPLIT_RATIO = saved[0]
        setattr(Network, "_complement_does", saved[1])


SUITE = SplitKernel()
