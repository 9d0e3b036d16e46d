"""The main window: canvas, palette, inspector, undo history, menus, files.

``MainWindow(path)`` opens ``path``; ``MainWindow()`` opens the bundled demo
fabric (as an untitled copy: saving asks where). Every edit is an undo command
(:mod:`fabricviz.ui.document.commands`) run by the :class:`~fabricviz.ui.document.editor.Editor`;
the canvas follows the model's change events.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import Fabric, FabricError
from fabricviz.resources import asset_path
from fabricviz.ui import layout
from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.canvas.minimap import FIT_SELECTION_MAX, Minimap, selection_bounds
from fabricviz.ui.canvas.view import CanvasView
from fabricviz.ui.docks.findings import select_on_canvas
from fabricviz.ui.docks.inspector import Inspector
from fabricviz.ui.jobs import Cancelled
from fabricviz.ui.docks.palette import Palette
from fabricviz.ui.document.commands import HistoryView
from fabricviz.ui.document.document import Document
from fabricviz.ui.actions import WindowActions
from fabricviz.ui.files import FileActions
from fabricviz.ui.settings import settings

#: The fabric shown when the window is opened without a file.
DEMO_FABRIC = asset_path("demo", "demo-fat-tree.json")
#: Above this many devices, building the canvas shows a progress dialog.
PROGRESS_DEVICES = 20_000


def zoom_text(scale: float) -> str:
    """``130 %``, ``15 %``, ``0.077 %``: a 30k-host design fits at well under 1 %."""
    pct = scale * 100
    return f"{pct:.0f} %" if pct >= 10 else f"{pct:.2g} %"


class MainWindow(WindowActions, FileActions, QtWidgets.QMainWindow):
    """fabricviz's editor window."""

    def __init__(self, path: str | os.PathLike[str] | None = None,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("main_window")
        self.setDockNestingEnabled(True)
        self.load_error: str | None = None
        self.settings = settings()
        self.document = Document(Fabric(name="untitled"), self)
        self.editor = self.document.editor
        self.scene = FabricScene(self)
        self.document.changed.connect(self.scene.follow)       # the canvas first: docks read its items
        self.view = CanvasView(self.scene, self.editor, self)
        self.setCentralWidget(self.view)
        self.minimap = Minimap(self.view, self.document, self.settings)   # View ▸ Minimap
        self._build_status()
        self._build_docks()
        self._build_actions()
        self.document.replaced.connect(self._fabric_replaced)
        self.document.message.connect(self._message)
        self.document.session.cleared.connect(self._session_cleared)
        self.editor.stack.cleanChanged.connect(self._update_title)
        self.editor.stack.indexChanged.connect(self._update_counts)
        self._stack_index = 0
        self.editor.stack.indexChanged.connect(self._stack_moved)
        self.view.zoom_changed.connect(lambda s: self.zoom_label.setText(zoom_text(s)))
        self.view.zoom_changed.connect(self._user_moved_view)
        self.view.horizontalScrollBar().actionTriggered.connect(self._user_moved_view)
        self.view.verticalScrollBar().actionTriggered.connect(self._user_moved_view)
        self.view.status.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.scene.selectionChanged.connect(self._selection_changed)
        self._banding = False                # a rubber band is being dragged
        self.view.rubberBandChanged.connect(self._rubber_band)
        self.palette_dock.cable_part_chosen.connect(self._choose_cable_part)
        self._fitted = False
        self._load(Path(path) if path is not None else DEMO_FABRIC, demo=path is None)
        from fabricviz.ui.document.autosave import Autosave   # unsaved edits go to a recovery file
        self.autosave = Autosave(self)
        self._apply_theme()
        self.default_layout = self.saveState()
        layout.restore(self)

    @property
    def path(self) -> Path | None:
        return self.document.path

    @path.setter
    def path(self, value: Path | None) -> None:
        self.document.path = value

    @property
    def display_name(self) -> str:
        return self.document.display_name

    @display_name.setter
    def display_name(self, value: str) -> None:
        self.document.display_name = value

    def _build_docks(self) -> None:
        """Every dock, given the document (and the canvas where it draws); see ui/layout.py."""
        from fabricviz.ui.dialogs.compare import TechCompareWindow
        from fabricviz.ui.docks.bom import BomDock
        from fabricviz.ui.docks.charts import ChartsDock
        from fabricviz.ui.docks.findings import FindingsDock
        from fabricviz.ui.docks.partitions import PartitionsDock
        from fabricviz.ui.docks.sweep import SweepDock
        from fabricviz.ui.docks.traffic import TrafficDock
        from fabricviz.ui.docks.traffic_view import TrafficView
        from fabricviz.ui.lessons.dock import LessonDock, Presentation
        from fabricviz.ui.lessons.stage import LessonStage
        doc = self.document
        self.palette_dock = Palette(self.editor.fabric.catalog, self)
        self.inspector = Inspector(doc, self.scene, self)
        self.history = QtWidgets.QDockWidget("History", self)
        self.history.setObjectName("history")
        self.undo_view = HistoryView(self.editor.stack, self.history)   # clicks are checked steps
        self.undo_view.setObjectName("undo_view")
        self.undo_view.setEmptyLabel("<opened>")
        self.history.setWidget(self.undo_view)
        self.findings_dock = FindingsDock(doc, self)
        self.findings_dock.select_objects.connect(
            lambda devs, cabs: select_on_canvas(self.editor.fabric, self.scene, self.view, devs, cabs))
        self.bom_dock = BomDock(doc, self)
        self.sweep_dock = SweepDock(doc, self.scene, self.view, self)
        self.sweep_dock.sweep_step.connect(self.inspector.show_sweep_step)   # the inspector at the sweep's step
        self.traffic_dock = TrafficDock(doc, self)
        self.traffic_dock.select_hosts.connect(
            lambda devs: select_on_canvas(self.editor.fabric, self.scene, self.view, devs, []))
        self.charts_dock = ChartsDock(self)
        self.partitions_dock = PartitionsDock(doc, self, selection=self.scene.selected_device_ids)
        from fabricviz.ui.docks.lossless import LosslessDock          # View ▸ Lossless (RoCE)
        self.lossless_dock = LosslessDock(doc, self, selection=self.scene.selected_device_ids,
                                          traffic=self.traffic_dock)
        self.scene.selectionChanged.connect(self.lossless_dock.selection_changed)
        from fabricviz.ui.docks.whatif import WhatifDock                # View ▸ What-if (failures)
        self.whatif_dock = WhatifDock(doc, self.scene, self, settings=self.settings)
        from fabricviz.ui.docks.collectives import CollectivesDock      # View ▸ Collectives (busbw)
        self.collectives_dock = CollectivesDock(doc, self)
        self.collectives_dock.select_links.connect(
            lambda cabs: select_on_canvas(self.editor.fabric, self.scene, self.view, [], cabs))
        from fabricviz.ui.canvas.overlays.partitions import PartitionMarks   # View ▸ Partition Marks
        self.partition_marks = PartitionMarks(doc, self.scene, lambda text: self.statusBar().showMessage(text, 8000))
        self.traffic_view = TrafficView(doc, self.scene, self.traffic_dock, self.charts_dock)
        self.traffic_dock.result_ready.connect(
            lambda res: layout.reveal(self, self.charts_dock) if res is not None else None)
        self.lesson_dock = LessonDock(doc, self)
        self.presentation = Presentation(self, self.lesson_dock, self.fit)
        self.action_presentation = self.presentation.action
        self.lesson_stage = LessonStage(doc, self.scene, self.lesson_dock, self.sweep_dock, self.traffic_dock,
                                        self.charts_dock, self.presentation,
                                        lambda text: self.statusBar().showMessage(text, 8000),
                                        collectives=self.collectives_dock, whatif=self.whatif_dock)
        self.compare_window: TechCompareWindow | None = None
        self.record_dialog: Any = None            # File ▸ Record Animation… while it is open
        layout.arrange(self)

    # ------------------------------------------------------------------ building
    def _build_status(self) -> None:
        sb = self.statusBar()
        self.count_label = QtWidgets.QLabel(sb)
        self.count_label.setObjectName("status_counts")
        self.zoom_label = QtWidgets.QLabel("100 %", sb)
        self.zoom_label.setObjectName("status_zoom")
        sb.addPermanentWidget(self.count_label)
        sb.addPermanentWidget(self.zoom_label)

    # ------------------------------------------------------------------ model <-> window
    def _fabric_replaced(self) -> None:
        f = self.editor.fabric
        n = len(f)
        self.view.ports.clear()          # the old design's port panels go with it
        if n > PROGRESS_DEVICES:
            dlg = QtWidgets.QProgressDialog("Drawing the fabric…", "", 0, n, self)
            dlg.setCancelButton(None)
            dlg.setWindowModality(QtCore.Qt.WindowModality.WindowModal)
            dlg.setMinimumDuration(0)

            def progress(done: int, total: int) -> None:
                dlg.setValue(done)
                QtWidgets.QApplication.processEvents(QtCore.QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
            self.scene.set_fabric(f, progress, subscribe=False)
            dlg.close()
        else:
            self.scene.set_fabric(f, subscribe=False)
        self.palette_dock.set_catalog(f.catalog)
        self._update_counts()
        if self.isVisible():
            self.fit()

    @property
    def fabric(self) -> Fabric:
        return self.editor.fabric

    def _update_counts(self) -> None:
        from fabricviz.ui.canvas.describe import plural
        c = self.editor.fabric.counts()
        self.count_label.setText(" · ".join(
            plural(n, w) for n, w in ((c["server"], "server"), (c["gpu"], "GPU"), (c["nic"], "NIC"),
                                      (c["ib_switch"] + c["eth_switch"], "switch"), (c["cables"], "cable"))))
        self._update_title()

    def _stack_moved(self, index: int) -> None:
        """The status bar says what happened last: the command just done, undone or redone."""
        stack, last = self.editor.stack, self._stack_index
        self._stack_index = index
        if not stack.count() or index == last:
            return
        if self.editor.pushing:
            text = stack.text(index - 1)
        elif index < last:
            text = "Undo: " + stack.text(index)
        else:
            text = "Redo: " + stack.text(index - 1)
        self.statusBar().showMessage(text, 10000)

    def _update_title(self) -> None:
        self.setWindowModified(not self.editor.stack.isClean())
        self.setWindowTitle(f"{self.display_name}[*] \u2014 fabricviz")

    def _message(self, text: str, refusal: bool) -> None:
        self.statusBar().showMessage(("refused: " if refusal else "") + text, 10000)

    def _selection_changed(self) -> None:
        n = len(self.scene.selected_device_ids()) + len(self.scene.selected_cables)
        for a in (self.action_copy, self.action_cut, self.action_delete, self.action_duplicate):
            a.setEnabled(n > 0)

    def _choose_cable_part(self, part: str) -> None:
        self.view.cable_part = part
        p = self.editor.fabric.catalog.get(part)
        self.statusBar().showMessage(f"new cables use {part} ({p.cable_type}, reach {p.reach_m:g} m); "
                                     "pick 'auto' to let the catalog choose", 8000)
        self.cable_type_box.blockSignals(True)
        self.cable_type_box.setCurrentText(p.cable_type)
        self.cable_type_box.blockSignals(False)

    def _cable_settings(self) -> None:
        t = self.cable_type_box.currentText()
        self.view.cable_type = None if t == "auto" else t
        self.view.cable_part = None
        self.view.cable_length = self.cable_length_box.value()

    def _toggle_snap(self) -> None:
        self.view.snap = self.action_snap.isChecked()

    def set_partition_marks(self, on: bool) -> None:
        """View ▸ Partition Marks (kept in the settings)."""
        from fabricviz.ui.canvas.overlays.partitions import SETTING
        self.settings.setValue(SETTING, bool(on))
        self.partition_marks.set_on(bool(on))

    def set_semantic_zoom(self, on: bool) -> None:
        """View ▸ Semantic Zoom: groups and bundles when zoomed out, or every device at every zoom; remembered."""
        from fabricviz.ui.canvas.items.semantic import SEMANTIC_SETTING
        self.settings.setValue(SEMANTIC_SETTING, bool(on))
        self.scene.semantic.set_enabled(bool(on))

    # ------------------------------------------------------------------ edit actions
    def copy(self) -> None:
        data = self.editor.copy(self.scene.selected_device_ids())
        if data:
            self.statusBar().showMessage(f"copied {len(data['devices'])} devices and "
                                         f"{len(data['cables'])} cables between them", 5000)

    def cut(self) -> None:
        ids = self.scene.selected_device_ids()
        if self.editor.copy(ids):
            self.editor.remove(ids, [])

    def paste(self) -> None:
        """Paste centred on the pointer when it is over the canvas, else shifted from the copies."""
        ids = self.editor.paste(at=self.view.pointer_scene_pos())
        if ids:
            self.scene.select_devices(ids)

    def duplicate(self) -> None:
        ids = self.editor.duplicate(self.scene.selected_device_ids())
        if ids:
            self.scene.select_devices(ids)

    def delete(self) -> None:
        devs = self.scene.selected_device_ids()
        t = self.editor.fabric.devices_t
        devs = sorted({int(t.parent[d]) if t.parent[d] >= 0 else d for d in devs})
        cabs = sorted(self.scene.selected_cables)
        if self.editor.remove(devs, cabs):
            self.scene.set_selected_cables(set())

    def rename(self) -> None:
        ids = self.scene.selected_device_ids()
        if len(ids) != 1:
            return
        self.inspector.show()
        self.inspector.name.setFocus()
        self.inspector.name.selectAll()

    def select_all(self) -> None:
        """Every device and every cable (Delete then removes both)."""
        for item in self.scene.items_by_id.values():
            if item.parentItem() is None:
                item.setSelected(True)
        self.scene.set_selected_cables(set(int(c) for c in self.editor.fabric.cable_ids()))

    def _rubber_band(self, rect: QtCore.QRect, start: QtCore.QPointF, end: QtCore.QPointF) -> None:
        """When a rubber band ends, the cables between the devices it selected are selected too."""
        if not rect.isNull():
            self._banding = True
            return
        if not self._banding:
            return
        self._banding = False
        f = self.editor.fabric
        picked = np.zeros(f.devices_t.n, bool)
        picked[np.asarray(self.scene.selected_device_ids(), np.int64)] = True
        cabs = f.cable_ids()
        pt, ct, t = f.ports_t, f.cables_t, f.devices_t
        both = np.ones(len(cabs), bool)
        for side in (ct.port_a, ct.port_b):
            d = pt.device[side[cabs]].astype(np.int64)
            both &= picked[np.where(t.parent[d] >= 0, t.parent[d], d)]
        self.scene.set_selected_cables(set(self.scene.selected_cables) | {int(c) for c in cabs[both]})

    def find_device(self) -> None:
        """Edit ▸ Find Device: a name, GUID or LID; the device is centred and selected."""
        from fabricviz.ui.dialogs.find import FindDialog
        dlg = FindDialog(self.document, self)
        if dlg.exec() == QtWidgets.QDialog.DialogCode.Accepted and dlg.found is not None:
            self.show_device(dlg.found)

    def show_device(self, d: int) -> None:
        """Select device ``d`` and centre the canvas on it."""
        f = self.editor.fabric
        self.scene.set_selected_cables(set())
        self.scene.select_devices([d], inner=True)
        top = int(f.devices_t.parent[d]) if f.devices_t.parent[d] >= 0 else d
        self.view.centerOn(float(f.devices_t.x[top]), float(f.devices_t.y[top]))
        self.statusBar().showMessage(f"found {f.name_of(d)}", 5000)

    # ------------------------------------------------------------------ lessons, comparison
    def open_lesson(self, ref: str) -> bool:
        """Open bundled lesson ``ref`` (number, name or file) like a file; False if refused or cancelled."""
        from fabricviz.anim.lessons import find_lesson
        from fabricviz.ui.lessons.dock import lesson_display_name
        try:
            lesson = find_lesson(ref)
            fabric = lesson.build_fabric()
        except FabricError as exc:
            self.statusBar().showMessage(f"refused: {exc}", 10000)
            return False
        if not self.maybe_save():
            return False
        name = lesson_display_name(lesson)
        self.document.open(fabric, None, name)      # a new session: the last lesson, runs, overlays go
        self.lesson_stage.begin(fabric)
        dock = self.lesson_dock
        dock.start(lesson)
        layout.reveal(self, dock)
        self._update_title()
        self.statusBar().showMessage(f"opened {name}", 5000)
        return True

    def open_compare(self) -> Any:
        """View ▸ InfiniBand vs RoCE: show (creating once) the comparison window of this design."""
        from fabricviz.ui.dialogs.compare import TechCompareWindow
        dlg = self.compare_window
        if dlg is None:
            dlg = self.compare_window = TechCompareWindow(self.document, self)
        elif dlg.comparison is None and not dlg.running:
            dlg.show_design()
        dlg.show()
        dlg.raise_()
        dlg.activateWindow()
        return dlg

    def _session_cleared(self) -> None:
        """Another design was opened: no selection, no port panels, no half-drawn cable."""
        self.view.cancel_interaction()           # a drag of the old design ends, changing nothing
        self.scene.clearSelection()
        self.scene.set_selected_cables(set())
        self.view.ports.clear()
        for dock in (self.lesson_dock, self.charts_dock):   # nothing of the last design's to show
            dock.hide()
        if self.compare_window is not None:
            self.compare_window.close()
            self.compare_window.deleteLater()
            self.compare_window = None

    # ------------------------------------------------------------------ design actions
    def generate(self) -> None:
        from fabricviz.ui.dialogs.generator import GeneratorDialog
        dlg = GeneratorDialog(self, catalog=self.editor.fabric.catalog)
        if dlg.exec() == QtWidgets.QDialog.DialogCode.Accepted and dlg.result is not None:
            self.apply_generated(dlg.result)

    def apply_generated(self, fabric: Fabric) -> bool:
        c = fabric.counts()
        return self.editor.replace(fabric, f"Generate {fabric.name} ({c['cables']:,} cables)")

    def _layout(self, name: str, fn: Callable[..., Any]) -> None:
        """Compute a layout of a snapshot off the UI thread (a progress dialog with Cancel if it
        takes long; ``fn(fabric, progress=...)`` stops at its next report once cancelled), apply
        it as one undo step, then fit; a failure is reported, never raised out of the menu."""
        f = self.editor.fabric
        if not len(f):
            return
        t0 = time.perf_counter()
        design, revision = self.document.snapshot(), self.document.revision
        try:
            ids, xs, ys = self.document.jobs.run_modal(self, f"{name}…",
                                                       lambda progress: fn(design, progress=progress))
        except Cancelled:
            self.statusBar().showMessage(f"{name} cancelled", 5000)
            return
        except Exception as exc:  # a FabricError, or a bug in the layout: said, not raised
            self.statusBar().showMessage(f"{name} failed", 5000)
            QtWidgets.QMessageBox.critical(self, f"{name} failed", str(exc) or type(exc).__name__)
            return
        if self.document.revision != revision:     # the design moved on meanwhile: not its layout
            self.statusBar().showMessage(f"{name} dropped: the design changed while it ran", 5000)
            return
        self.editor.set_positions(name, ids, xs, ys)
        self.fit()
        self.statusBar().showMessage(f"{name}: {len(ids):,} devices placed in "
                                     f"{time.perf_counter() - t0:.2f} s", 5000)

    def layout_auto(self) -> None:
        """Design ▸ Auto Layout: pods in a grid filling the screen, hosts under their leaves."""
        from fabricviz.generate.layout import auto_layout
        self._layout("Auto layout", auto_layout)

    def qos_settings(self) -> Any:
        """Design ▸ QoS Settings: edit the design's QoS options (OK stores them, one undo step)."""
        from fabricviz.ui.dialogs.qos import QosDialog
        dlg = QosDialog(self.editor, self)
        dlg.open()
        return dlg

    def layout_force(self) -> None:
        from fabricviz.generate.layout import force_layout
        self._layout("Force layout", force_layout)

    def export_image(self) -> None:
        start = str(Path(self._last_dir()) / (Path(self.display_name).stem + ".png"))
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Export image", start,
                                                        "PNG (*.png);;SVG (*.svg);;PDF (*.pdf)")
        if not path:
            return
        from fabricviz.ui.canvas.export import default_title, picture_suffix
        from fabricviz.ui.dialogs.export_image import ExportImageDialog, run_export
        try:
            picture_suffix(path)
            dlg = ExportImageDialog(path, default_title(self.editor.fabric), self.settings, self)
            if dlg.exec() != QtWidgets.QDialog.DialogCode.Accepted:
                return
            out = run_export(self, path, dlg)
        except FabricError as exc:
            QtWidgets.QMessageBox.critical(self, "Export failed", str(exc))
            return
        self.statusBar().showMessage(f"exported {out}" if out is not None else "export cancelled", 5000)

    def record_animation(self) -> None:
        """File ▸ Record Animation…: the sweep, the Traffic dock's run or the open lesson as a video."""
        from fabricviz.ui.dialogs.record import RecordDialog
        start = str(Path(self._last_dir()) / (Path(self.display_name).stem + ".mp4"))
        dlg = RecordDialog(self.document, traffic=self.traffic_dock, lesson=self.lesson_dock,
                           engine=self.sweep_dock.engine_box.currentText(), start=start, parent=self)
        dlg.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.recorded.connect(lambda path: self.statusBar().showMessage(f"recorded {path}", 8000))
        dlg.destroyed.connect(lambda *_: self._record_dialog_gone(dlg))
        self.record_dialog = dlg
        dlg.open()

    def _record_dialog_gone(self, dlg: Any) -> None:
        """The Record dialog was deleted (closed): no reference to it stays."""
        if self.record_dialog is dlg:
            self.record_dialog = None

    def export_view(self, path: str, options: Any = 2400, view: bool | None = None, **draw: Any) -> Path:
        """The canvas as shown (heatmap, sweep state, lesson paths; no selection or hover) with
        a legend for every colour drawn, as PNG, SVG or PDF; ``options`` is a PictureOptions
        or a width. ``view``: only what the canvas shows (None: when it does not show it all);
        ``draw``: render_scene's progress and encode."""
        from fabricviz.ui.canvas.export import render_scene
        rows = self.lesson_stage.legend_rows() if self.lesson_stage.following else []
        shown = self.view.mapToScene(self.view.viewport().rect()).boundingRect()
        if view is None:
            content = self.scene.content_rect()
            view = not content.isEmpty() and not shown.contains(content)
        return render_scene(self.scene, self.editor.fabric, path, options, extra_rows=rows,
                            source=shown if view else None, **draw)

    # ------------------------------------------------------------------ Qt events
    def _apply_theme(self) -> None:
        self.scene.apply_theme(th.Theme.current())
        self.view.viewport().update()
        self.minimap.theme_changed()

    def changeEvent(self, event: QtCore.QEvent) -> None:  # noqa: N802
        if event.type() in (QtCore.QEvent.Type.PaletteChange, QtCore.QEvent.Type.ApplicationPaletteChange):
            self._apply_theme()
        super().changeEvent(event)

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:  # noqa: N802
        super().closeEvent(event)               # FileActions: Save / Discard / Cancel
        if event.isAccepted():
            self.whatif_dock.shutdown()         # its Dask workers, if a run started any, go too

    def showEvent(self, event: QtGui.QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        if not self._fitted:
            self._fitted = True
            self.view.viewport().installEventFilter(self)
            QtCore.QTimer.singleShot(0, self.view, self.fit)

    def fit(self) -> None:
        """Fit the design to the canvas; it stays fitted while the canvas changes size (the
        window maximising, docks opening) until the user zooms or scrolls."""
        self._fitting = True
        try:
            self.view.fit_all()
        finally:
            self._fitting = False
        self.keep_fitted = True

    def fit_selection(self) -> None:
        """View ▸ Fit Selection: the selected devices and cables fill the canvas; nothing selected: Fit."""
        rect = selection_bounds(self.scene)
        if rect is None:
            self.fit()
        else:
            self.view.fit_rect(rect, max_scale=FIT_SELECTION_MAX)

    keep_fitted = False
    _fitting = False

    def _user_moved_view(self, *_args: Any) -> None:
        if not self._fitting:
            self.keep_fitted = False

    def eventFilter(self, obj: QtCore.QObject, event: QtCore.QEvent) -> bool:  # noqa: N802
        if event.type() == QtCore.QEvent.Type.Resize and obj is self.view.viewport() and self.keep_fitted:
            QtCore.QTimer.singleShot(0, self.view, lambda: self.fit() if self.keep_fitted else None)
        return super().eventFilter(obj, event)
