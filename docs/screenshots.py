"""The screenshots of the browser viewer (``ggp view``) in docs/viewer.md,
made in headless Chromium at their real size: the match list, a board in
the middle of a match (its move list, the last move highlighted, stones
drawn as glyphs), a GDL-II match seen by one role, and a study's page.

    python docs/screenshots.py            # writes docs/img/viewer-*.png

The matches are played here (seeded, into a scratch database); the study is
one of the committed results (benchmarks/results/playout_policies).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import players  # noqa: E402
from ggp import load_game  # noqa: E402
from matches.manager import run_match  # noqa: E402
from matches.records import MatchStore  # noqa: E402
from matches.viewer import Viewer, headless_chromium  # noqa: E402
from matches.views import Library  # noqa: E402

OUT = ROOT / "docs" / "img"
STUDY = ROOT / "benchmarks" / "results" / "playout_policies"
MATCHES = [
    ("tictactoe", ["uct:simulations=200", "random"]),
    ("breakthroughsmall", ["uct:simulations=100", "mast:simulations=100"]),
    ("connectfour", ["random", "uct:simulations=200"]),
    ("phantomttt", ["random", "random"]),
    ("leduc", ["random", "random"]),
]


def play_into(db) -> dict:
    """Plays the matches into ``db``; their ids by game."""
    ids = {}
    with MatchStore(db) as store:
        for seed, (name, specs) in enumerate(MATCHES, 1):
            game = load_game(name)
            roles = [r for r in game.roles if r != "random"]
            record = run_match(
                game,
                {
                    r: players.make(s, seed=seed * 10 + i)
                    for i, (r, s) in enumerate(zip(roles, specs))
                },
                seed=seed,
                start_clock=1,
                play_clock=1,
                specs=dict(zip(roles, specs)),
            )
            store.add(record)
            ids[name] = record.match_id
    return ids


def shoot(browser, url, path, settle=1.0, script=None):
    browser.get(url)
    time.sleep(settle)
    if script:
        browser.execute_script(script)
        time.sleep(0.3)
    browser.save_screenshot(str(path))
    print(path.relative_to(ROOT))


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "matches.sqlite"
        ids = play_into(db)
        viewer = Viewer(Library(db=db), study=STUDY).start()
        browser = headless_chromium((1100, 700))
        try:
            shoot(browser, viewer.url + "#/", OUT / "viewer-list.png")
            shoot(
                browser,
                f"{viewer.url}#/match/{ids['breakthroughsmall']}?ply=9",
                OUT / "viewer-board.png",
            )
            as_role = (
                "const s = document.getElementById('view-as'); s.value = 'oplayer';"
                "s.dispatchEvent(new Event('change'));"
                "for (let i = 0; i < 4; i++) document.getElementById('forward').click();"
            )
            shoot(
                browser,
                f"{viewer.url}#/match/{ids['phantomttt']}",
                OUT / "viewer-role.png",
                script=as_role,
            )
            browser.set_window_size(1100, 1300)
            shoot(browser, viewer.url + "#/study", OUT / "viewer-study.png", settle=2.0)
        finally:
            browser.quit()
            viewer.stop()


if __name__ == "__main__":
    main()
