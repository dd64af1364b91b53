"""Live mode of a pair game in a real browser, as players use it: Debian's headless Chromium plays a rendered
Ingenious clip (the empty board still, a hand places the first tile and leaves, a hand places the second tile and
leaves; flicker, sensor noise) as its fake camera over a real WebRTC connection (streamlit-webrtc, aiortc) to the
real Streamlit server. The players start a game in the ledger on the page; each placement settles once, the page
lists it with its points (those of the still photos judged as a pair), and the ledger holds each move once: one
judgement per placement and one round of the game, linked."""

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
    with streamlit_server(ledger_path) as url:
        driver = chrome(tmp_path / "profile", size=(1400, 1800), extra=fake_camera(video))
        try:
            driver.get(url + "/?game=ingenious")
            wait_until(driver, lambda d: "Table Judge" in body_text(d) and "Mode" in body_text(d), 90.0)
            click_xpath(driver, "//label[contains(., 'Live video')]")
            wait_until(driver, lambda d: "Press START" in body_text(d), 90.0)
            type_into(driver, "Players (1 = solo)", "2")  # the clip's players: Aki and Ben (the form's names)
            wait_until(driver, lambda d: "Player 2 (turn order)" in body_text(d) and "Player 3" not in body_text(d))
            # the players start a game in the ledger: each settled placement becomes its next move
            click_xpath(driver, "//button[contains(., 'Start a game with these players')]")
            wait_until(driver, lambda d: "Aki to place" in body_text(d), 90.0)
            press_webrtc(driver, "START")
            wait_until(driver, lambda d: "Placements settled: 2" in body_text(d), 300.0, 1.0)
            press_webrtc(driver, "STOP", 30.0)
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
