"""The game manager over HTTP: `ggp serve` players driven by `ggp match`,
what each GDL-II role receives on the wire, faulty remote players, and a
study killed halfway."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import SHARED, needs_shared

from gdl import to_kif
from ggp import load_game
from matches.manager import run_match
from matches.protocol import PlayII, parse_message
from matches.records import MatchStore, replay, to_ggp_json
from matches.seats import RemoteSeat
from matches.server import PlayerServer
from matches.study import load_study, run_study, summary
from players import make

GGP = [sys.executable, "-m", "matches.cli"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port, seconds=30.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port}")


def test_ggp_match_drives_two_ggp_serve_processes(tmp_path):
    ports = [free_port(), free_port()]
    servers = [
        subprocess.Popen(
            GGP + ["serve", spec, "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for spec, port in zip(["uct:simulations=30", "random"], ports)
    ]
    try:
        for port in ports:
            wait_for(port)
        out, db = tmp_path / "match.json", tmp_path / "m.sqlite"
        done = subprocess.run(
            GGP
            + [
                "match",
                "tictactoe",
                "--json",
                "--startclock",
                "5",
                "--playclock",
                "2",
                "--out",
                str(out),
                "--db",
                str(db),
            ]
            + [arg for p in ports for arg in ("--player", f"http://127.0.0.1:{p}")],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert sorted(result["goals"].values()) in ([0, 100], [50, 50])
        assert not any(e for step in result["errors"] for e in step)
        record = json.loads(out.read_text())
        assert replay(record).ok
        with MatchStore(db) as store:
            assert store.get(record["matchId"]) == record
        again = subprocess.run(GGP + ["replay", str(out)], capture_output=True, text=True)
        assert again.returncode == 0 and "replay: OK" in again.stdout
    finally:
        for server in servers:
            server.terminate()
            server.wait(10)


@pytest.mark.slow
@needs_shared()
def test_ggp_serve_uct_answers_start_in_time_on_chess(tmp_path):
    """chess.kif builds for seconds before its grounding gives up (the issue:
    `ready` came 20 s after START): `ggp serve uct` answers START within a
    5 s start clock, and `ggp match` plays its first steps with no fault."""
    ports, logs = [free_port(), free_port()], [tmp_path / "uct.log", tmp_path / "random.log"]
    servers = [
        subprocess.Popen(
            GGP + ["serve", spec, "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=log.open("w"),
        )
        for spec, port, log in zip(["uct", "random"], ports, logs)
    ]
    try:
        for port in ports:
            wait_for(port)
        match = subprocess.Popen(
            GGP
            + [
                "match",
                str(SHARED / "gdl1" / "chess.kif"),
                "--startclock",
                "5",
                "--playclock",
                "3",
                "--db",
                str(tmp_path / "m.sqlite"),
            ]
            + [arg for p in ports for arg in ("--player", f"http://127.0.0.1:{p}")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        steps = _lines_until(match.stdout, "step 4:", 180)
        match.terminate()
        errors = match.communicate(timeout=30)[1]
    finally:
        for server in servers:
            server.terminate()
            server.wait(10)
    assert steps is not None, "no fourth step within 3 minutes"
    faults = [line for line in errors.splitlines() if "): START:" in line or "): step" in line]
    assert not faults, faults
    log = logs[0].read_text()
    ready = re.search(r"START \S+: 200 ready \(arrived \S+, ([0-9.]+) s\)", log)
    assert ready and float(ready.group(1)) < 5, log
    assert "the compiled reasoner is still building" in log
    assert not re.search(r"turn \d+: ", log), log  # every move the player's, in time
    print(f"ggp serve uct answered START on chess.kif after {ready.group(1)} s")


def _lines_until(stream, prefix: str, seconds: float) -> list | None:
    """The lines of ``stream`` up to one that starts with ``prefix``; None if
    none comes within ``seconds``."""
    lines, found = [], threading.Event()

    def read():
        for line in stream:
            lines.append(line)
            if line.startswith(prefix):
                found.set()
                return

    threading.Thread(target=read, daemon=True).start()
    return lines if found.wait(seconds) else None


class Recorder(ThreadingHTTPServer):
    """A proxy that writes down every message a player receives, then passes
    it on to the real player server behind it."""

    def __init__(self, target_port):
        self.bodies = []
        self.target = target_port
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"])).decode()
                recorder.bodies.append(body)
                connection = http.client.HTTPConnection("127.0.0.1", recorder.target, timeout=30)
                connection.request("POST", "/", body, {"Content-Type": "text/acl"})
                reply = connection.getresponse().read()
                connection.close()
                self.send_response(200)
                self.send_header("Content-Type", "text/acl")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()


#: Chance deals each player a secret card; each sees its own card only, then
#: both guess the other's card at once and see whether they were right.
SECRET_CARDS = """
(role alice) (role bob) (role random)
(card red) (card blue)
(init (step 0))
(<= (legal random (deal ?a ?b)) (true (step 0)) (card ?a) (card ?b))
(<= (legal random noop) (not (true (step 0))))
(<= (legal ?p noop) (role ?p) (distinct ?p random) (true (step 0)))
(<= (legal ?p (guess ?c)) (role ?p) (distinct ?p random) (true (step 1)) (card ?c))
(<= (next (holds alice ?a)) (does random (deal ?a ?b)))
(<= (next (holds bob ?b)) (does random (deal ?a ?b)))
(<= (next (holds ?p ?c)) (true (holds ?p ?c)))
(<= (next (right alice)) (does alice (guess ?c)) (true (holds bob ?c)))
(<= (next (right bob)) (does bob (guess ?c)) (true (holds alice ?c)))
(<= (next (step 1)) (true (step 0)))
(<= (next (step 2)) (true (step 1)))
(<= (sees alice (card ?a)) (does random (deal ?a ?b)))
(<= (sees bob (card ?b)) (does random (deal ?a ?b)))
(<= (sees alice (result ?x)) (does alice (guess ?x)) (true (holds bob ?x)))
(<= (sees bob (result ?x)) (does bob (guess ?x)) (true (holds alice ?x)))
(<= terminal (true (step 2)))
(<= (goal ?p 100) (role ?p) (true (right ?p)))
(<= (goal ?p 0) (role ?p) (distinct ?p random) (not (true (right ?p))))
"""


def test_gdl2_players_receive_only_their_own_percepts_on_the_wire():
    game = load_game(SECRET_CARDS)
    sm = game.state_machine("reference")
    for seed in range(4):
        servers = [PlayerServer("random", port=0).start() for _ in range(2)]
        recorders = [Recorder(s.server_address[1]) for s in servers]
        try:
            seats = {
                role: RemoteSeat(f"http://127.0.0.1:{r.server_address[1]}")
                for role, r in zip(["alice", "bob"], recorders)
            }
            record = run_match(game, seats, seed=seed, start_clock=5, play_clock=2)
        finally:
            for s in servers + recorders:
                s.shutdown()
        assert not any(e for step in record.errors for e in step)
        states = [sm.state_from_facts(facts) for facts in record.states]
        for role, recorder in zip(["alice", "bob"], recorders):
            messages = [parse_message(body) for body in recorder.bodies]
            plays = [m for m in messages if isinstance(m, PlayII)]
            assert [m.turn for m in plays] == list(range(len(record.moves)))
            i = record.roles.index(role)
            for m in plays[1:]:
                step = m.turn - 1
                joint = record.moves[step]
                expected = sm.percepts(states[step], joint, role)
                assert {game.parse_move(to_kif(p)) for p in m.percepts} == expected
                assert game.parse_move(to_kif(m.last_move)) == joint[i]
            dealt = record.moves[0][record.roles.index("random")]
            other = dealt[2] if role == "alice" else dealt[1]
            own = dealt[1] if role == "alice" else dealt[2]
            seen = {game.parse_move(to_kif(p)) for p in plays[1].percepts}
            assert ("card", own) in seen
            if other != own:  # the other's card never reaches this role
                assert ("card", other) not in seen


class FaultyRemote(ThreadingHTTPServer):
    """A remote 'player' with one fault: it answers garbage, sleeps past the
    clock, drops the connection (a crash), or answers an illegal move."""

    def __init__(self, mode):
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"])).decode()
                message = parse_message(body)
                if message.name == "PLAY" and mode == "crash":
                    self.connection.close()
                    return
                if message.name == "PLAY" and mode == "sleep":
                    time.sleep(4.0)
                reply = {"START": "ready", "STOP": "done", "ABORT": "aborted"}.get(
                    message.name,
                    {
                        "garbage": "((( not a move",
                        "illegal": "(mark 9 9)",
                        "sleep": "noop",
                        "crash": "noop",
                    }[mode],
                )
                self.send_response(200)
                self.send_header("Content-Type", "text/acl")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply.encode())

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()


@pytest.mark.parametrize(
    "mode, code",
    [("garbage", "CE"), ("sleep", "TO"), ("crash", "CE"), ("illegal", "IL (mark 9 9)")],
)
def test_faulty_remote_players_get_legal_moves_and_the_match_goes_on(mode, code):
    game = load_game("tictactoe")
    faulty = FaultyRemote(mode)
    try:
        seat = RemoteSeat(f"http://127.0.0.1:{faulty.server_address[1]}")
        record = run_match(
            game,
            {"xplayer": seat, "oplayer": make("random:seed=1")},
            seed=2,
            start_clock=2,
            play_clock=1,
        )
    finally:
        faulty.shutdown()
    x_faults = [step[0] for step in record.errors]
    assert x_faults and all(f == code for f in x_faults)  # every x turn, named
    assert all(step[1] == "" for step in record.errors)
    assert record.goals and replay(to_ggp_json(record)).ok


STUDY = """
name: killed
games: [tictactoe]
players:
  uct: uct:simulations=300
  mast: mast:simulations=300
matches: 40
seed: 11
"""


def test_a_killed_study_ends_with_exactly_its_matches_and_the_same_table(tmp_path):
    path = tmp_path / "killed.yaml"
    path.write_text(STUDY)
    killed_db, clean_db = tmp_path / "killed.sqlite", tmp_path / "clean.sqlite"
    study = load_study(path)
    run = subprocess.Popen(
        GGP + ["study", str(path), "--db", str(killed_db), "--workers", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if killed_db.exists():
                with MatchStore(killed_db) as store:
                    if store.count("killed") >= 15:
                        break
            time.sleep(0.05)
        os.killpg(run.pid, signal.SIGKILL)
    finally:
        run.wait(30)
    with MatchStore(killed_db) as store:
        halfway = store.count("killed")
    assert 15 <= halfway < 40, "the study was not stopped halfway"
    resumed = run_study(study, workers=2, db=killed_db, progress=None)
    clean = run_study(study, workers=2, db=clean_db, progress=None)
    with MatchStore(killed_db) as store:
        assert store.count("killed") == 40 == store.count()
    assert summary(resumed) == summary(clean)
    assert [r["goals"] for r in resumed] == [r["goals"] for r in clean]
