"""ggp.shared: where the shared games are looked for, and the one-line error
when they are not there."""

from pathlib import Path

import pytest

from ggp import shared
from ggp.shared import SharedGamesAbsent, named_game, shared_games, shared_games_folder


def test_the_environment_variable_names_the_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("GGP_SHARED_GAMES", str(tmp_path))
    assert shared_games_folder() == tmp_path
    assert shared_games() == tmp_path


def test_without_the_variable_the_folder_is_shared_games_beside_the_repository(monkeypatch):
    monkeypatch.delenv("GGP_SHARED_GAMES", raising=False)
    repository = Path(__file__).resolve().parents[1]
    assert shared_games_folder() == shared.DEFAULT == repository.parent / "shared" / "games"


@pytest.mark.skipif(not shared.DEFAULT.is_dir(), reason="no shared games beside the repository")
def test_the_default_folder_is_there_with_the_test_material(monkeypatch):
    monkeypatch.delenv("GGP_SHARED_GAMES", raising=False)
    assert (shared_games() / "gdl1").is_dir()


def test_an_absent_folder_is_one_line_saying_where_and_what_to_set(monkeypatch, tmp_path):
    monkeypatch.setenv("GGP_SHARED_GAMES", str(tmp_path / "nowhere"))
    with pytest.raises(SharedGamesAbsent) as raised:
        shared_games()
    assert str(raised.value) == (
        f"the shared games are not at {tmp_path / 'nowhere'} (GGP_SHARED_GAMES): set "
        "GGP_SHARED_GAMES to the folder that holds gdl1, gdl2 and corpus"
    )
    monkeypatch.delenv("GGP_SHARED_GAMES")
    monkeypatch.setattr(shared, "DEFAULT", tmp_path / "absent")
    with pytest.raises(FileNotFoundError, match="beside the repository"):
        shared_games()


def test_a_game_by_name_is_the_shared_file_when_there_else_the_name(monkeypatch, tmp_path):
    (tmp_path / "gdl1").mkdir()
    (tmp_path / "gdl1" / "connectFour.kif").write_text("(role a)")
    monkeypatch.setenv("GGP_SHARED_GAMES", str(tmp_path))
    assert named_game("connectFour") == tmp_path / "gdl1" / "connectFour.kif"
    assert named_game("tictactoe") == "tictactoe"  # games_gdl's, by name
    assert named_game("connectFour", "corpus") == "connectFour"
