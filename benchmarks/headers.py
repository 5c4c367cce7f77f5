"""The same learners on the same rules with and without this project's
``; efg:`` unit line: since utilities come from the rules' goal range
(:func:`ggp.solvers.efg.utility_unit`), every figure should be the same to the last
digit, and this prints the table that shows it (goal points; the issue's
"with, without" table):

    python benchmarks/headers.py --games kuhn,leduc,iigs5

Each learner runs a fixed amount of work (episodes or iterations, one seed),
so that the two columns are comparable exactly.
"""

from __future__ import annotations

import argparse
import re
import tempfile
from pathlib import Path

from ggp import load_game
from ggp.solvers.cfr import exploitability
from ggp.solvers.efg import build_tree
from ggp.solvers.solve import solve
from players.imperfect.evaluation import online_policy
from players.imperfect.online import View
from players.learning.selfplay import learner_for

UNIT_LINE = re.compile(r"^\s*;+\s*efg:.*$", re.MULTILINE)

#: (label, how it runs): a self-play learner with episodes, a solver with
#: iterations, or an online player with iterations a move (3 seeds).
RUNS = (
    ("nfsp", "learn", "nfsp", 100_000),
    ("mccfr", "solve", "mccfr", 100_000),
    ("smooth-uct", "learn", "smooth-uct", 1_000_000),
    ("mccr online", "online", "mccr", 1000),
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="kuhn,leduc,iigs5")
    args = parser.parse_args()
    lines = [
        "| game | learner, work | with the unit line | without | equal |",
        "|---|---|---:|---:|---|",
    ]
    with tempfile.TemporaryDirectory() as folder:
        for name in args.games.split(","):
            plain = load_game(str(headerless(name, Path(folder))))
            marked = load_game(name)
            for label, how, spec, amount in RUNS:
                a, b = measure(marked, how, spec, amount), measure(plain, how, spec, amount)
                lines.append(
                    f"| {name} | {label}, {amount:,} | {a:.6g} | {b:.6g} | "
                    f"{'yes' if a == b else 'NO'} |"
                )
                print(lines[-1], flush=True)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
