"""A study's results as the head-to-head table of Šustr, Kovařík and Lisý, "Monte Carlo
Continual Resolving" (slides), slide 51: for every pair, the row player's mean goal
against the column player over their matches (roles swapped every match), with its
95% Wilson interval, in the order the study lists its players.

Beside it, the table of each player against ``random``: its mean goal with the same
interval, and whether that interval lies above the game's mean (the mean over those
matches of the players' average goal: 50 in a zero-sum game of 0..100), i.e. whether
the player measurably beats random.  A win in the head-to-head table means little
between players that do not.  The matches against random come from the study itself
when one of its players is ``random``, or from the study named by ``--random`` (whose
players must have the same specs under the same labels).

    python -m benchmarks h2h h2h_iigs5
    python -m benchmarks h2h h2h_leduc --random h2h_leduc_random
    python -m benchmarks h2h h2h_iigs13 --above-random

With ``--above-random`` the head-to-head table keeps only the players that measurably
beat random, and a line under it names the others.

A study is named as the harness names it (a file of ``benchmarks/studies``) or
by its path.  A report on results already measured: it reads the study's
matches file (``matches.jsonl.gz``) and writes nothing.  The slides report expected utility x 100 in
[-100, 100]; our goals are 0..100, so its figure is 2 x ours - 100 for a win/lose game.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml

from benchmarks.harness import STUDIES, Suite
from ggp.specs import Spec, did_you_mean
from matches.study import match_lines, matches_path, score_interval


class StudyError(ValueError):
    """A study whose tables cannot be printed; its message is one line."""


def load(study_path) -> tuple[dict, dict, dict]:
    """A study file's contents, the goals of its scored matches per ordered pair
    of labels ``(a, b)``: a's goals against b, and the sums of both players'
    goals, one a scored match (matches with faults are left out)."""
    study = yaml.safe_load(Path(study_path).read_text())
    out = matches_path(Path(study_path).parent / study["out"])
    goals: dict = {}
    totals: dict = {}
    for line in match_lines(out):
        record = json.loads(line)
        if record.get("faults"):
            continue
        a, b = record["pair"]
        goals.setdefault((a, b), []).append(record["goals"][a])
        goals.setdefault((b, a), []).append(record["goals"][b])
        totals.setdefault(frozenset((a, b)), []).append(record["goals"][a] + record["goals"][b])
    return study, goals, totals


def _cell(goals: list) -> str:
    low, high = score_interval(goals)
    return f"{sum(goals) / len(goals):.1f} ({low} .. {high})"


def table(study_path, left_out=()) -> str:
    """The head-to-head table of the study at ``study_path`` (Markdown), its
    players in ``left_out`` left out (named under it)."""
    study, goals, _ = load(study_path)
    labels = [label for label in study["players"] if label not in left_out]
    rows = [
        f"| {study['games'][0]} | " + " | ".join(labels[1:]) + " |",
        "|---|" + "---|" * (len(labels) - 1),
    ]
    for i, a in enumerate(labels[:-1]):
        cells = []
        for j, b in enumerate(labels[1:], start=1):
            g = goals.get((a, b), [])
            cells.append(_cell(g) if j > i and g else "")
        rows.append(f"| {a} | " + " | ".join(cells) + " |")
    counts = sorted({len(g) for g in goals.values()})
    rows.append("")
    rows.append(f"matches a pair: {counts[0]}" + (f" to {counts[-1]}" if len(counts) > 1 else ""))
    if left_out:
        rows.append(f"left out, not measurably above random: {', '.join(left_out)}")
    return "\n".join(rows)


def random_label(study: dict, path) -> str | None:
    """The label of the study's ``random`` player; None when it has none."""
    found = [label for label, spec in study["players"].items() if Spec.parse(spec).name == "random"]
    if len(found) > 1:
        raise StudyError(f"{path}: more than one random player ({', '.join(found)})")
    return found[0] if found else None


def against_random(study_path, random_path=None) -> tuple[str, list]:
    """The table of every player of the study at ``study_path`` (but random)
    against random, from the matches of ``random_path`` (default: the same
    study): matches, mean goal with its 95% Wilson interval, and whether the
    interval lies above the game's mean; and the players whose interval does
    not.  StudyError when that study has no random player, gives a player
    another spec, or has no match of a player against random."""
    random_path = random_path or study_path
    study = yaml.safe_load(Path(study_path).read_text())
    other, goals, totals = load(random_path)
    rnd = random_label(other, random_path)
    if rnd is None:
        hint = "" if random_path != study_path else "; name a study that has one with --random"
        raise StudyError(f"{random_path}: no player is random{hint}")
    labels = [label for label in study["players"] if label != random_label(study, study_path)]
    for label in labels:
        if other["players"].get(label) != study["players"][label]:
            raise StudyError(
                f"{random_path}: {label} is {other['players'].get(label)!r}, "
                f"not {study['players'][label]!r} as in {study_path}"
            )
        if not goals.get((label, rnd)):
            raise StudyError(f"{random_path}: no scored match of {label} against {rnd}")
    sums = [s for label in labels for s in totals[frozenset((label, rnd))]]
    mean = sum(sums) / len(sums) / 2
    rows = [
        f"| {other['games'][0]} | matches against {rnd} | mean goal (95% interval) "
        f"| above the game's mean ({mean:.1f}) |",
        "|---|---|---|---|",
    ]
    below = []
    for label in labels:
        g = goals[(label, rnd)]
        low, _ = score_interval(g)
        rows.append(f"| {label} | {len(g)} | {_cell(g)} | {'yes' if low > mean else 'no'} |")
        if low <= mean:
            below.append(label)
    return "\n".join(rows), below


def study_path(name: str) -> Path:
    """A study's file: ``name`` as a path, else a study of ``benchmarks/studies``."""
    if Path(name).is_file():
        return Path(name)
    path = STUDIES / f"{name}.yaml"
    if not path.is_file():
        hint = did_you_mean(name, [p.stem for p in STUDIES.glob("*.yaml")])
        raise StudyError(f"{name}: no such study{'; ' + hint if hint else ''}")
    return path


class HeadToHead(Suite):
    kind = "report"
    about = "a study's head-to-head table, and each player against random (a report)"
    duration = "seconds"

    def options(self, parser):
        parser.add_argument("study", nargs="+", help="studies: names or YAML files")
        parser.add_argument(
            "--random",
            metavar="STUDY",
            help="the study with the players' matches against random (default: each study itself)",
        )
        parser.add_argument(
            "--above-random",
            action="store_true",
            help="the head-to-head table of only the players that measurably beat random",
        )

    def report(self, args):
        for name in args.study:
            try:
                path = study_path(name)
                other = study_path(args.random) if args.random else None
                randoms, below = against_random(path, other)
                tables = (table(path, below if args.above_random else ()), randoms)
            except StudyError as exc:
                print(f"h2h: {exc}", file=sys.stderr)
                return 1
            print(tables[0])
            print()
            print(tables[1])
            print()
        return 0


SUITE = HeadToHead()
