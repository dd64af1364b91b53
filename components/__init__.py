"""The physical component set (sizes, colours, outlines) the judge assumes by default.

``default.json`` is a copy of the project's component description; a calibration profile
may replace any part of it for a user's own box.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

DEFAULT_PATH = Path(__file__).with_name("default.json")


@lru_cache(maxsize=8)
def _load(path: str) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def load_components(path: str | Path | None = None) -> dict:
    """Return the component description as a (read-only by convention) dict.

    Parameters
    ----------
    path : str or Path, optional
        A component JSON file; the bundled default when omitted.
    """
    return _load(str(path or DEFAULT_PATH))
