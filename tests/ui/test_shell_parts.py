"""The main window's parts on their own: the table of actions, the file controller of a
document, the selection controller of a canvas — each works without a MainWindow, and the
window's menus, keys and Help ▸ Keyboard Shortcuts listing come from the table."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.formats.native import dumps, save_fabric
from fabricviz.generate import k_ary_fat_tree
from fabricviz.ui.actions import ACTIONS, MENUS, ActionSet, ActionSpec, Slot
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.canvas.selection import SelectionController
from fabricviz.ui.canvas.view import CanvasView
from fabricviz.ui.dialogs.help import NO_MENU, clean_text, keys_text, shortcut_rows
from fabricviz.ui.document.autosave import Autosave
from fabricviz.ui.document.document import Document
from fabricviz.ui.document.files import FileController


# ---------------------------------------------------------------------- the table of actions
def test_every_action_of_the_table_is_in_the_window_with_its_keys_tip_and_menu(make_window):
    w = make_window()
    titles = {m.key: m.title for m in MENUS}
    specs = [s for s in ACTIONS if isinstance(s, ActionSpec)]
    assert len({s.id for s in specs}) == len(specs)                 # one action per id
    for spec in specs:
        act = w.acts[spec.id]
        assert act.objectName() == f"action_{spec.id}" and act.text() == spec.text
        assert w.findChild(QtGui.QAction, f"action_{spec.id}") is act and act in w.actions()
        assert act.statusTip() == (spec.tip or "") and act.isCheckable() == spec.checkable
        bound = [QtGui.QKeySequence(k) for k in spec.keys]          # a portable key may have none here
        assert act.shortcuts()[:1] == [k for k in bound if not k.isEmpty()][:1]
        if spec.menu is not None:
            menu = w.acts.menu(spec.menu)
            assert act in menu.actions() and menu.title() == titles[spec.menu]
    assert [a.menu() for a in w.menuBar().actions()][:len(MENUS)] == [w.acts.menu(m.key) for m in MENUS]


def test_the_keyboard_shortcuts_listing_has_every_keyed_action_of_the_table(make_window):
    w = make_window()
    rows = {(action, keys): (menu, what) for action, keys, menu, what in shortcut_rows(w)}
    keyed = [s for s in ACTIONS if isinstance(s, ActionSpec) and w.acts[s.id].shortcuts()]
    assert len(keyed) >= 20
    for spec in keyed:
        act = w.acts[spec.id]
        menu, what = rows[(clean_text(spec.text), keys_text(act))]
        assert menu != NO_MENU and menu.startswith(clean_text(dict((m.key, m.title) for m in MENUS)[spec.menu]))
        assert what == (spec.tip or what)
        assert what, f"{spec.id} has no description in Keyboard Shortcuts"       # issue 29: Delete had none


class _Counter(QtCore.QObject):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple] = []

    def hit(self, *args) -> None:
        self.calls.append(args)


class _Host(QtWidgets.QMainWindow):
    """A window holding one controller, for a table of its own."""

    def __init__(self) -> None:
        super().__init__()
        self.ctl = _Counter()


def test_an_action_set_calls_its_controllers_keeps_settings_and_follows_the_selection(qtbot, tmp_path):
    host = _Host()
    qtbot.addWidget(host)
    settings = QtCore.QSettings(str(tmp_path / "t.ini"), QtCore.QSettings.Format.IniFormat)
    settings.setValue("t/on", True)
    filled: list[str] = []
    specs = (
        ActionSpec("go", "&Go", "ctl.hit", "file", ("Ctrl+G",), "go somewhere", args=(3, "x")),
        Slot("more", "file", sep=True),
        ActionSpec("mark", "&Mark", "ctl.hit", "view", checkable=True, setting="t/on"),
        ActionSpec("cut", "Cu&t", "ctl.hit", "edit", needs_selection=True),
    )
    acts = ActionSet(host, settings, lambda slot, menu: filled.append(slot), specs)
    assert filled == ["more"] and host.ctl.calls == [(True,)]       # the kept state applied once
    assert acts["mark"].isChecked()
    acts["go"].trigger()
    assert host.ctl.calls[-1] == (3, "x")
    acts["mark"].trigger()                                          # the user switches it off
    assert host.ctl.calls[-1] == (False,) and settings.value("t/on", type=bool) is False
    acts.selection_changed(False)
    assert not acts["cut"].isEnabled() and acts["go"].isEnabled()
    acts.selection_changed(True)
    assert acts["cut"].isEnabled()
    assert acts["go"].shortcut() == QtGui.QKeySequence("Ctrl+G") and acts["go"] in acts.menu("file").actions()


# ---------------------------------------------------------------------- the file controller
@pytest.fixture
def k4(tmp_path) -> Path:
    path = tmp_path / "k4.json"
    save_fabric(k_ary_fat_tree(4), path)
    return path


def test_a_file_controller_opens_and_saves_a_document_without_a_window(qtbot, tmp_path, k4):
    parent = QtWidgets.QWidget()
    qtbot.addWidget(parent)
    doc = Document()
    settings = QtCore.QSettings(str(tmp_path / "t.ini"), QtCore.QSettings.Format.IniFormat)
    files = FileController(doc, settings, parent)
    said: list[tuple[str, int]] = []
    titled: list[bool] = []
    files.status.connect(lambda text, ms: said.append((text, ms)))
    files.title_changed.connect(lambda: titled.append(True))
    assert files.start(k4) and files.autosave is not None and files.load_error is None
    assert doc.path == k4 and doc.display_name == "k4.json" and said == [("opened k4.json", 5000)] and titled
    assert files.recent_files() == [str(k4.resolve())] and files.last_dir() == str(k4.parent)
    doc.editor.rename(doc.fabric.find("leaf01"), "leafA")
    assert not doc.stack.isClean()
    out = tmp_path / "out.json"
    assert files.save_to(out) and doc.stack.isClean() and doc.path == out
    assert out.read_text(encoding="utf-8") == dumps(doc.fabric) and said[-1] == (f"saved {out}", 5000)
    assert files.recent_files() == [str(out.resolve()), str(k4.resolve())]
    assert not files.load(tmp_path / "missing.json") and doc.path == out       # a refusal changes nothing
    assert files.load_error is not None and "missing.json" in files.load_error
    files.close()


def test_autosave_follows_a_document_not_a_window(qtbot, tmp_path, k4):
    doc = Document()
    doc.open(k_ary_fat_tree(4), k4, "k4.json")
    auto = Autosave(doc, None, interval_ms=0, folder=tmp_path / "recovery")
    failed: list[tuple[str, bool]] = []
    doc.message.connect(lambda text, refusal: failed.append((text, refusal)))
    assert not auto.tick()                                          # clean: nothing to keep
    doc.editor.rename(doc.fabric.find("leaf01"), "leafA")
    assert auto.tick() and auto.path.is_file() and failed == []
    doc.stack.setClean()                                            # saved: the recovery file goes
    assert not auto.path.exists()


# ---------------------------------------------------------------------- the selection controller
def test_a_selection_controller_selects_edits_and_says_so_without_a_window(qtbot):
    doc = Document(k_ary_fat_tree(4))
    scene = FabricScene()
    scene.set_fabric(doc.fabric, subscribe=False)
    doc.changed.connect(scene.follow)
    view = CanvasView(scene, doc.editor)
    qtbot.addWidget(view)
    fits: list[bool] = []
    sel = SelectionController(doc, scene, view, lambda: fits.append(True))
    changed: list[bool] = []
    said: list[str] = []
    sel.changed.connect(changed.append)
    sel.status.connect(lambda text, ms: said.append(text))
    sel.fit_selection()
    assert fits == [True]                                           # nothing selected: the whole design
    sel.select_all()
    f = doc.fabric
    top = [d for d in f.device_ids() if f.devices_t.parent[d] < 0]     # servers and switches, not their GPUs/NICs
    assert changed[-1] is True and sel.count() == len(top) + len(f.cable_ids()) == 36 + 48
    sel.fit_selection()
    assert fits == [True]
    leaf = doc.fabric.find("leaf01")
    sel.show_device(leaf)
    assert sel.device_ids() == [leaf] and said[-1] == "found leaf01"
    n = len(doc.fabric)
    sel.delete()
    assert doc.fabric.find("leaf01") is None and len(doc.fabric) == n - 1 and doc.stack.count() == 1
    doc.stack.undo()
    assert doc.fabric.find("leaf01") is not None
