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

import pytest  # noqa: E402

#: fixtures that make a test a ``gui`` test (pytest-qt's: a QApplication exists while it runs)
GUI_FIXTURES = frozenset({"qtbot", "qapp"})
#: fixtures that run a real OpenSM (under ibsim) as the reference: ``oracle`` tests
ORACLE_FIXTURES = frozenset({"run_opensm"})
UI_TESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ui") + os.sep


def pytest_collection_modifyitems(config, items):
    """Every test under tests/ui and every test using qtbot/qapp (also through another fixture, such
    as make_window) is ``gui``; a test using an OpenSM fixture is ``oracle`` (the others carry
    their marks in their files: ``slow`` where one takes over ~2 s, ``oracle`` on the live OpenSM
    comparisons)."""
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if str(item.path).startswith(UI_TESTS) or names & GUI_FIXTURES:
            item.add_marker(pytest.mark.gui)
        if names & ORACLE_FIXTURES:
            item.add_marker(pytest.mark.oracle)
