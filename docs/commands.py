"""Writes the documentation's command pages from the commands' own ``--help``.

    python docs/commands.py          # rewrite docs/commands/*.md
    python docs/commands.py --check  # exit 1 when a page differs from its --help

Each page is the command's help as ``ggp COMMAND --help`` prints it at 88
columns, after a line that says where the guide explains it; the test suite
runs the check, so a page cannot drift from the parser.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
WIDTH = "88"

#: the guide's page about each command
GUIDE = {
    "check": ("A short tour", "../tour.md"),
    "info": ("A short tour", "../tour.md"),
    "count": ("Reasoners", "../reasoners.md"),
    "bench": ("Reasoners", "../reasoners.md"),
    "solve": ("Imperfect information", "../imperfect.md"),
    "exploit": ("Learning by self-play", "../learning.md"),
    "match": ("Matches and studies", "../matches.md"),
    "play": ("A short tour", "../tour.md"),
    "study": ("Matches and studies", "../matches.md"),
    "replay": ("Matches and studies", "../matches.md"),
    "view": ("The viewer", "../viewer.md"),
    "serve": ("Matches and studies", "../matches.md"),
    "players": ("Players", "../players.md"),
}


def pages() -> dict[Path, str]:
    """Every command page's path and text, from the parsers as they are now."""
    os.environ["COLUMNS"] = WIDTH
    from matches.cli import command_parsers

    out = {}
    for name, parser in command_parsers().items():
        title, link = GUIDE[name]
        text = (
            f"# ggp {name}\n\n{parser.description[:1].upper()}{parser.description[1:]}.\n\n"
            f"The guide: [{title}]({link}). Every command's errors: "
            "[When the input is wrong](../errors.md).\n\n"
            f"```text\n$ ggp {name} --help\n{parser.format_help().rstrip()}\n```\n"
        )
        out[HERE / "commands" / f"{name}.md"] = text
    return out


def main(argv: list[str]) -> int:
    wanted = pages()
    stale = [p for p, text in wanted.items() if not p.exists() or p.read_text() != text]
    if "--check" in argv:
        for p in stale:
            print(f"{p}: differs from the command's --help (python docs/commands.py)")
        return 1 if stale else 0
    for p in stale:
        p.write_text(wanted[p])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
