"""The core stays Qt-free: only fabricviz/ui may import a Qt binding or pyqtgraph.

The static rule is import-linter's (pyproject.toml, run by tests/test_static.py): a forbidden
contract keeps PySide6, shiboken6, pyqtgraph and fabricviz.ui out of every other package and
module of fabricviz, lazy imports inside functions included. What a contract cannot say is
checked here: that its list of source modules names every module outside fabricviz/ui (a new
top-level module is not left unchecked), and, at run time, that importing the non-ui modules
(the CLI included, which imports the GUI lazily) loads no Qt module.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tomllib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "fabricviz"
FORBIDDEN_TOP = {"PySide6", "PySide2", "shiboken6", "shiboken2", "pyqtgraph", "qtpy"}
#: May import fabricviz.ui (lazily): the entry points.
ENTRY_POINTS = {"fabricviz.cli", "fabricviz.__main__"}


def _module_parts(rel: Path) -> list[str]:
    """fabricviz/model/fabric.py -> ["fabricviz", "model", "fabric"]."""
    parts = ["fabricviz", *rel.with_suffix("").parts]
    return parts[:-1] if parts[-1] == "__init__" else parts


def core_files() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py")
                  if p.relative_to(PACKAGE).parts[0] != "ui")


def qt_contract() -> dict:
    config = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    lint = config["tool"]["importlinter"]
    forbidden = [c for c in lint["contracts"] if c["type"] == "forbidden"
                 and {"PySide6", "shiboken6", "pyqtgraph", "fabricviz.ui"} <= set(c["forbidden_modules"])]
    assert len(forbidden) == 1, "no import-linter contract keeps Qt and fabricviz.ui out of the core"
    assert lint["include_external_packages"] is True    # else the contract cannot see PySide6
    return forbidden[0]


def test_qt_contract_covers_every_core_module():
    """Every top-level package and module but ui and the entry points is a source of the contract."""
    tops = {".".join(_module_parts(p.relative_to(PACKAGE))[:2]) for p in core_files()}
    tops -= {"fabricviz"} | ENTRY_POINTS
    contract = qt_contract()
    assert tops, "layering check found no modules: wrong path?"
    assert sorted(tops - set(contract["source_modules"])) == [], "modules the Qt contract does not check"
    assert not ENTRY_POINTS & set(contract["source_modules"])
    assert contract.get("allow_indirect_imports", False) is False   # a chain to Qt counts too


def test_package_init_imports_nothing():
    """fabricviz/__init__.py (not a source of the contract: it would take in ui) imports no Qt or ui."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
               and not (isinstance(n, ast.ImportFrom) and n.module == "__future__")]
    assert imports == []


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
