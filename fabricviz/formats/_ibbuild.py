"""Turn checked ibnetdiscover/ibsim records into a Fabric: parts, devices, GUIDs, rates, layout.

Shared by :mod:`.ibnetdiscover` and :mod:`.ibsim`; called only once the whole file is known to be
good, and it builds into a new Fabric, so nothing is half-imported.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import shortest_path

from ..build.common import HOST_PITCH, TIER_GAP, finish, lid_space_problem
from ..model import Catalog, Fabric, FabricError, LinkRate, Part
from ..model.fabric import IB_SWITCH, KIND_CODE, NIC
from ..model.guid import format_guid
from ..model.tech import IB
from .ibnetdiscover import SHARP_DESC, SHARP_NOTES, SHARP_PART, Node, Topology

#: Rate of a link whose file line gives none (ibsim's default: 4x SDR).
DEFAULT_RATE = LinkRate(IB, "SDR", 4)
SWITCH_PITCH = 90.0


def _max_rate(a: LinkRate | None, b: LinkRate | None) -> LinkRate | None:
    if a is None or b is None:
        return a or b
    speed = a if a.speed_rank >= b.speed_rank else b
    return LinkRate(IB, speed.speed, max(a.width, b.width))


def _label(rate: LinkRate) -> str:
    return rate.speed if rate.width == 4 else str(rate)


def _fits(mode: LinkRate, rate: LinkRate) -> bool:
    return mode.tech == IB and mode.speed == rate.speed and mode.width >= rate.width


def _choose_parts(nodes: list[Node], rates: list[LinkRate | None], cat: Catalog
                  ) -> tuple[list[tuple[str, str, str | None]], list[Part]]:
    """(kind, part id, NIC mode) per node, and the user parts they need."""
    user: dict[str, dict] = {}
    out: list[tuple[str, str, str | None]] = []
    switches = cat.by_kind("ib_switch")
    nics = cat.by_kind("nic")

    def want(pid: str, kind: str, n: int, rate: LinkRate, name: str, notes: str, base: Part | None = None):
        spec = user.setdefault(pid, {"kind": kind, "n": n, "rate": rate, "name": name, "notes": notes,
                                     "base": base})
        spec["rate"] = _max_rate(spec["rate"], rate)

    for node, rate in zip(nodes, rates):
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
    """Node description, or the node id when empty; the GUID is appended when names repeat."""
    base = [" ".join((n.desc or n.id).replace('"', "'").split()) or n.id for n in nodes]
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


def build_fabric(topo: Topology, links: list, where: str, dialect: str, name: str) -> Fabric:
    """A new Fabric holding ``topo`` (already checked)."""
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
    dev = np.empty(len(nodes), np.int64)
    try:
        i = 0
        while i < len(nodes):
            j = i
            while j + 1 < len(nodes) and choice[j + 1] == choice[i]:
                j += 1
            kind, pid, mode = choice[i]
            dev[i:j + 1] = f.add_devices(kind, j - i + 1, pid, names[i:j + 1], 0.0, 0.0, tier=-1,
                                         guids=guids[i:j + 1], mode=mode, emit=False)
            i = j + 1
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
        for (_a, _p, _b, _q, rate), x, y in zip(links, pa.tolist(), pb.tolist()):
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
    f.meta["sm_node"] = names[0] if nodes else None
    f.meta["source"] = {"format": dialect, "file": where}
    if dialect == "ibnetdiscover":
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
            if ln.lid:
                lids[f"{format_guid(n.guid)}:{p}"] = ln.lid
                lmc = max(lmc, ln.lmc or 0)
    for n in topo.nodes:
        for ln in n.links.values():
            r = by_id.get(ln.rid)
            if r is not None and ln.rlid:
                lids.setdefault(f"{format_guid(r.guid)}:{0 if r.type == 'Switch' else ln.rport}", ln.rlid)
    return dict(sorted(lids.items())), lmc


def _layout(f: Fabric, dev: np.ndarray, pa: np.ndarray, pb: np.ndarray, an: np.ndarray) -> None:
    """Tiers (hosts 0, switches 1 + hops from a switch with hosts) and a barycentric x per tier.

    SHARP aggregation nodes are not hosts: they sit just below their switch, at its tier.
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
    # an aggregation node takes its switch's tier
    owner = np.full(n, -1, np.int64)
    owner[a[an[a] & sw[b]]] = b[an[a] & sw[b]]
    owner[b[an[b] & sw[a]]] = a[an[b] & sw[a]]
    tier[an & (owner >= 0)] = tier[owner[an & (owner >= 0)]]
    x = np.zeros(n)
    placed = ~an
    top = int(tier[placed].max()) if placed.any() else 0
    sizes = {k: int(((tier == k) & placed).sum()) for k in range(top + 1)}
    width = max(sizes.get(0, 0) * HOST_PITCH, max(sizes.values()) * SWITCH_PITCH, HOST_PITCH)

    def place(k: int, ref: int | None) -> None:
        sel = np.flatnonzero((tier == k) & placed)
        if not len(sel):
            return
        key = np.full(n, np.inf)
        if ref is not None:
            e_here = np.concatenate([a, b])
            e_there = np.concatenate([b, a])
            m = (tier[e_here] == k) & placed[e_here] & (tier[e_there] == ref) & placed[e_there]
            s = np.bincount(e_here[m], weights=x[e_there[m]], minlength=n)
            c = np.bincount(e_here[m], minlength=n)
            key = np.where(c > 0, s / np.maximum(c, 1), np.inf)
        order = sel[np.lexsort((sel, key[sel]))]
        x[order] = (np.arange(len(order)) + 0.5) * width / len(order)

    # leaves in file order, hosts under their leaves, then each tier above over the one below
    place(1, None)
    place(0, 1 if sizes.get(1) else None)
    for k in range(2, top + 1):
        place(k, k - 1)
    y = -TIER_GAP * tier.astype(float)
    has = an & (owner >= 0)
    x[has] = x[owner[has]] + 24.0
    y[has] = y[owner[has]] + 60.0
    for k in np.unique(tier).tolist():
        f.set_tier(dev[tier == k], int(k))
    f.set_positions(dev, x, y)


def check_lid_space(topo: Topology, links: list, where: str, problems: list[str]) -> None:
    """One subnet cannot hold more than the unicast LIDs: every switch takes one, every cabled CA
    port 2^LMC (the file's LMC). Refused with the generators' line, at the node that goes over."""
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
