"""Live mode in a real browser: Debian's headless Chromium plays a rendered clip (a hand places Kaleido tiles and
leaves; flicker, sensor noise) as its fake camera, streams it over a real WebRTC connection (streamlit-webrtc,
aiortc) to the real Streamlit server, and the page shows the settled verdict, recorded once in the ledger."""

from __future__ import annotations

import shutil
import time

import cv2
import pytest

from synth.clip import ClipConfig, clip_scene, expand, key_frames, write_y4m
from tests.server_helpers import streamlit_server

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="Debian chromium + chromium-driver not installed"),
]


def _body(driver) -> str:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.TAG_NAME, "body").text


def _wait(driver, what, timeout_s: float = 60.0, step_s: float = 0.5):
    """Poll ``what(driver)`` until it returns something truthy (stale elements while Streamlit re-renders)."""
    deadline = time.monotonic() + timeout_s
    last = None
    while time.monotonic() < deadline:
        try:
            got = what(driver)
            if got:
                return got
        except Exception as exc:  # stale element, not there yet
            last = exc
        time.sleep(step_s)
    raise AssertionError(f"timed out ({last!r}); page text ends: {_body(driver)[-1500:]}")


def _click(driver, xpath: str, timeout_s: float = 60.0) -> None:
    from selenium.webdriver.common.by import By

    def go(d):
        for el in d.find_elements(By.XPATH, xpath):
            if el.is_displayed():
                el.click()
                return True
        return False

    _wait(driver, go, timeout_s)


def _start_webrtc(driver) -> None:
    """Press START inside streamlit-webrtc's component frame."""
    from selenium.webdriver.common.by import By

    def go(d):
        for frame in d.find_elements(By.TAG_NAME, "iframe"):
            d.switch_to.frame(frame)
            try:
                for b in d.find_elements(By.TAG_NAME, "button"):
                    if b.text.strip().upper() == "START" and b.is_displayed():
                        b.click()
                        return True
            finally:
                d.switch_to.default_content()
        return False

    _wait(driver, go, 90.0, 1.0)


def test_live_camera_settles_in_a_real_browser(tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    config = ClipConfig(still_frames=60)
    scene = clip_scene("kaleido", 1)
    frames = [cv2.resize(f, (960, 720), interpolation=cv2.INTER_AREA)
              for f in expand(key_frames(scene, "place", config), config, seed=5)]
    video = write_y4m(frames, tmp_path / "clip.y4m", fps=int(config.fps))
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-quic", "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                f"--use-file-for-fake-video-capture={video}", f"--user-data-dir={tmp_path / 'profile'}",
                "--disable-features=WebRtcHideLocalIpsWithMdns", "--window-size=1400,1800"):
        opts.add_argument(arg)
    ledger_path = tmp_path / "live.sqlite"
    with streamlit_server(ledger_path) as url:
        driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
        try:
            driver.get(url)
            _wait(driver, lambda d: "Table Judge" in _body(d))
            # the game: Kaleido (sidebar select box), with the clip's players
            _click(driver, "//section[@data-testid='stSidebar']//div[@data-testid='stSelectbox']")
            _click(driver, "//li[contains(., 'Kaleido')] | //div[@role='option'][contains(., 'Kaleido')]")
            _wait(driver, lambda d: "Kaleido" in _body(d) and "Mode" in _body(d))
            _click(driver, "//label[contains(., 'Live video')]")
            _wait(driver, lambda d: "Press START" in _body(d), 90.0)
            _start_webrtc(driver)
            # (a first vote may be contested while the stream's quality ramps up; the still table is read again)
            _wait(driver, lambda d: "Settled:" in _body(d) and "complete hexagon" in _body(d), 240.0, 1.0)
            time.sleep(6.0)  # the clip loops: the hand comes back and leaves; the same verdict is not recorded again
        finally:
            driver.quit()
    from ledger import Ledger

    recorded = [r for r in Ledger(ledger_path).judgements() if r.source.startswith("live camera")]
    assert len(recorded) == 1
