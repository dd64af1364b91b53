"""A problem or notice attached to a judgement (python-chess ``status()`` style: all at once)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Flag:
    """One problem found in a camera-made state or a judgement.

    Attributes
    ----------
    code : str
        Stable machine name, e.g. ``"contested"``, ``"stacked_boards"``.
    message : str
        One line for people.
    data : dict
        Extra JSON-able details (chip indices, margins, ...).
    """

    code: str
    message: str
    data: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message, **self.data}

    @classmethod
    def from_json(cls, obj: dict) -> Flag:
        rest = {k: v for k, v in obj.items() if k not in ("code", "message")}
        return cls(code=str(obj["code"]), message=str(obj.get("message", "")), data=rest)
