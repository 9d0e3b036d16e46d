"""Where a bundle's label may sit: the first of its candidate spots whose text no drawn line runs
through (issue 29: a routed lane ran through "576 × 400G" labels of the 3-level radix-48 Clos).

Pure numpy; the lines are the layer's drawn segments, boxed once per placement (:class:`Lines`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from fabricviz.ui.canvas.items.routes import meets_inside

#: Labels are checked against the lines while labels × lines stays under this (each check scans the
#: lines: the 98,304-GPU Clos at middle zoom, 1,560 labels × ~100,000 lines, would take 6 s a zoom).
LINE_CHECK = 5_000_000


class Lines(NamedTuple):
    """Drawn segments ([4, n]) and their bounding boxes."""
    seg: np.ndarray
    lo_x: np.ndarray
    hi_x: np.ndarray
    lo_y: np.ndarray
    hi_y: np.ndarray

    @classmethod
    def of(cls, seg: np.ndarray) -> Lines:
        seg = np.asarray(seg, np.float64).reshape(4, -1)
        seg = seg[:, np.isfinite(seg).all(axis=0)]
        return cls(seg, np.minimum(seg[0], seg[2]), np.maximum(seg[0], seg[2]),
                   np.minimum(seg[1], seg[3]), np.maximum(seg[1], seg[3]))

    def meet(self, x: float, y: float, hw: float, hh: float) -> bool:
        """Some line meets the rectangle of half sizes ``hw`` × ``hh`` centred on (x, y)."""
        near = np.flatnonzero((self.lo_x < x + hw) & (self.hi_x > x - hw) & (self.lo_y < y + hh)
                              & (self.hi_y > y - hh))
        if not len(near):
            return False
        e = self.seg[:, near]
        if ((e[0] == e[2]) | (e[1] == e[3])).any():          # axis-parallel: the box test is the answer
            return True
        box = np.array([[x - hw], [y - hh], [x + hw], [y + hh]]).repeat(len(near), axis=1)
        return bool(meets_inside(e, box).any())


class Rects(NamedTuple):
    """Rectangles ([4, n]: the drawn switches) sorted by their left edge, for spot checks."""
    r: np.ndarray
    widest: float

    @classmethod
    def of(cls, rects: np.ndarray) -> Rects:
        r = np.asarray(rects, np.float64).reshape(4, -1)
        r = r[:, np.isfinite(r).all(axis=0)]
        r = r[:, np.argsort(r[0], kind="stable")]
        return cls(r, float((r[2] - r[0]).max()) if r.shape[1] else 0.0)

    def meet(self, x: float, y: float, hw: float, hh: float) -> bool:
        """Some rectangle meets the one of half sizes ``hw`` × ``hh`` centred on (x, y)."""
        lo, hi = np.searchsorted(self.r[0], [x - hw - self.widest, x + hw])
        q = self.r[:, lo:hi]
        return bool(((q[2] > x - hw) & (q[1] < y + hh) & (q[3] > y - hh)).any())


def off_rects(spots: list[tuple[float, float]], hw: float, hh: float, lines: Lines | None,
              rects: Rects) -> tuple[float, float] | None:
    """Like :func:`clear_spot`, but never on one of ``rects`` (a "×n" label over the next switch of a
    row read as run together with the next one: the 98,304-GPU Clos at 10 %, issue 29): the first
    spot clear of both, else the first clear of the rectangles, else None (no room: left out)."""
    free = [p for p in spots if not rects.meet(p[0], p[1], hw, hh)]
    return clear_spot(free, hw, hh, lines) if free else None


def clear_spot(spots: list[tuple[float, float]], hw: float, hh: float, lines: Lines | None) -> tuple[float, float]:
    """The first of ``spots`` where a ``2hw`` × ``2hh`` text meets none of ``lines`` (all meet one:
    the first)."""
    if lines is not None and len(lines.seg[0]):
        for x, y in spots:
            if not lines.meet(x, y, hw, hh):
                return x, y
    return spots[0]


__all__ = ["LINE_CHECK", "Lines", "Rects", "clear_spot", "off_rects"]
