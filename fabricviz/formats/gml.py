"""GML through networkx: the same flat MultiGraph as GraphML (see :mod:`fabricviz.formats.graphml`).

networkx numbers the nodes and keeps the device name as ``label``; parallel
cables carry their ``key`` (``multigraph 1``).
"""

from __future__ import annotations

import os
from pathlib import Path

import networkx as nx

from ..model import Fabric
from .graphml import from_networkx, to_networkx
from .native import FileFormatError, save_text_atomic

FORMAT = "gml"
SUFFIXES = (".gml",)


def dumps(fabric: Fabric) -> str:
    G = to_networkx(fabric)
    for _u, _v, k, d in G.edges(keys=True, data=True):
        d["cable"] = k
    return "\n".join(nx.generate_gml(G)) + "\n"


def save(fabric: Fabric, path: str | os.PathLike[str]) -> None:
    save_text_atomic(dumps(fabric), path)


def loads(text: str, where: str = "<gml>") -> Fabric:
    try:
        G = nx.parse_gml(text, label="label")
    except nx.NetworkXError as e:
        raise FileFormatError(f"{where}: {e}") from None
    if not G.is_multigraph():
        G = nx.MultiGraph(G)
    return from_networkx(G, where)


def load(path: str | os.PathLike[str]) -> Fabric:
    p = Path(path)
    return loads(p.read_text(encoding="utf-8"), str(p))


def sniff(text: str) -> bool:
    import re
    return re.match(r"\s*(Creator\s+\"[^\"]*\"\s*)?graph\s*\[", text) is not None
