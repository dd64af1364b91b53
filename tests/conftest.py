"""The fast test tier: ``pytest -m "not slow"`` leaves out the many-seed accuracy loops listed here (the full
suite, CI's, runs them all). Listed by name in one place so that the lanes' test files need no edit; a listed
test that no longer exists fails the run, so a rename cannot silently move a slow loop into the fast tier."""

from __future__ import annotations

import pytest

#: file -> test functions (every parametrisation) that loop over many seeded renders or views, and the real-browser
#: test (a Streamlit server and Chromium).
SLOW = {
    "test_browser.py": {"test_camera_photo_in_a_real_browser"},
    "test_browser_live.py": {"test_live_camera_settles_in_a_real_browser"},
    "test_calibration_lens.py": {"test_charuco_calibration_recovers_focal_and_distortion",
                                 "test_board_kept_in_the_middle_is_warned"},
    "test_acrylic.py": {"test_challenge_boards_found_with_their_pose"},
    "test_chips.py": {"test_chips_found_with_centres_and_colours"},
    "test_kaleido_vision.py": {"test_boards_cells_and_scores_over_seeds",
                               "test_near_white_table_is_flagged_not_guessed"},
    "test_cmyk_vision.py": {"test_tiles_found_and_read", "test_frame_rows_horizontal_and_up_to_photo_top",
                            "test_glue_errors_and_state_roundtrip",
                            "test_adjudicate_scores_every_mosaic_and_names_detector_flags", "test_scene_is_legal"},
    "test_register_board.py": {"test_registered_outlines_match_truth"},
    "test_register_colours.py": {"test_kaleido_registers_shifted_tiles", "test_carrotain_registers_shifted_chips"},
    "test_calibration_roundtrip.py": {"test_roundtrip_within_1mm_pinhole_lens",
                                      "test_roundtrip_within_1mm_normal_lens"},
    "test_synth.py": {"test_projection_agrees_with_rendered_dots", "test_marker_corners_where_projected",
                      "test_markers_always_in_frame_and_rotations_recorded",
                      "test_hard_conditions_bring_hand_and_barrel_lens",
                      "test_markers_lie_on_a_mat_and_clutter_spares_them", "test_render_runs_for_every_table_kind"},
    "test_cmyk_rules_synth.py": set(),  # whole file: 30 seeds of synthetic mosaics
}
WHOLE_FILES = {"test_cmyk_rules_synth.py"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    seen: set[tuple[str, str]] = set()
    for item in items:
        file = item.path.name
        name = getattr(item, "originalname", item.name)
        if file in WHOLE_FILES or name in SLOW.get(file, ()):
            item.add_marker(pytest.mark.slow)
            seen.add((file, name))
    collected_files = {item.path.name for item in items}
    missing = [f"{f}::{n}" for f, names in SLOW.items() if f in collected_files for n in names if (f, n) not in seen]
    if missing and not config.getoption("-k") and not any("::" in a for a in config.args):
        raise pytest.UsageError(f"tests/conftest.py lists slow tests that do not exist: {', '.join(missing)}")
