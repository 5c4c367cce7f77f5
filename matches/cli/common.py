"""What every command shares: one-line errors, the output as text or JSON, reading the
game, the argument types, and the options several commands take (:class:`Commands`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import gdl
from ggp import load_game
from ggp.reasoners import names as reasoner_names
from ggp.reasoners import reasoner_class
from ggp.reasoners.ground import EFFORT, GROUND_LIMIT
from ggp.solvers.efg import HISTORY_LIMIT, TreeTooLarge, build_tree
from matches.manager import MAX_STEPS
from players.params import Param


class UserError(Exception):
    """A one-line complaint about the user's input; ``kind`` names what was
    wrong (``usage``, ``player``, ``io``, ...)."""

    def __init__(self, message: str, kind: str = "usage"):
        super().__init__(message)
        self.kind = kind


class Interrupted(UserError):
    """Ctrl-C: one line saying what was kept and where (exit status 130)."""

    def __init__(self, message: str):
        super().__init__(f"interrupted: {message}", "interrupted")


def emit(args, data: dict, text: str):
    print(json.dumps(data, indent=2, default=str) if args.json else text)


def words(value) -> str:
    """A value as text for people: a list or tuple comma-separated, a dict as
    ``key value`` pairs, a truth value as yes or no."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"{k} {words(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(words(v) for v in value)
    return str(value)


def as_lines(data: dict) -> list[str]:
    """``key: value`` lines of ``data`` for the text output: a field without
    a value (None: not asked for, not measured) is left out."""
    return [f"{k}: {words(v)}" for k, v in data.items() if v is not None]


#: ``--max-bytes``'s default, the bound of every reader of games.
MAX_BYTES = gdl.MAX_BYTES


def load_args_game(args, source=None):
    """The game the command names, within ``--max-bytes``; kept on ``args``
    so that a rule the game breaks while playing is reported at its place in
    the file."""
    try:
        args.loaded = load_game(source or args.game, args.max_bytes)
    except gdl.TooLarge as exc:
        first = exc.first
        raise gdl.GdlError(
            [gdl.Diagnostic(first.pos, first.kind, f"{first.message} (--max-bytes N allows more)")]
        ) from None
    return args.loaded


def machine(args, game):
    """The game's state machine for ``--reasoner`` and the ``--ground-*``
    limits."""
    return game.state_machine(args.reasoner, **limits(args))


def limits(args) -> dict:
    """The ``--ground-*`` limits, as :meth:`ggp.game.Game.state_machine` takes them."""
    return dict(limit=args.ground_limit, effort=args.ground_effort)


def tree_of(args, game):
    """The game's extensive form, refused (in one line, within about a second
    when the estimate says so) past ``--max-histories``."""

    try:
        return build_tree(game, limit=args.max_histories, estimate=True)
    except TreeTooLarge as exc:
        raise UserError(f"{exc} (--max-histories N sets the limit)", "tree") from None


def writable(path):
    if not Path(path).parent.is_dir():
        raise UserError(f"{path}: no such directory", "io")


class Parser(argparse.ArgumentParser):
    """argparse whose errors are the command's one-line errors."""

    def error(self, message):
        command = self.prog.removeprefix("ggp").strip()
        raise UserError(f"{command}: {message}" if command else message)


def number(kind, low=None, high=None, low_open=False):
    """An argparse type: a number that a :class:`Param` of the same bounds accepts."""
    param = Param("value", kind, 0, "", low=low, high=high, low_open=low_open)

    def convert(text):
        try:
            return param.convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {param.accepts()}, got {text!r}") from None

    convert.__name__ = param.accepts()
    return convert


COUNT = number(int, low=1)


NATURAL = number(int, low=0)


SECONDS = number(float, low=0, low_open=True)


CLOCK = number(int, low=1)


def BUDGETS(text):
    """An argparse type: comma-separated budgets, each an integer >= 1."""
    try:
        budgets = [COUNT(part.strip()) for part in text.split(",") if part.strip()]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected integers >= 1 separated by commas, got {text!r}"
        ) from None
    if not budgets:
        raise argparse.ArgumentTypeError("expected at least one budget")
    return budgets


def ALGO(text):
    """An argparse type: a solver as :func:`ggp.solvers.solve.parse_algo` reads it."""
    from ggp.solvers.solve import parse_algo

    try:
        parse_algo(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


PORT = number(int, low=0, high=65535)


def REASONER(text):
    """An argparse type: a reasoner's name (:func:`ggp.reasoners.reasoner_class`
    names the known ones, and the nearest, for another)."""
    try:
        reasoner_class(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """argparse's defaults in the help, once: not where the help already says
    its default, nor where there is none to say (a None, a flag's False)."""

    def _get_help_string(self, action):
        help_text = action.help or ""
        if "default" in help_text or action.default in (None, False, argparse.SUPPRESS):
            return help_text
        return super()._get_help_string(action)


def error_object(error) -> dict:
    """The JSON form of an error: kind, message and, for a located one, where."""
    if isinstance(error, gdl.Diagnostic):
        pos = error.pos
        return {
            "kind": error.kind,
            "message": error.message,
            "file": pos.path,
            "line": pos.line,
            "column": pos.column,
        }
    return {
        "kind": getattr(error, "kind", "game"),
        "message": str(error).splitlines()[0],
        "file": None,
        "line": None,
        "column": None,
    }


class Commands:
    """The ``ggp`` command's sub-commands being declared: :meth:`command`
    adds one, the other methods add the options several commands share."""

    def __init__(self, parser: argparse.ArgumentParser):
        self.formatter = HelpFormatter
        self.sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
        #: every command's parser by name, in the order ``ggp --help`` lists them
        self.parsers: dict[str, argparse.ArgumentParser] = {}

    def command(self, name, func, help_text, game=True):
        p = self.sub.add_parser(
            name, help=help_text, description=help_text, formatter_class=self.formatter
        )
        self.parsers[name] = p
        if game:
            p.add_argument("game", metavar="GAME", help="a name in games_gdl or a .kif path")
            self.max_bytes(p)
        p.add_argument("--json", action="store_true", help="print one JSON object")
        p.set_defaults(func=func)
        return p

    def max_bytes(self, p):
        p.add_argument(
            "--max-bytes",
            type=COUNT,
            default=MAX_BYTES,
            help="refuse a game file of more bytes, before reading it (default "
            f"{MAX_BYTES:,}, 15 times the largest public game, 68 kB; parsing "
            "takes 13-18 s and 220-350 MB a MB)",
        )

    def reasoner(self, p):
        p.add_argument(
            "--reasoner",
            type=REASONER,
            choices=reasoner_names(),
            default=reasoner_names()[0],
            help="compiled (a propositional network in C), reference (bottom-up, the "
            "oracle) or demand (top-down with tabling, for games that do not ground)",
        )
        p.add_argument(
            "--ground-limit",
            type=COUNT,
            default=GROUND_LIMIT,
            help="ground rules (and half as many relaxed facts) the compiled reasoner may have "
            f"before the game falls back to the demand-driven one (default {GROUND_LIMIT:,})",
        )
        p.add_argument(
            "--ground-effort",
            type=COUNT,
            default=EFFORT,
            help="candidate atoms grounding's joins may examine before the game "
            f"falls back to the demand-driven reasoner (default {EFFORT:,})",
        )

    def view_options(self, p):
        p.add_argument(
            "--view",
            action="store_true",
            help="watch it in the browser: serves the viewer (its address is "
            "printed), which stays up after the end until Ctrl-C",
        )
        p.add_argument("--view-port", type=PORT, default=8147, help="the viewer's port (0: any)")
        p.add_argument("--view-host", default="127.0.0.1", help="the viewer's address")

    def max_histories(self, p):
        p.add_argument(
            "--max-histories",
            type=COUNT,
            default=HISTORY_LIMIT,
            help="refuse a game whose extensive form has more histories "
            f"(default {HISTORY_LIMIT:,}; a random-path estimate refuses at "
            "once past twice this)",
        )

    def clocks(self, p, start, play):
        p.add_argument(
            "--startclock", type=CLOCK, default=start, help="seconds the players have to prepare"
        )
        p.add_argument(
            "--playclock", type=CLOCK, default=play, help="seconds the players have for each move"
        )
        p.add_argument(
            "--max-steps",
            type=COUNT,
            default=MAX_STEPS,
            help="abort the match (ABORT to every player, the record says "
            "why) if the game has not ended after this many steps",
        )
