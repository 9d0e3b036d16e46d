"""NetJSON NetworkGraph (netjson.org, RFC draft): nodes and links, for OpenWISP/netdiff-style tools.

``nodes``: ``{"id": name, "label": name, "properties": {kind, part, tier, x, y, guid,
parent, local, nic, ports}}``; ``links``: one per cable (parallel cables are separate
links) ``{"source", "target", "cost": 1.0, "cost_text": rate, "properties": {a_node,
a_port, b_node, b_port, type, length_m, part}}``. The design's meta and user parts ride
in the top-level custom member ``properties``. The members the NetworkGraph schema
(netjson/netjson ``schema/network-graph.json``) requires are strings: ``protocol``
("static"), ``version`` ("1", the version of this layout) and ``metric`` ("hop": every
link's ``cost`` is 1.0); the optional ``revision`` is left out. Files written before, with
``null`` there, still load (the reader does not use these members).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..model import Fabric
from ..model.inputs import MAX_INPUT_BYTES, read_input
from . import _graph
from .limits import FileFormatError, one_line, parse_json
from .native import save_text_atomic

FORMAT = "netjson"
SUFFIXES = (".netjson", ".netjson.json")


def to_dict(fabric: Fabric) -> dict[str, Any]:
    g = _graph.to_graph(fabric)
    rate = {}
    for c in fabric.cable_ids().tolist():
        rate[c] = str(fabric.cable_rate(c))
    nodes = [{"id": n.id, "label": n.id, "properties": _props(n.attrs)} for n in g.nodes]
    links = []
    for e, cid in zip(g.edges, fabric.cable_ids().tolist(), strict=True):
        links.append({"source": e.u, "target": e.v, "cost": 1.0, "cost_text": rate[cid], "properties": e.attrs})
    return {"type": "NetworkGraph", "protocol": "static", "version": "1", "metric": "hop",
            "label": g.name, "properties": {"format": "fabricviz", "meta": g.meta, "parts": g.parts},
            "nodes": nodes, "links": links}


def _props(attrs: dict) -> dict:
    out = dict(attrs)
    if "ports" in out:
        out["ports"] = json.loads(out["ports"])
    return out


def dumps(fabric: Fabric) -> str:
    d = to_dict(fabric)
    enc = lambda o: json.dumps(o, ensure_ascii=False, separators=(", ", ": "))  # noqa: E731
    head = {k: v for k, v in d.items() if k not in ("nodes", "links")}
    out = ["{"] + [f"  {enc(k)}: {enc(v)}," for k, v in head.items()]
    for key in ("nodes", "links"):
        rows = d[key]
        out.append(f'  "{key}": [' + ("" if rows else "]" + ("," if key == "nodes" else "")))
        for i, r in enumerate(rows):
            out.append("    " + enc(r) + ("," if i < len(rows) - 1 else ""))
        if rows:
            out.append("  ]" + ("," if key == "nodes" else ""))
    out.append("}")
    return "\n".join(out) + "\n"


def save(fabric: Fabric, path: str | os.PathLike[str]) -> None:
    save_text_atomic(dumps(fabric), path)


def loads(text: str, where: str = "<netjson>") -> Fabric:
    data = parse_json(text, where)     # BOM, nesting depth and JSON syntax checked, with the line
    try:
        return from_dict(data, where)
    except FileFormatError as e:
        raise FileFormatError(one_line(str(e))) from None


def from_dict(data: Any, where: str) -> Fabric:
    if not isinstance(data, dict) or data.get("type") != "NetworkGraph":
        raise FileFormatError(f"{where}: type: expected \"NetworkGraph\"")
    props = data.get("properties") or {}
    if not isinstance(props, dict):
        raise FileFormatError(f"{where}: properties: expected an object")
    meta = _graph.json_field(props.get("meta"), where, "properties.meta", dict)
    parts = _graph.json_field(props.get("parts"), where, "properties.parts", list)
    nodes, edges = [], []
    for key in ("nodes", "links"):
        if not isinstance(data.get(key), list):
            raise FileFormatError(f"{where}: {key}: missing or not a list")
    for i, n in enumerate(data["nodes"]):
        if not isinstance(n, dict) or not isinstance(n.get("id"), str):
            raise FileFormatError(f"{where}: nodes[{i}]: expected an object with a string \"id\"")
        p = n.get("properties") or {}
        if not isinstance(p, dict):
            raise FileFormatError(f"{where}: nodes[{i}] ({n['id']!r}): properties: expected an object")
        nodes.append(_graph.Node(n["id"], dict(p), f"nodes[{i}] ({n['id']!r})"))
    for i, link in enumerate(data["links"]):
        if not isinstance(link, dict) or not isinstance(link.get("source"), str) \
                or not isinstance(link.get("target"), str):
            raise FileFormatError(f"{where}: links[{i}]: expected an object with string \"source\" and \"target\"")
        p = link.get("properties") or {}
        if not isinstance(p, dict):
            raise FileFormatError(f"{where}: links[{i}]: properties: expected an object")
        edges.append(_graph.Edge(link["source"], link["target"], dict(p),
                                 f"links[{i}] ({link['source']!r} -- {link['target']!r})"))
    label = data.get("label")
    name = label if isinstance(label, str) else "untitled"
    return _graph.from_graph(_graph.Graph(name, nodes, edges, meta, parts), where)


def load(path: str | os.PathLike[str]) -> Fabric:
    p = Path(path)
    return loads(read_input(p, MAX_INPUT_BYTES, "a design file").decode("utf-8"), str(p))


def sniff(text: str) -> bool:
    head = text.lstrip()[:300]
    return head.startswith("{") and '"NetworkGraph"' in head
