"""The main window's actions, menus and toolbar (File, Edit, View, Design, Lessons, Help).
A mixin of :class:`~fabricviz.ui.main_window.MainWindow`: the slots are the window's own."""

from __future__ import annotations

from typing import Any, Callable

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import CABLE_TYPES
from fabricviz.ui import layout
from fabricviz.ui.canvas import theme as th


class WindowActions:
    """Builds the window's QActions (with shortcuts and status tips), its menus and toolbar."""

    def _act(self, name: str, text: str, slot: Callable, shortcut: Any = None, icon: str | None = None,
             tip: str | None = None) -> QtGui.QAction:
        a = QtGui.QAction(text, self)
        a.setObjectName(name)
        if shortcut is not None:
            if isinstance(shortcut, list):
                a.setShortcuts(shortcut)
            else:
                a.setShortcut(QtGui.QKeySequence(shortcut))
        if icon:
            a.setIcon(th.icon(icon) if (th.ICONS / f"{icon}.svg").is_file()
                      else self.style().standardIcon(getattr(QtWidgets.QStyle.StandardPixmap, icon)))
        if tip:
            a.setStatusTip(tip)
        a.triggered.connect(slot)
        self.addAction(a)
        return a

    def _build_actions(self) -> None:
        K = QtGui.QKeySequence.StandardKey
        sp = "SP_"
        self.action_new = self._act("action_new", "&New", self.new_design, K.New, sp + "FileIcon",
                                    "an empty design")
        self.action_open = self._act("action_open", "&Open…", self.open_dialog, K.Open, sp + "DialogOpenButton",
                                     "a fabricviz design, ibnetdiscover, ibsim, GraphML, GML, DOT, NetJSON, "
                                     "containerlab")
        self.action_save = self._act("action_save", "&Save", self.save, K.Save, sp + "DialogSaveButton",
                                     "save the design (fabricviz JSON)")
        self.action_save_as = self._act("action_save_as", "Save &As…", self.save_as, K.SaveAs,
                                        tip="save the design under a new name")
        self.action_export_image = self._act("action_export_image", "&Export Image…", self.export_image,
                                             "Ctrl+E", tip="PNG, SVG or PDF with a legend")
        self.action_record = self._act("action_record", "&Record Animation…", self.record_animation,
                                       tip="the SM sweep, a traffic run or the open lesson as an MP4 or GIF video")
        self.action_import_partitions = self._act(
            "action_import_partitions", "Import &Partitions…", lambda: self.import_partitions(),
            tip="read an OpenSM partitions.conf into the design (P_Keys, full/limited members); undoable")
        self.action_export_partitions = self._act(
            "action_export_partitions", "Export P&artitions…", lambda: self.export_partitions(),
            tip="write the design's partitions as an OpenSM partitions.conf")
        from fabricviz.ui.dialogs.export_switch_config import open_export_switch_config
        self.action_export_switch_config = self._act(
            "action_export_switch_config", "Export S&witch Config…", lambda: open_export_switch_config(self),
            tip="the design's PFC/ECN/buffer settings as SONiC config_db.json or Cumulus NVUE YAML per switch")
        self.action_quit = self._act("action_quit", "&Quit", self.close, K.Quit,
                                     tip="close the window (running jobs are cancelled)")
        self.action_undo = self.editor.stack.createUndoAction(self, "&Undo")
        self.action_undo.setObjectName("action_undo")
        self.action_undo.setShortcuts([QtGui.QKeySequence("Ctrl+Z")])   # not the keyboards' Undo/F14 keys
        self.action_undo.setStatusTip("undo the last edit (the History dock lists them)")
        self.action_undo.setIcon(self.style().standardIcon(QtWidgets.QStyle.StandardPixmap.SP_ArrowBack))
        self.action_redo = self.editor.stack.createRedoAction(self, "&Redo")
        self.action_redo.setObjectName("action_redo")
        self.action_redo.setShortcuts([QtGui.QKeySequence("Ctrl+Shift+Z"), QtGui.QKeySequence("Ctrl+Y")])
        self.action_redo.setStatusTip("do again the edit just taken back")
        self.action_redo.setIcon(self.style().standardIcon(QtWidgets.QStyle.StandardPixmap.SP_ArrowForward))
        self.addAction(self.action_undo)
        self.addAction(self.action_redo)
        self.action_copy = self._act("action_copy", "&Copy", self.copy, K.Copy,
                                     tip="copy the selected devices and the cables between them")
        self.action_paste = self._act("action_paste", "&Paste", self.paste, K.Paste,
                                      tip="paste the copied devices at the pointer (new names)")
        self.action_cut = self._act("action_cut", "Cu&t", self.cut, K.Cut, tip="copy, then delete the selected devices")
        self.action_duplicate = self._act("action_duplicate", "&Duplicate", self.duplicate, "Ctrl+D",
                                          tip="a copy of the selected devices beside them")
        self.action_delete = self._act("action_delete", "&Delete", self.delete,
                                       [QtGui.QKeySequence(K.Delete), QtGui.QKeySequence("Backspace")])
        self.action_rename = self._act("action_rename", "&Rename", self.rename, "F2",
                                       tip="rename the selected device (in the inspector)")
        self.action_select_all = self._act("action_select_all", "Select &All", self.select_all, K.SelectAll,
                                           tip="every device and cable")
        self.action_zoom_in = self._act("action_zoom_in", "Zoom &In", lambda: self.view.zoom_by(1.25), K.ZoomIn)
        self.action_zoom_out = self._act("action_zoom_out", "Zoom &Out", lambda: self.view.zoom_by(0.8), K.ZoomOut)
        self.action_fit = self._act("action_fit", "&Fit to View", self.fit,
                                    [QtGui.QKeySequence("Ctrl+0"), QtGui.QKeySequence("F")],
                                    sp + "TitleBarMaxButton")
        self.action_fit_selection = self._act("action_fit_selection", "Fit S&election", self.fit_selection,
                                              "Shift+F", tip="zoom to the selected devices and cables "
                                                             "(nothing selected: the whole design)")
        self.action_minimap = self._act("action_minimap", "&Minimap", self.minimap.set_on,
                                        tip="an overview in the canvas corner: click or drag it to move the view")
        self.action_minimap.setCheckable(True)
        self.action_minimap.setChecked(self.minimap.on)
        from fabricviz.ui.canvas.items.semantic import SEMANTIC_SETTING
        self.action_semantic_zoom = self._act(
            "action_semantic_zoom", "&Semantic Zoom", self.set_semantic_zoom,
            tip="zoomed out, pods and tiers as boxes and the cables between them as bundles "
                "(off: every device and cable at every zoom)")
        self.action_semantic_zoom.setCheckable(True)
        self.action_semantic_zoom.setChecked(bool(self.settings.value(SEMANTIC_SETTING, True, type=bool)))
        self.scene.semantic.set_enabled(self.action_semantic_zoom.isChecked())
        from fabricviz.ui.canvas.overlays.partitions import SETTING as MARKS_SETTING
        self.action_partition_marks = self._act(
            "action_partition_marks", "&Partition Marks", self.set_partition_marks,
            tip="InfiniBand hosts marked by partition (filled: full, outlined: limited member); with one host "
                "selected, the hosts it can talk to")
        self.action_partition_marks.setCheckable(True)
        self.action_partition_marks.setChecked(bool(self.settings.value(MARKS_SETTING, False, type=bool)))
        self.partition_marks.set_on(self.action_partition_marks.isChecked())
        self._build_vl_actions()
        self.action_find = self._act("action_find", "&Find Device…", self.find_device, K.Find,
                                     tip="find a device by name, GUID or LID; centre and select it")
        self.action_reset_layout = self._act("action_reset_layout", "Reset &Layout", lambda: layout.reset(self),
                                             tip="the docks as at the first start")
        self.action_compare_techs = self._act("action_compare_techs", "InfiniBand vs RoCE…", self.open_compare,
                                              tip="the same workload on the design and on its "
                                                  "InfiniBand/RoCE twin, side by side")
        self.action_snap = self._act("action_snap", "Snap to &Grid", self._toggle_snap)
        self.action_snap.setCheckable(True)
        self.action_snap.setChecked(True)
        self.action_generate = self._act("action_generate", "&Generate Fabric…", self.generate, "Ctrl+G",
                                         "ib_switch", "fat tree, leaf-spine or rail-optimized")
        self.action_layout_auto = self._act("action_layout_auto", "&Auto Layout", self.layout_auto, "Ctrl+L",
                                            tip="pods in a grid filling the screen, hosts under their leaves")
        self.action_qos_settings = self._act(
            "action_qos_settings", "&QoS Settings…", lambda: self.qos_settings(),
            tip="OpenSM's QoS options for the design: SL→VL, VL arbitration, operational VLs (undoable)")
        from fabricviz.ui.dialogs.roce_settings import open_roce_settings
        self.action_roce_settings = self._act(
            "action_roce_settings", "Ro&CE Settings…", lambda: open_roce_settings(self),
            tip="MTU, lossless priorities, headroom method, DCQCN preset, ECN thresholds (undoable)")
        from fabricviz.ui.canvas.overlays.pfc_cycle import PfcCycles
        self.pfc_cycles = PfcCycles(self.document, self.scene,
                                    lambda text: self.statusBar().showMessage(text, 15000))
        self.action_pfc_deadlock = self._act(
            "action_pfc_deadlock", "&PFC Deadlock Check",
            lambda: self.pfc_cycles.run(tuple(self.scene.selected_cables)),
            tip="cycles of PFC buffer dependencies in the RoCE routes, drawn on the canvas (selected "
                "cables: as if they had failed — bounce routes)")
        self.action_layout_force = self._act("action_layout_force", "&Force Layout", self.layout_force,
                                             "Ctrl+Shift+L")
        mb = self.menuBar()
        m = mb.addMenu("&File")
        m.addActions([self.action_new, self.action_open])
        self.recent_menu = m.addMenu("Open &Recent")
        self.recent_menu.setObjectName("recent_menu")
        m.addActions([self.action_save, self.action_save_as])
        m.addSeparator()
        m.addActions([self.action_export_image, self.action_record])
        m.addSeparator()
        m.addActions([self.action_import_partitions, self.action_export_partitions])
        m.addAction(self.action_export_switch_config)
        m.addSeparator()
        m.addAction(self.action_quit)
        m = mb.addMenu("&Edit")
        m.addActions([self.action_undo, self.action_redo])
        m.addSeparator()
        m.addActions([self.action_cut, self.action_copy, self.action_paste, self.action_duplicate,
                      self.action_delete, self.action_rename, self.action_select_all])
        m.addSeparator()
        m.addAction(self.action_find)
        m = self.view_menu = mb.addMenu("&View")
        m.setObjectName("view_menu")
        m.addActions([self.action_zoom_in, self.action_zoom_out, self.action_fit, self.action_fit_selection,
                      self.action_snap, self.action_minimap, self.action_semantic_zoom,
                      self.action_partition_marks, self.action_vl_layers, self.action_vl_usage])
        from fabricviz.ui.canvas.overlays.bundled import bundle_colour_menu
        self.bundle_colour = bundle_colour_menu(self, m, self.settings, self.scene)   # View ▸ Bundle Colour
        m.addSeparator()
        for dock, name, key in ((self.palette_dock, "action_palette", None), (self.inspector, "action_inspector", None),
                                (self.history, "action_history", None),
                                (self.findings_dock, "action_findings", "Ctrl+Shift+K"),
                                (self.bom_dock, "action_bom", None),
                                (self.sweep_dock, "action_sweep", "Ctrl+Shift+U"),
                                (self.traffic_dock, "action_traffic", "Ctrl+Shift+T"),
                                (self.partitions_dock, "action_partitions_dock", None),
                                (self.lossless_dock, "action_lossless_dock", None),
                                (self.collectives_dock, "action_collectives_dock", None),
                                (self.whatif_dock, "action_whatif_dock", None),
                                (self.charts_dock, "action_charts", "Ctrl+Shift+J")):
            act = dock.toggleViewAction()
            act.setObjectName(name)
            if key:
                act.setShortcut(QtGui.QKeySequence(key))
            m.addAction(act)
        self.sweep_dock.toggleViewAction().setText("&Subnet Manager Sweep")
        m.addSeparator()
        m.addActions([self.action_compare_techs, self.action_reset_layout])
        m = mb.addMenu("&Design")
        m.addActions([self.action_generate, self.action_layout_auto, self.action_layout_force])
        m.addSeparator()
        m.addAction(self.action_qos_settings)
        m.addAction(self.action_roce_settings)
        m.addAction(self.action_pfc_deadlock)
        m = self.lessons_menu = mb.addMenu("&Lessons")
        m.setObjectName("lessons_menu")
        from fabricviz.ui.lessons.dock import lesson_actions
        m.addActions(lesson_actions(self, self.open_lesson))
        m.addSeparator()
        m.addAction(self.action_presentation)
        act = self.lesson_dock.toggleViewAction()
        act.setObjectName("action_lesson_dock")
        m.addAction(act)
        from fabricviz.ui.dialogs.help import build_help_menu, with_shortcut_tooltips
        self.help_menu = build_help_menu(self)
        with_shortcut_tooltips(self)
        tb = self.addToolBar("Main")
        tb.setObjectName("main_toolbar")
        tb.setIconSize(QtCore.QSize(20, 20))
        tb.addActions([self.action_new, self.action_open, self.action_save])
        tb.addSeparator()
        tb.addActions([self.action_undo, self.action_redo])
        tb.addSeparator()
        tb.addActions([self.action_generate, self.action_fit])
        tb.addSeparator()
        tb.addWidget(QtWidgets.QLabel(" New cable: "))
        self.cable_type_box = QtWidgets.QComboBox(tb)
        self.cable_type_box.setObjectName("cable_type_box")
        self.cable_type_box.addItems(["auto"] + list(CABLE_TYPES))
        self.cable_type_box.setToolTip("cable type for new cables (auto: cheapest that reaches)")
        tb.addWidget(self.cable_type_box)
        self.cable_length_box = QtWidgets.QDoubleSpinBox(tb)
        self.cable_length_box.setObjectName("cable_length_box")
        self.cable_length_box.setRange(0.1, 2000.0)
        self.cable_length_box.setDecimals(1)
        self.cable_length_box.setValue(self.view.cable_length)
        self.cable_length_box.setSuffix(" m")
        tb.addWidget(self.cable_length_box)
        self.cable_type_box.currentTextChanged.connect(self._cable_settings)
        self.cable_length_box.valueChanged.connect(self._cable_settings)
        self._update_recent()

    def _build_vl_actions(self) -> None:
        """View ▸ VL Layers and View ▸ VL Usage: their canvas overlays and checkable actions (kept in
        the settings)."""
        from fabricviz.ui.canvas.overlays import vl_layers, vl_usage

        def say(text: str) -> None:
            self.statusBar().showMessage(text, 8000)
        self.vl_layers = vl_layers.VlLayers(self.document, self.scene, say)
        self.vl_usage = vl_usage.VlUsage(self.document, self.scene, say)
        for attr, overlay, key, text, tip in (
                ("action_vl_layers", self.vl_layers, vl_layers.SETTING, "&VL Layers",
                 "InfiniBand cables coloured by the virtual lanes the routed paths use on them (the SM's "
                 "routing: its SLs through the design's SL2VL tables); several VLs striped"),
                ("action_vl_usage", self.vl_usage, vl_usage.SETTING, "VL &Usage",
                 "cables coloured by the VL carrying most of their traffic in the last traffic run, paler "
                 "as the VL mix grows")):
            def slot(on: bool, overlay=overlay, key=key) -> None:
                self.settings.setValue(key, bool(on))
                overlay.set_on(bool(on))
            a = self._act(attr, text, slot, tip=tip)
            a.setCheckable(True)
            a.setChecked(bool(self.settings.value(key, False, type=bool)))
            setattr(self, attr, a)
            overlay.set_on(a.isChecked())


__all__ = ["WindowActions"]
