"""The browser viewer end to end, in headless Chromium (Debian's chromium and
chromium-driver, driven by selenium; .ci/run installs them).  Skipped, with
the reason, where they are missing."""

import json
import shutil
import threading
import time

import pytest
from test_views import ggp_base_shape, play

from ggp import load_game
from matches.records import MatchStore, to_ggp_json, write_json
from matches.viewer import Viewer, headless_chromium
from matches.views import Library, Live, LiveMatch

selenium = pytest.importorskip(
    "selenium", reason="selenium is not installed (pip install -e '.[test]')"
)
By = pytest.importorskip("selenium.webdriver.common.by").By
Keys = pytest.importorskip("selenium.webdriver.common.keys").Keys
WebDriverWait = pytest.importorskip("selenium.webdriver.support.ui").WebDriverWait
pytestmark = pytest.mark.skipif(
    not (
        (shutil.which("chromium") or shutil.which("chromium-browser"))
        and shutil.which("chromedriver")
    ),
    reason="no Chromium here: apt-get install chromium chromium-driver (as .ci/run does)",
)


@pytest.fixture(scope="module")
def browser():
    driver = headless_chromium()
    yield driver
    driver.quit()


def wait_for(browser, condition, seconds=10):
    from selenium.common.exceptions import StaleElementReferenceException

    return WebDriverWait(
        browser, seconds, ignored_exceptions=(StaleElementReferenceException,)
    ).until(lambda b: condition(b))


def text_of(browser, selector):
    """The text of the first element ``selector`` finds, or None (also while the page
    is being redrawn)."""
    from selenium.common.exceptions import StaleElementReferenceException

    try:
        found = browser.find_elements(By.CSS_SELECTOR, selector)
        return found[0].text if found else None
    except StaleElementReferenceException:
        return None


@pytest.fixture(scope="module")
def records():
    """tictactoe with a winner, phantom tic-tac-toe (GDL-II), kuhn, and a match with a fault."""
    tictactoe = next(
        r
        for r in (to_ggp_json(play("tictactoe", seed)) for seed in range(1, 20))
        if len(set(r["goalValues"])) > 1
    )
    faulty = json.loads(json.dumps(tictactoe))
    faulty["matchId"] = "faulty-one"
    faulty["errors"][3][0] = "TO"
    faulty["faults"] = [
        {
            "phase": "play",
            "step": 3,
            "role": "xplayer",
            "code": "TO",
            "reason": "no answer within the play clock",
        }
    ]
    return {
        "tictactoe": tictactoe,
        "phantomttt": to_ggp_json(play("phantomttt")),
        "kuhn": to_ggp_json(play("kuhn")),
        "faulty": faulty,
    }


@pytest.fixture(scope="module")
def viewer(records, tmp_path_factory):
    folder = tmp_path_factory.mktemp("viewer")
    db = folder / "matches.sqlite"
    with MatchStore(db) as store:
        for data in records.values():
            store.add(data)
    broken = folder / "broken.json"
    broken.write_text('{"states": ["( )"], "moves": ')
    other = folder / "from-ggp-base.json"
    write_json(ggp_base_shape(records["tictactoe"]), other)
    served = Viewer(Library(db=db, files=[broken, other])).start()
    yield served
    served.stop()


def open_match(browser, viewer, match_id):
    """Opens a match at its first step (also when the page shows it already)."""
    browser.get(f"{viewer.url}#/match/{match_id}")
    wait_for(
        browser,
        lambda b: (
            b.find_elements(By.CSS_SELECTOR, f'#match[data-requested="{match_id}"] #step-label')
            and (text_of(b, "#step-label") or "").startswith("step 0 /")
        ),
    )


def test_the_list_loads_from_sqlite_and_filters(browser, viewer, records):
    browser.get(viewer.url + "#/")
    wait_for(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#list tr.match"))
    rows = browser.find_elements(By.CSS_SELECTOR, "#list tr.match")
    assert len(rows) == 6  # the broken file, the ggp-base file, the four stored
    assert "4 steps" not in rows[0].text
    search = browser.find_element(By.ID, "search")
    search.send_keys("phantom")
    visible = [r for r in rows if r.is_displayed()]
    assert [r.get_attribute("data-id") for r in visible] == [records["phantomttt"]["matchId"]]
    search.clear()
    search.send_keys(" ")  # an input event with nothing to look for
    browser.find_element(By.ID, "faults-only").click()
    visible = [r.get_attribute("data-id") for r in rows if r.is_displayed()]
    assert visible == ["file:0", "faulty-one"]  # the damaged file and the faulty match
    assert "0 steps" not in browser.find_element(By.ID, "count").text


def test_a_damaged_record_is_one_message(browser, viewer):
    browser.get(viewer.url + "#/")
    assert "broken.json: not JSON" in wait_for(browser, lambda b: text_of(b, "tr.damaged .problem"))
    assert len(browser.find_elements(By.CSS_SELECTOR, "tr.damaged")) == 1
    browser.get(f"{viewer.url}#/match/file:0")
    wait_for(browser, lambda b: text_of(b, ".problem"))
    assert "not JSON" in text_of(browser, ".problem")
    assert len(browser.find_elements(By.CSS_SELECTOR, ".problem")) == 1
    browser.find_element(By.LINK_TEXT, "back to the list").click()
    wait_for(browser, lambda b: len(b.find_elements(By.CSS_SELECTOR, "#list tr.match")) == 6)


def test_tictactoe_steps_to_its_end_with_winner_and_board(browser, viewer, records):
    data = records["tictactoe"]
    steps = len(data["moves"])
    open_match(browser, viewer, data["matchId"])
    assert text_of(browser, "#step-label") == f"step 0 / {steps}"
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    assert text_of(browser, "#step-label") == f"step 1 / {steps}"
    assert "xplayer" in text_of(browser, "#moves")
    browser.find_element(By.ID, "back").click()
    assert text_of(browser, "#step-label") == f"step 0 / {steps}"
    body.send_keys(Keys.END)
    assert text_of(browser, "#step-label") == f"step {steps} / {steps}"
    goals = dict(zip(data["roles"], data["goalValues"]))
    winner = max(goals, key=goals.get)
    assert text_of(browser, "#result") == f"winner: {winner}"
    final = data["states"][-1]
    for cell in browser.find_elements(By.CSS_SELECTOR, "#board td"):
        col, row = cell.get_attribute("data-col"), cell.get_attribute("data-row")
        mark = next(
            f.split()[2] for f in final.split("( square ")[1:] if f.startswith(f"{col} {row} ")
        )
        assert cell.text == ("" if mark == "e" else mark), (col, row)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board td")) == 9


def test_a_fault_is_shown_at_its_step_with_its_reason(browser, viewer):
    open_match(browser, viewer, "faulty-one")
    for _ in range(3):
        browser.find_element(By.ID, "forward").click()
    assert "TO" in text_of(browser, "#moves")
    assert text_of(browser, "#faults") == "xplayer: TO at step 3 (no answer within the play clock)"


def test_a_gdl2_match_shows_a_roles_view_without_the_others_percepts(browser, viewer, records):
    data = records["phantomttt"]
    open_match(browser, viewer, data["matchId"])
    browser.find_element(By.ID, "forward").click()
    roles = lambda selector: [
        li.get_attribute("data-role")
        for li in browser.find_elements(By.CSS_SELECTOR, f"{selector} li")  # noqa: E731
    ]
    assert roles("#percepts") == ["xplayer", "oplayer"]  # omniscient: both
    assert browser.find_elements(By.ID, "board")
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element(By.ID, "view-as")).select_by_value("oplayer")
    assert roles("#percepts") == ["oplayer"] and roles("#moves") == ["oplayer"]
    assert roles("#legal") == ["oplayer"]
    assert not browser.find_elements(By.ID, "board") and not browser.find_elements(By.ID, "facts")
    assert "does not see the state" in text_of(browser, "#hidden-state")
    assert text_of(browser, "#percepts") == "oplayer yourturn"
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    assert roles("#percepts") == ["oplayer"]  # the choice stays while stepping


def test_a_record_from_another_manager_is_shown(browser, viewer, records):
    open_match(browser, viewer, "file:1")
    assert text_of(browser, "h1") == "ticTacToe"
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    assert text_of(browser, "#result").startswith("winner: ")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board td.piece")) == records["tictactoe"][
        "states"
    ][-1].count(" x )") + records["tictactoe"]["states"][-1].count(" o )")


def test_a_live_match_updates_without_a_reload(browser):
    live = Live("match")
    served = Viewer(live=live).start()
    game = load_game("tictactoe")
    watcher = LiveMatch(live, game)
    go = threading.Event()
    try:
        browser.get(served.url + "#/live")
        wait_for(browser, lambda b: text_of(b, "#waiting"))
        browser.execute_script("window.notReloaded = true;")

        def paced(record, sm, state):
            go.wait(10)
            watcher.on_step(record, sm, state)
            time.sleep(0.4)

        def run():
            watcher.finish(play("tictactoe", seed=3, on_step=paced))

        match = threading.Thread(target=run)
        match.start()
        go.set()
        labels = set()
        wait_for(
            browser, lambda b: labels.add(text_of(b, "#step-label")) or text_of(b, "#result"), 30
        )
        match.join(10)
        last = len(live.document["steps"]) - 1
        assert f"step {last} / {last}" in labels
        assert len([x for x in labels if x]) >= 3  # seen step by step, not at the end only
        assert browser.execute_script("return window.notReloaded === true;")
        assert browser.find_elements(By.CSS_SELECTOR, "#board td")
    finally:
        served.stop()


def test_a_study_page_shows_scores_ranking_and_plots(browser, tmp_path):
    lines = [
        {
            "key": f"tictactoe|uct|random|{i}",
            "game": "tictactoe",
            "pair": ["uct", "random"],
            "roles": {"uct": "xplayer", "random": "oplayer"},
            "goals": {"uct": 100, "random": 0} if i else {"uct": 50, "random": 50},
            "steps": 7,
            "faults": 0,
        }
        for i in range(5)
    ]
    (tmp_path / "matches.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.figure(figsize=(2, 2))
    plt.savefig(tmp_path / "summary.png")
    plt.close()
    served = Viewer(study=tmp_path).start()
    try:
        browser.get(served.url + "#/study")
        wait_for(browser, lambda b: text_of(b, "#scores"))
        assert (
            text_of(browser, "#scores tbody") == "tictactoe uct random 5 4 1 0 90.0 (46.3 .. 98.9)"
        )
        assert text_of(browser, "#ranking tbody").startswith("1 uct")
        img = browser.find_element(By.CSS_SELECTOR, "figure img")
        wait_for(browser, lambda b: b.execute_script("return arguments[0].naturalWidth", img) > 0)
    finally:
        served.stop()


# --- the move list, the last move, a link per step, glyphs -------------------------------


def plies(browser):
    """The move list's rows: (step, text) each, and the step marked current."""
    rows = browser.find_elements(By.CSS_SELECTOR, "#movelist tbody tr.ply")
    current = [r.get_attribute("data-ply") for r in rows if "current" in r.get_attribute("class")]
    return [(int(r.get_attribute("data-ply")), r.text) for r in rows], current


def test_the_move_list_marks_the_step_and_goes_to_a_clicked_row(browser, viewer, records):
    data = records["tictactoe"]
    steps = len(data["moves"])
    open_match(browser, viewer, data["matchId"])
    rows, current = plies(browser)
    assert [k for k, _ in rows] == list(range(steps + 1)) and current == ["0"]
    assert rows[0][1] == "0 start"
    headers = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#movelist thead th")]
    assert headers == ["step", "xplayer", "oplayer"]
    for (k, text), joint in zip(rows[1:], data["moves"]):
        shown = [m.replace("( ", "(").replace(" )", ")") for m in joint]
        assert text == f"{k} {shown[0]} {shown[1]}"
    browser.find_element(By.CSS_SELECTOR, '#movelist tr[data-ply="3"]').click()
    assert text_of(browser, "#step-label") == f"step 3 / {steps}"
    assert plies(browser)[1] == ["3"]
    assert browser.execute_script("return location.hash").endswith("?ply=3")
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    assert plies(browser)[1] == ["4"]
    assert browser.execute_script("return location.hash").endswith("?ply=4")


def test_the_last_move_is_highlighted(browser, viewer, records):
    data = records["tictactoe"]
    open_match(browser, viewer, data["matchId"])
    assert not browser.find_elements(By.CSS_SELECTOR, "#board td.changed")  # the start
    for k in (1, 2):
        browser.find_element(By.ID, "forward").click()
        (move,) = [m for m in data["moves"][k - 1] if "noop" not in m]
        _, x, y = move.strip("( )").split()
        changed = browser.find_elements(By.CSS_SELECTOR, "#board td.changed")
        assert [(c.get_attribute("data-col"), c.get_attribute("data-row")) for c in changed] == [
            (x, y)
        ], k
        assert changed[0].text == ("x" if k == 1 else "o")


def test_a_link_with_a_step_opens_that_step(browser, viewer, records):
    data = records["tictactoe"]
    steps = len(data["moves"])
    browser.get(f"{viewer.url}#/match/{data['matchId']}?ply=4")
    wait_for(browser, lambda b: text_of(b, "#step-label") == f"step 4 / {steps}")
    assert plies(browser)[1] == ["4"]
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board td.changed")) == 1
    link = browser.find_element(By.ID, "ply-link").get_attribute("href")
    assert link.endswith(f"#/match/{data['matchId']}?ply=4")
    browser.execute_script("window.notReloaded = true;")
    browser.execute_script("location.hash = arguments[0]", f"#/match/{data['matchId']}?ply=2")
    wait_for(browser, lambda b: text_of(b, "#step-label") == f"step 2 / {steps}")
    assert browser.execute_script("return window.notReloaded === true;")
    browser.get(f"{viewer.url}#/match/{data['matchId']}?ply=99")  # past the end: the last step
    wait_for(browser, lambda b: text_of(b, "#step-label") == f"step {steps} / {steps}")


def test_a_text_games_facts_are_one_a_line(browser, viewer, records):
    data = records["kuhn"]
    open_match(browser, viewer, data["matchId"])
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    facts = browser.find_elements(By.CSS_SELECTOR, "#facts li")
    assert len(facts) >= 2
    tops = [f.location["y"] for f in facts]
    lefts = {f.location["x"] for f in facts}
    assert tops == sorted(set(tops)) and len(lefts) == 1  # one under the other
    assert text_of(browser, "#facts").splitlines() == [f.text for f in facts]


PAWNPUSH = """\
; A chess-like toy for the viewer's tests: chess's pieces on a 5x6 board,
; each side pushes one pawn a square in turn, twice, and the game ends.
(role white) (role black)
(init (cell a 1 wr)) (init (cell b 1 wn)) (init (cell c 1 wb)) (init (cell d 1 wq)) (init (cell e 1 wk))
(init (cell a 6 br)) (init (cell b 6 bn)) (init (cell c 6 bb)) (init (cell d 6 bq)) (init (cell e 6 bk))
(<= (init (cell ?x 2 wp)) (file ?x))
(<= (init (cell ?x 5 bp)) (file ?x))
(<= (init (cell ?x 3 b)) (file ?x))
(<= (init (cell ?x 4 b)) (file ?x))
(init (control white))
(init (step 0))
(file a) (file b) (file c) (file d) (file e)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
(<= (legal white (push ?x)) (true (control white)) (true (cell ?x 2 wp)) (true (cell ?x 3 b)))
(<= (legal black (push ?x)) (true (control black)) (true (cell ?x 5 bp)) (true (cell ?x 4 b)))
(<= (legal white noop) (true (control black)))
(<= (legal black noop) (true (control white)))
(<= (next (cell ?x 3 wp)) (does white (push ?x)))
(<= (next (cell ?x 2 b)) (does white (push ?x)))
(<= (next (cell ?x 4 bp)) (does black (push ?x)))
(<= (next (cell ?x 5 b)) (does black (push ?x)))
(<= (next (cell ?x ?y ?p)) (true (cell ?x ?y ?p)) (not (pushed ?x ?y)))
(<= (pushed ?x 2) (does white (push ?x)))
(<= (pushed ?x 3) (does white (push ?x)))
(<= (pushed ?x 4) (does black (push ?x)))
(<= (pushed ?x 5) (does black (push ?x)))
(<= (next (control black)) (true (control white)))
(<= (next (control white)) (true (control black)))
(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
(<= terminal (true (step 4)))
(<= (goal ?r 50) (role ?r))
"""


@pytest.fixture(scope="module")
def chesslike(tmp_path_factory):
    """A match of a chess-like toy (chess's piece names on a 5x6 board), served."""
    folder = tmp_path_factory.mktemp("chesslike")
    (folder / "pawnpush.kif").write_text(PAWNPUSH)
    record = to_ggp_json(play(str(folder / "pawnpush.kif")))
    write_json(record, folder / "pawnpush.json")
    served = Viewer(Library(files=[folder / "pawnpush.json"])).start()
    yield served, record
    served.stop()


def test_a_chess_like_board_is_drawn_with_chess_glyphs(browser, chesslike):
    served, record = chesslike
    browser.get(f"{served.url}#/match/file:0?ply=0")
    wait_for(browser, lambda b: text_of(b, "#step-label"))
    assert text_of(browser, "h1") == "pawnpush"
    row = lambda n: [  # noqa: E731
        td.text for td in browser.find_elements(By.CSS_SELECTOR, f'#board td[data-row="{n}"]')
    ]
    assert row(1) == list("♖♘♗♕♔") and row(2) == list("♙♙♙♙♙")
    assert row(6) == list("♜♞♝♛♚") and row(5) == list("♟♟♟♟♟")
    assert row(3) == [""] * 5
    king = browser.find_element(By.CSS_SELECTOR, '#board td[data-col="e"][data-row="1"]')
    assert king.get_attribute("title") == "wk" and "glyph" in king.get_attribute("class")
    browser.find_element(By.ID, "forward").click()
    (push,) = [m for m in record["moves"][0] if "push" in m]
    column = push.strip("( )").split()[1]
    changed = browser.find_elements(By.CSS_SELECTOR, "#board td.changed")
    assert [
        (c.get_attribute("data-col"), c.get_attribute("data-row"), c.text) for c in changed
    ] == [
        (column, "3", "♙"),
        (column, "2", ""),
    ]
