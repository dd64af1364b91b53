"""Re-export of :mod:`core.errors` (the failures moved below vision; import ``core.errors`` in new code)."""

from core.errors import BadInput, CannotJudge

__all__ = ["BadInput", "CannotJudge"]
