"""Shared test set-up.

The fast tier, ``pytest -m "not slow" -n auto`` (README), leaves out what costs minutes and is run in full by CI
(``pytest``, everything): the many-seed accuracy loops listed in ``SLOW`` here (by name in one place, so that
the lanes' test files need no edit, and a listed test that no longer exists fails the run), the whole files in
``SLOW_FILES`` (rendered video clips through ``cli.py live``, many-process ledger load and kill tests), and every
test that starts a system component (marked ``browser`` - a Streamlit server and Chromium - or ``postgres`` - a
PostgreSQL server; the SQLite half of a two-backend test stays fast). The ledger on both backends (a SQLite
file, a real PostgreSQL server started for the session). The CI rule: a test needing a system component (a
browser, PostgreSQL) never silently skips: with ``CI=true`` such a skip is reported as a failure."""

from __future__ import annotations

import pytest

from core.blas import single_thread_blas
from tests.system_components import MUST_RUN_IN_CI, in_ci

single_thread_blas()  # as cli.main and the page do: every test process and the CLI processes it starts


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "postgres: needs PostgreSQL's server programs (Debian package postgresql)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    rep = outcome.get_result()
    if not (rep.skipped and in_ci()) or hasattr(rep, "wasxfail"):
        return
    needs = [m for m in MUST_RUN_IN_CI if item.get_closest_marker(m)]
    if needs:
        reason = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
        rep.outcome = "failed"
        rep.longrepr = (f"CI=true: this {'/'.join(needs)} test must run, but it was skipped ({reason}); "
                        f"run scripts/install-test-tools.sh as root")


@pytest.fixture(scope="session")
def pg_server():
    """A private PostgreSQL server for the whole test session (skipped, or failed under CI, without one)."""
    from tests.pg_server import find_pg_bin, running_postgres

    if find_pg_bin() is None:
        pytest.skip("PostgreSQL server programs not installed (Debian package postgresql)")
    pytest.importorskip("psycopg")
    with running_postgres() as server:
        yield server


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def ledger_target(request, tmp_path) -> str:
    """Where a fresh, empty ledger lives: a SQLite file, or a new database on the test PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "ledger.sqlite")
    return request.getfixturevalue("pg_server").new_database()


#: file -> test functions (every parametrisation) that loop over many seeded renders or views.
SLOW = {
    "test_genial_vision.py": {"test_reads_many_seeds", "test_hard_renders_are_judged_right_or_flagged"},
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
}
#: whole files in the slow tier: each test runs a rendered video clip through live mode, many processes on
#: one ledger (some killed mid-write), or many seeded renders.
SLOW_FILES = {"test_cmyk_rules_synth.py", "test_live_clip.py", "test_live_pairs.py", "test_live_warm.py",
              "test_ledger_load.py", "test_ledger_durability.py"}
#: markers of tests that start a system component (a browser + Streamlit server, a PostgreSQL server)
SYSTEM_MARKERS = ("browser", "postgres")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    seen: set[tuple[str, str]] = set()
    for item in items:
        file = item.path.name
        name = getattr(item, "originalname", item.name)
        if name in SLOW.get(file, ()):
            seen.add((file, name))
        starts_a_system = any(item.get_closest_marker(m) for m in SYSTEM_MARKERS)
        if file in SLOW_FILES or name in SLOW.get(file, ()) or starts_a_system:
            item.add_marker(pytest.mark.slow)
    collected_files = {item.path.name for item in items}
    missing = [f"{f}::{n}" for f, names in SLOW.items() if f in collected_files for n in names if (f, n) not in seen]
    if missing and not config.getoption("-k") and not any("::" in a for a in config.args):
        raise pytest.UsageError(f"tests/conftest.py lists slow tests that do not exist: {', '.join(missing)}")
