"""Which public games the compiled reasoner builds, how fast and how big.

Builds each game of ../shared/games/gdl1 (or the folders given) in its own
process, with a time limit, and writes a Markdown table:

    python benchmarks/coverage.py [--timeout 60] [--out benchmarks/coverage.md] [FOLDER...]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "games"

PROBE = r"""
import json, resource, sys, time, warnings
warnings.simplefilter("error")
from ggp import load_game
from ggp.compiled import CompiledMachine
game = load_game(sys.argv[1])
start = time.perf_counter()
try:
    sm = CompiledMachine(game.rules, game.roles)
    out = {"built": True, "nodes": sm.network.n, "base": len(sm.ground_program.base),
           "inputs": len(sm.ground_program.inputs)}
except Exception as exc:
    out = {"built": False, "why": str(exc).splitlines()[0]}
out["seconds"] = round(time.perf_counter() - start, 2)
out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
print(json.dumps(out))
"""


def probe(path: Path, timeout: float) -> dict:
    try:
        done = subprocess.run([sys.executable, "-c", PROBE, str(path)], capture_output=True,
                              text=True, timeout=timeout)
        return json.loads(done.stdout.strip().splitlines()[-1])
    except subprocess.TimeoutExpired:
        return {"built": False, "why": f"not built within {timeout:.0f} s", "seconds": timeout}
    except (IndexError, json.JSONDecodeError):
        return {"built": False, "why": "the build process failed", "seconds": None}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", default=["gdl1"])
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    rows, built, total = [], 0, 0
    for folder in args.folders:
        for path in sorted((SHARED / folder).glob("*.kif")):
            result = probe(path, args.timeout)
            total += 1
            built += result["built"]
            rows.append(f"| {folder}/{path.stem} | {'yes' if result['built'] else 'no'} | "
                        f"{result.get('seconds')} | {result.get('nodes', '')} | "
                        f"{result.get('peak_rss_mb', '')} | {result.get('why', '')} |")
            print(rows[-1], flush=True)
    table = "\n".join([f"Built {built} of {total} ({100 * built / total:.0f}%) within "
                       f"{args.timeout:.0f} s.", "",
                       "| game | built | seconds | nodes | peak RSS MB | why not |",
                       "|---|---|---|---|---|---|", *rows])
    print(table.splitlines()[0])
    if args.out:
        Path(args.out).write_text(table + "\n")


if __name__ == "__main__":
    main()
