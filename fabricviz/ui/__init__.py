"""The PySide6 GUI. The only package of fabricviz that may import Qt or pyqtgraph
(an import-linter contract in pyproject.toml enforces it, and orders the sub-packages here)."""

from fabricviz.ui.main_window import MainWindow

__all__ = ["MainWindow"]
