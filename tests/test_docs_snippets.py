"""The newcomer's pages run as written: each fenced ``python`` block of the
getting-started page and the tour is executed, and each ``ggp`` command of
their shell blocks is run, in order and in one temporary folder per page (a
block writes the files the next ones read).  A command whose documented output
is a ``ggp: ...`` error must fail with exactly those lines; any other must
exit 0.  The commands that cannot run here are in :data:`SKIP` with the
reason, and every entry there must still be on its page."""

import subprocess
from pathlib import Path

import pytest
from snippets import blocks, commands, run_ggp

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = ["getting-started.md", "tour.md"]

#: (page, a shell block's command) -> why it is not run.
SKIP = {
    (
        "getting-started.md",
        "python3 -m venv .venv && . .venv/bin/activate",
    ): "makes a virtual environment and installs the package",
    ("getting-started.md", "python -m pytest -q -n 2"): "runs the whole test suite",
    ("getting-started.md", "ggp serve uct --port 9150"): "serves until stopped",
    (
        "getting-started.md",
        "ggp match takeaway.kif --player http://127.0.0.1:9150 --player random --out match.json",
    ): "plays against the `ggp serve` above, which is not running",
}

#: (page, command, its occurrence on the page) -> (file, text, replacement):
#: an edit the page asks for in words, made for that command only.
EDITS = {
    ("getting-started.md", "ggp check takeaway.kif", 2): (
        "takeaway.kif",
        "(role ?p) (not (true (control ?p)))",
        "(not (true (control ?p)))",
    ),
}


@pytest.mark.parametrize("page", PAGES)
def test_the_page_runs_as_written(page, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    text = (DOCS / page).read_text()
    skipped, seen = set(), {}
    for language, body, saved in blocks(text):
        if saved:
            Path(saved).write_text(body)
        elif language == "python":
            exec(compile(body, f"{page} (python block)", "exec"), {"__name__": "__snippet__"})
        elif language in ("sh", "console"):
            for command, errors in commands(language, body):
                key = next((k for k in SKIP if k[0] == page and command.startswith(k[1])), None)
                if key:
                    skipped.add(key)
                elif command.startswith("ggp "):
                    seen[command] = seen.get(command, 0) + 1
                    edit = EDITS.get((page, command, seen[command]))
                    kept = Path(edit[0]).read_text() if edit else None
                    if edit:
                        assert edit[1] in kept, f"{page}: the edit for {command} is stale"
                        Path(edit[0]).write_text(kept.replace(edit[1], edit[2]))
                    try:
                        run_ggp(command, errors, capsys)
                    finally:
                        if edit:
                            Path(edit[0]).write_text(kept)
                else:  # a shell command that prepares files (a heredoc)
                    subprocess.run(["bash", "-e", "-c", command], check=True)
    assert skipped == {k for k in SKIP if k[0] == page}, "a skipped command left the page"
