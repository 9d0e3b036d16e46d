"""File ▸ Export Image…: how the picture of the design is drawn, after its file name is chosen.

The format follows the file name (PNG; SVG and PDF stay vector). The extent is the whole
design or what the canvas shows now. The size is a slide (1920 × 1080; 3840 × 2160 is the
same slide drawn at 2×, 192 DPI), custom pixels at a DPI, or a print size (width, and height
or one that follows the design, in inches or millimetres, at a DPI). A PNG or SVG can have a
transparent background; legend and title can be left out. The choices are remembered
(QSettings, group ``export_image``) for the next export.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtWidgets

from fabricviz.anim.picture_options import DPI_RANGE, SCREEN_DPI, SIDE_RANGE, PictureOptions, check_options
from fabricviz.model import FabricError
from fabricviz.ui.canvas.export import PictureCancelled

#: Size modes: (key, text).
MODES = (("slide", "Slide — 1920 × 1080 px"),
         ("slide4k", "Slide 4K — 3840 × 2160 px (the slide drawn at 2×)"),
         ("custom", "Custom pixels"),
         ("print", "Print size — width and DPI"))
PRESETS = {"slide": (1920, 1080, SCREEN_DPI), "slide4k": (3840, 2160, 2 * SCREEN_DPI)}
UNITS = {"in": 1.0, "mm": 25.4}
FORMAT_NAMES = {".png": "PNG picture", ".svg": "SVG (vector)", ".pdf": "PDF (vector)"}
GROUP = "export_image"
#: A picture whose drawing is foreseen to take longer than this shows a progress dialog.
PROGRESS_AFTER_MS = 1000


class ExportImageDialog(QtWidgets.QDialog):
    """The picture's extent, size, background, legend and title for ``path``."""

    def __init__(self, path: str, default_title: str, settings: QtCore.QSettings | None = None,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("export_image_dialog")
        self.suffix = Path(path).suffix.lower()
        self.settings = settings
        self.setWindowTitle(f"Export Image — {Path(path).name}")
        form = QtWidgets.QFormLayout(self)
        form.addRow("Format:", QtWidgets.QLabel(FORMAT_NAMES.get(self.suffix, self.suffix), self))
        self.extent_design = QtWidgets.QRadioButton("Whole design", self)
        self.extent_design.setObjectName("export_extent_design")
        self.extent_view = QtWidgets.QRadioButton("Current view (what the canvas shows)", self)
        self.extent_view.setObjectName("export_extent_view")
        box = QtWidgets.QHBoxLayout()
        box.addWidget(self.extent_design)
        box.addWidget(self.extent_view)
        form.addRow("Extent:", box)
        self.mode = QtWidgets.QComboBox(self)
        self.mode.setObjectName("export_mode")
        for key, text in MODES:
            self.mode.addItem(text, key)
        form.addRow("Size:", self.mode)
        lo, hi = SIDE_RANGE
        self.width_px = self._spin("export_width", lo, hi, 1600)
        self.height_px = self._spin("export_height", lo - 1, hi, lo - 1)
        self.height_px.setSpecialValueText("follows the design")
        px = QtWidgets.QHBoxLayout()
        px.addWidget(self.width_px)
        px.addWidget(QtWidgets.QLabel("×", self))
        px.addWidget(self.height_px)
        px.addWidget(QtWidgets.QLabel("px", self))
        self.pixels_row = QtWidgets.QWidget(self)
        self.pixels_row.setLayout(px)
        form.addRow("Pixels:", self.pixels_row)
        self.print_width = self._double("print_width", 0.5, 200.0, 3.5)
        self.print_height = self._double("print_height", 0.0, 200.0, 0.0)
        self.print_height.setSpecialValueText("follows the design")
        self.unit = QtWidgets.QComboBox(self)
        self.unit.setObjectName("print_unit")
        self.unit.addItems(list(UNITS))
        pr = QtWidgets.QHBoxLayout()
        pr.addWidget(self.print_width)
        pr.addWidget(QtWidgets.QLabel("×", self))
        pr.addWidget(self.print_height)
        pr.addWidget(self.unit)
        self.print_row = QtWidgets.QWidget(self)
        self.print_row.setLayout(pr)
        form.addRow("Print size:", self.print_row)
        self.dpi = self._spin("export_dpi", int(DPI_RANGE[0]), int(DPI_RANGE[1]), 300)
        self.dpi.setSuffix(" DPI")
        form.addRow("Resolution:", self.dpi)
        self.transparent = QtWidgets.QCheckBox("Transparent background", self)
        self.transparent.setObjectName("export_transparent")
        self.transparent.setToolTip("PNG and SVG only: a PDF page is opaque")
        form.addRow("", self.transparent)
        self.legend = QtWidgets.QCheckBox("Legend (every colour in the picture)", self)
        self.legend.setObjectName("export_legend")
        form.addRow("", self.legend)
        self.title_on = QtWidgets.QCheckBox("Title:", self)
        self.title_on.setObjectName("export_title_on")
        self.title = QtWidgets.QLineEdit(self)
        self.title.setObjectName("export_title")
        self.title.setPlaceholderText(default_title)
        form.addRow(self.title_on, self.title)
        self.summary = QtWidgets.QLabel(self)
        self.summary.setObjectName("export_summary")
        form.addRow("", self.summary)
        self.buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Ok | QtWidgets.QDialogButtonBox.StandardButton.Cancel, self)
        self.ok_button = self.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Export")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form.addRow(self.buttons)
        self._restore()
        for w in (self.mode, self.unit):
            w.currentIndexChanged.connect(self._update)
        for s in (self.width_px, self.height_px, self.dpi, self.print_width, self.print_height):
            s.valueChanged.connect(self._update)
        for c in (self.transparent, self.legend, self.title_on):
            c.toggled.connect(self._update)
        self._update()

    def _spin(self, name: str, lo: int, hi: int, value: int) -> QtWidgets.QSpinBox:
        s = QtWidgets.QSpinBox(self)
        s.setObjectName(name)
        s.setRange(lo, hi)
        s.setValue(value)
        return s

    def _double(self, name: str, lo: float, hi: float, value: float) -> QtWidgets.QDoubleSpinBox:
        s = QtWidgets.QDoubleSpinBox(self)
        s.setObjectName(name)
        s.setDecimals(2)
        s.setRange(lo, hi)
        s.setValue(value)
        return s

    # ------------------------------------------------------------------ what was chosen
    def mode_key(self) -> str:
        return str(self.mode.currentData())

    def extent(self) -> str:
        """"view" (what the canvas shows) or "design"."""
        return "view" if self.extent_view.isChecked() else "design"

    def options(self) -> PictureOptions:
        mode = self.mode_key()
        if mode in PRESETS:
            width, height, dpi = PRESETS[mode]
            h: int | None = height
        elif mode == "custom":
            width, dpi = self.width_px.value(), float(self.dpi.value())
            h = self.height_px.value() if self.height_px.value() >= SIDE_RANGE[0] else None
        else:
            dpi = float(self.dpi.value())
            per_in = UNITS[self.unit.currentText()]
            width = round(self.print_width.value() / per_in * dpi)
            h = round(self.print_height.value() / per_in * dpi) if self.print_height.value() > 0 else None
        title = (self.title.text().strip() or None) if self.title_on.isChecked() else ""
        return PictureOptions(int(width), h, dpi, self.transparent.isChecked() and self.suffix != ".pdf",
                              self.legend.isChecked(), title)

    # ------------------------------------------------------------------ state
    def _update(self) -> None:
        mode = self.mode_key()
        self.pixels_row.setEnabled(mode == "custom")
        self.print_row.setEnabled(mode == "print")
        self.dpi.setEnabled(mode in ("custom", "print"))
        self.transparent.setEnabled(self.suffix != ".pdf")
        self.title.setEnabled(self.title_on.isChecked())
        opts = self.options()
        try:
            check_options(opts, self.suffix)
        except FabricError as exc:
            self.summary.setText(str(exc))
            self.ok_button.setEnabled(False)
            return
        inch = opts.width / opts.dpi
        if opts.height is None:
            size = f"{opts.width} px wide, height follows the design"
        else:
            size = f"{opts.width} × {opts.height} px"
        self.summary.setText(f"{size} · {inch:.2f} in ({inch * 25.4:.0f} mm) wide at {opts.dpi:g} DPI")
        self.ok_button.setEnabled(True)

    def _restore(self) -> None:
        s = self.settings
        get = (lambda key, default: s.value(f"{GROUP}/{key}", default)) if s is not None else \
            (lambda key, default: default)
        default_mode = "print" if self.suffix == ".pdf" else "slide"
        keys = [k for k, _ in MODES]
        mode = str(get("mode", default_mode))
        self.mode.setCurrentIndex(keys.index(mode) if mode in keys else keys.index(default_mode))
        (self.extent_view if get("extent", "design") == "view" else self.extent_design).setChecked(True)
        self.width_px.setValue(_int(get("width", 1600), 1600))
        self.height_px.setValue(_int(get("height", SIDE_RANGE[0] - 1), SIDE_RANGE[0] - 1))
        self.dpi.setValue(_int(get("dpi", 300), 300))
        unit = str(get("unit", "in"))
        self.unit.setCurrentText(unit if unit in UNITS else "in")
        self.print_width.setValue(_float(get("print_width", 3.5), 3.5))
        self.print_height.setValue(_float(get("print_height", 0.0), 0.0))
        self.transparent.setChecked(_bool(get("transparent", False)))
        self.legend.setChecked(_bool(get("legend", True)))
        self.title_on.setChecked(_bool(get("title_on", True)))

    def accept(self) -> None:
        s = self.settings
        if s is not None:
            for key, value in (("mode", self.mode_key()), ("extent", self.extent()),
                               ("width", self.width_px.value()), ("height", self.height_px.value()),
                               ("dpi", self.dpi.value()), ("unit", self.unit.currentText()),
                               ("print_width", self.print_width.value()),
                               ("print_height", self.print_height.value()),
                               ("transparent", self.transparent.isChecked()),
                               ("legend", self.legend.isChecked()), ("title_on", self.title_on.isChecked())):
                s.setValue(f"{GROUP}/{key}", value)
        super().accept()


class PaintProgress:
    """``progress(done, total)`` for a picture drawn band by band on the UI thread: once the
    drawing is foreseen to take over :data:`PROGRESS_AFTER_MS`, a progress dialog with Cancel
    (window-modal: its ``setValue`` runs the events once per band, so the window keeps
    painting and Cancel is seen; no other event loop runs while the scene is cleaned)."""

    def __init__(self, parent: QtWidgets.QWidget | None, label: str = "Drawing the picture…") -> None:
        self.parent, self.label = parent, label
        self.dialog: QtWidgets.QProgressDialog | None = None
        self.timer = QtCore.QElapsedTimer()
        self.timer.start()

    def __call__(self, done: int, total: int) -> bool:
        ms = self.timer.elapsed()
        if self.dialog is None and done and ms * total / done > PROGRESS_AFTER_MS:
            self.dialog = QtWidgets.QProgressDialog(self.label, "Cancel", 0, total, self.parent)
            self.dialog.setObjectName("export_progress")
            self.dialog.setWindowModality(QtCore.Qt.WindowModality.WindowModal)
            self.dialog.setMinimumDuration(0)
            self.dialog.setAutoReset(False)
            self.dialog.show()
        if self.dialog is None:
            return True
        if done != self.dialog.value():
            self.dialog.setValue(done)
        return not self.dialog.wasCanceled()

    def close(self) -> None:
        if self.dialog is not None:
            self.dialog.close()
            self.dialog.deleteLater()
            self.dialog = None


def run_export(window: Any, path: str, dialog: ExportImageDialog) -> Path | None:
    """Draw what ``dialog`` chose into ``path`` through ``window.export_view``: bands with a
    progress dialog when slow, the PNG encoded as a job off the UI thread (the document's
    JobRunner, its dialog with Cancel after a moment). None when the user cancelled."""
    from fabricviz.ui.jobs import Cancelled
    progress = PaintProgress(window)
    jobs = window.document.jobs

    def encode(fn: Any) -> bytes:
        progress.close()
        return jobs.run_modal(window, "Writing the PNG…", lambda _report: fn())
    try:
        with window.document.session.held():     # the docks' clocks stand still while it is drawn
            return window.export_view(path, dialog.options(), view=dialog.extent() == "view",
                                      progress=progress, encode=encode)
    except (PictureCancelled, Cancelled):
        return None
    finally:
        progress.close()


def _int(value: object, default: int) -> int:
    try:
        return int(float(value))          # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default


def _float(value: object, default: float) -> float:
    try:
        return float(value)               # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default


def _bool(value: object) -> bool:
    return value in (True, "true", "1", 1)


__all__ = ["ExportImageDialog", "MODES", "PRESETS", "PaintProgress", "UNITS", "run_export"]
