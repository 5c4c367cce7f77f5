"""Complete matches of every GDL-II game in ../shared/games/gdl2 through
``ggp match``, every seat held by one imperfect-information player playing on
the clock; prints a Markdown table (steps, faults: TO, CE or IL per step, goals).

    python benchmarks/gdl2_matches.py --players ismcts smooth-uct --startclock 10 --playclock 1
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ggp.shared import shared_games


def _roles(path: Path) -> list:
    from ggp import load_game

    return [r for r in load_game(path).roles if r != "random"]


def run(path: Path, spec: str, startclock: int, playclock: int, seed: int, db: str) -> dict:
    seats = [a for _ in _roles(path) for a in ("--player", spec)]
    start = time.monotonic()
    out = subprocess.run(
        [
            "ggp",
            "match",
            str(path),
            *seats,
            "--startclock",
            str(startclock),
            "--playclock",
            str(playclock),
            "--seed",
            str(seed),
            "--db",
            db,
            "--json",
        ],
        capture_output=True,
        text=True,
    )
    seconds = time.monotonic() - start
    if out.returncode:
        return {"game": path.stem, "player": spec, "failed": out.stderr.strip()[-200:]}
    record = json.loads(out.stdout)
    faults = [f"{i + 1}:{e}" for i, step in enumerate(record["errors"]) for e in step if e]
    return {
        "game": path.stem,
        "player": spec,
        "steps": record["steps"],
        "faults": faults,
        "goals": record["goals"],
        "seconds": seconds,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", nargs="+", default=["ismcts", "smooth-uct"])
    ap.add_argument("--startclock", type=int, default=60)
    ap.add_argument("--playclock", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--games", nargs="*", help="only these (file stems); default: all")
    args = ap.parse_args(argv)
    print(f"start clock {args.startclock:g} s, play clock {args.playclock:g} s\n")
    print("| game | player | steps | faults | match seconds | goals |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "matches.sqlite")
        for path in sorted((shared_games() / "gdl2").glob("*.kif")):
            if args.games and path.stem not in args.games:
                continue
            for spec in args.players:
                r = run(path, spec, args.startclock, args.playclock, args.seed, db)
                if "failed" in r:
                    print(f"| {r['game']} | {spec} | | failed: {r['failed']} | | |")
                else:
                    goals = ", ".join(f"{k} {v}" for k, v in r["goals"].items())
                    print(
                        f"| {r['game']} | {spec} | {r['steps']} | "
                        f"{' '.join(r['faults']) or 'none'} | {r['seconds']:.0f} | {goals} |"
                    )
                sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
