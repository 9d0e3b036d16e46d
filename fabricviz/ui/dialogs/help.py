"""The Help menu: the user guide, the keyboard shortcuts, About fabricviz.

``build_help_menu(window)`` adds the menu (last in the menu bar) and
``with_shortcut_tooltips(window)`` makes toolbar tooltips name the shortcut.
Both find everything they need through Qt parenting: the dialogs are children
of the window (opened once, raised when asked for again) and the shortcut table
is read from the window's actions and menus each time it opens, so actions
added later by docks and lessons show up without any registration.
"""

from __future__ import annotations

import importlib
import platform
import tomllib
from pathlib import Path
from typing import Any, TypeVar

from PySide6 import QtCore, QtGui, QtWidgets

import fabricviz
from fabricviz.ui.dialogs.guide import NO_GUIDE, GuideWindow

APP_NAME = "fabricviz"
#: The source checkout's root (its pyproject.toml declares the licence); absent in an installed wheel.
SOURCE_ROOT = Path(fabricviz.__file__).resolve().parent.parent
NO_LICENCE = "licence: not declared in this build"
NOT_INSTALLED = "not installed"
NO_MENU = "\u2014"                   # an action reachable only by its key (on the window, the canvas)
MENU_SEP = " \u25b8 "                # File ▸ Open Recent
GESTURE_ACTION = "Canvas gesture"
COLUMNS = ("Action", "Shortcut", "Menu", "What it does")

#: What the canvas does with the mouse and keys that is not a QAction (see
#: :class:`fabricviz.ui.canvas.view.CanvasView`): (gesture, what it does).
CANVAS_GESTURES: list[tuple[str, str]] = [
    ("Wheel", "zoom in or out around the pointer"),
    ("+ or =", "zoom in (canvas focused)"),
    ("-", "zoom out (canvas focused)"),
    ("Middle-drag / Space+drag", "pan the canvas"),
    ("Click", "select a device or a cable"),
    ("Click a GPU or NIC in a server", "select that device inside the server"),
    ("Ctrl+click", "add to or take from the selection"),
    ("Drag on empty canvas", "rubber-band select the devices it touches"),
    ("Drag a device", "move the selection (onto the grid when Snap to Grid is on)"),
    ("Arrow keys", "move the selection by one grid step (Shift: five steps)"),
    ("Hover a device", "show its ports (when zoomed in far enough)"),
    ("Drag from a port", "draw a cable; release on a port, or on a device for its first free port"),
    ("Esc while cabling", "cancel the cable being drawn"),
    ("Drop a part from the palette", "add that device where it is dropped"),
]

_TIP_SET = "fabricviz_tip_set"          # the tooltip with_shortcut_tooltips wrote last
_TIP_CUSTOM = "fabricviz_tip_custom"    # a tooltip the action had of its own ("" for none)
_TIP_HOOKED = "fabricviz_tip_hooked"

_W = TypeVar("_W", bound=QtCore.QObject)


# ---------------------------------------------------------------------- texts
def clean_text(text: str) -> str:
    """A menu text as a reader says it: ``"&Open…"`` → ``"Open"``, ``"Save &As…"`` → ``"Save As"``
    (``&&`` is a literal ampersand)."""
    out = text.replace("&&", "\0").replace("&", "").replace("\0", "&")
    return out.replace("\u2026", "").replace("...", "").strip()


def _qt_default_tip(text: str) -> str:
    """What QAction.toolTip() returns when no tooltip was set (mnemonics and ``...`` stripped)."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").replace("...", "").strip()


def keys_text(action: QtGui.QAction, first: bool = False) -> str:
    """``action``'s shortcuts in the platform's own words, ``", "``-joined, each once
    (``first``: only the main one, as a tooltip shows it)."""
    fmt = QtGui.QKeySequence.SequenceFormat.NativeText
    keys = list(dict.fromkeys(s for s in (k.toString(fmt) for k in action.shortcuts()) if s))
    return keys[0] if first and keys else ", ".join(keys)


def _custom_tip(action: QtGui.QAction) -> str:
    """The tooltip the action was given by its author ("" when it has only Qt's default)."""
    cur = action.toolTip()
    ours = action.property(_TIP_SET)
    if ours is not None and cur == ours and ours != "":
        return str(action.property(_TIP_CUSTOM) or "")
    text = action.text()
    return "" if cur in ("", _qt_default_tip(text), clean_text(text)) else cur


# ---------------------------------------------------------------------- versions and licence
#: (shown name, module) for the About box and bug reports.
VERSION_MODULES: list[tuple[str, str]] = [
    ("PySide6", "PySide6"), ("numpy", "numpy"), ("networkx", "networkx"), ("scipy", "scipy"),
    ("pyqtgraph", "pyqtgraph"), ("PyYAML", "yaml"),
]


def _module_version(module: str) -> str:
    try:
        mod = importlib.import_module(module)
    except Exception:       # a missing or broken optional library is reported, never raised
        return NOT_INSTALLED
    return str(getattr(mod, "__version__", "unknown"))


def version_rows() -> list[tuple[str, str]]:
    """(name, version) of fabricviz, Python, Qt and the libraries it runs on."""
    rows = [(APP_NAME, fabricviz.__version__), ("Python", platform.python_version()),
            ("Qt", QtCore.qVersion())]
    rows += [(name, _module_version(mod)) for name, mod in VERSION_MODULES]
    return rows


def version_text() -> str:
    """The versions as plain lines, the way a bug report wants them."""
    lines = [f"{name} {ver}" for name, ver in version_rows()]
    lines.append(f"Platform {platform.platform()}")
    return "\n".join(lines)


def declared_licence(root: Path | None = None) -> str | None:
    """The licence the project declares, or None: ``license`` (or a ``License ::`` classifier)
    in ``root``/pyproject.toml, a LICENSE/LICENCE/COPYING file there, else the installed
    distribution's metadata. Nothing is guessed."""
    root = SOURCE_ROOT if root is None else root
    project: dict[str, Any] = {}
    try:
        project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8")).get("project", {})
    except (OSError, ValueError):
        pass
    lic = project.get("license")
    if isinstance(lic, str) and lic.strip():
        return lic.strip()
    if isinstance(lic, dict):
        if str(lic.get("text", "")).strip():
            return str(lic["text"]).strip()
        if lic.get("file"):
            return f"see {lic['file']}"
    for c in project.get("classifiers", []) or []:
        if str(c).startswith("License ::"):
            return str(c).split("::")[-1].strip()
    for name in ("LICENSE", "LICENCE", "COPYING", "LICENSE.txt", "LICENSE.md", "LICENCE.txt", "COPYING.txt"):
        if (root / name).is_file():
            return f"see {name}"
    return _metadata_licence()


def _metadata_licence() -> str | None:
    from importlib import metadata
    try:
        md = metadata.metadata(APP_NAME)
    except metadata.PackageNotFoundError:
        return None
    for key in ("License-Expression", "License"):
        value = str(md[key] or "").strip() if key in md else ""
        if value and value.upper() != "UNKNOWN":
            return value
    for c in md.get_all("Classifier") or []:
        if c.startswith("License ::"):
            return c.split("::")[-1].strip()
    return None


def licence_text(root: Path | None = None) -> str:
    lic = declared_licence(root)
    return f"licence: {lic}" if lic else NO_LICENCE


# ---------------------------------------------------------------------- About
class AboutDialog(QtWidgets.QDialog):
    """The app, its version, the versions it runs on (copyable) and the licence it declares."""

    def __init__(self, parent: QtWidgets.QWidget | None = None, root: Path | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("about_dialog")
        self.setWindowTitle(f"About {APP_NAME}")
        lay = QtWidgets.QVBoxLayout(self)
        self.title = QtWidgets.QLabel(f"<h2>{APP_NAME} {fabricviz.__version__}</h2>", self)
        self.title.setObjectName("about_title")
        lay.addWidget(self.title)
        blurb = (fabricviz.__doc__ or "").strip().splitlines()
        self.blurb = QtWidgets.QLabel(blurb[0] if blurb else "", self)
        self.blurb.setObjectName("about_blurb")
        self.blurb.setWordWrap(True)
        lay.addWidget(self.blurb)
        self.versions = QtWidgets.QPlainTextEdit(version_text(), self)
        self.versions.setObjectName("about_versions")
        self.versions.setReadOnly(True)
        self.versions.setFont(QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont))
        self.versions.setLineWrapMode(QtWidgets.QPlainTextEdit.LineWrapMode.NoWrap)
        lines = self.versions.toPlainText().count("\n") + 2
        self.versions.setMinimumHeight(self.versions.fontMetrics().lineSpacing() * lines + 12)
        fm = self.versions.fontMetrics()                 # every line readable without scrolling
        widest = max(fm.horizontalAdvance(x) for x in self.versions.toPlainText().splitlines())
        self.versions.setMinimumWidth(widest + 2 * fm.averageCharWidth() + 24)
        lay.addWidget(self.versions)
        self.licence = QtWidgets.QLabel(licence_text(root), self)
        self.licence.setObjectName("about_licence")
        lay.addWidget(self.licence)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close, self)
        self.close_button = buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Close)
        self.close_button.setObjectName("about_close")
        self.copy_button = buttons.addButton("&Copy", QtWidgets.QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.setObjectName("about_copy")
        self.copy_button.setToolTip("copy the versions to the clipboard, for a bug report")
        self.copy_button.clicked.connect(self.copy)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.close_button.setDefault(True)

    def copy(self) -> None:
        QtGui.QGuiApplication.clipboard().setText(self.versions.toPlainText())
        self.copy_button.setText("Copied")
        QtCore.QTimer.singleShot(1500, self, lambda: self.copy_button.setText("&Copy"))


# ---------------------------------------------------------------------- Keyboard shortcuts
def menu_paths(window: QtWidgets.QMainWindow) -> dict[QtGui.QAction, list[str]]:
    """Every action reachable from the window's menu bar → the menu paths it appears at
    (``"File"``, ``"File ▸ Open Recent"``), in menu-bar order."""
    out: dict[QtGui.QAction, list[str]] = {}
    seen: set[int] = set()

    def walk(menu: QtWidgets.QMenu, path: list[str]) -> None:
        if id(menu) in seen:
            return
        seen.add(id(menu))
        for act in menu.actions():
            if act.isSeparator():
                continue
            sub = act.menu()
            if isinstance(sub, QtWidgets.QMenu):
                walk(sub, path + [clean_text(sub.title())])
                continue
            where = MENU_SEP.join(path)
            if where not in out.setdefault(act, []):
                out[act].append(where)

    for act in window.menuBar().actions():
        sub = act.menu()
        if isinstance(sub, QtWidgets.QMenu):
            walk(sub, [clean_text(sub.title())])
    return out


def menu_order(window: QtWidgets.QMainWindow) -> list[str]:
    """The menu-bar titles, left to right (mnemonics removed)."""
    menus = [a.menu() for a in window.menuBar().actions()]
    return [clean_text(m.title()) for m in menus if isinstance(m, QtWidgets.QMenu)]


def shortcut_rows(window: QtWidgets.QMainWindow) -> list[tuple[str, str, str, str]]:
    """(action, shortcut, menu, what it does) for every action of ``window`` with a shortcut,
    sorted by menu (menu-bar order, window-only actions after) then action; the canvas
    gestures (:data:`CANVAS_GESTURES`) follow."""
    paths = menu_paths(window)
    order = {title: i for i, title in enumerate(menu_order(window))}
    keyed = []
    for act in window.findChildren(QtGui.QAction):
        keys = keys_text(act)
        if not keys or act.isSeparator():
            continue
        where = paths.get(act, [])
        menu = ", ".join(where) if where else NO_MENU
        top = where[0].split(MENU_SEP)[0] if where else None
        rank = order.get(top, len(order)) if top is not None else len(order) + 1
        what = act.statusTip() or _custom_tip(act)
        text = clean_text(act.text())
        keyed.append(((rank, menu.casefold(), text.casefold(), keys), (text, keys, menu, what)))
    keyed.sort(key=lambda kv: kv[0])
    rows = [row for _, row in keyed]
    rows += [(GESTURE_ACTION, gesture, NO_MENU, what) for gesture, what in CANVAS_GESTURES]
    return rows


class ShortcutsDialog(QtWidgets.QDialog):
    """The window's keys and the canvas gestures in a table, filtered as you type."""

    def __init__(self, window: QtWidgets.QMainWindow) -> None:
        super().__init__(window)
        self.setObjectName("shortcuts_dialog")
        self.setWindowTitle(f"Keyboard Shortcuts \u2014 {APP_NAME}")
        self.resize(820, 560)
        lay = QtWidgets.QVBoxLayout(self)
        self.filter = QtWidgets.QLineEdit(self)
        self.filter.setObjectName("shortcut_filter")
        self.filter.setPlaceholderText("Filter: action, key, menu or description")
        self.filter.setClearButtonEnabled(True)
        lay.addWidget(self.filter)
        self.model = QtGui.QStandardItemModel(0, len(COLUMNS), self)
        self.model.setHorizontalHeaderLabels(list(COLUMNS))
        self.proxy = QtCore.QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterKeyColumn(-1)
        self.proxy.setFilterCaseSensitivity(QtCore.Qt.CaseSensitivity.CaseInsensitive)
        self.table = QtWidgets.QTableView(self)
        self.table.setObjectName("shortcut_table")
        self.table.setModel(self.proxy)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(False)
        lay.addWidget(self.table)
        self.count = QtWidgets.QLabel(self)
        self.count.setObjectName("shortcut_count")
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        bottom = QtWidgets.QHBoxLayout()
        bottom.addWidget(self.count, 1)
        bottom.addWidget(buttons)
        lay.addLayout(bottom)
        self.filter.textChanged.connect(self._filter)
        self.refresh()

    def _window(self) -> QtWidgets.QMainWindow | None:
        w = self.parentWidget()
        return w if isinstance(w, QtWidgets.QMainWindow) else None

    def refresh(self) -> None:
        """Rebuild the table from the window's actions as they are now."""
        w = self._window()
        rows = shortcut_rows(w) if w is not None else \
            [(GESTURE_ACTION, g, NO_MENU, what) for g, what in CANVAS_GESTURES]
        self.model.removeRows(0, self.model.rowCount())
        for row in rows:
            items = [QtGui.QStandardItem(cell) for cell in row]
            for it in items:
                it.setToolTip(it.text())
            self.model.appendRow(items)
        self.table.resizeColumnsToContents()
        self._update_count()

    def _filter(self, text: str) -> None:
        self.proxy.setFilterFixedString(text.strip())
        self._update_count()

    def _update_count(self) -> None:
        shown, total = self.proxy.rowCount(), self.model.rowCount()
        self.count.setText(f"{total} shortcuts and gestures" if shown == total
                           else f"{shown} of {total} shown")

    def rows(self) -> list[tuple[str, ...]]:
        """The rows the table shows now (after the filter), top to bottom."""
        p = self.proxy
        return [tuple(p.index(r, c).data() for c in range(p.columnCount())) for r in range(p.rowCount())]


# ---------------------------------------------------------------------- User guide
def _child(window: QtWidgets.QWidget, cls: type[_W], name: str) -> _W | None:
    return window.findChild(cls, name, QtCore.Qt.FindChildOption.FindDirectChildrenOnly)


_D = TypeVar("_D", bound=QtWidgets.QDialog)


def _present(window: QtWidgets.QWidget, cls: type[_D], name: str) -> _D:
    """The ``name`` dialog of ``window``: made once, shown again (refreshed) after a close,
    raised when it is already open."""
    dlg = _child(window, cls, name)
    if dlg is None:
        dlg = cls(window)
    elif not dlg.isVisible():
        refresh = getattr(dlg, "refresh", None)
        if callable(refresh):
            refresh()
    dlg.show()
    dlg.raise_()
    dlg.activateWindow()
    return dlg


def show_guide(window: QtWidgets.QWidget) -> GuideWindow:
    return _present(window, GuideWindow, "guide_window")


def show_shortcuts(window: QtWidgets.QMainWindow) -> ShortcutsDialog:
    return _present(window, ShortcutsDialog, "shortcuts_dialog")


def show_about(window: QtWidgets.QWidget) -> AboutDialog:
    return _present(window, AboutDialog, "about_dialog")


class _HelpSlots(QtCore.QObject):
    """The Help actions' slots; the window is this object's Qt parent, not a Python reference."""

    def _win(self) -> Any:
        return self.parent()

    def guide(self) -> None:
        show_guide(self._win())

    def shortcuts(self) -> None:
        show_shortcuts(self._win())

    def about(self) -> None:
        show_about(self._win())


def build_help_menu(window: QtWidgets.QMainWindow) -> QtWidgets.QMenu:
    """Add the Help menu as the last menu of ``window``'s menu bar and return it. Calling it
    again moves the existing menu back to the end (after menus added since) instead of adding
    a second one."""
    bar = window.menuBar()
    menu = bar.findChild(QtWidgets.QMenu, "help_menu")
    if menu is not None:
        bar.removeAction(menu.menuAction())
        bar.addAction(menu.menuAction())
        return menu
    slots = _HelpSlots(window)
    slots.setObjectName("help_slots")
    menu = bar.addMenu("&Help")
    menu.setObjectName("help_menu")

    def act(name: str, text: str, slot: Any, key: str | None, tip: str) -> QtGui.QAction:
        a = QtGui.QAction(text, window)
        a.setObjectName(name)
        if key:
            a.setShortcut(QtGui.QKeySequence(key))
            a.setShortcutContext(QtCore.Qt.ShortcutContext.WindowShortcut)
        a.setStatusTip(tip)
        a.triggered.connect(slot)
        window.addAction(a)           # the key works while the menu bar is hidden (presentation mode)
        menu.addAction(a)
        return a

    act("action_guide", "&User Guide", slots.guide, "F1",
        "the user's guide: first steps, building, the sweep, traffic, lessons, exports")
    act("action_shortcuts", "&Keyboard Shortcuts", slots.shortcuts, "Ctrl+/",
        "every key and canvas gesture, searchable")
    menu.addSeparator()
    about = act("action_about", f"&About {APP_NAME}", slots.about, None,
                "versions of fabricviz, Python, Qt and the libraries, for bug reports")
    about.setMenuRole(QtGui.QAction.MenuRole.AboutRole)
    return menu


# ---------------------------------------------------------------------- tooltips
class _TipKeeper(QtCore.QObject):
    """Keeps "Text (Shortcut)" tooltips current when an action's text or keys change."""

    def changed(self) -> None:
        a = self.sender()
        if isinstance(a, QtGui.QAction):
            _apply_tip(a)


def _apply_tip(a: QtGui.QAction) -> None:
    custom = _custom_tip(a)
    keys = keys_text(a, first=True)
    text = clean_text(a.text())
    if not keys:
        tip = custom                 # "" gives the action Qt's default (its text) back
    else:
        tip = f"{text} ({keys})" + (f" \u2014 {custom}" if custom and custom != text else "")
    # recorded before setToolTip: its changed signal comes back here and must see it as ours
    a.setProperty(_TIP_CUSTOM, custom)
    a.setProperty(_TIP_SET, tip)
    a.setToolTip(tip)


def with_shortcut_tooltips(window: QtWidgets.QWidget) -> int:
    """Make every action of ``window`` with a shortcut show its main one in its tooltip,
    ``"Save (Ctrl+S)"`` (a tooltip of the action's own stays, after the keys). Idempotent;
    the tooltips follow later text or shortcut changes. Returns how many actions have keys."""
    keeper = _child(window, _TipKeeper, "shortcut_tips")
    if keeper is None:
        keeper = _TipKeeper(window)
        keeper.setObjectName("shortcut_tips")
    n = 0
    for a in _actions(window):
        _apply_tip(a)
        n += bool(keys_text(a))
        if not a.property(_TIP_HOOKED):
            a.setProperty(_TIP_HOOKED, True)
            a.changed.connect(keeper.changed)
    return n


def _actions(window: QtWidgets.QWidget) -> list[QtGui.QAction]:
    return [a for a in window.findChildren(QtGui.QAction) if not a.isSeparator() and a.shortcuts()]


__all__ = ["AboutDialog", "CANVAS_GESTURES", "GuideWindow", "NO_GUIDE", "NO_LICENCE", "ShortcutsDialog",
           "build_help_menu", "clean_text", "declared_licence", "keys_text", "licence_text", "menu_paths",
           "shortcut_rows", "show_about", "show_guide", "show_shortcuts", "version_rows", "version_text",
           "with_shortcut_tooltips"]
