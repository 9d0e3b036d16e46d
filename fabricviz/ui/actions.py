"""The main window's actions, menus and toolbar, as data: :data:`ACTIONS` is the table of every
menu entry (its text, keys, tip, icon, where it goes and which controller method it calls),
:data:`TOOLBAR` the main toolbar. :class:`ActionSet` builds the QActions of the table onto a
window; the Help ▸ Keyboard Shortcuts listing reads them back from the window.

A handler is a dotted path from the window to a controller's method (``"files.save"``: the
window's file controller; ``"view.zoom_by"`` with ``args``). A checkable action calls its
handler with its new state; with a ``setting`` the state is kept in the user's settings and
given to the handler once when the window is built.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.items.semantic import SEMANTIC_SETTING
from fabricviz.ui.canvas.overlays import planes, vl_layers, vl_usage
from fabricviz.ui.canvas.overlays.partitions import SETTING as MARKS_SETTING

K = QtGui.QKeySequence.StandardKey
#: A key: a portable one (``K.Save``) or a key sequence's text (``"Ctrl+E"``).
Key = str | QtGui.QKeySequence.StandardKey


@dataclass(frozen=True)
class ActionSpec:
    """One action of the window (object name ``action_<id>``)."""

    id: str
    text: str
    handler: str                        # dotted path from the window: "files.save", "view.zoom_by"
    menu: str | None = None             # a key of MENUS; None: the window's own (keys only)
    keys: tuple[Key, ...] = ()          # one: its shortcut; several: all of them
    tip: str | None = None              # status tip (also the Keyboard Shortcuts listing's words)
    icon: str | None = None             # a theme icon, or a QStyle standard pixmap name ("SP_…")
    args: tuple[Any, ...] = ()          # given to the handler
    sep: bool = False                   # a separator before it in its menu
    checkable: bool = False
    checked: bool = False               # the first state (or the setting's default)
    setting: str | None = None          # the settings key keeping the checked state
    initial: str | None = None          # dotted path to the first checked state ("minimap.on")
    needs_selection: bool = False       # enabled only while something is selected
    factory: str | None = None          # dotted path to ``f(parent, text) -> QAction`` (undo/redo)


@dataclass(frozen=True)
class Slot:
    """A place in a menu that the window fills itself (a submenu, the lessons); ``docks`` is
    View ▸ the docks' own toggle actions (:data:`DOCK_TOGGLES`)."""

    id: str
    menu: str
    sep: bool = False


@dataclass(frozen=True)
class MenuSpec:
    key: str
    title: str
    name: str | None = None             # object name


@dataclass(frozen=True)
class DockToggle:
    """View ▸ <dock>: the dock's own toggle action, named and given keys."""

    dock: str                           # the window's attribute
    id: str
    key: str | None = None
    text: str | None = None             # instead of the dock's title


MENUS: tuple[MenuSpec, ...] = (
    MenuSpec("file", "&File"),
    MenuSpec("edit", "&Edit"),
    MenuSpec("view", "&View", "view_menu"),
    MenuSpec("design", "&Design"),
    MenuSpec("lessons", "&Lessons", "lessons_menu"),
)

SP = "SP_"
ACTIONS: tuple[ActionSpec | Slot, ...] = (
    # File
    ActionSpec("new", "&New", "files.new_design", "file", (K.New,), "an empty design", SP + "FileIcon"),
    ActionSpec("open", "&Open…", "files.open_dialog", "file", (K.Open,),
               "a fabricviz design, ibnetdiscover (also -p), iblinkinfo, opensm-subnet.lst, ibdm topology, ibsim, "
               "GraphML, GML, DOT, NetJSON, containerlab",
               SP + "DialogOpenButton"),
    Slot("recent", "file"),
    ActionSpec("save", "&Save", "files.save", "file", (K.Save,), "save the design (fabricviz JSON)",
               SP + "DialogSaveButton"),
    ActionSpec("save_as", "Save &As…", "files.save_as", "file", (K.SaveAs,), "save the design under a new name"),
    ActionSpec("export_image", "&Export Image…", "export_image", "file", ("Ctrl+E",),
               "PNG, SVG or PDF with a legend", sep=True),
    ActionSpec("record", "&Record Animation…", "record_animation", "file",
               tip="the SM sweep, a traffic run or the open lesson as an MP4 or GIF video"),
    ActionSpec("import_partitions", "Import &Partitions…", "files.import_partitions", "file",
               tip="read an OpenSM partitions.conf into the design (P_Keys, full/limited members); undoable",
               sep=True),
    ActionSpec("export_partitions", "Export P&artitions…", "files.export_partitions", "file",
               tip="write the design's partitions as an OpenSM partitions.conf"),
    ActionSpec("export_switch_config", "Export S&witch Config…", "export_switch_config", "file",
               tip="the design's PFC/ECN/buffer settings as SONiC config_db.json or Cumulus NVUE YAML per switch"),
    ActionSpec("compare_discovered", "Compare with &Discovered…", "files.compare_discovered", "file",
               tip="is the fabric cabled as designed? ibnetdiscover output (or an ibsim net file, another design) "
                   "against the design: missing, extra and misplaced cables drawn and listed", sep=True),
    ActionSpec("load_counters", "Load Port &Counters…", "counters_dock.open_files", "file",
               tip="perfquery, ibqueryerrors or ibdiagnet PM output: the worst links listed, cables coloured"),
    ActionSpec("quit", "&Quit", "close", "file", (K.Quit,), "close the window (running jobs are cancelled)",
               sep=True),
    # Edit
    ActionSpec("undo", "&Undo", "", "edit", ("Ctrl+Z",), "undo the last edit (the History dock lists them)",
               SP + "ArrowBack", factory="editor.stack.createUndoAction"),   # not the keyboards' Undo/F14 keys
    ActionSpec("redo", "&Redo", "", "edit", ("Ctrl+Shift+Z", "Ctrl+Y"), "do again the edit just taken back",
               SP + "ArrowForward", factory="editor.stack.createRedoAction"),
    ActionSpec("cut", "Cu&t", "selection.cut", "edit", (K.Cut,), "copy, then delete the selected devices",
               sep=True, needs_selection=True),
    ActionSpec("copy", "&Copy", "selection.copy", "edit", (K.Copy,),
               "copy the selected devices and the cables between them", needs_selection=True),
    ActionSpec("paste", "&Paste", "selection.paste", "edit", (K.Paste,),
               "paste the copied devices at the pointer (new names)"),
    ActionSpec("duplicate", "&Duplicate", "selection.duplicate", "edit", ("Ctrl+D",),
               "a copy of the selected devices beside them", needs_selection=True),
    ActionSpec("delete", "&Delete", "selection.delete", "edit", (K.Delete, "Backspace"),
               "delete the selected devices (with their cables) and cables", needs_selection=True),
    ActionSpec("rename", "&Rename", "rename", "edit", ("F2",), "rename the selected device (in the inspector)"),
    ActionSpec("select_all", "Select &All", "selection.select_all", "edit", (K.SelectAll,), "every device and cable"),
    ActionSpec("find", "&Find Device…", "find_device", "edit", (K.Find,),
               "find a device by name, GUID or LID; centre and select it", sep=True),
    # View
    ActionSpec("zoom_in", "Zoom &In", "view.zoom_by", "view", (K.ZoomIn,), "zoom in on the canvas by a quarter",
               args=(1.25,)),
    ActionSpec("zoom_out", "Zoom &Out", "view.zoom_by", "view", (K.ZoomOut,), "zoom the canvas out", args=(0.8,)),
    ActionSpec("fit", "&Fit to View", "fit", "view", ("Ctrl+0", "F"), "zoom so the whole design fills the canvas",
               icon=SP + "TitleBarMaxButton"),
    ActionSpec("fit_selection", "Fit S&election", "selection.fit_selection", "view", ("Shift+F",),
               "zoom to the selected devices and cables (nothing selected: the whole design)"),
    ActionSpec("snap", "Snap to &Grid", "set_snap", "view", checkable=True, checked=True),
    ActionSpec("minimap", "&Minimap", "minimap.set_on", "view",
               tip="an overview in the canvas corner: click or drag it to move the view",
               checkable=True, initial="minimap.on"),
    ActionSpec("semantic_zoom", "&Semantic Zoom", "scene.semantic.set_enabled", "view",
               tip="zoomed out, pods and tiers as boxes and the cables between them as bundles "
                   "(off: every device and cable at every zoom)",
               checkable=True, checked=True, setting=SEMANTIC_SETTING),
    ActionSpec("partition_marks", "&Partition Marks", "partition_marks.set_on", "view",
               tip="InfiniBand hosts marked by partition (filled: full, outlined: limited member); with one host "
                   "selected, the hosts it can talk to",
               checkable=True, setting=MARKS_SETTING),
    ActionSpec("vl_layers", "&VL Layers", "vl_layers.set_on", "view",
               tip="InfiniBand cables coloured by the virtual lanes the routed paths use on them (the SM's "
                   "routing: its SLs through the design's SL2VL tables); several VLs striped",
               checkable=True, setting=vl_layers.SETTING),
    ActionSpec("vl_usage", "VL &Usage", "vl_usage.set_on", "view",
               tip="cables coloured by the VL carrying most of their traffic in the last traffic run, paler "
                   "as the VL mix grows",
               checkable=True, setting=vl_usage.SETTING),
    ActionSpec("plane_layers", "P&lane Layers", "plane_layers.set_on", "view",
               tip="a multi-plane design's cables in their plane's colour (View ▸ Show Plane: one plane alone)",
               checkable=True, setting=planes.SETTING),
    Slot("plane_filter", "view"),
    Slot("bundle_colour", "view"),
    Slot("colour_by", "view"),          # View ▸ Colour by ▸ port counters (errors / XmitWait)
    Slot("docks", "view", sep=True),
    ActionSpec("compare_techs", "InfiniBand vs RoCE…", "open_compare", "view",
               tip="the same workload on the design and on its InfiniBand/RoCE twin, side by side", sep=True),
    ActionSpec("reset_layout", "Reset &Layout", "reset_layout", "view", tip="the docks as at the first start"),
    # Design
    ActionSpec("generate", "&Generate Fabric…", "generate", "design", ("Ctrl+G",),
               "fat tree, leaf-spine or rail-optimized", "ib_switch"),
    ActionSpec("layout_auto", "&Auto Layout", "layout_auto", "design", ("Ctrl+L",),
               "pods in a grid filling the screen, hosts under their leaves"),
    ActionSpec("layout_force", "&Force Layout", "layout_force", "design", ("Ctrl+Shift+L",),
               "place the devices by a force-directed layout (one undo step)"),
    ActionSpec("qos_settings", "&QoS Settings…", "qos_settings", "design",
               tip="OpenSM's QoS options for the design: SL→VL, VL arbitration, operational VLs (undoable)",
               sep=True),
    ActionSpec("roce_settings", "Ro&CE Settings…", "roce_settings", "design",
               tip="MTU, lossless priorities, headroom method, DCQCN preset, ECN thresholds (undoable)"),
    ActionSpec("pfc_deadlock", "&PFC Deadlock Check", "pfc_deadlock", "design",
               tip="cycles of PFC buffer dependencies in the RoCE routes, drawn on the canvas (selected "
                   "cables: as if they had failed — bounce routes)"),
    # Lessons
    Slot("lessons", "lessons"),
    Slot("presentation", "lessons", sep=True),
    Slot("lesson_dock", "lessons"),
)

#: View ▸ the docks, in this order.
DOCK_TOGGLES: tuple[DockToggle, ...] = (
    DockToggle("palette_dock", "palette"),
    DockToggle("inspector", "inspector"),
    DockToggle("history", "history"),
    DockToggle("findings_dock", "findings", "Ctrl+Shift+K"),
    DockToggle("diff_dock", "diff_dock"),
    DockToggle("bom_dock", "bom"),
    DockToggle("sweep_dock", "sweep", "Ctrl+Shift+U", "&Subnet Manager Sweep"),
    DockToggle("traffic_dock", "traffic", "Ctrl+Shift+T"),
    DockToggle("partitions_dock", "partitions_dock"),
    DockToggle("lossless_dock", "lossless_dock"),
    DockToggle("collectives_dock", "collectives_dock"),
    DockToggle("whatif_dock", "whatif_dock"),
    DockToggle("counters_dock", "counters_dock"),
    DockToggle("charts_dock", "charts", "Ctrl+Shift+J"),
)

#: The main toolbar: action ids, "-" a separator, "@cable" the new-cable settings.
TOOLBAR: tuple[str, ...] = ("new", "open", "save", "-", "undo", "redo", "-", "generate", "fit", "-", "@cable")


def _sequence(key: Key) -> QtGui.QKeySequence:
    return QtGui.QKeySequence(key)


class ActionSet:
    """The QActions and menus built from :data:`ACTIONS` onto ``window``; ``acts["save"]`` is
    File ▸ Save (object name ``action_save``)."""

    def __init__(self, window: QtWidgets.QMainWindow, settings: QtCore.QSettings,
                 fill: Callable[[str, QtWidgets.QMenu], None],
                 specs: tuple[ActionSpec | Slot, ...] = ACTIONS) -> None:
        self.window = window
        self.settings = settings
        self.actions: dict[str, QtGui.QAction] = {}
        self.menus: dict[str, QtWidgets.QMenu] = {}
        self.specs = {s.id: s for s in specs if isinstance(s, ActionSpec)}
        for spec in self.specs.values():
            self.actions[spec.id] = self._build(spec)
        bar = window.menuBar()
        for m in MENUS:
            built = bar.addMenu(m.title)
            assert built is not None
            self.menus[m.key] = built
            if m.name:
                built.setObjectName(m.name)
        for entry in specs:
            menu = self.menus[entry.menu] if entry.menu is not None else None
            if menu is None:
                continue
            if entry.sep:
                menu.addSeparator()
            if isinstance(entry, Slot) and entry.id == "docks":
                self.dock_toggles(menu)
            elif isinstance(entry, Slot):
                fill(entry.id, menu)
            else:
                menu.addAction(self.actions[entry.id])

    def __getitem__(self, id: str) -> QtGui.QAction:
        return self.actions[id]

    def menu(self, key: str) -> QtWidgets.QMenu:
        return self.menus[key]

    def _build(self, spec: ActionSpec) -> QtGui.QAction:
        w = self.window
        if spec.factory is not None:
            a: QtGui.QAction = attrgetter(spec.factory)(w)(w, spec.text)
        else:
            a = QtGui.QAction(spec.text, w)
        a.setObjectName(f"action_{spec.id}")
        if spec.factory is not None:
            a.setShortcuts([_sequence(k) for k in spec.keys])
        elif len(spec.keys) == 1:
            a.setShortcut(_sequence(spec.keys[0]))
        elif spec.keys:
            a.setShortcuts([_sequence(k) for k in spec.keys])
        if spec.tip:
            a.setStatusTip(spec.tip)
        if spec.icon:
            a.setIcon(th.icon(spec.icon) if (th.ICONS / f"{spec.icon}.svg").is_file()
                      else w.style().standardIcon(getattr(QtWidgets.QStyle.StandardPixmap, spec.icon)))
        if spec.checkable:
            a.setCheckable(True)
            if spec.initial is not None:
                a.setChecked(bool(attrgetter(spec.initial)(w)))
            elif spec.setting is not None:
                a.setChecked(bool(self.settings.value(spec.setting, spec.checked, type=bool)))
            else:
                a.setChecked(spec.checked)
        if spec.handler:
            handler = attrgetter(spec.handler)(w)
            if spec.checkable:
                a.triggered.connect(lambda on, h=handler, key=spec.setting: self._toggled(h, key, on))
            else:
                a.triggered.connect(lambda *_, h=handler, args=spec.args: h(*args))
            if spec.setting is not None:
                handler(a.isChecked())       # the kept state, applied
        w.addAction(a)
        return a

    def _toggled(self, handler: Callable[[bool], Any], setting: str | None, on: bool) -> None:
        if setting is not None:
            self.settings.setValue(setting, bool(on))
        handler(bool(on))

    def selection_changed(self, selected: bool) -> None:
        """The actions on the selection are enabled while something is selected."""
        for spec in self.specs.values():
            if spec.needs_selection:
                self.actions[spec.id].setEnabled(selected)

    def dock_toggles(self, menu: QtWidgets.QMenu) -> None:
        """View ▸ the docks (:data:`DOCK_TOGGLES`)."""
        for t in DOCK_TOGGLES:
            act = getattr(self.window, t.dock).toggleViewAction()
            act.setObjectName(f"action_{t.id}")
            if t.key:
                act.setShortcut(QtGui.QKeySequence(t.key))
            menu.addAction(act)
        for t in DOCK_TOGGLES:
            if t.text:
                getattr(self.window, t.dock).toggleViewAction().setText(t.text)

    def toolbar(self, items: tuple[str, ...] = TOOLBAR,
                fill: Callable[[str, QtWidgets.QToolBar], None] | None = None) -> QtWidgets.QToolBar:
        tb = self.window.addToolBar("Main")
        tb.setObjectName("main_toolbar")
        tb.setIconSize(QtCore.QSize(20, 20))
        for item in items:
            if item == "-":
                tb.addSeparator()
            elif item.startswith("@"):
                if fill is not None:
                    fill(item[1:], tb)
            else:
                tb.addAction(self.actions[item])
        return tb


__all__ = ["ACTIONS", "ActionSet", "ActionSpec", "DOCK_TOGGLES", "DockToggle", "MENUS", "MenuSpec", "Slot",
           "TOOLBAR"]
