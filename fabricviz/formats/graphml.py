"""GraphML through networkx (yEd, Gephi, Cytoscape, networkx itself).

A ``MultiGraph``: one node per device (children of a server too, with ``parent``
and ``local``), one edge per cable (parallel cables stay separate edges) with
``a_node``/``a_port``/``b_node``/``b_port`` and the cable's type, length and part.
All attributes are scalars, as GraphML requires; meta, user parts and per-port
overrides are JSON strings (see :mod:`fabricviz.formats._graph`).
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx

from ..model import Fabric
from . import _graph
from .native import FileFormatError, save_text_atomic

FORMAT = "graphml"
SUFFIXES = (".graphml",)


def to_networkx(fabric: Fabric) -> nx.MultiGraph:
    """The fabric as a networkx MultiGraph with flat attributes (edge key = cable ordinal)."""
    g = _graph.to_graph(fabric)
    G = nx.MultiGraph(**_graph.graph_attrs(g))
    for n in g.nodes:
        G.add_node(n.id, **n.attrs)
    for i, e in enumerate(g.edges):
        G.add_edge(e.u, e.v, key=i, **e.attrs)
    return G


def from_networkx(G: nx.Graph, where: str, edge_label=None) -> Fabric:
    """Build a Fabric from a graph made by :func:`to_networkx` (or any graph with those attributes)."""
    ga = dict(G.graph)
    meta = _graph.json_field(ga.get("meta"), where, "graph attribute 'meta'", dict)
    parts = _graph.json_field(ga.get("parts"), where, "graph attribute 'parts'", list)
    nodes = [_graph.Node(str(n), dict(a), f"node {str(n)!r}") for n, a in G.nodes(data=True)]
    edges = []
    it = G.edges(keys=True, data=True) if G.is_multigraph() else ((u, v, None, d) for u, v, d in G.edges(data=True))
    for u, v, k, d in it:
        label = edge_label(u, v, k, d) if edge_label else f"edge {str(u)!r} -- {str(v)!r}" + (f" #{k}" if k is not None else "")
        edges.append(_graph.Edge(str(u), str(v), dict(d), label))
    edges.sort(key=lambda e: _order(e.attrs))
    return _graph.from_graph(_graph.Graph(str(ga.get("name") or "untitled"), nodes, edges, meta, parts), where)


def _order(attrs: dict) -> int:
    """Cables come back in the order they were written (the ``cable`` ordinal), else file order."""
    v = attrs.pop("cable", None)
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 1 << 40


def dumps(fabric: Fabric) -> str:
    G = to_networkx(fabric)
    for u, v, k, d in G.edges(keys=True, data=True):
        d["cable"] = k
    return "\n".join(nx.generate_graphml(G, prettyprint=True)) + "\n"


def save(fabric: Fabric, path: str | os.PathLike[str]) -> None:
    save_text_atomic(dumps(fabric), path)


def loads(text: str, where: str = "<graphml>") -> Fabric:
    try:
        G = nx.parse_graphml(text, force_multigraph=True)
    except ET.ParseError as e:
        line = e.position[0] if getattr(e, "position", None) else "?"
        raise FileFormatError(f"{where}:{line}: not well-formed XML ({e})") from None
    except (nx.NetworkXError, ValueError, KeyError) as e:
        raise FileFormatError(f"{where}: not a GraphML graph networkx can read: {e}") from None
    return from_networkx(G, where)


def load(path: str | os.PathLike[str]) -> Fabric:
    p = Path(path)
    return loads(p.read_text(encoding="utf-8"), str(p))


def sniff(text: str) -> bool:
    head = text.lstrip()[:400]
    return head.startswith("<") and "<graphml" in text[:2000]
