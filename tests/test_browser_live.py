"""Live mode in a real browser: Debian's headless Chromium plays a rendered clip (a hand places Kaleido tiles and
leaves; flicker, sensor noise) as its fake camera, streams it over a real WebRTC connection (streamlit-webrtc,
aiortc) to the real Streamlit server, and the page shows the settled verdict, recorded once in the ledger."""

from __future__ import annotations

import time

import cv2

from synth.clip import ClipConfig, clip_scene, expand, key_frames, write_y4m
from tests.browser_helpers import (
    BROWSER_MARKS,
    body_text,
    chrome,
    click_xpath,
    fake_camera,
    press_webrtc,
    wait_until,
)
from tests.server_helpers import streamlit_server

pytestmark = BROWSER_MARKS


def test_live_camera_settles_in_a_real_browser(tmp_path):
    config = ClipConfig(fps=5.0, still_frames=60)  # 5 frames a second: see browser_helpers.FAKE_CAMERA_CLIP
    scene = clip_scene("kaleido", 1)
    frames = [cv2.resize(f, (960, 720), interpolation=cv2.INTER_AREA)
              for f in expand(key_frames(scene, "place", config), config, seed=5)]
    video = write_y4m(frames, tmp_path / "clip.y4m", fps=int(config.fps))
    ledger_path = tmp_path / "live.sqlite"
    with streamlit_server(ledger_path) as url:
        driver = chrome(tmp_path / "profile", size=(1400, 1800), extra=fake_camera(video))
        try:
            driver.get(url)
            wait_until(driver, lambda d: "Table Judge" in body_text(d))
            # the game: Kaleido (sidebar select box), with the clip's players
            click_xpath(driver, "//section[@data-testid='stSidebar']//div[@data-testid='stSelectbox']")
            click_xpath(driver, "//li[contains(., 'Kaleido')] | //div[@role='option'][contains(., 'Kaleido')]")
            wait_until(driver, lambda d: "Kaleido" in body_text(d) and "Mode" in body_text(d))
            click_xpath(driver, "//label[contains(., 'Live video')]")
            wait_until(driver, lambda d: "Press START" in body_text(d), 90.0)
            press_webrtc(driver, "START")
            # (a first vote may be contested while the stream's quality ramps up; the still table is read again)
            wait_until(driver, lambda d: "Settled:" in body_text(d) and "complete hexagon" in body_text(d), 240.0, 1.0)
            time.sleep(6.0)  # the clip loops: the hand comes back and leaves; the same verdict is not recorded again
        finally:
            driver.quit()
    from ledger import Ledger

    recorded = [r for r in Ledger(ledger_path).judgements() if r.source.startswith("live camera")]
    assert len(recorded) == 1
