"""The benchmark scripts' own safeguards (the figures they print are in docs/)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_matches_against_a_peer_that_dies_are_not_recorded(tmp_path):
    """benchmarks/sancho.py with a stand-in for Sancho (our random player
    behind ``ggp serve``) that is killed 4 s in, during the first match: the
    run stops with one line naming the side that died, and records nothing
    (before, a dead side's matches were recorded, every move substituted)."""
    stand_in = f"timeout 4 {sys.executable} -m matches.cli serve random --port"
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            "benchmarks/sancho.py",
            "--player",
            "uct",
            "--games",
            "tictactoe",
            "--matches",
            "2",
            "--startclock",
            "1",
            "--playclock",
            "1",
            "--out",
            str(out),
            "--db",
            str(tmp_path / "db.sqlite"),
        ],
        cwd=ROOT,
        env={**os.environ, "SANCHO": stand_in},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "Sancho exited" in done.stderr and "Traceback" not in done.stderr
    rows = (
        (out / "matches.jsonl").read_text().splitlines() if (out / "matches.jsonl").exists() else []
    )
    assert [json.loads(r) for r in rows] == []


def test_mccr_budgets_writes_the_seeds_grid(tmp_path):
    """benchmarks/mccr_budgets.py grid: a row per variant, root and resolve
    budget, the exploitability falling with a larger root solve, and a plot."""
    import csv

    out = tmp_path / "grid.csv"
    done = subprocess.run(
        [
            sys.executable,
            "benchmarks/mccr_budgets.py",
            "grid",
            "--game",
            "kuhn",
            "--seeds",
            "1",
            "--roots",
            "100,100000",
            "--budgets",
            "100",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(out.open()))
    assert [(r["player"], r["root"]) for r in rows] == [
        ("mccr:variant=keep", "100"),
        ("mccr:variant=keep", "100000"),
        ("mccr:variant=reset", "100"),
        ("mccr:variant=reset", "100000"),
    ]
    for small, large in (rows[0:2], rows[2:4]):
        assert float(large["exploitability_unit"]) < float(small["exploitability_unit"])
    assert out.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"
