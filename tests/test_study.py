"""Studies (matches/study.py): parallel, reproducible, resumable."""
import json

import pytest

from matches.cli import main
from matches.records import MatchStore
from matches.study import load_study, ranking, run_study, summary, tasks

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


def test_study_resumes_without_redoing_a_match(tmp_path):
    study = load_study(write(tmp_path))
    full = run_study(study, workers=2, db=tmp_path / "full.sqlite", progress=None)
    assert len(full) == 6
    # a database holding the first three matches only, as a killed run leaves it
    partial = tmp_path / "partial.sqlite"
    with MatchStore(tmp_path / "full.sqlite") as src, MatchStore(partial) as dst:
        for row in full[:3]:
            dst.add(src.get(row["match_id"]), study=study.name, key=row["key"])
    resumed = run_study(study, workers=2, db=partial, progress=None)
    assert [r["key"] for r in resumed] == [r["key"] for r in full]
    assert [r["match_id"] for r in resumed[:3]] == [r["match_id"] for r in full[:3]]
    assert [r["goals"] for r in resumed] == [r["goals"] for r in full]
    with MatchStore(partial) as store:
        assert store.count(study.name) == 6
    assert summary(resumed) == summary(full)


def test_ranking_orders_a_stronger_player_first():
    rows = [{"players": {"x": "a", "o": "b"}, "goals": {"x": 100, "o": 0}, "key": f"g|a|b|{i}"}
            for i in range(9)]
    rows.append({"players": {"x": "b", "o": "a"}, "goals": {"x": 100, "o": 0}, "key": "g|a|b|9"})
    ranks = ranking(rows, ["a", "b"], resamples=50)
    assert [r["player"] for r in ranks] == ["a", "b"]
    a, b = ranks
    assert a["elo"] == -b["elo"] > 0 and a["low"] <= a["elo"] <= a["high"]


def test_study_command_writes_tables(tmp_path, capsys):
    path = write(tmp_path)
    assert main(["study", str(path), "--workers", "1", "--json",
                 "--db", str(tmp_path / "m.sqlite")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["matches"] == 6
    (row,) = data["rows"]
    assert row["player"] == "uct" and row["wins"] + row["draws"] + row["losses"] == 6
    assert (tmp_path / "results" / "tiny" / "summary.md").read_text().startswith("| game")
    assert (tmp_path / "results" / "tiny" / "summary.png").stat().st_size > 1000
    assert [r["player"] for r in data["ranking"]] in (["uct", "random"], ["random", "uct"])


@pytest.mark.parametrize("text, message", [
    ("games: [tictactoe]\n", "'players' is required"),
    ("games: [tictactoe]\nplayers: {a: random}\npairs: [[a, b]]\n", "must name two"),
    ("games: [tictactoe]\nplayers: {a: random}\nmatchs: 3\n", "unknown key"),
])
def test_mistakes_in_a_study_file_are_named(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        load_study(write(tmp_path, text))


def test_the_ray_executor_plays_the_same_matches(tmp_path):
    ray = pytest.importorskip("ray", reason="ray is an optional extra: pip install '.[ray]'")
    study = load_study(write(tmp_path))
    local = run_study(study, workers=2, db=tmp_path / "local.sqlite", progress=None)
    try:
        remote = run_study(study, db=tmp_path / "ray.sqlite", executor="ray", progress=None)
    finally:
        ray.shutdown()
    assert [r["goals"] for r in remote] == [r["goals"] for r in local]
    assert summary(remote) == summary(local)
