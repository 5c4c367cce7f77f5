"""``load_game`` and ``Game``: a validated description and its state machines."""
from __future__ import annotations

import threading
import warnings
from functools import cached_property
from importlib import resources
from pathlib import Path

import gdl
from gdl.ast import name_of

from .ground import EFFORT, GROUND_LIMIT
from .statemachine import RuleError

REASONERS = ("compiled", "reference", "demand")


class GroundingWarning(UserWarning):
    """A game too large to ground runs on the demand-driven reasoner."""


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
        self._machines: dict = {}
        self._building = threading.Lock()

    @cached_property
    def roles(self) -> tuple:
        return tuple(r.head[1] for r in self.rules
                     if name_of(r.head) == "role" and not r.body)

    @cached_property
    def is_gdl2(self) -> bool:
        """True when the game uses GDL-II: percepts (``sees``) or the ``random`` role."""
        return "random" in self.roles or any(name_of(r.head) == "sees" for r in self.rules)

    def state_machine(self, reasoner: str = "compiled", limit: int = GROUND_LIMIT,
                      effort: int = EFFORT):
        """A :class:`~ggp.statemachine.StateMachine` of this game for
        ``reasoner``, of its own: one machine must not be asked from two
        threads at once, and the players and the manager of a match ask
        theirs from threads of their own.  What is costly (grounding, the
        network, the static facts) is built on the first call and shared by
        the machines of later calls (:meth:`StateMachine.fork`).

        ``compiled`` (the default) grounds the game into a propositional
        network; a game that does not ground within ``limit`` ground rules
        (and relaxed facts) and ``effort`` candidate atoms examined by the
        joins falls back to the demand-driven reasoner (:mod:`ggp.demand`)
        with a one-line warning.  Both limits count work, not time: the
        same game gets the same reasoner and network on any machine.  ``reference`` is the
        bottom-up oracle (:mod:`ggp.reference`), ``demand`` the top-down one.
        The build reports what it does to the ``ggp.build`` logger.
        """
        key = (reasoner, limit, effort)
        with self._building:
            if key not in self._machines:
                self._machines[key] = self._new_state_machine(reasoner, limit, effort)
        return self._machines[key].fork()

    def _new_state_machine(self, reasoner, limit, effort):
        from .demand import DemandMachine
        from .reference import ReferenceMachine
        if reasoner == "reference":
            return ReferenceMachine(self.rules)
        if reasoner == "demand":
            return DemandMachine(self.rules)
        if reasoner != "compiled":
            raise ValueError(f"unknown reasoner {reasoner!r}; "
                             f"choose from {', '.join(REASONERS)}")
        from .compiled import CompiledMachine
        from .ground import GroundingTooLarge
        try:
            return CompiledMachine(self.rules, self.roles, limit, effort)
        except GroundingTooLarge as exc:
            warnings.warn(f"{self.name}: {exc}; using the demand-driven reasoner",
                          GroundingWarning, stacklevel=2)
            return DemandMachine(self.rules)

    def diagnostic(self, error: RuleError) -> gdl.Diagnostic:
        """``error`` as a located line: a role with no legal move at the
        role's declaration, a goal fault at the role's first goal rule, no end
        at the first ``terminal`` rule (else at the top of the file)."""
        def about_role(rule):
            head = rule.head
            return isinstance(head, tuple) and (head[1] == error.role
                                                or isinstance(head[1], gdl.Var))

        wanted = {"legal": [lambda r: r.head == ("role", error.role)],
                  "goal": [lambda r: name_of(r.head) == "goal" and about_role(r),
                           lambda r: r.head == ("role", error.role)],
                  "terminal": [lambda r: name_of(r.head) == "terminal"]}.get(error.kind, [])
        rule = next((r for test in wanted for r in self.rules if test(r)), None)
        pos = rule.pos if rule is not None else gdl.Position(self.description.path, 1, 1)
        return gdl.Diagnostic(pos, error.kind, str(error))

    def parse_move(self, text: str):
        """A move read from text (any case), spelled as the rules spell it."""
        return gdl.parse_term(text, self.description.symbols)

    def __repr__(self) -> str:
        return f"Game({self.name!r}, roles={self.roles})"


def load_game(source, max_bytes: int | None = None) -> Game:
    """A game from a name in ``games_gdl``, a path to a ``.kif`` file, or GDL
    text; with ``max_bytes``, a larger file or text is refused
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
            raise gdl.GdlError([gdl.Diagnostic(
                gdl.Position(text, 0, 0), "io",
                f"no game file '{text}' and no game of that name in games_gdl "
                f"(known: {', '.join(game_names()) or 'none'})")])
    return Game(gdl.parse_file(path, max_bytes))
