"""The benchmark harness: every benchmark a named suite, run by one command,
its results written one way.

    python -m benchmarks --list
    python -m benchmarks SUITE [--out DIR] [--fresh] [--workers N] [the suite's options]

There are two kinds of suite.  A *measurement* is a module of
:mod:`benchmarks.suites` whose ``SUITE`` is a :class:`Suite`: it lists its
jobs, the measurements to make, each a dict of JSON values naming it and the
settings it depends on (a game, a seed, the seconds it is timed for); the
harness measures the jobs not yet in the results folder, one at a time (or
``--workers`` at a time where the suite allows it), and after each job
rewrites the folder's files:

- ``rows.jsonl.gz``: every row, a JSON object a line (the job's fields, then
  what was measured), gzip-compressed with no time in its header so that the
  same rows give the same bytes.  A run stopped midway keeps the jobs done,
  and the same command goes on from there; ``--fresh`` starts over;
- ``runs.jsonl``: a line a run that measured something: its command (without
  ``--out``), its date and the commit of the code measured;
- ``summary.md``: the suite's Markdown table of every row, and those commands.

A *study* is a YAML file of ``benchmarks/studies`` (:mod:`matches.study`): the
harness hands it and the options after its name to ``ggp study``, which
writes the study's own folder (``matches.jsonl.gz`` and its tables, resumable
too; ``ggp view --study`` shows it).

Without ``--out`` a suite's folder is ``benchmarks/results/SUITE``, where the
figures of the docs were measured; docs/benchmarks.md lists every suite, the
page quoting its figures and the command that measures them again.
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import itertools
import json
import os
import pkgutil
import shlex
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

import yaml

import gdl
from ggp.specs import did_you_mean

HERE = Path(__file__).resolve().parent
#: The results folders, one per suite or study (or per ``--out``).
RESULTS = HERE / "results"
#: The study files.
STUDIES = HERE / "studies"
ROWS, RUNS, SUMMARY = "rows.jsonl.gz", "runs.jsonl", "summary.md"


class Suite:
    """A measurement: what a module of :mod:`benchmarks.suites` subclasses as
    its ``SUITE``; its name is the module's."""

    #: ``measurement``, or ``report`` for a suite that only reads results
    #: already measured (:meth:`report` always answers).
    kind = "measurement"
    #: One line: what it measures.
    about = ""
    #: Roughly how long it takes with its defaults.
    duration = ""
    #: Whether ``--workers N`` may measure N jobs at once (threads: each job's
    #: work runs in a process of its own).
    workers = False

    @property
    def name(self) -> str:
        return type(self).__module__.rsplit(".", 1)[-1]

    def options(self, parser: argparse.ArgumentParser) -> None:
        """Add the suite's own options to ``parser``."""

    def jobs(self, args) -> list[dict]:
        """The jobs ``args`` ask for, in the order to measure them."""
        raise NotImplementedError

    def measure(self, job: dict, args) -> list[dict]:
        """The rows of one job (the harness puts the job's fields first)."""
        raise NotImplementedError

    def table(self, rows: list[dict]) -> str:
        """The Markdown table of every row of the folder (:func:`markdown`)."""
        raise NotImplementedError

    def progress(self, job: dict, rows: list[dict]) -> str:
        """The line printed when ``job`` has been measured into ``rows``."""
        return ", ".join(f"{k} {v}" for k, v in job.items())

    def report(self, args) -> int | None:
        """An exit status when ``args`` ask for a report on results already
        measured instead of a measurement (printed here); None to measure."""
        return None

    def start(self, args) -> None:
        """Before the first job of a run that has jobs to do."""

    def stop(self) -> None:
        """After the last job, or when the run is interrupted: end whatever
        the jobs started (called more than once, it does nothing more)."""

    def finish(self, rows: list[dict], args) -> None:
        """After a run, with every row of the folder: plots beside the rows."""

    def run(self, argv: list[str]) -> int:
        """The suite's command line (``python -m benchmarks NAME ...``)."""
        parser = argparse.ArgumentParser(
            prog=f"python -m benchmarks {self.name}", description=self.about
        )
        if self.kind == "measurement":
            parser.add_argument(
                "--out",
                type=Path,
                default=RESULTS / self.name,
                help=f"the results folder (default benchmarks/results/{self.name})",
            )
            parser.add_argument(
                "--fresh", action="store_true", help="measure every job again (the rows go first)"
            )
        if self.workers:
            parser.add_argument(
                "--workers", type=positive(int), default=1, help="jobs measured at once (1)"
            )
        self.options(parser)
        args = parser.parse_args(argv)
        status = self.report(args)
        if status is not None:
            return status
        return measure_suite(self, args, _command(self.name, argv))


def measure_suite(suite: Suite, args, command: str) -> int:
    """Measure the jobs of ``args`` not yet in ``args.out``, writing the
    folder after each; 130 when interrupted (Ctrl-C or SIGTERM)."""
    folder = Results(args.out)
    if args.fresh:
        folder.clear()
    rows = folder.rows()
    jobs = [json.loads(json.dumps(job)) for job in suite.jobs(args)]  # as rows give them back
    done = set(places(rows, jobs))
    todo = [job for i, job in enumerate(jobs) if i not in done]
    if len(todo) < len(jobs):
        print(
            f"{len(jobs) - len(todo)} of {len(jobs)} jobs already in {folder.path}; "
            f"measuring the other {len(todo)}",
            flush=True,
        )
    if todo:
        run = {"command": command, "date": time.strftime("%Y-%m-%d"), "code": code_version()}
        measured = 0
        terminate = signal.signal(signal.SIGTERM, signal.default_int_handler)  # as Ctrl-C
        try:
            suite.start(args)
            for job, new in _measured(suite, todo, args):
                new = [{**job, **row} for row in new]
                rows += new
                folder.write(rows, run if measured == 0 else None)
                measured += 1
                folder.summarise(suite, rows)
                print(f"[{measured}/{len(todo)}] {suite.progress(job, new)}", flush=True)
        except KeyboardInterrupt:
            suite.stop()
            print(
                f"{suite.name}: interrupted after {measured} of {len(todo)} jobs; "
                "the same command goes on from there",
                file=sys.stderr,
            )
            return 130
        finally:
            suite.stop()
            signal.signal(signal.SIGTERM, terminate)
    if todo:  # the rows in the order of their jobs, however they finished (the others first)
        order = places(rows, jobs)
        rows = [row for _, row in sorted(zip(order, rows), key=lambda pair: pair[0])]
        folder.write(rows)
    text = folder.summarise(suite, rows)
    if todo:
        suite.finish(rows, args)
    print(text, end="")
    return 0


def _measured(suite: Suite, todo: list[dict], args):
    """(job, rows) as the jobs are measured: in order, or ``args.workers`` at
    a time in threads as they finish."""
    workers = getattr(args, "workers", 1)
    if workers == 1:
        for job in todo:
            yield job, suite.measure(job, args)
        return
    pool = ThreadPoolExecutor(workers)
    try:
        futures = {pool.submit(suite.measure, job, args): job for job in todo}
        for future in as_completed(futures):
            yield futures[future], future.result()
    finally:
        suite.stop()  # an interrupted run's jobs end at once, their rows dropped
        pool.shutdown(cancel_futures=True)


def places(rows: list[dict], jobs: list[dict]) -> list[int]:
    """For each row, the index in ``jobs`` of its job (the first whose every
    field the row has, at its value), or -1."""
    index: dict = {}
    for i, job in enumerate(jobs):
        keys = tuple(sorted(job))
        index.setdefault(keys, {}).setdefault(json.dumps([job[k] for k in keys]), i)
    found = []
    for row in rows:
        place = -1
        for keys, values in index.items():
            if place < 0 and set(keys) <= set(row):
                place = values.get(json.dumps([row[k] for k in keys]), -1)
        found.append(place)
    return found


class Results:
    """A suite's results folder: its rows, its runs and its summary."""

    def __init__(self, path):
        self.path = Path(path)

    def rows(self) -> list[dict]:
        """Every row (none when the folder is new)."""
        return read_rows(self.path) if (self.path / ROWS).is_file() else []

    def runs(self) -> list[dict]:
        path = self.path / RUNS
        return (
            [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []
        )

    def write(self, rows: list[dict], run: dict | None = None) -> None:
        """The whole rows file (through a file beside it, so that an
        interruption leaves the old one), and ``run`` added to the runs."""
        self.path.mkdir(parents=True, exist_ok=True)
        text = "".join(json.dumps(row) + "\n" for row in rows).encode()
        tmp = self.path / (ROWS + ".tmp")
        with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
            f.write(text)
        os.replace(tmp, self.path / ROWS)
        if run is not None:
            with open(self.path / RUNS, "a") as f:
                f.write(json.dumps(run) + "\n")

    def summarise(self, suite: Suite, rows: list[dict]) -> str:
        """``summary.md`` from every row and run (returned too)."""
        lines = [f"# {suite.name}: {suite.about}", ""]
        lines += [suite.table(rows).rstrip("\n"), ""] if rows else ["No rows yet.", ""]
        for run in self.runs():
            lines.append(f"Measured by `{run['command']}` ({run['date']}, code {run['code']}).")
        text = "\n".join(lines).rstrip("\n") + "\n"
        self.path.mkdir(parents=True, exist_ok=True)
        (self.path / SUMMARY).write_text(text)
        return text

    def clear(self) -> None:
        for name in (ROWS, RUNS, SUMMARY):
            (self.path / name).unlink(missing_ok=True)


def read_rows(folder) -> list[dict]:
    """The rows of a suite's results folder (``rows.jsonl.gz``)."""
    data = gzip.decompress((Path(folder) / ROWS).read_bytes())
    return [json.loads(line) for line in data.decode("utf-8").splitlines()]


def markdown(rows: list[dict], columns: list[tuple]) -> str:
    """A Markdown table of ``rows``: ``columns`` are (heading, cell) pairs,
    each cell a :meth:`str.format` template over a row's fields
    (``"{kernel:,.0f}"``) or a function of the row; the first column is
    aligned left, the others right."""
    lines = [
        "| " + " | ".join(heading for heading, _ in columns) + " |",
        "|---|" + "---:|" * (len(columns) - 1),
    ]
    for row in rows:
        cells = [cell(row) if callable(cell) else cell.format_map(row) for _, cell in columns]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def positive(kind):
    """An argparse type: a ``kind`` above 0."""

    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or value <= 0:
            raise argparse.ArgumentTypeError(f"expected a {kind.__name__} > 0, got {text!r}")
        return value

    return parse


class Children:
    """The child processes of a suite's jobs, each leading a process group of
    its own, so that a run interrupted ends them whole (and a process one of
    them started goes with it), and records nothing they leave half done."""

    def __init__(self):
        self.live: set = set()
        self.lock = threading.Lock()
        self.stopping = threading.Event()

    def run(self, argv: list[str], timeout: float | None = None):
        """``(status, stdout, stderr)`` of ``argv`` run with :func:`child_env`
        (status None when it ran past ``timeout`` seconds and was ended), or
        None when the run is being stopped."""
        with subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
            env=child_env(),
        ) as child:
            with self.lock:
                if self.stopping.is_set():
                    _end(child)
                self.live.add(child)
            try:
                out, err = child.communicate(timeout=timeout)
                status = child.returncode
            except subprocess.TimeoutExpired:
                _end(child)
                out, err = child.communicate()
                status = None
            except KeyboardInterrupt:  # waited for in the main thread: its session ends too
                _end(child)
                raise
            finally:
                with self.lock:
                    self.live.discard(child)
        return None if self.stopping.is_set() else (status, out, err)

    def stop(self) -> None:
        """End every child still running, and any started from now on."""
        with self.lock:
            self.stopping.set()
            for child in self.live:
                _end(child)


def _end(child) -> None:
    """Kill a child's whole process group (unless the child was reaped: its
    number may be another's by now)."""
    if child.returncode is not None:
        return
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except ProcessLookupError:  # already gone
        pass


def child_env() -> dict:
    """The environment of a child process that runs a suite's module
    (``python -m benchmarks.suites.NAME``): this one, with the repository
    first on ``PYTHONPATH``."""
    path = [str(HERE.parent), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}


def code_version() -> str:
    """The commit of the code measured (``+`` when the checkout has
    uncommitted changes), or ``?``."""
    try:
        done = subprocess.run(
            ["git", "describe", "--always", "--dirty=+"],
            cwd=HERE,
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    return done.stdout.strip() if done.returncode == 0 else "?"


def _command(name: str, argv: list[str]) -> str:
    """The command that measured a run, its ``--out`` left out (the folder is
    where the command is recorded)."""
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--out":
            skip = True
        elif not arg.startswith("--out="):
            kept.append(arg)
    return shlex.join(["python", "-m", "benchmarks", name, *kept])


class Study:
    """A study file of ``benchmarks/studies``, run by ``ggp study``; its name
    is the file's, its description the first line of the comment that opens
    it."""

    kind = "study"

    def __init__(self, path: Path):
        self.path = path
        self.name = path.stem
        header = itertools.takewhile(
            lambda line: line.startswith("#"), path.read_text().splitlines()
        )
        self.about = next(header, "#").lstrip("# ")

    @property
    def duration(self) -> str:
        """Its matches (how long they take depends on their clocks and players)."""
        study = yaml.safe_load(self.path.read_text())
        labels = list(study["players"])
        pairs = len(study.get("pairs") or list(itertools.combinations(labels, 2)))
        return f"{study.get('matches', 100) * pairs * len(study['games']):,} matches"

    def run(self, argv: list[str]) -> int:
        """``ggp study FILE`` with ``argv``."""
        from matches.cli import main as ggp

        return ggp(["study", str(self.path), *argv])


def suites() -> dict:
    """Every suite by name: the measurements, then the studies."""
    found: dict = {}
    for info in pkgutil.iter_modules([str(HERE / "suites")]):
        found[info.name] = importlib.import_module(f"benchmarks.suites.{info.name}").SUITE
    for path in sorted(STUDIES.glob("*.yaml")):
        if path.stem in found:
            raise ValueError(f"{path}: a measurement suite is named {path.stem} too")
        found[path.stem] = Study(path)
    return found


def listing(known: dict) -> str:
    """One line a suite: its name, kind, rough duration and what it measures."""
    width = max(map(len, known))
    lasts = max(len(s.duration) for s in known.values())
    return "\n".join(
        f"{name:<{width}}  {suite.kind:<11}  {suite.duration:<{lasts}}  {suite.about}"
        for name, suite in sorted(known.items(), key=lambda item: (item[1].kind, item[0]))
    )


USAGE = """usage: python -m benchmarks --list
       python -m benchmarks SUITE [--out DIR] [--fresh] [the suite's options]
       python -m benchmarks SUITE --help

Runs a benchmark suite: a measurement (its rows in benchmarks/results/SUITE/rows.jsonl.gz,
its table in summary.md) or a study (ggp study on benchmarks/studies/SUITE.yaml).
docs/benchmarks.md says which docs figure each suite measures."""


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    known = suites()
    if argv[0] == "--list":
        print(listing(known))
        return 0
    name = argv[0]
    if name not in known:
        hint = did_you_mean(name, known)
        print(
            f"benchmarks: no suite {name!r}{'; ' + hint if hint else ''} "
            "(python -m benchmarks --list names them)",
            file=sys.stderr,
        )
        return 1
    try:
        return known[name].run(argv[1:])
    except (gdl.GdlError, OSError) as exc:  # a game or file that is not there or not GDL
        print(f"benchmarks: {name}: {str(exc).strip().splitlines()[0]}", file=sys.stderr)
        return 1
