"""The user's fabricviz settings (an INI file in the user's config folder; a leaf of the ui)."""

from __future__ import annotations

from PySide6 import QtCore


def settings() -> QtCore.QSettings:
    return QtCore.QSettings(QtCore.QSettings.Format.IniFormat, QtCore.QSettings.Scope.UserScope,
                            "fabricviz", "fabricviz")
