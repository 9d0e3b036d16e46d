"""The canvas's breadcrumbs: while groups are open in place (semantic zoom,
:mod:`fabricviz.ui.canvas.items.semantic`) a small bar at the top-left reads ``design › pod 3``."""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6 import QtCore, QtWidgets


class Breadcrumbs(QtWidgets.QLabel):
    """A small bar at the canvas's top-left while groups are open: ``design › pod 3``. Clicking
    the design name closes every group; clicking a group's name shows it whole."""

    def __init__(self, view: QtWidgets.QGraphicsView, on_design: Callable[[], None],
                 on_group: Callable[[int], None]) -> None:
        super().__init__(view)        # not the viewport's child: scrolling the view would move it
        self.view = view
        self.setObjectName("canvas_breadcrumbs")
        self.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.setStyleSheet("QLabel#canvas_breadcrumbs { background: palette(base); color: palette(text);"
                           " border: 1px solid palette(mid); border-radius: 4px; padding: 3px 8px; }")
        self.linkActivated.connect(self._link)
        self._on_design, self._on_group = on_design, on_group
        self.crumbs: list[str] = []
        self.hide()

    def set_path(self, design: str, groups: list[tuple[int, str]]) -> None:
        """Show ``design › group, group`` (hidden when no group is open)."""
        self.crumbs = [design] + [name for _, name in groups] if groups else []
        if not groups:
            self.hide()
            return
        esc = html.escape
        parts = ", ".join(f'<a href="g{g}">{esc(name)}</a>' for g, name in groups)
        self.setText(f'<a href="design">{esc(design)}</a> › {parts}')
        self.adjustSize()
        vp = self.view.viewport().geometry()
        self.move(vp.x() + 8, vp.y() + 8)
        self.show()
        self.raise_()

    def plain_text(self) -> str:
        """``fat-tree-3l-r16 › pod 3`` (what the bar reads)."""
        return f"{self.crumbs[0]} › {', '.join(self.crumbs[1:])}" if self.crumbs else ""

    def _link(self, href: str) -> None:
        if href == "design":
            self._on_design()
        elif href.startswith("g"):
            self._on_group(int(href[1:]))


__all__ = ["Breadcrumbs"]
