"""Where the bundled assets (catalog, demo fabrics, lessons, icons) live.

The repository keeps them in the top-level ``assets/`` folder, which setuptools
ships as the package ``fabricviz.assets`` (``package-dir`` in pyproject.toml):
in a wheel install it is a real folder inside the package, in an editable
install setuptools' finder maps the package name to ``assets/``. Every module
asks this one function instead of working out paths from ``__file__``, so both
installs (and a source checkout run with ``pythonpath=["."]`` plus the
editable install) find the same files.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

ASSETS_PACKAGE = "fabricviz.assets"


def asset_path(*parts: str) -> Path:
    """Path of a bundled asset file or folder, e.g. ``asset_path("lessons")``.

    Raises FileNotFoundError when the assets are missing (a checkout that was
    never ``pip install -e .``-ed) or not a folder on disk (a zipped install).
    """
    try:
        root = files(ASSETS_PACKAGE)
    except ModuleNotFoundError as e:
        raise FileNotFoundError(
            f"the bundled assets ({ASSETS_PACKAGE}) are not installed; run `pip install -e .`") from e
    entry = root.joinpath(*parts)
    if not isinstance(entry, Path):
        raise FileNotFoundError(f"{entry}: the bundled assets are not a folder on disk")
    return entry


__all__ = ["ASSETS_PACKAGE", "asset_path"]
