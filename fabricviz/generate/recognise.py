"""Rails and scalable units recognised from the cabling: what a rail-optimised cluster is built of.

In a rail-optimised cluster (NVIDIA's DGX SuperPOD, :mod:`fabricviz.generate.rail`) adapter ``k``
of every server of a scalable unit (SU) is cabled to the unit's rail-``k`` leaf. Read back from
any design (generated, hand-made or discovered: :mod:`fabricviz.generate.hosts` gives discovered
adapters their server and their index ``k``):

* a **scalable unit** is a connected set of leaves and the servers cabled to them (leaves joined
  only through servers, never through spines);
* a leaf's **rail** is the adapter index most of its servers' adapters have on it; rail ``k`` of
  the fabric is every unit's rail-``k`` leaf;
* **spines** are the switches above the leaves; an adapter cabled to a leaf of another rail is
  **off rail** (a swapped cable, or a design that is no rail design there).

A design is rail-optimised when some unit has two or more leaves on distinct rails and most
server cables (:data:`ON_RAIL_SHARE`) go to the leaf of their adapter's rail. Units are named
``su1``, ``su2``, … in the natural order of their leaves' names, as the generator names them.
Pure numpy and scipy, no Qt; typed results.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ..ib.sharp import sharp_mask
from ..ib.tiers import device_tiers, switch_mask
from ..model import Fabric
from ..model.fabric import KIND_CODE, NIC, SERVER
from ..model.guid import format_guid
from .hosts import MANAGEMENT_HOST, adapter_ranks, is_factory, split_description

#: Share of server cables that must run to the leaf of their adapter's rail for a rail design.
ON_RAIL_SHARE = 0.9


@dataclass(frozen=True)
class ScalableUnit:
    """One SU: its leaves (by rail), each leaf's rail, and its hosts (top-level device ids)."""

    name: str
    leaves: tuple[int, ...]
    rails: tuple[int, ...]            # per leaf: its rail (adapter index), -1 when none
    hosts: tuple[int, ...]


@dataclass(frozen=True)
class Rail:
    """Rail ``index``: the leaves (of every SU) that serve adapter ``index`` of their servers."""

    index: int
    name: str
    leaves: tuple[int, ...]


@dataclass(frozen=True)
class Structure:
    """What a design is built of, as a person reads a cluster."""

    servers: tuple[int, ...]          # compute servers (kind server, not management)
    management: tuple[int, ...]       # UFM / management hosts
    unnamed: tuple[int, ...]          # adapters on their own with only a factory description
    loose: tuple[int, ...]            # other adapters on their own (one-NIC hosts)
    sharp: tuple[int, ...]            # SHARP aggregation nodes (part of their switches)
    adapters: int                     # NICs inside the servers
    units: tuple[ScalableUnit, ...]   # scalable units (only when rail-optimised)
    rails: tuple[Rail, ...]
    spines: tuple[int, ...]           # switches above the leaves
    off_rail: tuple[int, ...]         # cable ids: an adapter cabled to a leaf of another rail
    rail_optimised: bool

    def summary(self, f: Fabric) -> dict[str, object]:
        """JSON-ready counts and names (``info --json``)."""
        return {
            "servers": len(self.servers), "management_hosts": [f.name_of(d) for d in self.management],
            "unnamed_adapters": len(self.unnamed), "loose_adapters": len(self.loose),
            "server_adapters": self.adapters, "sharp_nodes": len(self.sharp),
            "rail_optimised": self.rail_optimised,
            "scalable_units": [{"name": u.name, "leaves": [f.name_of(d) for d in u.leaves],
                                "rails": list(u.rails), "hosts": len(u.hosts)} for u in self.units],
            "rails": [{"name": r.name, "leaves": [f.name_of(d) for d in r.leaves]} for r in self.rails],
            "spines": len(self.spines),
            "off_rail_cables": [_cable_text(f, c) for c in self.off_rail],
        }


def _cable_text(f: Fabric, c: int) -> str:
    ct = f.cables_t
    return f"{f.port_name(int(ct.port_a[c]))} - {f.port_name(int(ct.port_b[c]))}"


def natural_key(text: str) -> tuple:
    """Sort key that orders ``su2`` before ``su10``."""
    return tuple(int(p) if p.isdigit() else p.lower() for p in re.split(r"(\d+)", text))


def _host_leaf_cables(f: Fabric, sw: np.ndarray, sharp: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(cable ids, adapter, its top-level host, leaf) of every adapter-to-switch cable."""
    t, ct, pt = f.devices_t, f.cables_t, f.ports_t
    cids = f.cable_ids()
    da = pt.device[ct.port_a[cids]].astype(np.int64)
    db = pt.device[ct.port_b[cids]].astype(np.int64)
    nic = t.alive & (t.kind == KIND_CODE[NIC]) & ~sharp
    m1, m2 = nic[da] & sw[db], nic[db] & sw[da]
    ad = np.concatenate([da[m1], db[m2]])
    leaf = np.concatenate([db[m1], da[m2]])
    cab = np.concatenate([cids[m1], cids[m2]])
    top = np.where(t.parent[ad] >= 0, t.parent[ad], ad).astype(np.int64)
    return cab, ad, top, leaf


def adapter_index(f: Fabric) -> np.ndarray:
    """Per device id, the adapter index of a server's NIC (-1 for anything else): its rank
    (:func:`~fabricviz.generate.hosts.adapter_ranks`) by the adapter name of its NodeDescription
    (an import's kept description, ``"dgx01 HCA-6"``; else ``mlx5_<local>``, as export writes it)."""
    t = f.devices_t
    kids = np.flatnonzero(t.alive & (t.parent >= 0) & (t.kind == KIND_CODE[NIC]))
    kept = f.settings.node_descriptions
    names: list[str | None] = []
    for d in kids.tolist():
        entry = kept.get(format_guid(int(t.guid[d]))) if t.guid[d] and kept else None
        parsed = split_description(entry[1]) if entry is not None and entry[0] == f.name_of(d) else None
        names.append(parsed[1] if parsed is not None else f"mlx5_{int(t.local[d])}")
    out = np.full(t.n, -1, np.int64)
    out[kids] = adapter_ranks(names)
    return out


def recognise(f: Fabric) -> Structure:
    """Servers, management hosts, unnamed adapters, SHARP nodes, rails and SUs of ``f``."""
    t = f.devices_t
    n = t.n
    sw = switch_mask(f)
    sharp = sharp_mask(f)
    top_level = t.alive & (t.parent < 0)
    servers = np.flatnonzero(top_level & (t.kind == KIND_CODE[SERVER]))
    mgmt = np.array([bool(MANAGEMENT_HOST.search(f.name_of(int(d)))) for d in servers], bool)
    loose = np.flatnonzero(top_level & (t.kind == KIND_CODE[NIC]) & ~sharp)
    factory = np.array([is_factory(re.sub(r"\s+0x[0-9a-fA-F]{16}$", "", f.name_of(int(d)))) for d in loose], bool)
    adapters = int((t.alive & (t.parent >= 0) & (t.kind == KIND_CODE[NIC])).sum())
    cab, ad, top, leaf = _host_leaf_cables(f, sw, sharp)
    mgmt |= _ha_partners(servers, mgmt, top, leaf)
    compute = np.ones(n, bool)
    compute[servers[mgmt]] = False
    units, rails, off, ok = _units(f, cab, ad, top, leaf, n, compute)
    tier = device_tiers(f)
    leaves = np.zeros(n, bool)
    leaves[leaf] = True
    spines = np.flatnonzero(sw & ~leaves & (tier >= 2))
    return Structure(servers=tuple(servers[~mgmt].tolist()), management=tuple(servers[mgmt].tolist()),
                     unnamed=tuple(loose[factory].tolist()), loose=tuple(loose[~factory].tolist()),
                     sharp=tuple(np.flatnonzero(sharp).tolist()), adapters=adapters,
                     units=units if ok else (), rails=rails if ok else (), spines=tuple(spines.tolist()),
                     off_rail=off if ok else (), rail_optimised=ok)


def _ha_partners(servers: np.ndarray, mgmt: np.ndarray, top: np.ndarray, leaf: np.ndarray) -> np.ndarray:
    """Per server: cabled to exactly the leaves of a management host, with as many adapters (a UFM
    high-availability pair is cabled alike, and the standby often still has a default host name)."""
    sig: dict[int, tuple[int, ...]] = {}
    for h, lf in zip(top.tolist(), leaf.tolist(), strict=True):
        sig[h] = (*sig.get(h, ()), lf)
    mine = {tuple(sorted(sig.get(int(d), ()))) for d in servers[mgmt]} - {()}
    return np.array([tuple(sorted(sig.get(int(d), ()))) in mine for d in servers], bool)


def _units(f: Fabric, cab: np.ndarray, ad: np.ndarray, top: np.ndarray, leaf: np.ndarray, n: int,
           compute: np.ndarray) -> tuple[tuple[ScalableUnit, ...], tuple[Rail, ...], tuple[int, ...], bool]:
    """SUs, rails and off-rail cables; only ``compute`` hosts' adapters decide a leaf's rail."""
    if not len(cab):
        return (), (), (), False
    g = sp.coo_matrix((np.ones(len(top)), (top, leaf)), shape=(n, n)).tocsr()
    _, comp = connected_components(g, directed=False)
    # a leaf's rail: the adapter index most of the server adapters cabled to it have
    local = adapter_index(f)[ad]
    inside = (local >= 0) & compute[top]
    rail_of = np.full(n, -1, np.int64)
    if inside.any():
        pairs, counts = np.unique(np.stack([leaf[inside], local[inside]], axis=1), axis=0, return_counts=True)
        order = np.lexsort((pairs[:, 1], -counts, pairs[:, 0]))      # per leaf: most, then lowest index
        pairs = pairs[order]
        first = np.unique(pairs[:, 0], return_index=True)[1]
        rail_of[pairs[first, 0]] = pairs[first, 1]
    uleaves = np.unique(leaf)
    by_comp: dict[int, list[int]] = {}
    for d in uleaves.tolist():
        by_comp.setdefault(int(comp[d]), []).append(d)
    hosts_of: dict[int, list[int]] = {}
    for d in np.unique(top).tolist():
        hosts_of.setdefault(int(comp[d]), []).append(d)
    raw = []
    for c, ls in by_comp.items():
        ls.sort(key=lambda d: (rail_of[d] if rail_of[d] >= 0 else 1 << 20, natural_key(f.name_of(d))))
        raw.append((min(natural_key(f.name_of(d)) for d in ls), ls, sorted(hosts_of.get(c, []))))
    raw.sort(key=lambda r: r[0])
    units = tuple(ScalableUnit(f"su{i + 1}", tuple(ls), tuple(int(rail_of[d]) for d in ls), tuple(hs))
                  for i, (_k, ls, hs) in enumerate(raw))
    inside_cab = inside & (rail_of[leaf] >= 0)
    on = inside_cab & (local == rail_of[leaf])
    multi = any(len({r for r in u.rails if r >= 0}) >= 2 for u in units)
    ok = bool(multi and inside_cab.any() and on.sum() >= ON_RAIL_SHARE * inside_cab.sum())
    rails = tuple(Rail(k, f"rail{k}", tuple(d for u in units for d, r in zip(u.leaves, u.rails, strict=True)
                                             if r == k))
                  for k in sorted({r for u in units for r in u.rails if r >= 0}))
    off = tuple(sorted(cab[inside_cab & ~on].tolist()))
    return units, rails, off, ok


def store_units(f: Fabric) -> Structure:
    """Name the SUs of a rail-optimised design in ``meta["groups"]`` (``su1``: its leaves by rail),
    as a generator stores its groups, so grouping, layout and canvas show them; only when the SUs
    hold every switch below the top tier (what :func:`~fabricviz.generate.groups.stored_groups`
    accepts). Returns what was recognised."""
    s = recognise(f)
    if s.rail_optimised:
        tier = device_tiers(f)
        sw = switch_mask(f)
        top = int(tier[sw].max()) if sw.any() else 0
        below = set(np.flatnonzero(sw & (tier >= 1) & ((tier < top) | (top <= 1))).tolist())
        if below == {d for u in s.units for d in u.leaves}:
            f.meta["groups"] = [{"name": u.name, "switches": [f.name_of(d) for d in u.leaves]} for u in s.units]
    return s


def format_structure(s: Structure, f: Fabric) -> list[str]:
    """The lines ``fabricviz info`` prints about servers, rails and SUs."""
    lines = [f"servers: {len(s.servers):,} ({s.adapters:,} adapters in servers)"
             + (f"   unnamed adapters (one-NIC hosts): {len(s.unnamed):,}" if s.unnamed else "")
             + (f"   other lone adapters: {len(s.loose):,}" if s.loose else "")]
    if s.management:
        lines.append(f"management hosts (UFM): {', '.join(f.name_of(d) for d in s.management)}")
    if s.rail_optimised:
        lines.append(f"rail-optimised: {len(s.units)} scalable units, {len(s.rails)} rails, "
                     f"{len(s.spines)} spines" + (f", {len(s.off_rail)} cables off rail" if s.off_rail else ""))
        kind = f.devices_t.kind
        for u in s.units:
            nserv = sum(1 for d in u.hosts if kind[d] == KIND_CODE[SERVER])
            lines.append(f"  {u.name:<5} {nserv:,} servers + {len(u.hosts) - nserv:,} lone adapters, "
                         f"leaves on rails " + " ".join(str(r) if r >= 0 else "?" for r in u.rails))
        lines += [f"  off rail: {_cable_text(f, c)}" for c in s.off_rail[:8]]
    return lines


__all__ = ["ON_RAIL_SHARE", "Rail", "ScalableUnit", "Structure", "format_structure", "natural_key", "recognise",
           "adapter_index", "store_units"]
