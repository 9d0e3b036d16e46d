"""Open any design file the CLI and GUI accept, choosing the reader by content."""

from __future__ import annotations

from pathlib import Path

from .model import Fabric, FabricError


def detect_format(text: str) -> str | None:
    """``"native"`` (JSON), ``"ibnetdiscover"``, ``"ibsim"`` (net file) or None, from the content."""
    if text.lstrip().startswith("{"):
        return "native"
    from .formats.ibnetdiscover import sniff
    return sniff(text)


def load_any(path: str | Path) -> Fabric:
    """Load a design: native JSON, ibnetdiscover output or an ibsim net file (told apart by content)."""
    p = Path(path)
    if not p.exists():
        raise FabricError(f"{path}: no such file")
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise FabricError(f"{path}: cannot read ({e.strerror})") from None
    fmt = detect_format(text)
    if fmt == "native":
        from .formats.native import load_fabric
        return load_fabric(p)
    if fmt is None:
        raise FabricError(f"{path}: not a fabricviz design, ibnetdiscover output or ibsim net file")
    from .formats.ibnetdiscover import loads
    return loads(text, p.name, fmt, name=p.name.split(".")[0] or p.name)
