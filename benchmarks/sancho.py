"""Matches against Sancho, the champion of the 2014 International GGP Competition.

Sancho is built outside the repository from its public source, as
../shared/peers/README.md describes; this script takes the command that starts
it on a port from the environment::

    SANCHO="sh /work/peers/run_sancho.sh" python benchmarks/sancho.py \\
        --player uct --games connectFour breakthrough --matches 20

Each side runs in a process of its own pinned to its own core (``taskset``):
our player behind ``ggp serve`` on core 0, Sancho on core 1, and ``ggp match``
is the game manager (it writes clocks as integers, as Sancho's ggp-base
expects), roles swapped every match.  Each match is recorded in the match
database (``--db``) and as a line of ``OUT/matches.jsonl``; the script
resumes from that file, and prints per game our player's score (goal points,
0..100) against Sancho with a 95% interval, wins, draws, losses and faults,
as Markdown (also ``OUT/summary.md``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from matches.study import score_interval

SHARED = Path(__file__).resolve().parents[2] / "shared" / "games" / "gdl1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port: int, seconds: float = 120.0):
    """Until something listens on ``port`` (Sancho takes a while to start)."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return
        time.sleep(0.5)
    raise SystemExit(f"nothing listens on port {port} after {seconds:.0f} s")


@contextlib.contextmanager
def process(argv: list, core: int, log: Path):
    """``argv`` pinned to ``core``, its output in ``log``; stopped on exit."""
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            ["taskset", "-c", str(core), *argv],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 15)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(10)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 9)


def game_path(name: str) -> str:
    path = SHARED / f"{name}.kif"
    return str(path) if path.exists() else name


def play(game: str, ours: str, sancho: str, first: bool, args, seed: int) -> dict:
    """One match; our player's role first when ``first``."""
    players = [ours, sancho] if first else [sancho, ours]
    argv = [
        sys.executable,
        "-m",
        "matches.cli",
        "match",
        game_path(game),
        "--json",
        "--startclock",
        str(args.startclock),
        "--playclock",
        str(args.playclock),
        "--seed",
        str(seed),
    ]
    if args.db:
        argv += ["--db", args.db]
    for p in players:
        argv += ["--player", p]
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"ggp match failed: {done.stderr.strip()}")
    record = json.loads(done.stdout)
    roles = list(record["players"])
    me, them = (0, 1) if first else (1, 0)
    faults = [sum(bool(step[r]) for step in record["errors"]) for r in (me, them)]
    return {
        "game": game,
        "seed": seed,
        "our_role": roles[me],
        "ours": record["goals"][roles[me]],
        "sancho": record["goals"][roles[them]],
        "our_faults": faults[0],
        "sancho_faults": faults[1],
        "steps": record["steps"],
    }


def summary(rows: list) -> str:
    lines = [
        "| game | matches | our score (95% CI) | wins / draws / losses | our faults | "
        "Sancho's faults |",
        "|---|---|---|---|---|---|",
    ]
    for game in dict.fromkeys(r["game"] for r in rows):
        scores = [r["ours"] for r in rows if r["game"] == game]
        n = len(scores)
        low, high = score_interval(scores)
        games = [r for r in rows if r["game"] == game]
        wins = sum(r["ours"] > r["sancho"] for r in games)
        losses = sum(r["ours"] < r["sancho"] for r in games)
        lines.append(
            f"| {game} | {n} | {sum(scores) / n:.1f} ({low} .. {high}) | "
            f"{wins} / {n - wins - losses} / {losses} | "
            f"{sum(r['our_faults'] for r in games)} | "
            f"{sum(r['sancho_faults'] for r in games)} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="uct", help="our player's spec")
    parser.add_argument("--games", nargs="+", default=["connectFour", "breakthrough"])
    parser.add_argument("--matches", type=int, default=20, help="per game, roles swapped")
    parser.add_argument("--startclock", type=int, default=30)
    parser.add_argument("--playclock", type=int, default=5)
    parser.add_argument("--out", default="benchmarks/results/sancho")
    parser.add_argument("--db", default=None, help="match database (default: the user's)")
    args = parser.parse_args(argv)
    # stopped with SIGTERM, the run still stops both players (the match under way is lost)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    command = os.environ.get("SANCHO")
    if not command:
        raise SystemExit(
            "set SANCHO to the command that starts Sancho on a port given as its "
            "last argument (see ../shared/peers/README.md)"
        )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    done_path = out / "matches.jsonl"
    rows = (
        [json.loads(line) for line in done_path.read_text().splitlines()]
        if done_path.exists()
        else []
    )
    ours_port, sancho_port = free_port(), free_port()
    ours = [sys.executable, "-m", "matches.cli", "serve", args.player, "--port", str(ours_port)]
    with (
        process([*shlex.split(command), str(sancho_port)], 1, out / "sancho.log") as them,
        process(ours, 0, out / "ours.log") as us,
    ):
        wait_for(ours_port)
        wait_for(sancho_port)
        for game in args.games:
            for i in range(args.matches):
                if any(r["game"] == game and r["seed"] == i for r in rows):
                    continue
                row = play(
                    game,
                    f"http://127.0.0.1:{ours_port}",
                    f"http://127.0.0.1:{sancho_port}",
                    i % 2 == 0,
                    args,
                    i,
                )
                # a side that died plays nothing but substituted moves: the match is not
                # a result, and the run stops (what was played is kept; it resumes)
                for name, proc in (("Sancho", them), ("our player", us)):
                    if proc.poll() is not None:
                        raise SystemExit(
                            f"{name} exited (status {proc.returncode}) during "
                            f"{game} #{i}; that match is not recorded"
                        )
                row["player"] = args.player
                rows.append(row)
                with open(done_path, "a") as f:
                    f.write(json.dumps(row) + "\n")
                print(f"{game} #{i}: ours {row['ours']}, Sancho {row['sancho']}", flush=True)
    (out / "summary.md").write_text(summary(rows))  # every game recorded in OUT
    print(summary([r for r in rows if r["game"] in args.games]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
