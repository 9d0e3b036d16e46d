"""Pictures of a design — PNG, SVG or PDF — as the canvas shows it, fit for a slide or a paper.

* What is drawn: the scene with the overlays that are on (traffic heatmap, sweep state, lesson
  paths, the semantic zoom's groups and bundles) at the picture's own level of detail, without
  what belongs to the pointer: the selection (cable highlight, selected bundles, Qt's selection
  outline), the port panels of a hovered device and the names they pin, a cable being drawn
  (the rubber band and the grid are the view's, never the scene's). The selection is put back
  afterwards, unchanged (:func:`clean_scene`).
* Size and legend: see :mod:`fabricviz.ui.canvas.picture_layout` (laid out in screen pixels,
  drawn at dpi/96 picture pixels each) and :mod:`fabricviz.ui.canvas.legend` (a row for every
  colour drawn).
* A PNG is drawn in bands of :data:`BAND_PX` rows, each into an image of its own (the cable
  and heatmap items cut what they draw to it), and names last over the whole picture (so no
  name is cut at a band's edge); ``progress(done, total)`` between bands may cancel. Painting
  stays on the UI thread.
* SVG and PDF stay vector (QSvgGenerator, QPdfWriter): path caches are off while drawing, so
  no cached pixmap ends up in the file; names are text.

``python -m fabricviz.ui.canvas.export FILE -o OUT [options]`` is what ``fabricviz render``
runs, in a child process, so the CLI itself never loads Qt.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.anim.picture_options import (
    DEFAULT_OPTIONS,
    DPI_RANGE,
    FLAGS,
    FORMATS,
    MAX_PIXELS,
    SCREEN_DPI,
    SIDE_RANGE,
    PictureOptions,
    check_options,
    offscreen_env,
)
from fabricviz.model import Fabric, FabricError
from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.items.devices import DeviceItem
from fabricviz.ui.canvas.legend import (
    LegendBox,
    Row,
    cable_rows,
    device_rows,
    heat_rows,
    merge_rows,
    overlay_rows,
    semantic_rows,
)
from fabricviz.ui.canvas.picture_layout import PictureLayout, SceneParts, legend_font_px, plan_picture, scene_parts
from fabricviz.ui.canvas.scene import FabricScene

#: Rows of picture pixels drawn at a time (a progress step; the cancel point).
BAND_PX = 512
#: PNG encoder quality (Qt maps it to zlib's level): 50 writes an 8K picture in ~1.4 s, the
#: default in ~3.7 s, for a file ~12 % larger.
PNG_QUALITY = 50

Progress = Callable[[int, int], bool]


class PictureCancelled(Exception):
    """The user cancelled a picture while it was drawn (nothing was written)."""


def picture_suffix(path: str | os.PathLike[str]) -> str:
    """``.png``, ``.svg`` or ``.pdf`` from the file name, else a one-line refusal."""
    out = Path(path)
    suffix = out.suffix.lower()
    if suffix not in FORMATS:
        raise FabricError(f"{out}: unknown picture format {out.suffix or '(none)'!r} (use .png, .svg or .pdf)")
    return suffix


# ---------------------------------------------------------------------------- the scene, cleaned
@contextmanager
def clean_scene(scene: FabricScene, transparent: bool = False) -> Iterator[SceneParts]:
    """The scene without selection, hover, empty paths (an SVG ``d=""``) or cached pixmaps
    while a picture is drawn (scene signals blocked: the docks see no selection change; the
    views do not repaint meanwhile); afterwards everything is as before, the level of detail
    of the scene's view included."""
    parts = scene_parts(scene)
    selected = scene.selectedItems()
    devices = scene.selected_device_ids()
    cables = set(scene.selected_cables)
    pointer = [it for it in parts.pointer if it.isVisible()]
    pointer += [it for it in (scene.cables.live, *parts.overlays)     # nothing to draw: no empty
                if isinstance(it, QtWidgets.QGraphicsPathItem) and it.isVisible() and it.path().isEmpty()]
    layer = getattr(scene, "label_layer", None)
    pins = _layer_pins(layer)
    highlight = scene.cables.highlight.isVisible()
    detail = (scene.show_labels, scene.show_children, scene.batch.on)
    cache = scene.path_cache
    background = scene.backgroundBrush()
    views = scene.views()
    frozen = [v for v in views if v.viewport().updatesEnabled()]
    for v in frozen:
        v.viewport().setUpdatesEnabled(False)
    blocked = scene.blockSignals(True)
    try:
        for it in selected:
            it.setSelected(False)
        scene.cables.highlight.setVisible(False)
        for it in pointer:
            it.setVisible(False)
        for d in pins:                          # pins come from the layer
            if layer is not None:
                layer.pin(d, False)
        scene.set_path_cache(False)
        if transparent:
            scene.setBackgroundBrush(QtGui.QBrush())
        yield parts
    finally:
        shown = [v for v in views if v.isVisible()] or views
        if shown:                               # the canvas's own level of detail again
            scene.detail_for_scale(float(shown[0].transform().m11()))
        else:
            scene.set_detail(detail[0], detail[1])
            scene.batch.set_on(detail[2])
        scene.set_path_cache(cache == QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)
        for d in pins:
            if layer is not None:
                layer.pin(d, True)
        for it in pointer:                        # items a rebuild deleted meanwhile stay gone
            if shiboken6.isValid(it) and it.scene() is scene:
                it.setVisible(True)
        scene.cables.highlight.setVisible(highlight)
        if devices or selected:                   # through the scene: a device the far/middle zoom
            scene.select_devices(devices, inner=True)   # hides (batched, in a group box) is shown again
            for it in selected:                   # first, else Qt ignores setSelected on it
                if shiboken6.isValid(it) and not isinstance(it, DeviceItem) and it.scene() is scene:
                    it.setSelected(True)
        scene.set_selected_cables(cables)
        scene.setBackgroundBrush(background)
        scene.blockSignals(blocked)
        for v in frozen:
            v.viewport().setUpdatesEnabled(True)
            v.viewport().update()


def _layer_pins(layer) -> list[int]:
    """Devices that pinned a name on the label layer (their port panel is open)."""
    pins = getattr(layer, "_pins", None) if layer is not None else None
    return sorted({who for whos in pins.values() for who in whos}) if isinstance(pins, dict) else []


# ---------------------------------------------------------------------------- drawing
def default_title(fabric: Fabric) -> str:
    c = fabric.counts()
    return (f"{fabric.name} — {c['server']:,} servers, {c['ib_switch'] + c['eth_switch']:,} switches, "
            f"{c['cables']:,} cables")


def paint_frame(painter: QtGui.QPainter, scene: FabricScene, layout: PictureLayout, title: str,
                transparent: bool) -> None:
    """The background and the title (a narrow picture's title gets smaller, then elided)."""
    theme = scene.theme
    if not transparent:
        painter.fillRect(QtCore.QRectF(0, 0, layout.width, layout.height), theme.background)
    if layout.title_rect is None or not title:
        return
    font = QtGui.QFont()
    font.setBold(True)
    px = layout.font_px * 1.3
    while True:
        font.setPixelSize(max(1, round(px)))
        fm = QtGui.QFontMetricsF(font)
        if fm.horizontalAdvance(title) <= layout.title_rect.width() or px <= layout.font_px:
            break
        px = max(layout.font_px, px * 0.9)
    painter.setFont(font)
    painter.setPen(theme.text)
    painter.drawText(layout.title_rect, QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignVCenter,
                     fm.elidedText(title, QtCore.Qt.TextElideMode.ElideRight, layout.title_rect.width()))


def paint_legend(painter: QtGui.QPainter, scene: FabricScene, layout: PictureLayout, rows: list[Row],
                 transparent: bool) -> None:
    if layout.legend_rect is not None:
        box = LegendBox(rows, layout.font_px, scene.theme.text, None if transparent else scene.theme.background)
        box.paint(painter, layout.legend_rect, layout.columns)


def paint_picture(painter: QtGui.QPainter, scene: FabricScene, layout: PictureLayout, rows: list[Row],
                  title: str, transparent: bool = False) -> None:
    """The whole picture in one pass through ``painter`` (screen pixels): SVG and PDF."""
    paint_frame(painter, scene, layout, title, transparent)
    scene.render(painter, layout.target, layout.source, QtCore.Qt.AspectRatioMode.IgnoreAspectRatio)
    paint_legend(painter, scene, layout, rows, transparent)


def paint_png(img: QtGui.QImage, scene: FabricScene, layout: PictureLayout, rows: list[Row], title: str,
              transparent: bool, progress: Progress | None = None) -> None:
    """The picture into ``img`` (picture pixels, device pixel ratio ``layout.ratio``): frame,
    the scene band by band without names, the names over the whole, the legend."""
    hints = _hints()
    r = layout.ratio
    painter = QtGui.QPainter(img)
    painter.setRenderHints(hints)
    paint_frame(painter, scene, layout, title, transparent)
    painter.end()
    layer = getattr(scene, "label_layer", None)
    names = layer is not None and layer.isVisible()
    target, t = layout.target, layout.transform
    inv = t.inverted()[0]
    top_px, bottom_px = int(target.top() * r), min(int(target.bottom() * r) + 1, img.height())
    bands = list(range(top_px, bottom_px, BAND_PX)) or [top_px]
    total = len(bands) + 1
    if progress is not None and not progress(0, total):
        raise PictureCancelled()
    if names and layer is not None:
        layer.setVisible(False)
    try:
        for k, y0 in enumerate(bands):
            y1 = min(y0 + BAND_PX, bottom_px)
            part = QtCore.QRectF(target.left(), y0 / r, target.width(), (y1 - y0) / r).intersected(target)
            if not part.isEmpty():
                band = QtGui.QImage(img.width(), y1 - y0, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
                band.setDevicePixelRatio(r)
                band.fill(QtCore.Qt.GlobalColor.transparent)
                p = QtGui.QPainter(band)
                p.setRenderHints(hints)
                scene.render(p, part.translated(0, -y0 / r), inv.mapRect(part),
                             QtCore.Qt.AspectRatioMode.IgnoreAspectRatio)
                p.end()
                band.setDevicePixelRatio(1.0)
                img.setDevicePixelRatio(1.0)
                p = QtGui.QPainter(img)
                p.drawImage(0, y0, band)
                p.end()
                img.setDevicePixelRatio(r)
            if progress is not None and not progress(k + 1, total):
                raise PictureCancelled()
    finally:
        if names and layer is not None:
            layer.setVisible(True)
    painter = QtGui.QPainter(img)
    painter.setRenderHints(hints)
    if names and layer is not None:                # one layout for the whole picture
        painter.save()
        painter.setClipRect(target)
        painter.setWorldTransform(t)
        option = QtWidgets.QStyleOptionGraphicsItem()
        option.exposedRect = layout.source.intersected(layer.boundingRect())
        layer.paint(painter, option, None)
        painter.restore()
    paint_legend(painter, scene, layout, rows, transparent)
    painter.end()


def _hints() -> QtGui.QPainter.RenderHint:
    return (QtGui.QPainter.RenderHint.Antialiasing | QtGui.QPainter.RenderHint.TextAntialiasing
            | QtGui.QPainter.RenderHint.SmoothPixmapTransform)


def picture_rows(fabric: Fabric, scene: FabricScene, parts: SceneParts, extra_rows: Iterable[Row]) -> list[Row]:
    """The legend: device kinds and cable types drawn, the caller's rows (a lesson's paths),
    the overlays on the scene (heat scale and marks, sweep states), then the semantic zoom's
    groups and bundles (a bundle colour already named above is not named again)."""
    return merge_rows(device_rows(fabric, scene), cable_rows(scene), extra_rows, overlay_rows(parts.overlays, scene),
                      semantic_rows(scene))


def render_scene(scene: FabricScene, fabric: Fabric, path: str | os.PathLike[str],
                 options: PictureOptions | int = DEFAULT_OPTIONS, height: int | None = None,
                 title: str | None = None, extra_rows: Iterable[Row] = (),
                 source: QtCore.QRectF | None = None, progress: Progress | None = None,
                 encode: Callable[[Callable[[], bytes]], bytes] | None = None) -> Path:
    """Write a picture of ``scene`` as shown (overlays included, selection and hover left out)
    to ``path``; ``source`` limits it to a scene rect (the view). ``options`` may be a width
    in pixels; ``title`` overrides the options' title. ``progress(done, total)`` is called
    between PNG bands (False: stop, PictureCancelled); ``encode(fn)`` runs the PNG encoding
    ``fn`` (the window: as a job off the UI thread, once the scene is back as it was)."""
    opts = options if isinstance(options, PictureOptions) else PictureOptions(width=int(options), height=height)
    if title is not None:
        opts = replace(opts, title=title)
    out = Path(path)
    suffix = picture_suffix(out)
    check_options(opts, suffix)
    from fabricviz.formats.native import check_writable
    check_writable(fabric, out)          # a position that is not finite has no place in a picture
    scene.flush()
    text = default_title(fabric) if opts.title is None else opts.title
    extra = list(extra_rows)
    with clean_scene(scene, opts.transparent) as parts:
        layout, rows = _plan(scene, fabric, opts, parts, extra, text, source)
        drawn = _draw(suffix, scene, layout, rows, text, opts, fabric.name, out, progress)
    if isinstance(drawn, QtGui.QImage):
        img = drawn

        def png() -> bytes:
            return encode_png(img, opts, out)
        drawn = encode(png) if encode is not None else png()
    if not drawn:
        raise FabricError(f"{out}: nothing was drawn")
    from fabricviz.model.atomic import write_atomic
    write_atomic(out, drawn)
    return out


def _plan(scene: FabricScene, fabric: Fabric, opts: PictureOptions, parts: SceneParts, extra: list[Row],
          text: str, source: QtCore.QRectF | None) -> tuple[PictureLayout, list[Row]]:
    """The layout and the legend rows, the rows taken again at the picture's level of detail."""
    rows = picture_rows(fabric, scene, parts, extra)
    layout = plan_picture(scene, opts, rows, text, parts, source)
    again = picture_rows(fabric, scene, parts, extra)
    if [r[0] for r in again] != [r[0] for r in rows]:
        rows = again
        layout = plan_picture(scene, opts, rows, text, parts, source)
    return layout, rows


def picture_plan(scene: FabricScene, fabric: Fabric, options: PictureOptions = DEFAULT_OPTIONS,
                 extra_rows: Iterable[Row] = (),
                 source: QtCore.QRectF | None = None) -> tuple[PictureLayout, list[Row]]:
    """The layout and legend rows :func:`render_scene` draws with (the scene is left as it was)."""
    text = default_title(fabric) if options.title is None else options.title
    with clean_scene(scene, options.transparent) as parts:
        return _plan(scene, fabric, options, parts, list(extra_rows), text, source)


def encode_png(img: QtGui.QImage, opts: PictureOptions, out: Path) -> bytes:
    """The PNG file of a drawn picture (no alpha channel unless transparent; its DPI recorded).
    No painting: safe off the UI thread."""
    if not opts.transparent:
        img = img.convertToFormat(QtGui.QImage.Format.Format_RGB32)
    dpm = round(opts.dpi / 0.0254)
    img.setDotsPerMeterX(dpm)
    img.setDotsPerMeterY(dpm)
    buf = QtCore.QBuffer()
    buf.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    if not img.save(buf, "PNG", PNG_QUALITY):  # type: ignore[call-overload]  # PySide6's stub: format as bytes, which it refuses (str works)
        raise FabricError(f"{out}: cannot encode the PNG")
    return bytes(buf.data())  # type: ignore[call-overload]  # stub: QByteArray has no buffer protocol


def _draw(suffix: str, scene: FabricScene, layout: PictureLayout, rows: list[Row], title: str,
          opts: PictureOptions, name: str, out: Path, progress: Progress | None) -> bytes | QtGui.QImage:
    """The drawn picture: a PNG's image (encoded later), an SVG's or PDF's bytes."""
    if suffix == ".png":
        size = layout.pixel_size
        if size.width() * size.height() > MAX_PIXELS:
            raise FabricError(f"{out}: {size.width()} x {size.height()} pixels: at most {MAX_PIXELS:,} pixels")
        img = QtGui.QImage(size, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
        if img.isNull():
            raise FabricError(f"{out}: cannot make a {size.width()} x {size.height()} picture (out of memory)")
        img.setDevicePixelRatio(layout.ratio)
        img.fill(QtCore.Qt.GlobalColor.transparent)
        paint_png(img, scene, layout, rows, title, opts.transparent, progress)
        img.setDevicePixelRatio(1.0)
        return img
    buf = QtCore.QBuffer()
    buf.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    if suffix == ".svg":
        from PySide6.QtSvg import QSvgGenerator
        gen = QSvgGenerator()
        gen.setOutputDevice(buf)
        gen.setSize(QtCore.QSize(round(layout.width), round(layout.height)))
        gen.setViewBox(QtCore.QRectF(0, 0, layout.width, layout.height))
        gen.setResolution(round(SCREEN_DPI))
        gen.setTitle(name)
        gen.setDescription("fabricviz design picture")
        painter = QtGui.QPainter(gen)
        painter.setRenderHints(_hints())
        paint_picture(painter, scene, layout, rows, title, opts.transparent)
        painter.end()
    else:
        pdf = QtGui.QPdfWriter(buf)
        pdf.setResolution(round(SCREEN_DPI))
        points = QtCore.QSizeF(layout.width * 72 / SCREEN_DPI, layout.height * 72 / SCREEN_DPI)
        pdf.setPageSize(QtGui.QPageSize(points, QtGui.QPageSize.Unit.Point, "",
                                        QtGui.QPageSize.SizeMatchPolicy.ExactMatch))
        pdf.setPageMargins(QtCore.QMarginsF(0, 0, 0, 0))
        pdf.setTitle(name)
        pdf.setCreator("fabricviz")
        painter = QtGui.QPainter(pdf)
        painter.setRenderHints(_hints())
        sx = pdf.width() / layout.width                  # the page in device units of 1/96 in
        painter.scale(sx, sx)
        paint_picture(painter, scene, layout, rows, title, opts.transparent)
        painter.end()
        del pdf
    data = bytes(buf.data())  # type: ignore[call-overload]  # stub: QByteArray has no buffer protocol
    buf.close()
    return data


def render_fabric(fabric: Fabric, path: str | os.PathLike[str],
                  options: PictureOptions = DEFAULT_OPTIONS) -> Path:
    """Write a picture of ``fabric`` (light theme, in a scene of its own) to ``path``."""
    out = Path(path)
    check_options(options, picture_suffix(out))
    scene = FabricScene()
    scene.apply_theme(th.Theme(dark=False))
    scene.set_fabric(fabric)
    try:
        return render_scene(scene, fabric, out, options)
    finally:
        scene.set_fabric(None)


def main(argv: list[str] | None = None) -> int:
    """``python -m fabricviz.ui.canvas.export FILE -o OUT [--width W] [--height H] [--dpi D]
    [--transparent] [--no-legend] [--title TEXT]`` (run by ``fabricviz render``)."""
    import argparse
    ap = argparse.ArgumentParser(prog="fabricviz render")
    ap.add_argument("file")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--width", type=int, default=1600)
    ap.add_argument("--height", type=int)
    ap.add_argument("--dpi", type=float, default=SCREEN_DPI)
    ap.add_argument("--transparent", action="store_true")
    ap.add_argument("--no-legend", action="store_true")
    ap.add_argument("--title")
    args = ap.parse_args(argv)
    opts = PictureOptions(args.width, args.height, args.dpi, args.transparent, not args.no_legend, args.title)

    def make() -> Path:
        from fabricviz.loaders import load_any
        check_options(opts, picture_suffix(args.output), FLAGS)       # in the CLI's words
        return render_fabric(load_any(args.file), args.output, opts)
    return picture_main("fabricviz-render", make)


def picture_main(app_name: str, make: Callable[[], Path]) -> int:
    """The child-process side of a headless picture: a QApplication (offscreen without a
    display), ``make()`` writes the file; "wrote …" or a one-line ``fabricviz: error:``."""
    offscreen_env(os.environ)
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([app_name])
    try:
        out = make()
    except FabricError as exc:
        print(f"fabricviz: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:             # a file that cannot be read or written: one line, no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"fabricviz: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    finally:
        del app
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")
    return 0


__all__ = ["BAND_PX", "DPI_RANGE", "FORMATS", "MAX_PIXELS", "PictureCancelled", "PictureLayout", "PictureOptions",
           "SCREEN_DPI", "SIDE_RANGE", "check_options", "clean_scene", "default_title", "encode_png", "heat_rows",
           "legend_font_px", "paint_picture", "paint_png", "picture_plan", "picture_suffix", "plan_picture",
           "render_fabric", "render_scene"]


if __name__ == "__main__":
    sys.exit(main())
