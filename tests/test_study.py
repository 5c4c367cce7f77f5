"""Studies (matches/study.py): parallel, reproducible, resumable."""
import json

import pytest

from matches.cli import main
from matches.study import load_study, run_study, summary, tasks

STUDY = """
name: tiny
games: [tictactoe]
players:
  uct: uct:simulations=20
  random: random
matches: 6
seed: 3
"""


def write(tmp_path, text=STUDY, name="tiny.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_tasks_alternate_roles_and_have_distinct_seeds(tmp_path):
    study = load_study(write(tmp_path))
    ts = tasks(study)
    assert len(ts) == 6 and len({t["seed"] for t in ts}) == 6
    assert [t["order"][0] for t in ts] == ["uct", "random"] * 3


def test_killed_study_resumes_to_the_same_results(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    full = load_study(write(tmp_path / "a"))
    reference = run_study(full, workers=2, progress=None)
    assert len(reference) == 6
    # a second directory: the first three results, then a line torn by a kill
    resumed = load_study(write(tmp_path / "b"))
    resumed.out.mkdir(parents=True)
    lines = (full.out / "matches.jsonl").read_text().splitlines()
    (resumed.out / "matches.jsonl").write_text("\n".join(lines[:3]) + "\n" + lines[3][:20])
    results = run_study(resumed, workers=2, progress=None)
    assert len(results) == 6
    kept = [json.loads(x) for x in (resumed.out / "matches.jsonl").read_text().splitlines()
            if x.startswith("{") and x.endswith("}")]
    assert len(kept) == 6 and len({r["key"] for r in kept}) == 6
    assert results == reference
    assert summary(results) == summary(reference)


def test_study_command_writes_tables(tmp_path, capsys):
    path = write(tmp_path)
    assert main(["study", str(path), "--workers", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["matches"] == 6
    (row,) = data["rows"]
    assert row["player"] == "uct" and row["wins"] + row["draws"] + row["losses"] == 6
    assert (tmp_path / "results" / "tiny" / "summary.md").read_text().startswith("| game")


@pytest.mark.parametrize("text, message", [
    ("games: [tictactoe]\n", "'players' is required"),
    ("games: [tictactoe]\nplayers: {a: random}\npairs: [[a, b]]\n", "must name two"),
    ("games: [tictactoe]\nplayers: {a: random}\nmatchs: 3\n", "unknown key"),
])
def test_mistakes_in_a_study_file_are_named(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        load_study(write(tmp_path, text))
