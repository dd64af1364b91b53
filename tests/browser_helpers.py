"""Driving Debian's headless Chromium against the real Streamlit server (Selenium), desktop or phone."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from synth.clip import ClipConfig

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
#: A browser test file's ``pytestmark``: the ``browser`` marker (slow tier; under CI=true a skip is a failure, see
#: tests/conftest.py) and the skip where Chromium and its driver are not installed.
BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="Debian chromium + chromium-driver not installed"),
]
#: The rendered clips a live browser test plays as its fake camera: 960x720 at 5 frames a second, still tables 12 s.
#: The fake camera plays in real time whatever the server's speed, and a server starved of CPU (the test machine's
#: 2 shared cores at load 20) reads a frame in a second or more, so it must still see each hand position and settle
#: each still table; the last still table longest (the fake camera loops back to the clip's start after it, which
#: the tests do not wait for).
FAKE_CAMERA_SIZE_PX = (960, 720)
FAKE_CAMERA_CLIP = ClipConfig(fps=5.0, still_frames=60, hand_frames=4)
FAKE_CAMERA_LAST_STILL_FRAMES = 300
PHONE_AGENT = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
               "Chrome/130.0 Mobile Safari/537.36")


def chrome(profile: Path, size: tuple[int, int] = (1400, 1000), phone: bool = False, extra: tuple[str, ...] = ()):
    """A headless Chromium; ``phone``: a touch phone's viewport (CSS px) and user agent."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-quic", f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}", *extra):
        opts.add_argument(arg)
    if phone:
        opts.add_experimental_option("mobileEmulation", {
            "deviceMetrics": {"width": size[0], "height": size[1], "pixelRatio": 1.0, "touch": True},
            "userAgent": PHONE_AGENT})
    return webdriver.Chrome(service=Service(DRIVER), options=opts)


def set_viewport(driver, width: int, height: int, phone: bool) -> None:
    """Resize the page's viewport (CSS px) without leaving phone emulation."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1.0, "mobile": phone})


def body_text(driver) -> str:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.TAG_NAME, "body").text


def wait_for_text(driver, words: tuple[str, ...], timeout_s: float = 120.0) -> str:
    """Wait until one of the words is on the page; return it."""
    deadline = time.monotonic() + timeout_s
    body = ""
    while time.monotonic() < deadline:
        try:
            body = body_text(driver)
        except Exception:  # the page is being replaced
            body = ""
        hit = [w for w in words if w in body]
        if hit:
            return hit[0]
        time.sleep(0.5)
    raise AssertionError(f"none of {words} appeared; page text ends: {body[-800:]}")


def wait_quiet(driver, timeout_s: float = 120.0, settle_s: float = 1.5) -> None:
    """Wait until the Streamlit script has stopped running (no running indicator) for ``settle_s``."""
    deadline = time.monotonic() + timeout_s
    quiet_since = None
    while time.monotonic() < deadline:
        running = driver.execute_script(
            "return !!document.querySelector('[data-testid=stStatusWidget] [data-testid=stStatusWidgetRunningIcon]')"
            " || !!document.querySelector('[data-testid=stStatusWidgetRunningIcon]')")
        if running:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= settle_s:
            return
        time.sleep(0.3)
    raise AssertionError("the page kept running")


def horizontal_overflow_px(driver) -> int:
    """How far the page (or its scrolling main area) is wider than the viewport, px (0: no horizontal scroll)."""
    return int(driver.execute_script("""
        const vw = window.innerWidth;
        let worst = document.documentElement.scrollWidth - vw;
        for (const el of document.querySelectorAll('[data-testid=stMain], [data-testid=stAppViewContainer], section')) {
            const st = getComputedStyle(el);
            if (st.overflowX !== 'hidden' && st.overflowX !== 'clip')
                worst = Math.max(worst, el.scrollWidth - el.clientWidth);
        }
        return worst;"""))


def wait_until(driver, what, timeout_s: float = 60.0, step_s: float = 0.5):
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
    raise AssertionError(f"timed out ({last!r}); page text ends: {body_text(driver)[-1500:]}")


def click_xpath(driver, xpath: str, timeout_s: float = 60.0) -> None:
    """Click the first displayed element matching ``xpath`` once there is one."""
    from selenium.webdriver.common.by import By

    def go(d):
        for el in d.find_elements(By.XPATH, xpath):
            if el.is_displayed():
                el.click()
                return True
        return False

    wait_until(driver, go, timeout_s)


def type_into(driver, label: str, value: str, timeout_s: float = 60.0) -> None:
    """Replace the value of the Streamlit text or number input with this label and commit it (Enter)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    def go(d):
        for el in d.find_elements(By.XPATH, f"//input[@aria-label='{label}']"):
            if el.is_displayed():
                el.send_keys(Keys.CONTROL, "a")
                el.send_keys(value, Keys.ENTER)
                return True
        return False

    wait_until(driver, go, timeout_s)


def press_webrtc(driver, button: str, timeout_s: float = 90.0) -> None:
    """Press START or STOP inside streamlit-webrtc's component frame."""
    from selenium.webdriver.common.by import By

    def go(d):
        for frame in d.find_elements(By.TAG_NAME, "iframe"):
            d.switch_to.frame(frame)
            try:
                for b in d.find_elements(By.TAG_NAME, "button"):
                    if b.text.strip().upper() == button and b.is_displayed():
                        b.click()
                        return True
            finally:
                d.switch_to.default_content()
        return False

    wait_until(driver, go, timeout_s, 1.0)


def fake_camera(video: Path) -> tuple[str, ...]:
    """Chromium options that play this Y4M file as the camera, allowed without asking."""
    return ("--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-video-capture={video}", "--disable-features=WebRtcHideLocalIpsWithMdns")
