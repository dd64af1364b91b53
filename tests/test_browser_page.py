"""The page as players use it, in Debian's headless Chromium against the real Streamlit server:
a tap on a misread tile corrects it (score recomputed, correction recorded), and a phone shows the verdict and
the diagram first without horizontal scrolling."""

from __future__ import annotations

import json

import cv2

from judge.pipeline import adjudicate, judge_images, state_from_json
from judge.registry import game as get_game
from tests.browser_helpers import (
    BROWSER_MARKS,
    body_text,
    chrome,
    horizontal_overflow_px,
    wait_for_text,
    wait_quiet,
)
from tests.server_helpers import ROOT, streamlit_server
from ui import reading
from ui.diagram_cmyk import LatticeFrame
from ui.taps import apply_tap

pytestmark = BROWSER_MARKS


def _sample(game: str):
    path = sorted((ROOT / "sample_images" / game).glob("*.jpg"))[0]
    ctx = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))["context"]
    img = cv2.cvtColor(cv2.imread(str(path)), cv2.COLOR_BGR2RGB)
    j = judge_images(get_game(game), [(img, path.name)], ctx)
    return j.state.to_json(), j.result, ctx


def _tap_image(driver, frame_index: int, xy_px, natural_size) -> None:
    """Tap (click) a point of the ``frame_index``-th image component, given in the image's own pixels."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    frames = [f for f in driver.find_elements(By.TAG_NAME, "iframe") if "image_coordinates" in
              (f.get_attribute("title") or "") + (f.get_attribute("src") or "")]
    frame = frames[frame_index]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", frame)
    driver.switch_to.frame(frame)
    try:
        img = driver.find_element(By.ID, "image")
        w, h = img.size["width"], img.size["height"]
        dx = xy_px[0] * w / natural_size[0] - w / 2
        dy = xy_px[1] * h / natural_size[1] - h / 2
        ActionChains(driver).move_to_element_with_offset(img, int(round(dx)), int(round(dy))).click().perform()
    finally:
        driver.switch_to.default_content()


def test_a_tap_on_a_misread_tile_changes_the_score_and_records_a_correction(tmp_path):
    """CMYK!: the player taps the middle of a tile on the diagram (it is a K tile, not a normal one): the tile
    becomes K, the judgement is recomputed at once (K tiles cost points) and the ledger keeps it as a correction
    of the original judgement."""
    state, result, ctx = _sample("cmyk")
    name = state["mosaics"][0]["player"]
    tile = state["mosaics"][0]["tiles"][0]
    fr = LatticeFrame.of(state["mosaics"][0])
    centre_mm = fr.cell_mm(tile["cell"]).mean(axis=0)
    cv = reading.canvas("cmyk", state, result, 0)
    want_state = apply_tap("cmyk", state, centre_mm, "change").state_json
    g = get_game("cmyk")
    want = adjudicate(g, state_from_json(g, want_state), g.parse_context(ctx))
    assert want["players"][name]["total"] != result["players"][name]["total"]
    ledger_path = tmp_path / "tap.sqlite"
    with streamlit_server(ledger_path) as url:
        driver = chrome(tmp_path / "profile", (1400, 1400))
        try:
            driver.get(f"{url}/?game=cmyk&layout=wide")
            wait_for_text(driver, ("Ranking",))
            wait_quiet(driver)
            _tap_image(driver, 0, cv.to_px(centre_mm)[0], cv.size_px)
            wait_for_text(driver, ("Showing the corrected judgement",))
            wait_quiet(driver)
            wait_for_text(driver, (f"{name}: {want['players'][name]['tiles']} tiles, ",))
            assert f"{want['players'][name]['total']} points" in body_text(driver)
            # the same tile tapped on the straightened photo: back to a normal tile, the original total
            _tap_image(driver, 1, cv.to_px(centre_mm)[0], cv.size_px)
            wait_for_text(driver, ("2 tap correction(s)",))
            wait_quiet(driver)
            assert f"{result['players'][name]['total']} points" in body_text(driver)
        finally:
            driver.quit()
    from ledger import Ledger

    rows = Ledger(ledger_path).judgements(game="cmyk")
    original = [r for r in rows if r.source != "correction"]
    corrections = [r.to_json() for r in rows if r.source == "correction"]
    assert len(original) == 1 and len(corrections) == 2
    fix = min(corrections, key=lambda c: c["id"])
    assert fix["corrected_from"] == original[0].id
    assert fix["result"]["players"][name]["total"] == want["players"][name]["total"]
    tap = fix["corrections"]["taps"][0]
    assert tap["action"] == "change" and tap["piece"] == {"kind": "tile", "index": [0, *tile["cell"]]}
    assert tap["now"]["kind"] == "k"
    back = max(corrections, key=lambda c: c["id"])
    assert back["corrected_from"] == original[0].id and len(back["corrections"]["taps"]) == 2
    assert back["result"]["players"][name]["total"] == result["players"][name]["total"]


def test_a_phone_shows_the_verdict_and_the_diagram_first_without_horizontal_scrolling(tmp_path):
    """A 390 x 844 phone (its own user agent picks the layout): verdict and diagram on the first screens, before
    the camera input; nothing wider than the screen."""
    from selenium.webdriver.common.by import By

    with streamlit_server(tmp_path / "phone.sqlite") as url:
        driver = chrome(tmp_path / "profile", (390, 844), phone=True)
        try:
            driver.get(url)
            verdict = wait_for_text(driver, ("SUCCESS", "FAILURE", "CONTESTED"))
            wait_quiet(driver)
            assert driver.execute_script("return window.innerWidth") == 390
            assert horizontal_overflow_px(driver) <= 0
            alert = [a for a in driver.find_elements(By.CSS_SELECTOR, "[data-testid=stAlert]") if verdict in a.text][0]
            frames = [f for f in driver.find_elements(By.TAG_NAME, "iframe")
                      if "image_coordinates" in (f.get_attribute("title") or "") + (f.get_attribute("src") or "")]
            assert frames, "the tappable diagram"
            camera = [r for r in driver.find_elements(By.CSS_SELECTOR, "[data-testid=stRadio]")
                      if "Challenge photo from" in r.text][0]
            top = lambda el: driver.execute_script("return arguments[0].getBoundingClientRect().top", el)  # noqa: E731
            rect = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.right]",
                                         frames[0])
            assert top(alert) < 844, "the verdict is on the first screen"
            assert top(alert) < top(frames[0]) < top(camera), "verdict, then the diagram, then the camera"
            assert top(frames[0]) < 2 * 844, "the diagram within two screens"
            assert rect[0] >= 0 and rect[1] <= 390, rect
            img_w = driver.execute_script("return arguments[0].getBoundingClientRect().width", frames[0])
            assert img_w > 300, "the diagram fills the phone's width"
        finally:
            driver.quit()
