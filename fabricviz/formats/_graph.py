"""Shared core of the graph exchange formats (GraphML, GML, NetJSON, DOT, containerlab).

Every device becomes a node named by its display name (``dgx01/mlx5_3`` for a
server's NIC) with scalar attributes; every cable becomes an edge between the two
devices with the port number at each end (``a_port``/``b_port``) and which node is
the a side (``a_node``: an undirected graph may list its ends either way). What
cannot be flat (user parts, the design's meta, per-port overrides) travels as JSON
strings, so readers that only accept scalars (GraphML, GML) take it.

Import goes the other way into the native loader, so all of its checks apply and a
bad file builds nothing. Errors name the element of the source file
(``x.graphml: edge 'leaf1' -- 'spine1' #1: a_port 9: …``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..model import CABLE_TYPES, KINDS, Catalog, Fabric, FabricError
from ..model.catalog import Part
from ..model.fabric import CHILD_PREFIX, GPU, NIC
from .limits import JSON_STRING, MAX_LENGTH_M, FileFormatError, check_nesting, check_number, one_line
from .native import fabric_from_dict, fabric_to_dict

NODE_KEYS = ("kind", "part", "mode", "tier", "x", "y", "guid", "parent", "local", "nic")
EDGE_KEYS = ("a_node", "a_port", "b_node", "b_port", "type", "length_m", "part")


@dataclass
class Node:
    """One node of an exchange file: its id, flat attributes, and how to name it in errors."""

    id: str
    attrs: dict[str, Any]
    label: str


@dataclass
class Edge:
    """One cable: the two node ids as the file gives them, flat attributes, error label."""

    u: str
    v: str
    attrs: dict[str, Any]
    label: str


@dataclass
class Graph:
    """A fabric as flat nodes and edges plus the few whole-design fields."""

    name: str
    nodes: list[Node]
    edges: list[Edge]
    meta: dict = field(default_factory=dict)
    parts: list[dict] = field(default_factory=list)


# ---------------------------------------------------------------------------- export
def to_graph(fabric: Fabric) -> Graph:
    """Flat nodes (every device, children too) and edges (every cable) of ``fabric``."""
    doc = fabric_to_dict(fabric)
    overrides: dict[str, list[dict]] = {}
    for rec in doc["ports"]:
        dev, _, num = rec["port"].rpartition(":")
        overrides.setdefault(dev, []).append({"port": int(num), **{k: v for k, v in rec.items() if k != "port"}})
    nodes = []
    for rec in doc["devices"]:
        nid = display_name(rec)
        attrs = {k: rec[k] for k in NODE_KEYS if k in rec}
        attrs["x"], attrs["y"] = float(attrs["x"]), float(attrs["y"])
        if nid in overrides:
            attrs["ports"] = json.dumps(overrides[nid], separators=(",", ":"))
        nodes.append(Node(nid, attrs, f"node {nid!r}"))
    edges = []
    for i, c in enumerate(doc["cables"]):
        an, _, ap = c["a"].rpartition(":")
        bn, _, bp = c["b"].rpartition(":")
        attrs = {"a_node": an, "a_port": int(ap), "b_node": bn, "b_port": int(bp),
                 "type": c["type"], "length_m": float(c["length_m"]), "part": c["part"]}
        edges.append(Edge(an, bn, attrs, f"cable {i + 1}"))
    return Graph(doc["name"], nodes, edges, doc["meta"], doc["parts"])


def graph_attrs(g: Graph) -> dict[str, Any]:
    """Whole-design attributes as flat scalars (meta and user parts as JSON text)."""
    out: dict[str, Any] = {"name": g.name, "format": "fabricviz"}
    if g.meta:
        out["meta"] = json.dumps(g.meta, sort_keys=True, separators=(",", ":"))
    if g.parts:
        out["parts"] = json.dumps(g.parts, sort_keys=True, separators=(",", ":"))
    return out


def display_name(rec: dict) -> str:
    if "name" in rec:
        return rec["name"]
    return f"{rec['parent']}/{CHILD_PREFIX[rec['kind']]}{rec['local']}"


# ---------------------------------------------------------------------------- import
def json_field(value: Any, where: str, what: str, kind: type) -> Any:
    """Decode a JSON-string attribute (or accept the structure itself)."""
    if value is None or value == "":
        return kind()
    if isinstance(value, str):
        check_nesting(value, f"{where}: {what}: line", "[{", "]}", JSON_STRING)
        try:
            value = json.loads(value)
        except json.JSONDecodeError as e:
            raise FileFormatError(one_line(f"{where}: {what}: not valid JSON ({e.msg})")) from None
        except (ValueError, RecursionError) as e:   # an integer of thousands of digits; deep escapes
            raise FileFormatError(one_line(f"{where}: {what}: not valid JSON ({str(e)[:80]})")) from None
    if not isinstance(value, kind):
        raise FileFormatError(f"{where}: {what}: expected a JSON {'object' if kind is dict else 'list'}")
    return value




def from_graph(g: Graph, where: str) -> Fabric:
    """Build a new Fabric from ``g``; FileFormatError naming the file's element on the first problem."""
    by_id: dict[str, Node] = {}
    for n in g.nodes:
        if n.id in by_id:
            raise FileFormatError(f"{where}: {n.label}: node id used twice")
        by_id[n.id] = n
    devices, labels = [], []
    for n in _parents_first(g.nodes):
        devices.append(_device_record(n, where))
        labels.append(n.label)
    ports, port_labels = [], []
    for n in g.nodes:
        raw = n.attrs.get("ports")
        for i, rec in enumerate(json_field(raw, where, f"{n.label}: ports", list)):
            if not isinstance(rec, dict) or not isinstance(rec.get("port"), int):
                raise FileFormatError(f"{where}: {n.label}: ports[{i}]: expected {{\"port\": N, ...}}")
            ports.append({**rec, "port": f"{n.id}:{rec['port']}"})
            port_labels.append(f"{n.label}: ports[{i}]")
    doc = {"format": "fabricviz", "version": 1, "name": g.name or "untitled", "meta": g.meta,
           "parts": g.parts, "devices": devices, "ports": ports, "cables": []}
    origins = {"devices": labels, "ports": port_labels, "parts": [f"part {i + 1}" for i in range(len(g.parts))]}
    try:
        f = fabric_from_dict(doc, "\0")
    except FabricError as e:
        raise FileFormatError(one_line(_relabel(str(e), where, origins))) from None
    try:
        _add_cables(f, g.edges, by_id, where)
    except FabricError as e:
        raise FileFormatError(one_line(str(e))) from None
    if not any("x" in n.attrs or "y" in n.attrs for n in g.nodes if not n.attrs.get("parent")):
        from ..generate.autolayout import apply_auto_layout  # deliberately on use: it loads scipy
        apply_auto_layout(f)        # a file with no positions at all: pods in a grid, not a pile at (0, 0)
    return f


def _parents_first(nodes: list[Node]) -> list[Node]:
    """File order, except that a child listed before its server moves just after it."""
    pos = {n.id: i for i, n in enumerate(nodes)}

    def key(item: tuple[int, Node]) -> tuple[float, int]:
        i, n = item
        p = pos.get(str(n.attrs.get("parent") or ""), -1)
        return (p + 0.5 if p > i else i, i)
    return [n for _i, n in sorted(enumerate(nodes), key=key)]


def _device_record(n: Node, where: str) -> dict:
    a = n.attrs
    rec: dict[str, Any] = {}
    kind = a.get("kind")
    if kind is None:
        raise FileFormatError(f"{where}: {n.label}: no 'kind' attribute (use {', '.join(KINDS)})")
    for k in ("kind", "parent", "part", "mode", "guid", "nic"):
        _text(a.get(k), where, n.label, k)
    parent = a.get("parent")
    if parent not in (None, ""):
        rec["parent"] = str(parent)
        rec["local"] = _int(a.get("local"), where, n.label, "local")
        if kind not in CHILD_PREFIX or n.id != display_name({"parent": rec["parent"], "local": rec["local"],
                                                             "kind": kind}):
            rec["name"] = n.id
    else:
        rec["name"] = n.id
    rec["kind"] = kind
    for k in ("part", "mode", "guid", "nic"):
        if a.get(k) not in (None, ""):
            rec[k] = a[k]
    rec["tier"] = _int(a.get("tier", -1), where, n.label, "tier")
    for k in ("x", "y"):
        rec[k] = _float(a.get(k, 0.0), where, n.label, k)
    return rec


def _int(v: Any, where: str, label: str, what: str) -> int:
    """An integer attribute (an int, an integral float, or their text); Python ints are unbounded,
    so the range is checked where the value is used."""
    out = None
    if isinstance(v, int) and not isinstance(v, bool):
        out = v
    elif isinstance(v, float) and v.is_integer():
        out = int(v)
    elif isinstance(v, str) and len(v) <= 40:
        s = v.strip()
        if re.fullmatch(r"[-+]?[0-9]+", s):
            out = int(s)
        elif re.fullmatch(r"[-+]?[0-9]+\.0*", s):
            out = int(s.split(".")[0])
    if out is None:
        raise FileFormatError(one_line(f"{where}: {label}: {what}: expected an integer, got {_show(v)}"))
    return out


def _float(v: Any, where: str, label: str, what: str) -> float:
    """A number attribute (an int, a float, or its text); may be inf or nan, which the native
    loader refuses with the field's name."""
    try:
        if isinstance(v, bool) or not isinstance(v, (int, float, str)) or (isinstance(v, str) and len(v) > 40):
            raise ValueError
        return float(v)
    except (ValueError, OverflowError):
        raise FileFormatError(one_line(f"{where}: {label}: {what}: expected a number, got {_show(v)}")) from None


def _text(v: Any, where: str, label: str, what: str) -> Any:
    """``v`` if it is text (or absent); a list or mapping (a GML key given twice, a nested
    NetJSON value) is refused with the element's label."""
    if v is not None and not isinstance(v, str):
        raise FileFormatError(one_line(f"{where}: {label}: {what}: expected text, got {_show(v)}"))
    return v


def _show(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


_FIELD = re.compile(r"^(devices|ports|cables|parts)\[(\d+)\](?:\.(\w+))?: (.*)$", re.S)


def _relabel(msg: str, where: str, origins: dict[str, list[str]]) -> str:
    """Turn the native loader's ``\\0: devices[3].part: why`` into ``where: node 'x': part: why``."""
    for mark in ("\0: ", "\\x00: "):      # the native loader's place, raw or escaped by one_line
        if msg.startswith(mark):
            msg = msg[len(mark):]
    body = msg
    m = _FIELD.match(body)
    if m and int(m.group(2)) < len(origins.get(m.group(1), [])):
        label = origins[m.group(1)][int(m.group(2))]
        return f"{where}: {label}: " + (f"{m.group(3)}: " if m.group(3) else "") + m.group(4)
    return f"{where}: {body}"


def _add_cables(f: Fabric, edges: list[Edge], by_id: dict[str, Node], where: str) -> None:
    n = len(edges)
    pa = np.empty(n, np.int64)
    pb = np.empty(n, np.int64)
    lengths = np.ones(n)
    keys: list[tuple[str | None, str | None]] = []
    for i, e in enumerate(edges):
        a = e.attrs
        an, bn = a.get("a_node", e.u), a.get("b_node", e.v)
        for k in ("a_node", "b_node", "type", "part"):
            _text(a.get(k), where, e.label, k)
        if {an, bn} != {e.u, e.v} and (an, bn) != (e.u, e.v):
            raise FileFormatError(f"{where}: {e.label}: a_node/b_node ({an!r}, {bn!r}) are not the ends "
                                  f"of this edge ({e.u!r}, {e.v!r})")
        for node, key, arr in ((an, "a_port", pa), (bn, "b_port", pb)):
            if node not in by_id:
                raise FileFormatError(f"{where}: {e.label}: unknown node {node!r}")
            if key not in a:
                raise FileFormatError(f"{where}: {e.label}: no '{key}' attribute (the port number on {node})")
            num = _int(a[key], where, e.label, key)
            try:
                arr[i] = f.port_id(node, num)
            except FabricError as err:
                raise FileFormatError(f"{where}: {e.label}: {key}: {err}") from None
        if "length_m" in a:
            length = _float(a["length_m"], where, e.label, "length_m")
            try:
                lengths[i] = check_number(length, "length_m", lo=0.0, hi=MAX_LENGTH_M, what="lengths")
            except ValueError as err:
                raise FileFormatError(f"{where}: {e.label}: {err}") from None
        ctype = a.get("type") or None
        if ctype is not None and ctype not in CABLE_TYPES:
            raise FileFormatError(f"{where}: {e.label}: type: unknown cable type {ctype!r} "
                                  f"(use {', '.join(CABLE_TYPES)})")
        part = a.get("part") or None
        if part is not None and part not in f.catalog:
            raise FileFormatError(f"{where}: {e.label}: part: unknown cable part {part!r}")
        keys.append((ctype, part))
    start = 0
    while start < n:
        end = start
        while end < n and keys[end] == keys[start]:
            end += 1
        ctype, part = keys[start]
        try:
            f.add_cables(pa[start:end], pb[start:end], lengths[start:end], ctype=ctype, part=part, emit=False)
        except FabricError:
            for i in range(start, end):   # name the edge; the fabric is discarded anyway
                try:
                    f.add_cables(pa[i:i + 1], pb[i:i + 1], lengths[i:i + 1], ctype=ctype, part=part, emit=False)
                except FabricError as err:
                    raise FileFormatError(f"{where}: {edges[i].label}: {err}") from None
            raise
        start = end


def same_topology(a: Fabric, b: Fabric) -> list[str]:
    """Differences in devices (name, kind, part, parent), ports and cables (as port-name pairs)."""
    ga, gb = to_graph(a), to_graph(b)
    out = []
    na = {n.id: (n.attrs.get("kind"), n.attrs.get("part"), n.attrs.get("parent")) for n in ga.nodes}
    nb = {n.id: (n.attrs.get("kind"), n.attrs.get("part"), n.attrs.get("parent")) for n in gb.nodes}
    for k in sorted(set(na) | set(nb)):
        if na.get(k) != nb.get(k):
            out.append(f"device {k}: {na.get(k)} != {nb.get(k)}")

    def cables(g: Graph) -> list[tuple]:
        return sorted(tuple(sorted([(e.attrs["a_node"], e.attrs["a_port"]), (e.attrs["b_node"], e.attrs["b_port"])]))
                      for e in g.edges)
    ca, cb = cables(ga), cables(gb)
    if ca != cb:
        out.append(f"cables differ: {len(ca)} vs {len(cb)}; only in first: "
                   f"{sorted(set(ca) - set(cb))[:3]}, only in second: {sorted(set(cb) - set(ca))[:3]}")
    return out


# ---------------------------------------------------------------------------- top-level view (clab, DOT)
def catalog_for(parts: list[dict], where: str = "<file>"):
    """The default catalog plus the file's user parts (FileFormatError on a bad part)."""
    cat = Catalog.default()
    out = []
    try:
        for i, p in enumerate(parts):
            out.append(Part.from_dict(p, f"parts[{i}]"))     # checks the model's limits too
        return cat.with_parts(out) if parts else cat
    except FabricError as e:
        raise FileFormatError(one_line(f"{where}: {e}")) from None


def server_children(node: Node, catalog, mode: str | None = None, nic_guids: list[str] | None = None) -> list[Node]:
    """GPU and NIC nodes of a server of its catalog part (GPU i bound to NIC i), as the generators make them."""
    p = catalog.get(node.attrs["part"])
    x, y, tier = node.attrs.get("x", 0.0), node.attrs.get("y", 0.0), node.attrs.get("tier", 0)
    out = []
    step = 24.0
    for kind, count, part, dy in ((GPU, p.gpus, p.gpu_part, 20.0), (NIC, p.nics, p.nic_part, -20.0)):
        for i in range(count):
            a: dict[str, Any] = {"kind": kind, "part": part, "parent": node.id, "local": i, "tier": tier,
                                 "x": x + i * step - (count - 1) * step / 2, "y": y + dy}
            if kind == GPU and i < p.nics:
                a["nic"] = f"{node.id}/{CHILD_PREFIX[NIC]}{i}"
            if kind == NIC:
                if mode:
                    a["mode"] = mode
                if nic_guids and i < len(nic_guids) and nic_guids[i]:
                    a["guid"] = nic_guids[i]
            out.append(Node(f"{node.id}/{CHILD_PREFIX[kind]}{i}", a, node.label))
    return out


def top_of(g: Graph) -> tuple[dict[str, Node], dict[str, str]]:
    """Nodes by id, and each node id -> its top-level node id (a server for GPUs/NICs inside one)."""
    by_id = {n.id: n for n in g.nodes}
    top = {n.id: (str(n.attrs["parent"]) if n.attrs.get("parent") else n.id) for n in g.nodes}
    return by_id, top


def iface_name(node: Node, port: int) -> str:
    """Interface name of a cable end on its top-level node: ``swpN`` on a switch, ``pN`` on a
    stand-alone CA, the NIC's name inside a server (``mlx5_3``; ``mlx5_3p2`` for its port 2)."""
    if node.attrs.get("parent"):
        suffix = node.id.rsplit("/", 1)[-1]
        return suffix if port == 1 else f"{suffix}p{port}"
    return f"swp{port}" if node.attrs.get("kind") in ("ib_switch", "eth_switch") else f"p{port}"


_TRAIL = re.compile(r"([0-9]+)$")


def port_number(digits: str) -> int:
    """The int of a run of ASCII digits; a run too long for any port (> 9 digits) gives 10**9
    (int() of thousands of digits is refused by Python, and no device has that many ports)."""
    return int(digits) if len(digits) <= 9 else 10 ** 9


def resolve_iface(top: Node, iface: str, children: list[Node]) -> tuple[str, int] | None:
    """(device id, port number) for an interface of a top-level node, or None."""
    if top.attrs.get("kind") == "server":
        names = {c.id.rsplit("/", 1)[-1]: c.id for c in children if c.attrs.get("kind") == NIC}
        if iface in names:
            return names[iface], 1
        m = re.match(r"^(.*)p([0-9]+)$", iface)
        if m and m.group(1) in names:
            return names[m.group(1)], port_number(m.group(2))
        return None
    m = _TRAIL.search(iface)
    return (top.id, port_number(m.group(1))) if m else None
