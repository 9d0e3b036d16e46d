"""`fabricviz render` pictures, and a 20k-cable design whose fitted repaint draws a bounded number of
primitives (counted: the time it takes against an empty view is bench/repaint.py's)."""

from __future__ import annotations

import subprocess
import sys

from PySide6 import QtWidgets

from fabricviz.generate import k_ary_fat_tree
from fabricviz.ui.canvas.items.devices import K_IBSW, K_SERVER
from fabricviz.ui.main_window import DEMO_FABRIC

#: Fitted, a repaint of the 20k-cable design draws fewer primitives than this share of its cables
#: (the level of detail: bundles and batched paths, not a line per cable).
FITTED_SHARE = 0.1


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fabricviz", *args], capture_output=True, text=True,
                          timeout=120)


def test_render_writes_png_svg_and_refuses_bad_formats(tmp_path):
    png, svg = tmp_path / "demo.png", tmp_path / "demo.svg"
    r = _cli("render", str(DEMO_FABRIC), "-o", str(png), "--width", "900")
    assert r.returncode == 0, r.stderr
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    from PySide6 import QtGui
    img = QtGui.QImage(str(png))
    assert img.width() == 900 and img.height() >= 360
    r = _cli("render", str(DEMO_FABRIC), "-o", str(svg))
    assert r.returncode == 0, r.stderr
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text and "Legend" in text
    assert "spine01" in text and "InfiniBand switch (8)" in text
    r = _cli("render", str(DEMO_FABRIC), "-o", str(tmp_path / "x.gif"))
    assert r.returncode == 2 and r.stderr.strip() == (
        f"fabricviz: error: -o {tmp_path / 'x.gif'}: unknown picture format '.gif' (use .png, .svg or .pdf)")
    assert not (tmp_path / "x.gif").exists()


def count_primitives(view: QtWidgets.QGraphicsView) -> int:
    """What a paint of ``view`` draws, counted as bench/canvas.py does: each visible item one, and a
    visible path item each of its elements too (the level-of-detail path it last painted, if any)."""
    n = 0
    for item in view.scene().items():
        if not item.isVisible():
            continue
        n += 1
        if isinstance(item, QtWidgets.QGraphicsPathItem):
            drawn = getattr(item, "_drawn", None)
            n += (drawn[1] if drawn else item.path()).elementCount()
    return n


def test_20k_cable_design_repaint_draws_a_bounded_number_of_primitives(make_window):
    w = make_window()
    w.files.new_design()
    QtWidgets.QApplication.processEvents()
    w.view.viewport().repaint()
    empty = count_primitives(w.view)
    fabric = k_ary_fat_tree(30)                      # 6,750 hosts, 1,125 switches, 20,250 cables
    assert fabric.counts()["cables"] == 20_250
    w.apply_generated(fabric)
    w.view.fit_all()
    QtWidgets.QApplication.processEvents()
    assert w.scene.semantic.level == "far" and not w.scene.cables.items   # the layer draws every cable:
    assert not w.scene.made_items                    # near paths and device items are made when needed
    assert not w.scene.show_children                 # level of detail when fitted
    kinds = {int(fabric.devices_t.kind[d]) for d, _, _ in w.scene.label_layer.in_view(w.view)}
    assert kinds == {K_IBSW}                         # fitted: servers' names give way to switches'
    w.view.viewport().repaint()
    full = count_primitives(w.view)
    # zoomed in on a few racks: server names and contents come back
    w.view.resetTransform()
    w.view.centerOn(w.scene.items_by_id[fabric.find("leaf001")].scenePos())
    w.view._after_zoom()
    assert sum(w.scene.cables.counts().values()) == 20_250
    assert len(w.scene.cables.items) <= 6            # batched: one path item per colour bucket
    kinds = {int(fabric.devices_t.kind[d]) for d, _, _ in w.scene.label_layer.in_view(w.view)}
    assert w.scene.show_children and kinds == {K_SERVER, K_IBSW}
    w.view.viewport().repaint()
    zoomed = count_primitives(w.view)
    print(f"primitives drawn: empty {empty:,}, fitted 20k cables {full:,}, zoomed in {zoomed:,}")
    assert full < FITTED_SHARE * 20_250, (full, empty)
    assert full < zoomed, (full, zoomed)          # zoomed in, each cable near the racks is its own line


def test_the_top_rows_names_keep_clear_of_the_title(make_window):
    """A picture (or a video frame) of a leaf-spine at 960 px: the spines' names above them, at the
    top of the design's area, stay at least a font size under the title's box (they were 4 px under it)."""
    from fabricviz.anim.picture_options import PictureOptions
    from fabricviz.generate import leaf_spine
    from fabricviz.ui.canvas.picture_layout import label_rects, plan_picture, scene_parts
    w = make_window()
    w.editor.set_fabric(leaf_spine(4, 2, 4, fabric="ib"))
    QtWidgets.QApplication.processEvents()
    scene = w.scene
    parts = scene_parts(scene)
    lay = plan_picture(scene, PictureOptions(width=960, title="leaf-spine-4x2 — subnet manager sweep"), [],
                       "leaf-spine-4x2 — subnet manager sweep", parts)
    rects = label_rects(scene, lay.transform, lay.source, parts)
    top = min(r.top() for r in rects)
    assert lay.title_rect is not None and top - lay.title_rect.bottom() >= lay.font_px
