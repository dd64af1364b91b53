"""Re-export of :mod:`core.timing` (moved below vision; import ``core.timing`` in new code)."""

from core.timing import StageTimer

__all__ = ["StageTimer"]
