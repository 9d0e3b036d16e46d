"""Which of the scene's own items show while the semantic layer draws far or middle.

At near the scene's device items and cable paths draw everything; at far and middle the layer
draws groups, blocks and bundles itself, and only the devices it draws as themselves (those of
open groups, :attr:`~fabricviz.ui.canvas.items.semantic.SemanticLayer.near`) keep their items —
plus any device being selected, shown until it is deselected. Cable paths are hidden there (the
layer draws every cable).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from fabricviz.ui.canvas.scene import FabricScene


class SceneItemVisibility:
    """Shows and hides the scene's own items for the level drawn (held by the semantic layer)."""

    def __init__(self, scene: FabricScene) -> None:
        self.scene = scene
        self.shown: set[int] = set()         # hidden-level devices shown because selected
        self.hiding = False                  # far/middle: items not drawn as themselves are hidden

    def _cable_paths(self) -> list:
        cables = self.scene.cables
        return [*cables.items.values(), cables.highlight]

    def show_all(self) -> None:
        """Near: the scene's own items and cable paths draw everything again."""
        scene = self.scene
        self.hiding = False
        scene.ensure_cables()
        scene.make_items_in_view()           # deferred items: those on screen (more as it scrolls)
        if not scene.batch.on:
            for item in scene.made_items.values():
                if item.parentItem() is None and not item.isVisible():
                    item.setVisible(True)
        for path_item in self._cable_paths():
            path_item.setVisible(True)
        self.shown.clear()

    def apply(self, near: np.ndarray) -> None:
        """Far/middle: only devices drawn as themselves (``near``, per device) and selected ones
        keep their items; no cable path shows."""
        scene = self.scene
        f = scene.fabric
        assert f is not None
        self.hiding = True
        t = f.devices_t
        tops = np.flatnonzero(t.alive & (t.parent < 0))
        want = near[tops]
        if want.any():
            scene.make_items(tops[want])         # deferred items: only those drawn as themselves
        items = scene.made_items
        self.shown = {d for d in self.shown if d in items and items[d].isSelected()}
        for d, w in zip(tops.tolist(), want.tolist(), strict=True):
            item = items.get(d)
            if item is not None:
                w = w or d in self.shown
                if item.isVisible() != w:
                    item.setVisible(w)
        for path_item in self._cable_paths():
            path_item.setVisible(False)

    def show_device(self, d: int) -> None:
        """Give a device the layer draws its own item (it is being selected)."""
        item = self.scene.made_items.get(d)
        if item is not None and item.parentItem() is None and not item.isVisible():
            item.setVisible(True)
            self.shown.add(d)

    def hide_deselected(self, near: np.ndarray) -> bool:
        """The devices shown only because selected that no longer are go back to the layer's
        drawing; False when the scene is being destroyed (its items are gone)."""
        items = self.scene.made_items
        try:
            for d in [d for d in self.shown if d not in items or not items[d].isSelected()]:
                self.shown.discard(d)
                if d in items and d < len(near) and not near[d]:
                    items[d].setVisible(False)
        except RuntimeError:
            return False
        return True

    def hide_new(self, tops: np.ndarray) -> None:
        """Top-level items made while far/middle is drawn (deferred ones) show only if drawn as
        themselves (``near``) or selected, as :meth:`apply` left the others."""
        if not self.hiding or not len(tops):
            return
        near, items = self.scene.semantic.near, self.scene.made_items
        for d in tops.tolist():
            item = items.get(d)
            if item is not None and not (d < len(near) and near[d]) and d not in self.shown:
                item.setVisible(False)

    def hide_cable_paths(self) -> None:
        for path_item in self._cable_paths():
            path_item.setVisible(False)


__all__ = ["SceneItemVisibility"]
