"""The HTTP player server, driven over loopback as a game manager drives it."""

from __future__ import annotations

import http.client
import json
import logging
import random
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import pytest

import players
from gdl import to_kif
from ggp import load_game
from matches.protocol import (
    Abort,
    Info,
    Play,
    PlayII,
    Preview,
    Start,
    Stop,
    StopII,
    parse_reply,
    print_message,
)
from matches.server import PlayerServer
from players.params import Param, extend

TICTACTOE = load_game("tictactoe")
RULES = "\n".join(to_kif(r) for r in TICTACTOE.rules)

# A GDL-II game: chance deals a card that only alice sees (a percept with a
# keyword as function symbol); then she may claim the card dealt, or pass.
HIDDEN_CARD = """
(role alice) (role random)
(card red) (card blue)
(init (step 0))
(<= (legal random (deal ?c)) (true (step 0)) (card ?c))
(<= (legal alice noop) (true (step 0)))
(<= (legal random noop) (true (step 1)))
(<= (legal alice (claim ?c)) (true (step 1)) (true (dealt ?c)))
(<= (legal alice pass) (true (step 1)))
(<= (next (dealt ?c)) (does random (deal ?c)))
(<= (next (dealt ?c)) (true (dealt ?c)))
(<= (next (claimed ?c)) (does alice (claim ?c)))
(<= (next (step 1)) (true (step 0)))
(<= (next (step 2)) (true (step 1)))
(<= (sees alice (does random (deal ?c))) (does random (deal ?c)))
(<= terminal (true (step 2)))
(<= (goal alice 100) (true (claimed ?c)))
(<= (goal alice 50) (not (true (claimed red))) (not (true (claimed blue))))
"""


class Faulty(players.Player):
    """A player with a fault (registered for every test after this module's,
    so described as any player is, in whole sentences without markup): mode
    raise raises, none answers nothing, illegal answers an illegal move, sleep
    sleeps for seconds before answering the first legal move, and first
    answers the first legal move."""

    name = "faulty"
    params = extend(
        players.Player.params,
        Param(
            "mode",
            str,
            "raise",
            "the fault",
            choices=("raise", "none", "illegal", "sleep", "first"),
        ),
        Param("seconds", float, 0.0, "how long to sleep", low=0),
    )

    def select(self, legal, deadline):
        if self.mode == "raise":
            raise RuntimeError("boom")
        if self.mode == "sleep":
            time.sleep(self.seconds)
        return {"none": None, "illegal": ("mark", "9", "9")}.get(self.mode, legal[0])


players.register(Faulty)


@contextmanager
def serving(spec, **options):
    with PlayerServer(spec, port=0, **options).start() as server:
        yield server


def post(url, text, timeout=10.0):
    """POST as a manager does: (status, reply text, seconds)."""
    parts = urllib.parse.urlsplit(url)
    started = time.monotonic()
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        connection.request(
            "POST",
            "/",
            text.encode(),
            {"Content-Type": "text/acl", "Sender": "GAMESERVER", "Receiver": "test"},
        )
        response = connection.getresponse()
        assert response.getheader("Content-Type") == "text/acl"
        assert response.getheader("Access-Control-Allow-Origin") == "*"
        return response.status, response.read().decode(), time.monotonic() - started
    finally:
        connection.close()


def send(url, message, **kw):
    status, reply, _ = post(url, print_message(message), **kw)
    assert status == 200, reply
    return reply


def play_tictactoe(url, role="xplayer", case=str, rules=RULES, match_id="m1", play_clock=5, seed=0):
    """A whole match of tictactoe against ``url``, the other role playing at
    random; every message goes through ``case`` (e.g. ``str.upper``).  Returns
    the replies to the PLAYs, checked legal and timely."""
    game = load_game(case(rules))
    sm, rng = game.state_machine(), random.Random(seed)
    role = case(role)
    me = sm.roles.index(role)

    def say(message, clock):
        status, reply, seconds = post(url, case(print_message(message)))
        assert status == 200, reply
        assert seconds < clock, f"{message.name} answered after {seconds:.2f} s"
        return reply

    assert say(Start(match_id, role, rules, 10, play_clock), 10) == "ready"
    state, joint, replies = sm.initial_state(), None, []
    while not sm.is_terminal(state):
        reply = say(Play(match_id, joint), play_clock)
        legal = sm.legal_moves(state, role)
        assert reply in [to_kif(m) for m in legal], f"{reply} is not legal"
        replies.append(reply)
        joint = tuple(
            game.parse_move(reply) if i == me else rng.choice(sm.legal_moves(state, r))
            for i, r in enumerate(sm.roles)
        )
        state = sm.next_state(state, joint)
    assert say(Stop(match_id, joint), play_clock) == "done"
    return replies


# --- whole matches --------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["random", "uct:simulations=50"])
@pytest.mark.parametrize("role", ["xplayer", "oplayer"])
def test_a_whole_match(spec, role):
    with serving(spec) as server:
        replies = play_tictactoe(server.url, role)
        assert any(r != "noop" for r in replies)
        # The server is free again: a second match with a new id.
        play_tictactoe(server.url, role, match_id="m2", seed=1)


def test_upper_case_moves_are_answered_in_the_rules_spelling():
    """The manager upper-cases its messages but not the rules: replies are lower case."""
    with serving("random") as server:
        upper_plays = lambda text: text.upper() if text.startswith("(PLAY") else text
        for reply in play_tictactoe(server.url, case=upper_plays):
            assert reply == reply.lower()


def test_dresden_style_everything_upper_case():
    """Rules, role and moves in upper case: replies spelled as those rules spell them."""
    with serving("uct:simulations=20") as server:
        replies = play_tictactoe(server.url, "oplayer", case=str.upper)
        assert "NOOP" in replies


def test_get_and_options():
    with serving("random") as server:
        parts = urllib.parse.urlsplit(server.url)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
        connection.request("GET", "/" + urllib.parse.quote_plus("(INFO)"))
        response = connection.getresponse()
        assert (response.status, response.read()) == (200, b"((name random) (status available))")
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
        connection.request("OPTIONS", "/")
        response = connection.getresponse()
        assert (response.status, response.read()) == (200, b"")
        assert response.getheader("Access-Control-Allow-Origin") == "*"


# --- one match at a time ----------------------------------------------------------------


def test_info_and_busy():
    with serving("random", name="tester") as server:
        assert send(server.url, Info()) == "((name tester) (status available))"
        assert send(server.url, Start("m1", "xplayer", RULES, 10, 5)) == "ready"
        assert send(server.url, Info()) == "((name tester) (status busy))"
        assert send(server.url, Start("m2", "xplayer", RULES, 10, 5)) == "busy"
        assert send(server.url, Preview(RULES, 5)) == "ready"
        # A message for another match is refused and leaves the match alone.
        status, reply, _ = post(server.url, print_message(Play("m2", None)))
        assert status == 400 and reply.startswith("error: wrong match id m2")
        assert send(server.url, Play("m1", None)).startswith("(mark")
        assert send(server.url, Abort("m1")) == "aborted"
        assert send(server.url, Info()) == "((name tester) (status available))"
        status, reply, _ = post(server.url, print_message(Abort("m1")))
        assert status == 400 and "no match" in reply


def test_an_abandoned_match_gives_way_to_a_new_start():
    with serving("random", abandon_grace=0.2) as server:
        assert send(server.url, Start("old", "xplayer", RULES, 0.1, 0.1)) == "ready"
        assert send(server.url, Start("new", "xplayer", RULES, 10, 5)) == "busy"
        time.sleep(0.5)  # 2 * start clock + grace, and a little more
        assert send(server.url, Start("new", "xplayer", RULES, 10, 5)) == "ready"
        send(server.url, Play("new", None))


def test_bad_start_is_refused_and_the_server_stays_available():
    with serving("random") as server:
        for start in (
            Start("m", "xplayer", "(role xplayer) (<= (legal ?p x))", 10, 5),
            Start("m", "nobody", RULES, 10, 5),
        ):
            status, reply, _ = post(server.url, print_message(start))
            assert status == 400 and "\n" not in reply
        assert send(server.url, Info()).endswith("(status available))")


# --- faults: the server answers a legal move in time ------------------------------------


@pytest.mark.parametrize("mode", ["raise", "none", "illegal"])
def test_a_faulty_player_still_answers_legal_moves(mode, caplog):
    with serving(f"faulty:mode={mode}") as server:
        play_tictactoe(server.url)
    assert "playing (mark" in caplog.text


def test_a_served_player_thinks_for_most_of_a_one_second_clock():
    # one margin: the server keeps 0.25 s for the reply to travel, the player
    # 0.1 s to answer; a search player thinks the rest (it answered after 1-50 ms
    # when each kept 0.5 s)
    with serving("uct") as server:
        assert send(server.url, Start("m", "xplayer", RULES, 1, 1)) == "ready"
        status, reply, seconds = post(server.url, print_message(Play("m", None)))
        assert status == 200 and TICTACTOE.parse_move(reply)
        assert 0.55 < seconds < 1.0


def test_a_player_that_sleeps_past_the_clock(caplog):
    play_clock = 1.0
    with serving("faulty:mode=sleep,seconds=1.5", margin=0.4) as server:
        assert send(server.url, Start("m", "xplayer", RULES, 10, play_clock)) == "ready"
        game = TICTACTOE
        sm = game.state_machine()
        state, joint = sm.initial_state(), None
        for _ in range(3):  # replies keep coming in time while it sleeps
            status, reply, seconds = post(server.url, print_message(Play("m", joint)))
            assert status == 200 and seconds < play_clock
            move = game.parse_move(reply)
            assert move in sm.legal_moves(state, "xplayer")
            joint = (move, sm.legal_moves(state, "oplayer")[0])
            state = sm.next_state(state, joint)
        assert send(server.url, Abort("m")) == "aborted"
    assert "no answer in time" in caplog.text


def test_a_slow_meta_game_still_gets_ready_in_time():
    class SlowStart(Faulty):
        """A player whose meta-game takes a second."""

        name = "slowstart"

        def meta_game(self, deadline):
            time.sleep(1.0)

    players.register(SlowStart)
    with serving("slowstart:mode=first", margin=0.3) as server:
        started = time.monotonic()
        assert send(server.url, Start("m", "xplayer", RULES, 0.8, 1)) == "ready"
        assert time.monotonic() - started < 0.8
        # Its first PLAY queues behind the meta-game; the server answers for it.
        assert send(server.url, Play("m", None)).startswith("(mark")


def test_a_build_slower_than_the_start_clock(held_build, caplog):
    """START is answered in time while the compiled build is held back; the
    player searches on the demand-driven reasoner, moves to the compiled one
    once it is built, and every move is legal and in time, with no fault."""
    caplog.set_level(logging.INFO)
    game, sm = TICTACTOE, TICTACTOE.state_machine("demand")  # not held
    with serving("uct:seed=1") as server:
        started = time.monotonic()
        assert send(server.url, Start("m", "xplayer", RULES, 2, 1)) == "ready"
        assert time.monotonic() - started < 2
        state, joint, turn = sm.initial_state(), None, 0
        while not sm.is_terminal(state):
            if turn == 2:
                held_build.set()
            status, reply, seconds = post(server.url, print_message(Play("m", joint)))
            assert status == 200 and seconds < 1
            move = game.parse_move(reply)
            assert move in sm.legal_moves(state, "xplayer")
            joint = (move, sm.legal_moves(state, "oplayer")[0])
            state, turn = sm.next_state(state, joint), turn + 1
        assert send(server.url, Stop("m", joint)) == "done"
    assert (
        "the compiled reasoner is still building; role xplayer searches on the "
        "demand-driven reasoner meanwhile"
    ) in caplog.text
    moved = re.findall(
        r"the compiled reasoner is ready; role xplayer moved to it at turn (\d+)", caplog.text
    )
    assert len(moved) == 1 and 2 <= int(moved[0]) < turn  # the first two on the fallback
    assert not [
        r for r in caplog.records if r.name == "matches.server" and r.levelno >= logging.WARNING
    ], "a fault"


# --- GDL-II ------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["random", "faulty:mode=raise"])
@pytest.mark.parametrize("card", ["red", "blue"])
def test_gdl2_match(spec, card):
    """Turn, own move and percepts; the legal moves depend on the hidden card,
    so a legal reply shows the percept was understood (by the player, and by
    the server's own view when the player fails)."""
    with serving(spec) as server:
        assert send(server.url, Start("g", "alice", HIDDEN_CARD, 10, 5)) == "ready"
        assert send(server.url, PlayII("g", 0, None, None)) == "noop"
        percept = ("does", "random", ("deal", card))
        reply = send(server.url, PlayII("g", 1, "noop", (percept,)))
        assert reply in (f"(claim {card})", "pass")
        assert send(server.url, StopII("g", 2, parse_reply(reply), ())) == "done"


# --- robustness ---------------------------------------------------------------------------


def _raw(address, data: bytes, close_write=True) -> bytes:
    """Send raw bytes on a fresh connection; what came back before it closed."""
    with socket.create_connection(address, timeout=10) as s:
        s.sendall(data)
        if close_write:
            s.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _post_bytes(body: bytes, length=None) -> bytes:
    length = len(body) if length is None else length
    return (
        b"POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: "
        + str(length).encode()
        + b"\r\n\r\n"
        + body
    )


def test_survives_ten_thousand_bad_requests_then_plays(caplog):
    rng = random.Random(7)
    valid = [
        print_message(m)
        for m in (
            Start("m", "xplayer", RULES, 10, 5),
            Play("m", None),
            Play("m", (("mark", "1", "1"), "noop")),
            PlayII("m", 3, "noop", (("seen", "x"),)),
        )
    ]
    valid = [v.encode() for v in valid] + [b"(INFO)"]

    def bad_request():
        kind = rng.randrange(8)
        if kind == 0:  # random bytes as body
            return _post_bytes(rng.randbytes(rng.randrange(200))), True
        if kind == 1:  # a truncated valid message
            text = rng.choice(valid)
            return _post_bytes(text[: rng.randrange(len(text))]), True
        if kind == 2:  # a bad Content-Length
            length = rng.choice([b"-5", b"abc", b"", b"99999999999999", b"1e3"])
            return (b"POST / HTTP/1.0\r\nContent-Length: " + length + b"\r\n\r\n(INFO)"), True
        if kind == 3:  # longer than the body sent
            return _post_bytes(b"(INFO)", length=50), True
        if kind == 4:  # a wrong method
            method = rng.choice([b"PUT", b"DELETE", b"HEAD", b"BREW", b"PATCH"])
            return method + b" / HTTP/1.0\r\n\r\n", True
        if kind == 5:  # a mangled request line
            return rng.randbytes(rng.randrange(1, 80)) + b"\r\n\r\n", False
        if kind == 6:  # a GET with a garbage path
            path = urllib.parse.quote(rng.randbytes(rng.randrange(40)))
            return b"GET /" + path.encode() + b" HTTP/1.0\r\n\r\n", True
        return _post_bytes(b"(PLAY nomatch NIL)"), True  # no such match

    with serving("random") as server:
        address = server.server_address
        started = time.monotonic()
        for _ in range(10_000):
            request, must_answer = bad_request()
            answer = _raw(address, request)
            if must_answer:
                assert answer.split(b" ", 2)[1][:1] in (b"4", b"5"), (request[:80], answer[:80])
        assert time.monotonic() - started < 60
        assert send(server.url, Info()).endswith("(status available))")
        play_tictactoe(server.url)
    assert "internal error" not in caplog.text and "error serving" not in caplog.text


def _exchange_raw(address, head: bytes, body: bytes = b"", close_write=True):
    """Send ``head`` and then ``body`` (from a thread of its own: the server
    may answer before reading it); (status, reply, seconds to the reply)."""
    started = time.monotonic()
    with socket.create_connection(address, timeout=10) as s:
        s.sendall(head)

        def rest():
            try:
                s.sendall(body)
                if close_write:
                    s.shutdown(socket.SHUT_WR)
            except OSError:  # the server answered and closed first
                pass

        sender = threading.Thread(target=rest, daemon=True)
        sender.start()
        answer = b""
        while b"\r\n\r\n" not in answer or len(answer.split(b"\r\n\r\n", 1)[1]) < int(
            re.search(rb"Content-Length: (\d+)", answer)[1]
        ):
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
        seconds = time.monotonic() - started
    status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else None
    return status, answer.split(b"\r\n\r\n", 1)[-1].decode(), seconds


def _head(length, method=b"POST") -> bytes:
    return (
        method
        + b" / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: "
        + str(length).encode()
        + b"\r\n\r\n"
    )


def test_an_oversized_body_is_refused_unread_in_under_a_second():
    """Bodies were read whole (up to 32 MB) and parsed before the message's
    head was looked at: 10 MB of garbage took 11-26 s to refuse."""
    garbage = b"(" + b"x " * (5 * 2**20)  # 10 MB
    start = b"(START m xplayer (" + b"(f a) " * (2**20 // 6 * 10) + b") 10 10)"
    with serving("random") as server:
        for head, body, words in [
            (_head(len(garbage)), garbage, "more than the 1,114,112 bytes"),
            (_head(len(start)), start, "more than the 1,114,112 bytes"),
            (_head(200_000), b"(PLAY m (" + b"x " * 99_995 + b"))", "a PLAY of 200,000"),
            (_head(900_000), b"hello " * 150_000, "not a message"),
            (_head(900_000), b"(FOO " * 180_000, "unknown message FOO"),
        ]:
            status, reply, seconds = _exchange_raw(server.server_address, head, body)
            assert status in (400, 413) and words in reply and seconds < 1, (reply, seconds)
        assert send(server.url, Info()).endswith("(status available))")


def test_a_new_games_rules_are_read_outside_the_running_matchs_lock(monkeypatch):
    """A START that would take an abandoned match's place parses its rules
    while that match is answered, and another START meanwhile is busy at once
    (a 10 MB START of facts held the lock for 422 s while PLAYs waited); the
    match spoke meanwhile, so it goes on and the new START is busy."""
    from matches.server import PlayerService

    parse = PlayerService._game

    def slow(m):
        time.sleep(1.5)
        return parse(m)

    with serving("random", abandon_grace=0.2) as server:
        assert send(server.url, Start("old", "xplayer", RULES, 0.1, 1)) == "ready"
        monkeypatch.setattr(PlayerService, "_game", staticmethod(slow))
        time.sleep(0.5)  # silent for twice its start clock and the grace
        replies = {}
        new = threading.Thread(
            target=lambda: replies.update(
                new=post(server.url, print_message(Start("new", "xplayer", RULES, 10, 5)))
            )
        )
        new.start()
        time.sleep(0.3)
        for message, expected in (
            (Info(), "((name random) (status busy))"),
            (Start("other", "xplayer", RULES, 10, 5), "busy"),
            (Play("old", None), "(mark"),
        ):
            status, reply, seconds = post(server.url, print_message(message))
            assert status == 200 and reply.startswith(expected) and seconds < 1, message
        new.join()
        assert replies["new"][:2] == (200, "busy")
        assert send(server.url, Abort("old")) == "aborted"


def test_survives_500_hostile_requests_at_once_then_plays(caplog):
    """500 hostile requests from 8 clients at once while a match runs: garbage,
    oversized and truncated bodies, wrong methods, bad HTTP heads, bad message
    heads, huge STARTs.  Each is refused (a START that fits: busy), those
    judged by their head alone in under a second; then the match goes on,
    INFO answers, and a new match plays with no fault."""
    caplog.set_level(logging.INFO, "matches.server")
    rng = random.Random(31)
    huge = b"(START x xplayer (" + b"(f a) " * 200_000 + b") 10 10)"  # 1.2 MB
    fits = b"(START x xplayer (" + b"(f a) " * 150_000 + b") 10 10)"  # 0.9 MB
    kinds = [  # (head, body, status, answered before the body is read)
        lambda: (_head(n := rng.randrange(1, 4000)), rng.randbytes(n), 400, False),
        lambda: (_head(10 * 2**20), b"x" * 2**16, 413, True),
        lambda: (_head(1000), b"(PLAY m NI", 400, False),
        lambda: (
            rng.choice([b"PUT", b"DELETE", b"PATCH", b"BREW"]) + b" / HTTP/1.0\r\n"
            b"Content-Length: 6\r\n\r\n",
            b"(INFO)",
            501,
            False,
        ),
        lambda: (
            rng.choice(
                [
                    b"GARBAGE\r\n\r\n",
                    b"POST / HTTP/1.0\r\n\r\n",
                    b"POST / HTTP/1.0\r\nContent-Length: abc\r\n\r\n",
                    b"POST / HTTP/1.0\r\nX: " + b"y" * 70_000 + b"\r\n\r\n",
                ]
            ),
            b"(INFO)",
            None,
            False,
        ),
        lambda: (_head(500_000), rng.choice([b"(HELLO ", b"hello ("]) * 70_000, 400, True),
        lambda: (_head(len(huge)), huge, 413, True),
        lambda: (_head(len(fits)), fits, 200, True),
    ]
    requests = [kinds[i % len(kinds)]() for i in range(500)]
    with serving("random") as server:
        assert send(server.url, Start("m", "xplayer", RULES, 10, 5)) == "ready"
        started = time.monotonic()
        with ThreadPoolExecutor(8) as pool:
            answers = list(
                pool.map(lambda r: _exchange_raw(server.server_address, *r[:2]), requests)
            )
        assert time.monotonic() - started < 30
        for (head, _, expected, at_once), (status, reply, seconds) in zip(requests, answers):
            if expected is None:
                assert 400 <= status < 500, (head[:40], reply)
            else:
                assert status == expected, (head[:40], reply)
            assert status != 200 or reply == "busy"
            assert not at_once or seconds < 1, (head[:40], seconds)
        assert send(server.url, Play("m", None)).startswith("(mark")
        assert send(server.url, Abort("m")) == "aborted"
        assert send(server.url, Info()).endswith("(status available))")
        caplog.clear()
        play_tictactoe(server.url, match_id="after")
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


# --- the command -------------------------------------------------------------------------


def test_ggp_serve(capsys):
    from matches.cli import main

    assert main(["serve", "nosuch"]) == 1
    assert "unknown player 'nosuch'" in capsys.readouterr().err
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "matches.cli",
            "serve",
            "random",
            "--port",
            "0",
            "--name",
            "cli",
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        started = json.loads(process.stdout.readline())
        assert started["name"] == "cli" and started["margin"] == 0.25
        assert send(started["url"], Info()) == "((name cli) (status available))"
    finally:
        process.terminate()
        process.wait(10)
