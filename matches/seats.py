"""Seats: how the game manager reaches the player of a role.

The manager (:mod:`matches.manager`) runs every match the same way and talks
to each role through a seat with four calls that mirror the protocol (START,
PLAY, STOP, ABORT).  Only the transport differs:

* :class:`LocalSeat` calls a :class:`players.Player` in this process (fast,
  for studies); a call cannot be interrupted, so a late answer is detected
  after it returns, or by the manager, which stops waiting for it;
* :class:`RemoteSeat` speaks HTTP to a GGP player anywhere (PROTOCOL.md,
  "Transport"): ``POST /`` with the message, ``Content-Type: text/acl``, one
  request per connection, read timeouts of the clock plus :data:`GRACE`
  seconds (ggp-base's GameServer gives PLAY one second more than the clock).

Every call returns what the player answered and ``None``, or a
:class:`Fault`: its code as the match record logs it (``TO``: no answer
within the clock; ``CE``: the player crashed, the connection failed, or the
reply could not be read; ``IL <move>``: an illegal move, ``IL nil`` for an
empty answer) and the reason in words.
"""

from __future__ import annotations

import dataclasses
import http.client
import logging
import time
import urllib.parse
from dataclasses import dataclass

from gdl import GdlError, to_kif
from ggp.reasoners import COMPILED
from matches.protocol import (
    Abort,
    Play,
    PlayII,
    ProtocolError,
    Start,
    Stop,
    StopII,
    one_line,
    parse_reply,
    print_message,
)
from players import Observation

log = logging.getLogger("matches.seats")

#: Seconds a player may overrun a clock before the manager stops waiting
#: (network transit; ggp-base's GameServer gives PLAY one second).
GRACE = 1.0


@dataclass(frozen=True)
class Fault:
    """What went wrong with one player's answer: the record's code and why."""

    code: str  # "TO", "CE" or "IL <move>"
    reason: str

    def __str__(self) -> str:
        return f"{self.code} ({self.reason})"


class LocalSeat:
    """A player object in this process.  ``waits`` when the player thinks until
    its deadline (the manager then asks it on a thread of its own, at the same
    time as the others)."""

    def __init__(self, player, name: str | None = None):
        self.player = player
        self.name = name or player.name
        self.waits = player.on_clock

    @property
    def waits_for_build(self) -> bool:
        """True when the player's START would wait for the compiled build
        however long it takes (:attr:`players.Player.waits_for_build`)."""
        return self.player.reasoner == COMPILED and self.player.waits_for_build

    def start(self, game, match_id, role, start_clock, play_clock):
        deadline = time.monotonic() + start_clock
        try:
            self.player.start(game, role, start_clock, play_clock, deadline=deadline)
        except Exception as exc:
            return None, self._crashed("start", exc)
        return "ready", _late(deadline, start_clock)

    def play(self, game, match_id, obs: Observation, legal, play_clock):
        try:  # a local player is told its legal moves too (the protocol does not)
            move = self.player.play(dataclasses.replace(obs, legal=tuple(legal)))
        except Exception as exc:  # a crashing player must not end the match
            return None, self._crashed(f"turn {obs.turn}", exc)
        return _checked(move, legal, _late(obs.deadline, play_clock))

    def stop(self, game, match_id, obs: Observation, play_clock):
        try:
            self.player.stop(obs)
        except Exception as exc:
            return None, self._crashed("stop", exc)
        return "done", _late(obs.deadline, play_clock)

    def abort(self, match_id, play_clock):
        try:
            self.player.abort()
        except Exception as exc:
            return None, self._crashed("abort", exc)
        return "aborted", None

    def simulations(self):
        """The simulations the player's last search made (None for a player
        that does not search)."""
        n = getattr(self.player, "last_simulations", None)
        return n if isinstance(n, int) else None

    def reasoner(self):
        """The reasoner the player's last move came from
        (:attr:`players.Player.reasoner_in_use`)."""
        return self.player.reasoner_in_use

    def _crashed(self, when: str, exc: Exception) -> Fault:
        log.debug("player %s crashed at %s", self.name, when, exc_info=exc)
        return Fault("CE", f"raised {type(exc).__name__}: {one_line(exc)}")


class RemoteSeat:
    """A GGP player server at ``url`` (``http://host:port``)."""

    waits = True  # on the network
    waits_for_build = False  # a player elsewhere builds its own

    def __init__(self, url: str, name: str | None = None):
        parts = urllib.parse.urlsplit(url)
        try:
            port = parts.port
        except ValueError:
            port = -1
        if parts.scheme != "http" or not parts.hostname or port == -1:
            raise ValueError(f"a remote player is http://host:port, not {url!r}")
        self.host, self.port = parts.hostname, port or 9147
        self.name = name or url

    def start(self, game, match_id, role, start_clock, play_clock):
        rules = "\n".join(to_kif(rule) for rule in game.rules)
        return self._send(Start(match_id, role, rules, start_clock, play_clock), start_clock)

    def play(self, game, match_id, obs: Observation, legal, play_clock):
        reply, fault = self._send(_message(Play, PlayII, game, match_id, obs), play_clock)
        if fault:
            return None, fault
        try:
            move = game.parse_move(reply)
        except (GdlError, ValueError):
            return None, Fault("CE", f"the reply {_short(reply)} is not a move")
        return _checked(None if move == "nil" else move, legal, None)

    def simulations(self):
        """None: a player over HTTP does not say how it searched."""
        return None

    def reasoner(self):
        """None: a player over HTTP does not say how it reasons."""
        return None

    def stop(self, game, match_id, obs: Observation, play_clock):
        return self._send(_message(Stop, StopII, game, match_id, obs), play_clock)

    def abort(self, match_id, play_clock):
        return self._send(Abort(match_id), play_clock)

    def _send(self, message, clock: float):
        """POST one message; (reply text, None) or (None, fault)."""
        body = print_message(message).encode()
        connection = http.client.HTTPConnection(self.host, self.port, timeout=clock + GRACE)
        where = f"{self.host}:{self.port}"
        try:
            connection.request(
                "POST",
                "/",
                body,
                {
                    "Content-Type": "text/acl",
                    "Accept": "text/delim",
                    "Sender": "GAMESERVER",
                    "Receiver": self.name,
                },
            )
            response = connection.getresponse()
            text = response.read().decode("utf-8", "replace")
            if response.status != 200:
                return None, Fault("CE", f"HTTP {response.status} from {where}: {_short(text)}")
            parse_reply(text)  # the reply must at least be one term
            return text.strip(), None
        except TimeoutError:
            return None, Fault(
                "TO", f"no answer from {where} within {clock:g} s + {GRACE:g} s of grace"
            )
        except ProtocolError as exc:
            return None, Fault("CE", f"unreadable reply from {where}: {exc}")
        except (OSError, http.client.HTTPException) as exc:
            return None, Fault(
                "CE", f"cannot reach {where}: {getattr(exc, 'strerror', None) or one_line(exc)}"
            )
        finally:
            connection.close()


def _message(gdl1, gdl2, game, match_id, obs: Observation):
    """The PLAY or STOP message that carries ``obs`` (GDL-I or GDL-II form)."""
    if not game.is_gdl2:
        return gdl1(match_id, obs.joint)
    percepts = None if obs.turn == 0 else tuple(sorted(obs.percepts or (), key=to_kif))
    return gdl2(match_id, obs.turn, obs.own_move, percepts)


def _late(deadline: float, clock: float) -> Fault | None:
    """A timeout fault when a local call answered after ``deadline``."""
    over = time.monotonic() - deadline
    return (
        Fault("TO", f"answered {over:.2f} s after its {clock:g} s clock ran out")
        if over > 0
        else None
    )


def _checked(move, legal, fault):
    """``(move, None)`` for a legal move in time, else ``(None, fault)``."""
    if fault is not None:
        return None, fault
    if move not in legal:
        shown = "nil" if move is None else to_kif(move)
        return None, Fault(
            f"IL {shown}", "no move" if move is None else f"{shown} is not a legal move"
        )
    return move, None


def _short(text: str, width: int = 60) -> str:
    text = " ".join(str(text).split())
    return repr(text if len(text) <= width else text[: width - 3] + "...")
