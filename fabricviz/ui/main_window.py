"""The main window: a shell that builds one design's parts and lays them out.

``MainWindow(path)`` opens ``path``; ``MainWindow()`` opens the bundled demo fabric (as an
untitled copy: saving asks where). The window holds the :class:`~fabricviz.ui.document.document.Document`
(its editor runs every edit as an undo command; the canvas follows the model's change events),
its :class:`~fabricviz.ui.document.files.FileController` (``files``: open, save, recent files,
autosave), the canvas and its :class:`~fabricviz.ui.canvas.selection.SelectionController`
(``selection``), the docks, and the menus and toolbar built from the table of actions in
:mod:`fabricviz.ui.actions` (``acts["save"]``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.anim.lessons import find_lesson
from fabricviz.generate import layout as gen_layout
from fabricviz.model import Fabric, FabricError
from fabricviz.resources import asset_path
from fabricviz.ui import layout
from fabricviz.ui.actions import ActionSet
from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.cable_tools import CableTools
from fabricviz.ui.canvas.describe import plural
from fabricviz.ui.canvas.minimap import Minimap
from fabricviz.ui.canvas.overlays import vl_layers, vl_usage
from fabricviz.ui.canvas.overlays.bundled import bundle_colour_menu
from fabricviz.ui.canvas.overlays.counters import CounterColours
from fabricviz.ui.canvas.overlays.diff import DiffOverlay
from fabricviz.ui.canvas.overlays.pfc_cycle import PfcCycles
from fabricviz.ui.canvas.overlays.planes import PlaneLayers
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.canvas.selection import SelectionController
from fabricviz.ui.canvas.view import CanvasView
from fabricviz.ui.dialogs.export_switch_config import open_export_switch_config
from fabricviz.ui.dialogs.find import FindDialog
from fabricviz.ui.dialogs.generator import GeneratorDialog
from fabricviz.ui.dialogs.help import build_help_menu, with_shortcut_tooltips
from fabricviz.ui.dialogs.qos import QosDialog
from fabricviz.ui.dialogs.roce_settings import open_roce_settings
from fabricviz.ui.docks.findings import select_on_canvas
from fabricviz.ui.docks.inspector import Inspector
from fabricviz.ui.docks.palette import Palette
from fabricviz.ui.document.commands import HistoryView
from fabricviz.ui.document.document import Document
from fabricviz.ui.document.files import FileController
from fabricviz.ui.document.settings import settings
from fabricviz.ui.jobs import Cancelled
from fabricviz.ui.lessons.dock import lesson_actions, lesson_display_name

#: The fabric shown when the window is opened without a file.
DEMO_FABRIC = asset_path("demo", "demo-fat-tree.json")
#: Above this many devices, building the canvas shows a progress dialog.
PROGRESS_DEVICES = 20_000
#: Designs above this many devices opened in a shown window (semantic zoom on) make their device
#: items and near cable paths when first needed (zoomed out the semantic layer draws them): a
#: radix-48 tree's 86k items cost ~1 s of its open (FabricScene.set_fabric ``defer``).
DEFER_DEVICES = 20_000
#: While a big design is drawn, its progress dialog is updated at most this often (seconds).
PROGRESS_EVERY_S = 0.25


def zoom_text(scale: float) -> str:
    """``130 %``, ``15 %``, ``0.077 %``: a 30k-host design fits at well under 1 %."""
    pct = scale * 100
    return f"{pct:.0f} %" if pct >= 10 else f"{pct:.2g} %"


class MainWindow(QtWidgets.QMainWindow):
    """fabricviz's editor window."""

    def __init__(self, path: str | os.PathLike[str] | None = None,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("main_window")
        self.setDockNestingEnabled(True)
        self.settings = settings()
        self.document = Document(Fabric(name="untitled"), self)
        self.editor = self.document.editor
        self.files = FileController(self.document, self.settings, self)
        self.scene = FabricScene(self)
        self.document.changed.connect(self.scene.follow)       # the canvas first: docks read its items
        self.view = CanvasView(self.scene, self.editor, self)
        self.setCentralWidget(self.view)
        self.minimap = Minimap(self.view, self.document, self.settings)   # View ▸ Minimap
        self.selection = SelectionController(self.document, self.scene, self.view, self.fit, self)
        self._build_status()
        self._build_docks()
        self._build_overlays()
        self.acts = ActionSet(self, self.settings, self._fill_menu)
        self.help_menu = build_help_menu(self)
        with_shortcut_tooltips(self)
        self.acts.toolbar(fill=self._fill_toolbar)
        self._connect()
        self._fitted = False
        self.files.start(Path(path) if path is not None else DEMO_FABRIC, demo=path is None)
        self._apply_theme()
        self.default_layout = self.saveState()
        layout.restore(self)

    @property
    def fabric(self) -> Fabric:
        return self.editor.fabric

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
        from fabricviz.ui.docks.diff import DiffDock  # File ▸ Compare with Discovered…
        self.diff_dock = DiffDock(doc, self)
        self.diff_dock.select_objects.connect(
            lambda devs, cabs: select_on_canvas(self.editor.fabric, self.scene, self.view, devs, cabs))
        self.diff_dock.compare_requested.connect(lambda: self.files.compare_discovered())
        doc.session.diff.changed.connect(
            lambda: layout.reveal(self, self.diff_dock) if doc.session.diff.report is not None else None)
        self.sweep_dock = SweepDock(doc, self.scene, self.view, self)
        self.traffic_dock = TrafficDock(doc, self)
        self.traffic_dock.select_hosts.connect(
            lambda devs: select_on_canvas(self.editor.fabric, self.scene, self.view, devs, []))
        self.charts_dock = ChartsDock(doc, self.scene, self)
        self.partitions_dock = PartitionsDock(doc, self, selection=self.scene.selected_device_ids)
        from fabricviz.ui.docks.lossless import LosslessDock  # View ▸ Lossless (RoCE)
        self.lossless_dock = LosslessDock(doc, self, selection=self.scene.selected_device_ids)
        self.lossless_dock.settings_requested.connect(lambda: open_roce_settings(self))
        self.scene.selectionChanged.connect(self.lossless_dock.selection_changed)
        from fabricviz.ui.docks.whatif import WhatifDock  # View ▸ What-if (failures)
        self.whatif_dock = WhatifDock(doc, self.scene, self, settings=self.settings)
        from fabricviz.ui.docks.collectives import CollectivesDock  # View ▸ Collectives (busbw)
        self.collectives_dock = CollectivesDock(doc, self)
        self.collectives_dock.select_links.connect(
            lambda cabs: select_on_canvas(self.editor.fabric, self.scene, self.view, [], cabs))
        from fabricviz.ui.docks.counters import CountersDock  # File ▸ Load Port Counters…
        self.counters_dock = CountersDock(doc, self)
        self.counters_dock.select_links.connect(
            lambda cabs: select_on_canvas(self.editor.fabric, self.scene, self.view, [], cabs))
        from fabricviz.ui.canvas.overlays.partitions import PartitionMarks  # View ▸ Partition Marks
        self.partition_marks = PartitionMarks(doc, self.scene, lambda text: self.statusBar().showMessage(text, 8000))
        self.traffic_view = TrafficView(doc, self.scene)
        self.traffic_dock.result_ready.connect(
            lambda res: layout.reveal(self, self.charts_dock) if res is not None else None)
        self.lesson_dock = LessonDock(doc, self)
        self.presentation = Presentation(self, self.lesson_dock, self.fit)
        self.action_presentation = self.presentation.action
        self.lesson_stage = LessonStage(doc, self.scene, self.lesson_dock, self.presentation,
                                        lambda text: self.statusBar().showMessage(text, 8000))
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

    def _build_overlays(self) -> None:
        """The canvas overlays the menus switch (View ▸ VL Layers / VL Usage, Design ▸ PFC Deadlock Check,
        File ▸ Compare with Discovered)."""
        self.pfc_cycles = PfcCycles(self.document, self.scene, lambda text: self.say(text, 15000))
        self.vl_layers = vl_layers.VlLayers(self.document, self.scene, self.say)
        self.plane_layers = PlaneLayers(self.document, self.scene, self.say)           # View ▸ Plane Layers
        self.vl_usage = vl_usage.VlUsage(self.document, self.scene, self.say)
        self.counter_colours = CounterColours(self.document, self.scene, self.say)   # View ▸ Colour by
        self.diff_overlay = DiffOverlay(self.document, self.scene)

    def _fill_menu(self, slot: str, menu: QtWidgets.QMenu) -> None:
        """The menus' entries that are not actions of the table (see ``Slot`` in ui/actions.py)."""
        if slot == "recent":
            self.recent_menu = menu.addMenu("Open &Recent")
            self.recent_menu.setObjectName("recent_menu")
            self._update_recent()
        elif slot == "bundle_colour":
            self.bundle_colour = bundle_colour_menu(self, menu, self.settings, self.scene)
        elif slot == "plane_filter":
            self.plane_filter_menu = self.plane_layers.fill_menu(menu)
        elif slot == "colour_by":
            self.colour_by_menu = self.counter_colours.fill_menu(menu)
        elif slot == "lessons":
            menu.addActions(lesson_actions(self, self.open_lesson))
        elif slot == "presentation":
            menu.addAction(self.presentation.action)
        elif slot == "lesson_dock":
            act = self.lesson_dock.toggleViewAction()
            act.setObjectName("action_lesson_dock")
            menu.addAction(act)
        else:
            raise ValueError(f"no menu slot {slot!r}")

    def _fill_toolbar(self, slot: str, toolbar: QtWidgets.QToolBar) -> None:
        if slot != "cable":
            raise ValueError(f"no toolbar slot {slot!r}")
        self.cable_tools = CableTools(self.document, self.view, toolbar)

    def _connect(self) -> None:
        """The parts' signals to the window (title, status bar, counts) and to each other."""
        say = self.say
        self.files.status.connect(say)
        self.files.title_changed.connect(self._update_title)
        self.files.recent_changed.connect(self._update_recent)
        self.files.created.connect(self._new_design_view)
        self.selection.status.connect(say)
        self.selection.changed.connect(self.acts.selection_changed)
        self.cable_tools.status.connect(say)
        self.palette_dock.cable_part_chosen.connect(self.cable_tools.choose_part)
        self.document.replaced.connect(self._fabric_replaced)
        self.document.message.connect(self._message)
        self.document.session.cleared.connect(self._session_cleared)
        stack = self.editor.stack
        stack.cleanChanged.connect(self._update_title)
        stack.indexChanged.connect(self._update_counts)
        self._stack_index = 0
        stack.indexChanged.connect(self._stack_moved)
        self.view.zoom_changed.connect(lambda s: self.zoom_label.setText(zoom_text(s)))
        self.view.zoom_changed.connect(self._user_moved_view)
        self.view.horizontalScrollBar().actionTriggered.connect(self._user_moved_view)
        self.view.verticalScrollBar().actionTriggered.connect(self._user_moved_view)
        self.view.status.connect(lambda text: say(text, 8000))

    # ------------------------------------------------------------------ status bar, title
    def say(self, text: str, ms: int = 8000) -> None:
        """A status-bar message for ``ms`` milliseconds (0: until the next one)."""
        self.statusBar().showMessage(text, ms)

    def _message(self, text: str, refusal: bool) -> None:
        self.say(("refused: " if refusal else "") + text, 10000)

    def _update_title(self) -> None:
        self.setWindowModified(not self.editor.stack.isClean())
        self.setWindowTitle(f"{self.document.display_name}[*] \u2014 fabricviz")

    def _update_counts(self) -> None:
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
        self.say(text, 10000)

    def _update_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.files.recent_files()
        for r in recent:
            a = self.recent_menu.addAction(Path(r).name, self._opener(r))
            a.setToolTip(r)
        self.recent_menu.setEnabled(bool(recent))

    def _opener(self, path: str) -> Callable[[], object]:
        return lambda: self.files.open_path(path)

    # ------------------------------------------------------------------ the design and its canvas
    def _fabric_replaced(self) -> None:
        f = self.editor.fabric
        defer = len(f) > DEFER_DEVICES and self.isVisible() and self.scene.semantic.enabled
        self.scene.hold_items = defer        # until fitted: the zooms on the way make no item
        try:
            self._draw_fabric(f, defer)
        finally:
            self.scene.hold_items = False
        if defer and self.scene.semantic.level == "near":     # fitted near (few, big devices): drawn now
            self.scene.make_items_in_view()
            self.scene.ensure_cables()

    def _draw_fabric(self, f: Fabric, defer: bool) -> None:
        """The canvas mirrors ``f`` (a big one with a progress dialog, or deferred), fitted."""
        n = len(f)
        self.view.ports.clear()          # the old design's port panels go with it
        if defer:
            self.scene.set_fabric(f, subscribe=False, children=False, defer=True)
        elif n > PROGRESS_DEVICES:
            dlg = QtWidgets.QProgressDialog("Drawing the fabric…", "", 0, n, self)
            dlg.setCancelButton(None)
            dlg.setWindowModality(QtCore.Qt.WindowModality.WindowModal)
            dlg.setMinimumDuration(0)

            shown = [0.0]

            def progress(done: int, total: int) -> None:
                now = time.monotonic()          # the dialog repaints a few times a second, not per chunk
                if now - shown[0] < PROGRESS_EVERY_S:
                    return
                shown[0] = now
                dlg.setValue(done)
                QtWidgets.QApplication.processEvents(QtCore.QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
            # the fit that follows shows GPUs/NICs if it is near enough: made hidden, not hidden again
            self.scene.set_fabric(f, progress, subscribe=False, children=False if self.isVisible() else None)
            dlg.close()
        else:
            self.scene.set_fabric(f, subscribe=False)
        self.palette_dock.set_catalog(f.catalog)
        self._update_counts()
        if self.isVisible():
            self.fit()

    def _new_design_view(self) -> None:
        """File ▸ New: an empty canvas at 100 %, centred on the origin."""
        self.view.resetTransform()
        self.view.setSceneRect(QtCore.QRectF(-600, -400, 1200, 800))
        self.view.centerOn(0, 0)

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

    def set_snap(self, on: bool) -> None:
        """View ▸ Snap to Grid."""
        self.view.snap = bool(on)

    def reset_layout(self) -> None:
        layout.reset(self)

    def rename(self) -> None:
        """Edit ▸ Rename: the inspector's name field, for the one selected device."""
        if len(self.selection.device_ids()) != 1:
            return
        self.inspector.show()
        self.inspector.name.setFocus()
        self.inspector.name.selectAll()

    def find_device(self) -> None:
        """Edit ▸ Find Device: a name, GUID or LID; the device is centred and selected."""
        dlg = FindDialog(self.document, self)
        if dlg.exec() == QtWidgets.QDialog.DialogCode.Accepted and dlg.found is not None:
            self.selection.show_device(dlg.found)

    # ------------------------------------------------------------------ lessons, comparison
    def open_lesson(self, ref: str) -> bool:
        """Open bundled lesson ``ref`` (number, name or file) like a file; False if refused or cancelled."""
        try:
            lesson = find_lesson(ref)
            fabric = lesson.build_fabric()
        except FabricError as exc:
            self.say(f"refused: {exc}", 10000)
            return False
        if not self.files.maybe_save():
            return False
        name = lesson_display_name(lesson)
        self.document.open(fabric, None, name)      # a new session: the last lesson, runs, overlays go
        self.lesson_stage.begin(fabric)
        dock = self.lesson_dock
        dock.start(lesson)
        layout.reveal(self, dock)
        self._update_title()
        self.say(f"opened {name}", 5000)
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

    # ------------------------------------------------------------------ design actions
    def generate(self) -> None:
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
            self.say(f"{name} cancelled", 5000)
            return
        except Exception as exc:  # a FabricError, or a bug in the layout: said, not raised
            self.say(f"{name} failed", 5000)
            QtWidgets.QMessageBox.critical(self, f"{name} failed", str(exc) or type(exc).__name__)
            return
        if self.document.revision != revision:     # the design moved on meanwhile: not its layout
            self.say(f"{name} dropped: the design changed while it ran", 5000)
            return
        self.editor.set_positions(name, ids, xs, ys)
        self.fit()
        self.say(f"{name}: {len(ids):,} devices placed in {time.perf_counter() - t0:.2f} s", 5000)

    def layout_auto(self) -> None:
        """Design ▸ Auto Layout: pods in a grid filling the screen, hosts under their leaves."""
        self._layout("Auto layout", gen_layout.auto_layout)

    def layout_force(self) -> None:
        self._layout("Force layout", gen_layout.force_layout)

    def qos_settings(self) -> Any:
        """Design ▸ QoS Settings: edit the design's QoS options (OK stores them, one undo step)."""
        dlg = QosDialog(self.editor, self)
        dlg.open()
        return dlg

    def roce_settings(self) -> Any:
        """Design ▸ RoCE Settings (non-modal)."""
        return open_roce_settings(self)

    def pfc_deadlock(self) -> None:
        """Design ▸ PFC Deadlock Check, the selected cables as failed."""
        self.pfc_cycles.run(tuple(self.scene.selected_cables))

    # ------------------------------------------------------------------ pictures
    def export_image(self) -> None:
        start = str(Path(self.files.last_dir()) / (Path(self.document.display_name).stem + ".png"))
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Export image", start,
                                                        "PNG (*.png);;SVG (*.svg);;PDF (*.pdf)")
        if not path:
            return
        # canvas.export and canvas.record run as `python -m` children of the CLI: importing the
        # package must not import them first (runpy would warn on the child's stderr)
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
        self.say(f"exported {out}" if out is not None else "export cancelled", 5000)

    def export_switch_config(self) -> Any:
        """File ▸ Export Switch Config… (non-modal)."""
        return open_export_switch_config(self)

    def record_animation(self) -> None:
        """File ▸ Record Animation…: the sweep, the Traffic dock's run or the open lesson as a video."""
        from fabricviz.ui.dialogs.record import RecordDialog  # not at the top: see export_image
        start = str(Path(self.files.last_dir()) / (Path(self.document.display_name).stem + ".mp4"))
        dlg = RecordDialog(self.document, start=start, parent=self)
        dlg.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.recorded.connect(lambda path: self.say(f"recorded {path}", 8000))
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
        from fabricviz.ui.canvas.export import render_scene  # not at the top: see export_image
        rows = self.lesson_stage.legend_rows() if self.lesson_stage.following else []
        rows += self.counter_colours.legend_rows()          # View ▸ Colour by: the port counters' colours
        rows += self.plane_layers.legend_rows()             # View ▸ Plane Layers
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
        """Save / Discard / Cancel; closing stops the recording, the jobs and the What-if workers."""
        if not self.files.maybe_save():
            event.ignore()
            return
        layout.save(self)
        self.files.close()         # saved or discarded: the recovery file goes
        if self.record_dialog is not None and self.record_dialog.busy:
            self.record_dialog.cancel()        # a recording stops; its partial file goes
        self.document.close()      # running jobs are cancelled, never waited for
        if self.compare_window is not None:
            self.compare_window.close()
        event.accept()
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

    keep_fitted = False
    _fitting = False

    def _user_moved_view(self, *_args: Any) -> None:
        if not self._fitting:
            self.keep_fitted = False

    def eventFilter(self, obj: QtCore.QObject, event: QtCore.QEvent) -> bool:  # noqa: N802
        if event.type() == QtCore.QEvent.Type.Resize and obj is self.view.viewport() and self.keep_fitted:
            QtCore.QTimer.singleShot(0, self.view, lambda: self.fit() if self.keep_fitted else None)
        return super().eventFilter(obj, event)


__all__ = ["DEFER_DEVICES", "DEMO_FABRIC", "MainWindow", "PROGRESS_DEVICES", "settings", "zoom_text"]
