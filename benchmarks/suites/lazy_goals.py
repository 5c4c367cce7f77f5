"""State changes per second of the kernel with lazy goals (goal-only gates
settled when goals are read) against the same kernel keeping them up to date,
in the same process, alternating rounds.

Both kernels are built from the game's network with the same gated ANDs; the
lazy one is forced whatever ``ggp.reasoners.compiled.LAZY_GOAL_EDGES`` decides, and the
table says what the compiled reasoner chose.  Random playouts from the initial
state, one at a time (``Kernel.playouts``); both must sum the same goals.
"""

from __future__ import annotations

from benchmarks.harness import markdown
from benchmarks.timing import GAMES, GameSpeed, alternate, calibrate
from ggp import load_game
from ggp.reasoners import COMPILED
from ggp.reasoners._propnet import Kernel
from ggp.reasoners.compiled import LAZY_GOAL_EDGES
from ggp.reasoners.propnet import lazy_goals
from ggp.shared import named_game

DEFAULT = [*GAMES, "othello-comp2007", "dotsAndBoxes", "pacman3p", "leduc"]


class LazyGoals(GameSpeed):
    about = "the kernel with lazy goals against the same kernel keeping them up to date"
    duration = "2 minutes"
    games, seconds, what = DEFAULT, 4.0, "kernel"

    def game(self, name: str, seconds: float, round_seconds: float = 0.25) -> dict:
        sm = load_game(named_game(name)).state_machine(COMPILED)
        arrays = sm._arrays
        lazy_arrays, program = lazy_goals(arrays, [n for seen in sm._sees for n, _ in seen])
        kernels = {
            "eager": Kernel(**arrays, gating=sm.gating),
            "lazy": Kernel(**lazy_arrays, gating=sm.gating, lazy=program),
        }
        root = sm.initial_state()
        batch = calibrate(lambda n, s: kernels["eager"].playouts(root, n, s), round_seconds)
        goals: dict = {}

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
            "edges": len(arrays["in_lit"]),
            "lazy_gates": len(program["node"]),
            "lazy_edges": len(program["lit"]),
            "chosen": len(program["lit"]) >= LAZY_GOAL_EDGES,
            "eager": rate["eager"],
            "lazy": rate["lazy"],
            "ratio": rate["lazy"] / rate["eager"],
        }

    def table(self, rows):
        return markdown(
            rows,
            [
                ("game", lambda r: str(r["game"]).rsplit("/", 1)[-1].removesuffix(".kif")),
                ("edges", "{edges:,}"),
                ("goal-only gates", "{lazy_gates:,}"),
                ("their edges", "{lazy_edges:,}"),
                ("lazy by default", lambda r: "yes" if r["chosen"] else "no"),
                ("eager states/s", "{eager:,.0f}"),
                ("lazy states/s", "{lazy:,.0f}"),
                ("lazy / eager", "{ratio:.2f}"),
            ],
        )


SUITE = LazyGoals()
