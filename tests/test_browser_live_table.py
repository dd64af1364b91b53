"""Live mode of a CMYK! table in a real browser, as players use it: Debian's headless Chromium plays a rendered clip
(Aki's mosaic still, a hand swaps it for Ben's, Ben's still; flicker, sensor noise) as its fake camera over a real
WebRTC connection to the real Streamlit server. The page says whose mosaic to show next, keeps Aki's when it has
settled, and settles the table's ranking once Ben's has: one judgement of both mosaics, recorded once."""

from __future__ import annotations

import cv2

from judge.pipeline import judge_images
from judge.registry import game as get_game
from synth.clip import clip_scene, expand, key_frames, write_y4m
from tests.browser_helpers import (
    BROWSER_MARKS,
    FAKE_CAMERA_CLIP,
    FAKE_CAMERA_LAST_STILL_FRAMES,
    FAKE_CAMERA_SIZE_PX,
    body_text,
    chrome,
    click_xpath,
    fake_camera,
    press_webrtc,
    type_into,
    wait_until,
)
from tests.server_helpers import streamlit_server

pytestmark = BROWSER_MARKS

SIZE_PX, CONFIG, LAST_STILL_FRAMES = FAKE_CAMERA_SIZE_PX, FAKE_CAMERA_CLIP, FAKE_CAMERA_LAST_STILL_FRAMES


def _pieces(result: dict) -> dict:
    """Per player: tiles and hexagons read (what the cards do not change)."""
    return {p: (v["tiles"], v["hexagons"], v["k_tiles"]) for p, v in result["players"].items()}


def test_a_cmyk_table_shown_mosaic_by_mosaic_settles_its_ranking_once(tmp_path):
    scene = clip_scene("cmyk", 1, players=2)  # Aki's and Ben's mosaics
    keys = key_frames(scene, "place", CONFIG)
    photos = [(cv2.resize(keys[k][0], SIZE_PX, interpolation=cv2.INTER_AREA), name) for k, name in ((0, "aki"),
                                                                                                      (-1, "ben"))]
    expected = judge_images(get_game("cmyk"), photos, scene.context).result
    keys[-1] = (keys[-1][0], LAST_STILL_FRAMES)
    frames = [cv2.resize(f, SIZE_PX, interpolation=cv2.INTER_AREA) for f in expand(keys, CONFIG, seed=5)]
    video = write_y4m(frames, tmp_path / "clip.y4m", fps=int(CONFIG.fps))
    del frames
    ledger_path = tmp_path / "live.sqlite"
    with streamlit_server(ledger_path) as url:
        driver = chrome(tmp_path / "profile", size=(1400, 1800), extra=fake_camera(video))
        try:
            driver.get(url + "/?game=cmyk")
            wait_until(driver, lambda d: "Table Judge" in body_text(d) and "Mode" in body_text(d), 90.0)
            click_xpath(driver, "//label[contains(., 'Live video')]")
            wait_until(driver, lambda d: "Press START" in body_text(d), 90.0)
            type_into(driver, "Number of players", "2")
            wait_until(driver, lambda d: "Player 2 (clockwise)" in body_text(d))
            type_into(driver, "Player 1 (clockwise)", "Aki")
            type_into(driver, "Player 2 (clockwise)", "Ben")
            wait_until(driver, lambda d: "Now show Aki's mosaic" in body_text(d) and "Ben's mosaic" in body_text(d))
            press_webrtc(driver, "START")
            wait_until(driver, lambda d: "Read: Aki's mosaic ✓ · Now show Ben's mosaic" in body_text(d), 300.0, 1.0)
            wait_until(driver, lambda d: "Settled:" in body_text(d) and "Ranking:" in body_text(d), 300.0, 1.0)
            press_webrtc(driver, "STOP", 30.0)
            text = body_text(driver)
        finally:
            driver.quit()
    from ledger import Ledger

    recorded = [r for r in Ledger(ledger_path).judgements(game="cmyk") if r.source.startswith("live camera")]
    assert len(recorded) == 1  # the table, once (Aki's mosaic alone is no judgement)
    result = recorded[0].result
    assert [m["player"] for m in recorded[0].state["mosaics"]] == ["Aki", "Ben"]
    assert _pieces(result) == _pieces(expected)  # the mosaics of the still photos
    # the guide starts the next table: its first mosaic, or - Chrome's fake camera loops the clip - that mosaic read
    # again already, for the next table, before STOP was pressed
    next_table = "Now show Aki's mosaic" in text or "Read: Aki's mosaic ✓ · Now show Ben's mosaic" in text
    assert "Ranking: " + " > ".join(result["ranking"]) in text
    assert next_table, text
