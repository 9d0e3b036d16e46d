"""Where a dock's PNG or CSV export goes: one save dialog for the Charts, Collectives and What-if docks."""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtWidgets


def ask_export_path(parent: QtWidgets.QWidget, what: str, stem: str, kind: str) -> str | None:
    """Ask for a ``kind`` (png | csv) file, proposing ``stem.kind``; the path with the suffix added
    when the user typed none, or None when cancelled."""
    filt = "PNG image (*.png)" if kind == "png" else "CSV (*.csv)"
    path, _ = QtWidgets.QFileDialog.getSaveFileName(parent, f"Export {what} ({kind.upper()})",
                                                    f"{stem}.{kind}", f"{filt};;All files (*)")
    if not path:
        return None
    return path if Path(path).suffix else f"{path}.{kind}"
