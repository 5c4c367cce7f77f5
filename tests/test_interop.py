"""Interoperability with GGP software that is not ours.

The peers here are written from the protocol's text (PROTOCOL.md), with
nothing from this project but the game's file name:

* a strict player, as ggp-base's is: it reads START's clocks as integers
  (``Integer.valueOf``: ``10.0`` is an error, and it then never answers) and
  the PLAY messages by regular expressions, and always plays ``rock`` in
  rock-paper-scissors (our ``rps``: every move is legal in every state);
* a minimal manager, as ggp-base's GameServer is: http.client, one message
  round to all players at once, its own moves for each role.

``ggp match`` must drive the strict player through a whole match without a
fault, and ``ggp serve`` must play a whole match for the minimal manager;
and two players that use the whole play clock must take one clock a step,
not two.
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

GGP = [sys.executable, "-m", "matches.cli"]
MOVES = ("rock", "paper", "scissors")


class StrictPlayer(ThreadingHTTPServer):
    """An independent GGP player (see the module docstring); ``messages`` keeps
    what it received, ``problems`` what it could not accept."""

    daemon_threads = True

    def __init__(self, think: float = 0.0):
        self.messages, self.problems, self.think = [], [], think
        self.clocks = None
        super().__init__(("127.0.0.1", 0), _StrictHandler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}"

    def reply(self, text: str) -> str | None:
        """The reply to one message, or None (no answer, as ggp-base on a bad START)."""
        self.messages.append(text)
        start = re.fullmatch(r"\(START (\S+) (\S+) \((.*)\) (\S+) (\S+)\)", text, re.S | re.I)
        if start:
            clocks = start.group(4, 5)
            if not all(re.fullmatch(r"[0-9]+", c) for c in clocks):  # Integer.valueOf
                self.problems.append(f"START clocks {clocks} are not integers")
                return None
            self.clocks = tuple(map(int, clocks))
            return "ready"
        if re.fullmatch(r"\(PLAY \S+ (NIL|\(\S+ \S+\))\)", text, re.I):
            if self.think:
                time.sleep(self.think)
            return "rock"
        if re.fullmatch(r"\(STOP \S+ \(\S+ \S+\)\)", text, re.I):
            return "done"
        if re.fullmatch(r"\(ABORT \S+\)", text, re.I):
            return "aborted"
        self.problems.append(f"unexpected message {text[:80]!r}")
        return None


class _StrictHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def do_POST(self):
        text = self.rfile.read(int(self.headers["Content-Length"])).decode()
        if self.headers.get("Content-Type") != "text/acl":
            self.server.problems.append(f"Content-Type {self.headers.get('Content-Type')}")
        reply = self.server.reply(text)
        if reply is None:
            time.sleep(30)  # never answers, as ggp-base after a bad START
            return
        body = reply.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/acl")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def ggp(*args, timeout=120):
    return subprocess.run(GGP + list(args), capture_output=True, text=True, timeout=timeout)


def test_ggp_match_drives_a_strict_independent_player(tmp_path):
    strict = [StrictPlayer(), StrictPlayer()]
    out = tmp_path / "match.json"
    done = ggp(
        "match",
        "rps",
        "--player",
        strict[0].url,
        "--player",
        strict[1].url,
        "--startclock",
        "3",
        "--playclock",
        "2",
        "--json",
        "--out",
        str(out),
        "--db",
        str(tmp_path / "m.sqlite"),
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["faults"] == [] and result["moves"] == [["rock", "rock"]] * 3
    for player in strict:
        assert player.problems == []
        assert player.clocks == (3, 2)
        kinds = [m.split()[0][1:].upper() for m in player.messages]
        assert kinds == ["START", "PLAY", "PLAY", "PLAY", "STOP"]
        assert re.fullmatch(r"\(PLAY \S+ NIL\)", player.messages[1])
        assert re.fullmatch(r"\(PLAY \S+ \(rock rock\)\)", player.messages[2])
    record = json.loads(out.read_text())
    assert (record["startClock"], record["playClock"]) == (3, 2)  # integers, as ggp-base


def test_a_fault_at_start_is_reported_at_once_and_recorded(tmp_path):
    with socket.socket() as s:  # a port where nothing listens
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
    out = tmp_path / "match.json"
    done = ggp(
        "match",
        "rps",
        "--player",
        closed,
        "--player",
        "random",
        "--out",
        str(out),
        "--db",
        str(tmp_path / "m.sqlite"),
        "--quiet",
    )
    assert done.returncode == 0
    # the first warning (a slow build's progress lines may come before it)
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert warnings[0].startswith(f"ggp: warning: left ({closed}): START: CE (cannot reach")
    record = json.loads(out.read_text())
    assert record["errors"][0] == ["CE", ""]  # START's codes, as ggp-base records them
    faults = record["faults"]
    assert faults[0]["phase"] == "start" and "cannot reach" in faults[0]["reason"]
    assert {f["phase"] for f in faults} == {"start", "play", "stop"}
    assert all(f["role"] == "left" and f["code"] == "CE" for f in faults)


def _post(port, text, timeout):
    """A manager's request: POST /, text/acl; the reply text."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(
            "POST", "/", text.encode(), {"Content-Type": "text/acl", "Sender": "GAMESERVER"}
        )
        response = connection.getresponse()
        assert response.status == 200
        return response.read().decode().strip()
    finally:
        connection.close()


def _round(ports, messages, timeout):
    """One message to every player at once, as ggp-base's GameServer does."""
    replies = [None] * len(ports)

    def send(i):
        replies[i] = _post(ports[i], messages[i], timeout)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(ports))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return replies


@pytest.fixture
def served(tmp_path):
    """Two `ggp serve` processes of the given spec; their ports."""
    processes = []

    def start(spec):
        for _ in range(2):
            process = subprocess.Popen(
                GGP + ["serve", spec, "--port", "0", "--json"],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            processes.append(process)
        return [
            int(json.loads(p.stdout.readline())["url"].rsplit(":", 1)[1].strip("/"))
            for p in processes
        ]

    yield start
    for process in processes:
        process.terminate()
        process.wait(10)


def test_ggp_serve_plays_for_a_minimal_independent_manager(served):
    ports = served("uct")
    rules = open(__import__("games_gdl").__path__[0] + "/rps.kif").read()
    rules = re.sub(r";[^\n]*", "", rules)
    assert _round(ports, [f"(START m1 {role} ({rules}) 5 1)" for role in ("left", "right")], 6) == [
        "ready",
        "ready",
    ]
    previous = "NIL"
    for _ in range(3):
        started = time.monotonic()
        moves = _round(ports, [f"(PLAY m1 {previous})"] * 2, 2)
        assert time.monotonic() - started < 1.0  # within the clock
        assert all(m.lower() in MOVES for m in moves)
        previous = f"({moves[0]} {moves[1]})"
    assert _round(ports, [f"(STOP m1 {previous})"] * 2, 2) == ["done", "done"]


def test_two_players_on_the_full_clock_take_one_clock_a_step(served, tmp_path):
    # two served uct players think to the end of every play clock, even with a
    # forced move; the manager asks both at once, so a step takes one clock
    ports = served("uct")
    out = tmp_path / "match.json"
    done = ggp(
        "match",
        "tictactoe",
        "--startclock",
        "2",
        "--playclock",
        "2",
        *[a for p in ports for a in ("--player", f"http://127.0.0.1:{p}")],
        "--out",
        str(out),
        "--db",
        str(tmp_path / "m.sqlite"),
        "--quiet",
    )
    assert done.returncode == 0, done.stderr
    record = json.loads(out.read_text())
    assert not record["faults"]
    times = record["stateTimes"][1:]  # the first is taken before START, as ggp-base does
    steps = [(b - a) / 1000 for a, b in zip(times, times[1:])]
    assert all(1.5 < s < 3.0 for s in steps), steps  # one clock, not two
