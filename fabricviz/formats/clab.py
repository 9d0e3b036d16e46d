"""containerlab topology files (``.clab.yml``): top-level nodes and ``node:iface`` links.

Export: one node per top-level device (servers, switches, stand-alone CAs), all of
containerlab kind ``linux`` (there is no InfiniBand kind; swap in a NOS kind to boot
switches), with fabricviz's data in string labels (``fabricviz.kind``/``part``/``tier``/
``guid``/``mode``/``nic-guids``, positions as ``graph-posX``/``graph-posY`` which the clab
graph tools read) and one brief-form link per cable (``endpoints: ["leaf01:swp3",
"dgx01:mlx5_2"]``, cable part/type/length in ``vars``). The design's meta and user parts
ride in ``topology.defaults.labels``. The file validates against containerlab's
``schemas/clab.schema.json``. A server's GPUs and NICs are rebuilt from its part on
import (custom child names and GPU-NIC bindings are not carried).

Import also reads foreign labs: nodes of host kinds (``linux`` …) become stand-alone
NICs, every other kind an Ethernet switch; port numbers are the interface's trailing
number (``e1-3``, ``eth3``, ``swp3`` → 3); links to ``host``/``mgmt-net``/``macvlan``
and non-veth link types are skipped (counted in the design's meta).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from ..ib.tiers import TIER_NAMES
from ..model import Fabric
from ..model.inputs import MAX_INPUT_BYTES, read_input
from . import _graph, _yaml
from .limits import MAX_PORTS, FileFormatError, one_line, strip_bom
from .native import save_text_atomic

FORMAT = "clab"
SUFFIXES = (".clab.yml", ".clab.yaml")
IMAGE = "alpine:3"
HOST_KINDS = {"linux", "k8s-kind", "generic_vm", "freebsd", "openbsd", "ext-container",
              "keysight_ixia-c-one", "ostinato", "spirent_stc"}
PSEUDO_NODES = {"host", "mgmt-net", "macvlan"}
_NAME_OK = re.compile(r"[^A-Za-z0-9._-]")


def _clab_names(ids: list[str]) -> dict[str, str]:
    """Device name -> containerlab node name (schema: ``^[a-zA-Z0-9][a-zA-Z0-9-._|]*$``), unique."""
    out, used = {}, set()
    for d in ids:
        base = _NAME_OK.sub("_", d.strip()) or "node"
        if not base[0].isalnum():
            base = "n" + base
        name, k = base, 2
        while name in used:
            name, k = f"{base}-{k}", k + 1
        used.add(name)
        out[d] = name
    return out


def to_dict(fabric: Fabric) -> dict[str, Any]:
    g = _graph.to_graph(fabric)
    by_id, top = _graph.top_of(g)
    tops = [n for n in g.nodes if not n.attrs.get("parent")]
    cname = _clab_names([n.id for n in tops])
    kids: dict[str, list[_graph.Node]] = {}
    for n in g.nodes:
        if n.attrs.get("parent"):
            kids.setdefault(n.attrs["parent"], []).append(n)
    nodes: dict[str, Any] = {}
    for n in tops:
        a = n.attrs
        labels: dict[str, str] = {"fabricviz.kind": a["kind"]}
        if cname[n.id] != n.id:
            labels["fabricviz.name"] = n.id
        for k in ("part", "mode", "guid"):
            if a.get(k):
                labels[f"fabricviz.{k}"] = str(a[k])
        labels["fabricviz.tier"] = str(a.get("tier", -1))
        nics = [c for c in kids.get(n.id, []) if c.attrs["kind"] == "nic"]
        if nics and nics[0].attrs.get("mode"):
            labels["fabricviz.mode"] = str(nics[0].attrs["mode"])
        if any(c.attrs.get("guid") for c in nics):
            labels["fabricviz.nic-guids"] = ",".join(str(c.attrs.get("guid", "")) for c in nics)
        overrides = json.loads(a.get("ports", "[]"))
        for c in kids.get(n.id, []):
            suffix = c.id.rsplit("/", 1)[-1]
            overrides += [{**o, "port": f"{suffix}:{o['port']}"} for o in json.loads(c.attrs.get("ports", "[]"))]
        if overrides:
            labels["fabricviz.ports"] = json.dumps(overrides, separators=(",", ":"))
        labels["graph-posX"] = _num(a["x"])
        labels["graph-posY"] = _num(a["y"])
        rec: dict[str, Any] = {"kind": "linux"}
        if int(a.get("tier", -1)) >= 0:
            rec["group"] = TIER_NAMES.get(int(a["tier"]), f"tier {a['tier']}")
        rec["labels"] = labels
        nodes[cname[n.id]] = rec
    links = []
    for e in g.edges:
        ends = []
        for side in "ab":
            d = by_id[e.attrs[f"{side}_node"]]
            ends.append(f"{cname[top[d.id]]}:{_graph.iface_name(d, int(e.attrs[f'{side}_port']))}")
        links.append({"endpoints": _yaml.Flow(ends),
                      "vars": _yaml.FlowMap(cable_part=e.attrs["part"], cable_type=e.attrs["type"],
                                            length_m=e.attrs["length_m"])})
    dlabels = {}
    if g.meta:
        dlabels["fabricviz.meta"] = json.dumps(g.meta, sort_keys=True, separators=(",", ":"))
    if g.parts:
        dlabels["fabricviz.parts"] = json.dumps(g.parts, sort_keys=True, separators=(",", ":"))
    defaults: dict[str, Any] = {"kind": "linux", "image": IMAGE}
    if dlabels:
        defaults["labels"] = dlabels
    topo: dict[str, Any] = {"defaults": defaults, "nodes": nodes}
    if links:                       # the schema wants at least one link when "links" is present
        topo["links"] = links
    return {"name": _clab_names([g.name or "fabric"])[g.name or "fabric"], "topology": topo}


def _num(v: float) -> str:
    return str(int(v)) if float(v) == int(v) else str(round(float(v), 3))


def dumps(fabric: Fabric) -> str:
    return f"# containerlab topology written by fabricviz: {fabric.name}\n" + _yaml.dump(to_dict(fabric))


def save(fabric: Fabric, path: str | os.PathLike[str]) -> None:
    save_text_atomic(dumps(fabric), path)


# ---------------------------------------------------------------------------- import
def loads(text: str, where: str = "<clab>") -> Fabric:
    try:
        data = _yaml.load(strip_bom(text), where)
    except _yaml.YamlError as e:
        raise FileFormatError(one_line(str(e))) from None
    try:
        return from_dict(data, where, len(text.encode("utf-8", "surrogatepass")))
    except FileFormatError as e:
        raise FileFormatError(one_line(str(e))) from None


def load(path: str | os.PathLike[str]) -> Fabric:
    p = Path(path)
    return loads(read_input(p, MAX_INPUT_BYTES, "a design file").decode("utf-8"), str(p))


def _obj(v: Any, where: str, what: str) -> dict:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise FileFormatError(f"{where}: {what}: expected a mapping")
    return v


def _endpoints(link: Any, i: int, where: str) -> list[tuple[str, str]] | None:
    """The two (node, interface) ends of ``links[i]``; None for a link type fabricviz skips."""
    if not isinstance(link, dict):
        raise FileFormatError(f"{where}: links[{i}]: expected a mapping")
    eps = link.get("endpoints")
    if link.get("type", "veth") != "veth":
        return None
    if not isinstance(eps, list) or len(eps) != 2:
        raise FileFormatError(f"{where}: links[{i}]: endpoints: expected two endpoints")
    out = []
    for k, ep in enumerate(eps):
        if isinstance(ep, str):
            node, sep, iface = ep.partition(":")
            if not sep or not node or not iface:
                raise FileFormatError(f"{where}: links[{i}]: endpoint {ep!r}: expected \"node:interface\"")
        elif isinstance(ep, dict) and isinstance(ep.get("node"), str) and ep.get("interface") is not None:
            node, iface = ep["node"], str(ep["interface"])
        else:
            raise FileFormatError(f"{where}: links[{i}]: endpoints[{k}]: expected \"node:interface\" "
                                  "or {node, interface}")
        out.append((node, iface))
    if any(n in PSEUDO_NODES for n, _ in out):
        return None
    return out


#: GPUs and NICs rebuilt from server parts may number at most this many per byte of the file
#: (a fabricviz-written DGX node is 150-350 bytes for 16 children), or CHILD_FLOOR, whichever is more:
#: a few lines naming a 128-GPU part a thousand times must not build half a million devices.
CHILDREN_PER_BYTE = 0.25
CHILD_FLOOR = 10_000


def from_dict(data: Any, where: str, size: int | None = None) -> Fabric:
    """A Fabric from parsed containerlab data; ``size`` (the file's length in bytes) bounds how
    many GPUs and NICs its servers' parts may expand to."""
    data = _obj(data, where, "(top)")
    topo = _obj(data.get("topology"), where, "topology")
    nodes_cfg = _obj(topo.get("nodes"), where, "topology.nodes")
    defaults = _obj(topo.get("defaults"), where, "topology.defaults")
    dl = _obj(defaults.get("labels"), where, "topology.defaults.labels")
    meta = _graph.json_field(dl.get("fabricviz.meta"), where, "defaults label fabricviz.meta", dict)
    parts = _graph.json_field(dl.get("fabricviz.parts"), where, "defaults label fabricviz.parts", list)
    links_raw = topo.get("links") or []
    if not isinstance(links_raw, list):
        raise FileFormatError(f"{where}: topology.links: expected a list")
    links, skipped = [], 0
    for i, link in enumerate(links_raw):
        ends = _endpoints(link, i, where)
        if ends is None:
            skipped += 1
            continue
        for node, _ in ends:
            if node not in nodes_cfg:
                raise FileFormatError(f"{where}: links[{i}]: unknown node {node!r}")
        links.append((i, ends, _obj(link.get("vars"), where, f"links[{i}].vars")))
    foreign = not any(isinstance(c, dict) and isinstance(c.get("labels"), dict) and "fabricviz.kind" in c["labels"]
                      for c in nodes_cfg.values())
    nodes: list[_graph.Node] = []
    name_of: dict[str, str] = {}
    ports_used: dict[str, dict[int, str]] = {}
    for cn, cfg in nodes_cfg.items():
        cfg = _obj(cfg, where, f"node {cn!r}")
        labels = _obj(cfg.get("labels"), where, f"node {cn!r}: labels")
        name = str(labels.get("fabricviz.name", cn))
        name_of[cn] = name
        a: dict[str, Any] = {}
        if "fabricviz.kind" in labels:
            a["kind"] = labels["fabricviz.kind"]
            for k in ("part", "mode", "guid"):
                if labels.get(f"fabricviz.{k}") not in (None, ""):
                    a[k] = str(labels[f"fabricviz.{k}"])
            a["tier"] = labels.get("fabricviz.tier", -1)
        elif not foreign:
            raise FileFormatError(f"{where}: node {cn!r}: no fabricviz.kind label (other nodes have one)")
        else:
            kind = cfg.get("kind") or defaults.get("kind") or "linux"
            if not isinstance(kind, str):
                raise FileFormatError(one_line(f"{where}: node {cn!r}: kind: expected text, got {_graph._show(kind)}"))
            a["kind"] = "nic" if kind in HOST_KINDS else "eth_switch"
            a["tier"] = 0 if a["kind"] == "nic" else 1
            a["clab_kind"] = kind
            if "group" in cfg:
                a["group"] = cfg["group"]
        for k, lk in (("x", "graph-posX"), ("y", "graph-posY")):
            if lk in labels:
                a[k] = _graph._float(labels[lk], where, f"node {cn!r}", f"label {lk}")
        nodes.append(_graph.Node(name, a, f"node {cn!r}"))
        ports_used[cn] = {}
    if foreign:
        parts = list(parts) + _foreign_parts(nodes, list(nodes_cfg), links, ports_used, where)
        meta = {**meta, "source": {"format": "containerlab", "name": data.get("name")}}
        if skipped:
            meta["clab_skipped_links"] = skipped
    if skipped and not foreign:
        meta = {**meta, "clab_skipped_links": skipped}
    catalog = _graph.catalog_for(parts, where)
    by_cn = dict(zip(nodes_cfg, nodes, strict=True))
    children: dict[str, list[_graph.Node]] = {}
    all_nodes = []
    budget = None if size is None else max(CHILD_FLOOR, int(size * CHILDREN_PER_BYTE))
    total = 0
    for cn, n in by_cn.items():
        all_nodes.append(n)
        if n.attrs["kind"] == "server":
            if n.attrs.get("part") not in catalog:
                raise FileFormatError(f"{where}: {n.label}: unknown server part {n.attrs.get('part')!r}")
            p = catalog.get(n.attrs["part"])
            total += p.gpus + p.nics
            if budget is not None and total > budget:
                raise FileFormatError(f"{where}: {n.label}: its servers' parts would make {total} GPUs and NICs "
                                      f"so far, more than a {size}-byte file can describe ({budget}); "
                                      "list fewer servers or use a part with fewer GPUs/NICs")
            labels = (nodes_cfg[cn] or {}).get("labels") or {}
            guids = str(labels.get("fabricviz.nic-guids", "")).split(",") if labels.get("fabricviz.nic-guids") else None
            mode = n.attrs.pop("mode", None)
            children[cn] = _graph.server_children(n, catalog, mode, guids)
    # every GPU, then every NIC, as the generators add them: one bulk add per kind and part,
    # not three per server (which costs O(devices²) on a big design)
    for kind in ("gpu", "nic"):
        all_nodes.extend(c for kids in children.values() for c in kids if c.attrs["kind"] == kind)
    _port_overrides(by_cn, nodes_cfg, children, where)
    edges = []
    for i, ends, vars_ in links:
        attrs: dict[str, Any] = {}
        for side, (cn, iface) in zip("ab", ends, strict=True):
            hit = _graph.resolve_iface(by_cn[cn], iface, children.get(cn, []))
            if hit is None or hit[1] < 1:
                raise FileFormatError(f"{where}: links[{i}]: unknown interface {_graph._show(iface)} on node {cn!r}")
            attrs[f"{side}_node"], attrs[f"{side}_port"] = hit
        for k, vk in (("part", "cable_part"), ("type", "cable_type"), ("length_m", "length_m")):
            if vars_.get(vk) is not None:
                attrs[k] = vars_[vk]
        edges.append(_graph.Edge(attrs["a_node"], attrs["b_node"], attrs, f"links[{i}]"))
    for n in nodes:
        n.attrs.pop("clab_kind", None)
        n.attrs.pop("group", None)
    name = str(data.get("name") or "untitled")
    return _graph.from_graph(_graph.Graph(name, all_nodes, edges, meta, parts), where)


def _port_overrides(by_cn: dict, nodes_cfg: dict, children: dict, where: str) -> None:
    """``fabricviz.ports`` labels back onto the nodes (``"mlx5_0:2"`` = a NIC inside the server)."""
    for cn, n in by_cn.items():
        labels = (nodes_cfg[cn] or {}).get("labels") or {}
        recs = _graph.json_field(labels.get("fabricviz.ports"), where, f"node {cn!r}: label fabricviz.ports", list)
        kids = {c.id.rsplit("/", 1)[-1]: c for c in children.get(cn, [])}
        per: dict[int, list] = {}
        for k, rec in enumerate(recs):
            ref = rec.get("port") if isinstance(rec, dict) else None
            target, num = n, ref
            if isinstance(ref, str) and ":" in ref:
                suffix, _, num = ref.rpartition(":")
                target = kids.get(suffix)
                num = _graph.port_number(num) if re.fullmatch("[0-9]+", num) else None
            if target is None or not isinstance(num, int):
                raise FileFormatError(f"{where}: node {cn!r}: label fabricviz.ports[{k}]: bad port {ref!r}")
            per.setdefault(id(target), [target, []])[1].append({**rec, "port": num})
        for target, lst in per.values():
            target.attrs["ports"] = json.dumps(lst)


def _foreign_parts(nodes: list[_graph.Node], cnames: list[str], links: list, ports_used: dict,
                   where: str) -> list[dict]:
    """Parts and positions for a lab fabricviz did not write: ports sized to the interfaces used."""
    for i, ends, _v in links:
        for cn, iface in ends:
            m = re.search(r"([0-9]+)$", iface)
            if m is None or _graph.port_number(m.group(1)) < 1:
                raise FileFormatError(f"{where}: links[{i}]: interface {iface!r} on node {cn!r} has no port "
                                      "number >= 1 at its end")
            num = _graph.port_number(m.group(1))
            if num > MAX_PORTS["eth"]:
                raise FileFormatError(f"{where}: links[{i}]: interface {_graph._show(iface)} on node {cn!r}: "
                                      f"port {num} is more than a device can have ({MAX_PORTS['eth']})")
            other = ports_used[cn].setdefault(num, iface)
            if other != iface:
                raise FileFormatError(f"{where}: links[{i}]: interfaces {other!r} and {iface!r} of node {cn!r} "
                                      f"both map to port {num}")
    parts: dict[str, dict] = {}
    col = {0: 0, 1: 0}
    placed = any("x" in n.attrs for n in nodes)     # none: the importer's auto layout places them
    for cn, n in zip(cnames, nodes, strict=True):
        a = n.attrs
        nports = max(ports_used[cn], default=1)
        if a["kind"] == "eth_switch" and nports <= 64:
            a["part"] = "SN5400"
        else:
            what = "switch" if a["kind"] == "eth_switch" else "host"
            pid = f"CLAB-{what.upper()}-{nports}p"
            a["part"] = pid
            parts.setdefault(pid, {"id": pid, "kind": a["kind"], "name": f"{nports}-port {what} (400GbE)",
                                   "notes": f"Imported from a containerlab topology (kind {a['clab_kind']}); "
                                            "figures unknown.", "port": "400GbE", "ports": nports})
        t = int(a["tier"])
        if placed:          # a lab with some positions: the others in rows by tier beside them
            a.setdefault("x", 90.0 * col[t])
            a.setdefault("y", -260.0 * t + 0.0)
        col[t] += 1
    return list(parts.values())


def sniff(text: str) -> bool:
    return re.search(r"^topology:\s*$", text, re.M) is not None and re.search(r"^\s+nodes:\s*$", text, re.M) is not None
