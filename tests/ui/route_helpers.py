"""An overlay's lines against the cable layer's: the segments of a path of point pairs, and the
segments the cable layer draws for some cables (their gutter routes), both rounded to compare."""

from __future__ import annotations

import numpy as np

from fabricviz.ui.canvas.items.cables import routes_for

Segment = tuple[float, float, float, float]


def pairs(item) -> set[Segment]:
    """The segments of path item ``item`` (a path of point pairs), rounded."""
    p = item.path()
    pts = [(round(p.elementAt(i).x, 3), round(p.elementAt(i).y, 3)) for i in range(p.elementCount())]
    return {(*a, *b) for a, b in zip(pts[0::2], pts[1::2], strict=True)}


def routed_pairs(f, cids) -> set[Segment]:
    """The segments the cable layer draws for cables ``cids`` of ``f`` (empty ones left out)."""
    seg = routes_for(f).of(np.asarray(cids, np.int64))
    seg = seg[:, (seg[0] != seg[2]) | (seg[1] != seg[3])]
    return {(round(float(a), 3), round(float(b), 3), round(float(c), 3), round(float(d), 3))
            for a, b, c, d in seg.T}
