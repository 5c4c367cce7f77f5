"""What the tests that run a documentation page need (tests/test_docs_snippets.py,
tests/test_write_a_player.py): the page's fenced blocks, with the file the
prose before each says to save it as, the commands of its shell blocks, and a
``ggp`` command run in this process."""

import re
import shlex

from matches.cli import main

FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
SAVE_AS = re.compile(r"Save\s+it\s+as\s+`([^`]+)`")  # across a line break too


def blocks(text: str):
    """(language, body, the file the prose before it says to save it as, or None)."""
    end = 0
    for match in FENCE.finditer(text):
        saved = SAVE_AS.findall(text[end : match.start()])
        end = match.end()
        yield match.group(1), match.group(2), saved[-1] if saved else None


def commands(language: str, body: str):
    """(command, the documented ``ggp:`` lines of its output) of a shell block:
    a ``console`` block's ``$`` lines, an ``sh`` block's whole text."""
    if language == "sh":
        yield body.strip(), []
        return
    for command, output in console(body):
        yield command, [line for line in output if line.startswith("ggp: ")]


def console(body: str):
    """(command, the lines of output shown under it) of a ``console`` block."""
    command, output = None, []
    for line in body.splitlines():
        if line.startswith("$ "):
            if command is not None:
                yield command, output
            command, output = line[2:], []
        elif command is not None:
            output.append(line)
    if command is not None:
        yield command, output


def run_ggp(command: str, errors: list, capsys) -> list:
    """Run ``ggp ...`` here: exit 0, or the documented error lines and exit 1.
    Returns the lines it printed on stdout."""
    status = main(shlex.split(command)[1:])
    out, err = capsys.readouterr()
    if errors:
        assert (status, err.splitlines()) == (1, errors), command
    else:
        assert status == 0, f"{command}: {err.splitlines()}"
    return out.splitlines()
