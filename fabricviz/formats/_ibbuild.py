"""Turn checked ibnetdiscover/ibsim records into a Fabric: parts, devices, GUIDs, rates, layout.

Shared by :mod:`.ibnetdiscover` and :mod:`.ibsim`; called only once the whole file is known to be
good, and it builds into a new Fabric, so nothing is half-imported. :func:`prescan` runs before
anything is parsed: it counts the ports the headers declare and the LIDs the file needs, so a file
over either limit is refused before a record is built.
"""

from __future__ import annotations

import re
from array import array
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import shortest_path

from ..generate.autolayout import apply_auto_layout
from ..generate.common import finish, lid_space_problem
from ..generate.recognise import store_units
from ..ib.lids import LidEntries, plan_lids
from ..ib.sharp import SHARP_PART
from ..model import UNICAST_LIDS, Catalog, Fabric, FabricError, LinkRate, Part
from ..model.fabric import IB_SWITCH, KIND_CODE, NIC
from ..model.guid import format_guid
from ..model.limits import TIER_MAX
from ..model.names import escape_name
from ..model.tech import IB
from ._ibhosts import add_nodes, host_plan
from .ibnetdiscover_grammar import (
    HDR,
    LOCAL_LID,
    MAX_LMC,
    MAX_PORTS,
    PORT,
    SHARP_DESC,
    SHARP_NOTES,
    Node,
    Topology,
    dec,
    lines_of,
)

#: Rate of a link whose file line gives none (ibsim's default: 4x SDR).
DEFAULT_RATE = LinkRate(IB, "SDR", 4)


def _max_rate(a: LinkRate | None, b: LinkRate | None) -> LinkRate | None:
    if a is None or b is None:
        return a or b
    speed = a if a.speed_rank >= b.speed_rank else b
    return LinkRate(IB, speed.speed, max(a.width, b.width))


def _label(rate: LinkRate) -> str:
    return rate.speed if rate.width == 4 else str(rate)


def _fits(mode: LinkRate | None, rate: LinkRate) -> bool:
    return mode is not None and mode.tech == IB and mode.speed == rate.speed and mode.width >= rate.width


def _choose_parts(nodes: list[Node], rates: list[LinkRate | None], cat: Catalog
                  ) -> tuple[list[tuple[str, str, str | None]], list[Part]]:
    """(kind, part id, NIC mode) per node, and the user parts they need."""
    user: dict[str, dict] = {}
    out: list[tuple[str, str, str | None]] = []
    switches = cat.by_kind("ib_switch")
    nics = cat.by_kind("nic")

    def want(pid: str, kind: str, n: int, rate: LinkRate | None, name: str, notes: str,
             base: Part | None = None) -> None:
        spec = user.setdefault(pid, {"kind": kind, "n": n, "rate": rate, "name": name, "notes": notes,
                                     "base": base})
        spec["rate"] = _max_rate(spec["rate"], rate)

    for node, rate in zip(nodes, rates, strict=True):
        n = node.nports
        if node.type == "Switch":
            exact = [p for p in switches if p.ports == n and (rate is None or _fits(p.rate, rate))]
            plus1 = [p for p in switches if p.ports + 1 == n and rate is not None and _fits(p.rate, rate)]
            if exact:
                out.append((IB_SWITCH, min(exact, key=lambda p: p.id).id, None))
            elif plus1:
                # Quantum switches report one more port than the front panel: the last one is the
                # internal SHARP aggregation node (Quantum-2: Switch 65), so port numbers stay as read.
                base = min(plus1, key=lambda p: p.id)
                pid = f"{base.id}-{n}p"
                want(pid, IB_SWITCH, n, base.rate, "", "", base)
                out.append((IB_SWITCH, pid, None))
            else:
                r = rate or DEFAULT_RATE
                pid = f"IB-SW-{n}p-{_label(r)}"
                want(pid, IB_SWITCH, n, r, f"{n}-port InfiniBand switch ({r})",
                     "Imported from an ibnetdiscover/ibsim file: no catalog switch has this port count "
                     "and speed; figures unknown.")
                out.append((IB_SWITCH, pid, None))
            continue
        r = rate or DEFAULT_RATE
        if node.type == "Rt":
            # Routers are end ports for the SM (they get LIDs and are routed to), so a NIC-like device.
            pid = f"IB-ROUTER-{n}p"
            want(pid, NIC, n, r, f"{n}-port InfiniBand router", "Imported InfiniBand router (Rt node).")
            out.append((NIC, pid, None))
        elif n == 1 and (node.desc == SHARP_DESC or node.desc.endswith(" Aggregation Node")):
            want(SHARP_PART, NIC, 1, r, "SHARP aggregation node", SHARP_NOTES)
            out.append((NIC, SHARP_PART, None))
        else:
            cands = [(m != p.modes[0], p.price_usd, p.id, p, m) for p in nics if p.ports == n
                     for m in p.modes if rate is not None and _fits(m, rate)]
            if cands:
                *_k, p, m = min(cands, key=lambda c: c[:3])
                out.append((NIC, p.id, str(m) if m != p.modes[0] else None))
            else:
                pid = f"IB-CA-{n}p-{_label(r)}"
                want(pid, NIC, n, r, f"{n}-port InfiniBand channel adapter ({r})",
                     "Imported from an ibnetdiscover/ibsim file: no catalog NIC has this port count "
                     "and speed; figures unknown.")
                out.append((NIC, pid, None))
    parts = []
    for pid, s in user.items():
        if s["base"] is not None:
            b = s["base"]
            parts.append(replace(b, id=pid, ports=s["n"], user=True,
                                 name=f"{b.name} as reported ({s['n']} ports)",
                                 notes=f"{b.id} as ibnetdiscover reports it: {b.ports} ports plus port "
                                       f"{s['n']}, the internal SHARP aggregation node; figures as the {b.id}."))
        else:
            parts.append(Part.from_dict({"id": pid, "kind": s["kind"], "name": s["name"], "ports": s["n"],
                                         "port": str(s["rate"]), "notes": s["notes"]}, pid, user=True))
    return out, parts


def _names(nodes: list[Node]) -> list[str]:
    """Node description, or the node id when empty; the GUID is appended when names repeat.
    Control, bidi and separator characters of a description are escaped (``\\x1b``, ``\\u202e``:
    :func:`~fabricviz.model.names.escape_name`), never stored raw."""
    base = [escape_name(" ".join((n.desc or n.id).replace('"', "'").split()) or n.id) for n in nodes]
    names = list(base)
    while True:
        seen: dict[str, int] = {}
        for nm in names:
            seen[nm] = seen.get(nm, 0) + 1
        dup = [i for i, nm in enumerate(names) if seen[nm] > 1]
        if not dup:
            return names
        for i in dup:
            suffix = f" {format_guid(nodes[i].guid)}"
            names[i] = names[i] + suffix if not names[i].endswith(suffix) else f"{names[i]} {nodes[i].id}"


def build_fabric(topo: Topology, links: list, where: str, dialect: str, name: str,
                 system_guids: dict[int, int] | None = None) -> Fabric:
    """A new Fabric holding ``topo`` (already checked); adapters grouped into servers by their host
    names and ``system_guids`` (header line → sysimgguid), :mod:`._ibhosts`."""
    nodes = topo.nodes
    index = {id(n): i for i, n in enumerate(nodes)}
    rates: list[LinkRate | None] = [None] * len(nodes)
    for a, _pa, b, _pb, rate in links:
        for n in (a, b):
            rates[index[id(n)]] = _max_rate(rates[index[id(n)]], rate)
    f = Fabric(name=name)
    choice, parts = _choose_parts(nodes, rates, f.catalog)
    if parts:
        mine = {p.id for p in parts}
        f.catalog = f.catalog.with_parts([p for p in f.catalog.user_parts() if p.id not in mine] + parts)
    names = _names(nodes)
    guids = np.array([n.guid for n in nodes], dtype=np.uint64)
    try:
        dev = add_nodes(f, nodes, choice, names, guids, host_plan(nodes, choice, names, system_guids, SHARP_PART))
        t, pt = f.devices_t, f.ports_t
        first = t.first_port[dev].astype(np.int64)
        pg_ids, pg_vals = [], []
        for k, n in enumerate(nodes):
            for p, g in n.port_guids.items():
                pg_ids.append(first[k] + p - 1)
                pg_vals.append(g)
        if pg_ids:
            pt.set("guid", np.array(pg_ids), np.array(pg_vals, dtype=np.uint64))
        pa = np.array([first[index[id(a)]] + p - 1 for a, p, _b, _q, _r in links], dtype=np.int64)
        pb = np.array([first[index[id(b)]] + q - 1 for _a, _p, b, q, _r in links], dtype=np.int64)
        for (_a, _p, _b, _q, rate), x, y in zip(links, pa.tolist(), pb.tolist(), strict=True):
            if rate is not None:
                for port in (x, y):
                    if f.port_rate(port) != rate:
                        f.set_port_rate(port, rate)
        if len(pa):
            f.add_cables(pa, pb, 1.0, emit=False)
    except FabricError as e:
        raise FabricError(f"{where}: {e}") from None
    an = np.array([c[1] == SHARP_PART for c in choice], bool)
    _layout(f, dev, pa, pb, an)
    f.meta["sm_node"] = f.name_of(int(dev[0])) if nodes else None
    f.meta["source"] = {"format": dialect, "file": Path(where).name}   # the name: no local path in a design
    if dialect != "ibsim":                 # the discovery outputs show the LIDs the SM gave
        lids, lmc = _file_lids(topo)
        if lids:
            f.meta["file_lids"] = lids
        if lmc:
            f.meta["file_lmc"] = lmc
    return finish(f)


def _file_lids(topo: Topology) -> tuple[dict[str, int], int]:
    """LIDs the file shows: ``{"0x<node guid>:<port>": lid}`` (port 0 for switches), and the max LMC."""
    by_id = {n.id: n for n in topo.nodes}
    lids: dict[str, int] = {}
    lmc = 0
    for n in topo.nodes:
        if n.type == "Switch" and n.lid:
            lids[f"{format_guid(n.guid)}:0"] = n.lid
        for p, ln in sorted(n.links.items()):
            lmc = max(lmc, ln.lmc or 0)          # also "lid 0 lmc 3": the LMC the import checked
            if ln.lid:
                lids[f"{format_guid(n.guid)}:{p}"] = ln.lid
    for n in topo.nodes:
        for ln in n.links.values():
            r = by_id.get(ln.rid)
            if r is not None and ln.rlid:
                lids.setdefault(f"{format_guid(r.guid)}:{0 if r.type == 'Switch' else ln.rport}", ln.rlid)
    return dict(sorted(lids.items())), lmc


def _layout(f: Fabric, dev: np.ndarray, pa: np.ndarray, pb: np.ndarray, an: np.ndarray) -> None:
    """Tiers (hosts 0, switches 1 + hops from a switch with hosts), then the auto layout (pods in a
    grid, hosts under their leaves: :func:`fabricviz.generate.autolayout.auto_layout`).

    SHARP aggregation nodes are not hosts: they take their switch's tier and sit just above it.
    """
    t, pt = f.devices_t, f.ports_t
    n = len(dev)
    if n == 0:
        return
    local = np.full(t.n, -1, np.int64)
    local[dev] = np.arange(n)
    a = local[pt.device[pa]] if len(pa) else np.zeros(0, np.int64)
    b = local[pt.device[pb]] if len(pb) else np.zeros(0, np.int64)
    sw = t.kind[dev] == KIND_CODE[IB_SWITCH]
    host = ~sw & ~an
    leafy = np.zeros(n, bool)
    leafy[a[sw[a] & host[b]]] = True
    leafy[b[sw[b] & host[a]]] = True
    keep = sw[a] & sw[b]
    # one extra node joined to every leaf switch: BFS from it gives 1 + hops to the nearest leaf
    src = np.concatenate([a[keep], np.full(int(leafy.sum()), n)])
    dst = np.concatenate([b[keep], np.flatnonzero(leafy)])
    g = coo_matrix((np.ones(len(src)), (src, dst)), shape=(n + 1, n + 1)).tocsr()
    dist = shortest_path(g, directed=False, unweighted=True, indices=n)[:n]
    tier = np.where(sw, np.where(np.isfinite(dist), dist, 1), 0).astype(np.int64)
    tier = np.minimum(tier, TIER_MAX)     # a chain longer than the model's tiers shares the top one
    # an aggregation node takes its switch's tier
    owner = np.full(n, -1, np.int64)
    owner[a[an[a] & sw[b]]] = b[an[a] & sw[b]]
    owner[b[an[b] & sw[a]]] = a[an[b] & sw[a]]
    tier[an & (owner >= 0)] = tier[owner[an & (owner >= 0)]]
    for k in np.unique(tier).tolist():
        f.set_tier(dev[tier == k], int(k))
    store_units(f)                        # rails and SUs named as the rail generator names them
    apply_auto_layout(f)


def check_lid_space(topo: Topology, links: list, where: str, problems: list[str]) -> int:
    """One subnet cannot hold more than the unicast LIDs: every switch takes one, every cabled CA
    port 2^LMC (the file's LMC). Refused with the one line (``ib.lids.lid_space_problem``): by the
    count at the node that goes over, else by the real need in OpenSM's order. That need is route's
    own computation (``ib.lids.plan_lids``) on the entries route will build from the imported
    fabric (``ib.lids.subnet_entries``), built here from the records: a switch's port 0 by node
    GUID, each cabled CA port by port GUID, the SM's entry (the file's first node, where the
    imported fabric's SM sits: a switch's port 0, a CA's lowest cabled port), the file's LIDs kept.
    Returns the need (the count when that alone is over)."""
    cabled: dict[int, int] = {}
    for a, _pa, b, _pb, _rate in links:
        for n in (a, b):
            if n.type != "Switch":
                cabled[id(n)] = cabled.get(id(n), 0) + 1
    lmc = max((ln.lmc or 0 for n in topo.nodes for ln in n.links.values()), default=0)
    sw = ca = 0
    over = None
    for n in topo.nodes:
        if n.type == "Switch":
            sw += 1
        else:
            ca += cabled.get(id(n), 0)
        if over is None and lid_space_problem(ca, sw, lmc) is not None:
            over = n.line
    if over is not None:
        problems.append(f"{where}:{over}: {lid_space_problem(ca, sw, lmc)}")
        return sw + ca * (1 << lmc)
    # the count fits: the real need in OpenSM's order (aligned blocks, the file's LIDs kept), as
    # route will find it; refused at the node of the first port in that order left without a LID
    file_lids, _lmc = _file_lids(topo)
    ends = {(id(n), p): (n, p) for a, pa, b, pb, _r in links for n, p in ((a, pa), (b, pb))
            if n.type != "Switch"}
    entries = [(n, 0) for n in topo.nodes if n.type == "Switch"] + sorted(ends.values(), key=lambda e: e[1])
    guids = [n.guid if p == 0 else n.port_guids.get(p, (n.guid + p) % (1 << 64)) for n, p in entries]
    kept = {g: file_lids[k] for g, (n, p) in zip(guids, entries, strict=True)
            if (k := f"{format_guid(n.guid)}:{p}") in file_lids}
    sm = next((i for i, (n, _p) in enumerate(entries) if topo.nodes and n is topo.nodes[0]), -1)
    is_sw = np.array([p == 0 for _n, p in entries], bool)
    plan = plan_lids(LidEntries(np.array(guids, np.uint64), is_sw, sm, kept or None), lmc)
    if plan.problem is not None:
        assert plan.bases is not None       # the count fit (above), so every entry was placed
        last = plan.bases + np.where(is_sw, 0, (1 << lmc) - 1)
        first_out = int(np.flatnonzero(last > UNICAST_LIDS)[np.argmin(plan.bases[last > UNICAST_LIDS])])
        problems.append(f"{where}:{entries[first_out][0].line}: {plan.problem}")
    return plan.need


# ---------------------------------------------------------------------------- before parsing
#: Ports any file may declare: the model keeps every declared port (~34 bytes each), cabled or not,
#: so the budget is tied to the file's size. Real ibnetdiscover output spends 20-120 characters per
#: port when ports are cabled and ~1.5 on a Quantum-3 switch with none cabled (its 5-line block for
#: 144 ports); one port per character, with this floor for small files, refuses none of them.
PORT_FLOOR = 1 << 18
#: A switch header as :func:`~.ibnetdiscover.parse` reads one (a stripped line matching ``HDR``).
_SWITCH_HDR = re.compile(r'^[^\S\n]*Switch[^\S\n]*(\d+)[^\S\n]+"([^"\n]*)"', re.M)


def port_budget(size: int) -> int:
    """Most ports (all headers together) a file of ``size`` characters may declare."""
    return max(PORT_FLOOR, int(size))


@dataclass
class _Counts:
    """What one pass of :func:`_walk` counted."""

    problem: str | None = None
    lines: array = field(default_factory=lambda: array("q"))   # per good node: its header line
    units: array = field(default_factory=lambda: array("q"))   # -1 (switch) or its cabled CA ports
    lmc: int = 0
    switches: int = 0
    to_ca: int = 0            # switch port lines (to a node that is no switch, when those are known)
    over: int | None = None   # line where switches + to_ca × step first pass the unicast LIDs


def _walk(text: str, where: str, switches: set[str] | None = None, step: int = 0) -> _Counts:
    """One pass over the blocks with :func:`~.ibnetdiscover.parse`'s line structure, counting only
    the lines parse would take as good links (so every count is at most what parsing finds)."""
    budget = port_budget(len(text))
    out = _Counts()
    declared = nports = 0
    block = None                            # "ca" | "sw" | None: the good block the lines are in
    ports: set[int] = set()
    for lineno, raw in enumerate(lines_of(text), 1):
        line = raw.strip()
        if not line:
            block = None
            continue
        c = line[0]
        if c == "#" or c == "@":
            continue
        if c == "[":
            if block is None:
                continue
            m = PORT.match(line)
            if m is None:
                continue
            port = dec(m.group(1), MAX_PORTS)
            if port is None or not 1 <= port <= nports or port in ports:
                continue
            ports.add(port)
            if block == "ca":
                out.units[-1] += 1
                rest = m.group(6)
                lm = LOCAL_LID.match(rest[rest.find("#") + 1:]) if "#" in rest else None
                v = dec(lm.group(2), MAX_LMC) if lm is not None else None
                out.lmc = max(out.lmc, v or 0)
            elif (m.group(4) is None or dec(m.group(4), MAX_PORTS)) and (
                    switches is None or m.group(3) not in switches):
                out.to_ca += 1
                if step and out.over is None and out.switches + out.to_ca * step > UNICAST_LIDS:
                    out.over = lineno
            continue
        block = None
        m = HDR.match(line)
        if m is None:
            continue                        # GUID assignments, banners, broken headers
        n = dec(m.group(2), MAX_PORTS)
        if not n or not m.group(3):
            continue                        # refused by parse, nothing allocated for it
        declared += n
        if declared > budget:
            out.problem = (f"{where}:{lineno}: {m.group(1)} with {n} ports takes the ports declared to "
                           f"{declared:,}, over the {budget:,} a file of {len(text):,} characters may "
                           f"declare (the design keeps every port, cabled or not: at most one per "
                           f"character, or {PORT_FLOOR:,} in a small file)")
            return out
        out.lines.append(lineno)
        block, nports, ports = ("sw" if m.group(1) == "Switch" else "ca"), n, set()
        if block == "sw":
            out.units.append(-1)
            out.switches += 1
            if step and out.over is None and out.switches + out.to_ca * step > UNICAST_LIDS:
                out.over = lineno
        else:
            out.units.append(0)
    return out


def prescan(text: str, where: str) -> str | None:
    """The refusal of a file that declares more ports than :func:`port_budget` allows (at the
    header that goes over) or needs more LIDs than a subnet has, or None; nothing is built.

    LIDs are counted as :func:`check_lid_space` counts them (a LID per switch, 2^LMC per cabled CA
    port), from the port lines of the CA blocks (refused at the CA that goes over), else from the
    switches' port lines to nodes that are no switch (at the line that goes over), as an ibsim file
    may list a link from one side only. Each is a lower bound of what parsing finds, so a file
    refused here would be refused after parsing too; one whose CA ports are listed partly from
    each side is left to :func:`check_lid_space`.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    first = _walk(text, where)
    if first.problem is not None or not first.lines:
        return first.problem
    u = np.frombuffer(first.units, dtype=np.int64)
    sw = u < 0
    problem = lid_space_problem(int(u[~sw].sum()), first.switches, first.lmc)
    if problem is not None:
        need = np.cumsum(np.where(sw, 1, u << first.lmc))      # LIDs taken up to each node, in order
        return f"{where}:{first.lines[int(np.argmax(need > UNICAST_LIDS))]}: {problem}"
    step = 1 << first.lmc
    if first.switches + first.to_ca * step <= UNICAST_LIDS:
        return None                         # even if every switch port line led to a CA
    names = {m.group(2) for m in _SWITCH_HDR.finditer(text) if m.group(2) and dec(m.group(1), MAX_PORTS)}
    second = _walk(text, where, names, step)
    if second.over is None:
        return None
    return f"{where}:{second.over}: {lid_space_problem(second.to_ca, second.switches, first.lmc)}"
