"""Live mode of a pair game in a real browser, as players use it: Debian's headless Chromium plays a rendered
Ingenious clip (the empty board still, a hand places the first tile and leaves, a hand places the second tile and
leaves; flicker, sensor noise) as its fake camera over a real WebRTC connection (streamlit-webrtc, aiortc) to the
real Streamlit server. The players start a game in the ledger on the page; each placement settles once, the page
lists it with its points (those of the still photos judged as a pair), and the ledger holds each move once: one
judgement per placement and one round of the game, linked."""

from __future__ import annotations

import cv2
import pytest

from judge.pipeline import judge_images
from judge.registry import game as get_game
from synth.clip import ClipConfig, clip_scene, expand, key_frames, write_y4m
from tests.browser_helpers import CHROMIUM, DRIVER, body_text, chrome
from tests.server_helpers import streamlit_server
from tests.test_browser_live import _click, _start_webrtc, _wait

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="Debian chromium + chromium-driver not installed"),
]

SIZE_PX = (960, 720)
#: still tables long enough for a loaded server to settle them; the last one longest (the fake camera loops back
#: to the empty board after it, which the test does not wait for)
CONFIG = ClipConfig(still_frames=60, hand_frames=4)
LAST_STILL_FRAMES = 300


def _stop_webrtc(driver) -> None:
    """Press STOP inside streamlit-webrtc's component frame (the camera's loop must not come back to the board)."""
    from selenium.webdriver.common.by import By

    def go(d):
        for frame in d.find_elements(By.TAG_NAME, "iframe"):
            d.switch_to.frame(frame)
            try:
                for b in d.find_elements(By.TAG_NAME, "button"):
                    if b.text.strip().upper() == "STOP" and b.is_displayed():
                        b.click()
                        return True
            finally:
                d.switch_to.default_content()
        return False

    _wait(driver, go, 30.0, 0.5)


def _set_number(driver, label: str, value: int) -> None:
    """Type a value into a Streamlit number input and commit it (Enter)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    def go(d):
        for el in d.find_elements(By.XPATH, f"//input[@aria-label='{label}']"):
            if el.is_displayed():
                el.send_keys(Keys.CONTROL, "a")
                el.send_keys(str(value), Keys.ENTER)
                return True
        return False

    _wait(driver, go, 60.0)


def _photo_pairs(scene, keys) -> list[dict]:
    """The still photos judged as pairs (board -> first placement -> second), each with the context after the
    last: what the page must show for each settled placement."""
    game = get_game("ingenious")
    stills = [img for img, n in keys if n == CONFIG.still_frames]
    context, out = scene.context, []
    for before, after in zip(stills, stills[1:]):
        images = [(cv2.resize(x, SIZE_PX, interpolation=cv2.INTER_AREA), f"still {k}") for k, x in
                  enumerate((before, after))]
        result = judge_images(game, images, context).result
        out.append(result)
        context = game.live.next_context(context, result)
    return out


def test_ingenious_placements_settle_once_each_with_their_points_and_are_recorded_once(tmp_path):
    scene = clip_scene("ingenious", 8, placements=2, from_start=True)  # Aki and Ben, the page's default players
    keys = key_frames(scene, "place", CONFIG)
    expected = _photo_pairs(scene, keys)
    assert all(r["placed"] and len(r["placed"]) == 2 for r in expected)
    keys[-1] = (keys[-1][0], LAST_STILL_FRAMES)
    frames = [cv2.resize(f, SIZE_PX, interpolation=cv2.INTER_AREA) for f in expand(keys, CONFIG, seed=5)]
    video = write_y4m(frames, tmp_path / "clip.y4m", fps=int(CONFIG.fps))
    del frames
    ledger_path = tmp_path / "live.sqlite"
    extra = ("--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
             f"--use-file-for-fake-video-capture={video}", "--disable-features=WebRtcHideLocalIpsWithMdns")
    with streamlit_server(ledger_path) as url:
        driver = chrome(tmp_path / "profile", size=(1400, 1800), extra=extra)
        try:
            driver.get(url + "/?game=ingenious")
            _wait(driver, lambda d: "Table Judge" in body_text(d) and "Mode" in body_text(d), 90.0)
            _click(driver, "//label[contains(., 'Live video')]")
            _wait(driver, lambda d: "Press START" in body_text(d), 90.0)
            _set_number(driver, "Players (1 = solo)", 2)  # the clip's players: Aki and Ben (the form's names)
            _wait(driver, lambda d: "Player 2 (turn order)" in body_text(d) and "Player 3" not in body_text(d))
            # the players start a game in the ledger: each settled placement becomes its next move
            _click(driver, "//button[contains(., 'Start a game with these players')]")
            _wait(driver, lambda d: "Aki to place" in body_text(d), 90.0)
            _start_webrtc(driver)
            _wait(driver, lambda d: "Placements settled: 2" in body_text(d), 300.0, 1.0)
            _stop_webrtc(driver)
            text = body_text(driver)
        finally:
            driver.quit()
    plugin = get_game("ingenious")
    for result in expected:  # each placement listed with the points of the photo pair
        assert plugin.summary(result) in text, plugin.summary(result)
    assert "Ben to place next" in text and "Aki to place next" in text  # each recorded move passed the turn on
    from ledger import Ledger

    led = Ledger(ledger_path)
    # (the photo mode the page opens in judged its sample photos first: not live)
    recorded = sorted((r for r in led.judgements(game="ingenious") if r.source.startswith("live camera")),
                      key=lambda r: r.id)
    assert len(recorded) == 2
    assert [r.result["move_points"] for r in recorded] == [r["move_points"] for r in expected]
    (session,) = led.sessions(game="ingenious")
    rounds = led.rounds(session.id)
    assert [r.judgement_id for r in rounds] == [r.id for r in recorded]  # each move once, linked to its judgement
    assert [r.summary["player"] for r in rounds] == ["Aki", "Ben"]
