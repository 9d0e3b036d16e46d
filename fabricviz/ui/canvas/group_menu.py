"""The canvas's context menu at the far and middle levels: "Open group pod 3" on a closed group
(its box, a switch or a host block of it), "Close group pod 3" on an open one (its frame or one
of its devices), "Close all groups" while any is open — the same view state a double-click and
the breadcrumbs change (:mod:`~fabricviz.ui.canvas.items.semantic`; not an edit of the design,
so not undoable).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.ui.canvas.items.devices import DEVICE_ROLE

if TYPE_CHECKING:  # pragma: no cover
    from fabricviz.ui.canvas.view import CanvasView

#: The pointer's reach on screen (pixels), as for clicks.
REACH_PX = 4.0


def group_actions(view: CanvasView, scene_pos: QtCore.QPointF) -> list[tuple[str, Callable[[], None]]]:
    """(text, action) of the menu for a right-click at ``scene_pos`` ([] at near or off groups)."""
    scene = view.fscene
    sem = scene.semantic
    g = sem.grouping
    if sem.level == "near" or g is None:
        return []
    out: list[tuple[str, Callable[[], None]]] = []
    item = scene.device_item_at(scene_pos)
    hit = sem.queries.pick(scene_pos, REACH_PX / max(view.scale_factor(), 1e-9)) if item is None else None
    group = -1
    if item is not None:                              # a device of an open group (drawn as itself)
        group = int(g.group[int(item.data(DEVICE_ROLE))]) if item.data(DEVICE_ROLE) is not None else -1
    elif hit is not None:
        what, i = hit
        group = i if what in ("group", "frame") else sem.queries.group_of_block(i) if what == "block" \
            else int(g.group[i]) if what == "switch" else -1
    if 0 <= group < g.n_groups:
        name = g.names[group]
        if group in sem.expanded:
            out.append((f"Close group {name}", lambda: sem.collapse(group)))
        else:
            out.append((f"Open group {name}", lambda: sem.expand(group)))
    if sem.expanded:
        out.append(("Close all groups", sem.collapse_all))
    return out


def show_group_menu(view: CanvasView, event: QtGui.QContextMenuEvent) -> bool:
    """Pop the menu of :func:`group_actions` up at the pointer; False when it has nothing."""
    actions = group_actions(view, view.mapToScene(event.pos()))
    if not actions:
        return False
    menu = QtWidgets.QMenu(view)
    for text, fn in actions:
        menu.addAction(text).triggered.connect(fn)
    menu.exec(event.globalPos())
    return True


__all__ = ["group_actions", "show_group_menu"]
