"""Where the shared test material's games are (the folder holding ``gdl1``,
``gdl2``, ``corpus``): the folder named by the environment variable
``GGP_SHARED_GAMES`` if it is set, else ``shared/games`` beside the repository.

The tests and benchmarks read their games from there; the package itself
needs no such folder.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The environment variable that names the shared games' folder.
ENV = "GGP_SHARED_GAMES"

#: The folder looked in when ``GGP_SHARED_GAMES`` is unset: ``shared/games``
#: beside the repository (``<repository>/../shared/games``).
DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "games"


class SharedGamesAbsent(FileNotFoundError):
    """The shared games' folder is not where it was looked for."""


def shared_games_folder() -> Path:
    """Where the shared games are looked for: ``GGP_SHARED_GAMES`` if set,
    else ``DEFAULT``.  The folder may be absent (see ``shared_games``)."""
    return Path(os.environ.get(ENV) or DEFAULT)


def shared_games() -> Path:
    """The shared games' folder; ``SharedGamesAbsent``, one line saying where
    it looked and how to name the folder, if it is not there."""
    folder = shared_games_folder()
    if not folder.is_dir():
        source = ENV if os.environ.get(ENV) else "beside the repository"
        raise SharedGamesAbsent(
            f"the shared games are not at {folder} ({source}): set {ENV} "
            "to the folder that holds gdl1, gdl2 and corpus"
        )
    return folder


def named_game(name: str, folder: str = "gdl1") -> Path | str:
    """The shared game ``folder/name.kif`` when it is there, else ``name``
    itself: the game of that name in games_gdl, as :func:`ggp.load_game`
    reads it (the benchmarks' games by name, with or without the shared
    material)."""
    path = shared_games_folder() / folder / f"{name}.kif"
    return path if path.exists() else name
