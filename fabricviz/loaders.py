"""Open any design file the CLI and GUI accept, and write any format fabricviz exports.

Readers are chosen by content (the file name only breaks ties); writers by the output
file's name or an explicit format name.
"""

from __future__ import annotations

import importlib
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from .model import FabricError

if TYPE_CHECKING:
    from .model import Fabric

#: format name -> (module under fabricviz.formats, output name endings, can read)
FORMATS: dict[str, tuple[str, tuple[str, ...], bool]] = {
    "native": ("native", (".fabric.json", ".json"), True),
    "netjson": ("netjson", (".netjson.json", ".netjson"), True),
    "graphml": ("graphml", (".graphml",), True),
    "gml": ("gml", (".gml",), True),
    "dot": ("dot", (".dot", ".gv"), True),
    "clab": ("clab", (".clab.yml", ".clab.yaml"), True),
    "slurm": ("slurm", ("topology.conf", ".conf"), False),
    "slurm-block": ("slurm_block", (".block.conf",), False),
    "slurm-yaml": ("slurm_yaml", ("topology.yaml",), False),
    "ibnetdiscover": ("ibnetdiscover", (".ibnd", ".topo", ".ibnetdiscover", ".net"), True),
    "ibdm-topo": ("ibdm_topo_export", (".ibdm.topo", ".ibdm"), True),      # read by formats.ibdm_topo
}


def detect_format(text: str, name: str = "") -> str | None:
    """``"native"``, ``"netjson"``, ``"graphml"``, ``"gml"``, ``"dot"``, ``"clab"``,
    ``"ibnetdiscover"``, ``"ibsim"`` (net file), one of :data:`READERS` or None, from the content."""
    lead = m.end() if (m := _LEAD_SPACE.match(text)) else 0   # \s* always matches
    from .formats import opensm_subnet_lst
    if opensm_subnet_lst.sniff(text):   # "{ SW Ports:…" lines: not JSON
        return opensm_subnet_lst.FORMAT
    if text.startswith("{", lead):      # JSON: only the NetJSON sniffer (the others load networkx)
        from .formats import netjson
        return "netjson" if netjson.sniff(text) else "native"
    from .formats import clab, dot, gml, graphml
    if graphml.sniff(text):
        return "graphml"
    if gml.sniff(_head_without_comments(text, ("#",))):
        return "gml"
    if dot.sniff(_head_without_comments(text, ("//", "#"))):
        return "dot"
    if clab.sniff(text) or name.endswith((".clab.yml", ".clab.yaml")):
        return "clab"
    from .formats.ibnetdiscover import sniff
    found = sniff(text)
    if found is not None:
        return found
    from .formats import ibdm_topo, iblinkinfo, ibnetdiscover_ports
    for reader in (ibnetdiscover_ports, iblinkinfo, ibdm_topo):
        if reader.sniff(text):
            return reader.FORMAT
    return None


#: Formats read by a module of fabricviz.formats of their own, ``loads(text, where, name)`` (the
#: discovery outputs of issue 26; ibdm-topo is also written, by formats.ibdm_topo_export).
READERS = {"ibnetdiscover-ports": "ibnetdiscover_ports", "opensm-subnet-lst": "opensm_subnet_lst",
           "iblinkinfo": "iblinkinfo", "ibdm-topo": "ibdm_topo"}


_LEAD_SPACE = re.compile(r"\s*")
#: The GML and DOT sniffers match at the start of the text: they see this much of it.
SNIFF_HEAD = 1 << 14


def _head_without_comments(text: str, prefixes: tuple[str, ...]) -> str:
    """The start of ``text`` (about SNIFF_HEAD characters) without its comment lines: lines are
    taken one at a time, so a big file is not copied for a look at its first lines."""
    from .formats.ibnetdiscover import lines_of
    out: list[str] = []
    size = 0
    for chunk in lines_of(text):
        for line in chunk.splitlines() or [""]:
            if not line.lstrip().startswith(prefixes):
                out.append(line)
                size += len(line) + 1
        if size >= SNIFF_HEAD:
            break
    return "\n".join(out)


def load_any(path: str | os.PathLike[str]) -> Fabric:
    """Load a design in any format fabricviz reads (told apart by content).

    A leading UTF-8 byte order mark is accepted (it is no line, so line numbers stay right).
    Every refusal is a FabricError of one line that starts with the file's path (``str(Path(path))``,
    as every reader names it): a reader's message that does not is escaped and prefixed here."""
    p = Path(path)
    where = str(p)
    from .model.inputs import MAX_INPUT_BYTES, read_input_text  # (numpy-free start-up: see test_startup)
    text = read_input_text(p, MAX_INPUT_BYTES, "a design file")   # regular files only, size-checked
    text = text[1:] if text.startswith("\ufeff") else text
    try:
        return _load_text(p, text)
    except FabricError as e:
        msg = str(e)
        if msg.isprintable() and msg.startswith(f"{where}:"):
            raise
        from .formats.native import one_line
        msg = one_line(msg)
        raise type(e)(msg if msg.startswith(f"{where}:") else f"{where}: {msg}") from None


def _load_text(p: Path, text: str) -> Fabric:
    fmt = detect_format(text, p.name)
    if fmt == "native":
        from .formats.native import load_fabric
        from .formats.native import loads as native_loads
        if "\ufffd" not in text:           # read once; undecodable bytes: the reader names the byte
            return native_loads(text, str(p))
        return load_fabric(p)
    if fmt in ("netjson", "graphml", "gml", "dot", "clab"):
        return importlib.import_module(f"fabricviz.formats.{fmt}").loads(text, str(p))
    if fmt in READERS:
        return importlib.import_module(f"fabricviz.formats.{READERS[fmt]}").loads(
            text, str(p), p.name.split(".")[0] or p.name)
    if fmt is None:
        raise FabricError(f"{p}: not a fabricviz design, ibnetdiscover output or ibsim net file "
                          "(nor ibnetdiscover -p, iblinkinfo, opensm-subnet.lst, ibdm topology, "
                          "GraphML, GML, DOT, NetJSON or containerlab)")
    from .formats.ibnetdiscover import loads
    from .model.names import escape_name  # a file name is no place for control characters either
    return loads(text, str(p), fmt, name=escape_name(p.name.split(".")[0] or p.name))


def output_format(path: str | os.PathLike[str], to: str | None = None) -> str:
    """The format to write ``path`` in: ``to`` if given, else from the file name."""
    if to is not None:
        if to not in FORMATS:
            raise FabricError(f"--to {to}: unknown format (use {', '.join(FORMATS)})")
        return to
    name = Path(path).name.lower()
    best = None
    for fmt, (_mod, ends, _r) in FORMATS.items():
        for e in ends:
            if name.endswith(e) and (best is None or len(e) > best[1]):
                best = (fmt, len(e))
    if best is None:
        raise FabricError(f"{path}: cannot tell the format from the name; give --to "
                          f"({', '.join(FORMATS)})")
    return best[0]


def save_as(fabric: Fabric, path: str | os.PathLike[str], fmt: str) -> None:
    """Write ``fabric`` to ``path`` in format ``fmt`` (atomically).

    A design no format can hold (a position or cable length that is not a finite number) is refused
    with one line before anything is written, whatever the format."""
    from .formats.native import check_writable
    check_writable(fabric, path)
    if fmt not in FORMATS:
        raise FabricError(f"{path}: unknown format {fmt!r} (use {', '.join(FORMATS)})")
    if fmt == "native":
        from .formats.native import save_fabric
        save_fabric(fabric, path)
    elif fmt == "ibnetdiscover":
        from .formats.ibnetdiscover import save_ibnetdiscover
        save_ibnetdiscover(fabric, path)
    else:
        importlib.import_module(f"fabricviz.formats.{FORMATS[fmt][0]}").save(fabric, path)
