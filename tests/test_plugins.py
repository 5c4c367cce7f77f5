"""Players and reasoners from a package outside the repository, found through
the ``ggp.players`` and ``ggp.reasoners`` entry points with no list edited
(tests/data/plugin: a package and its dist-info, on the path as if installed)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = Path(__file__).parent / "data" / "plugin"


def ggp(*args) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(PLUGIN), str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.run(
        [sys.executable, "-m", "matches.cli", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_plugin_player_is_listed_and_plays():
    listed = ggp("players", "--json")
    assert listed.returncode == 0, listed.stderr
    names = [p["name"] for p in json.loads(listed.stdout)["players"]]
    assert "last" in names and "uct" in names
    played = ggp("play", "tictactoe", "last", "random:seed=1", "--json")
    assert played.returncode == 0, played.stderr
    (match,) = json.loads(played.stdout)["matches"]
    assert match["players"]["xplayer"] == "last" and match["goals"]
    # the last legal move every time: its first move is the last of the nine cells
    assert match["moves"][0][0] == "(mark 3 3)"


def test_a_plugin_reasoner_is_a_choice_and_reasons():
    counted = ggp("count", "tictactoe", "--reasoner", "slow", "--depth", "2", "--json")
    assert counted.returncode == 0, counted.stderr
    assert json.loads(counted.stdout)["reasoner"] == "slow"
    played = ggp("play", "tictactoe", "random:seed=1,reasoner=slow", "last", "--json")
    assert played.returncode == 0, played.stderr


@pytest.mark.parametrize("bad", ["ggp_example_plugin:Missing", "no_such_module:Player"])
def test_a_broken_plugin_is_one_line(tmp_path, bad):
    """An entry point that does not load names itself in one line."""
    import shutil

    broken = tmp_path / "plugin"
    shutil.copytree(PLUGIN, broken)
    points = broken / "ggp_example_plugin-0.1.dist-info" / "entry_points.txt"
    points.write_text(f"[ggp.players]\nbroken = {bad}\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(broken), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-m", "matches.cli", "players"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "entry point 'broken'" in done.stderr and "Traceback" not in done.stderr
