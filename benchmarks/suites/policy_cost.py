"""Cost of the playout policies (:mod:`players._policy`) against plain random
playouts, measured in one run.

Per game, the baseline is the kernel's own C loop of random playouts
(``sm.kernel.playouts(root, n, seed)``, many playouts per call, one at a time); each policy runs one
``Policy.playout(root, [])`` call per playout, as the MCTS player does, after
a warm-up of half the measuring time so that its statistics are no longer
empty.  The two alternate in slices of 0.2 s, so that the load of a shared
machine weighs on both alike.  ``cost`` is the baseline's playouts/s over the policy's: how many
random playouts one policy playout costs (the target is at most 2).  Policies
change how long games last, so the mean playout depth and the cost per step
(baseline steps/s over the policy's) are given too.  Default games:
ticTacToe, connectFour, breakthrough, checkers from ../shared/games/gdl1.
"""

from __future__ import annotations

import functools
import time

from benchmarks.harness import Suite, markdown
from ggp.game import load_game
from ggp.shared import shared_games
from players._policy import Policy

GAMES = ["ticTacToe", "connectFour", "breakthrough", "checkers"]

#: (label, Policy keyword arguments)
POLICIES = {
    "random": dict(kind="random"),
    "mast egreedy": dict(kind="mast", select="egreedy"),
    "mast gibbs": dict(kind="mast", select="gibbs"),
    "nst egreedy": dict(kind="nst", select="egreedy"),
    "nst gibbs": dict(kind="nst", select="gibbs"),
    "lgr (nst) egreedy": dict(kind="lgr", select="egreedy"),
    "lgr (nst) gibbs": dict(kind="lgr", select="gibbs"),
}


class PolicyCost(Suite):
    about = "what the playout policies cost against the kernel's random playouts"
    duration = "1 minute"

    def options(self, parser):
        parser.add_argument("games", nargs="*", default=GAMES, help="names in ../shared/games/gdl1")
        parser.add_argument("--seconds", type=float, default=2.0)

    def jobs(self, args):
        return [
            {"game": game, "policy": label, "seconds": args.seconds}
            for game in args.games
            for label in POLICIES
        ]

    def measure(self, job, args):
        sm = machine(job["game"])
        root = sm.initial_state()
        policy = Policy(sm.kernel, seed=1, **POLICIES[job["policy"]])
        (base, base_steps), (rate, steps) = measure(sm, root, policy, job["seconds"])
        return [{"rate": rate, "steps": steps, "base": base, "base_steps": base_steps}]

    def table(self, rows):
        return markdown(
            rows,
            [
                ("game", "{game}"),
                ("policy", "{policy}"),
                ("playouts/s", "{rate:,.0f}"),
                ("random playouts/s", "{base:,.0f}"),
                ("cost (random = 1)", lambda r: f"{r['base'] / r['rate']:.2f}"),
                ("mean depth", lambda r: f"{r['steps'] / r['rate']:.1f}"),
                ("cost per step", lambda r: f"{r['base_steps'] / r['steps']:.2f}"),
            ],
        )


@functools.lru_cache(maxsize=1)
def machine(game: str):
    """The game's state machine, built once for all its policies' jobs."""
    return load_game(str(shared_games() / "gdl1" / f"{game}.kif")).state_machine()


def random_slice(sm, root, seconds, seed):
    """(playouts, steps, elapsed) of the kernel's random playouts for ``seconds``."""
    done = steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += sm.kernel.playouts(root, 64, seed + done)[0]
        done += 64
    return done, steps, time.perf_counter() - start


def policy_slice(policy, root, seconds):
    """(playouts, steps, elapsed) of ``policy``, one playout per call, for ``seconds``."""
    done = steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(16):
            steps += policy.playout(root, [])[1]
        done += 16
    return done, steps, time.perf_counter() - start


def measure(sm, root, policy, seconds, slice_seconds=0.2):
    """Rates (playouts/s, steps/s) of random playouts and of ``policy``, in
    alternating slices so that a changing machine load hits both alike."""
    policy_slice(policy, root, seconds / 2)  # warm-up
    base, mine = [0, 0, 0.0], [0, 0, 0.0]
    for i in range(max(1, round(seconds / slice_seconds))):
        for total, part in (
            (base, random_slice(sm, root, slice_seconds, i * 100000)),
            (mine, policy_slice(policy, root, slice_seconds)),
        ):
            for j in range(3):
                total[j] += part[j]
    return (base[0] / base[2], base[1] / base[2]), (mine[0] / mine[2], mine[1] / mine[2])


SUITE = PolicyCost()
