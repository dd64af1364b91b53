"""The two kinds of failure a user can meet, mapped to the CLI's exit codes."""

from __future__ import annotations

from typing import Any


class BadInput(Exception):
    """The user's input is wrong (unreadable image, bad JSON, unknown game, missing field). Exit 2."""

    exit_code = 2


class CannotJudge(Exception):
    """The input is fine but the photo cannot be judged (no markers, no pieces). Exit 3.

    ``carry``: what a live warm detection (``LiveSupport.detect_warm``) read before it found the frame cannot be
    judged, for the next frames of the same still scene (None: nothing).
    """

    exit_code = 3

    def __init__(self, *args: object, carry: Any = None) -> None:
        super().__init__(*args)
        self.carry = carry
