"""Test-wide set-up: Qt runs offscreen unless the developer asks for a display.

This must run before any QApplication exists (pytest-qt creates it lazily in
its ``qapp`` fixture, after conftest files are imported). Export
QT_QPA_PLATFORM=xcb (with DISPLAY set) to watch the tests on a real screen.
"""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_QUICK_BACKEND", "software")
# Tests never read a developer's own parts file (~/.config/fabricviz/parts.json).
os.environ["FABRICVIZ_PARTS"] = os.path.join(os.path.dirname(__file__), "no-such-parts-file.json")
