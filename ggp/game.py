"""``load_game`` and ``Game``: a validated description and its state machines."""

from __future__ import annotations

import dataclasses
import logging
import os
import pickle
import subprocess
import sys
import threading
import warnings
from concurrent.futures import Future
from functools import cached_property
from importlib import resources
from pathlib import Path

import gdl
from gdl.ast import name_of
from ggp.reasoners import COMPILED, reasoner_class
from ggp.reasoners.datalog import Effort
from ggp.reasoners.domains import relaxed_facts
from ggp.reasoners.ground import EFFORT, GROUND_LIMIT
from ggp.specs import did_you_mean
from ggp.statemachine import GameError, RuleError


class GroundingWarning(UserWarning):
    """A game too large to ground runs on the demand-driven reasoner."""


class BuildCancelled(GameError):
    """A background build ended by :meth:`Game.cancel_builds`."""


def _fulfil(future: Future, compute) -> None:
    """Give ``future`` the result of ``compute()``, or the exception it raised."""
    try:
        result = compute()
    except BaseException as exc:
        future.set_exception(exc)
    else:
        future.set_result(result)


#: A background build first grounds in this process within these limits
#: (work, not time: the small games, which take 0.03-0.15 s, ground within
#: them, and every larger game measured stopped within 0.21 s); a game past
#: them grounds in a process of its own, whose start costs 0.3-0.6 s.
SMALL_LIMIT, SMALL_EFFORT = 5_000, 300_000

#: The relaxed domain that bounds a game's goal values stops past these (the
#: games of games_gdl and gdl2/ need at most 170,000 candidate atoms; only
#: small_dominion, whose percepts alone pass 4 million facts, is not bounded).
GOAL_FACTS, GOAL_EFFORT = 1_000_000, 20_000_000


class _Grounding:
    """``ground(rules, roles, limit, effort)`` for a background build: here
    when the game grounds within :data:`SMALL_LIMIT` and
    :data:`SMALL_EFFORT` (the result is the same: the limits only cut it
    short), else in a Python process of its own, started afresh (forking
    this one, which has threads, could deadlock the child; multiprocessing's
    other ways run the main script again).  The job goes to the process's
    stdin, pickled, and its answers come back on its stdout: the
    ``ggp.build`` log first, passed on to this process's logger, then the
    ground program (its atoms in parts of :data:`ATOM_PART`) or the
    exception grounding raised."""

    def __init__(self, rules, roles, limit, effort):
        self.job = (rules, roles, limit, effort, ATOM_PART)
        self._process = None
        self._cancelled = False
        self._lock = threading.Lock()

    def result(self):
        """The ground program (blocking); raises what grounding raised,
        :class:`BuildCancelled`, or GroundingTooLarge when the process died
        without an answer (out of memory, most likely)."""
        from ggp.reasoners.ground import GroundingTooLarge, ground

        rules, roles, limit, effort, _ = self.job
        small = min(limit, SMALL_LIMIT), min(effort, SMALL_EFFORT)
        try:
            return ground(rules, roles, *small)
        except GroundingTooLarge:
            if small == (limit, effort):
                raise
        with self._lock:
            if self._cancelled:
                raise BuildCancelled("the build was cancelled")
            self._process = subprocess.Popen(
                [sys.executable, "-c", _CHILD],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=None if os.environ.get("GGP_DEBUG") else subprocess.DEVNULL,
            )
        try:
            kind, value = self._answer() if self._sent() else (None, None)
        finally:
            self._process.stdin.close()  # the child ends when it closes
            self._process.stdout.close()
            code = self._process.wait()
        if kind == "error":
            raise value
        if kind is None:
            if self._cancelled:
                raise BuildCancelled("the build was cancelled")
            why = f"killed by signal {-code}: out of memory?" if code < 0 else f"exit code {code}"
            raise GroundingTooLarge(f"grounding's process ended without an answer ({why})")
        return value

    def _sent(self) -> bool:
        """Write the job to the process (not through the buffered pipe object,
        which a daemon thread must not hold while the interpreter exits);
        False if the process is gone."""
        data = memoryview(pickle.dumps(self.job, protocol=pickle.HIGHEST_PROTOCOL))
        try:
            while data:
                data = data[os.write(self._process.stdin.fileno(), data) :]
        except OSError:
            return False
        return True

    def _answer(self) -> tuple:
        """(kind, value) of the process's last answer, its log passed on;
        (None, None) if it ended without one."""
        from ggp.reasoners.datalog import BUILD_LOG

        atoms: list = []
        try:
            while True:
                kind, value = pickle.load(self._process.stdout)
                if kind == "atoms":
                    atoms.extend(value)
                elif kind == "program":
                    value.atoms = {atom: i for i, atom in enumerate(atoms)}
                    return kind, value
                elif kind != "log":
                    return kind, value
                else:
                    BUILD_LOG.info("%s", value)
        except (OSError, EOFError, pickle.UnpicklingError):
            return None, None
        except Exception as exc:  # its code differs from ours (changed on disk since)
            return "error", GameError(
                f"cannot read what grounding's process answered: {type(exc).__name__}: {exc}"
            )

    def cancel(self):
        with self._lock:
            self._cancelled = True
            if self._process is not None:
                self._process.kill()


#: Atoms of a ground program a grounding process sends at a time: reading one
#: pickle holds the interpreter's lock throughout, and amazons' 1.2 million
#: atoms read at once held it for 3.6 s, during which no search here ran.
ATOM_PART = 50_000

#: The grounding process's program: this very ``ggp`` package, wherever the
#: child's working directory is.
_CHILD = (
    f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r}); "
    f"from ggp.game import _ground_child; _ground_child()"
)


def _ground_child() -> None:
    """The grounding process (:class:`_Grounding`): read the job, answer it,
    and end as soon as the parent closes stdin (it ended, or gave up)."""
    import signal

    from ggp.reasoners.datalog import BUILD_LOG
    from ggp.reasoners.ground import ground

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print must not mix with the answers
    try:
        rules, roles, limit, effort, part = pickle.load(sys.stdin.buffer)
    except Exception:  # the parent ended before it sent the whole job
        os._exit(0)
    threading.Thread(target=lambda: (sys.stdin.buffer.read(), os._exit(0)), daemon=True).start()

    def send(kind, value):
        try:
            data = pickle.dumps((kind, value), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # an exception that does not pickle
            data = pickle.dumps(("error", GameError(f"grounding raised {value!r}: {exc}")))
        try:
            out.write(data)
            out.flush()
        except OSError:  # the parent is gone
            os._exit(0)

    class Forward(logging.Handler):
        def emit(self, record):
            send("log", record.getMessage())

    BUILD_LOG.handlers[:] = [Forward(logging.INFO)]
    BUILD_LOG.setLevel(logging.INFO)
    BUILD_LOG.propagate = False
    try:
        program = ground(rules, roles, limit, effort)
    except Exception as exc:
        send("error", exc)
    else:  # the atoms in parts, each read in a fraction of a second (ATOM_PART)
        atoms = list(program.atoms)
        for i in range(0, len(atoms), part):
            send("atoms", atoms[i : i + part])
        send("program", dataclasses.replace(program, atoms={}))
    os._exit(0)  # nothing to tidy, and stdin's reader still waits


def games_dir() -> Path:
    """The folder of the games written by this project (``games_gdl``)."""
    return Path(str(resources.files("games_gdl")))


def game_names() -> list[str]:
    return sorted(p.stem for p in games_dir().glob("*.kif"))


class Game:
    """A parsed, validated game description.

    ``warnings`` holds the validator's warnings; an invalid description never
    becomes a Game (``load_game`` raises :class:`gdl.GdlError`).
    """

    def __init__(self, description: gdl.Description, name: str | None = None):
        self.description = description
        self.warnings = tuple(gdl.check(description))
        self.name = name or Path(description.path).stem
        self.rules = description.rules
        #: (reasoner, limit, effort) -> Future of the machine that
        #: ``state_machine`` forks, built or being built
        self._machines: dict = {}
        self._groundings: dict = {}  # key -> _Grounding of a background build
        #: (reasoner, limit, effort) -> why that build fell back to the
        #: demand-driven reasoner (:meth:`fallback_reason`)
        self._fallbacks: dict = {}
        self._lock = threading.Lock()

    @cached_property
    def roles(self) -> tuple:
        return tuple(r.head[1] for r in self.rules if name_of(r.head) == "role" and not r.body)

    @cached_property
    def is_gdl2(self) -> bool:
        """True when the game uses GDL-II: percepts (``sees``) or the ``random`` role."""
        return "random" in self.roles or any(name_of(r.head) == "sees" for r in self.rules)

    @cached_property
    def goal_range(self) -> tuple[int, int]:
        """The least and the most goal the rules can give a player (every
        role but GDL-II's ``random``): from the goal rules' heads when each
        names its value, else from the game's relaxed domain
        (:func:`ggp.reasoners.domains.relaxed_facts`, bounded in facts and effort);
        GDL's 0..100, with a one-line warning, when neither bounds it.  The
        learners of imperfect information scale their utilities by it
        (:func:`ggp.solvers.efg.utility_unit`)."""
        heads = [r.head for r in self.rules if name_of(r.head) == "goal"]
        players = [h for h in heads if isinstance(h, tuple) and h[1] != "random"]
        values = [h[2] for h in players if isinstance(h[2], str) and not isinstance(h[2], gdl.Var)]
        if len(values) < len(players):
            try:
                facts = relaxed_facts(self.rules, GOAL_FACTS, Effort(GOAL_EFFORT))
            except GameError as exc:
                warnings.warn(
                    f"{self.name}: the goal values are not bounded by the rules "
                    f"({exc}); utilities are scaled to GDL's 0..100",
                    stacklevel=2,
                )
                return 0, 100
            values = [a[2] for a in facts.get("goal") if a[1] != "random"]
        numbers = [int(v) for v in values if isinstance(v, str) and v.isdigit()]
        return (min(numbers), max(numbers)) if numbers else (0, 100)

    def state_machine(
        self, reasoner: str = COMPILED, limit: int = GROUND_LIMIT, effort: int = EFFORT
    ):
        """A :class:`~ggp.statemachine.StateMachine` of this game for
        ``reasoner``, of its own: one machine must not be asked from two
        threads at once, and the players and the manager of a match ask
        theirs from threads of their own.  What is costly (grounding, the
        network, the static facts) is built on the first call and shared by
        the machines of later calls (:meth:`StateMachine.fork`).

        ``compiled`` (the default) grounds the game into a propositional
        network; a game that does not ground within ``limit`` ground rules
        (and relaxed facts) and ``effort`` candidate atoms examined by the
        joins falls back to the demand-driven reasoner (:mod:`ggp.reasoners.demand`)
        with a one-line warning.  Both limits count work, not time: the
        same game gets the same reasoner and network on any machine.  ``reference`` is the
        bottom-up oracle (:mod:`ggp.reasoners.reference`), ``demand`` the top-down one.
        The build reports what it does to the ``ggp.build`` logger; a build
        under way in the background (:meth:`build`) is waited for, not
        started again.
        """
        future, mine = self._claim(reasoner, limit, effort)
        if mine:
            self._settle(
                future,
                (reasoner, limit, effort),
                lambda: self._new_state_machine(reasoner, limit, effort),
            )
        return future.result().fork()

    def build(
        self, reasoner: str = COMPILED, limit: int = GROUND_LIMIT, effort: int = EFFORT
    ) -> Future:
        """Start building the machine of :meth:`state_machine` in the
        background, unless it is built or being built, and return at once a
        :class:`~concurrent.futures.Future` that is done when
        ``state_machine(reasoner, limit, effort)`` answers without building.
        Its result is the name of the reasoner built (``"demand"`` when the
        compiled one fell back to it); its exception is the build's.  Every
        caller that shares this Game shares the build, :meth:`state_machine`
        included (it waits for a build under way).

        The build is the one :meth:`state_machine` makes, with the same
        result: time decides only when a caller stops waiting.  A compiled
        build grounds a small game here and a larger one in a process of its
        own (:class:`_Grounding`: its memory goes back to the system when it
        ends, :meth:`cancel_builds` can end it, and on a free core it does
        not take turns with a search here for the interpreter's lock), then
        builds the network and kernel here from the ground program."""
        machine, mine = self._claim(reasoner, limit, effort)
        if mine:
            threading.Thread(
                target=self._build_in_background,
                args=(machine, reasoner, limit, effort),
                name=f"build-{self.name}",
                daemon=True,
            ).start()
        named: Future = Future()
        machine.add_done_callback(lambda done: _fulfil(named, lambda: done.result().name))
        return named

    def fallback_reason(
        self, reasoner: str = COMPILED, limit: int = GROUND_LIMIT, effort: int = EFFORT
    ) -> str | None:
        """Why the machine of :meth:`state_machine` for these arguments is
        the demand-driven reasoner instead of the one asked for (the game
        does not ground within the limits: the warning's text), or None when
        it is the one asked for or is not built yet."""
        return self._fallbacks.get((reasoner, limit, effort))

    def cancel_builds(self) -> None:
        """End the grounding processes of the builds still running, which
        gives their memory back; their futures raise
        :class:`BuildCancelled`, and a later call builds again.  For the
        owner of a Game no longer needed (a served match that ended)."""
        with self._lock:
            groundings = list(self._groundings.values())
        for grounding in groundings:
            grounding.cancel()

    def _claim(self, reasoner, limit, effort) -> tuple:
        """(the future of the machine ``state_machine`` forks, True when the
        caller is the one to build it)."""
        if reasoner != COMPILED:
            reasoner_class(reasoner)  # ValueError naming the known ones
        key = (reasoner, limit, effort)
        with self._lock:
            future = self._machines.get(key)
            if future is not None:
                return future, False
            self._machines[key] = future = Future()
        # a build begins: what reports its progress counts its seconds from here
        logging.getLogger("ggp.build").info(
            "%s: building the %s reasoner", self.name, reasoner, extra={"build_start": True}
        )
        return future, True

    def _build_in_background(self, future, reasoner, limit, effort):
        """Build into ``future`` (:meth:`build`); a cancelled build is forgotten."""
        key = (reasoner, limit, effort)
        grounding = None
        if reasoner == COMPILED:
            grounding = _Grounding(self.rules, self.roles, limit, effort)
            with self._lock:
                self._groundings[key] = grounding
        try:
            self._settle(
                future,
                key,
                lambda: self._new_state_machine(
                    reasoner, limit, effort, grounding and grounding.result
                ),
            )
        finally:
            with self._lock:
                self._groundings.pop(key, None)

    def _settle(self, future, key, build) -> None:
        """Give ``future`` the machine ``build()`` makes, or what it raised; a
        build that did not end (cancelled, interrupted) is forgotten, so that
        a later call builds again."""
        _fulfil(future, build)
        error = future.exception()
        if isinstance(error, BuildCancelled) or (
            error is not None and not isinstance(error, Exception)
        ):
            with self._lock:
                del self._machines[key]

    def _new_state_machine(self, reasoner, limit, effort, grounding=None):
        """The machine ``state_machine`` forks; ``grounding()``, when given,
        returns the game ground elsewhere (or raises as ``ground`` does)."""
        if reasoner != COMPILED:
            return reasoner_class(reasoner)(self.rules)
        from ggp.reasoners.compiled import CompiledMachine
        from ggp.reasoners.demand import DemandMachine
        from ggp.reasoners.ground import GroundingTooLarge

        try:
            program = grounding() if grounding is not None else None
            return CompiledMachine(self.rules, self.roles, limit, effort, program)
        except GroundingTooLarge as exc:
            self._fallbacks[(reasoner, limit, effort)] = str(exc)
            warnings.warn(
                f"{self.name}: {exc}; using the demand-driven reasoner",
                GroundingWarning,
                stacklevel=2,
            )
            return DemandMachine(self.rules)

    def diagnostic(self, error: RuleError) -> gdl.Diagnostic:
        """``error`` as a located line: a role with no legal move at the
        role's declaration, a goal fault at the role's first goal rule, no end
        at the first ``terminal`` rule (else at the top of the file)."""

        def about_role(rule):
            head = rule.head
            return isinstance(head, tuple) and (
                head[1] == error.role or isinstance(head[1], gdl.Var)
            )

        wanted = {
            "legal": [lambda r: r.head == ("role", error.role)],
            "goal": [
                lambda r: name_of(r.head) == "goal" and about_role(r),
                lambda r: r.head == ("role", error.role),
            ],
            "terminal": [lambda r: name_of(r.head) == "terminal"],
        }.get(error.kind, [])
        rule = next((r for test in wanted for r in self.rules if test(r)), None)
        pos = rule.pos if rule is not None else gdl.Position(self.description.path, 1, 1)
        return gdl.Diagnostic(pos, error.kind, str(error))

    def parse_move(self, text: str):
        """A move read from text (any case), spelled as the rules spell it."""
        return gdl.parse_term(text, self.description.symbols)

    def __repr__(self) -> str:
        return f"Game({self.name!r}, roles={self.roles})"


def load_game(source, max_bytes: int | None = gdl.MAX_BYTES) -> Game:
    """A game from a name in ``games_gdl``, a path to a ``.kif`` file, or GDL
    text; a file or text of more than ``max_bytes`` (:data:`gdl.MAX_BYTES`
    unless told; None: no limit) is refused
    (:class:`gdl.TooLarge`) before it is parsed (see :func:`gdl.parse_file`)."""
    text = str(source)
    if "(" in text or ":-" in text or "\n" in text:
        return Game(gdl.parse(text, "<text>", max_bytes=max_bytes), name="<text>")
    path = Path(text)
    if not path.exists() and not path.suffix:
        candidate = games_dir() / f"{text}.kif"
        if candidate.exists():
            path = candidate
        else:
            hint = did_you_mean(text, game_names())
            raise gdl.GdlError(
                [
                    gdl.Diagnostic(
                        gdl.Position(text, 0, 0),
                        "io",
                        f"no game file '{text}' and no game of that name in games_gdl"
                        + (f"; {hint}" if hint else "")
                        + f" (known: {', '.join(game_names()) or 'none'})",
                    )
                ]
            )
    return Game(gdl.parse_file(path, max_bytes))
