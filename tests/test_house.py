"""The tracked files name no folder of this machine and tell no work history:
``git grep`` over them finds no absolute path under the folder that holds the
repository or the shared test material, and no "issue N" or "session N".

The recorded results in benchmarks/results are searched too: they hold
relative paths and game names, so nothing there needs excluding.
"""

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from ggp.shared import DEFAULT

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None or not (ROOT / ".git").exists(),
    reason="git or the repository's .git is unavailable",
)


def git_grep(*argv: str) -> list[str]:
    """The lines of the tracked files ``git grep`` finds with ``argv``."""
    out = subprocess.run(
        ["git", "grep", "-n", *argv], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert out.returncode in (0, 1), out.stderr  # 1: nothing found
    return out.stdout.splitlines()


def machine_folders() -> set[str]:
    """The folders whose absolute paths would be this machine's: the one that
    holds the repository and the one that holds the shared test material (its
    real place, links followed).  The root and the temporary folder are left
    out: there, as in ``--csv /tmp/gdl1.csv``, a path is anyone's example."""
    general = {Path("/"), Path(tempfile.gettempdir()).resolve()}
    folders = {ROOT.parent, DEFAULT.resolve().parent.parent}
    return {f"{folder}/" for folder in folders - general}


@pytest.mark.parametrize("folder", sorted(machine_folders()))
def test_no_path_of_this_machine(folder):
    assert git_grep("-F", folder) == []


def test_no_work_history():
    assert git_grep("-i", "-E", "issue [0-9]|session [0-9]") == []
