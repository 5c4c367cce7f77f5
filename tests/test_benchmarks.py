"""The benchmark suites' own safeguards (the figures they measure are in docs/;
the harness that runs them is tested in test_harness.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.harness import read_rows

ROOT = Path(__file__).resolve().parents[1]


def benchmark(*argv, **kwargs):
    """``python -m benchmarks ARGV`` run from the repository."""
    return subprocess.run(
        [sys.executable, "-m", "benchmarks", *map(str, argv)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        **kwargs,
    )


def run_sancho_script(tmp_path, stand_in: str, *options: str, timeout: float = 300):
    """The against_sancho suite on tictactoe with ``stand_in`` in Sancho's
    seat: 2 matches at 1 s start clock, both margins 0.5 s, writing into
    ``tmp_path``; ``options`` add to or override these."""
    argv = [
        sys.executable,
        "-m",
        "benchmarks",
        "against_sancho",
        "--games",
        "tictactoe",
        "--matches",
        "2",
        "--startclock",
        "1",
        "--margin",
        "500",
        "--out",
        str(tmp_path / "out"),
        "--db",
        str(tmp_path / "db.sqlite"),
        *options,
    ]
    return subprocess.run(
        argv,
        cwd=ROOT,
        env={**os.environ, "SANCHO": stand_in, "SANCHO_CFG": str(tmp_path / "sancho.cfg")},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def sancho_rows(tmp_path) -> list:
    return read_rows(tmp_path / "out")


def test_a_match_in_which_a_peer_dies_is_counted_apart_and_the_peer_started_again(tmp_path):
    """The against_sancho suite with a stand-in for Sancho (our random player
    behind ``ggp serve``) that dies 4 s after each start, during each match
    (as Sancho runs out of memory building checkers): each match is recorded
    with who died, counted apart, not scored, and the stand-in is started
    again for the next (before, the run stopped at the first; earlier still,
    a dead side's matches were recorded as results, every move substituted)."""
    stand_in = f"timeout 4 {sys.executable} -m matches.cli serve random --port"
    done = run_sancho_script(tmp_path, stand_in, "--player", "uct", "--playclock", "3", timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("Sancho exited") == 2 and "Traceback" not in done.stderr
    assert [r["died"] for r in sancho_rows(tmp_path)] == [["Sancho"], ["Sancho"]]
    assert "| tictactoe | 0 | - | - | 0 / 2 |" in done.stdout


def test_against_sancho_both_sides_get_the_same_margin_and_a_run_resumes(tmp_path):
    """Sancho stops SAFETY_MARGIN ms (2,500 by default) before each deadline
    and our players 0.1 s, so left alone Sancho thinks half as long at a 5 s
    clock.  The suite writes --margin into Sancho's configuration, gives our
    player the same (``ggp serve``'s margin plus the player's), records both in
    every row, scores matches and puzzles apart, and resumes without
    replaying.  A stand-in (our random player) plays Sancho's seat."""
    stand_in = f"{sys.executable} -m matches.cli serve random --port"
    cfg = tmp_path / "sancho.cfg"  # the file run_sancho_script names
    cfg.write_text("USE_AFFINITY=false\nSAFETY_MARGIN=2500\n")
    out = tmp_path / "out"

    def run():
        done = run_sancho_script(
            tmp_path,
            stand_in,
            *("--player", "uct:simulations=20", "--playclock", "1"),
            *("--puzzles", "lightsout", "--puzzle-runs", "1"),
        )
        assert done.returncode == 0, done.stderr
        return done

    first = run()
    assert cfg.read_text() == "USE_AFFINITY=false\nSAFETY_MARGIN=500\n"
    rows = sancho_rows(tmp_path)
    assert [(r["kind"], r["game"], r["seed"], r.get("side")) for r in rows] == [
        ("match", "tictactoe", 0, None),  # round by round
        ("puzzle", "lightsout", 0, "ours"),
        ("puzzle", "lightsout", 0, "sancho"),
        ("match", "tictactoe", 1, None),
    ]
    assert all((r["margin"], r["sancho_margin"]) == (0.5, 0.5) for r in rows)
    assert "margins (ours, Sancho's) [(0.5, 0.5)]" in first.stdout
    assert "| tictactoe | 2 |" in first.stdout and "| lightsout | 1 / 1 |" in first.stdout
    ours = (out / "ours.log").read_text()
    assert "margin 0.25 s" in ours  # ggp serve's share; the player's is the rest
    second = run()
    assert len(sancho_rows(tmp_path)) == 4  # nothing replayed
    assert "| tictactoe | 2 |" in second.stdout


def test_mccr_budgets_writes_the_grid(tmp_path):
    """The mccr_budgets suite's grid: a row per variant, root and resolve
    budget, each exploitability in Kuhn's range, and a plot."""
    out = tmp_path / "grid"
    done = benchmark(
        *("mccr_budgets", "grid", "--game", "kuhn", "--seeds", "1"),
        *("--roots", "100,100000", "--budgets", "100", "--out", out),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = read_rows(out)
    assert [(r["player"], r["root"]) for r in rows] == [
        ("mccr:variant=keep", 100),
        ("mccr:variant=keep", 100000),
        ("mccr:variant=reset", 100),
        ("mccr:variant=reset", 100000),
    ]
    # Kuhn's exploitability in chips lies between 0 and 2 (the most a player
    # can lose); which root solve gives the less at one seed is noise since
    # the resolver's values skip their warm-up (0.207 against 0.237 at 100
    # iterations a resolve, the other way round at 1,000)
    assert all(0 < r["exploitability_in_unit"] < 2 for r in rows)
    assert (out / "grid_kuhn.png").read_bytes()[:4] == b"\x89PNG"


def test_a_peer_that_faults_is_started_again_before_the_next_match(tmp_path):
    """Sancho building checkers went on for minutes after the match and
    faulted every move of the next two games: a side that faulted is started
    again before the next match.  The stand-in answers every message with an
    HTTP error (the standard library's file server refuses POST)."""
    stand_in = f"{sys.executable} -m http.server --bind 127.0.0.1"
    done = run_sancho_script(
        tmp_path, stand_in, "--player", "uct:simulations=20", "--playclock", "1"
    )
    assert done.returncode == 0, done.stderr
    rows = sancho_rows(tmp_path)
    assert len(rows) == 2 and all(r["sancho_faults"] == r["steps"] for r in rows)
    assert (tmp_path / "out" / "sancho.log").read_text().count(
        "Serving HTTP"
    ) == 3  # started, then twice again
    assert "| tictactoe | 0 | - | - | 0 / 2 |" in done.stdout


def test_puzzles_suite_plays_each_spec_alone_and_resumes(tmp_path):
    """The puzzles suite finds the one-player games of a games folder,
    plays each spec alone on them, writes a row per match and the table, and
    a second run plays nothing again."""
    shared = tmp_path / "games"
    (shared / "gdl1").mkdir(parents=True)
    (shared / "corpus").mkdir()
    (shared / "gdl1" / "lightsout.kif").write_text(
        (ROOT / "games_gdl" / "lightsout.kif").read_text()
    )
    (shared / "gdl1" / "tictactoe.kif").write_text(
        (ROOT / "games_gdl" / "tictactoe.kif").read_text()
    )
    argv = [
        sys.executable,
        "-m",
        "benchmarks",
        "puzzles",
        "--specs",
        "uct:simulations=20,seed=1",
        "uct:simulations=20,seed=1,puzzle=false",
        "--runs",
        "1",
        "--startclock",
        "2",
        "--playclock",
        "1",
        "--out",
        str(tmp_path / "out"),
    ]
    env = {**os.environ, "GGP_SHARED_GAMES": str(shared)}
    first = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    rows = read_rows(tmp_path / "out")
    assert [(r["game"], r["spec"]) for r in rows] == [
        ("gdl1/lightsout", "uct:simulations=20,seed=1"),
        ("gdl1/lightsout", "uct:simulations=20,seed=1,puzzle=false"),
    ]
    assert rows[0]["goal"] == 100 and rows[0]["faults"] == 0
    assert "| gdl1/lightsout | 100 |" in (tmp_path / "out" / "summary.md").read_text()
    again = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "#0:" not in again.stdout
    assert again.stdout.startswith("2 of 2 jobs already in")


@pytest.mark.slow
@pytest.mark.parametrize("game", ["connectfour", "breakthrough"])
def test_a_benchmarked_player_searches_at_about_the_kernels_speed(game):
    """``ggp bench --player``'s simulations a second are within a factor of 5
    of the kernel's random playouts a second, measured alternately in one run
    (the search_speed suite measures both).  It once measured the
    demand-driven fallback, at 1/17,000 of them."""
    from benchmarks.suites.search_speed import clocked, kernel_measures
    from benchmarks.timing import Measure, run_rounds
    from ggp import load_game
    from players.bench import bench_player

    loaded = load_game(game)
    _, playouts = kernel_measures(loaded.state_machine("compiled"), 0.25)
    clock = Measure(lambda n: clocked(bench_player(loaded, "uct", 0.25)), 0.25)
    run_rounds({"playouts": playouts, "clock": clock}, 1.0)
    assert clock.rate > playouts.rate / 5, (clock.rate, playouts.rate)


def write_h2h_study(folder: Path, players: dict, matches: list) -> Path:
    """A study file in ``folder`` naming ``players`` (label: spec) on tictactoe,
    with ``matches`` ((a, b, a's goal, b's goal, faults) each) as its
    compressed matches file, as a finished study leaves them."""
    import gzip

    import yaml

    out = folder / "out"
    out.mkdir(parents=True)
    lines = [
        json.dumps({"pair": [a, b], "goals": {a: ga, b: gb}, "faults": faults})
        for a, b, ga, gb, faults in matches
    ]
    (out / "matches.jsonl.gz").write_bytes(gzip.compress("\n".join(lines).encode()))
    path = folder / "study.yaml"
    study = {"games": ["tictactoe"], "players": players, "out": "out"}
    path.write_text(yaml.safe_dump(study, sort_keys=False))
    return path


def run_h2h(*argv):
    return benchmark("h2h", *argv, timeout=60)


def test_h2h_prints_each_player_against_random_beside_the_head_to_head(tmp_path):
    """The h2h report: the head-to-head table, then every player's mean goal
    against random with its Wilson interval and whether that interval lies
    above the game's mean; a mean above it with a wide interval is not enough,
    and a match with faults is not scored."""
    from matches.study import score_interval

    players = {"strong": "mccr:iterations=10", "lucky": "uct", "rnd": "random"}
    matches = (
        [("strong", "rnd", 100, 0, 0)] * 40
        + [("lucky", "rnd", 60, 40, 0)] * 20
        + [("lucky", "rnd", 0, 100, 1)] * 5  # faulted: left out
        + [("strong", "lucky", 70, 30, 0)] * 10
    )
    done = run_h2h(write_h2h_study(tmp_path, players, matches))
    assert done.returncode == 0, done.stderr
    head, _, against = done.stdout.partition("matches a pair:")
    low, high = score_interval([70] * 10)
    assert f"| strong | 70.0 ({low} .. {high}) |" in head
    assert "| tictactoe | matches against rnd | mean goal (95% interval) |" in against
    assert "above the game's mean (50.0) |" in against
    low, high = score_interval([100] * 40)
    assert f"| strong | 40 | 100.0 ({low} .. {high}) | yes |" in against
    low, high = score_interval([60] * 20)
    assert low < 50 < 60
    assert f"| lucky | 20 | 60.0 ({low} .. {high}) | no |" in against


def test_h2h_above_random_leaves_out_the_players_that_do_not_beat_it(tmp_path):
    """--above-random: the head-to-head table has only the players whose
    interval against random lies above the game's mean, and names the others."""
    players = {"strong": "mccr:iterations=10", "lucky": "uct", "weak": "mcts", "rnd": "random"}
    matches = (
        [("strong", "rnd", 100, 0, 0)] * 40
        + [("lucky", "rnd", 60, 40, 0)] * 20
        + [("weak", "rnd", 100, 0, 0)] * 40
        + [("strong", "lucky", 70, 30, 0)] * 10
        + [("strong", "weak", 40, 60, 0)] * 10
    )
    study = write_h2h_study(tmp_path, players, matches)
    head = run_h2h(study, "--above-random").stdout.partition("matches a pair:")
    assert "| tictactoe | weak | rnd |" in head[0]
    assert "| strong | 40.0 (" in head[0] and "| lucky |" not in head[0]
    assert "left out, not measurably above random: lucky" in head[2]
    everyone = run_h2h(study).stdout.partition("matches a pair:")
    assert "| tictactoe | lucky | weak | rnd |" in everyone[0]
    assert "left out" not in everyone[2]


def test_h2h_takes_the_matches_against_random_from_the_study_named(tmp_path):
    """--random names the study with the matches against random; it must give
    the players the same specs, and a study without random is refused in one
    line.  The game's mean is that of the matches (here goals sum to 120)."""
    players = {"a": "uct:simulations=10", "b": "mcts"}
    main = write_h2h_study(tmp_path / "main", players, [("a", "b", 60, 60, 0)] * 4)
    refused = run_h2h(main)
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        f"h2h: {main}: no player is random; name a study that has one with --random"
    )
    versus = [("a", "random", 90, 30, 0)] * 30 + [("random", "b", 60, 60, 0)] * 30
    other = write_h2h_study(tmp_path / "other", {**players, "random": "random"}, versus)
    done = run_h2h(main, "--random", other)
    assert done.returncode == 0, done.stderr
    assert "above the game's mean (60.0) |" in done.stdout
    assert "| a | 30 | 90.0 (" in done.stdout and ") | yes |" in done.stdout
    assert "| b | 30 | 60.0 (" in done.stdout and ") | no |" in done.stdout
    stale = write_h2h_study(
        tmp_path / "stale", {"a": "uct:simulations=20", "b": "mcts", "random": "random"}, versus
    )
    refused = run_h2h(main, "--random", stale)
    assert refused.returncode == 1
    assert "a is 'uct:simulations=20', not 'uct:simulations=10'" in refused.stderr


def test_h2h_names_a_study_of_the_harness_or_says_which_is_near():
    """A study is named by its file or as the harness lists it; a misspelt
    name is one line with the nearest study."""
    done = run_h2h("h2h_leduc", "--random", "h2h_leduc_random")
    assert done.returncode == 0, done.stderr
    assert "| leduc | mccr-reset |" in done.stdout and "above the game's mean" in done.stdout
    refused = run_h2h("h2h_leduk")
    assert refused.returncode == 1
    assert refused.stderr == "h2h: h2h_leduk: no such study; did you mean 'h2h_leduc'?\n"


def test_against_random_gives_the_equilibriums_bar_on_kuhn():
    """The equilibrium_vs_random suite on Kuhn: an equilibrium wins at least the
    game's mean against random (it is guaranteed the game's value, over both
    seats the mean) and a best response at least as much; the matches it gives
    are the fewest whose Wilson interval at the equilibrium's figure clears the
    mean."""
    from benchmarks.suites import equilibrium_vs_random as module
    from matches.study import score_interval

    f = module.figures("kuhn", 500)
    assert f["mean"] == pytest.approx(50.0)
    assert f["exploitability"] < 0.05
    assert f["mean"] + 1 < f["equilibrium"] < f["best_response"]
    n = f["matches"]
    assert score_interval([f["equilibrium"]] * n)[0] > f["mean"]
    assert score_interval([f["equilibrium"]] * (n - 1))[0] <= f["mean"]
    assert module.matches_needed(50.0, 50.0, most=1000) is None


def test_background_build_searches_on_the_fallback_from_the_first_slice(tmp_path):
    """The background_build suite's search on a fallback reasoner: the player
    is ready at the end of START (its machine built before the clock starts),
    so every slice searches and a run writes its row."""
    from benchmarks.suites import background_build as module
    from ggp.shared import named_game

    row = module.fallback(str(named_game("ticTacToe")), "demand", 0.5)
    assert row["uct sims/s"] > 0
    game = named_game("ticTacToe")
    done = benchmark("background_build", game, "--fallbacks", "--seconds", "0.3", "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(read_rows(tmp_path)) == 2


def test_a_suite_given_a_game_that_is_not_there_says_so_in_one_line(tmp_path):
    done = benchmark("background_build", "ticTacToo", "--fallbacks", "--out", tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("benchmarks: background_build: ticTacToo: ")
    assert "did you mean" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
