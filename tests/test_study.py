"""Studies (matches/study.py): parallel, reproducible, resumable."""

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ggp import shared
from matches.cli import main
from matches.records import MatchStore
from matches.study import (
    load_study,
    match_lines,
    matches_path,
    ranking,
    run_study,
    score_interval,
    summary,
    tasks,
)

STUDY = """
name: tiny
games: [tictactoe]
players:
  uct: uct:simulations=20
  random: random
matches: 6
seed: 3
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write(tmp_path, text=STUDY, name="tiny.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_tasks_alternate_roles_and_have_distinct_seeds(tmp_path):
    study = load_study(write(tmp_path))
    ts = tasks(study)
    assert len(ts) == 6 and len({t["seed"] for t in ts}) == 6
    assert [t["order"][0] for t in ts] == ["uct", "random"] * 3


def test_study_resumes_without_redoing_a_match(tmp_path):
    study = load_study(write(tmp_path))
    full = run_study(study, workers=2, db=tmp_path / "full.sqlite", progress=None)
    assert len(full) == 6
    # a database holding the first three matches only, as a killed run leaves it
    partial = tmp_path / "partial.sqlite"
    with MatchStore(tmp_path / "full.sqlite") as src, MatchStore(partial) as dst:
        for row in full[:3]:
            dst.add(src.get(row["match_id"]), study=study.name, key=row["key"])
    resumed = run_study(study, workers=2, db=partial, progress=None)
    assert [r["key"] for r in resumed] == [r["key"] for r in full]
    assert [r["match_id"] for r in resumed[:3]] == [r["match_id"] for r in full[:3]]
    assert [r["goals"] for r in resumed] == [r["goals"] for r in full]
    with MatchStore(partial) as store:
        assert store.count(study.name) == 6
    assert summary(resumed) == summary(full)


def test_ranking_orders_a_stronger_player_first():
    rows = [
        {"players": {"x": "a", "o": "b"}, "goals": {"x": 100, "o": 0}, "key": f"g|a|b|{i}"}
        for i in range(9)
    ]
    rows.append({"players": {"x": "b", "o": "a"}, "goals": {"x": 100, "o": 0}, "key": "g|a|b|9"})
    ranks = ranking(rows, ["a", "b"], resamples=50)
    assert [r["player"] for r in ranks] == ["a", "b"]
    a, b = ranks
    assert a["elo"] == -b["elo"] > 0 and a["low"] <= a["elo"] <= a["high"]


def test_six_wins_of_six_have_a_wilson_interval_not_zero_width():
    # the normal approximation printed 100.0 ± 0.0 for 6 wins of 6
    rows = [
        {
            "players": {"x": "a", "o": "b"},
            "goals": {"x": 100, "o": 0},
            "key": f"g|a|b|{i}",
            "game": "g",
        }
        for i in range(6)
    ]
    (row,) = summary(rows)
    assert (row["wins"], row["score"], row["low"], row["high"]) == (6, 100.0, 61.0, 100.0)
    assert score_interval([0] * 6) == (0.0, 39.0)
    assert score_interval([50] * 100) == (40.4, 59.6)


def test_the_ranking_bootstrap_is_seeded_and_resamples_the_matches():
    rows = [
        {"players": {"x": p, "o": q}, "goals": {"x": g, "o": 100 - g}, "key": f"g|{p}|{q}|{i}"}
        for i, (p, q, g) in enumerate([("a", "b", 100), ("b", "c", 50), ("a", "c", 0)] * 40)
    ]
    ranks = ranking(rows, ["a", "b", "c"], resamples=100, seed=5)
    assert ranks == ranking(rows, ["a", "b", "c"], resamples=100, seed=5)
    assert ranks != ranking(rows, ["a", "b", "c"], resamples=100, seed=6)
    assert all(r["low"] < r["elo"] < r["high"] for r in ranks)
    assert sum(r["elo"] for r in ranks) in (-1, 0, 1)


def test_study_command_writes_tables(tmp_path, capsys):
    path = write(tmp_path)
    assert (
        main(["study", str(path), "--workers", "1", "--json", "--db", str(tmp_path / "m.sqlite")])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["matches"] == 6
    (row,) = data["rows"]
    assert row["player"] == "uct" and row["wins"] + row["draws"] + row["losses"] == 6
    assert (tmp_path / "results" / "tiny" / "summary.md").read_text().startswith("| game")
    assert (tmp_path / "results" / "tiny" / "summary.png").stat().st_size > 1000
    # the ranking follows the scores, and matches.jsonl.gz holds the matches behind them
    first = "uct" if row["score"] > 50 else "random"
    assert row["score"] == 50 or data["ranking"][0]["player"] == first
    out = tmp_path / "results" / "tiny"
    assert matches_path(out) == out / "matches.jsonl.gz"
    lines = [json.loads(line) for line in match_lines(out / "matches.jsonl.gz")]
    assert sorted(m["key"] for m in lines) == sorted(f"tictactoe|uct|random|{i}" for i in range(6))
    assert sum(m["goals"]["uct"] for m in lines) / 6 == pytest.approx(row["score"], abs=0.05)
    assert [m["roles"]["uct"] for m in sorted(lines, key=lambda m: m["key"])] == [
        "xplayer",
        "oplayer",
    ] * 3


@pytest.mark.parametrize(
    "text, message",
    [
        ("games: [tictactoe]\n", "'players' is required"),
        ("games: [tictactoe]\nplayers: {a: random}\npairs: [[a, b]]\n", "must name two"),
        ("games: [tictactoe]\nplayers: {a: random}\nmatchs: 3\n", "unknown key"),
        ("games: [tictactoe\nplayers: {a: random}\n", r"tiny.yaml:2:8: not valid YAML"),
        ("- games\n", "a study is a mapping"),
        (
            "games: [tictactoe]\nplayers: {a: uct:c=abc, b: random}\n",
            "player a: player uct: c=abc: expected a number >= 0",
        ),
        (
            "games: [tictactoe]\nplayers: {a: random, b: random}\nmatches: 0\n",
            "matches=0: expected an integer >= 1",
        ),
        (
            "games: [tictactoe]\nplayers: {a: random, b: random}\nplayclock: -1\n",
            "playclock=-1: expected a number > 0",
        ),
        ("games: [lightsout]\nplayers: {a: random, b: random}\n", "a study pairs two players"),
        (
            "name: [1, 2]\ngames: [tictactoe]\nplayers: {a: random, b: random}\n",
            "tiny.yaml: 'name' must be a string, not a list",
        ),
        (
            "games: [tictactoe, 3]\nplayers: {a: random, b: random}\n",
            r"'games' must be a list of games: names in games_gdl or .kif paths; games\[1\] is an int",
        ),
        (
            "games: [tictactoe]\nplayers: {a: random, b: [uct]}\n",
            "'players' must be a mapping label: player spec; players.b is a list",
        ),
        (
            "games: [tictactoe]\nplayers: {a: random, b: random}\npairs: [a, b]\n",
            r"'pairs' must be a list of pairs of labels, each \[label, label\]; pairs\[0\] is a str",
        ),
    ],
)
def test_mistakes_in_a_study_file_are_named(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        load_study(write(tmp_path, text))


def test_a_study_whose_out_cannot_be_written_is_refused_before_any_match(tmp_path, capsys):
    """It played every match and then failed to write its tables: internal error."""
    (tmp_path / "taken").write_text("")  # a file where the directory would go
    path = write(tmp_path, STUDY + "out: taken/results\n")
    assert main(["study", str(path), "--db", str(tmp_path / "m.sqlite")]) == 1
    assert capsys.readouterr().err == (
        f"ggp: {path}: out: cannot write in {tmp_path}/taken/results: Not a directory\n"
    )
    assert not (tmp_path / "m.sqlite").exists()


BIN = Path(sys.executable).parent  # where pip put the ggp and ray commands


@pytest.fixture
def ray_home(tmp_path):
    """The environment of a user who once ran a local Ray (which leaves a token in
    ~/.ray/auth_token, so that `ray start --head` turns token authentication on), in a
    home of the test's own, with nothing else of Ray's set."""
    pytest.importorskip("ray", reason="ray is an optional extra: pip install '.[ray]'")
    home = tmp_path / "home"
    (home / ".ray").mkdir(parents=True)
    (home / ".ray" / "auth_token").write_text(secrets.token_hex(32))
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    return {**env, "HOME": str(home), "RAY_USAGE_STATS_ENABLED": "0"}


@pytest.fixture
def ray_head(ray_home):
    """A Ray cluster of the test's own, started as docs/matches.md says (`ray start --head
    --port PORT`) on ports and a temporary directory of its own, in a process group of
    its own: the end stops that group and nothing else (`ray stop` stops every Ray
    cluster of the user on the machine)."""
    port, temp = free_port(), tempfile.mkdtemp(prefix="ray")  # sockets need short paths
    start = subprocess.Popen(
        [
            str(BIN / "ray"),
            "start",
            "--head",
            f"--port={port}",
            "--num-cpus=2",
            f"--temp-dir={temp}",
            "--include-dashboard=false",
            f"--dashboard-port={free_port()}",
            f"--dashboard-agent-listen-port={free_port()}",
            "--disable-usage-stats",
        ],
        env=ray_home,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        output, _ = start.communicate(timeout=180)
        assert start.returncode == 0, output
        assert "Token authentication is enabled" in output  # as the user's would be
        yield f"127.0.0.1:{port}"
    finally:
        os.killpg(start.pid, signal.SIGKILL)  # as `ray stop --force`, but only this group
        shutil.rmtree(temp, ignore_errors=True)


def test_the_readme_ray_recipe_plays_the_same_matches_on_a_cluster(tmp_path, ray_home, ray_head):
    # With Ray 2.60 the recipe failed: `ray start --head` turns token authentication on when
    # the user has a token, Ray's driver never does for an explicit address, and the study
    # was refused 20 times (InvalidAuthToken) before `internal error: ConnectionError`.
    path = write(tmp_path)
    study = [
        str(BIN / "ggp"),
        "study",
        path.name,
        "--executor",
        "ray",
        "--ray-address",
        ray_head,
        "--db",
        str(tmp_path / "ray.sqlite"),
        "--json",
    ]
    done = subprocess.run(
        study, cwd=tmp_path, env=ray_home, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    local = run_study(load_study(path), workers=2, db=tmp_path / "local.sqlite", progress=None)
    remote = run_study(load_study(path), db=tmp_path / "ray.sqlite", progress=None)  # read back
    assert [r["goals"] for r in remote] == [r["goals"] for r in local]
    assert summary(remote) == summary(local)
    # a machine without the head's token is refused at once, in one line that says what to do
    stranger = tmp_path / "stranger"
    (stranger / ".ray").mkdir(parents=True)
    (stranger / ".ray" / "auth_token").write_text(secrets.token_hex(32))
    done = subprocess.run(
        study[:-1],
        cwd=tmp_path,
        env={**ray_home, "HOME": str(stranger)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (
        f"ggp: the Ray cluster at {ray_head} refused this machine (token "
        "authentication): give it the head's token (copy the head's "
        "~/.ray/auth_token here, or set RAY_AUTH_TOKEN), or start the "
        "cluster with RAY_AUTH_MODE=disabled on a private network\n"
    )


def test_a_ray_address_where_no_cluster_answers_is_one_line(tmp_path, capsys):
    # it was 20 attempts of 40 s each, each logged, then internal error: ConnectionError
    pytest.importorskip("ray", reason="ray is an optional extra: pip install '.[ray]'")
    port = free_port()
    assert (
        main(
            [
                "study",
                str(write(tmp_path)),
                "--executor",
                "ray",
                "--ray-address",
                f"127.0.0.1:{port}",
                "--db",
                str(tmp_path / "m.sqlite"),
            ]
        )
        == 1
    )
    assert capsys.readouterr().err == (
        f"ggp: no Ray cluster answers at 127.0.0.1:{port} (Connection refused): start one "
        f"there with `ray start --head --port {port}`, or give its address\n"
    )


@pytest.mark.parametrize(
    "path",
    sorted((Path(__file__).parents[1] / "benchmarks" / "studies").glob("*.yaml")),
    ids=lambda p: p.name,
)
def test_the_benchmark_studies_load(path):
    # every study the docs quote is still valid: its keys, player specs and games
    if "shared/games" in path.read_text() and not shared.DEFAULT.is_dir():
        pytest.skip("../shared/games is absent (the studies name their games by that path)")
    study = load_study(path)
    assert study.pairs and all(a in study.players and b in study.players for a, b in study.pairs)
    assert study.matches * len(study.games) >= 150  # matches a pair


def test_the_unseen_corpus_games_are_the_seeded_draw():
    """benchmarks/studies/unseen_corpus.yaml names the games that its comment
    says were drawn: the eligible corpus games of the coverage suite's table,
    sampled with random.Random(46), in that order."""
    import random

    import yaml

    from benchmarks.harness import RESULTS, STUDIES, read_rows

    eligible = sorted(
        row["game"].removeprefix("corpus/")
        for row in read_rows(RESULTS / "coverage")
        if row["game"].startswith("corpus/")
        and row["gdl"] == "I"
        and len(row["roles"].split()) == 2
        and row["steps"]
        and row["faults"] == "0"
    )
    assert len(eligible) == 122
    study = yaml.safe_load((STUDIES / "unseen_corpus.yaml").read_text())
    drawn = [Path(g).stem for g in study["games"]]
    assert drawn == random.Random(46).sample(eligible, 20)


def test_a_study_aborts_a_match_that_never_ends_and_does_not_score_it(tmp_path, capsys):
    """``maxsteps`` caps every match of a study: a game whose terminal is never
    reached once held its worker forever."""
    from test_manager import ENDLESS

    (tmp_path / "endless.kif").write_text(ENDLESS)
    path = write(
        tmp_path,
        "games: [tictactoe, endless.kif]\nplayers: {a: random, b: random}\n"
        "matches: 2\nmaxsteps: 20\n",
    )
    assert load_study(path).maxsteps == 20
    assert (
        main(["study", str(path), "--workers", "1", "--json", "--db", str(tmp_path / "m.sqlite")])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["matches"] == 4 and data["aborted"] == 2
    (row,) = data["rows"]
    assert row["game"] == "tictactoe" and row["matches"] == 2 and row["aborted"] == 0
    assert (
        "2 match(es) aborted, not scored: the game did not end within 20 steps"
        in (tmp_path / "results" / "tiny" / "summary.md").read_text()
    )
