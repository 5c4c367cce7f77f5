"""Timing in alternating rounds, shared by the speed suites: measures that
take turns, round after round in one process, so that all of them see the
same machine load (a shared machine's noise moves single runs by more than
the differences looked for)."""

from __future__ import annotations

import time

from benchmarks.harness import Suite


def calibrate(run, target: float) -> int:
    """A batch size (a multiple of 64 playouts, at least 64: lanes run 64 at
    a time) for which ``run(batch, seed)`` takes about ``target`` seconds."""
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
    ...)) in turn with the same seed, round after round, until each has run
    ``seconds``; each one's steps a second.  ``check(seed, name, result)``
    sees every result."""
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


class Measure:
    """One quantity measured in rounds: ``run(n) -> (units, seconds)``, its
    batch ``n`` grown until a round takes about ``round_seconds``."""

    def __init__(self, run, round_seconds: float):
        self.run, self.target = run, round_seconds
        self.n, self.units, self.spent = 1, 0.0, 0.0

    def round(self):
        units, seconds = self.run(self.n)
        self.units += units
        self.spent += seconds
        if seconds < self.target and self.n < 1 << 24:
            self.n = max(
                self.n + 1, min(8 * self.n, int(self.n * self.target / max(seconds, 1e-6)))
            )

    @property
    def rate(self) -> float:
        return self.units / self.spent if self.spent else 0.0


def run_rounds(measures: dict, seconds: float):
    """Rounds of every measure in turn until each has spent ``seconds``."""
    while min(m.spent for m in measures.values()) < seconds:
        for m in measures.values():
            if m.spent < seconds:
                m.round()


#: The games of the speed tables: six public games of ../shared/games/gdl1.
GAMES = ["ticTacToe", "connectFour", "breakthrough", "speedChess", "reversi", "checkers"]


class GameSpeed(Suite):
    """A speed suite of a row a game: its games (names or ``.kif`` paths,
    :attr:`games` by default), each measured for ``--seconds`` of playouts per
    :attr:`what` by :meth:`game`."""

    games: list = []
    seconds = 4.0
    what = "reasoner"

    def options(self, parser):
        parser.add_argument(
            "games", nargs="*", default=self.games, help=f"default: {' '.join(self.games)}"
        )
        parser.add_argument(
            "--seconds",
            type=float,
            default=self.seconds,
            help=f"seconds of playouts per game and per {self.what} (default {self.seconds:g})",
        )

    def jobs(self, args):
        return [{"game": game, "seconds": args.seconds} for game in args.games]

    def measure(self, job, args):
        return [self.game(job["game"], job["seconds"])]

    def game(self, name: str, seconds: float) -> dict:
        """The row of one game."""
        raise NotImplementedError
