"""GraphML through networkx (yEd, Gephi, Cytoscape, networkx itself).

A ``MultiGraph``: one node per device (children of a server too, with ``parent``
and ``local``), one edge per cable (parallel cables stay separate edges) with
``a_node``/``a_port``/``b_node``/``b_port`` and the cable's type, length and part.
All attributes are scalars, as GraphML requires; meta, user parts and per-port
overrides are JSON strings (see :mod:`fabricviz.formats._graph`).

Node ids in the file are ``xs:NMTOKEN`` (the GraphML 1.0 XSD types ``node/@id`` and
``edge/@source``/``@target`` so, and ``node01/gpu0`` is not one): :func:`encode_id` keeps
ASCII letters, digits, ``.``, ``-`` and ``_`` and writes every other character as ``:`` +
its code point in lower-case hex + ``:`` (``node01/gpu0`` -> ``node01:2f:gpu0``; ``:`` itself
-> ``:3a:``), so the mapping is reversible (:func:`decode_id`). The human name rides in the
node's ``name`` data key, which the reader prefers; files written before (ids that are the
names, no ``name`` key) load as they did.
"""

from __future__ import annotations

import math
import os
import re
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from xml.parsers import expat

import networkx as nx

from ..model import Fabric
from ..model.inputs import MAX_INPUT_BYTES, read_input
from . import _graph
from .limits import MAX_DEPTH, FileFormatError, one_line, strip_bom
from .native import save_text_atomic

FORMAT = "graphml"
SUFFIXES = (".graphml",)


_ID_SAFE = re.compile(r"[A-Za-z0-9._-]")
_ID_ESCAPE = re.compile(r":([0-9a-f]{1,6}):")
#: node data key holding the human name of a node whose id is :func:`encode_id`'s
NAME_KEY = "name"


def encode_id(name: str) -> str:
    """``name`` as a valid xs:NMTOKEN (see the module doc): reversible by :func:`decode_id`."""
    return "".join(c if _ID_SAFE.fullmatch(c) else f":{ord(c):x}:" for c in name) or ":0:"


def decode_id(token: str) -> str:
    """The name :func:`encode_id` made ``token`` from."""
    return "" if token == ":0:" else _ID_ESCAPE.sub(_unescape, token)


def _unescape(m: re.Match) -> str:
    """One ``:hex:`` escape as its character; one that names no character (past U+10FFFF, or a
    surrogate: encode_id never writes one) stays as written (issue 28's fuzz found chr() failing)."""
    code = int(m.group(1), 16)
    return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else m.group(0)


def to_networkx(fabric: Fabric) -> nx.MultiGraph:
    """The fabric as a networkx MultiGraph with flat attributes (edge key = cable ordinal)."""
    g = _graph.to_graph(fabric)
    G: nx.MultiGraph = nx.MultiGraph(**_graph.graph_attrs(g))
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
    it = G.edges(keys=True, data=True) if isinstance(G, nx.MultiGraph) else \
        ((u, v, None, d) for u, v, d in G.edges(data=True))
    for u, v, k, d in it:
        label = (edge_label(u, v, k, d) if edge_label
                 else f"edge {str(u)!r} -- {str(v)!r}" + (f" #{k}" if k is not None else ""))
        edges.append(_graph.Edge(str(u), str(v), dict(d), label))
    edges.sort(key=lambda e: _order(e.attrs))
    return _graph.from_graph(_graph.Graph(str(ga.get("name") or "untitled"), nodes, edges, meta, parts), where)


def _order(attrs: dict) -> int:
    """Cables come back in the order they were written (the ``cable`` ordinal), else file order."""
    v = attrs.pop("cable", None)
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and abs(v) < 1 << 40
    return int(v) if ok else 1 << 40


def dumps(fabric: Fabric) -> str:
    G = to_networkx(fabric)
    for _u, _v, k, d in G.edges(keys=True, data=True):
        d["cable"] = k
    for n, a in G.nodes(data=True):
        a[NAME_KEY] = n
    G = nx.relabel_nodes(G, {n: encode_id(str(n)) for n in G.nodes}, copy=True)
    return "\n".join(nx.generate_graphml(G, prettyprint=True)) + "\n"


def save(fabric: Fabric, path: str | os.PathLike[str]) -> None:
    save_text_atomic(dumps(fabric), path)


def loads(text: str, where: str = "<graphml>") -> Fabric:
    text = strip_bom(text)
    check(text, where)
    try:
        with warnings.catch_warnings():
            # "No key type for id …" (string is meant) and "GraphML port tag not supported"
            warnings.filterwarnings("ignore", category=UserWarning, module=r"networkx\.")
            G = nx.parse_graphml(text, force_multigraph=True)
    except ET.ParseError as e:
        line = e.position[0] if getattr(e, "position", None) else "?"
        raise FileFormatError(one_line(f"{where}:{line}: not well-formed XML ({e})")) from None
    except (nx.NetworkXError, ValueError, KeyError, TypeError, AttributeError) as e:
        # check() refuses what networkx is known to trip on; this names anything it missed
        raise FileFormatError(one_line(f"{where}: not a GraphML graph networkx can read "
                                       f"({type(e).__name__}: {str(e)[:120]})")) from None
    try:
        return from_networkx(_named(G, where), where)
    except FileFormatError as e:
        raise FileFormatError(one_line(str(e))) from None


def _named(G: nx.Graph, where: str) -> nx.Graph:
    """``G`` with each node that has a ``name`` data key relabelled to that name (the key dropped)."""
    names = {n: a[NAME_KEY] for n, a in G.nodes(data=True) if NAME_KEY in a}
    if not names:
        return G
    seen: dict[str, object] = {}
    for n, name in names.items():
        if not isinstance(name, str) or not name:
            raise FileFormatError(f"{where}: node {str(n)!r}: data key 'name': expected a non-empty string")
        if name in seen or (name in G and name not in names):
            raise FileFormatError(f"{where}: node {str(n)!r}: name {name!r} is given twice")
        seen[name] = n
    for n in names:
        del G.nodes[n][NAME_KEY]
    return nx.relabel_nodes(G, names, copy=True)


NS = "http://graphml.graphdrawing.org/xmlns"
#: attr.type -> how networkx converts a value (None: kept as text)
_TYPES: dict[str, Callable[[str], object] | str | None] = {"string": None, "yfiles": None, "int": int,
                                                         "integer": int, "long": int,
          "float": float, "double": float, "boolean": "bool"}
_BOOLS = {"true", "false", "0", "1"}


def check(text: str, where: str) -> None:
    """One streaming pass (expat) over a GraphML text before networkx builds it: well-formed,
    elements nested at most MAX_DEPTH, every ``<data>`` of a declared ``<key>`` with a value of
    its type, nodes with ids, edges with both ends. FileFormatError ``where:LINE: element: why``
    on the first problem, where networkx would raise without saying where (or print a warning)."""
    p = expat.ParserCreate(namespace_separator=" ")
    stack: list[list] = []             # [local name, label, extra]
    keys: dict[str, str] = {}   # key id -> attr.type
    datas: list[tuple[int, str, str, str, bool]] = []   # (line, element label, key id, text, convert)

    def fail(msg: str) -> FileFormatError:
        return FileFormatError(one_line(f"{where}:{p.CurrentLineNumber}: {msg}"))

    def start(name: str, attrs: dict) -> None:
        ns, _, local = name.rpartition(" ")
        if len(stack) >= MAX_DEPTH:
            raise fail(f"elements nested deeper than {MAX_DEPTH}")
        parent = stack[-1] if stack else None
        if parent is not None and parent[0] == "data":
            parent[2]["children"] = True
        if ns not in (NS, ""):
            stack.append(["", parent[1] if parent else "", {}])
            return
        label = parent[1] if parent else ""
        extra: dict = {}
        if local == "key" and parent is not None and parent[0] == "graphml":
            kid = attrs.get("id")
            ktype = "yfiles" if attrs.get("yfiles.type") is not None else attrs.get("attr.type", "string")
            label = f"key {kid!r}"
            if ktype not in _TYPES:
                raise fail(f"{label}: unknown attr.type {ktype!r} (use {', '.join(sorted(_TYPES))})")
            if attrs.get("attr.name") is None and attrs.get("yfiles.type") is None:
                raise fail(f"{label}: no attr.name")
            keys[str(kid)] = ktype
            extra["key"] = str(kid)
        elif local == "default" and parent is not None and parent[0] == "key" and "key" in parent[2]:
            extra = {"text": [], "key": parent[2]["key"], "line": p.CurrentLineNumber, "default": True}
        elif local == "graph":
            label = label or "graph"
            extra["directed"] = attrs.get("edgedefault") == "directed"
            if parent is not None and parent[0] == "node":
                parent[2]["graph"] = True
        elif local == "node":
            if attrs.get("id") is None:
                raise fail("a node without an id")
            label = f"node {decode_id(attrs['id'])!r}"
            extra["group"] = attrs.get("yfiles.foldertype") == "group"
        elif local == "edge":
            src, dst = attrs.get("source"), attrs.get("target")
            if src is None or dst is None:
                raise fail(f"an edge without a {'source' if src is None else 'target'}")
            label = f"edge {decode_id(src)!r} -- {decode_id(dst)!r}"
            graph = next((s for s in reversed(stack) if s[0] == "graph"), None)
            directed = graph is not None and graph[2]["directed"]
            if attrs.get("directed") == ("false" if directed else "true"):
                which = "a directed" if directed else "an undirected"
                raise fail(f"{label}: directed={attrs['directed']} in {which} graph")
        elif local == "hyperedge":
            raise fail("hyperedges are not cabling (an edge joins two nodes)")
        elif local == "data" and parent is not None and parent[0] in ("node", "edge", "graph"):
            extra = {"text": [], "key": str(attrs.get("key")), "line": p.CurrentLineNumber}
        stack.append([local, label, extra])

    def end(name: str) -> None:
        local, label, extra = stack.pop()
        if local == "node" and extra.get("group") and not extra.get("graph"):
            raise fail(f"{label}: a yfiles group node without a nested <graph>")
        if "text" in extra:
            text = "" if extra.get("children") else "".join(extra["text"])
            convert = not extra.get("children") and bool(text or extra.get("default"))
            datas.append((extra["line"], f"key {extra['key']!r}: default" if extra.get("default") else label,
                          extra["key"], text, convert))

    def chars(data: str) -> None:
        if stack and "text" in stack[-1][2]:
            stack[-1][2]["text"].append(data)

    p.StartElementHandler = start
    p.EndElementHandler = end
    p.CharacterDataHandler = chars
    try:
        p.Parse(text, True)
    except expat.ExpatError as e:
        raise FileFormatError(f"{where}:{e.lineno}: not well-formed XML ({expat.ErrorString(e.code)})") from None
    for line, label, key, text, convert in datas:
        if key not in keys:
            raise FileFormatError(one_line(f"{where}:{line}: {label}: data key {key!r} is not declared by a <key>"))
        kind = _TYPES[keys[key]]
        if kind is None or not convert:
            continue
        bad = False
        if isinstance(kind, str):           # "bool"
            bad = text.lower() not in _BOOLS
        else:
            try:
                kind(text) if len(text) <= 400 else int("x")
            except ValueError:
                bad = True
        if bad:
            wanted = "a boolean" if kind == "bool" else "an integer" if kind is int else "a number"
            raise FileFormatError(one_line(f"{where}:{line}: {label}: data key {key!r}: {text[:40]!r} is not "
                                           f"{wanted}"))


def load(path: str | os.PathLike[str]) -> Fabric:
    p = Path(path)
    return loads(read_input(p, MAX_INPUT_BYTES, "a design file").decode("utf-8"), str(p))


def sniff(text: str) -> bool:
    head = text.lstrip()[:400]
    return head.startswith("<") and "<graphml" in text[:2000]
