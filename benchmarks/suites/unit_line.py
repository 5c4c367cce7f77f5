"""The same learners on the same rules with and without this project's
``; efg:`` unit line: since utilities come from the rules' goal range
(:func:`ggp.solvers.efg.utility_unit`), every figure should be the same to the last
digit, and this measures the table that shows it (goal points).

Each learner runs a fixed amount of work (episodes or iterations, one seed),
so that the two columns are comparable exactly.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from benchmarks.harness import Suite, markdown
from ggp import load_game
from ggp.solvers.cfr import exploitability
from ggp.solvers.efg import build_tree
from ggp.solvers.solve import solve
from players.imperfect.evaluation import online_policy
from players.imperfect.online import View
from players.learning.selfplay import learner_for

UNIT_LINE = re.compile(r"^\s*;+\s*efg:.*$", re.MULTILINE)

#: label: (how it runs, spec, work): a self-play learner with episodes, a
#: solver with iterations, or an online player with iterations a move (3 seeds).
RUNS = {
    "nfsp": ("learn", "nfsp", 100_000),
    "mccfr": ("solve", "mccfr", 100_000),
    "smooth-uct": ("learn", "smooth-uct", 1_000_000),
    "mccr online": ("online", "mccr", 1000),
}


class UnitLine(Suite):
    about = "the learners' figures with and without the rules' unit line (they must be equal)"
    duration = "10 minutes"

    def options(self, parser):
        parser.add_argument("--games", default="kuhn,leduc,iigs5")

    def jobs(self, args):
        return [
            {"game": name, "learner": label} for name in args.games.split(",") for label in RUNS
        ]

    def measure(self, job, args):
        how, spec, amount = RUNS[job["learner"]]
        with tempfile.TemporaryDirectory() as folder:
            plain = load_game(str(headerless(job["game"], Path(folder))))
            marked = load_game(job["game"])
            a, b = measure(marked, how, spec, amount), measure(plain, how, spec, amount)
        return [{"work": amount, "with": a, "without": b}]

    def table(self, rows):
        return markdown(
            rows,
            [
                ("game", "{game}"),
                ("learner, work", "{learner}, {work:,}"),
                ("with the unit line", "{with:.6g}"),
                ("without", "{without:.6g}"),
                ("equal", lambda r: "yes" if r["with"] == r["without"] else "NO"),
            ],
        )


def headerless(name: str, folder: Path) -> Path:
    """A copy of games_gdl/NAME.kif without its unit line."""
    text = Path(load_game(name).description.path).read_text()
    path = folder / f"{name}.kif"
    path.write_text(UNIT_LINE.sub("", text))
    return path


def measure(game, how: str, spec: str, amount: int) -> float:
    """The exploitability (goal points) ``spec`` reaches on ``game``."""
    tree = build_tree(game)
    if how == "learn":
        gap = exploitability(
            tree, learner_for(tree, spec, {"seed": 1}).run(amount).average_policy()
        )
    elif how == "solve":
        gap = solve(tree, spec, amount, seed=1)[1][-1][2]
    else:
        gap = exploitability(tree, online_policy(game, View(tree), spec, 3, amount))
    return tree.in_units(gap)["exploitability"]


SUITE = UnitLine()
