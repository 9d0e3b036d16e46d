"""Pictures of a design: PNG, SVG or PDF with a title and a legend, no window needed.

``render_fabric(fabric, path, width)`` builds its own scene (so selection and
hover markers never leak into the picture). ``python -m fabricviz.ui.canvas.export FILE
-o OUT`` is what ``fabricviz render`` runs, in a child process, so the CLI itself
never loads Qt.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Callable

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import Fabric, FabricError
from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.scene import FabricScene

FORMATS = (".png", ".svg", ".pdf")
LEGEND_W = 230.0


def _legend(fabric: Fabric, scene: FabricScene) -> list[tuple[str, QtGui.QColor, str]]:
    """(label, colour, shape) rows: device kinds present, then cable buckets present."""
    c = fabric.counts()
    rows = []
    names = {"ib_switch": "InfiniBand switch", "eth_switch": "Ethernet switch", "server": "Server",
             "gpu": "GPU", "nic": "NIC"}
    for kind in ("ib_switch", "eth_switch", "server", "gpu", "nic"):
        if c[kind]:
            rows.append((f"{names[kind]} ({c[kind]:,})", scene.theme.brushes[kind].color(), "rect"))
    for key, n in sorted(scene.cables.counts().items()):
        rows.append((f"{th.CABLE_LEGEND[key]} ({n:,})", QtGui.QColor(th.CABLE_COLORS[key]), "line"))
    return rows


def paint_picture(painter: QtGui.QPainter, fabric: Fabric, scene: FabricScene,
                  target: QtCore.QRectF, title: str | None = None,
                  extra_rows: list[tuple[str, QtGui.QColor, str]] = (),
                  source: QtCore.QRectF | None = None) -> None:
    """Title, the design (or the scene rect ``source``) fitted into ``target`` left of the
    legend, and the legend (device kinds and cable types present, then ``extra_rows``:
    overlays on the scene)."""
    theme = scene.theme
    painter.fillRect(target, theme.background)
    title_h = 34.0
    font = QtGui.QFont()
    font.setPixelSize(16)
    font.setBold(True)
    painter.setFont(font)
    painter.setPen(theme.text)
    c = fabric.counts()
    painter.drawText(QtCore.QRectF(target.left() + 12, target.top() + 6, target.width() - 24, 22),
                     QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignVCenter,
                     title or f"{fabric.name} — {c['server']:,} servers, {c['ib_switch'] + c['eth_switch']:,} "
                              f"switches, {c['cables']:,} cables")
    area = QtCore.QRectF(target.left() + 8, target.top() + title_h, target.width() - LEGEND_W - 16,
                         target.height() - title_h - 8)
    src = scene.content_rect() if source is None else QtCore.QRectF(source)
    if not src.isEmpty():
        if source is None:
            pad = max(src.width(), src.height()) * 0.02 + 10
            src = src.adjusted(-pad, -pad, pad, pad)
        scene.detail_for_scale(min(area.width() / src.width(), area.height() / src.height()))
        scene.render(painter, area, src, QtCore.Qt.AspectRatioMode.KeepAspectRatio)
    # legend
    lx = target.right() - LEGEND_W
    rows = _legend(fabric, scene) + list(extra_rows)
    box = QtCore.QRectF(lx, target.top() + title_h, LEGEND_W - 8, 26 + 20 * len(rows))
    painter.setPen(QtGui.QPen(theme.text, 1))
    painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(box, 4, 4)
    font.setPixelSize(12)
    painter.setFont(font)
    painter.drawText(QtCore.QPointF(lx + 10, box.top() + 18), "Legend")
    font.setBold(False)
    font.setPixelSize(11)
    painter.setFont(font)
    for i, (label, color, shape) in enumerate(rows):
        y = box.top() + 36 + 20 * i
        if shape == "rect":
            painter.setPen(QtGui.QPen(color.darker(160), 1))
            painter.setBrush(color)
            painter.drawRect(QtCore.QRectF(lx + 10, y - 9, 18, 11))
        else:
            pen = QtGui.QPen(color, 3)
            if shape == "dash":
                pen.setStyle(QtCore.Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.drawLine(QtCore.QPointF(lx + 10, y - 4), QtCore.QPointF(lx + 28, y - 4))
        painter.setPen(theme.text)
        painter.drawText(QtCore.QPointF(lx + 36, y), label)


def heat_rows(scale) -> list[tuple[str, QtGui.QColor, str]]:
    """Legend rows for a traffic heatmap drawn with ``scale`` (low, middle, high, paused)."""
    from fabricviz.ui.canvas.overlays.traffic import METRICS, PAUSED_COLOR
    if scale is None:
        return []
    title = METRICS[scale.metric][1].lower()
    rows = [(f"{title} {scale.label(v)}", scale.color(v), "line")
            for v in (scale.vmin, (scale.vmin + scale.vmax) / 2, scale.vmax)]
    return rows + [("paused (PFC / no credits)", QtGui.QColor(PAUSED_COLOR), "dash")]


def render_fabric(fabric: Fabric, path: str | os.PathLike[str], width: int = 1600,
                  height: int | None = None) -> Path:
    """Write a picture of ``fabric`` to ``path`` (.png, .svg or .pdf); returns the path."""
    out = Path(path)
    suffix = out.suffix.lower()
    if suffix not in FORMATS:
        raise FabricError(f"{out}: unknown picture format {out.suffix or '(none)'!r} (use .png, .svg or .pdf)")
    if width < 200 or width > 20000:
        raise FabricError(f"image width {width}: use 200 to 20000 pixels")
    scene = FabricScene()
    scene.apply_theme(th.Theme(dark=False))
    scene.set_fabric(fabric)
    try:
        return render_scene(scene, fabric, out, width, height)
    finally:
        scene.set_fabric(None)


def render_scene(scene: FabricScene, fabric: Fabric, path: str | os.PathLike[str], width: int = 1600,
                 height: int | None = None, title: str | None = None,
                 extra_rows: list[tuple[str, QtGui.QColor, str]] = (),
                 source: QtCore.QRectF | None = None) -> Path:
    """Write a picture of ``scene`` (with whatever overlays it holds: heatmap, sweep, lesson
    paths) to ``path``; ``source`` limits it to a scene rect (the view). See render_fabric."""
    out = Path(path)
    suffix = out.suffix.lower()
    if suffix not in FORMATS:
        raise FabricError(f"{out}: unknown picture format {out.suffix or '(none)'!r} (use .png, .svg or .pdf)")
    from fabricviz.formats.native import check_writable
    check_writable(fabric, out)          # a position that is not finite has no place in a picture
    rect = scene.content_rect() if source is None else QtCore.QRectF(source)
    if height is None:
        aspect = rect.height() / rect.width() if not rect.isEmpty() else 0.6
        height = int(min(max((width - LEGEND_W) * aspect + 60, 360), width * 1.5))
    target = QtCore.QRectF(0, 0, width, height)
    painter = QtGui.QPainter()
    buf = QtCore.QBuffer()               # drawn in memory, then written atomically
    buf.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    if suffix == ".png":
        img = QtGui.QImage(width, height, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
        if img.isNull():
            raise FabricError(f"{out}: cannot make a {width} x {height} picture (out of memory)")
        img.fill(QtGui.QColor("white"))
        painter.begin(img)
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        paint_picture(painter, fabric, scene, target, title, extra_rows, source)
        painter.end()
        if not img.save(buf, "PNG"):
            raise FabricError(f"{out}: cannot encode the PNG")
    elif suffix == ".svg":
        from PySide6.QtSvg import QSvgGenerator
        gen = QSvgGenerator()
        gen.setOutputDevice(buf)
        gen.setSize(QtCore.QSize(width, height))
        gen.setViewBox(target)
        gen.setTitle(fabric.name)
        gen.setDescription("fabricviz design picture")
        painter.begin(gen)
        paint_picture(painter, fabric, scene, target, title, extra_rows, source)
        painter.end()
    else:
        pdf = QtGui.QPdfWriter(buf)
        pdf.setPageSize(QtGui.QPageSize(QtCore.QSizeF(width, height), QtGui.QPageSize.Unit.Point))
        pdf.setPageMargins(QtCore.QMarginsF(0, 0, 0, 0))
        pdf.setResolution(72)
        pdf.setTitle(fabric.name)
        painter.begin(pdf)
        paint_picture(painter, fabric, scene, target, title, extra_rows, source)
        painter.end()
        del pdf
    data = bytes(buf.data())
    buf.close()
    if not data:
        raise FabricError(f"{out}: nothing was drawn")
    from fabricviz.model.atomic import write_atomic
    write_atomic(out, data)
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m fabricviz.ui.canvas.export FILE -o OUT [--width W]`` (used by ``fabricviz render``)."""
    import argparse
    ap = argparse.ArgumentParser(prog="fabricviz render")
    ap.add_argument("file")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--width", type=int, default=1600)
    args = ap.parse_args(argv)

    def make() -> Path:
        from fabricviz.loaders import load_any
        return render_fabric(load_any(args.file), args.output, args.width)
    return picture_main("fabricviz-render", make)


def picture_main(app_name: str, make: Callable[[], Path]) -> int:
    """The child-process side of a headless picture: a QApplication (offscreen without a
    display), ``make()`` writes the file; "wrote …" or a one-line ``fabricviz: error:``."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([app_name])
    try:
        out = make()
    except FabricError as exc:
        print(f"fabricviz: error: {exc}", file=sys.stderr)
        return 2
    finally:
        del app
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
