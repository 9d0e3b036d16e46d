"""File ▸ Export Image: the picture is what the canvas shows, without selection or hover, with its
labels inside the page, a legend sized to the picture and naming every colour drawn; PNG, SVG and PDF.

Expected numbers come from the picture's own rules (picture_layout: 1/96 of the width for the
legend's text, dpi/96 picture pixels per screen pixel) and from the design (the demo fat tree:
8 InfiniBand switches, 16 servers)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import FabricError
from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.export import BAND_PX, PictureCancelled, PictureOptions, picture_plan, render_scene
from fabricviz.ui.canvas.legend import VEIL_LABEL, Ramp
from fabricviz.ui.canvas.picture_layout import LEGEND_WIDTH_SHARE
from fabricviz.ui.dialogs.export_image import ExportImageDialog


def pixels(path) -> np.ndarray:
    """The picture as an (h, w) array of 0xAARRGGBB."""
    img = QtGui.QImage(str(path)).convertToFormat(QtGui.QImage.Format.Format_ARGB32)
    a = np.frombuffer(img.constBits(), np.uint32, img.height() * img.bytesPerLine() // 4)
    return a.reshape(img.height(), img.bytesPerLine() // 4)[:, :img.width()].copy()


def rgb(color) -> int:
    return 0xFF000000 | (QtGui.QColor(color).rgb() & 0xFFFFFF)


def hover(w, name: str) -> None:
    """Move the pointer over device ``name``: its port panel shows."""
    item = w.scene.items_by_id[w.editor.fabric.find(name)]
    w.view.hover_at(item.sceneBoundingRect().center())
    assert w.view.ports.panels


def test_selection_and_hover_are_left_out_and_kept(make_window, tmp_path):
    w = make_window()
    f = w.editor.fabric
    leaf = f.find("leaf01")
    cable = int(f.port("leaf01:1").cable.id)
    w.scene.select_devices([leaf])
    w.scene.set_selected_cables({cable})
    hover(w, "spine02")
    panels = list(w.view.ports.panels.values())
    opts = PictureOptions(1200, 800)
    dirty = w.export_view(str(tmp_path / "dirty.png"), opts, view=False)
    # the window is as it was: selection, highlight, panels
    assert w.scene.selected_device_ids() == [leaf] and w.scene.selected_cables == {cable}
    assert w.scene.cables.highlight.isVisible() and not w.scene.cables.highlight.path().isEmpty()
    assert all(p.isVisible() for p in panels) and list(w.view.ports.panels.values()) == panels
    # the picture is the one of the window with nothing selected or hovered
    a = pixels(dirty)
    assert a.shape == (800, 1200)
    assert not np.any(a == rgb(w.scene.theme.select_pen.color()))
    w.scene.set_selected_cables(set())
    w.scene.clearSelection()
    w.view.ports.clear()
    clean = w.export_view(str(tmp_path / "clean.png"), opts, view=False)
    assert np.array_equal(a, pixels(clean))
    # and the selection colour is there on the canvas itself (the check can fail)
    w.scene.set_selected_cables({cable})
    shot = w.view.viewport().grab().toImage().convertToFormat(QtGui.QImage.Format.Format_RGB32)
    assert shot.pixelColor(*_on_screen(w, cable)).name() == th.SELECT_COLOR


def test_selection_is_kept_when_exporting_zoomed_far_out(make_window, tmp_path):
    """At far zoom the semantic layer hides devices (group boxes): the selected ones are shown
    for their selection, and after a picture they are shown and selected again."""
    from fabricviz.generate import k_ary_fat_tree
    from fabricviz.ui.canvas.items.semantic import FAR
    w = make_window()
    w.apply_generated(k_ary_fat_tree(8))                  # 128 hosts, 80 switches: far at 0.15
    scene, f = w.scene, w.editor.fabric
    w.view.zoom_by(0.15 / w.view.scale_factor())
    assert scene.semantic.level == FAR
    hosts = [int(d) for d in f.device_ids("server")[:3]]
    cable = int(f.cable_ids()[0])
    scene.select_devices(hosts)
    scene.set_selected_cables({cable})
    assert all(scene.items_by_id[d].isVisible() for d in hosts)
    w.export_view(str(tmp_path / "far.svg"), PictureOptions(8000), view=False)     # drawn nearer
    assert scene.semantic.level == FAR
    assert scene.selected_device_ids() == sorted(hosts) and scene.selected_cables == {cable}
    assert all(scene.items_by_id[d].isVisible() and scene.items_by_id[d].isSelected() for d in hosts)


def _on_screen(w, cable: int) -> tuple[int, int]:
    p = w.view.mapFromScene(w.scene.cables.point_on(cable))     # on its route through the gutters
    return p.x(), p.y()


@pytest.mark.parametrize("opts", [PictureOptions(1000, 600), PictureOptions(1050, None, 300.0),
                                  PictureOptions(400, 1400)])
def test_every_label_is_inside_the_picture(make_window, tmp_path, opts):
    w = make_window()
    f = w.editor.fabric
    layout, _rows = picture_plan(w.scene, f, opts)
    labels = w.scene.label_layer.layout(layout.transform, layout.source)
    names = {text for _d, text, _r in labels}
    assert {"spine01", "leaf04"} <= names and len(labels) >= 8
    page = QtCore.QRectF(0, 0, layout.width, layout.height)
    for _d, text, r in labels:
        assert layout.area.contains(r) and page.contains(r), (text, r, layout.area)
    out = render_scene(w.scene, f, tmp_path / "p.png", opts)
    img = QtGui.QImage(str(out))
    assert (img.width(), img.height()) == (layout.pixel_size.width(), layout.pixel_size.height())
    assert img.width() == opts.width and (opts.height is None or img.height() == opts.height)
    # the lowest label (a server's name) is drawn: text-coloured pixels in its rect
    low = max(labels, key=lambda x: x[2].bottom())[2]
    a = pixels(out)
    k = layout.ratio
    box = a[int(low.top() * k):int(low.bottom() * k) + 1, int(low.left() * k):int(low.right() * k) + 1]
    assert np.any(box == rgb(w.scene.theme.text))


def test_legend_text_grows_with_the_picture_width(make_window, tmp_path):
    w = make_window()
    f = w.editor.fabric
    heights = {}
    for width in (1200, 3600):
        layout, rows = picture_plan(w.scene, f, PictureOptions(width, width * 9 // 16))
        assert layout.font_px == pytest.approx(width * LEGEND_WIDTH_SHARE) and LEGEND_WIDTH_SHARE == 1 / 96
        out = render_scene(w.scene, f, tmp_path / f"w{width}.png", PictureOptions(width, width * 9 // 16))
        # the legend's frame, found in the file: dark pixels down the middle of its rect
        a = pixels(out)
        r = layout.legend_rect
        col = a[:, int(r.center().x())]
        dark = np.flatnonzero(((col >> 8) & 0xFF) < 160)          # green channel: the frame, antialiased
        heights[width] = dark.max() - dark.min()
        # within the frame's antialiased width (3 px at 3600 px wide) of the rect's edges
        assert abs(dark.min() - r.top()) <= 3 and abs(dark.max() - r.bottom()) <= 3
    assert 2.8 < heights[3600] / heights[1200] < 3.2


def test_a_paper_figure_prints_legend_and_labels_at_8_pt(make_window):
    w = make_window()
    layout, _ = picture_plan(w.scene, w.editor.fabric, PictureOptions(1050, None, 300.0))
    assert layout.ratio == pytest.approx(300 / 96) and layout.width == pytest.approx(1050 / layout.ratio)
    assert layout.font_px == pytest.approx(8 * 96 / 72)              # 336 screen px: the 8-pt floor
    labels = w.scene.label_layer.layout(layout.transform, layout.source)
    # labels keep their screen size: 11 px text (plus the halo) = ≥ 34 picture pixels at 300 DPI
    assert all(r.height() * layout.ratio >= 34 for _d, _t, r in labels)


def test_transparent_png_svg_vector_and_pdf(make_window, tmp_path):
    w = make_window()
    f = w.editor.fabric
    out = render_scene(w.scene, f, tmp_path / "t.png", PictureOptions(800, 500, transparent=True))
    img = QtGui.QImage(str(out))
    assert img.hasAlphaChannel()
    assert img.pixelColor(0, 0).alpha() == 0 and img.pixelColor(799, 499).alpha() == 0
    out = render_scene(w.scene, f, tmp_path / "o.png", PictureOptions(800, 500))
    img = QtGui.QImage(str(out))
    assert not img.hasAlphaChannel() and img.pixelColor(0, 0) == w.scene.theme.background
    svg = render_scene(w.scene, f, tmp_path / "p.svg", PictureOptions(800, 500)).read_text()
    assert svg.count("<path") >= 3 and "<text" in svg and "<image" not in svg
    assert ">spine01<" in svg and ">Legend<" in svg and 'viewBox="0 0 800 500"' in svg
    pdf = render_scene(w.scene, f, tmp_path / "p.pdf", PictureOptions(1050, 700, 300.0)).read_bytes()
    assert pdf.startswith(b"%PDF") and b"/MediaBox [0 0 252.000000 168.000000]" in pdf   # 3.5 × 2.33 in
    with pytest.raises(FabricError, match="transparent background: use a .png or .svg"):
        render_scene(w.scene, f, tmp_path / "t.pdf", PictureOptions(800, 500, transparent=True))
    assert not (tmp_path / "t.pdf").exists()


def test_current_view_at_200_percent_is_what_the_view_shows(make_window, tmp_path):
    w = make_window()
    f = w.editor.fabric
    w.view.resetTransform()
    w.view.scale(2.0, 2.0)
    w.view._after_zoom()
    w.view.centerOn(w.scene.items_by_id[f.find("leaf02")].scenePos())
    QtWidgets.QApplication.processEvents()
    shown = w.view.mapToScene(w.view.viewport().rect()).boundingRect()
    opts = PictureOptions(1200, 800)
    layout, _ = picture_plan(w.scene, f, opts, source=shown)
    assert layout.source == shown
    assert layout.transform.m11() == pytest.approx(min(layout.target.width() / shown.width(),
                                                       layout.target.height() / shown.height()))
    out = w.export_view(str(tmp_path / "v.png"), opts, view=True)
    a = pixels(out)
    blue = rgb(th.KIND_COLORS["ib_switch"])
    inside, drawn = set(), set()
    for d in f.device_ids("ib_switch").tolist():
        r = w.scene.items_by_id[d].sceneBoundingRect()
        if shown.contains(r):
            inside.add(f.name_of(d))
        p = layout.transform.map(r.center())
        if layout.target.contains(p) and a[int(p.y()), int(p.x())] == blue:
            drawn.add(f.name_of(d))
    assert inside and drawn == inside
    assert len(inside) < 8                     # the view at 200 % does not hold the whole design
    whole = pixels(w.export_view(str(tmp_path / "d.png"), opts, view=False))
    assert not np.array_equal(a, whole)


def test_png_is_drawn_in_bands_that_can_be_cancelled(make_window, tmp_path):
    w = make_window()
    f = w.editor.fabric
    opts = PictureOptions(1600, 1400)
    layout, _ = picture_plan(w.scene, f, opts)
    top, bottom = int(layout.target.top()), min(int(layout.target.bottom()) + 1, 1400)
    bands = len(range(top, bottom, BAND_PX))
    calls = []
    render_scene(w.scene, f, tmp_path / "all.png", opts, progress=lambda d, t: calls.append((d, t)) or True)
    assert calls == [(k, bands + 1) for k in range(bands + 1)] and bands == 3
    calls.clear()
    with pytest.raises(PictureCancelled):
        render_scene(w.scene, f, tmp_path / "no.png", opts, progress=lambda d, t: calls.append(d) or d < 1)
    assert calls == [0, 1] and not (tmp_path / "no.png").exists()
    assert w.scene.selected_device_ids() == [] and w.view.viewport().updatesEnabled()


def test_the_sweeps_dimming_has_a_legend_row_while_devices_are_dimmed(sweep_window, qtbot):
    w, dock = sweep_window
    f = w.editor.fabric
    dock.show_step(3)                            # early in the sweep: most switches not found yet
    _layout, rows = picture_plan(w.scene, f, PictureOptions(1200, 800))
    labels = [r[0] for r in rows]
    assert VEIL_LABEL in labels and "discovered" in labels
    veil = next(r for r in rows if r[0] == VEIL_LABEL)
    assert veil[1].name() == w.scene.theme.background.name() and veil[2] == "veil"
    dock.show_step(len(dock.timeline) - 1)       # swept: nothing dimmed, no veil row
    _layout, rows = picture_plan(w.scene, f, PictureOptions(1200, 800))
    assert VEIL_LABEL not in [r[0] for r in rows]


def test_heatmap_is_exported_with_its_scale_and_marks_and_no_cable_rows(make_window, tmp_path):
    from types import SimpleNamespace

    from fabricviz.ui.canvas.overlays.traffic import COLORS, PAUSED_COLOR, ColorScale
    w = make_window()
    f = w.editor.fabric
    ov = w.traffic_view.overlay
    n = int(f.cables_t.n)
    util = np.linspace(0.0, 1.0, 2 * n)                 # every bucket of the ramp in use
    paused = np.zeros(2 * n, bool)
    paused[2 * int(f.port("leaf01:1").cable.id)] = True
    ov.set_links(f, 2 * n)
    ov.show_frame(SimpleNamespace(link_util=util, link_paused=paused, link_ecn=np.zeros(2 * n)),
                  ColorScale("utilisation", 0.0, 1.0))
    layout, rows = picture_plan(w.scene, f, PictureOptions(1200, 800))
    labels = [r[0] for r in rows]
    assert labels == ["InfiniBand switch (8)", "Server (16)", "GPU (16)", "NIC (16)",
                      "Utilisation (hotter direction)", "paused (PFC XOFF / no credits)"]
    ramp = rows[4][2]
    assert isinstance(ramp, Ramp) and ramp.ticks == ("0 %", "50 %", "100 %")
    assert ramp.colors == tuple(c.name() for c in COLORS)
    out = render_scene(w.scene, f, tmp_path / "heat.png", PictureOptions(1200, 800))
    a = pixels(out)
    design = a[int(layout.target.top()):int(layout.target.bottom()), int(layout.target.left()):
               int(layout.target.right())]
    legend = a[int(layout.legend_rect.top()):int(layout.legend_rect.bottom()),
               int(layout.legend_rect.left()):int(layout.legend_rect.right())]
    for c in (COLORS[0], COLORS[-1], QtGui.QColor(PAUSED_COLOR)):     # drawn, and shown in the legend
        assert np.any(design == rgb(c)) and np.any(legend == rgb(c))
    cable = rgb(th.CABLE_COLORS[(1, "transceiver")])                   # covered by the heat: no row
    assert not np.any(design == cable)


def _pick(dialog: ExportImageDialog, key: str) -> None:
    dialog.mode.setCurrentIndex(dialog.mode.findData(key))


def test_dialog_sizes_and_remembered_choices(qtbot, tmp_path):
    settings = QtCore.QSettings(str(tmp_path / "s.ini"), QtCore.QSettings.Format.IniFormat)
    d = ExportImageDialog(str(tmp_path / "fig.png"), "demo — 16 servers", settings)
    qtbot.addWidget(d)
    assert d.mode_key() == "slide" and d.options() == PictureOptions(1920, 1080, 96.0, False, True, None)
    assert d.summary.text() == "1920 × 1080 px · 20.00 in (508 mm) wide at 96 DPI"
    _pick(d, "slide4k")
    assert d.options() == PictureOptions(3840, 2160, 192.0, False, True, None)
    _pick(d, "print")
    assert d.print_row.isEnabled() and not d.pixels_row.isEnabled()
    d.print_width.setValue(3.5)
    d.dpi.setValue(300)
    assert (d.options().width, d.options().height, d.options().dpi) == (1050, None, 300.0)
    d.unit.setCurrentText("mm")
    d.print_width.setValue(89.0)
    d.print_height.setValue(60.0)
    assert (d.options().width, d.options().height) == (round(89 / 25.4 * 300), round(60 / 25.4 * 300))
    d.print_width.setValue(200.0)                        # 200 mm at 1200 DPI: 9449 px, fine
    d.dpi.setValue(1200)
    d.print_height.setValue(0.0)
    assert d.ok_button.isEnabled() and d.options().width == 9449
    d.unit.setCurrentText("in")                          # 200 in at 1200 DPI: too wide
    assert not d.ok_button.isEnabled() and d.summary.text() == "picture width 240000: use 200 to 20000 pixels"
    d.print_width.setValue(3.5)
    d.dpi.setValue(300)
    d.transparent.setChecked(True)
    d.legend.setChecked(False)
    d.title.setText("Rail-optimised pod")
    d.extent_view.setChecked(True)
    assert d.options() == PictureOptions(1050, None, 300.0, True, False, "Rail-optimised pod") and d.extent() == "view"
    d.title_on.setChecked(False)
    assert d.options().title == "" and not d.title.isEnabled()
    d.accept()
    again = ExportImageDialog(str(tmp_path / "fig.png"), "demo", settings)
    qtbot.addWidget(again)
    assert again.mode_key() == "print" and again.extent() == "view"
    assert again.options() == PictureOptions(1050, None, 300.0, True, False, "")
    pdf = ExportImageDialog(str(tmp_path / "fig.pdf"), "demo", settings)  # a PDF page is never transparent
    qtbot.addWidget(pdf)
    assert not pdf.transparent.isEnabled() and pdf.options().transparent is False


def test_file_export_image_writes_what_the_dialog_chose(make_window, qtbot, tmp_path, monkeypatch):
    w = make_window()
    target = tmp_path / "slide.png"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(target), "")))
    seen = []

    def answer(accept: bool) -> None:
        d = QtWidgets.QApplication.activeModalWidget()
        seen.append(d.objectName())
        _pick(d, "custom")
        d.width_px.setValue(900)
        d.height_px.setValue(500)
        d.dpi.setValue(144)
        (d.accept if accept else d.reject)()
    QtCore.QTimer.singleShot(0, lambda: answer(False))
    w.acts["export_image"].trigger()
    assert seen == ["export_image_dialog"] and not target.exists()
    QtCore.QTimer.singleShot(0, lambda: answer(True))
    w.acts["export_image"].trigger()
    img = QtGui.QImage(str(target))
    assert (img.width(), img.height()) == (900, 500) and round(img.dotsPerMeterX() * 0.0254) == 144
    assert w.statusBar().currentMessage() == f"exported {target}"


def test_lesson_screenshot_has_no_selection(make_window, tmp_path, shared_runs, monkeypatch):
    """``fabricviz demo --screenshot`` draws through the same picture: a selection made on the
    lesson's canvas (here: Select All right before the shot) is not in it."""
    from fabricviz.ui.shot import shoot
    w = make_window()
    finish = w.lesson_stage.finish

    def finish_and_select() -> None:
        finish()
        w.selection.select_all()
    monkeypatch.setattr(w.lesson_stage, "finish", finish_and_select)
    out = shoot(w, "1", 7, tmp_path / "pull.png", 900)
    a = pixels(out)
    assert a.shape[1] == 900
    assert w.scene.selected_cables and not np.any(a == rgb(th.SELECT_COLOR))
    from fabricviz.ui.canvas.overlays.lesson import GHOST_COLOR
    assert np.any(a == rgb(GHOST_COLOR))                 # the step's overlay is drawn


def test_traffic_playback_stands_still_while_a_picture_is_drawn(make_window, qtbot, tmp_path, monkeypatch):
    """Events run between a PNG's bands: the Traffic dock's frames must not move meanwhile (the
    bands would show different frames); playback goes on afterwards at the same frame."""
    from fabricviz.ui.dialogs import export_image
    w = make_window()
    dock = w.traffic_dock
    dock.configure(workload="incast", arg="3", model="fluid", duration="1ms")
    with qtbot.waitSignal(dock.result_ready, timeout=60_000):
        assert dock.run()
    assert len(dock.result.frames) > 2
    dock.player.set_playing(True)
    frame = dock.frame
    seen = []
    call = export_image.PaintProgress.__call__

    def watch(self, done: int, total: int) -> bool:
        seen.append((dock.player.timer.isActive(), dock.frame))
        return call(self, done, total)
    monkeypatch.setattr(export_image.PaintProgress, "__call__", watch)
    d = ExportImageDialog(str(tmp_path / "p.png"), "demo")
    qtbot.addWidget(d)
    _pick(d, "custom")
    d.width_px.setValue(900)
    d.height_px.setValue(1200)
    d.dpi.setValue(96)
    assert export_image.run_export(w, str(tmp_path / "p.png"), d) == tmp_path / "p.png"
    assert len(seen) == 4 and seen == [(False, frame)] * 4          # 3 bands of 512 rows and the start
    assert dock.player.timer.isActive() and dock.frame == frame


@pytest.mark.parametrize("opts", [PictureOptions(1500, 1000, 1200.0), PictureOptions(2400, 200),
                                  PictureOptions(200, 200, 160.0)])
def test_the_smallest_and_flattest_pictures_are_drawn(make_window, tmp_path, opts):
    """At the least layout (120 × 80 screen pixels) and for a wide strip the design gets what
    is left without a legend beside it; the picture has the size asked."""
    w = make_window()
    out = render_scene(w.scene, w.editor.fabric, tmp_path / "small.png", opts)
    img = QtGui.QImage(str(out))
    assert (img.width(), img.height()) == (opts.width, opts.height)


def test_dialog_refuses_a_layout_too_small_to_draw(qtbot, tmp_path):
    d = ExportImageDialog(str(tmp_path / "fig.png"), "demo")
    qtbot.addWidget(d)
    _pick(d, "custom")
    d.width_px.setValue(200)
    d.dpi.setValue(1200)
    assert not d.ok_button.isEnabled()
    assert d.summary.text() == ("picture width 200 at resolution 1200: 16 screen pixels (1/96 in), at least 120 "
                                "(raise picture width or lower resolution)")
    d.width_px.setValue(1500)
    assert d.ok_button.isEnabled()
