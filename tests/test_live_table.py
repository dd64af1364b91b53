"""Live judging of a CMYK! table (one mosaic per player): the players show their mosaics to the camera in turn,
in the context's order; each settled mosaic is kept, and when the last one has settled the table is judged
once (ranking and scores), equal to the still-photo judgement of the same mosaics. Rendered clips
(synth/clip.py: a hand swaps the mosaics, light flicker, sensor noise, Motion-JPEG video)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from judge.live import reading_key
from judge.live_run import LiveJudge, describe
from judge.registry import game as get_game
from synth.clip import ClipConfig, clip_scene, expand, key_frames, write_video

pytestmark = pytest.mark.slow  # rendered clips through live mode

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ClipConfig(still_frames=24)  # long enough to vote again after a contested vote (a mark read two ways)


@pytest.fixture(scope="module")
def table_clip():
    """Aki's mosaic still, a hand swaps it for Ben's, Ben's still: (scene, key frames)."""
    scene = clip_scene("cmyk", 1, players=2)
    return scene, key_frames(scene, "place", CONFIG)


def _photo(image_rgb, path: Path) -> Path:
    cv2.imwrite(str(path), cv2.cvtColor(image_rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 95])
    return path


def _scored(judgement: dict) -> tuple:
    """The ranking, the scores, and each player's tiles and total."""
    return (judgement["ranking"], judgement["scores"],
            {p: (v["tiles"], v["total"], v["breakdown"]) for p, v in judgement["players"].items()})


def test_a_table_of_two_mosaics_shown_in_turn_settles_once_as_the_photos_judged_together(table_clip, tmp_path):
    scene, keys = table_clip
    video = write_video(expand(keys, CONFIG, seed=7), tmp_path / "table.avi", CONFIG.fps)
    ctx = tmp_path / "ctx.json"
    ctx.write_text(json.dumps(scene.context))
    ledger = tmp_path / "live.sqlite"
    proc = subprocess.run([sys.executable, str(ROOT / "cli.py"), "live", "--game", "cmyk", "--source", str(video),
                           "--context", str(ctx), "--ledger", str(ledger)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [json.loads(x) for x in proc.stdout.splitlines() if x.strip()]
    settled = [x for x in lines if x["live"]["status"] == "settled"]
    assert len(settled) == 1, proc.stderr  # the table, once: Aki's mosaic alone is no judgement
    # a vote of Ben's mosaic whose frames read a mark two ways is said (contested, nothing picked), then voted again
    assert all(x["live"]["status"] == "contested" and x["contested"] and "Ben's mosaic (2 of 2)" in x["live"]["note"]
               for x in lines if x is not settled[0])
    assert "Aki's mosaic read (1 of 2); now show Ben's mosaic" in proc.stderr
    line = settled[0]
    ben_still_from = sum(n for _, n in keys[:-1])  # the hand has left Ben's mosaic
    aki, ben = line["live"]["photo_frames"]
    assert aki < CONFIG.still_frames <= ben_still_from <= ben == line["live"]["frame"]
    assert set(line["ranking"]) == {"Aki", "Ben"} and set(line["scores"]) == {"Aki", "Ben"}
    photos = [_photo(keys[0][0], tmp_path / "aki.jpg"), _photo(keys[-1][0], tmp_path / "ben.jpg")]
    still = subprocess.run([sys.executable, str(ROOT / "cli.py"), "judge", "--game", "cmyk", "--context", str(ctx),
                            "--no-ledger", *map(str, photos)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert still.returncode == 0, still.stderr
    photo = json.loads(still.stdout)
    # what is scored is the photos' (a mark that the video's JPEG frames read another way may add an illegal-contact
    # doubt to the live reading: it is flagged, never silently scored)
    assert _scored(line) == _scored(photo)
    assert reading_key(line) == reading_key(photo) or "illegal_contact" in {f["code"] for f in line["flags"]}
    from ledger import Ledger

    recorded = Ledger(ledger).judgements()
    assert [r.id for r in recorded] == [line["judgement_id"]]
    assert len(recorded[0].state["mosaics"]) == 2


def test_a_hand_over_the_mosaic_just_read_is_not_the_next_players(table_clip):
    scene, keys = table_clip
    aki, aki_hand, ben = keys[0][0], keys[1][0], keys[-1][0]
    swap = keys[2][0]  # a hand over Ben's mosaic
    story = [(aki, CONFIG.still_frames), (aki_hand, CONFIG.hand_frames), (aki, CONFIG.still_frames),
             (swap, CONFIG.hand_frames), (ben, CONFIG.still_frames)]
    live = LiveJudge(get_game("cmyk"), scene.context)
    assert live.next_photo == "Aki's mosaic"
    events = [ev for f in expand(story, CONFIG, seed=5) for ev in live.feed(f)]
    assert [ev.kind for ev in events] == ["gathered", "moving", "unchanged", "moving", "settled"]
    assert "still Aki's mosaic; now show Ben's mosaic" in describe(events[2])
    table = events[-1].reading
    assert table is not None and table.ok and set(table.value["ranking"]) == {"Aki", "Ben"}
    assert live.next_photo == "Aki's mosaic"  # the next table starts again with the first player


def test_the_mosaic_just_kept_is_known_by_its_look_even_when_a_mark_reads_another_way(table_clip):
    scene, keys = table_clip
    aki, aki_hand = keys[0][0], keys[1][0]
    live = LiveJudge(get_game("cmyk"), scene.context)
    live._scene_key = lambda reading: str(id(reading))  # type: ignore[method-assign]  # every reading differs
    story = [(aki, CONFIG.still_frames), (aki_hand, CONFIG.hand_frames), (aki, CONFIG.still_frames)]
    kinds = [ev.kind for f in expand(story, CONFIG, seed=6) for ev in live.feed(f)]
    assert kinds == ["gathered", "moving", "unchanged"] and live.next_photo == "Ben's mosaic"


def test_restarting_the_table_makes_the_next_mosaic_the_first_players(table_clip):
    scene, keys = table_clip
    aki, swap, ben = keys[0][0], keys[2][0], keys[-1][0]
    live = LiveJudge(get_game("cmyk"), scene.context)
    kinds = [ev.kind for f in expand([(aki, CONFIG.still_frames)], CONFIG, seed=3) for ev in live.feed(f)]
    assert kinds == ["gathered"] and live.next_photo == "Ben's mosaic"
    live.restart_table()  # e.g. Aki's mosaic was shown by mistake: start again
    assert live.next_photo == "Aki's mosaic"
    events = [ev for f in expand([(swap, CONFIG.hand_frames), (ben, CONFIG.still_frames)], CONFIG, seed=4)
              for ev in live.feed(f)]
    assert [ev.kind for ev in events] == ["moving", "gathered"] and live.next_photo == "Ben's mosaic"
    ben_alone = events[-1].reading
    assert ben_alone is not None and list(ben_alone.value["players"]) == ["Aki"]  # read as the first photo


def test_the_live_page_says_whose_mosaic_is_next_and_settles_the_table(table_clip):
    from ui.live import LiveProcessor

    scene, keys = table_clip
    proc = LiveProcessor(get_game("cmyk"), scene.context)
    assert proc.accepts(scene.context) and not proc.accepts({**scene.context, "public_cards": []})
    assert proc.next_photo() == ("Aki's mosaic", ())
    seen = []
    for f in expand(keys, CONFIG, seed=7):
        shown = proc.process(f)
        assert shown.shape == f.shape  # the video goes on, with the status drawn on it
        for ev in proc.drain():
            seen.append((ev.kind, proc.next_photo()))
    gathered = [nxt for kind, nxt in seen if kind == "gathered"]
    assert gathered == [("Ben's mosaic", ("Aki's mosaic",))]
    settled = [ev for ev in seen if ev[0] == "settled"]
    assert len(settled) == 1 and settled[0][1] == ("Aki's mosaic", ())  # the table judged; the next starts again
    assert proc.error is None
