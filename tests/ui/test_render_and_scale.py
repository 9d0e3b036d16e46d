"""`fabricviz render` pictures, and a 20k-cable design repainting within a budget relative to an empty view."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

from PySide6 import QtWidgets

from fabricviz.generate import k_ary_fat_tree
from fabricviz.ui.canvas.items.devices import K_IBSW, K_SERVER
from fabricviz.ui.main_window import DEMO_FABRIC

#: A full repaint of the fitted 20k-cable design may cost at most this many empty-view repaints.
RELATIVE_BUDGET = 60.0


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


def _repaint_ms(view, n: int = 7) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        view.viewport().repaint()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times[1:])


def test_20k_cable_design_repaints_within_a_budget_relative_to_an_empty_view(make_window):
    w = make_window()
    w.files.new_design()
    QtWidgets.QApplication.processEvents()
    empty = _repaint_ms(w.view)
    fabric = k_ary_fat_tree(30)                      # 6,750 hosts, 1,125 switches, 20,250 cables
    assert fabric.counts()["cables"] == 20_250
    w.apply_generated(fabric)
    w.view.fit_all()
    QtWidgets.QApplication.processEvents()
    assert sum(w.scene.cables.counts().values()) == 20_250
    assert len(w.scene.cables.items) <= 6            # batched: one path item per colour bucket
    assert not w.scene.show_children                 # level of detail when fitted
    kinds = {int(fabric.devices_t.kind[d]) for d, _, _ in w.scene.label_layer.in_view(w.view)}
    assert kinds == {K_IBSW}                         # fitted: servers' names give way to switches'
    full = _repaint_ms(w.view)
    # zoomed in on a few racks: server names and contents come back
    w.view.resetTransform()
    w.view.centerOn(w.scene.items_by_id[fabric.find("leaf001")].scenePos())
    w.view._after_zoom()
    kinds = {int(fabric.devices_t.kind[d]) for d, _, _ in w.scene.label_layer.in_view(w.view)}
    assert w.scene.show_children and kinds == {K_SERVER, K_IBSW}
    zoomed = _repaint_ms(w.view)
    print(f"repaint medians: empty {empty:.2f} ms, fitted 20k cables {full:.2f} ms "
          f"({full / empty:.1f}x), zoomed in {zoomed:.2f} ms ({zoomed / empty:.1f}x)")
    assert full < RELATIVE_BUDGET * empty, (full, empty)
    assert zoomed < RELATIVE_BUDGET * empty, (zoomed, empty)
