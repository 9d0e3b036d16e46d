"""The user's settings file (window layout, recent files, preferences; the recovery folder sits beside it)."""

from __future__ import annotations

from PySide6 import QtCore


def settings() -> QtCore.QSettings:
    return QtCore.QSettings(QtCore.QSettings.Format.IniFormat, QtCore.QSettings.Scope.UserScope,
                            "fabricviz", "fabricviz")


__all__ = ["settings"]
