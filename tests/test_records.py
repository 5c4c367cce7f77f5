"""Match records: the ggp.org JSON shape, replay against the rules, the SQLite store."""

import copy
import json
import signal
import subprocess
import sys
import textwrap

import pytest

import players
from ggp import load_game
from ggp.game import games_dir
from matches.cli import main
from matches.manager import run_match
from matches.records import (
    MatchStore,
    default_db_path,
    read_json,
    replay,
    to_ggp_json,
    write_json,
)

GGP_KEYS = {
    "matchId",
    "randomToken",
    "startTime",
    "gameMetaURL",
    "isCompleted",
    "isAborted",
    "states",
    "moves",
    "stateTimes",
    "errors",
    "goalValues",
    "previewClock",
    "startClock",
    "playClock",
    "playerNamesFromHost",
    "isPlayerHuman",
    "tournamentNameFromHost",
    "scrambled",
}
OURS = {"gameName", "roles", "gameSource", "faults", "simulations", "reasoners", "abortReason"}


def play(game="tictactoe", seed=1):
    game = load_game(game)
    return run_match(
        game,
        {
            r: players.make(f"random:seed={seed + i}")
            for i, r in enumerate(game.roles)
            if r != "random"
        },
        seed=seed,
    )


@pytest.fixture(scope="module")
def record():
    return to_ggp_json(play())


def test_ggp_json_shape(record, tmp_path):
    assert set(record) == GGP_KEYS | OURS
    steps, roles = len(record["moves"]), record["roles"]
    assert roles == ["xplayer", "oplayer"] and record["gameSource"] == "tictactoe"
    assert len(record["states"]) == len(record["stateTimes"]) == steps + 1
    assert len(record["errors"]) == steps + 1  # one per state, START's first
    assert all(len(m) == len(e) == len(roles) for m, e in zip(record["moves"], record["errors"]))
    assert len(record["errors"][0]) == len(roles)
    assert len(record["goalValues"]) == len(record["playerNamesFromHost"]) == len(roles)
    assert record["isCompleted"] and not record["isAborted"]
    assert record["states"][0].startswith("( ( square 1 1 e ) ( square 1 2 e )")
    assert record["states"][0].endswith(" ( turn xplayer ) )")
    assert record["stateTimes"][0] >= record["startTime"] > 1.5e12  # ms since the epoch
    assert record["simulations"] == [[None, None]] * steps  # random does not search
    assert record["reasoners"] == [["compiled", "compiled"]] * steps  # random waits for it
    path = tmp_path / "match.json"
    write_json(record, path)
    assert read_json(path) == record


def test_search_players_simulations_are_recorded():
    game = load_game("tictactoe")
    data = to_ggp_json(
        run_match(
            game,
            {
                "xplayer": players.make("uct:simulations=50,seed=1"),
                "oplayer": players.make("random:seed=2"),
            },
            seed=1,
        )
    )
    assert data["simulations"] and all(x == 50 and o is None for x, o in data["simulations"])


def test_replay_of_a_good_record(record):
    report = replay(record)
    assert report.ok, report.problems
    assert report.lines[0] == "start"
    assert sum(line.startswith("step ") for line in report.lines) == len(record["moves"])


def tampered(record, what):
    bad = copy.deepcopy(record)
    if what == "move":
        bad["moves"][2][0] = "( mark 9 9 )"  # xplayer's third move
    elif what == "goal":
        bad["goalValues"][0] += 1
    elif what == "state":
        bad["states"][3] = bad["states"][3].replace("( turn", "( control")
    return bad


@pytest.mark.parametrize(
    "what, words",
    [
        ("move", "step 3: illegal move(s):"),
        ("goal", "goal of xplayer: recorded"),
        ("state", "step 3: state differs"),
    ],
)
def test_replay_finds_a_tampered_record(record, what, words):
    report = replay(tampered(record, what))
    assert not report.ok
    assert len(report.problems) == 1 and report.problems[0].startswith(words)


def test_replay_of_a_game_given_as_text():
    data = to_ggp_json(play((games_dir() / "nim.kif").read_text()))
    assert data["gameSource"] is None and "(role" in data["gdl"]
    assert replay(json.loads(json.dumps(data))).ok


@pytest.mark.parametrize("game", ["kuhn", "leduc"])
def test_replay_of_a_gdl2_match(game):
    for seed in range(5):
        data = to_ggp_json(play(game, seed))
        assert "random" in data["roles"]
        random_index = data["roles"].index("random")
        assert data["goalValues"][random_index] is None
        assert any(step[random_index] != "noop" for step in data["moves"])
        report = replay(data)
        assert report.ok, report.problems


def test_store(tmp_path, record):
    with MatchStore(tmp_path / "sub" / "m.sqlite") as store:
        assert store.add(record, study="s1", key="k1")
        again = dict(record, matchId="other")
        assert not store.add(again, study="s1", key="k1")  # same (study, key)
        assert store.add(again, study="s1", key="k2")
        assert not store.add(again)  # same match id
        assert store.add(to_ggp_json(play(seed=7)))
        assert store.keys("s1") == {"k1", "k2"} and store.keys("s2") == set()
        assert store.count() == 3 and store.count("s1") == 2
        assert store.get(record["matchId"]) == record and store.get("nope") is None
        rows = store.matches(study="s1", game="tictactoe")
        assert [r["key"] for r in rows] == ["k1", "k2"]
        assert rows[0]["goals"] == dict(zip(record["roles"], record["goalValues"]))
        assert rows[0]["steps"] == len(record["moves"]) and rows[0]["faults"] == 0
        assert store.matches(game="nim") == []


def test_default_db_path(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_db_path() == tmp_path / "ggp" / "matches.sqlite"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_db_path().parts[-4:] == (".local", "share", "ggp", "matches.sqlite")


WRITER = textwrap.dedent("""
    import sys
    from matches.records import MatchStore, read_json
    record, store = read_json(sys.argv[1]), MatchStore(sys.argv[2])
    i = 0
    while True:
        store.add(dict(record, matchId=f"m{i}"), study="killed", key=f"k{i}")
        print(i, flush=True)
        i += 1
""")


def test_store_survives_a_killed_writer(tmp_path, record):
    """A writer killed mid-way (SIGKILL) loses none of the matches it had added."""
    match, db = tmp_path / "match.json", tmp_path / "m.sqlite"
    write_json(record, match)
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(match), str(db)], stdout=subprocess.PIPE, text=True
    )
    done = [int(proc.stdout.readline()) for _ in range(20)]
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    with MatchStore(db) as store:
        assert {f"k{i}" for i in done} <= store.keys("killed")
        assert store.count("killed") >= 20
        assert store._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_cli_replay(tmp_path, capsys, record):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    write_json(record, good)
    write_json(tampered(record, "goal"), bad)
    assert main(["replay", str(good)]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("replay: OK") and "step 1: xplayer" in out
    assert main(["replay", str(bad), "--game", "tictactoe", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert not data["ok"] and data["problems"][0].startswith("goal of xplayer")
    assert main(["replay", str(tmp_path / "missing.json")]) == 1
    assert "missing.json" in capsys.readouterr().err
