"""The PySide6 GUI. The only package of fabricviz that may import Qt or pyqtgraph
(tests/test_layering.py enforces it)."""

from fabricviz.ui.main_window import MainWindow

__all__ = ["MainWindow"]
