"""The corpus harness (the coverage suite of the benchmarks): its rows, its
table, resuming a killed run, --compare, and a fixed sample of the public corpus."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import SHARED, needs_shared

from benchmarks.harness import Results, read_rows

ROOT = Path(__file__).resolve().parents[1]
HARNESS = [sys.executable, "-m", "benchmarks", "coverage"]
TICTACTOE = str(ROOT / "games_gdl" / "tictactoe.kif")
UNSAFE = "tests/invalid/safety_negation.kif"  # static: unsafe rule, 7:20
STUCK = "tests/invalid/play/legal_none.kif"  # in play: a role without a move
#: Quick short-clock matches: a 5/1 s clock would make them minutes.
FAST = ("--start-clock", "1", "--play-clock", "0.5", "--seconds", "0.2", "--playouts", "5")
#: The CI sample of the corpus, quick to build and to play (about 60 steps in
#: all): puzzles (blocks, kitten_escapes_from_fire), two players taking turns
#: (tictactoe-init1, chickentictactoe), simultaneous moves (tron_10x10,
#: ticTicToe, blockerParallel), more than two players (switches: three at once;
#: smallest_4player), and a faulty one: majorities breaks stratification.
#: (4pttc, whose roles can be left without a legal move, is not in it: 20
#: random playouts meet that or not as the order of the moves falls, which
#: the grounder's version changes, and so does a match.)
SAMPLE = (
    "corpus/blocks",
    "corpus/kitten_escapes_from_fire",
    "corpus/tictactoe-init1",
    "corpus/chickentictactoe",
    "corpus/tron_10x10",
    "corpus/ticTicToe",
    "corpus/blockerParallel",
    "corpus/switches",
    "corpus/smallest_4player",
    "corpus/majorities",
)
REJECTED = {"corpus/majorities": ("load", "stratification", "corpus/majorities.kif:205:7")}


def harness(*args, timeout=600):
    """Run the harness; its exit status, stdout and stderr."""
    return subprocess.run(
        [*HARNESS, *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def rows_of(folder) -> dict:
    return {r["game"]: r for r in read_rows(folder)}


def assert_sound(row):
    """What every corpus game must end as: rejected with the rule and place
    broken, or built, checked and (when a match was played) played to the end
    without a fault."""
    if row["status"] == "rejected":
        assert row["rule"] and row["where"].count(":") >= 2 and row["message"], row
        return
    assert row["status"] in ("compiled", "demand"), row
    assert row["reasoner"] == row["status"] and row["stage"] == "done", row
    assert not row["bench_fault"], row
    if row["status"] == "compiled":
        assert int(row["nodes"]) > 0 and int(row["ground_rules"]) > 0, row
    else:
        assert row["why"], row
    if row["match_seconds"]:
        assert row["faults"] == "0" and row["step_errors"] == "0" and not row["fault_text"], row
        assert int(row["steps"]) > 0 and row["goals"], row


@needs_shared()
def test_a_goal_missing_in_a_rare_terminal_state_is_found_by_the_sweep(tmp_path):
    """corpus/asteroidsParallel has no goal when one ship has stopped on its
    planet and the other has not stopped (line 230's goal rules list only
    seven of the nine pairs): the check's 20 playouts miss it, the sweep's
    lane playouts (counted in steps, not seconds) find it."""
    table = tmp_path / "c"
    done = harness(
        str(SHARED / "corpus" / "asteroidsParallel.kif"), *FAST, "--no-match", "--out", str(table)
    )
    assert done.returncode == 0, done.stderr
    row = rows_of(table)["corpus/asteroidsParallel"]
    assert (row["status"], row["stage"], row["rule"], row["where"]) == (
        "rejected",
        "check",
        "goal",
        "corpus/asteroidsParallel.kif:230:1",
    ), row
    assert int(row["playouts"]) == 5 and 0 < int(row["sweep_steps"]) < 100_000


@needs_shared()
def test_rows_of_small_public_games_and_faulty_ones(tmp_path):
    """ticTacToe (two players), maze (a puzzle) and montyhall (GDL-II, the
    manager plays chance) are compiled and played with no fault; a game
    with an unsafe rule is rejected when loaded, one whose role has no move
    when played, each with its rule and line; the summary lists them."""
    table, md = tmp_path / "c", tmp_path / "c.md"
    done = harness(
        str(SHARED / "gdl1" / "ticTacToe.kif"),
        "gdl1/maze",  # a path, a name
        str(SHARED / "gdl2" / "montyhall.kif"),
        UNSAFE,
        STUCK,
        *FAST,
        "--workers",
        "2",
        "--out",
        str(table),
        "--md",
        str(md),
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    rows = rows_of(table)
    assert (
        list(rows)
        == [  # the finished table is in the order of the games given
            "gdl1/ticTacToe",
            "gdl1/maze",
            "gdl2/montyhall",
            UNSAFE[:-4],
            STUCK[:-4],
        ]
    )
    for name, roles in (
        ("gdl1/ticTacToe", "xplayer oplayer"),
        ("gdl1/maze", "robot"),
        ("gdl2/montyhall", "candidate random"),
    ):
        row = rows[name]
        assert_sound(row)
        assert row["status"] == "compiled" and row["roles"] == roles and row["clocks"] == "1/0.5"
        assert float(row["states_per_sec"]) > 0 and int(row["edges"]) > 0
    assert rows["gdl1/ticTacToe"]["players"].split() == [
        f"xplayer=uct:seed={rows['gdl1/ticTacToe']['seed']}",
        f"oplayer=mast:seed={int(rows['gdl1/ticTacToe']['seed']) + 1}",
    ]
    assert rows["gdl2/montyhall"]["gdl"] == "II"
    assert rows["gdl2/montyhall"]["players"].startswith("candidate=uct:")  # not random
    unsafe, stuck = rows[UNSAFE[:-4]], rows[STUCK[:-4]]
    assert (unsafe["status"], unsafe["stage"], unsafe["rule"], unsafe["where"]) == (
        "rejected",
        "load",
        "safety",
        f"{UNSAFE}:7:20",
    )
    assert (stuck["status"], stuck["stage"], stuck["rule"], stuck["where"]) == (
        "rejected",
        "check",
        "legal",
        f"{STUCK}:4:1",
    )
    assert stuck["reasoner"] == "compiled" and not stuck["match_seconds"]
    summary = md.read_text()
    assert f"| {UNSAFE[:-4]} | load | safety | {UNSAFE}:7:20 |" in summary
    assert "| **all** | 5 | 3 | 0 | 2 | 0 | 0 |" in summary


@needs_shared()
def test_a_fixed_sample_of_the_corpus(tmp_path):
    """The CI sample: every game sound (rejected with its place, or built and
    played to the end with no fault)."""
    table = tmp_path / "sample"
    done = harness(
        *(str(SHARED / f"{g}.kif") for g in SAMPLE), *FAST, "--workers", "2", "--out", str(table)
    )
    assert done.returncode == 0, done.stderr
    rows = rows_of(table)
    assert sorted(rows) == sorted(SAMPLE)
    for name, row in rows.items():
        assert_sound(row)
        if name in REJECTED:
            assert (row["status"], row["stage"], row["rule"], row["where"]) == (
                "rejected",
                *REJECTED[name],
            )
        else:
            assert row["status"] == "compiled" and row["match_seconds"], row


def test_a_killed_run_resumes(tmp_path):
    """A run stopped (SIGTERM) after its first game keeps that row, ends its
    child at once, and says how to go on; the same command then checks only
    the games not in the table."""
    table = tmp_path / "c"
    command = [
        *HARNESS,
        UNSAFE,
        TICTACTOE,
        "--out",
        str(table),
        "--start-clock",
        "1",
        "--play-clock",
        "1",
        "--seconds",
        "0.2",
        "--playouts",
        "5",
    ]
    run = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (table / "rows.jsonl.gz").exists():
        time.sleep(0.1)
    run.send_signal(signal.SIGTERM)
    out, err = run.communicate(timeout=20)
    assert run.returncode == 130
    assert err.strip().splitlines() == [
        "coverage: interrupted after 1 of 2 jobs; the same command goes on from there"
    ]
    (first,) = read_rows(table)
    assert first["game"] == UNSAFE[:-4]
    done = harness(*command[4:])
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"1 of 2 jobs already in {table}; measuring the other 1\n")
    rows = rows_of(table)
    assert list(rows) == [UNSAFE[:-4], str(Path(TICTACTOE).relative_to(ROOT))[:-4]]
    assert rows[UNSAFE[:-4]] == first  # kept as it was
    assert len(Results(table).runs()) == 2
    again = harness(*command[4:])
    assert again.stdout.splitlines()[0] == f"2 of 2 jobs already in {table}; measuring the other 0"


def test_compare_names_the_games_that_differ(tmp_path):
    """Two tables of the same games agree (exit 0); a game built to another
    network size, or missing from one, is printed (exit 1)."""
    a, b = tmp_path / "a", tmp_path / "b"
    done = harness(
        TICTACTOE, UNSAFE, "--no-match", "--seconds", "0.2", "--playouts", "2", "--out", str(a)
    )
    assert done.returncode == 0, done.stderr
    rows = rows_of(a)
    name = str(Path(TICTACTOE).relative_to(ROOT))[:-4]
    nodes = int(rows[name]["nodes"])
    Results(b).write(read_rows(a))
    same = harness("--compare", str(a), str(b))
    assert same.returncode == 0 and "2 games, 0 with differences" in same.stdout
    Results(b).write([{**rows[name], "nodes": str(nodes + 1)}])
    differ = harness("--compare", str(a), str(b))
    assert differ.returncode == 1
    lines = differ.stdout.splitlines()
    assert f"{name}: nodes {nodes} != {nodes + 1}" in lines
    assert f"{UNSAFE[:-4]}: only in {a}" in lines
    assert lines[-1].startswith("2 games, 2 with differences")


def test_a_game_past_the_timeout_is_reported_not_hidden(tmp_path):
    """The timeout only ends the waiting: the row says timeout, the stage it
    was in, and keeps what the stages before it found."""
    table = tmp_path / "c"
    done = harness(
        TICTACTOE, "--no-match", "--seconds", "30", "--timeout", "6", "--out", str(table)
    )
    assert done.returncode == 0, done.stderr
    (row,) = rows_of(table).values()
    assert (row["status"], row["stage"]) == ("timeout", "bench")
    assert row["message"] == "not done within 6 s (in stage bench)"
    assert row["reasoner"] == "compiled" and int(row["nodes"]) > 0


def test_bad_arguments_give_one_line(tmp_path):
    """No traceback: an unknown folder, or a results folder of other columns."""
    done = harness("nosuchfolder")
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"coverage: nosuchfolder: no such folder or file (here or under {SHARED})"
    )
    other = tmp_path / "other"
    Results(other).write([{"a": 1, "b": 2}])
    done = harness(UNSAFE, "--out", str(other))
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"coverage: {other}: not a coverage folder (other columns); give another --out"
    )


@pytest.mark.slow
@needs_shared()
def test_every_public_game_is_sound(tmp_path):
    """Every game of gdl1, gdl2 and corpus, built and checked (no matches:
    with them the run takes hours), is rejected with the rule and place it
    breaks, or built with no fault."""
    table = tmp_path / "all"
    done = harness(
        "gdl1",
        "gdl2",
        "corpus",
        "--no-match",
        "--workers",
        "2",
        "--seconds",
        "0.5",
        "--out",
        str(table),
        timeout=4 * 3600,
    )
    assert done.returncode == 0, done.stderr
    rows = rows_of(table)
    assert len(rows) == sum(
        1 for f in ("gdl1", "gdl2", "corpus") for _ in (SHARED / f).glob("*.kif")
    )
    unsound = []
    for row in rows.values():
        try:
            assert_sound(row)
        except AssertionError:
            unsound.append(f"{row['game']}: {row['status']} {row['stage']} {row['message']}")
    assert not unsound, "\n".join(unsound)


def test_the_summary_goes_between_the_marks_on_lines_of_their_own(tmp_path):
    """docs/coverage.md names its marks in its prose (inline, in backquotes):
    the summary went there, between the prose's two mentions, and replaced
    the paragraph that explains the options."""
    md = tmp_path / "c.md"
    md.write_text(
        "Written between the `<!-- coverage: begin -->` and\n"
        "`<!-- coverage: end -->` marks.\n\n## Summary\n\n"
        "<!-- coverage: begin -->\nold\n<!-- coverage: end -->\nafter\n"
    )
    table = tmp_path / "c"
    done = subprocess.run(
        [
            *HARNESS,
            TICTACTOE,
            "--out",
            str(table),
            "--md",
            str(md),
            "--no-match",
            "--seconds",
            "0.1",
            "--playouts",
            "1",
            "--sweep-steps",
            "1",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    text = md.read_text()
    assert text.startswith(
        "Written between the `<!-- coverage: begin -->` and\n"
        "`<!-- coverage: end -->` marks.\n\n## Summary\n\n"
        "<!-- coverage: begin -->\n"
    )
    assert "\nold\n" not in text and "| **all** | 1 | 1 |" in text
    assert text.endswith("<!-- coverage: end -->\nafter\n")
