"""Seats: how the game manager reaches the player of a role.

The manager (:mod:`matches.manager`) runs every match the same way and talks
to each role through a seat with four calls that mirror the protocol (START,
PLAY, STOP, ABORT).  Only the transport differs:

* :class:`LocalSeat` calls a :class:`players.Player` in this process (fast,
  for studies); a call cannot be interrupted, so a late answer is detected
  after it returns;
* :class:`RemoteSeat` speaks HTTP to a GGP player anywhere (PROTOCOL.md,
  "Transport"): ``POST /`` with the message, ``Content-Type: text/acl``, one
  request per connection, read timeouts of the start clock, the play clock
  plus :data:`GRACE` seconds, and the play clock for STOP (as ggp-base's
  manager does).

``play`` returns ``(move, fault)``: the move the player chose (a term spelled
as the rules spell it) and ``""``, or ``None`` and the fault the manager logs:
``TO`` (no answer within the clock), ``CE`` (the player crashed, the
connection failed, or the reply could not be read) or ``IL <move>`` (an
illegal move; ``IL nil`` for an empty answer).
"""
from __future__ import annotations

import http.client
import logging
import socket
import time
import urllib.parse

from gdl import GdlError, to_kif
from players import Observation

from .protocol import (Abort, Play, PlayII, ProtocolError, Start, Stop, StopII,
                       parse_reply, print_message)

#: Seconds a remote player may overrun the play clock before it is timed out.
log = logging.getLogger("matches.seats")

GRACE = 1.0


class LocalSeat:
    """A player object in this process."""

    def __init__(self, player, name: str | None = None):
        self.player = player
        self.name = name or player.name

    def start(self, game, match_id, role, start_clock, play_clock) -> str:
        self.player.start(game, role, start_clock, play_clock)
        return ""

    def play(self, game, match_id, obs: Observation, legal, play_clock):
        started = time.monotonic()
        try:
            move = self.player.play(obs)
        except Exception:               # a crashing player must not end the match
            log.exception("player %s crashed at turn %d", self.name, obs.turn)
            return None, "CE"
        if time.monotonic() - started > play_clock:
            return None, "TO"
        return _checked(move, legal)

    def stop(self, game, match_id, obs: Observation):
        self.player.stop(obs)

    def abort(self, match_id):
        self.player.abort()


class RemoteSeat:
    """A GGP player server at ``url`` (``http://host:port``)."""

    def __init__(self, url: str, name: str | None = None):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"a remote player is http://host:port, not {url!r}")
        self.host, self.port = parts.hostname, parts.port or 9147
        self.name = name or url

    def start(self, game, match_id, role, start_clock, play_clock) -> str:
        rules = "\n".join(to_kif(rule) for rule in game.rules)
        _, fault = self._send(Start(match_id, role, rules, start_clock, play_clock),
                              start_clock)
        return fault

    def play(self, game, match_id, obs: Observation, legal, play_clock):
        reply, fault = self._send(_message(Play, PlayII, game, match_id, obs),
                                  play_clock + GRACE)
        if fault:
            return None, fault
        try:
            move = game.parse_move(reply)
        except (GdlError, ValueError):
            return None, "CE"
        return _checked(None if move == "nil" else move, legal)

    def stop(self, game, match_id, obs: Observation):
        self._send(_message(Stop, StopII, game, match_id, obs), 10.0)

    def abort(self, match_id):
        self._send(Abort(match_id), 10.0)

    def _send(self, message, timeout: float):
        """POST one message; (reply text, "") or (None, "TO" / "CE")."""
        body = print_message(message).encode()
        connection = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            connection.request("POST", "/", body, {
                "Content-Type": "text/acl", "Accept": "text/delim",
                "Sender": "GAMESERVER", "Receiver": self.name})
            response = connection.getresponse()
            text = response.read().decode("utf-8", "replace")
            if response.status != 200:
                return None, "CE"
            parse_reply(text)           # the reply must at least be one term
            return text.strip(), ""
        except (socket.timeout, TimeoutError):
            return None, "TO"
        except (OSError, http.client.HTTPException, ProtocolError):
            return None, "CE"
        finally:
            connection.close()


def _message(gdl1, gdl2, game, match_id, obs: Observation):
    """The PLAY or STOP message that carries ``obs`` (GDL-I or GDL-II form)."""
    if not game.is_gdl2:
        return gdl1(match_id, obs.joint)
    percepts = None if obs.turn == 0 else tuple(sorted(obs.percepts or (), key=to_kif))
    return gdl2(match_id, obs.turn, obs.own_move, percepts)


def _checked(move, legal):
    if move not in legal:
        return None, f"IL {'nil' if move is None else to_kif(move)}"
    return move, ""
