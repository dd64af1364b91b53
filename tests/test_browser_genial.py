"""Genial Spezial on the page as players use it, in Debian's headless Chromium against the real Streamlit server:
the bundled before/after pair judged, the reading told (the chain, every token scored), and a tap on the new
tile's hex on the diagram corrects it: the placement is judged again at once (one hex is no placement: nothing
scored) and the ledger keeps the correction of the original judgement."""

from __future__ import annotations

import json

import cv2
import numpy as np

from geometry.hexgrid import HexBoardPose
from judge.pipeline import adjudicate, judge_images, state_from_json
from judge.registry import game as get_game
from tests.browser_helpers import BROWSER_MARKS, body_text, chrome, wait_for_text, wait_quiet
from tests.server_helpers import ROOT, streamlit_server
from ui import reading

pytestmark = BROWSER_MARKS

SAMPLES = ROOT / "sample_images" / "genial"


def _judged():
    ctx = json.loads((SAMPLES / "pair_after.json").read_text(encoding="utf-8"))["context"]
    photos = [(cv2.cvtColor(cv2.imread(str(SAMPLES / f"pair_{n}.jpg")), cv2.COLOR_BGR2RGB), f"pair_{n}.jpg")
              for n in ("before", "after")]
    j = judge_images(get_game("genial"), photos, ctx)
    return j.state.to_json(), j.result, ctx


def _tap_diagram(driver, xy_px, natural_size) -> None:
    """Tap (click) a point of the diagram (the first image component), given in the image's own pixels."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    frames = [f for f in driver.find_elements(By.TAG_NAME, "iframe") if "image_coordinates" in
              (f.get_attribute("title") or "") + (f.get_attribute("src") or "")]
    frame = frames[0]
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


def test_the_reading_is_told_and_a_tap_on_the_new_tile_corrects_the_placement(tmp_path):
    state, result, ctx = _judged()
    assert result["scored_towers"] and len(result["placed"]) == 2
    cell = result["placed"][0]["qr"]
    pose = HexBoardPose.from_json(state["after"]["pose"])
    centre_mm = pose.cell_centres_mm(np.asarray([cell], dtype=np.float64))[0]
    cv = reading.canvas("genial", state, result)
    edit = reading.kit("genial").tap(state, centre_mm, "change")
    g = get_game("genial")
    want = adjudicate(g, state_from_json(g, edit.state_json), g.parse_context(ctx))
    assert any(f["code"] == "placement_invalid" for f in want["flags"]), "the tap must undo the placement"
    tower = result["scored_towers"][0]
    told = f"Tower ({tower[0]},{tower[1]})"
    ledger_path = tmp_path / "genial.sqlite"
    with streamlit_server(ledger_path) as url:
        driver = chrome(tmp_path / "profile", (1400, 1400))
        try:
            driver.get(f"{url}/?game=genial&layout=wide")
            wait_for_text(driver, (told,), timeout_s=180)
            wait_quiet(driver)
            body = body_text(driver)
            assert "chain of" in body and "Placed" in body
            points = {s: v for s, v in result["move_points"].items() if v}
            assert all(f"+{v} {s}" in body for s, v in points.items()), body[-1500:]
            _tap_diagram(driver, cv.to_px(centre_mm)[0], cv.size_px)
            wait_for_text(driver, ("Showing the corrected judgement",), timeout_s=180)
            wait_quiet(driver)
            wait_for_text(driver, ("Not one clean placement",))
            assert "1 tap correction(s)" in body_text(driver)
        finally:
            driver.quit()
    from ledger import Ledger

    rows = Ledger(ledger_path).judgements(game="genial")
    original = [r for r in rows if r.source != "correction"]
    corrections = [r.to_json() for r in rows if r.source == "correction"]
    assert len(original) == 1 and len(corrections) == 1
    fix = corrections[0]
    assert fix["corrected_from"] == original[0].id
    tap = fix["corrections"]["taps"][0]
    assert tap["action"] == "change" and tap["piece"] == {"kind": "hex", "index": list(cell)}
    assert any(f["code"] == "placement_invalid" for f in fix["result"]["flags"])
