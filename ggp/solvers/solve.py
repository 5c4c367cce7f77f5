"""Solvers chosen by name and run: ``cfr``, ``cfr+`` (:mod:`ggp.solvers.cfr`) and
``mccfr[:sampling=...,epsilon=...]`` (:mod:`ggp.solvers.mccfr`), as ``ggp solve
--algo`` names them, in the spec grammar of players (:mod:`ggp.specs`)."""

from __future__ import annotations

import time

from ggp.solvers.cfr import CFRSolver, TableSolver, exploitability
from ggp.solvers.efg import Tree
from ggp.solvers.mccfr import SAMPLINGS, MCCFRSolver
from ggp.specs import parse_spec, unknown_name

#: The algorithms :func:`solve` runs.
ALGORITHMS = ("cfr", "cfr+", "mccfr")


def parse_algo(spec: str) -> tuple[str, dict]:
    """``"mccfr:sampling=external"`` -> ``("mccfr", {"sampling": "external"})``;
    ValueError (one line) for an unknown algorithm or option."""
    name, options = parse_spec(spec)
    if name in ("cfr", "cfr+"):
        if options:
            raise ValueError(f"{name} takes no options, got {', '.join(options)}")
        return name, {}
    if name != "mccfr":
        raise ValueError(unknown_name("algorithm", name, ALGORITHMS))
    unknown = set(options) - {"sampling", "epsilon"}
    if unknown:
        raise ValueError(unknown_name("mccfr option", sorted(unknown)[0], ("sampling", "epsilon")))
    if options.get("sampling", "outcome") not in SAMPLINGS:
        raise ValueError(unknown_name("sampling", options["sampling"], SAMPLINGS))
    if "epsilon" in options:
        try:
            options["epsilon"] = float(options["epsilon"])
        except ValueError:
            raise ValueError(f"epsilon must be a number, not {options['epsilon']!r}") from None
        if not 0 < options["epsilon"] <= 1:
            raise ValueError(f"epsilon must be in (0, 1], not {options['epsilon']}")
    return name, options


def make_solver(tree: Tree, algo: str = "cfr+", seed: int = 0) -> TableSolver:
    """A solver for ``algo`` (as :func:`parse_algo` reads it) on ``tree``."""
    name, options = parse_algo(algo)
    if name == "mccfr":
        return MCCFRSolver(tree, seed=seed, **options)
    return CFRSolver(tree, plus=name == "cfr+")


def solve(
    tree: Tree,
    algo: str = "cfr+",
    iterations: int | None = 1000,
    seconds: float | None = None,
    seed: int = 0,
    points=(),
    curve=None,
    progress=None,
) -> tuple:
    """Run ``algo`` (``cfr``, ``cfr+``, ``mccfr[:sampling=...,epsilon=...]``)
    on ``tree`` for ``iterations``, or for ``seconds`` of iterations (in
    batches doubling up to a quarter of a second); evaluate the average policy
    at each of ``points`` (iteration counts) reached and at the end.  Returns
    the solver and the curve: (iterations, seconds of solving,
    exploitability) per point, added to ``curve`` (a list) as they come, so
    that the caller keeps them when interrupted.  ``progress(done)`` after
    each batch: the iterations, or the seconds with ``seconds``."""
    if seconds is None and iterations is None:
        raise ValueError("give iterations or seconds")
    total = iterations or 0  # the iterations to run, when not on the clock
    solver = make_solver(tree, algo, seed)
    curve, solving = [] if curve is None else curve, 0.0
    marks = sorted(p for p in points if p > 0)

    def advance(count):
        nonlocal solving
        start = time.perf_counter()
        solver.run(count)
        solving += time.perf_counter() - start

    def mark():
        curve.append((solver.iteration, solving, exploitability(tree, solver.average_policy())))

    batch = 100
    while True:
        goal = solver.iteration + batch
        if seconds is None:
            goal = min(goal, total)
        upcoming = [p for p in marks if solver.iteration < p < goal]
        if upcoming:
            advance(upcoming[0] - solver.iteration)
            mark()
        else:
            began = solving
            advance(goal - solver.iteration)
            if solving - began < 0.25:
                batch *= 2
        if progress:
            progress(solver.iteration if seconds is None else min(solving, seconds))
        if seconds is None and solver.iteration >= total:
            break
        if seconds is not None and solving >= seconds:
            break
    if not curve or curve[-1][0] != solver.iteration:
        mark()
    return solver, curve
