"""Ingenious on the page as players use it, in Debian's headless Chromium against the real Streamlit server: a game
of two moves, each from an uploaded before/after photo pair (seeded renders of one game from its start, one
camera), the move's points and every player's colour bars seen, each move recorded in the ledger."""

from __future__ import annotations

import cv2

from tests.browser_helpers import BROWSER_MARKS, body_text, chrome, wait_for_text, wait_quiet
from tests.server_helpers import streamlit_server

pytestmark = BROWSER_MARKS


def _choose_upload(driver, group_label: str) -> None:
    """Pick "Upload" in the photo-source radio whose label starts with ``group_label``."""
    import time

    from selenium.webdriver.common.by import By

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for radio in driver.find_elements(By.CSS_SELECTOR, "[data-testid=stRadio]"):
            try:
                if not radio.text.startswith(group_label):
                    continue
                for label in radio.find_elements(By.TAG_NAME, "label"):
                    if label.text.strip() == "Upload":
                        label.click()
                        return
            except Exception:  # stale while Streamlit re-renders: look again
                pass
        time.sleep(0.3)
    raise AssertionError(f"no photo source radio {group_label!r}")


def _upload(driver, paths) -> None:
    """Put one file into each of the page's file inputs, in order (before, after)."""
    import time

    from selenium.webdriver.common.by import By

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        inputs = driver.find_elements(By.CSS_SELECTOR, "input[type=file]")
        if len(inputs) >= len(paths):
            break
        time.sleep(0.3)
    for k, path in enumerate(paths):
        driver.find_elements(By.CSS_SELECTOR, "input[type=file]")[k].send_keys(str(path))
        wait_quiet(driver)


def _click_button(driver, text: str) -> None:
    import time

    from selenium.webdriver.common.by import By

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for b in driver.find_elements(By.TAG_NAME, "button"):
            try:
                if b.text.strip() == text and b.is_displayed() and b.is_enabled():
                    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", b)
                    b.click()
                    return
            except Exception:
                pass
        time.sleep(0.3)
    raise AssertionError(f"no enabled button {text!r}")


def _set_number(driver, label: str, value: int) -> None:
    """Type a value into the number input with this label (select all, type, Enter)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    box = driver.find_element(By.CSS_SELECTOR, f"input[aria-label='{label}']")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(str(value), Keys.ENTER)


def _points_text(move: dict) -> str:
    return ", ".join(f"{c} +{v}" for c, v in move["move_points"].items())


def _score_bars(driver) -> list[dict[str, dict[str, int]]]:
    """The colour-score bars drawn on the page: every data grid with a player column, read from the grid's
    accessible table (the bars themselves are drawn on a canvas), as player -> colour -> score."""
    grids = driver.execute_script("""
        return Array.from(document.querySelectorAll('[data-testid=stDataFrame] table[role=grid]')).map(t => ({
            head: Array.from(t.querySelectorAll('th')).map(h => h.textContent.trim()),
            rows: Array.from(t.querySelectorAll('tbody tr')).map(r =>
                Array.from(r.querySelectorAll('td')).map(d => d.textContent.trim()))}));""")
    out = []
    for grid in grids:
        head = grid["head"]
        if not head or head[0] != "player":
            continue
        out.append({row[0]: {c: int(v) for c, v in zip(head[1:], row[1:], strict=False) if v.isdigit()}
                    for row in grid["rows"] if row})
    return out


def test_a_game_of_two_moves_from_uploaded_photo_pairs(tmp_path):
    from ledger import Ledger
    from ledger.ingenious import load_game
    from synth.ingenious import render_game

    g = render_game(3, players=("Aki", "Ben"), moves=2)
    assert all(m["move_points"] for m in g.moves), "the renderer places tiles where they score"
    paths = []
    for k, rgb in enumerate(g.photos):
        path = tmp_path / f"move_{k}.jpg"
        cv2.imwrite(str(path), cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 92])
        paths.append(path)
    ledger_path = tmp_path / "ingenious.sqlite"
    with streamlit_server(ledger_path) as url:
        driver = chrome(tmp_path / "profile", (1400, 1600))
        try:
            driver.get(f"{url}/?game=ingenious&layout=wide")
            wait_for_text(driver, ("Before the move from",))
            wait_quiet(driver)
            _set_number(driver, "Players (1 = solo)", len(g.players))
            wait_quiet(driver)
            wait_for_text(driver, ("Player 2 (turn order)",))
            assert "Player 3 (turn order)" not in body_text(driver)
            _choose_upload(driver, "Before the move from")
            wait_quiet(driver)
            _choose_upload(driver, "After the move from")
            wait_quiet(driver)
            # move 1: the empty board, then Aki's tile
            _upload(driver, paths[0:2])
            wait_for_text(driver, ("Placed ",))
            _click_button(driver, "Start a game with these players")
            wait_for_text(driver, ("Aki to place (first round)",))
            wait_quiet(driver)
            text = body_text(driver)
            assert "Placed " in text and _points_text(g.moves[0]) in text, text[-1500:]
            _click_button(driver, "Record this move")
            wait_for_text(driver, ("Ben to place",))
            wait_quiet(driver)
            # move 2: the same camera, Ben's tile
            _upload(driver, paths[1:3])
            wait_for_text(driver, ("Placed ",))
            wait_quiet(driver)
            text = body_text(driver)
            assert _points_text(g.moves[1]) in text, text[-1500:]
            _click_button(driver, "Record this move")
            wait_for_text(driver, ("Turn 3: Aki to place",))
            wait_quiet(driver)
            bars = _score_bars(driver)
            # the game's bars: every player's six colours as the ledger now holds them
            assert any(set(b) == set(g.players) and all(b[p] == g.scores[p] for p in g.players) for b in bars), bars
        finally:
            driver.quit()
    led = Ledger(ledger_path)
    sid = led.sessions(game="ingenious")[0].id
    assert load_game(led, sid).player_scores() == g.scores
    assert len(led.rounds(sid)) == 2
