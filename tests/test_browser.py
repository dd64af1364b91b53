"""The page in a real browser: Debian's headless Chromium with a fake camera that shows a rendered Carrotain
scene (seeded synthetic photo: perspective, light, noise, JPEG), driven by Selenium against the real
Streamlit server. The user switches to the camera, takes the photo, and the verdict appears."""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.server_helpers import ROOT, streamlit_server
from tests.system_components import browser_binaries

pytestmark = pytest.mark.browser  # skipped without Chromium + driver; a failure under CI=true (tests/conftest.py)


def write_y4m(image_rgb: np.ndarray, path: Path, frames: int = 30) -> None:
    """A still picture as a Y4M video (4:2:0), the format Chromium's fake capture device plays."""
    h, w = image_rgb.shape[:2]
    yuv = cv2.cvtColor(image_rgb, cv2.COLOR_RGB2YUV_I420).tobytes()
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F30:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            f.write(b"FRAME\n" + yuv)


def _click_text(driver, tag: str, text: str, timeout_s: float = 60.0) -> None:
    from selenium.webdriver.common.by import By

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for el in driver.find_elements(By.TAG_NAME, tag):
            try:
                if text.lower() in el.text.lower() and el.is_displayed():
                    el.click()
                    return
            except Exception:  # stale element while Streamlit re-renders: look again
                pass
        time.sleep(0.3)
    raise AssertionError(f"no <{tag}> with text {text!r} on the page")


def _wait_for_text(driver, words: tuple[str, ...], timeout_s: float = 90.0) -> str:
    from selenium.webdriver.common.by import By

    deadline = time.monotonic() + timeout_s
    body = ""
    while time.monotonic() < deadline:
        body = driver.find_element(By.TAG_NAME, "body").text
        hit = [w for w in words if w in body]
        if hit:
            return hit[0]
        time.sleep(0.5)
    raise AssertionError(f"none of {words} appeared; page text ends: {body[-800:]}")


def _wait_for_video(driver, timeout_s: float = 60.0) -> None:
    """Until the camera preview plays real frames (on a loaded machine that can take seconds)."""
    script = ("const v = document.querySelector('video');"
              "return !!v && v.readyState >= 2 && v.videoWidth > 0 && v.currentTime > 0.5;")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if driver.execute_script(script):
            return
        time.sleep(0.3)
    raise AssertionError("the camera preview never played")


def _renders_japanese(driver) -> bool:
    """Two different kanji drawn on a canvas differ: a CJK font is installed (without one both are the same
    'missing glyph' box, and the game names show as boxes in screenshots)."""
    return bool(driver.execute_script(
        "function px(t) { const c = document.createElement('canvas'); c.width = 64; c.height = 64;"
        "  const g = c.getContext('2d'); g.font = '48px sans-serif'; g.fillText(t, 4, 52);"
        "  return Array.from(g.getImageData(0, 0, 64, 64).data).join(','); }"
        "return px('\u661f') !== px('\u8db3');"))  # 星 (star), 足 (foot)


def test_camera_photo_in_a_real_browser(tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver_path = browser_binaries()
    photo = sorted((ROOT / "sample_images" / "carrotain").glob("*.jpg"))[-1]
    video = tmp_path / "scene.y4m"
    write_y4m(cv2.cvtColor(cv2.imread(str(photo)), cv2.COLOR_BGR2RGB), video)
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-quic", "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                f"--use-file-for-fake-video-capture={video}", f"--user-data-dir={tmp_path / 'profile'}",
                "--window-size=1400,1800"):
        opts.add_argument(arg)
    with streamlit_server(tmp_path / "browser.sqlite") as url:
        driver = webdriver.Chrome(service=Service(driver_path), options=opts)
        try:
            driver.get(url)
            _wait_for_text(driver, ("Challenge photo from",))
            assert _renders_japanese(driver), "no CJK font: install fonts-noto-cjk (scripts/install-test-tools.sh)"
            _click_text(driver, "label", "Camera")
            _wait_for_video(driver)  # a shot taken before the fake camera delivers frames is black
            _click_text(driver, "button", "Take Photo")
            verdict = _wait_for_text(driver, ("SUCCESS", "FAILURE", "CONTESTED", "Cannot judge"))
            assert verdict != "Cannot judge", driver.find_element("tag name", "body").text[-800:]
        finally:
            driver.quit()
    from ledger import Ledger

    assert "camera" in [r.source for r in Ledger(tmp_path / "browser.sqlite").judgements()]
