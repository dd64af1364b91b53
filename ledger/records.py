"""The ledger's records: frozen dataclasses read back from the ledger, with ``to_json``."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field


@dataclass(frozen=True)
class JudgementRecord:
    """One recorded judgement.

    Attributes
    ----------
    id : int
    created_utc : str
        ISO 8601, UTC (``2026-11-22T07:30:00.123456+00:00``).
    game : str
    source : str
        Where the photo came from (file names, ``"camera"``, ``"correction"``).
    photo_sha256 : str or None
        SHA-256 (hex) of the photo's file bytes.
    session_id : int or None
    state : dict
        The detected (or corrected) table state, as JSON.
    result : dict
        The judgement in the CLI contract's fields.
    corrected_from : int or None
        Id of the uncorrected judgement this one corrects.
    corrections : dict or None
        What the user changed.
    thumbnail_jpeg : bytes or None
        Small JPEG of the photo (shared by every judgement of the same photo).
    table : str
        Name of the table (in a hall) it was made at; ``""`` when none was given.
    """

    id: int
    created_utc: str
    game: str
    source: str
    photo_sha256: str | None
    session_id: int | None
    state: dict
    result: dict
    corrected_from: int | None = None
    corrections: dict | None = None
    thumbnail_jpeg: bytes | None = field(default=None, repr=False)
    table: str = ""

    def to_json(self, thumbnail: bool = False) -> dict:
        """JSON-able dict; the thumbnail as base64 only when ``thumbnail``, else ``has_thumbnail``."""
        obj = {
            "id": self.id,
            "created_utc": self.created_utc,
            "game": self.game,
            "table": self.table,
            "source": self.source,
            "photo_sha256": self.photo_sha256,
            "session_id": self.session_id,
            "corrected_from": self.corrected_from,
            "corrections": self.corrections,
            "state": self.state,
            "result": self.result,
            "has_thumbnail": self.thumbnail_jpeg is not None,
        }
        if thumbnail and self.thumbnail_jpeg is not None:
            obj["thumbnail_jpeg_base64"] = base64.b64encode(self.thumbnail_jpeg).decode("ascii")
        return obj


@dataclass(frozen=True)
class SessionRecord:
    """One game session (a whole game played at the table).

    Attributes
    ----------
    id : int
    game : str
    players : list
        Seats in clockwise order (names, colours or objects, as given).
    settings : dict
        Options chosen for the session (e.g. Carrotain coverage and margin).
    created_utc : str
    ended_utc : str or None
    result : dict or None
        Final result given to ``end_session``.
    """

    id: int
    game: str
    players: list
    settings: dict
    created_utc: str
    ended_utc: str | None = None
    result: dict | None = None

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "game": self.game,
            "players": self.players,
            "settings": self.settings,
            "created_utc": self.created_utc,
            "ended_utc": self.ended_utc,
            "result": self.result,
        }


@dataclass(frozen=True)
class RoundRecord:
    """One round of a session.

    Attributes
    ----------
    id : int
    session_id : int
    number : int
        1-based among the session's live rounds (an undone round's number is reused).
    challenger : str or None
        ``summary["challenger"]`` when given.
    judgement_id : int or None
    summary : dict
    undone : bool
    created_utc : str
    """

    id: int
    session_id: int
    number: int
    challenger: str | None
    judgement_id: int | None
    summary: dict
    undone: bool
    created_utc: str

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "session_id": self.session_id,
            "number": self.number,
            "challenger": self.challenger,
            "judgement_id": self.judgement_id,
            "summary": self.summary,
            "undone": self.undone,
            "created_utc": self.created_utc,
        }
