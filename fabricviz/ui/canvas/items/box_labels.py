"""Where the semantic zoom's group, host-block and bundle labels go (:mod:`fabricviz.ui.canvas.items.semantic`):
box titles, host-block sizes and bundles' "N × rate" / "×n", each a :class:`Label` placed for a view scale
(offsets in screen pixels) and handed to the scene's label layer (``set_extra``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from fabricviz.generate.groups import ADAPTERS, HOSTS, MANAGEMENT, UNNAMED
from fabricviz.ui.canvas.items.label_spots import LINE_CHECK, Lines, Rects, clear_spot, off_rects

if TYPE_CHECKING:  # pragma: no cover
    from fabricviz.generate.groups import Bundles, Grouping
    from fabricviz.ui.canvas.items.routes import Routes

#: Between the two lines of a box's title (pixels): the label layer's 4-px occupancy cells would
#: otherwise see the two rows as overlapping.
ROW_GAP_PX = 10.0
#: A label's halo around its text (:mod:`fabricviz.ui.canvas.items.labels`): may lie on a box.
PAD_PX = 2.0
#: A label kept inside a box (``Label.within``) clears its edge by this much (pixels; the layer rounds
#: a label's position to whole pixels).
EDGE_PX = 2.0
WRAP_GAP_PX = 4.0            # between the two lines of a label wrapped to its block's width (pixels)
LINE_CLEAR_PX = 1.0          # a bundle label's text keeps this far from other lines (pixels)
COUNT_P = 2     # a middle "×n" gives way to a switch's name (1): its host block says "n hosts" too



class Label(NamedTuple):
    """A group, block or bundle label: centred on (x, y) moved along (ux, uy) until its edge
    clears the point (a fixed gap on screen, at most ``reach`` scene units) and, ``beside``, off
    the line along (ux, uy) too (to its right looking along it; ``side`` -1: its left); a
    two-line text (a box's title and counts) is two labels one line apart, or one line joined by
    " · " when the box (``box_h`` scene units) is too low. With ``own`` (box columns) it is left
    out where it would lie on any other box of :func:`place_labels`' ``boxes``. With ``within`` (a box
    (x0, y0, x1, y1) in scene units: a host block's group) it is moved the least that keeps it inside
    that box, where it fits (a block narrower than its "21 unnamed adapters" at its group's edge), on
    two lines first where it is wider than its block (``box_w``) and the block is high enough (``box_h``)."""

    x: float
    y: float
    text: str
    priority: int = 0
    ux: float = 0.0
    uy: float = 0.0
    reach: float = 0.0
    beside: bool = False
    box_h: float = np.inf
    side: float = 1.0
    own: tuple[int, ...] | None = None
    box_w: float = np.inf
    within: tuple[float, float, float, float] | None = None


def place_labels(labels: list[Label], scale: float, layer, boxes: np.ndarray | None = None,
                 lines: np.ndarray | None = None, nodes: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
    """(xs, ys, texts, priorities) for the label layer's ``set_extra``: each :class:`Label` at its
    place for view ``scale`` (offsets are in screen pixels, so they depend on the scale); a label
    with ``own`` that would lie on another of ``boxes`` ([4, m]) is left out; a label ``beside``
    its line goes to the other side where one of the drawn ``lines`` ([4, n]) runs through it; a
    "×n" label beside its line (no ``own``) lies on none of the drawn switches ``nodes`` ([4, m]) or
    is left out."""
    drawn = Lines.of(lines) if lines is not None and len(labels) * lines.shape[1] <= LINE_CHECK else None
    switches = Rects.of(nodes) if nodes is not None else None
    s = max(scale, 1e-12)
    line = float(getattr(layer, "_height", 16.0))          # one label's height, pixels
    step = line + ROW_GAP_PX
    ox: list[float] = []
    oy: list[float] = []
    ot: list[str] = []
    op: list[int] = []
    for lab in labels:
        x, y = lab.x, lab.y
        rows = _fit_rows(lab, s, step, line, layer)
        w = max(layer._width(r) for r in rows) if hasattr(layer, "_width") else 8.0 * len(lab.text)
        if lab.ux or lab.uy:
            ux, uy = lab.ux, lab.uy
            # a bundle's one-line label hugs its end (the halo keeps it clear): it fits short gutters
            half, gap = (line / 2, 1.0) if lab.beside and len(rows) == 1 else (step * len(rows) / 2, 3.0)
            off = min((abs(ux) * w / 2 + abs(uy) * half + gap) / s, lab.reach)
            x, y = x + ux * off, y + uy * off
            if lab.beside:     # and clear of its line, on the side the line turns away from (or the other)
                side = (abs(uy) * w / 2 + abs(ux) * line / 2 + 4.0) / s
                spots = [(x - uy * k * side - ux * d, y + ux * k * side - uy * d)  # nearer its end, or inside
                         for d in (0.0, 1.5 / s, 3.0 / s, 2 * off) for k in (lab.side, -lab.side)]
                hw_, hh_ = (w / 2 - PAD_PX + LINE_CLEAR_PX) / s, (line / 2 - PAD_PX + LINE_CLEAR_PX) / s
                inside = [(lab.x - uy * k * side, lab.y - uy * (half + gap) / s) for k in (lab.side, -lab.side)]
                spot = clear_spot(spots, hw_, hh_, drawn) if lab.own is not None or switches is None else \
                    off_rects(spots + inside, hw_, hh_, drawn, switches)      # inside its lower node, at need
                if spot is None:
                    continue
                x, y = spot
        gap = step
        if lab.within is not None:
            if len(rows) == 1 and w > lab.box_w * s and " " in rows[0] and \
                    2 * line + WRAP_GAP_PX <= lab.box_h * s + 2 * PAD_PX:
                # wider than its block ("21 unnamed adapters"): two lines, a line's spacing apart, where
                # the block is high enough (its halo may lie on the block's edge)
                rows, gap = two_rows(rows[0], layer), line + WRAP_GAP_PX
                w = max(_text_w(layer, r) for r in rows)
            x, y = kept_in(x, y, w, line + (len(rows) - 1) * gap, lab.within, s)
        if lab.own is not None and boxes is not None and boxes.shape[1]:
            # the text, not its halo
            hw, hh = (w / 2 - PAD_PX) / s, (line / 2 - PAD_PX + (len(rows) - 1) * gap / 2) / s
            on = (boxes[0] < x + hw) & (boxes[2] > x - hw) & (boxes[1] < y + hh) & (boxes[3] > y - hh)
            on[[i for i in lab.own if 0 <= i < len(on)]] = False
            if on.any():
                continue
        for j, row in enumerate(rows):
            ox.append(float(x))
            oy.append(float(y + (j - (len(rows) - 1) / 2) * gap / s))
            ot.append(row)
            op.append(int(lab.priority))
    return np.asarray(ox, float), np.asarray(oy, float), ot, np.asarray(op, np.int64)


def kept_in(x: float, y: float, w: float, h: float, box: tuple[float, float, float, float], s: float
            ) -> tuple[float, float]:
    """``(x, y)`` moved the least that puts a label ``w`` × ``h`` pixels centred there inside ``box``
    (scene units, at scale ``s``) with :data:`EDGE_PX` to spare, along each axis where it fits."""
    x0, y0, x1, y1 = box
    hw, hh = (w / 2 + EDGE_PX) / s, (h / 2 + EDGE_PX) / s
    if x1 - x0 >= 2 * hw:
        x = min(max(x, x0 + hw), x1 - hw)
    if y1 - y0 >= 2 * hh:
        y = min(max(y, y0 + hh), y1 - hh)
    return x, y


def two_rows(text: str, layer) -> list[str]:
    """``text`` on two lines: at its " · " ("UFM", "2 hosts"), else at the space that makes the wider
    line the narrowest ("21 unnamed", "adapters")."""
    if " · " in text:
        return text.split(" · ", 1)
    words = text.split(" ")
    cuts = [[" ".join(words[:k]), " ".join(words[k:])] for k in range(1, len(words))]
    return min(cuts, key=lambda c: max(_text_w(layer, c[0]), _text_w(layer, c[1])))


def _text_w(layer, text: str) -> float:
    return layer._width(text) if hasattr(layer, "_width") else 8.0 * len(text)


def _fit_rows(lab: Label, s: float, step: float, line: float, layer) -> list[str]:
    """A box title's rows as they fit its box at scale ``s``: both rows; else one joined by " · ";
    else the name alone (the label layer still hides it where it would overlap another)."""
    rows = lab.text.split("\n")
    if len(rows) == 1:
        return rows
    room = lab.box_w * s - 2 * PAD_PX
    if lab.box_h * s >= len(rows) * step + line and max(_text_w(layer, r) for r in rows) <= room:
        return rows
    joined = " · ".join(rows)
    return [joined] if _text_w(layer, joined) <= room else [rows[0]]


def box_title(g: Grouping, geom: dict[str, np.ndarray], i: int) -> str:
    """``"pod 3\n24 switches · 576 hosts"`` (a rack: its hosts only; the top tier: its name)."""
    if g.kinds[i] == "top":
        return g.names[i]
    ns, nh = int(geom["n_switch"][i]), int(geom["n_host"][i])
    parts = [f"{ns} switch{'' if ns == 1 else 'es'}"] if ns and g.kinds[i] != "rack" else []
    parts += [f"{nh} host{'' if nh == 1 else 's'}"] if nh else []
    name = g.names[i].removeprefix("rack ") if g.kinds[i] == "rack" else g.names[i]   # the leaf's name
    return f"{name}\n{' · '.join(parts)}" if parts else name


def level_labels(far: bool, g: Grouping, geom: dict[str, np.ndarray], closed: list[int], opened: list[int],
                 b: Bundles, routes: Routes, groups: np.ndarray) -> list[Label]:
    """The labels of a far or middle drawing: collapsed boxes' titles (far) or names (middle),
    open groups' names, host blocks' sizes, bundles' "N × rate" (far) or "×n" (middle); a routed
    bundle's beside its last segment, into its lower box (``groups``: [2, n] each end's group)."""
    box = geom["box"]
    labels: list[Label] = []
    for i in closed:
        if far:
            labels.append(Label((box[0, i] + box[2, i]) / 2, (box[1, i] + box[3, i]) / 2,
                                box_title(g, geom, i), box_h=box[3, i] - box[1, i], box_w=box[2, i] - box[0, i]))
        else:            # middle: just above its box's top edge, a quarter in (bundles come in at the middle
            # or a corner); on the edge it touched the top row inside (k=32 at 35 %: issue 29)
            labels.append(Label(box[0, i] + (box[2, i] - box[0, i]) / 4, box[1, i], g.names[i], uy=-1.0, reach=np.inf))
    for i in opened:
        labels.append(Label((box[0, i] + box[2, i]) / 2, box[1, i], g.names[i], uy=-1.0, reach=np.inf))
    br = geom["blk_rects"]
    for j, blk in enumerate(geom["blk_ids"].tolist()):
        k = int(g.block_group[blk])         # inside its group's box (it may be wider than its block)
        gb = box[:, k] if 0 <= k < box.shape[1] else np.full(4, np.nan)
        within = (float(gb[0]), float(gb[1]), float(gb[2]), float(gb[3])) if np.isfinite(gb).all() else None
        labels.append(Label((br[0, j] + br[2, j]) / 2, (br[1, j] + br[3, j]) / 2, _hosts_text(g, blk),
                            box_w=br[2, j] - br[0, j], box_h=br[3, j] - br[1, j], within=within))
    if not len(b):
        return labels
    # a straight bundle's label sits just off the end of the node with fewer bundles (a pod's
    # line up to a wide top tier: its middle could sit on another label)
    e = routes.ends
    deg = np.bincount(np.concatenate([b.a, b.b]))
    a_small = deg[b.a] <= deg[b.b]
    sx, sy = np.where(a_small, e[0], e[2]), np.where(a_small, e[1], e[3])
    dx, dy = np.where(a_small, e[2] - e[0], e[0] - e[2]), np.where(a_small, e[3] - e[1], e[1] - e[3])
    length = np.hypot(dx, dy)
    ux, uy = dx / np.where(length > 0, length, 1.0), dy / np.where(length > 0, length, 1.0)
    st = routes.stub
    for k in range(len(b)):
        boxed = far or b.a[k] < g.n_groups or b.b[k] < g.n_groups      # a bundle between groups
        text = "" if b.count[k] < 2 and not far else b.label(k) if boxed else f"×{int(b.count[k])}"
        if not text:
            continue
        own = (int(groups[0, k]), int(groups[1, k])) if boxed else None
        if routes.routed[k]:
            labels.append(Label(st[0, k], st[1, k], text, 0 if boxed else COUNT_P, st[2, k], st[3, k], np.inf, True,
                                side=st[5, k], own=own))
        elif boxed:
            labels.append(Label(sx[k], sy[k], text, 0, ux[k], uy[k], length[k] / 2, True, own=own))
        else:
            labels.append(Label((e[0, k] + e[2, k]) / 2, (e[1, k] + e[3, k]) / 2, text, COUNT_P))
    return labels


def _hosts_text(g: Grouping, blk: int) -> str:
    """``"18 hosts"``; an imported block says its adapters too: ``"32 hosts · 256 HCAs"``."""
    hosts = int(g.block_hosts[blk]) if g.block_hosts is not None and len(g.block_hosts) else int(g.block_size[blk])
    ends = int(g.block_size[blk])
    kind = g.block_kinds[blk] if blk < len(g.block_kinds) else HOSTS
    if kind == UNNAMED:          # a unit's one-NIC hosts that never set a name: one block, said so
        return f"{ends} unnamed adapter{'' if ends == 1 else 's'}"
    if kind == ADAPTERS:
        return f"{ends} one-NIC host{'' if ends == 1 else 's'}"
    text = f"{hosts} host{'' if hosts == 1 else 's'}"
    if kind == MANAGEMENT:       # UFM and its standby
        return f"UFM · {text}"
    return text if ends == hosts else f"{text} · {ends} HCAs"


__all__ = ["COUNT_P", "EDGE_PX", "LINE_CLEAR_PX", "PAD_PX", "ROW_GAP_PX", "WRAP_GAP_PX", "Label", "box_title",
           "kept_in", "level_labels", "place_labels", "two_rows"]
