"""An HTTP GGP player: any registered player, served to game managers.

``ggp serve PLAYER`` (or :class:`PlayerServer`) listens on 127.0.0.1:9147 unless
told otherwise and speaks the GGP protocol: ``POST /`` with one message
as body (``GET`` with the URL-encoded message as path works too, ``OPTIONS``
gets an empty 200), answered ``200`` with ``Content-Type: text/acl``,
``Access-Control-Allow-Origin: *`` and the bare reply text.  HTTP/1.0, one
request per connection; each request has its own thread
(``ThreadingHTTPServer``), so INFO is answered while a PLAY thinks.

One match at a time:

* START makes a fresh player from the spec, reads and validates the rules
  and answers ``ready`` by the start clock less a safety margin, even if the
  player's meta-game is still running; the compiled reasoner builds in the
  background meanwhile (:meth:`ggp.Game.build`), however long it takes, and
  the player and the server's own view of the position follow the game on
  the demand-driven reasoner until it is ready (:mod:`players.base`).  A
  START while a match runs gets ``busy``.  A
  match ends with STOP or ABORT, or is *abandoned*: a START that arrives when
  no message of the running match has come for twice that match's current
  clock (the start clock until the first PLAY, then the play clock) plus
  ``abandon_grace`` seconds aborts it and takes the new match.
* PLAY answers the player's move (``gdl.to_kif``, spelled as the rules spell
  it, whatever case the manager uses) by the play clock less the margin.  A
  player that raises, runs out of time, or answers None or an illegal move
  is replaced, for that turn, by the first legal move of the server's own
  view of the position (Dresden's rule; PROTOCOL.md "What managers do with
  faults"), and the fault is logged.
* STOP answers ``done``, ABORT ``aborted``, PREVIEW ``ready``, INFO
  ``((name N) (status available))`` or ``((name N) (status busy))``.
* Match ids are compared case-insensitively, as GDL symbols are.  A message
  for another match id, or one that does not fit the game, gets
  ``400`` and a one-line ``error: ...`` reply, and the match goes on; so does
  anything malformed (bad HTTP, bad Content-Length, a truncated body, text
  that is not a message).  The server never stops for a bad request.
* A request is judged by its head before its body is read: its
  Content-Length, then the message's name in the first :data:`HEAD_BYTES`
  bytes (:func:`matches.protocol.message_name`).  A body past what its kind
  may have (START and PREVIEW carry rules: ``max_bytes``, the game files'
  bound, and :data:`MAX_MESSAGE` more; any other message
  :data:`MAX_MESSAGE`) gets ``413`` at once, unread, as does a head that is
  not a message's (``400``); a START the server would refuse gets ``busy``
  before its rules are read.  The rules of a new match are parsed and checked
  outside the lock of the running one (a START parses while that match's
  messages are answered; one START at a time: another meanwhile is ``busy``).

Two threads never use one player: every call of a match's player (start,
play, stop, abort) runs, in arrival order, on that match's single worker
thread.  A call that overruns its clock keeps running there, and the next
ones queue behind it (the player still sees every turn); meanwhile the
server answers from its own view, a second copy of the game whose state
machine only request threads use, one at a time.

Every message is logged on one line: kind, match id, status and reply,
arrival time and seconds taken (logger ``matches.server``).

>>> with PlayerServer("legal", port=0).start() as server:
...     server.url.startswith("http://127.0.0.1:")
True
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote_plus

import gdl
import players
from ggp import Game
from ggp.specs import Spec
from matches.protocol import (
    Abort,
    Info,
    InfoReply,
    Play,
    PlayII,
    Preview,
    ProtocolError,
    Start,
    Stop,
    StopII,
    message_name,
    one_line,
    parse_message,
    print_reply,
)

DEFAULT_PORT = 9147
#: Seconds kept back from every clock for the reply to reach the manager; the
#: player is given what is left, less its own (small) margin for answering.
DEFAULT_MARGIN = 0.25
#: The bytes a message other than START or PREVIEW may have, and those a START
#: or PREVIEW may have besides its rules (a PLAY's moves and percepts are a few
#: hundred bytes).
MAX_MESSAGE = 2**16
#: The bytes read first, to find the message's name.
HEAD_BYTES = 256
#: Seconds a refused request's unread body is drained after the reply, so that
#: closing does not reset the connection before the client reads the reply.
LINGER = 1.0

log = logging.getLogger("matches.server")


class RequestError(ValueError):
    """A request the server refuses (bad HTTP, wrong match id, moves that do
    not fit the game); answered ``status`` (400) with the one-line reason."""

    status = 400


class BodyTooLarge(RequestError):
    """A body past what its message may have, refused unread."""

    status = 413


class _Referee(players.Player):
    """The server's own view of the position: a player whose "move" is the
    list of legal moves (tracking the belief set in GDL-II, as players do).
    While the compiled build runs it follows the game on the fallback
    reasoner, and moves to the compiled one as players do, quietly (the
    player's log says it)."""

    name = "referee"
    waits_for_build = False
    log_reasoners = False
    on_deadline = False  # the legal moves, however long they take

    def select(self, legal, deadline):
        return list(legal)


@dataclass
class _Match:
    start: Start
    game: Game
    role: str
    player: players.Player
    referee: _Referee
    refereeing: Future  # the referee's start
    worker: ThreadPoolExecutor
    last_arrival: float
    clock: float  # the clock of the last message: start, then play clock
    turn: int = 0  # PLAY messages so far


class PlayerService:
    """The protocol behind the HTTP layer: :meth:`answer` a parsed message.

    ``margin`` seconds (at most half the clock) are kept back from every
    clock for the reply to travel; ``abandon_grace`` is the slack of the
    abandoned-match rule (module docstring).
    """

    def __init__(
        self,
        spec: str | Spec,
        name: str | None = None,
        margin: float = DEFAULT_MARGIN,
        abandon_grace: float = 5.0,
    ):
        self.spec = Spec.of(spec)  # read once: each START makes its player from it
        players.make(self.spec)  # a bad spec fails here, not at START
        self.margin, self.abandon_grace = margin, abandon_grace
        self.name = name or self.spec.name
        InfoReply("available", self.name)  # the name must be a symbol
        self._lock = threading.Lock()
        self._match: _Match | None = None
        self._starting = False  # a START is reading its rules

    @property
    def busy(self) -> bool:
        return self._match is not None or self._starting

    def takes_start(self, arrival: float) -> bool:
        """Whether a START that arrived at ``arrival`` could begin a match now:
        no other START is reading its rules, and no match runs or the one
        running is abandoned (module docstring)."""
        with self._lock:
            return self._free(arrival)

    def _free(self, arrival: float) -> bool:
        """:meth:`takes_start`, the lock held."""
        return not self._starting and (self._match is None or self._abandoned(self._match, arrival))

    def answer(self, message, arrival: float) -> str:
        """The reply text to ``message``, which arrived at ``arrival``
        (``time.monotonic()``); raises :class:`RequestError`."""
        if isinstance(message, Start):
            return self._start(message, arrival)
        if isinstance(message, (Play, PlayII)):
            return self._play(message, arrival)
        if isinstance(message, (Stop, StopII)):
            return self._end(message, arrival, "done")
        if isinstance(message, Abort):
            return self._end(message, arrival, "aborted")
        if isinstance(message, Info):
            return print_reply(InfoReply("busy" if self.busy else "available", self.name))
        assert isinstance(message, Preview)
        return "ready"

    # --- the messages -------------------------------------------------------------
    def _start(self, m: Start, arrival: float) -> str:
        deadline = arrival + self._usable(m.start_clock)
        with self._lock:
            if not self._free(arrival):
                return "busy"
            self._starting = True
        try:
            return self._begin(m, arrival, deadline)
        finally:
            with self._lock:
                self._starting = False

    def _begin(self, m: Start, arrival: float, deadline: float) -> str:
        """START, once it is the only one: its rules read outside the lock (the
        running match, if abandoned, is answered meanwhile), then the match."""
        game = self._game(m)
        role = next((r for r in game.roles if r.lower() == m.role.lower()), None)
        if role is None:
            raise RequestError(f"role {m.role} is not one of {', '.join(game.roles)}")
        with self._lock:
            old = self._match
            if old is not None:
                if not self._abandoned(old, arrival):  # it spoke while the rules were read
                    return "busy"
                log.warning(
                    "match %s abandoned (silent for %.1f s): aborting it",
                    old.start.match_id,
                    arrival - old.last_arrival,
                )
                self._finish(old, old.player.abort)
            player = players.make(self.spec)
            referee = _Referee(reasoner=player.reasoner)
            worker = ThreadPoolExecutor(1, thread_name_prefix=f"player-{m.match_id}")
            future = worker.submit(
                partial(
                    player.start,
                    game,
                    role,
                    m.start_clock,
                    self._usable(m.play_clock),
                    deadline=deadline,
                )
            )
            # the referee does not give a question up (no overrun, no play clock)
            refereeing = _aside(
                f"referee-{m.match_id}", partial(referee.start, game, role, deadline=deadline)
            )
            match = _Match(
                start=m,
                game=game,
                role=role,
                player=player,
                referee=referee,
                refereeing=refereeing,
                worker=worker,
                last_arrival=arrival,
                clock=m.start_clock,
            )
            self._match = match
        fault = _wait(future, deadline)[1]
        if fault:
            log.warning("match %s: start: %s", m.match_id, fault)
        refused = _wait(refereeing, deadline)[1]
        if refused and refused != _NO_ANSWER:  # e.g. rules no reasoner can follow
            with self._lock:
                if self._match is match:
                    self._finish(match, player.abort)
            raise RequestError(f"cannot play these rules: {refused}")
        return "ready"

    def _play(self, m, arrival: float) -> str:
        with self._lock:
            match = self._current(m.match_id)
            deadline = self._deadline(match, arrival)
            obs = self._observation(match, m, deadline)
            fault = _wait(match.refereeing, deadline)[1]
            if fault:
                raise RequestError(f"cannot follow the game: its start: {fault}")
            try:
                legal = match.referee.play(obs)
            except Exception as exc:  # the moves do not fit the game
                raise RequestError(f"cannot follow the game: {one_line(exc)}") from None
            if not legal:
                raise RequestError("no position fits the moves and percepts received")
            match.turn += 1
            match.last_arrival, match.clock = arrival, match.start.play_clock
            future = match.worker.submit(match.player.play, obs)
        move, fault = _wait(future, deadline)
        if fault is None and move not in legal:
            fault = f"illegal move {'None' if move is None else gdl.to_kif(move)}"
        if fault:
            move = legal[0]
            log.warning(
                "match %s turn %d: %s; playing %s", m.match_id, obs.turn, fault, gdl.to_kif(move)
            )
        return gdl.to_kif(move)

    def _end(self, m, arrival: float, reply: str) -> str:
        """STOP or ABORT: the match is over; tell the player (within the play clock)."""
        with self._lock:
            match = self._current(m.match_id)
            deadline = self._deadline(match, arrival)
            if isinstance(m, Abort):
                call = match.player.abort
            else:
                call = partial(match.player.stop, self._observation(match, m, deadline))
            future = self._finish(match, call)
        fault = _wait(future, deadline)[1]
        if fault:
            log.warning("match %s: %s: %s", m.match_id, m.name.lower(), fault)
        return reply

    # --- helpers ------------------------------------------------------------------
    def _abandoned(self, match: _Match, arrival: float) -> bool:
        return arrival >= match.last_arrival + 2 * match.clock + self.abandon_grace

    def _finish(self, match: _Match, call):
        """End ``match``: queue its player's last call, let its worker go, and
        end a compiled build still running (its process and memory)."""
        future = match.worker.submit(call)
        match.worker.shutdown(wait=False)
        match.game.cancel_builds()
        self._match = None
        return future

    def _current(self, match_id: str) -> _Match:
        match = self._match
        if match is None:
            raise RequestError(f"no match is running (got match id {match_id})")
        if match.start.match_id.lower() != match_id.lower():
            raise RequestError(f"wrong match id {match_id}: playing {match.start.match_id}")
        return match

    def _deadline(self, match: _Match, arrival: float) -> float:
        """The instant to answer a PLAY, STOP or ABORT of ``match`` by."""
        return arrival + self._usable(match.start.play_clock)

    def _usable(self, clock: float) -> float:
        """The seconds of ``clock`` the server and its player may use: the
        clock less the margin kept back for the reply to travel (at most half
        the clock).  The one rule of every deadline the server sets; the
        player keeps back its own margin from the deadline it is given, by its
        own rule (:meth:`players.Player.think_until`, which says why the two
        differ)."""
        return clock - min(self.margin, clock / 2)

    @staticmethod
    def _game(m: Start) -> Game:
        try:
            return Game(gdl.parse(m.rules, f"<{m.match_id}>"), name=m.match_id)
        except Exception as exc:  # GdlError, or a game the reasoners refuse
            raise RequestError(f"invalid rules: {one_line(exc)}") from None

    @staticmethod
    def _observation(match: _Match, m, deadline: float) -> players.Observation:
        """What the message tells the role, spelled as the rules spell it."""

        def spell(term):
            try:
                return match.game.parse_move(gdl.to_kif(term))
            except gdl.GdlError as exc:
                raise RequestError(f"bad term {gdl.to_kif(term)}: {one_line(exc)}") from None

        if isinstance(m, (Play, Stop)):
            if m.moves is None:
                return players.Observation(turn=match.turn, deadline=deadline)
            if len(m.moves) != len(match.game.roles):
                raise RequestError(f"{len(m.moves)} moves for {len(match.game.roles)} roles")
            return players.Observation(
                turn=match.turn, joint=tuple(map(spell, m.moves)), deadline=deadline
            )
        return players.Observation(
            turn=m.turn,
            deadline=deadline,
            own_move=None if m.last_move is None else spell(m.last_move),
            percepts=None if m.percepts is None else frozenset(map(spell, m.percepts)),
        )


_NO_ANSWER = "no answer in time"


def _wait(future, deadline: float):
    """``(result, None)``, or ``(None, fault)`` if the call raised or the
    deadline passed first (the call then goes on in its worker)."""
    try:
        return future.result(timeout=max(0.0, deadline - time.monotonic())), None
    except FutureTimeout:
        return None, _NO_ANSWER
    except Exception as exc:
        return None, f"raised {type(exc).__name__}: {one_line(exc)}"


def _aside(name: str, call) -> Future:
    """``call()`` run on a thread of its own."""
    executor = ThreadPoolExecutor(1, thread_name_prefix=name)
    future = executor.submit(call)
    executor.shutdown(wait=False)
    return future


# --- HTTP -------------------------------------------------------------------------


def _linger(connection: socket.socket):
    """Close the sending side, then discard what the client still sends, until
    it closes or :data:`LINGER` seconds pass: a connection closed with data
    unread is reset, and a reset can lose the reply before the client reads it."""
    try:
        connection.shutdown(socket.SHUT_WR)
        end = time.monotonic() + LINGER
        while (left := end - time.monotonic()) > 0:
            connection.settimeout(left)
            if not connection.recv(2**16):
                break
    except OSError:  # reset, or silent until the end
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    default_request_version = "HTTP/1.0"  # a bad request line is answered with a status
    server_version = "ggp"
    timeout = 30  # seconds a silent client may hold a thread
    _drained = True  # False while a POST's body is not read whole
    server: PlayerServer  # the server it answers for (socketserver's BaseServer, typed)

    def do_POST(self):
        arrival = time.monotonic()
        self._drained = False
        try:
            size = self._length()
            head = self._read(min(size, HEAD_BYTES))
            kind = message_name(head.decode("utf-8", errors="replace"))
            limit = MAX_MESSAGE + (self.server.max_bytes if kind in ("start", "preview") else 0)
            if size > limit:
                raise BodyTooLarge(
                    f"a {kind.upper()} of {size:,} bytes: more than the {limit:,} it may have"
                )
            if kind == "start" and not self.server.service.takes_start(arrival):
                self._answer("START", "-", arrival, 200, "busy")  # its rules unread
                return
            body = head + self._read(size - len(head))
            self._drained = True
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            self._exchange(None, arrival, RequestError("body is not UTF-8 text"))
        except (RequestError, ProtocolError) as exc:
            self._exchange(None, arrival, exc)
        else:
            self._exchange(text, arrival)

    def do_GET(self):
        self._exchange(unquote_plus(self.path.lstrip("/")), time.monotonic())

    def do_OPTIONS(self):
        self._send(200, "")

    def _length(self) -> int:
        """The body's Content-Length, at most what a START may have."""
        length = self.headers.get("Content-Length")
        if length is None:
            raise RequestError("no Content-Length")
        try:
            size = int(length)
        except ValueError:
            raise RequestError(f"bad Content-Length {length[:20]!r}") from None
        largest = MAX_MESSAGE + self.server.max_bytes
        if size < 0:
            raise RequestError(f"bad Content-Length {size}")
        if size > largest:
            raise BodyTooLarge(
                f"Content-Length {size:,}: more than the {largest:,} bytes a message may have"
            )
        return size

    def _read(self, n: int) -> bytes:
        """The next ``n`` bytes of the body."""
        try:
            data = self.rfile.read(n)
        except OSError as exc:
            raise RequestError(f"reading the body: {one_line(exc)}") from None
        if len(data) < n:
            raise RequestError(f"truncated body: it ended {n - len(data):,} bytes early")
        return data

    def finish(self):
        super().finish()
        if not self._drained:  # refused unread: let the client read the reply
            _linger(self.connection)

    def _exchange(self, text: str | None, arrival: float, error: Exception | None = None):
        """Answer one message and log it on one line."""
        kind, match_id = "?", "-"
        try:
            if error is not None:
                raise error
            assert text is not None  # None only with an error
            message = parse_message(text)
            kind, match_id = message.name, getattr(message, "match_id", "-")
            code, reply = 200, self.server.service.answer(message, arrival)
        except (ProtocolError, RequestError) as exc:
            code, reply = getattr(exc, "status", 400), f"error: {exc}"
        except Exception as exc:  # a bug must not cost the connection
            log.exception("internal error on %s %s", kind, match_id)
            code, reply = 500, f"error: internal: {one_line(exc)}"
        self._answer(kind, match_id, arrival, code, reply)

    def _answer(self, kind: str, match_id: str, arrival: float, code: int, reply: str):
        """Send the reply and log the exchange on one line."""
        self._send(code, reply)
        arrived = time.time() - (time.monotonic() - arrival)
        clock = time.strftime("%H:%M:%S", time.localtime(arrived))
        log.info(
            "%s %s: %d %s (arrived %s, %.3f s)",
            kind,
            match_id,
            code,
            reply if len(reply) <= 80 else reply[:77] + "...",
            f"{clock}.{int(arrived % 1 * 1000):03d}",
            time.monotonic() - arrival,
        )

    def _send(self, code: int, text: str):
        body = text.encode("utf-8")
        try:
            self.send_response(code)
            self.send_header("Content-Type", "text/acl")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Access-Control-Allow-Methods", "POST, GET, OPTIONS")
            self.send_header("Access-Control-Allow-Headers", "Content-Type, Sender, Receiver")
            self.end_headers()
            self.wfile.write(body)
        except OSError as exc:  # the client went away
            log.info("could not reply to %s: %s", self.client_address[0], one_line(exc))

    def send_error(self, code, message=None, explain=None):
        """Malformed HTTP (bad request line, unknown method...): one line too."""
        reason = message or self.responses.get(code, ("error",))[0]
        self._send(code, f"error: {reason}")
        self.close_connection = True
        self._drained = False  # what follows the bad head is not read
        log.info("bad HTTP request from %s: %d %s", self.client_address[0], code, reason)

    def log_message(self, format, *args):
        log.debug("%s " + format, self.client_address[0], *args)


class PlayerServer(ThreadingHTTPServer):
    """A :class:`PlayerService` on HTTP.  ``port=0`` takes a free port
    (see :attr:`url`); :meth:`start` serves from a background thread, and
    leaving the ``with`` block shuts it down::

        with PlayerServer("uct", port=0).start() as server:
            ...  # POST messages to server.url
    """

    daemon_threads = True
    request_queue_size = 128  # connections waiting to be accepted (default 5:
    # past it a client waits a second to retry)

    def __init__(
        self,
        spec: str | Spec,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        name: str | None = None,
        margin: float = DEFAULT_MARGIN,
        abandon_grace: float = 5.0,
        max_bytes: int = gdl.MAX_BYTES,
    ):
        self.service = PlayerService(spec, name, margin, abandon_grace)
        self.max_bytes = max_bytes  # the rules of a START or PREVIEW
        self._thread: threading.Thread | None = None
        super().__init__((host, port), _Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/"

    def start(self) -> PlayerServer:
        self._thread = threading.Thread(target=self.serve_forever, name="ggp-serve", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info):
        if self._thread is not None:
            self.shutdown()
            self._thread.join()
        self.server_close()

    def handle_error(self, request, client_address):
        log.exception("error serving %s", client_address[0])
