"""JSON records in the CLI contract's field order: the to_json/from_json every typed adjudication shares."""

from __future__ import annotations

from dataclasses import fields
from typing import Any, ClassVar, TypeVar

R = TypeVar("R", bound="ContractRecord")


class ContractRecord:
    """Mixin for a frozen dataclass written as JSON in the order ``ORDER`` (its field names).

    Tuples are written as lists and read back as tuples; keys outside the dataclass (``timings_ms``,
    ``judgement_id`` ...) are ignored when reading.
    """

    ORDER: ClassVar[tuple[str, ...]] = ()

    def to_json(self) -> dict:
        out = {}
        for k in self.ORDER:
            v = getattr(self, k)
            out[k] = list(v) if isinstance(v, tuple) else v
        return out

    @classmethod
    def from_json(cls: type[R], obj: dict) -> R:
        """Inverse of :meth:`to_json` (fields outside the contract, such as ``timings_ms``, ignored)."""
        names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        kw: dict[str, Any] = {k: (tuple(v) if isinstance(v, list) else v) for k, v in obj.items() if k in names}
        return cls(**kw)
