"""What the browser viewer shows (matches.views) and its server's JSON (matches.viewer),
without a browser: tests/test_viewer_browser.py drives the page itself."""

import json
import threading
import urllib.request
from pathlib import Path

import pytest

import players
from ggp import load_game
from matches.manager import run_match
from matches.records import MatchStore, to_ggp_json, write_json
from matches.viewer import Viewer
from matches.views import Damaged, Library, Live, LiveMatch, match_view, read_record, study_view

DATA = Path(__file__).with_name("data")
OURS = ("gameName", "roles", "gameSource", "faults", "simulations")


def play(name, seed=1, on_step=None):
    game = load_game(name)
    return run_match(
        game,
        {
            r: players.make(f"random:seed={seed + i}")
            for i, r in enumerate(game.roles)
            if r != "random"
        },
        seed=seed,
        start_clock=1,
        play_clock=1,
        on_step=on_step,
    )


def ggp_base_shape(data: dict, url="http://games.ggp.org/base/games/ticTacToe/v0/") -> dict:
    """A record as another manager writes it: the ggp.org keys only."""
    other = {k: v for k, v in data.items() if k not in OURS}
    other["gameMetaURL"] = url
    return other


@pytest.fixture(scope="module")
def tictactoe():
    return to_ggp_json(play("tictactoe"))


def test_steps_of_a_tictactoe_match(tictactoe):
    view = match_view(tictactoe)
    steps = view["steps"]
    assert len(steps) == len(tictactoe["moves"]) + 1 and view["notes"] == []
    assert steps[0]["moves"] is None and steps[0]["legal"] == {"xplayer": 9, "oplayer": 1}
    assert steps[1]["legal"] == {"xplayer": 1, "oplayer": 8}
    assert steps[-1]["legal"] == {"xplayer": 0, "oplayer": 0}
    assert view["goals"] == dict(zip(tictactoe["roles"], tictactoe["goalValues"]))
    assert not view["gdl2"] and "percepts" not in steps[1]
    for step, joint in zip(steps[1:], tictactoe["moves"]):
        assert list(step["moves"].values()) == [
            m.replace("( ", "(").replace(" )", ")") for m in joint
        ]
    board = steps[-1]["board"]
    assert board["columns"] == ["1", "2", "3"] and board["rows"] == ["3", "2", "1"]
    marks = {}
    for fact in (f for f in steps[-1]["facts"] if f.startswith("(square ")):
        _, x, y, mark = fact.strip("()").split()
        marks[x, y] = "." if mark == "e" else mark
    shown = {
        (c, r): board["cells"][i][j]
        for i, r in enumerate(board["rows"])
        for j, c in enumerate(board["columns"])
    }
    assert shown == marks


def test_each_step_names_the_cells_its_move_changed(tictactoe):
    steps = match_view(tictactoe)["steps"]
    assert steps[0]["changed"] == []
    for step in steps[1:]:
        (move,) = [m for m in step["moves"].values() if m != "noop"]
        _, x, y = move.strip("()").split()
        assert step["changed"] == [[x, y]]
    assert steps[1]["board"]["glyphs"] == {}  # x and o stay letters
    # shown from its states alone (no rules), the same cells
    other = match_view(ggp_base_shape(tictactoe, url="http://example.org/games/unknown/v0/"))
    assert [s["changed"] for s in other["steps"]] == [s["changed"] for s in steps]


def test_a_board_of_stones_carries_its_glyphs():
    board = match_view(to_ggp_json(play("breakthroughsmall")))["steps"][0]["board"]
    assert board["glyphs"] == {"w": "○", "b": "●"} and board["colors"] == {}
    assert board["cells"][0][0] == "b" and board["cells"][-1][0] == "w"


def test_gdl2_steps_carry_each_roles_percepts():
    view = match_view(to_ggp_json(play("phantomttt")))
    assert view["gdl2"]
    first = view["steps"][1]
    assert set(first["percepts"]) == {"xplayer", "oplayer"}
    assert first["percepts"]["oplayer"] == ["yourturn"]


def test_a_game_without_a_grid_shows_its_facts_and_the_random_roles_moves():
    view = match_view(to_ggp_json(play("kuhn")))
    assert view["roles"] == ["first", "second", "random"]
    assert all(step["board"] is None and step["facts"] for step in view["steps"])
    assert view["steps"][1]["moves"]["random"].startswith("(deal ")
    assert set(view["goals"]) == {"first", "second"}


def test_a_match_stopped_before_its_first_move(tictactoe):
    data = {
        **tictactoe,
        "states": tictactoe["states"][:1],
        "moves": [],
        "errors": [],
        "goalValues": [],
        "isCompleted": False,
    }
    (step,) = match_view(data)["steps"]
    assert step["moves"] is None and step["legal"] == {"xplayer": 9, "oplayer": 1}


def test_a_record_from_another_manager_is_matched_to_our_game(tictactoe):
    view = match_view(ggp_base_shape(tictactoe))
    assert view["game"] == "ticTacToe" and view["roles"] == ["xplayer", "oplayer"]
    assert view["steps"][0]["legal"] == {"xplayer": 9, "oplayer": 1}


def test_a_record_of_an_unknown_game_is_shown_from_its_states(tictactoe):
    view = match_view(ggp_base_shape(tictactoe, "http://games.ggp.org/base/games/noSuch/v0/"))
    assert view["roles"] == ["role 1", "role 2"]
    assert "noSuch" in view["notes"][0]
    assert view["steps"][0]["legal"] is None
    assert (
        view["steps"][-1]["board"]["cells"] == match_view(tictactoe)["steps"][-1]["board"]["cells"]
    )


def test_a_record_that_breaks_the_rules_is_noted(tictactoe):
    data = json.loads(json.dumps(tictactoe))
    data["moves"][2] = list(reversed(data["moves"][2]))
    view = match_view(data)
    (note,) = view["notes"]
    assert note.startswith("step 3: ") and "is not legal" in note and "of tictactoe" in note
    assert view["steps"][0]["legal"] is None and len(view["steps"]) == len(data["states"])
    assert view["steps"][-1]["board"] == match_view(tictactoe)["steps"][-1]["board"]


def test_a_real_ggp_base_record_of_another_tictactoe():
    """tests/data/ggp-base-ticTacToe.json was written by ggp-base's GameServer (its
    Match.toJSON, 2026-11-26) for a match of its ticTacToe.kif between two ``ggp serve``
    players; its game key names our tictactoe, whose facts differ (cell/control
    against square/turn): shown from its states."""
    data = read_record(DATA / "ggp-base-ticTacToe.json")
    view = match_view(data)
    (note,) = view["notes"]
    assert note.startswith("step 0: the recorded state is not the rules' state")
    assert view["roles"] == ["role 1", "role 2"] and view["goals"] == {"role 1": 0, "role 2": 100}
    assert view["players"] == {"role 1": "random", "role 2": "legal"}
    assert view["steps"][1]["moves"] == {"role 1": "(mark 2 2)", "role 2": "noop"}
    final = view["steps"][-1]["board"]
    assert final["rows"] == ["3", "2", "1"] and final["cells"] == [
        ["o", ".", "x"],
        ["o", "x", "."],
        ["o", "x", "."],
    ]


@pytest.mark.parametrize(
    "text, why",
    [
        ("{", "not JSON"),
        ("[1, 2]", "it must be a JSON object, not a list"),
        ('{"states": ["( )"]}', "'moves' is required"),
        ('{"states": ["( )"], "moves": [[1]]}', r"moves\[0\]\[0\] is an integer"),
        (
            '{"states": ["( )"], "moves": [], "roles": "white"}',
            "'roles' must be a list of role names",
        ),
        ('{"states": [], "moves": []}', "no states"),
        ('{"states": ["( )"], "moves": [["a"], ["b"], ["c"]]}', "one more state than moves"),
    ],
)
def test_damaged_records_say_why(tmp_path, text, why):
    path = tmp_path / "broken.json"
    path.write_text(text)
    with pytest.raises(Damaged, match=why):
        read_record(path)


def test_the_library_keeps_a_damaged_file_beside_good_ones(tmp_path, tictactoe):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    write_json(tictactoe, good)
    bad.write_text("{not json")
    db = tmp_path / "m.sqlite"
    with MatchStore(db) as store:
        store.add(tictactoe)
    rows = Library(db=db, files=[bad, good]).matches()
    assert [r["problem"] is None for r in rows] == [False, True, True]
    assert "not JSON" in rows[0]["problem"]
    assert rows[1]["steps"] == rows[2]["steps"] == len(tictactoe["moves"])
    assert Library(db=db).record(tictactoe["matchId"])["matchId"] == tictactoe["matchId"]
    with pytest.raises(Damaged, match="no match"):
        Library(db=db).record("nonesuch")


def test_study_view_from_its_folder(tmp_path):
    lines = [
        {
            "key": f"tictactoe|a|b|{i}",
            "game": "tictactoe",
            "pair": ["a", "b"],
            "roles": {"a": "xplayer", "b": "oplayer"}
            if i % 2 == 0
            else {"a": "oplayer", "b": "xplayer"},
            "goals": {"a": 100, "b": 0} if i < 3 else {"a": 0, "b": 100},
            "steps": 7,
            "faults": 0,
        }
        for i in range(4)
    ]
    (tmp_path / "matches.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (tmp_path / "summary.png").write_bytes(b"\x89PNG")
    doc = study_view(tmp_path)
    (row,) = doc["table"]
    assert (row["player"], row["wins"], row["losses"], row["score"]) == ("a", 3, 1, 75.0)
    assert [r["player"] for r in doc["ranking"]] == ["a", "b"]
    assert doc["plots"] == ["summary.png"] and doc["finished"] == 4
    (tmp_path / "matches.jsonl").write_text("{}\n")
    with pytest.raises(Damaged, match="line 1"):
        study_view(tmp_path)


def test_a_study_page_is_computed_once_per_state_of_its_file(tmp_path, monkeypatch):
    # the ranking's bootstrap of h2h_leduc's 18,000 matches took 50-62 s a page load
    # when recomputed on every request; now once per (path, mtime, size) of matches.jsonl
    from matches import study

    calls = []
    real = study.ranking
    monkeypatch.setattr(study, "ranking", lambda *a, **k: calls.append(1) or real(*a, **k))
    line = {
        "key": "tictactoe|a|b|0",
        "game": "tictactoe",
        "pair": ["a", "b"],
        "roles": {"a": "xplayer", "b": "oplayer", "null": "random"},
        "goals": {"a": 100, "b": 0},
        "steps": 7,
        "faults": 0,
    }
    path = tmp_path / "matches.jsonl"
    path.write_text(json.dumps(line) + "\n")
    first = study_view(tmp_path)
    assert study_view(tmp_path) == first and len(calls) == 1
    # a label without a goal (the random role's, written as null) is not ranked
    assert [r["player"] for r in first["ranking"]] == ["a", "b"]
    path.write_text(json.dumps(line) + "\n" + json.dumps({**line, "key": "tictactoe|a|b|1"}) + "\n")
    assert study_view(tmp_path)["finished"] == 2 and len(calls) == 2


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_the_server_answers_json_and_one_sentence_problems(tmp_path, tictactoe):
    path = tmp_path / "m.json"
    write_json(tictactoe, path)
    viewer = Viewer(Library(files=[path])).start()
    try:
        status, listing = get(viewer.url + "api/matches")
        assert status == 200 and listing["matches"][0]["id"] == "file:0"
        status, view = get(viewer.url + "api/match/file:0")
        assert status == 200 and len(view["steps"]) == len(tictactoe["states"])
        assert get(viewer.url + "api/match/file:7") == (404, {"problem": "no match file:7"})
        status, body = get(viewer.url + "api/study")
        assert status == 404 and "no study here" in body["problem"]
        assert get(viewer.url + "static/../views.py")[0] == 404
        with urllib.request.urlopen(viewer.url) as response:
            assert b"/static/app.js" in response.read()
    finally:
        viewer.stop()


def test_a_live_match_is_pushed_step_by_step():
    live = Live("match")
    game = load_game("tictactoe")
    watcher = LiveMatch(live, game)
    versions = []

    def on_step(record, sm, state):
        watcher.on_step(record, sm, state)
        versions.append(len(live.document["steps"]))

    record = play("tictactoe", on_step=on_step)
    assert versions == list(range(1, len(record.moves) + 2))
    assert live.document["completed"] is False
    watcher.finish(record)
    assert live.document["completed"] and live.document["goals"] == record.goals
    assert live.document["steps"][-1]["legal"] == {"xplayer": 0, "oplayer": 0}


def test_events_stream_each_version():
    live = Live("match")
    viewer = Viewer(live=live).start()
    try:
        got = []

        def read():
            with urllib.request.urlopen(viewer.url + "api/events", timeout=10) as stream:
                for line in stream:
                    if line.startswith(b"data: "):
                        got.append(json.loads(line[6:]))
                        if len(got) == 2:
                            return

        reader = threading.Thread(target=read)
        reader.start()
        live.publish({"steps": [1]})
        threading.Event().wait(0.3)
        live.publish({"steps": [1, 2]})
        reader.join(10)
        assert [d["steps"] for d in got][-1] == [1, 2]
        assert got[-1]["live"] == "match" and got[-1]["version"] == 2
    finally:
        viewer.stop()


# --- the commands ------------------------------------------------------------------------


def test_view_names_what_is_missing(tmp_path, capsys):
    from matches.cli import main

    assert main(["view", "--db", str(tmp_path / "none.sqlite"), "--port", "0"]) == 1
    assert capsys.readouterr().err.strip().endswith("none.sqlite: no such database")
    assert main(["view", "--study", str(tmp_path / "nowhere"), "--port", "0"]) == 1
    assert "nowhere: no such directory" in capsys.readouterr().err
    # a record file that is not there: it started serving without a word
    assert main(["view", str(tmp_path / "nosuch.json"), "--port", "0"]) == 1
    assert capsys.readouterr().err == f"ggp: {tmp_path / 'nosuch.json'}: no such file\n"
    # a folder that is not a study's is refused before serving, in one line
    assert main(["view", "--study", str(tmp_path), "--port", "0"]) == 1
    assert capsys.readouterr().err == (
        f"ggp: {tmp_path}: no matches.jsonl.gz (is it a study's out folder?)\n"
    )


RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results"


@pytest.mark.parametrize("folder", sorted(p.name for p in RESULTS.iterdir() if p.is_dir()))
def test_every_results_folder_is_shown_or_refused_in_one_line(folder):
    """``ggp view --study`` on the project's own results: a study's folder
    (``ggp study``'s ``matches.jsonl.gz``, an older one's ``matches.jsonl``)
    gives its tables; the others (a measurement suite's rows: curves, the
    against_sancho suite's matches)
    one line saying why (nfsp and sancho_equal raised nothing until the
    page was loaded)."""
    try:
        doc = study_view(RESULTS / folder)
    except Damaged as exc:
        assert "\n" not in str(exc)
        assert "no matches.jsonl.gz" in str(exc) or "not a match of a study (no 'key')" in str(exc)
        assert not (RESULTS / folder / "matches.jsonl.gz").exists()
    else:
        assert doc["table"] and doc["finished"] > 0


def test_view_on_a_port_in_use_is_one_line(tmp_path, capsys):
    import socket

    from matches.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        (tmp_path / "m.json").write_text("{}")
        assert main(["view", str(tmp_path / "m.json"), "--port", str(port)]) == 1
        assert (
            main(
                [
                    "match",
                    "tictactoe",
                    "--player",
                    "random",
                    "--player",
                    "random",
                    "--view",
                    "--view-port",
                    str(port),
                    "--db",
                    str(tmp_path / "m.sqlite"),
                ]
            )
            == 1
        )
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"ggp: cannot listen on 127.0.0.1:{port}: Address already in use"] * 2


def _interruptible():
    """In the child: Ctrl-C as at a terminal (a suite started in the background
    without job control runs with SIGINT ignored, and children inherit that)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def watch(command, tmp_path):
    """Runs a ``--view`` command; returns its process and the viewer's address."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    process = subprocess.Popen(
        [sys.executable, "-m", "matches.cli", *command, "--view", "--view-port", "0"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=tmp_path,
        preexec_fn=_interruptible,
    )
    for line in process.stderr:
        if line.startswith("viewer: http"):
            return process, line.split()[1].split("#")[0]
    raise AssertionError(f"no viewer address; exit {process.wait()}")


def stop(process):
    import signal

    for line in process.stderr:
        if "stays up" in line:
            break
    process.send_signal(signal.SIGINT)
    assert process.wait(20) == 0, process.stderr.read()


def test_match_view_serves_the_running_match_then_stays_up(tmp_path):
    process, url = watch(
        [
            "match",
            "tictactoe",
            "--player",
            "random",
            "--player",
            "random",
            "--seed",
            "2",
            "--startclock",
            "1",
            "--playclock",
            "1",
        ],
        tmp_path,
    )
    try:
        with urllib.request.urlopen(url + "api/events", timeout=20) as stream:
            first = next(json.loads(line[6:]) for line in stream if line.startswith(b"data: "))
        assert first["live"] == "match" and first["game"] == "tictactoe"
        assert first["steps"][0]["legal"] == {"xplayer": 9, "oplayer": 1}
        stop(process)
    finally:
        process.kill()


def test_study_view_pushes_progress_and_ends_with_the_tables(tmp_path):
    study = tmp_path / "tiny.yaml"
    study.write_text(
        "name: tiny\ngames: [tictactoe]\nplayers: {a: random, b: legal}\n"
        "matches: 4\nseed: 1\nstartclock: 1\nplayclock: 1\n"
    )
    process, url = watch(["study", str(study), "--workers", "1"], tmp_path)
    try:
        seen = []
        with urllib.request.urlopen(url + "api/events", timeout=60) as stream:
            for line in stream:
                if line.startswith(b"data: "):
                    doc = json.loads(line[6:])
                    seen.append(doc["finished"])
                    if doc["plots"]:
                        break
        assert seen[-1] == 4 and doc["total"] == 4 and doc["plots"] == ["summary.png"]
        assert doc["table"][0]["matches"] == 4 and len(doc["ranking"]) == 2
        with urllib.request.urlopen(url + "api/plot/summary.png", timeout=10) as plot:
            assert plot.read(4) == b"\x89PNG"
        status, listing = get(url + "api/matches")
        assert status == 200 and len(listing["matches"]) == 4
        stop(process)
    finally:
        process.kill()


def test_a_study_written_compressed_reads_as_the_plain_one(tmp_path):
    """``ggp study`` writes matches.jsonl.gz (the same bytes for the same
    matches); the viewer reads it, and a damaged one is one line."""
    import gzip

    line = {
        "key": "tictactoe|a|b|0",
        "game": "tictactoe",
        "pair": ["a", "b"],
        "roles": {"a": "xplayer", "b": "oplayer"},
        "goals": {"a": 100, "b": 0},
        "steps": 7,
        "faults": 0,
    }
    plain, packed = tmp_path / "plain", tmp_path / "packed"
    plain.mkdir()
    packed.mkdir()
    (plain / "matches.jsonl").write_text(json.dumps(line) + "\n")
    (packed / "matches.jsonl.gz").write_bytes(gzip.compress((json.dumps(line) + "\n").encode()))
    assert study_view(packed)["table"] == study_view(plain)["table"]
    (packed / "matches.jsonl.gz").write_bytes(b"not gzip")
    with pytest.raises(Damaged, match="not readable"):
        study_view(packed)
