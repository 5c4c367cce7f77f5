"""A study's results as the head-to-head table of Šustr, Kovařík and Lisý, "Monte Carlo
Continual Resolving" (slides), slide 51: for every pair, the row player's mean goal
against the column player over their matches (roles swapped every match), with its
95% Wilson interval, in the order the study lists its players.

    python benchmarks/h2h.py benchmarks/seed001_leduc.yaml

Reads the study's matches file (``matches.jsonl.gz``).  The slides report expected utility x 100 in
[-100, 100]; our goals are 0..100, so its figure is 2 x ours - 100 for a win/lose game.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import yaml

from matches.study import match_lines, matches_path, score_interval


def table(study_path) -> str:
    study = yaml.safe_load(Path(study_path).read_text())
    labels = list(study["players"])
    out = matches_path(Path(study_path).parent / study["out"])
    goals: dict = {}
    for line in match_lines(out):
        record = json.loads(line)
        if record.get("faults"):
            continue
        a, b = record["pair"]
        goals.setdefault((a, b), []).append(record["goals"][a])
        goals.setdefault((b, a), []).append(record["goals"][b])
    rows = [
        f"| {study['games'][0]} | " + " | ".join(labels[1:]) + " |",
        "|---|" + "---|" * (len(labels) - 1),
    ]
    for i, a in enumerate(labels[:-1]):
        cells = []
        for j, b in enumerate(labels[1:], start=1):
            g = goals.get((a, b), [])
            if j <= i or not g:
                cells.append("")
                continue
            low, high = score_interval(g)
            cells.append(f"{sum(g) / len(g):.1f} ({low} .. {high})")
        rows.append(f"| {a} | " + " | ".join(cells) + " |")
    counts = sorted({len(g) for g in goals.values()})
    rows.append("")
    rows.append(f"matches a pair: {counts[0]}" + (f" to {counts[-1]}" if len(counts) > 1 else ""))
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("study", nargs="+")
    for path in ap.parse_args(argv).study:
        print(table(path))
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
