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
    browser.get(f"{viewer.url}#/match/{match_id}")
    wait_for(
        browser,
        lambda b: b.find_elements(
            By.CSS_SELECTOR, f'#match[data-requested="{match_id}"] #step-label'
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
