"""The user's settings file (recent files, layout, overlays shown, autosave interval)."""

from __future__ import annotations

from PySide6 import QtCore


def settings() -> QtCore.QSettings:
    """fabricviz's QSettings (an INI file in the user's config folder)."""
    return QtCore.QSettings(QtCore.QSettings.Format.IniFormat, QtCore.QSettings.Scope.UserScope,
                            "fabricviz", "fabricviz")


__all__ = ["settings"]
