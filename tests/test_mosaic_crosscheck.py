"""geometry.mosaic agrees with an independent coordinate-based reference (tools/eval_mosaic.py) on 40 seeded
random connected mosaics of 1-40 tiles, half of them made mirror-symmetric, each also with P and N edges taken
as horizontal (pure geometry; the 500-seed run is ``python tools/eval_mosaic.py``)."""

from collections import Counter

from tools.eval_mosaic import reference_geometry, run


def test_agrees_with_reference_on_random_mosaics():
    seen: Counter = Counter()
    assert run(40, seen=seen) == {}
    # the sample exercises every feature, so agreement means something
    assert all(seen[k] >= 3 for k in ("hexagons", "holes", "mirror_lr", "mirror_ud", "spiky")), seen


def test_reference_itself_on_a_hand_count():
    hexagon = [(-1, 0), (-1, 1), (0, 0), (0, 1), (1, 0), (1, 1)]
    r = reference_geometry(hexagon)
    assert r["hexagons"] == [(0, 1)] and r["mirror_lr"] and r["mirror_ud"] and r["longest_run"] == 3
    assert not reference_geometry([(0, 0)])["mirror_ud"]
