"""The two kinds of failure a user can meet, mapped to the CLI's exit codes."""

from __future__ import annotations


class BadInput(Exception):
    """The user's input is wrong (unreadable image, bad JSON, unknown game, missing field). Exit 2."""

    exit_code = 2


class CannotJudge(Exception):
    """The input is fine but the photo cannot be judged (no markers, no pieces). Exit 3."""

    exit_code = 3
