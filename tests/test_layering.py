"""The core stays Qt-free: only fabricviz/ui may import a Qt binding or pyqtgraph.

Statically (ast): every ``import`` / ``from ... import`` anywhere in a module,
nested and lazy ones inside functions, ``try`` and ``if TYPE_CHECKING`` blocks
included, plus ``__import__("x")`` / ``importlib.import_module("x")`` with a
literal name. Outside fabricviz/ui, only the entry points (cli.py, __main__.py)
may import fabricviz.ui, and the CLI must import it lazily (checked at run time:
importing the non-ui modules must not load Qt).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "fabricviz"
FORBIDDEN_TOP = {"PySide6", "PySide2", "shiboken6", "shiboken2", "pyqtgraph", "qtpy"}
ENTRY_POINTS = {"cli.py", "__main__.py"}


def is_forbidden(module: str) -> bool:
    top = module.split(".")[0]
    return top in FORBIDDEN_TOP or top.startswith("PyQt")


def _module_parts(rel: Path) -> list[str]:
    """fabricviz/model/fabric.py -> ["fabricviz", "model", "fabric"]."""
    parts = ["fabricviz", *rel.with_suffix("").parts]
    return parts[:-1] if parts[-1] == "__init__" else parts


def imported_modules(source: str, rel: Path = Path("x.py")) -> list[tuple[int, list[str]]]:
    """(line, candidate absolute module names) for every import in ``source``.

    ``rel`` is the file's path below fabricviz/, used to resolve relative imports.
    ``from a.b import c`` gives ``["a.b", "a.b.c"]`` (c may be a submodule).
    """
    tree = ast.parse(source, filename=str(rel))
    here = _module_parts(rel)
    package = here if rel.name == "__init__.py" else here[:-1]
    found: list[tuple[int, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, [alias.name]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                mod = ".".join([*base, *([node.module] if node.module else [])])
            else:
                mod = node.module or ""
            found.append((node.lineno, [mod] + [f"{mod}.{alias.name}" for alias in node.names
                                                if alias.name != "*"]))
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.id if isinstance(func, ast.Name) else (
                func.attr if isinstance(func, ast.Attribute) else None)
            arg = node.args[0]
            if name in ("__import__", "import_module") and isinstance(arg, ast.Constant) \
                    and isinstance(arg.value, str):
                found.append((node.lineno, [arg.value]))
    return sorted(found, key=lambda item: item[0])


def _problem(mod: str, entry: bool) -> str | None:
    if is_forbidden(mod):
        return f"imports {mod} (Qt is allowed only in fabricviz/ui)"
    if (mod == "fabricviz.ui" or mod.startswith("fabricviz.ui.")) and not entry:
        return f"imports {mod} (only cli.py/__main__.py may import fabricviz.ui, lazily)"
    return None


def violations(source: str, rel: Path) -> list[str]:
    """Messages ``fabricviz/<rel>:<line>: imports ...`` for every forbidden import."""
    entry = rel.name in ENTRY_POINTS and len(rel.parts) == 1
    out = []
    for line, candidates in imported_modules(source, rel):
        for mod in candidates:
            problem = _problem(mod, entry)
            if problem:
                out.append(f"fabricviz/{rel.as_posix()}:{line}: {problem}")
                break
    return out


def core_files() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py")
                  if p.relative_to(PACKAGE).parts[0] != "ui")


def test_core_modules_do_not_import_qt():
    files = core_files()
    assert PACKAGE / "__init__.py" in files, "layering check found no files: wrong path?"
    problems = []
    for path in files:
        rel = path.relative_to(PACKAGE)
        problems += violations(path.read_text(encoding="utf-8"), rel)
    assert not problems, "Qt imported outside fabricviz/ui:\n" + "\n".join(problems)


def test_importing_core_does_not_load_qt():
    """Run time: importing every non-ui module (cli included) loads no Qt module."""
    modules = []
    for path in core_files():
        rel = path.relative_to(PACKAGE)
        if rel.name == "__main__.py":
            continue
        modules.append(".".join(_module_parts(rel)))
    code = (
        "import importlib, json, sys\n"
        f"mods = {modules!r}\n"
        "errors = {}\n"
        "for m in mods:\n"
        "    try:\n"
        "        importlib.import_module(m)\n"
        "    except Exception as exc:\n"
        "        errors[m] = f'{type(exc).__name__}: {exc}'\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {sorted(FORBIDDEN_TOP)!r}"
        " or m.startswith('PyQt'))\n"
        "print(json.dumps({'errors': errors, 'qt': bad}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, cwd=PACKAGE.parent)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    # A module that fails to import is its own tests' business; say so only
    # alongside a Qt leak, where it may explain a partial picture.
    assert not result["qt"], (f"importing the core loaded Qt modules: {result['qt']}"
                              f"\n(modules that failed to import: {result['errors']})")


# --- positive and negative controls for the checker itself -------------------

OFFENDING = '''\
"""Docstring mentioning PySide6 is fine."""
import os
import PySide6
from PySide6.QtCore import Qt
import numpy as np, pyqtgraph as pg


def lazy():
    from PyQt5 import QtWidgets
    import shiboken6
    return QtWidgets


class Thing:
    def method(self):
        try:
            import PyQt6.QtGui
        except ImportError:
            pass
        import importlib
        return importlib.import_module("PySide6.QtGui"), __import__("qtpy")
'''


def test_checker_flags_synthetic_offenders():
    msgs = violations(OFFENDING, Path("model/bad.py"))
    lines = sorted(int(m.split(":")[1]) for m in msgs)
    assert lines == [3, 4, 5, 9, 10, 17, 21, 21], msgs
    assert all(m.startswith("fabricviz/model/bad.py:") for m in msgs)
    assert any("imports pyqtgraph" in m for m in msgs)
    assert any("imports PyQt5" in m for m in msgs)


def test_checker_flags_core_importing_ui():
    src = "from ..ui import app\nfrom .. import ui\nimport fabricviz.ui.app\nfrom fabricviz import ui\n"
    msgs = violations(src, Path("formats/native.py"))
    assert [int(m.split(":")[1]) for m in msgs] == [1, 2, 3, 4], msgs


def test_checker_accepts_clean_source():
    src = (
        "import numpy\nimport pyside_like\nfrom .ui_helpers import x\nfrom . import views\n"
        "from ..model import Fabric\nimport networkx as nx\ns = 'import PySide6'\n"
        "def f():\n    from fabricviz.ui_text import y\n"
    )
    assert violations(src, Path("build/fat_tree.py")) == []
    # the CLI may import the GUI (lazily; enforced by the run-time test)
    assert violations("def main():\n    from fabricviz.ui.app import run_gui\n",
                      Path("cli.py")) == []
    # ... but still not Qt itself
    assert violations("def main():\n    import PySide6\n", Path("cli.py"))
