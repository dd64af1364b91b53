"""What the camera saw of a Carrotain challenge: chips and boards in table mm.

This is the contract between ``vision`` (which produces it) and ``scoring.carrotain`` (which
judges it); ``cli.py score`` reads it from JSON, so a hand-corrected state can be judged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from scoring.flags import Flag

CHIP_KINDS = ("star", "colourless", "first_star")


@dataclass(frozen=True)
class ChipReading:
    """One chip.

    Attributes
    ----------
    kind : str
        ``"star"`` (coloured centre dot), ``"colourless"`` (hole) or ``"first_star"`` (yellow, hole).
    colour : str or None
        Player colour of a star chip's dot; None for the others.
    xy_mm : tuple[float, float]
        The centre point (dot or hole centre) on the table, mm.
    centre_sigma_mm : float
        1-sigma uncertainty of ``xy_mm`` (isotropic), mm.
    confidence : float
        0..1, how sure the detector is of this chip's kind and colour.
    presence_confidence : float
        0..1, how sure the detector is that a chip lies here at all (a bright disc whose centre shows a hole or
        a dot of some player colour; glare on acrylic shows neither). Only a chip unsure in this sense may be a
        phantom that drops out of the count; a chip of unsure colour still counts for the verdict.
    """

    kind: str
    colour: str | None
    xy_mm: tuple[float, float]
    centre_sigma_mm: float = 0.5
    confidence: float = 1.0
    presence_confidence: float = 1.0

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "colour": self.colour,
            "xy_mm": [round(float(v), 3) for v in self.xy_mm],
            "centre_sigma_mm": round(float(self.centre_sigma_mm), 3),
            "confidence": round(float(self.confidence), 3),
            "presence_confidence": round(float(self.presence_confidence), 3),
        }

    @classmethod
    def from_json(cls, obj: dict) -> ChipReading:
        return cls(
            kind=str(obj["kind"]),
            colour=obj.get("colour"),
            xy_mm=(float(obj["xy_mm"][0]), float(obj["xy_mm"][1])),
            centre_sigma_mm=float(obj.get("centre_sigma_mm", 0.5)),
            confidence=float(obj.get("confidence", 1.0)),
            presence_confidence=float(obj.get("presence_confidence", 1.0)),
        )


@dataclass(frozen=True)
class BoardReading:
    """One acrylic board's footprint on the table.

    Attributes
    ----------
    id : str
        Board letter (``"A"`` .. ``"G"``) or ``"?"`` when the outline matched none well.
    outline_mm : ndarray, shape (N, 2)
        Footprint polygon in table mm (the board's bottom face projected straight down).
    pose_sigma_mm : float
        1-sigma uncertainty of the outline's position as one number for the whole board, mm (fit residual and
        camera model). The judgement uses it wherever ``pose_cov`` is None (old states, hand-made ones).
    fit_residual_mm : float
        RMS distance between the matched outline and the edge evidence, mm.
    role : str
        ``"challenge"`` (over the chip field) or ``"other"``.
    pose_cov : ndarray, shape (3, 3), or None
        Covariance of the board's pose (x mm, y mm, rotation rad), the rotation taken about the mean of the
        outline's vertices (which moves with the outline when a board is moved by hand): a pose fitted with an
        uncertain rotation is uncertain far from the fit's centre of support, not near it. None: the outline is
        uncertain by ``pose_sigma_mm`` everywhere.
    floor_sigma_mm : float
        With ``pose_cov``: the 1-sigma part common to every outline point (camera model, fit floor, a competing
        shape), mm; see :meth:`edge_sigma_mm`.
    loose : bool
        The outline is a loose fit: one the strict acceptance declined (its edges found only faintly or stepped
        along loosely), taken because the chip field still lacked a challenge board; its uncertainty is at least
        its mean distance to the edges found. The judgement names it (flag ``loose_board``) and the overlay draws
        it apart.
    """

    id: str
    outline_mm: np.ndarray
    pose_sigma_mm: float = 0.5
    fit_residual_mm: float = 0.0
    role: str = "challenge"
    pose_cov: np.ndarray | None = None
    floor_sigma_mm: float = 0.0
    loose: bool = False

    def edge_sigma_mm(self, xy_mm: np.ndarray) -> np.ndarray:
        """1-sigma uncertainty of the outline along its normal where it passes nearest each point, mm.

        With ``pose_cov``: at the nearest outline point q with unit normal n,
        ``hypot(floor_sigma_mm, sqrt(j @ pose_cov @ j))``, j = (n_x, n_y, n . perp(q - pivot)) (how q moves
        along n per unit of x, y and rotation; perp(v) = (-v_y, v_x); pivot: the outline's vertex mean).
        Otherwise ``pose_sigma_mm``.

        Parameters
        ----------
        xy_mm : ndarray, shape (n, 2)
            Finite points, table mm.

        Returns
        -------
        ndarray, shape (n,)
        """
        pts = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
        if self.pose_cov is None:
            return np.full(len(pts), float(self.pose_sigma_mm))
        outline = np.asarray(self.outline_mm, dtype=np.float64).reshape(-1, 2)
        q, n = nearest_outline_points(outline, pts)
        rel = q - outline.mean(axis=0)
        j = np.column_stack([n, n[:, 1] * rel[:, 0] - n[:, 0] * rel[:, 1]])  # n . perp(rel) = n_y r_x - n_x r_y
        var = np.einsum("ni,ij,nj->n", j, np.asarray(self.pose_cov, dtype=np.float64).reshape(3, 3), j)
        return np.hypot(float(self.floor_sigma_mm), np.sqrt(np.maximum(var, 0.0)))

    def to_json(self) -> dict:
        out = {
            "id": self.id,
            "outline_mm": np.round(np.asarray(self.outline_mm, dtype=float), 3).tolist(),
            "pose_sigma_mm": round(float(self.pose_sigma_mm), 3),
            "fit_residual_mm": round(float(self.fit_residual_mm), 3),
            "role": self.role,
        }
        if self.pose_cov is not None:
            cov = np.asarray(self.pose_cov, dtype=float).reshape(3, 3)
            out["pose_cov"] = [[float(f"{v:.6g}") for v in row] for row in cov.tolist()]
            out["floor_sigma_mm"] = round(float(self.floor_sigma_mm), 3)
        if self.loose:
            out["loose"] = True
        return out

    @classmethod
    def from_json(cls, obj: dict) -> BoardReading:
        """Inverse of :meth:`to_json`; a state without ``pose_cov`` keeps the one-number ``pose_sigma_mm``. A
        ``pivot_mm`` given with ``pose_cov`` names the point its rotation is about (else the vertex mean)."""
        outline = np.asarray(obj["outline_mm"], dtype=np.float64).reshape(-1, 2)
        cov = obj.get("pose_cov")
        if cov is not None:
            cov = np.asarray(cov, dtype=np.float64).reshape(3, 3)
            if obj.get("pivot_mm") is not None and len(outline):
                cov = pose_cov_about(cov, np.asarray(obj["pivot_mm"], dtype=np.float64), outline.mean(axis=0))
        return cls(
            id=str(obj["id"]),
            outline_mm=outline,
            pose_sigma_mm=float(obj.get("pose_sigma_mm", 0.5)),
            fit_residual_mm=float(obj.get("fit_residual_mm", 0.0)),
            role=str(obj.get("role", "challenge")),
            pose_cov=cov,
            floor_sigma_mm=0.0 if cov is None else float(obj.get("floor_sigma_mm", 0.0)),
            loose=bool(obj.get("loose", False)),
        )


def pose_cov_about(cov: np.ndarray, pivot_mm: np.ndarray, new_pivot_mm: np.ndarray) -> np.ndarray:
    """A pose covariance (x mm, y mm, rotation rad; shape (3, 3)) about ``pivot_mm`` re-expressed about
    ``new_pivot_mm``: a rotation by d_theta about the pivot moves the new pivot by d_theta * perp(new - old)."""
    dx, dy = np.asarray(new_pivot_mm, dtype=np.float64) - np.asarray(pivot_mm, dtype=np.float64)
    T = np.array([[1.0, 0.0, -dy], [0.0, 1.0, dx], [0.0, 0.0, 1.0]])
    return T @ np.asarray(cov, dtype=np.float64).reshape(3, 3) @ T.T


def nearest_outline_points(outline_mm: np.ndarray, xy_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where a closed outline passes nearest each point, and the outline's unit normal there.

    Parameters
    ----------
    outline_mm : ndarray, shape (N, 2)
        Closed polygon (the last vertex joins the first), N >= 2.
    xy_mm : ndarray, shape (n, 2)

    Returns
    -------
    nearest : ndarray, shape (n, 2)
    normal : ndarray, shape (n, 2)
        Unit normal of the nearest segment (its sign is arbitrary).
    """
    a = np.asarray(outline_mm, dtype=np.float64).reshape(-1, 2)
    b = np.roll(a, -1, axis=0)
    d = b - a  # (N, 2)
    length2 = np.maximum(np.sum(d * d, axis=1), 1e-12)
    p = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 1, 2)
    s = np.clip(np.sum((p - a) * d, axis=2) / length2, 0.0, 1.0)  # (n, N)
    foot = a + s[..., None] * d  # (n, N, 2)
    k = np.argmin(np.sum((p - foot) ** 2, axis=2), axis=1)
    rows = np.arange(len(k))
    seg = d[k] / np.sqrt(length2[k])[:, None]
    return foot[rows, k], np.column_stack([-seg[:, 1], seg[:, 0]])


@dataclass(frozen=True)
class CarrotainState:
    """Everything seen in one challenge photo (plus what a "before" photo added).

    Attributes
    ----------
    chips : tuple[ChipReading, ...]
    boards : tuple[BoardReading, ...]
    flags : tuple[Flag, ...]
        Detector-side problems (touched chips, low-confidence pieces, ...).
    """

    chips: tuple[ChipReading, ...]
    boards: tuple[BoardReading, ...]
    flags: tuple[Flag, ...] = field(default_factory=tuple)

    def to_json(self) -> dict:
        return {
            "game": "carrotain",
            "chips": [c.to_json() for c in self.chips],
            "boards": [b.to_json() for b in self.boards],
            "flags": [f.to_json() for f in self.flags],
        }

    @classmethod
    def from_json(cls, obj: dict) -> CarrotainState:
        return cls(
            chips=tuple(ChipReading.from_json(c) for c in obj["chips"]),
            boards=tuple(BoardReading.from_json(b) for b in obj["boards"]),
            flags=tuple(Flag.from_json(f) for f in obj.get("flags", [])),
        )
