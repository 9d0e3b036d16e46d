"""The generator dialog remembers the values of the last design it generated, tab by tab (QSettings
group ``generator``), as the export dialogs remember theirs.

Every field of a tab is kept under ``generator/<tab>/<field's object name>``: spin boxes by value,
check boxes by state, line edits by text, combo boxes by the text shown (a switch part by its label,
so a part no longer in the catalog leaves the default). The tab itself is kept as
``generator/tab``. Fields are put back in an order the dialog's own links expect: the fabric
technology first (it lists the switch parts), then the parts (a part sets the radix), then the
numbers and texts.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

#: QSettings group of the dialog's remembered values.
GROUP = "generator"

_FIELDS = (QtWidgets.QComboBox, QtWidgets.QSpinBox, QtWidgets.QLineEdit, QtWidgets.QCheckBox)


def _fields(page: QtWidgets.QWidget | None) -> list[QtWidgets.QWidget]:
    """The named fields of one tab page, in the order they are put back (fabric, part, the rest)."""
    if page is None:
        return []
    out = [w for w in page.findChildren(QtWidgets.QWidget) if isinstance(w, _FIELDS) and w.objectName()
           and not w.objectName().startswith("qt_")]

    def rank(w: QtWidgets.QWidget) -> int:
        name = w.objectName()
        return 0 if name.endswith("_fabric") else 1 if name.endswith("_switch") else 2
    return sorted(out, key=rank)


def _key(tabs: QtWidgets.QTabWidget, i: int, w: QtWidgets.QWidget) -> str:
    return f"{GROUP}/{tabs.tabText(i)}/{w.objectName()}"


def save(tabs: QtWidgets.QTabWidget, settings: QtCore.QSettings) -> None:
    """Keep every tab's fields and the tab shown."""
    for i in range(tabs.count()):
        for w in _fields(tabs.widget(i)):
            if isinstance(w, QtWidgets.QComboBox):
                value: object = w.currentText()
            elif isinstance(w, QtWidgets.QSpinBox):
                value = w.value()
            elif isinstance(w, QtWidgets.QLineEdit):
                value = w.text()
            else:
                assert isinstance(w, QtWidgets.QCheckBox)
                value = "true" if w.isChecked() else "false"
            settings.setValue(_key(tabs, i, w), value)
    settings.setValue(f"{GROUP}/tab", tabs.tabText(tabs.currentIndex()))
    settings.sync()


def restore(tabs: QtWidgets.QTabWidget, settings: QtCore.QSettings) -> None:
    """Put back what :func:`save` kept; a value the field cannot take (a part no longer listed,
    a number out of range, a stored value that is not a number) leaves the field's default."""
    for i in range(tabs.count()):
        for w in _fields(tabs.widget(i)):
            raw = settings.value(_key(tabs, i, w))
            if raw is None:
                continue
            text = str(raw)
            if isinstance(w, QtWidgets.QComboBox):
                k = w.findText(text)
                if k >= 0:
                    w.setCurrentIndex(k)
            elif isinstance(w, QtWidgets.QSpinBox):
                try:
                    n = int(text)
                except ValueError:
                    continue
                if w.minimum() <= n <= w.maximum():
                    w.setValue(n)
            elif isinstance(w, QtWidgets.QLineEdit):
                w.setText(text)
            elif isinstance(w, QtWidgets.QCheckBox):
                w.setChecked(text.lower() == "true")
    tab = settings.value(f"{GROUP}/tab")
    names = [tabs.tabText(i) for i in range(tabs.count())]
    if tab is not None and str(tab) in names:
        tabs.setCurrentIndex(names.index(str(tab)))


__all__ = ["GROUP", "restore", "save"]
