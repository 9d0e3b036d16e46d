"""How the CLI starts its painting children (``render``, ``record``, ``demo --screenshot``).

The pictures are drawn by ``python -m fabricviz.ui.…`` in a child process (Qt stays out of the
CLI process). ``python -m`` puts the current directory first on ``sys.path``, so run from a
folder that holds a ``fabricviz/`` source tree (any clone) the child would import that tree
instead of the package this process runs — and die on its missing assets, or paint with other
code. The child is therefore started with ``-P`` (Python 3.11's safe path: no current
directory on ``sys.path``) and, when this process's own ``fabricviz`` does not come from the
interpreter's site directories (a source checkout on ``PYTHONPATH`` or run from its folder),
with that tree's root first on ``PYTHONPATH``: the child imports exactly the package this
process imported, whatever the current directory. The current directory itself is kept, so
the user's relative file names mean the same in the child.
"""

from __future__ import annotations

import os
import site
import sys
from collections.abc import MutableMapping
from pathlib import Path

from ..anim.picture_options import offscreen_env


def package_root() -> Path:
    """The folder that holds the ``fabricviz`` package this process imported."""
    return Path(__file__).resolve().parent.parent.parent


def _site_dirs() -> set[Path]:
    dirs = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    user = site.getusersitepackages() if hasattr(site, "getusersitepackages") else None
    if isinstance(user, str):
        dirs.append(user)
    return {Path(d).resolve() for d in dirs}


def child_env(base: MutableMapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a painting child: offscreen without a display, and this process's
    ``fabricviz`` first on ``PYTHONPATH`` unless it is the installed one."""
    env = dict(os.environ if base is None else base)
    offscreen_env(env)
    root = package_root()
    if root not in _site_dirs():
        old = env.get("PYTHONPATH", "")
        env["PYTHONPATH"] = os.pathsep.join([str(root), *([old] if old else [])])
    return env


def child_command(module: str, argv: list[str]) -> list[str]:
    """``python -P -m module argv`` with this interpreter (no current directory on sys.path)."""
    return [sys.executable, "-P", "-m", module, *argv]


__all__ = ["child_command", "child_env", "package_root"]
