"""The Help menu on the real main window: the menu itself, About, Keyboard Shortcuts, the user
guide, and tooltips that name the shortcut."""

from __future__ import annotations

import gc
import platform
import re
import tomllib
import weakref
from pathlib import Path

import networkx
import numpy
import pyqtgraph
import PySide6
import scipy
import yaml
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

import fabricviz
from fabricviz.ui.dialogs import help as hp
from fabricviz.ui.dialogs.guide import GUIDE_IMAGE_WIDTH

ROOT = Path(fabricviz.__file__).resolve().parent.parent
NATIVE = QtGui.QKeySequence.SequenceFormat.NativeText
K = QtGui.QKeySequence.StandardKey
ESC = QtCore.Qt.Key.Key_Escape


def native(key) -> str:
    return QtGui.QKeySequence(key).toString(NATIVE)


def first_heading(path: Path) -> str:
    """The first ``# `` line as Qt's Markdown shows it (code spans lose their backticks)."""
    line = next(x for x in path.read_text(encoding="utf-8").splitlines() if x.startswith("# "))
    return line[2:].strip().replace("`", "")


def find(w: QtWidgets.QWidget, cls, name: str):
    found = w.findChildren(cls, name)
    assert len(found) == 1, (name, found)
    return found[0]


def action(w: QtWidgets.QWidget, name: str) -> QtGui.QAction:
    return find(w, QtGui.QAction, name)


def mentions(a: QtGui.QAction, word: str) -> bool:
    """Whether the action's text, keys or status tip say ``word`` (any case)."""
    keys = " ".join(k.toString(NATIVE) for k in a.shortcuts())
    return word in f"{hp.clean_text(a.text())} {keys} {a.statusTip()}".lower()


def help_window(make_window) -> QtWidgets.QMainWindow:
    w = make_window()
    hp.build_help_menu(w)
    return w


# ---------------------------------------------------------------------- the menu
def test_help_menu_is_last_and_holds_the_four_entries(make_window):
    w = make_window()               # MainWindow may build its Help menu itself: build_help_menu is idempotent
    before = [a.menu().title() for a in w.menuBar().actions()
              if a.menu() and a.menu().objectName() != "help_menu"]
    menu = hp.build_help_menu(w)
    bar = w.menuBar().actions()
    assert bar[-1].menu() is menu and menu.objectName() == "help_menu" and menu.title() == "&Help"
    assert [a.menu().title() for a in bar[:-1] if a.menu()] == before     # nothing else moved
    acts = menu.actions()
    assert [a.text() for a in acts] == ["&User Guide", "&Keyboard Shortcuts", "", "&About fabricviz"]
    assert acts[2].isSeparator()
    guide, keys, _, about = acts
    assert (guide.objectName(), keys.objectName(), about.objectName()) == \
        ("action_guide", "action_shortcuts", "action_about")
    assert guide.shortcut() == QtGui.QKeySequence("F1")
    assert keys.shortcut() == QtGui.QKeySequence("Ctrl+/")
    assert about.shortcut().isEmpty()
    assert about.menuRole() == QtGui.QAction.MenuRole.AboutRole
    # the keys keep working with the menu bar hidden (presentation mode): they are window actions
    assert guide in w.actions() and keys in w.actions()
    # a second call adds no second menu; a menu added meanwhile goes before Help
    late = w.menuBar().addMenu("&Late")
    assert w.menuBar().actions()[-1].menu() is late
    assert hp.build_help_menu(w) is menu
    assert w.menuBar().actions()[-1].menu() is menu
    assert w.menuBar().actions()[-2].menu() is late
    assert len(w.findChildren(QtWidgets.QMenu, "help_menu")) == 1
    assert len(w.findChildren(QtGui.QAction, "action_guide")) == 1


def test_dialogs_open_once_are_raised_again_and_belong_to_the_window(make_window):
    w = help_window(make_window)
    for action, cls, name in (("action_guide", hp.GuideWindow, "guide_window"),
                              ("action_shortcuts", hp.ShortcutsDialog, "shortcuts_dialog"),
                              ("action_about", hp.AboutDialog, "about_dialog")):
        act = find(w, QtGui.QAction, action)
        act.trigger()
        dlg = find(w, cls, name)
        assert dlg.isVisible() and dlg.parentWidget() is w and not dlg.isModal()
        act.trigger()                              # raised, not a second copy
        assert w.findChildren(cls, name) == [dlg] and dlg.isVisible()
        dlg.close()
        assert not dlg.isVisible()
        act.trigger()                              # after a close: the same dialog again
        assert w.findChildren(cls, name) == [dlg] and dlg.isVisible()
        dlg.close()


def test_f1_and_ctrl_slash_open_the_guide_and_the_shortcuts_from_the_canvas(make_window, qtbot):
    w = help_window(make_window)
    canvas = w.centralWidget()
    for key, mods, cls, name in ((QtCore.Qt.Key.Key_F1, QtCore.Qt.KeyboardModifier.NoModifier,
                                  hp.GuideWindow, "guide_window"),
                                 (QtCore.Qt.Key.Key_Slash, QtCore.Qt.KeyboardModifier.ControlModifier,
                                  hp.ShortcutsDialog, "shortcuts_dialog")):
        w.activateWindow()
        qtbot.waitActive(w)
        canvas.setFocus()
        assert w.findChildren(cls, name) == []
        QTest.keyClick(canvas, key, mods)
        dlg = find(w, cls, name)
        assert dlg.isVisible()
        dlg.close()


def test_the_help_menu_keeps_no_python_reference_to_its_window(qtbot):
    w = QtWidgets.QMainWindow()
    save = QtGui.QAction("&Save", w)
    save.setShortcut(QtGui.QKeySequence("Ctrl+S"))
    w.menuBar().addMenu("&File").addAction(save)
    hp.build_help_menu(w)
    hp.with_shortcut_tooltips(w)
    for name in ("action_guide", "action_shortcuts", "action_about"):
        w.findChild(QtGui.QAction, name).trigger()
    for dlg in w.findChildren(QtWidgets.QDialog):
        dlg.close()
    ref = weakref.ref(w)
    del w, save, dlg
    gc.collect()
    assert ref() is None


# ---------------------------------------------------------------------- About
def test_about_shows_the_exact_versions_and_the_declared_licence(make_window, qtbot):
    w = help_window(make_window)
    find(w, QtGui.QAction, "action_about").trigger()
    dlg = find(w, hp.AboutDialog, "about_dialog")
    assert dlg.windowTitle() == "About fabricviz"
    assert fabricviz.__version__ in dlg.title.text()
    lines = dlg.versions.toPlainText().splitlines()
    assert lines[:9] == [
        f"fabricviz {fabricviz.__version__}",
        f"Python {platform.python_version()}",
        f"Qt {QtCore.qVersion()}",
        f"PySide6 {PySide6.__version__}",
        f"numpy {numpy.__version__}",
        f"networkx {networkx.__version__}",
        f"scipy {scipy.__version__}",
        f"pyqtgraph {pyqtgraph.__version__}",
        f"PyYAML {yaml.__version__}",
    ]
    assert lines[9] == f"Platform {platform.platform()}" and len(lines) == 10
    # this checkout declares no licence: no license key or License classifier, no LICENSE file
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "license" not in project and not any(c.startswith("License") for c in project["classifiers"])
    assert not [p for p in ROOT.iterdir() if p.name.upper().startswith(("LICEN", "COPYING"))]
    assert dlg.licence.text() == "licence: not declared in this build"
    # Copy puts the version text on the clipboard
    QtGui.QGuiApplication.clipboard().setText("something else")
    qtbot.mouseClick(find(dlg, QtWidgets.QPushButton, "about_copy"), QtCore.Qt.MouseButton.LeftButton)
    assert QtGui.QGuiApplication.clipboard().text() == "\n".join(lines)
    # the Close button and Esc both close it
    qtbot.mouseClick(find(dlg, QtWidgets.QPushButton, "about_close"), QtCore.Qt.MouseButton.LeftButton)
    assert not dlg.isVisible()
    find(w, QtGui.QAction, "action_about").trigger()
    assert dlg.isVisible()
    QTest.keyClick(dlg, ESC)
    assert not dlg.isVisible()


def test_declared_licence_reads_only_what_the_project_says(tmp_path):
    def project(extra: str) -> Path:
        d = tmp_path / str(len(list(tmp_path.iterdir())))
        d.mkdir()
        (d / "pyproject.toml").write_text(f'[project]\nname = "x"\n{extra}\n', encoding="utf-8")
        return d

    assert hp.declared_licence(project('license = "MIT"')) == "MIT"
    assert hp.declared_licence(project('license = {text = "BSD-3-Clause"}')) == "BSD-3-Clause"
    assert hp.declared_licence(project('license = {file = "COPYING.txt"}')) == "see COPYING.txt"
    assert hp.declared_licence(project(
        'classifiers = ["License :: OSI Approved :: Apache Software License"]')) == "Apache Software License"
    with_file = project("")
    (with_file / "LICENSE").write_text("whatever\n", encoding="utf-8")
    assert hp.declared_licence(with_file) == "see LICENSE"
    assert hp.licence_text(project('license = "MIT"')) == "licence: MIT"
    # nothing in the folder: the installed metadata decides, and it names no licence either
    assert hp.licence_text(project("")) == hp.NO_LICENCE == "licence: not declared in this build"


# ---------------------------------------------------------------------- Keyboard shortcuts
def shown_rows(dlg: hp.ShortcutsDialog) -> list[tuple[str, ...]]:
    """The rows as the table view's model shows them (not the dialog's own helper)."""
    m = find(dlg, QtWidgets.QTableView, "shortcut_table").model()
    return [tuple(m.index(r, c).data() for c in range(m.columnCount())) for r in range(m.rowCount())]


def test_shortcuts_table_lists_every_key_of_the_window_and_filters_as_you_type(make_window):
    w = help_window(make_window)
    find(w, QtGui.QAction, "action_shortcuts").trigger()
    dlg = find(w, hp.ShortcutsDialog, "shortcuts_dialog")
    table = find(dlg, QtWidgets.QTableView, "shortcut_table")
    model = table.model()
    assert [model.headerData(c, QtCore.Qt.Orientation.Horizontal) for c in range(4)] == \
        ["Action", "Shortcut", "Menu", "What it does"]
    rows = shown_rows(dlg)
    keyed = [a for a in w.findChildren(QtGui.QAction) if any(not k.isEmpty() for k in a.shortcuts())]
    gestures = [r for r in rows if r[0] == "Canvas gesture"]
    assert len(rows) == len(keyed) + len(hp.CANVAS_GESTURES)
    assert [(r[1], r[3]) for r in gestures] == hp.CANVAS_GESTURES and rows[-len(gestures):] == gestures
    by_action = {r[0]: r for r in rows}
    assert by_action["Save"][1:3] == (native(K.Save), "File")
    assert by_action["Open"][1:3] == (native(K.Open), "File")            # "&Open…" without & and …
    assert by_action["Save As"][2] == "File"
    assert by_action["Export Image"][3] == "PNG, SVG or PDF with a legend"   # the status tip
    assert by_action["User Guide"][1:3] == ("F1", "Help")
    assert by_action["Keyboard Shortcuts"][1:3] == (native("Ctrl+/"), "Help")
    delete = [k.toString(NATIVE) for k in action(w, "action_delete").shortcuts()]
    assert len(delete) == 2 and by_action["Delete"][1] == ", ".join(delete)
    assert "About fabricviz" not in by_action                  # no key: not listed
    # sorted by menu (menu-bar order) then action
    titles = [hp.clean_text(a.menu().title()) for a in w.menuBar().actions() if a.menu()]
    menu_rows = [r for r in rows if r[0] != "Canvas gesture"]
    assert [titles.index(r[2]) for r in menu_rows] == sorted(titles.index(r[2]) for r in menu_rows)
    for title in titles:
        names = [r[0] for r in menu_rows if r[2] == title]
        assert names == sorted(names, key=str.casefold)
    # "undo", typed in any case, leaves exactly the rows that mention undo
    expect = sorted(hp.clean_text(a.text()) for a in keyed if mentions(a, "undo"))
    assert "Undo" in expect and "Redo" not in expect and "Save" not in expect
    assert not [g for g in hp.CANVAS_GESTURES if "undo" in " ".join(g).lower()]
    f = find(dlg, QtWidgets.QLineEdit, "shortcut_filter")
    f.setFocus()
    QTest.keyClicks(f, "UnDo")
    assert f.text() == "UnDo"
    assert sorted(r[0] for r in shown_rows(dlg)) == expect
    assert find(dlg, QtWidgets.QLabel, "shortcut_count").text() == f"{len(expect)} of {len(rows)} shown"
    # the filter looks at every column: a key, a menu, a status tip, a gesture description
    f.setText("backspace")
    assert sorted(r[0] for r in shown_rows(dlg)) == \
        sorted(hp.clean_text(a.text()) for a in keyed if mentions(a, "backspace"))
    assert "Delete" in [r[0] for r in shown_rows(dlg)]
    f.setText("svg, or pdf")
    assert shown_rows(dlg) == []
    f.setText("png, svg or PDF")
    assert [r[0] for r in shown_rows(dlg)] == ["Export Image"]
    f.setText("rubber-band")
    assert shown_rows(dlg) == [("Canvas gesture", "Drag on empty canvas", "\u2014",
                                "rubber-band select the devices it touches")]
    f.setText("help")
    shown = shown_rows(dlg)
    assert sorted(r[0] for r in shown if r[2] == "Help") == ["Keyboard Shortcuts", "User Guide"]
    assert all("help" in " ".join(r).lower() for r in shown)
    f.clear()
    assert shown_rows(dlg) == rows
    # Esc closes it, even while typing in the filter
    f.setFocus()
    QTest.keyClick(f, ESC)
    assert not dlg.isVisible()


def test_shortcuts_are_read_when_the_dialog_opens(make_window):
    w = help_window(make_window)
    keys = find(w, QtGui.QAction, "action_shortcuts")
    keys.trigger()
    dlg = find(w, hp.ShortcutsDialog, "shortcuts_dialog")
    n = len(shown_rows(dlg))
    dlg.close()
    # a canvas key on the window alone, and one in a submenu, added after the first opening
    canvas_key = QtGui.QAction("Toggle &Labels…", w)
    canvas_key.setShortcut(QtGui.QKeySequence("Alt+L"))
    canvas_key.setStatusTip("labels on or off")
    w.addAction(canvas_key)
    first = next(a.menu() for a in w.menuBar().actions() if a.menu())
    sub = first.addMenu("&Align")
    left = sub.addAction("Align &Left")
    left.setShortcut(QtGui.QKeySequence("Alt+Shift+Left"))
    keys.trigger()
    rows = shown_rows(dlg)
    assert len(rows) == n + 2
    assert ("Toggle Labels", native("Alt+L"), "\u2014", "labels on or off") in rows
    assert ("Align Left", native("Alt+Shift+Left"), f"{hp.clean_text(first.title())} \u25b8 Align", "") in rows
    # window-only actions come after every menu, before the gestures
    first_gesture = next(i for i, r in enumerate(rows) if r[0] == "Canvas gesture")
    assert rows[first_gesture - 1][0] == "Toggle Labels"
    dlg.close()                 # a dialog left open takes the next test's mouse input
    QtWidgets.QApplication.processEvents()


# ---------------------------------------------------------------------- the user guide
def block_texts(browser: QtWidgets.QTextBrowser) -> list[tuple[str, int]]:
    doc, out = browser.document(), []
    b = doc.begin()
    while b.isValid():
        out.append((b.text(), b.blockFormat().headingLevel()))
        b = b.next()
    return out


def images(browser: QtWidgets.QTextBrowser) -> dict[str, QtGui.QTextImageFormat]:
    out = {}
    b = browser.document().begin()
    while b.isValid():
        it = b.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat():
                out[fmt.toImageFormat().name()] = fmt.toImageFormat()
            it += 1
        b = b.next()
    return out


def loaded_image(browser: QtWidgets.QTextBrowser, name: str) -> QtGui.QImage:
    data = browser.loadResource(QtGui.QTextDocument.ResourceType.ImageResource.value, QtCore.QUrl(name))
    return QtGui.QImage.fromData(data) if data is not None else QtGui.QImage()


GUIDE = ROOT / "assets" / "guide"
GUIDE_TITLES = ["First steps", "Building a design", "Working on the canvas", "The subnet manager sweep",
                "Traffic", "Lessons", "Exports"]


def guide_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(GUIDE.glob("*.md")))


def test_f1_opens_the_users_guide_shipped_in_the_package(make_window):
    """Help ▸ User Guide shows the package's guide (assets/guide, shipped as fabricviz.assets like
    the lessons), first steps first — not the README's install notes."""
    from fabricviz.resources import asset_path
    w = help_window(make_window)
    find(w, QtGui.QAction, "action_guide").trigger()
    guide = find(w, hp.GuideWindow, "guide_window")
    browser = find(guide, QtWidgets.QTextBrowser, "guide_browser")
    pages = find(guide, QtWidgets.QListWidget, "guide_pages")
    assert guide.root == asset_path("guide").resolve() == GUIDE.resolve()
    assert [pages.item(i).text() for i in range(pages.count())] == GUIDE_TITLES and pages.isVisible()
    assert [pages.item(i).toolTip() for i in range(pages.count())] == \
        ["1-first-steps.md", "2-building.md", "3-canvas.md", "4-sweep.md", "5-traffic.md", "6-lessons.md",
         "7-exports.md"]
    assert pages.currentRow() == 0 and block_texts(browser)[0] == ("First steps", 1)
    for word in ("apt-get", "pip install", "pytest", "make run", "source checkout", "Palette dock"):
        assert word not in guide_text()
    # a link to another page opens it in the guide; the side list follows
    assert "](4-sweep.md)" in (GUIDE / "1-first-steps.md").read_text(encoding="utf-8")
    browser.anchorClicked.emit(QtCore.QUrl("4-sweep.md"))
    assert pages.currentRow() == 3 and block_texts(browser)[0] == ("The subnet manager sweep", 1)
    assert guide.show_page("7-exports.md") and block_texts(browser)[0] == ("Exports", 1)
    assert not guide.show_page("8-missing.md")
    browser.setFocus()
    QTest.keyClick(browser, ESC)
    assert not guide.isVisible()


def _menu_items(w: QtWidgets.QMainWindow) -> dict[str, set[str]]:
    """Menu title → the texts of its actions and submenus, as a reader says them."""
    out: dict[str, set[str]] = {}
    for a in w.menuBar().actions():
        if a.menu() is None:
            continue
        items = out.setdefault(hp.clean_text(a.menu().title()), set())
        for x in a.menu().actions():
            text = x.menu().title() if x.menu() is not None else x.text()
            if text:
                items.add(hp.clean_text(text))
    return out


def test_the_guide_names_docks_and_menus_as_the_window_shows_them(make_window):
    w = help_window(make_window)
    text = " ".join(guide_text().split())          # one line: a menu path may wrap
    titles = {d.windowTitle() for d in w.findChildren(QtWidgets.QDockWidget)}
    assert {"Parts", "Inspector", "Subnet Manager", "Traffic", "Charts", "Lesson", "Lossless (RoCE)"} <= titles
    named = set(re.findall(r"\*\*([^*]+)\*\* docks?\b", text))
    assert named >= {"Parts", "Subnet Manager", "Traffic", "Charts", "Lesson", "Collectives", "What-if"}
    assert named <= titles, named - titles
    assert not re.findall(r"(?<!\*\*)\b([A-Z][\w-]+) dock\b", text)      # every dock named in bold, as above
    menus = _menu_items(w)
    paths = re.findall(r"\b(File|Edit|View|Design|Lessons|Help) \u25b8 (.{1,80})", text)
    assert len(paths) >= 30
    for menu, rest in paths:                      # "View ▸ Subnet Manager Sweep (Ctrl+Shift+U) opens …"
        rest = hp.clean_text(rest)
        assert any(rest.startswith(item) for item in menus[menu]), (menu, rest)
    # the sweep, traffic, lessons and exports each have their page
    assert {"The subnet manager sweep", "Traffic", "Lessons", "Exports"} <= set(GUIDE_TITLES)


def test_guide_pictures_resolve_beside_each_page(qtbot, tmp_path):
    img = QtGui.QImage(30, 20, QtGui.QImage.Format.Format_RGB32)
    img.fill(QtGui.QColor("red"))
    (tmp_path / "pics").mkdir()
    assert img.save(str(tmp_path / "pics" / "top.png"))
    big = img.scaled(2000, 1000)
    assert big.save(str(tmp_path / "big.png"))
    (tmp_path / "1-top.md").write_text("# Top page\n\n![a](pics/top.png)\n\n![b](big.png)\n\n[next](2-b-page.md)\n",
                                       encoding="utf-8")
    (tmp_path / "2-b-page.md").write_text("# Second page\n", encoding="utf-8")
    (tmp_path / "10-last.md").write_text("no heading here\n", encoding="utf-8")
    guide = hp.GuideWindow(None, root=tmp_path)
    qtbot.addWidget(guide)
    assert [guide.page_list.item(i).text() for i in range(guide.page_list.count())] == \
        ["Top page", "Second page", "Last"]                  # by number (10 after 2), named by heading
    assert block_texts(guide.browser)[0] == ("Top page", 1)
    assert loaded_image(guide.browser, "pics/top.png").size() == QtCore.QSize(30, 20)
    assert images(guide.browser)["pics/top.png"].width() == 0          # small: natural size
    assert images(guide.browser)["big.png"].width() == GUIDE_IMAGE_WIDTH
    guide.browser.anchorClicked.emit(QtCore.QUrl("2-b-page.md"))
    assert block_texts(guide.browser)[0] == ("Second page", 1)
    assert guide.page_list.currentRow() == 1


def test_guide_without_its_pages_says_so(qtbot, tmp_path):
    guide = hp.GuideWindow(None, root=tmp_path / "missing")
    qtbot.addWidget(guide)
    guide.show()
    qtbot.waitExposed(guide)
    assert guide.page_list.count() == 0 and not guide.page_list.isVisible()
    assert hp.NO_GUIDE in guide.browser.toPlainText().replace("\n", " ")
    assert block_texts(guide.browser)[0] == (f"fabricviz {fabricviz.__version__}", 1)
    QTest.keyClick(guide.browser, ESC)
    assert not guide.isVisible()


# ---------------------------------------------------------------------- tooltips
def test_tooltips_name_the_shortcut_and_follow_changes(make_window):
    w = help_window(make_window)
    save, opn, undo, delete, fit = (action(w, n) for n in ("action_save", "action_open", "action_undo",
                                                           "action_delete", "action_fit"))
    fit.setToolTip("the whole design in the window")       # a tooltip of the action's own
    keyed = [a for a in w.findChildren(QtGui.QAction) if any(not k.isEmpty() for k in a.shortcuts())]
    assert hp.with_shortcut_tooltips(w) == len(keyed)
    assert save.toolTip() == f"Save ({native(K.Save)})"
    assert opn.toolTip() == f"Open ({native(K.Open)})"               # no "&", no "…"
    assert undo.toolTip() == f"Undo ({native(K.Undo)})"             # the main key only
    assert len(delete.shortcuts()) == 2
    assert delete.toolTip() == f"Delete ({delete.shortcuts()[0].toString(NATIVE)})"
    assert action(w, "action_guide").toolTip() == "User Guide (F1)"
    assert fit.toolTip() == f"Fit to View ({fit.shortcut().toString(NATIVE)}) \u2014 the whole design in the window"
    assert action(w, "action_about").toolTip() == "About fabricviz"   # no key, untouched
    for a in keyed:
        assert a.toolTip().startswith(f"{hp.clean_text(a.text())} ({a.shortcuts()[0].toString(NATIVE)})")
    # the toolbar buttons show it
    bars = [tb for tb in w.findChildren(QtWidgets.QToolBar) if tb.widgetForAction(save) is not None]
    assert bars
    assert bars[0].widgetForAction(save).toolTip() == f"Save ({native(K.Save)})"
    # idempotent
    before = {id(a): a.toolTip() for a in keyed}
    assert hp.with_shortcut_tooltips(w) == len(keyed)
    assert {id(a): a.toolTip() for a in keyed} == before
    assert len(w.findChildren(QtCore.QObject, "shortcut_tips")) == 1
    # later changes of the keys or the text show up
    save.setShortcut(QtGui.QKeySequence("Ctrl+Alt+S"))
    assert save.toolTip() == f"Save ({native('Ctrl+Alt+S')})"
    assert bars[0].widgetForAction(save).toolTip() == f"Save ({native('Ctrl+Alt+S')})"
    undo.setText("&Undo Move node01")
    assert undo.toolTip() == f"Undo Move node01 ({native(K.Undo)})"
    save.setShortcuts([])
    assert save.toolTip() == "Save"
    fit.setShortcuts([])
    assert fit.toolTip() == "the whole design in the window"


def test_about_shows_every_version_line_without_scrolling(qtbot, make_window):
    from fabricviz.ui.dialogs.help import AboutDialog
    w = make_window()
    dlg = AboutDialog(w)
    qtbot.addWidget(dlg)
    dlg.show()
    QtWidgets.QApplication.processEvents()
    box = dlg.versions
    assert box.horizontalScrollBar().maximum() == 0 and box.verticalScrollBar().maximum() == 0
    dlg.close()                 # a modal dialog left open blocks the next test's mouse input
    QtWidgets.QApplication.processEvents()
