"""The benchmark harness (benchmarks/harness.py): its list of suites, one line
for a name it does not know, the one output format of every measurement,
resuming, and the repository's results: in that format or a study's, under
3 MB, and every suite documented with its command."""

from __future__ import annotations

import argparse
import gzip
import json
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from benchmarks.harness import (
    RESULTS,
    ROWS,
    RUNS,
    SUMMARY,
    Results,
    Suite,
    markdown,
    measure_suite,
    read_rows,
    suites,
)

ROOT = Path(__file__).resolve().parents[1]


def benchmark(*argv, timeout=120):
    """``python -m benchmarks ARGV`` run from the repository."""
    return subprocess.run(
        [sys.executable, "-m", "benchmarks", *map(str, argv)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_the_list_gives_every_suite_a_line():
    """``--list``: a line a suite, its name, kind, rough duration and what it
    measures; the measurements are the modules of benchmarks/suites and the
    studies the files of benchmarks/studies."""
    done = benchmark("--list")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    known = suites()
    assert sorted(line.split()[0] for line in lines) == sorted(known)
    modules = {p.stem for p in (ROOT / "benchmarks" / "suites").glob("*.py")} - {"__init__"}
    studies = {p.stem for p in (ROOT / "benchmarks" / "studies").glob("*.yaml")}
    assert set(known) == modules | studies
    for line in lines:
        name, kind, *rest = line.split()
        assert kind in ("measurement", "report", "study") and len(rest) >= 2, line
        assert known[name].about and known[name].duration, name


def test_an_unknown_suite_is_one_line_with_the_nearest_name():
    done = benchmark("lanse")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (
        "benchmarks: no suite 'lanse'; did you mean 'lanes'? "
        "(python -m benchmarks --list names them)\n"
    )
    assert benchmark("zzzz").stderr == (
        "benchmarks: no suite 'zzzz' (python -m benchmarks --list names them)\n"
    )


def test_a_measurement_writes_its_rows_and_summary_in_the_one_format(tmp_path):
    """A quick suite: its rows gzip-compressed JSON lines (no time in the gzip
    header), a line for the run with its command, and the summary (the table,
    then the command that measured it) printed too."""
    out = tmp_path / "out"
    done = benchmark("equilibrium_vs_random", "kuhn", "--iterations", "50", "--out", out)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted([ROWS, RUNS, SUMMARY])
    data = (out / ROWS).read_bytes()
    assert data[:2] == b"\x1f\x8b" and data[4:8] == b"\0\0\0\0"  # gzip, mtime 0
    (row,) = [json.loads(line) for line in gzip.decompress(data).decode().splitlines()]
    assert (row["game"], row["iterations"]) == ("kuhn", 50)  # the job's fields first
    assert set(row) > {"equilibrium", "best_response", "mean", "matches"}
    (run,) = [json.loads(line) for line in (out / RUNS).read_text().splitlines()]
    assert run["command"] == "python -m benchmarks equilibrium_vs_random kuhn --iterations 50"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", run["date"]) and run["code"]
    summary = (out / SUMMARY).read_text()
    assert summary.startswith("# equilibrium_vs_random: what an equilibrium")
    assert "\n| kuhn | 50 | " in summary
    assert summary.endswith(
        f"Measured by `{run['command']}` ({run['date']}, code {run['code']}).\n"
    )
    assert done.stdout.endswith(summary)


class Counting(Suite):
    """Jobs 1..``n``, each a row of its square; job ``stop_at`` is
    interrupted (Ctrl-C) the first time."""

    about = "squares"
    duration = "none"

    def __init__(self, n=3, stop_at=None):
        self.n, self.stop_at, self.measured = n, stop_at, []

    def jobs(self, args):
        return [{"n": n} for n in range(1, self.n + 1)]

    def measure(self, job, args):
        if job["n"] == self.stop_at:
            self.stop_at = None
            raise KeyboardInterrupt
        self.measured.append(job["n"])
        return [{"square": job["n"] ** 2}]

    def table(self, rows):
        return markdown(rows, [("n", "{n}"), ("square", "{square}")])


def test_a_run_stopped_midway_resumes_without_measuring_again(tmp_path, capsys):
    args = argparse.Namespace(out=tmp_path, fresh=False)
    suite = Counting(stop_at=3)
    assert measure_suite(suite, args, "first") == 130
    assert capsys.readouterr().err == (
        "test_harness: interrupted after 2 of 3 jobs; the same command goes on from there\n"
    )
    assert read_rows(tmp_path) == [{"n": 1, "square": 1}, {"n": 2, "square": 4}]
    assert "| 2 | 4 |" in (tmp_path / SUMMARY).read_text()  # written as the jobs end
    assert measure_suite(suite, args, "second") == 0
    assert suite.measured == [1, 2, 3]  # nothing measured twice
    out = capsys.readouterr().out
    assert out.startswith(f"2 of 3 jobs already in {tmp_path}; measuring the other 1\n")
    assert [r["square"] for r in read_rows(tmp_path)] == [1, 4, 9]
    assert [r["command"] for r in Results(tmp_path).runs()] == ["first", "second"]
    assert measure_suite(suite, args, "third") == 0  # all done: nothing measured, no run
    assert suite.measured == [1, 2, 3] and len(Results(tmp_path).runs()) == 2
    assert measure_suite(suite, argparse.Namespace(out=tmp_path, fresh=True), "again") == 0
    assert suite.measured == [1, 2, 3, 1, 2, 3]
    assert [r["command"] for r in Results(tmp_path).runs()] == ["again"]


class Slow(Counting):
    """Jobs that finish in the reverse of their order, two at a time at most."""

    workers = True

    def __init__(self):
        super().__init__(4)
        self.running, self.most, self.lock = 0, 0, threading.Lock()

    def measure(self, job, args):
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(0.1 * (5 - job["n"]))
        with self.lock:
            self.running -= 1
        return super().measure(job, args)


def test_workers_measure_jobs_at_once_and_the_rows_keep_the_jobs_order(tmp_path):
    suite = Slow()
    args = argparse.Namespace(out=tmp_path, fresh=False, workers=2)
    assert measure_suite(suite, args, "both") == 0
    assert suite.most == 2 and suite.measured != [1, 2, 3, 4]
    assert [r["n"] for r in read_rows(tmp_path)] == [1, 2, 3, 4]


def test_the_results_stay_under_3_mb():
    """The tracked files of benchmarks/results: raw rows compressed, so that
    the repository stays small (a larger data set goes in a release artefact)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("git or the repository's .git is unavailable")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "benchmarks/results"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    size = sum((ROOT / name).stat().st_size for name in listed if (ROOT / name).is_file())
    assert 0 < size < 3_000_000, f"benchmarks/results holds {size:,} bytes"


def test_every_results_folder_is_a_measurement_s_or_a_study_s():
    """In the one format (rows.jsonl.gz, runs.jsonl, summary.md, and the
    figures made from the rows) or a study's (matches.jsonl.gz and its
    tables); a folder of folders holds such folders."""
    folders = [p for p in RESULTS.rglob("*") if p.is_dir() and any(p.glob("*.*"))]
    assert folders
    for folder in folders:
        names = {p.name for p in folder.iterdir() if p.is_file() and p.suffix != ".log"}
        if "matches.jsonl.gz" in names:
            assert names <= {"matches.jsonl.gz", "summary.md", "summary.csv", "summary.png"}
            continue
        assert {ROWS, SUMMARY} <= names, folder
        assert all(n in (ROWS, RUNS, SUMMARY) or n.endswith(".png") for n in names), folder
        assert read_rows(folder), folder


def documented_commands() -> list[tuple[str, str]]:
    """(file, suite) of every ``python -m benchmarks SUITE`` in the docs, the
    README, the study files and the suites' docstrings."""
    files = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    files += [*(ROOT / "benchmarks").rglob("*.py"), *(ROOT / "benchmarks" / "studies").glob("*")]
    return [
        (str(path.relative_to(ROOT)), name)
        for path in files
        for name in re.findall(r"python -m benchmarks\s+([a-z0-9_]+)", path.read_text())
    ]


def test_every_suite_is_documented_with_its_command():
    """docs/benchmarks.md gives every suite's command, and every command in
    the docs names a suite."""
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    known = suites()
    for name in known:
        assert f"python -m benchmarks {name}" in page, name
    commands = documented_commands()
    assert len(commands) > len(known)
    assert [c for c in commands if c[1] not in known] == []
