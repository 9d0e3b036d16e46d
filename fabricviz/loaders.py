"""Open any design file the CLI and GUI accept, choosing the reader by content."""

from __future__ import annotations

from pathlib import Path

from .model import Fabric, FabricError


def load_any(path: str | Path) -> Fabric:
    """Load a design file (native JSON for now; other formats join as they land)."""
    from .formats.native import load_fabric
    if not Path(path).exists():
        raise FabricError(f"{path}: no such file")
    return load_fabric(path)
