"""Where a photo comes from on the page: a bundled sample, an upload or the browser camera."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from judge.registry import game as game_plugin

SAMPLES_DIR = Path(__file__).resolve().parents[1] / "sample_images"



@dataclass(frozen=True)
class Photo:
    """Photo bytes as received, with where they came from.

    Attributes
    ----------
    data : bytes
    source : str
        ``"sample:<name>"``, ``"upload:<file name>"`` or ``"camera"``.
    context : dict or None
        The sample's own context (players ...), for samples only.
    """

    data: bytes
    source: str
    context: dict | None = None


def list_samples(game: str) -> list[Path]:
    """The bundled sample photos of a game, sorted by name."""
    return sorted((SAMPLES_DIR / game).glob("*.jpg"))


def load_sample(path: Path) -> Photo:
    """A bundled sample and the context stored in its truth file."""
    truth_path = path.with_suffix(".json")
    ctx = None
    if truth_path.exists():
        ctx = json.loads(truth_path.read_text(encoding="utf-8")).get("context")
    return Photo(data=path.read_bytes(), source=f"sample:{path.name}", context=ctx)


def photo_input(game: str, key: str, label: str = "Photo", prefer: str = "") -> Photo | None:
    """Let the user pick a sample, upload a file or take a picture; None until they have.

    ``prefer``: the sample first offered is the first whose name contains it (e.g. ``"before"`` for the
    photo before a move), so a pair of inputs opens on a matching pair of samples.
    """
    samples = list_samples(game)
    options = (["Sample photo"] if samples else []) + ["Upload", "Camera"]
    how = st.radio(f"{label} from", options, horizontal=True, key=f"{key}-how")
    if how == "Sample photo":
        names = [p.name for p in samples]
        first = next((k for k, n in enumerate(names) if prefer and prefer in n), 0)
        name = st.selectbox("Sample", names, index=first, key=f"{key}-sample")
        return load_sample(SAMPLES_DIR / game / name)
    if how == "Upload":
        f = st.file_uploader(label, type=["jpg", "jpeg", "png", "webp"], key=f"{key}-upload")
        return Photo(data=f.getvalue(), source=f"upload:{f.name}") if f is not None else None
    # The capture size each game needs for its smallest marks (its plugin's ``camera_resolution``).
    resolution = game_plugin(game).camera_resolution
    shot = st.camera_input(label, key=f"{key}-camera", resolution=resolution)
    return Photo(data=shot.getvalue(), source="camera") if shot is not None else None
