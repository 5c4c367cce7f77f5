"""The ``ggp`` command.

Every command takes ``--json`` for scripts.  GAME is a name in games_gdl or a
path to a .kif file.  Every error of every command is one line on stderr,
``ggp: ...`` (with ``--json``, one object ``{"error": {"kind", "message",
"file", "line", "column"}}`` on stdout), and exit status 1; numbers are
checked by the argument parser, player specs against the players'
declarations, before anything runs.  No Python traceback reaches the user:
an unexpected one is reported on one line as an internal error (set
``GGP_DEBUG=1`` to see it).

The command line lives in ``matches`` because it drives everything below it
(gdl, ggp, players, matches) and nothing below may import what is above.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
import traceback
import warnings

import gdl
from ggp import GameError, RuleError
from matches.cli import games, imperfect, play
from matches.cli.common import (
    Commands,
    HelpFormatter,
    Interrupted,
    Parser,
    UserError,
    error_object,
)


def build_parser() -> argparse.ArgumentParser:
    """The ``ggp`` command's parser: each command group adds its commands."""
    return _commands()[0]


def command_parsers() -> dict[str, argparse.ArgumentParser]:
    """Every command's own parser by name, in ``ggp --help``'s order (the
    documentation's command pages are their help)."""
    return _commands()[1].parsers


def _commands() -> tuple[argparse.ArgumentParser, Commands]:
    parser = Parser(
        prog="ggp", description="General Game Playing toolkit", formatter_class=HelpFormatter
    )
    cli = Commands(parser)
    for group in (games, imperfect, play):
        group.add_commands(cli)
    return parser, cli


def _fail(as_json: bool, error) -> int:
    """Print one error (a Diagnostic or an exception) and return status 1."""
    if as_json:
        print(json.dumps({"error": error_object(error)}))
    else:
        print(f"ggp: {str(error).splitlines()[0]}", file=sys.stderr)
    return 1


class _BuildProgress(logging.Handler):
    """Prints what a game's build is doing (the ``ggp.build`` log) once the
    build has run ``after`` seconds, a line a second at most, when stderr is
    a terminal (as :mod:`ggp.progress` draws its bars: a log, a pipe or a
    test's capture gets none of it)."""

    def __init__(self, after: float = 2.0):
        super().__init__(logging.INFO)
        self.after = after
        self.restart()

    def restart(self):
        self.start = time.monotonic()
        self.last = -1.0

    def emit(self, record):
        if getattr(record, "build_start", False):  # a build begins (a server's next game)
            self.restart()
            return
        now = time.monotonic() - self.start
        if now >= self.after and now - self.last >= 1.0 and sys.stderr.isatty():
            self.last = now
            print(
                f"ggp: building ({now:.0f} s): {record.getMessage()}", file=sys.stderr, flush=True
            )


_PROGRESS = _BuildProgress()


def _one_line_warning(message, category, filename, lineno, line=None):
    return f"ggp: warning: {message}\n"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    warnings.formatwarning = _one_line_warning
    debug = bool(os.environ.get("GGP_DEBUG"))
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.WARNING,
        format="ggp: %(message)s"
        if not debug
        else "%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    as_json = "--json" in argv
    build_log = logging.getLogger("ggp.build")
    if _PROGRESS not in build_log.handlers:
        build_log.addHandler(_PROGRESS)
        build_log.setLevel(logging.INFO)
        build_log.propagate = False
    _PROGRESS.restart()
    args = None
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except gdl.GdlError as exc:
        return _fail(as_json, exc.first)
    except RuleError as exc:
        game = getattr(args, "loaded", None)
        return _fail(as_json, game.diagnostic(exc) if game is not None else exc)
    except Interrupted as exc:
        _fail(as_json, exc)
        return 130
    except (GameError, UserError) as exc:
        return _fail(as_json, exc)
    except KeyboardInterrupt:
        print("ggp: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (ggp ... | head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:  # a bug of ours: one line, the traceback on request
        if debug:
            traceback.print_exc()
        error = UserError(
            f"internal error: {type(exc).__name__}: {str(exc).strip()} (GGP_DEBUG=1 shows where)",
            "internal",
        )
        return _fail(as_json, error)
