"""Groups of a fabric as a person reads it: pods / scalable units / racks, the top tier, host blocks.

Found from the graph alone, so generated, hand-made and imported designs get the same answer:

* tiers are :func:`fabricviz.ib.tiers.device_tiers` (hosts 0, leaves 1, spines 2, ...);
* a **pod** is a connected component of the switches below the top tier (a 3-level fat tree's
  leaves and aggregation switches that share each other; a leaf-spine's single leaf, a "rack";
  a rail-optimised scalable unit's rail leaves when super-spines join the units), with the
  servers hanging under its leaves; the **top tier** (spines of a leaf-spine, cores of a fat
  tree) is one more group;
* a **host block** is the servers that connect to exactly the same set of leaves (the hosts of
  one leaf in a fat tree, the nodes of one scalable unit in a rail-optimised design); an NVLink
  rack's compute trays (an NVL72, :mod:`fabricviz.model.nvlink`) are a block of their own.

:func:`bundle` turns any "what stands for each device" mapping into bundles of cables (the
cables between two drawn things, with their count and aggregate bandwidth); the canvas draws
groups, host blocks or single devices and asks it for the lines between them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ..ib.sharp import sharp_mask
from ..ib.tiers import device_tiers, switch_mask
from ..model import Fabric, FabricError
from ..model.fabric import KIND_CODE, NIC
from ..model.nvlink import NvlinkDomain, nvlink_domains
from ..model.tech import rates_gbps

#: Names given to the top tier by how many switch tiers the fabric has.
TOP_NAMES = {1: "switches", 2: "spines", 3: "cores", 4: "super-spines"}


@dataclass(frozen=True)
class Grouping:
    """Groups and host blocks of one fabric state (arrays indexed by device id)."""

    tier: np.ndarray            # int64 per device: 0 servers (and their GPUs/NICs), 1 leaf, ...; -1 dead
    group: np.ndarray           # int64 per device: its group (children: their server's); -1 none
    names: tuple[str, ...]      # per group: "pod 3", "su2", "rack leaf07", "cores"
    kinds: tuple[str, ...]      # per group: "pod" | "rack" | "top" | "hosts"
    block: np.ndarray           # int64 per device: the host block of a server (and its children); -1
    block_names: tuple[str, ...]   # per block: "18 hosts" style labels are the canvas's; here "leaf07"
    block_size: np.ndarray      # end devices (servers, an imported fabric's adapters) per block
    block_group: np.ndarray     # the group each block belongs to
    top_tier: int               # highest switch tier (0: no switches)
    top_level: np.ndarray       # bool per device: alive and not inside a server
    block_hosts: np.ndarray | None = None   # hosts per block (an imported host's adapters once)
    block_kinds: tuple[str, ...] = ()       # per block: HOSTS, MANAGEMENT, UNNAMED or ADAPTERS

    @property
    def n_groups(self) -> int:
        return len(self.names)

    @property
    def n_blocks(self) -> int:
        return len(self.block_names)

    def members(self, g: int) -> np.ndarray:
        """Top-level device ids of group ``g``."""
        return np.flatnonzero((self.group == g) & self.top_level)


def _top_of(f: Fabric) -> np.ndarray:
    t = f.devices_t
    return np.where(t.parent >= 0, t.parent, np.arange(t.n)).astype(np.int64)


def cable_tops(f: Fabric, cids: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cable ids, top-level device of end a, of end b): a NIC's cable belongs to its server."""
    ct, pt = f.cables_t, f.ports_t
    if cids is None:
        cids = f.cable_ids()
    top = _top_of(f)
    return (cids, top[pt.device[ct.port_a[cids]]].astype(np.int64),
            top[pt.device[ct.port_b[cids]]].astype(np.int64))


def _prefix_name(names: list[str]) -> str | None:
    """A shared name prefix like ``su2-`` or ``pod3_`` (ending at a separator after a number)."""
    if len(names) < 2:
        return None
    first, last = min(names), max(names)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    m = re.match(r"^(.*?\d+)[-_./:]", first[:n] + ("-" if n == len(first) else ""))
    if m is None or not re.search(r"[A-Za-z]", m.group(1)):
        return None
    return m.group(1)


def _tier_name(names: list[str], count: int, tier: int) -> str:
    """``"576 cores"`` from names like core001..core576, else by the tier's number."""
    bases = {re.sub(r"[\d_.:-]+$", "", n) for n in names}
    base = bases.pop() if len(bases) == 1 else ""
    if not re.fullmatch(r"[A-Za-z][A-Za-z -]*", base):
        base = TOP_NAMES.get(tier, f"tier-{tier} switche")[:-1]
    return f"{count} {base}{'' if base.endswith('s') else 's'}"


#: Most channel adapters one server has; more sharing a host name are not one server.
MAX_ADAPTERS = 16


#: The adapter part of an ibnetdiscover node description, as the kernel names RDMA devices
#: (``mlx5_3``, ``hfi1_0``, ``bnxt_re1``, ``irdma0``) or as people write them (``HCA-2``, ``ib0``).
ADAPTER_NAME = re.compile(r"(?:mlx\d+|hfi\d+|qib|bnxt_re|irdma|ionic|efa|rxe|siw|hca|ca|ib)[-_]?\d+",
                          re.IGNORECASE)
_GUID_TAG = re.compile(r"\s+0x[0-9a-fA-F]{16}$")


def switch_components(f: Fabric) -> np.ndarray:
    """Per device id, the connected component of the switch-to-switch cables a switch is in
    (-1: not a switch); two subnets, or two islands of one file, get different numbers."""
    n = f.devices_t.n
    sw = switch_mask(f)
    _, a, b = cable_tops(f)
    k = sw[a] & sw[b]
    g = sp.coo_matrix((np.ones(int(k.sum())), (a[k], b[k])), shape=(n, n)).tocsr()
    _, comp = connected_components(g, directed=False)
    return np.where(sw, comp, -1).astype(np.int64)


def host_systems(f: Fabric, hosts: np.ndarray) -> np.ndarray:
    """Per device id, the server each end device of mask ``hosts`` belongs to (-1: not a host).

    A server is its own; the channel adapters of an imported fabric (top-level NICs) named
    ``"<host> <adapter>"``, as ibnetdiscover's node descriptions are (``"dgx01 mlx5_3"``), share
    the lowest id among their host's adapters, so a DGX's eight HCAs stay one server. Only a
    second word that names an adapter (:data:`ADAPTER_NAME`, distinct within the host) counts:
    unconfigured HCAs all read ``"MT4123 ConnectX6 Mellanox Technologies"`` and are not one
    server; adapters cabled into different switch components are never joined.
    """
    t = f.devices_t
    system = np.where(hosts, np.arange(t.n), -1)
    nics = np.flatnonzero(hosts & (t.kind == KIND_CODE[NIC]))
    if not len(nics):
        return system
    comp = switch_components(f)
    _, a, b = cable_tops(f)
    # each adapter's switch component (the lowest one it reaches; -1: cabled to no switch)
    reach = np.full(t.n, np.iinfo(np.int64).max, np.int64)
    for x, y in ((a, b), (b, a)):
        k = comp[y] >= 0
        np.minimum.at(reach, x[k], comp[y][k])
    reach[reach == np.iinfo(np.int64).max] = -1
    by_host: dict[tuple[str, int], dict[str, int]] = {}
    refused: set[tuple[str, int]] = set()
    for d, name in zip(nics.tolist(), [f.name_of(int(d)) for d in nics], strict=True):
        words = _GUID_TAG.sub("", name).split(None, 1)
        if len(words) != 2 or not ADAPTER_NAME.fullmatch(words[1]):
            continue
        key = (words[0], int(reach[d]))
        adapters = by_host.setdefault(key, {})
        if words[1].lower() in adapters:
            refused.add(key)                 # one adapter name twice: not one host's adapters
        adapters[words[1].lower()] = d
    for key, adapters in by_host.items():
        members = list(adapters.values())
        if key not in refused and 2 <= len(members) <= MAX_ADAPTERS:
            system[members] = min(members)
    return system


#: Kinds of host block: servers cabled alike; a unit's management hosts (UFM and its standby,
#: cabled like it); its lone adapters with only a factory description; its other one-NIC hosts.
HOSTS, MANAGEMENT, UNNAMED, ADAPTERS = "hosts", "management", "unnamed", "adapters"
#: Host names of UFM appliances and management nodes (UFM's own and common site names).
MANAGEMENT_HOST = re.compile(r"ufm|mgmt|(?:^|[-_.])sm\d*(?:$|[-_.])", re.IGNORECASE)
#: Factory NodeDescriptions of Mellanox/NVIDIA adapters whose host never set one:
#: ``"MT4129 ConnectX7   Mellanox Technologies"``, ``"MT4123 ConnectX6 Mellanox Technologies"``,
#: ``"Mellanox Technologies ConnectX-7"`` and the like (the firmware's default).
FACTORY_DESC = re.compile(r"^(?:MT\d+\b.*|.*\bMellanox Technologies\b.*|.*\bNVIDIA\b.*ConnectX.*)$",
                          re.IGNORECASE)


def _blocks(f: Fabric, systems: np.ndarray, sigs: list[tuple[int, ...]], group: np.ndarray, server: np.ndarray,
            system: np.ndarray) -> tuple[np.ndarray, list[tuple[int, ...]], list[str]]:
    """Per system its block, per block its leaves (the first block's of a merge) and kind.

    Servers cabled to the same leaves are a block. A block holding a management host is the
    unit's management block; lone adapters (a top-level NIC that is a host of its own) beside a
    unit's servers are not a block per leaf but one per unit: its unnamed adapters, its other
    one-NIC hosts (a unit of lone adapters only keeps a block per leaf: they are its hosts)."""
    t = f.devices_t
    members = np.bincount(system[server & (system >= 0)], minlength=t.n)
    lone = (t.kind[systems] == KIND_CODE[NIC]) & (members[systems] == 1)
    names = [f.name_of(int(d)) for d in systems]
    mgmt = np.array([not lone[i] and bool(MANAGEMENT_HOST.search(n)) for i, n in enumerate(names)], bool)
    factory = np.array([bool(FACTORY_DESC.match(" ".join(_GUID_TAG.sub("", n).split()))) for n in names], bool)
    sig_index: dict[tuple[int, ...], int] = {}
    sig_of = np.array([sig_index.setdefault(s, len(sig_index)) for s in sigs], np.int64)
    n_sig = len(sig_index)
    any_mgmt = np.bincount(sig_of, weights=mgmt, minlength=n_sig) > 0
    all_lone = np.bincount(sig_of, weights=~lone, minlength=n_sig) == 0
    all_factory = np.bincount(sig_of, weights=lone & ~factory, minlength=n_sig) == 0
    first = list(sig_index)
    sig_group = np.array([group[s[0]] for s in first], np.int64)
    # lone adapters beside a unit's servers; where there are no servers they are its hosts
    served = np.isin(sig_group, sig_group[~any_mgmt & ~all_lone])
    lone_kind = np.where(all_factory, UNNAMED, ADAPTERS)
    kinds = np.where(any_mgmt, MANAGEMENT, np.where(all_lone & served & (sig_group >= 0), lone_kind, HOSTS))
    key_index: dict[tuple, int] = {}
    remap = np.empty(n_sig, np.int64)
    for i, (s, k) in enumerate(zip(first, kinds.tolist(), strict=True)):
        remap[i] = key_index.setdefault((k, int(sig_group[i])) if k != HOSTS else (k, s), len(key_index))
    out_leaves: list[tuple[int, ...]] = [()] * len(key_index)
    out_kinds = [HOSTS] * len(key_index)
    for i in range(n_sig - 1, -1, -1):
        out_leaves[remap[i]], out_kinds[remap[i]] = first[i], str(kinds[i])
    return remap[sig_of], out_leaves, out_kinds


def stored_groups(f: Fabric, pod_sw: np.ndarray) -> tuple[np.ndarray, list[str]] | None:
    """The groups a generator stored in ``meta["groups"]`` (``[{"name", "switches": [names]}]``):
    a dragonfly's groups, a 3-D torus's planes, which the graph alone cannot tell apart (every
    router is a leaf, all in one component). Per ``pod_sw`` switch its group, and the names;
    None (infer from the graph) when there are none or they no longer fit the design (a switch
    renamed, removed or added): exactly the switches ``pod_sw``, each in one group."""
    spec = f.settings.groups
    if not spec or not len(pod_sw):
        return None
    at = np.full(f.devices_t.n, -1, np.int64)
    names: list[str] = []
    for g, entry in enumerate(spec):
        ids = [f.find(m) for m in entry.switches]
        if any(d is None for d in ids):
            return None
        ids_a = np.array(ids, np.int64)
        if (at[ids_a] >= 0).any():
            return None
        at[ids_a] = g
        names.append(entry.name)
    mine = np.zeros(f.devices_t.n, bool)
    mine[pod_sw] = True
    if not np.array_equal(at >= 0, mine):
        return None
    return at[pod_sw], names


def find_groups(f: Fabric) -> Grouping:
    """Pods, the top tier and host blocks of ``f`` (see the module doc)."""
    t = f.devices_t
    n = t.n
    tier = device_tiers(f).astype(np.int64)
    top_level = t.alive & (t.parent < 0)
    top = _top_of(f)
    child = t.alive & (t.parent >= 0)
    tier[child] = np.where(tier[top[child]] >= 0, 0, -1)
    sw = switch_mask(f)
    top_tier = int(tier[sw].max()) if sw.any() else 0
    _, a, b = cable_tops(f)
    group = np.full(n, -1, np.int64)
    names: list[str] = []
    kinds: list[str] = []
    # pods: components of the switches below the top tier (all switches when there is one tier)
    below = sw & (tier >= 1) & ((tier < top_tier) | (top_tier <= 1))
    # end devices: servers, and the channel adapters an imported fabric has (no server around
    # them); a SHARP aggregation node is part of its switch, not a host
    server = top_level & ~sw & ~sharp_mask(f)
    system = host_systems(f, server)
    # servers join the leaves they hang under (a rail-optimised unit's 8 rail leaves are one pod),
    # the adapters of one imported server join each other
    keep = (below[a] | server[a]) & (below[b] | server[b])
    same = np.flatnonzero(server & (system != np.arange(n)))
    g = sp.coo_matrix((np.ones(int(keep.sum()) + len(same)),
                       (np.concatenate([a[keep], same]), np.concatenate([b[keep], system[same]]))),
                      shape=(n, n)).tocsr()
    _, comp = connected_components(g, directed=False)
    pod_sw = np.flatnonzero(below)
    stored = stored_groups(f, pod_sw)
    if stored is not None:                  # a generator's own groups (a dragonfly's, a torus's planes)
        group[pod_sw] = stored[0]
        names += stored[1]
        kinds += ["pod"] * len(stored[1])
    elif len(pod_sw):
        labels, first = np.unique(comp[pod_sw], return_index=True)
        # order pods by their first switch's id (generators create pods in order)
        order = labels[np.argsort(pod_sw[first], kind="stable")]
        index = np.full(comp.max() + 1, -1, np.int64)
        index[order] = np.arange(len(order))
        group[pod_sw] = index[comp[pod_sw]]
        sw_names = f.names_of(pod_sw) if hasattr(f, "names_of") else [f.name_of(int(d)) for d in pod_sw]
        by_pod: list[list[str]] = [[] for _ in order]
        for d, name in zip(group[pod_sw].tolist(), sw_names, strict=True):
            by_pod[d].append(name)
        for i, members in enumerate(by_pod):
            if len(members) == 1:
                names.append(f"rack {members[0]}")
                kinds.append("rack")
            else:
                pre = _prefix_name(members)
                names.append(pre if pre else f"pod {i + 1}")
                kinds.append("pod")
    if top_tier >= 2:
        tops = np.flatnonzero(sw & (tier == top_tier))
        group[tops] = len(names)
        names.append(_tier_name([f.name_of(int(d)) for d in tops[:64]], len(tops), top_tier))
        kinds.append("top")
    # servers: the group and the block of the leaves they connect to
    sa = server[a] & sw[b] & (tier[b] == 1)
    sb = server[b] & sw[a] & (tier[a] == 1)
    hs = np.concatenate([a[sa], b[sb]])
    hl = np.concatenate([b[sa], a[sb]])
    block = np.full(n, -1, np.int64)
    block_names: list[str] = []
    block_size = np.zeros(0, np.int64)
    block_hosts = np.zeros(0, np.int64)
    block_group = np.zeros(0, np.int64)
    block_kinds: list[str] = []
    if len(hs):
        pair = np.unique(np.stack([system[hs], hl], axis=1), axis=0)
        hs, hl = pair[:, 0], pair[:, 1]
        systems, start = np.unique(hs, return_index=True)
        # a server's signature: the sorted tuple of its (its system's) leaves
        sigs = [tuple(x) for x in np.split(hl, start[1:])]
        blk, leaves, block_kinds = _blocks(f, systems, sigs, group, server, system)
        sys_block = np.full(n, -1, np.int64)
        sys_block[systems] = blk
        servers = np.flatnonzero(server & (sys_block[np.maximum(system, 0)] >= 0) & (system >= 0))
        block[servers] = sys_block[system[servers]]
        blk = block[servers]
        block_size = np.bincount(blk, minlength=len(leaves)).astype(np.int64)
        # hosts per block: systems (an imported DGX's eight HCAs are one host), not end devices
        block_hosts = np.bincount(sys_block[systems], minlength=len(leaves)).astype(np.int64)
        block_group = np.array([group[s[0]] for s in leaves], np.int64)
        for s, bg, kind in zip(leaves, block_group.tolist(), block_kinds, strict=True):
            block_names.append(f.name_of(s[0]) if (len(s) == 1 and kind == HOSTS) or bg < 0 else names[bg])
        group[servers] = block_group[blk]
    racks = rack_domains(f) if len(block_names) else []
    if racks:
        block, block_names, block_size, block_hosts, block_group = _rack_blocks(
            racks, block, block_names, block_group, group)
        block_kinds = [HOSTS] * len(block_names)
    lone = server & (group < 0)
    if lone.any():
        group[lone] = len(names)
        names.append(f"hosts ({int(lone.sum())})")
        kinds.append("hosts")
    group[child] = group[top[child]]
    block[child] = block[top[child]]
    return Grouping(tier=tier, group=group, names=tuple(names), kinds=tuple(kinds), block=block,
                    block_names=tuple(block_names), block_size=block_size, block_group=block_group,
                    top_tier=top_tier, top_level=top_level, block_hosts=block_hosts,
                    block_kinds=tuple(block_kinds))


def rack_domains(f: Fabric) -> list[NvlinkDomain]:
    """The design's NVLink rack domains (an NVL72's trays); none when its setting is refused."""
    try:
        return [d for d in nvlink_domains(f) if d.spec.rack and d.explicit]
    except FabricError:                       # the inspector and lint say what is wrong
        return []


def _rack_blocks(racks: list[NvlinkDomain], block: np.ndarray, names: list[str], block_group: np.ndarray,
                 group: np.ndarray) -> tuple[np.ndarray, list[str], np.ndarray, np.ndarray, np.ndarray]:
    """An NVLink rack's compute trays (an NVL72) are a host block of their own, named after the
    rack, in the group their first tray is in; blocks left empty go (numbers close up)."""
    block, names, block_group = block.copy(), list(names), block_group.copy()
    for d in racks:
        sids = d.servers[block[d.servers] >= 0]
        if len(sids):
            block[sids] = len(names)
            names.append(d.name)
            block_group = np.append(block_group, group[sids[0]])
    used = np.unique(block[block >= 0])
    remap = np.full(len(names), -1, np.int64)
    remap[used] = np.arange(len(used))
    block = np.where(block >= 0, remap[np.maximum(block, 0)], -1)
    size = np.bincount(block[block >= 0], minlength=len(used)).astype(np.int64)
    return block, [names[i] for i in used.tolist()], size, size.copy(), block_group[used]


@dataclass(frozen=True)
class Bundles:
    """Cables grouped by the two drawn things they join.

    Bundle ``k`` joins nodes ``a[k]`` and ``b[k]`` (``a < b``) and stands for cables
    ``cables[start[k]:start[k + 1]]``; ``of_cable[i]`` is the bundle of ``cable_ids[i]`` (-1: both
    ends inside one drawn thing, or not drawn)."""

    a: np.ndarray
    b: np.ndarray
    count: np.ndarray           # cables per bundle
    gbps: np.ndarray            # aggregate bandwidth per bundle (Gb/s, one direction)
    rate_gbps: np.ndarray       # the members' rate when all equal, else 0
    start: np.ndarray
    cables: np.ndarray          # cable ids ordered by bundle
    cable_ids: np.ndarray       # the cables considered, in the caller's order
    of_cable: np.ndarray

    def __len__(self) -> int:
        return len(self.a)

    def members(self, k: int) -> np.ndarray:
        return self.cables[self.start[k]:self.start[k + 1]]

    def label(self, k: int) -> str:
        """``"64 × 400G"``, or ``"12 cables, 3.2T"`` when the members' rates differ."""
        c = int(self.count[k])
        r = float(self.rate_gbps[k])
        if r > 0:
            return f"{c} × {_rate_text(r)}"
        return f"{c} cables, {_rate_text(float(self.gbps[k]))}"

    def reduce(self, values: np.ndarray, how: str = "max") -> np.ndarray:
        """Per bundle, the hottest (``max``) or ``mean`` of per-cable ``values`` (aligned with
        ``cable_ids``); NaN values (no data) are ignored; a bundle with none gets NaN."""
        out = np.full(len(self), np.nan)
        ok = (self.of_cable >= 0) & ~np.isnan(values)
        k, v = self.of_cable[ok], values[ok]
        if how == "max":
            acc = np.full(len(self), -np.inf)
            np.maximum.at(acc, k, v)
            has = np.isfinite(acc)
            out[has] = acc[has]
        elif how == "mean":
            s = np.bincount(k, weights=v, minlength=len(self))
            c = np.bincount(k, minlength=len(self))
            out[c > 0] = s[c > 0] / c[c > 0]
        else:
            raise ValueError(f"reduce: how={how!r} (use max or mean)")
        return out


def _rate_text(gbps: float) -> str:
    if gbps >= 1000:
        t = gbps / 1000
        return f"{t:.0f}T" if t == int(t) else f"{t:.1f}T"
    return f"{gbps:.0f}G" if gbps == int(gbps) else f"{gbps:g}G"


def cable_gbps(f: Fabric, cids: np.ndarray) -> np.ndarray:
    """Each cable's data rate (Gb/s, one direction)."""
    ct = f.cables_t
    return rates_gbps(ct.tech[cids], ct.speed[cids], ct.width[cids]).astype(np.float64)


def bundle(f: Fabric, node: np.ndarray, cids: np.ndarray | None = None) -> Bundles:
    """Bundle cables by ``node[top-level device]`` (what draws each device: itself, its host
    block, its group — any integers, -1 for not drawn). Cables whose two ends map to one node
    (inside a group) or to -1 belong to no bundle."""
    cids, a, b = cable_tops(f, cids)
    na, nb = node[a], node[b]
    ok = (na >= 0) & (nb >= 0) & (na != nb)
    lo, hi = np.minimum(na, nb), np.maximum(na, nb)
    rate = cable_gbps(f, cids)
    of = np.full(len(cids), -1, np.int64)
    sel = np.flatnonzero(ok)
    if not len(sel):
        z = np.zeros(0, np.int64)
        return Bundles(z, z, z, np.zeros(0), np.zeros(0), np.zeros(1, np.int64), z, cids, of)
    keys = np.stack([lo[sel], hi[sel]], axis=1)
    uniq, inv = np.unique(keys, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    of[sel] = inv
    order = np.argsort(inv, kind="stable")
    count = np.bincount(inv, minlength=len(uniq)).astype(np.int64)
    gbps = np.bincount(inv, weights=rate[sel], minlength=len(uniq))
    rmin = np.full(len(uniq), np.inf)
    rmax = np.full(len(uniq), -np.inf)
    np.minimum.at(rmin, inv, rate[sel])
    np.maximum.at(rmax, inv, rate[sel])
    return Bundles(a=uniq[:, 0], b=uniq[:, 1], count=count, gbps=gbps,
                   rate_gbps=np.where(rmin == rmax, rmin, 0.0),
                   start=np.concatenate([[0], np.cumsum(count)]).astype(np.int64),
                   cables=cids[sel][order], cable_ids=cids, of_cable=of)


__all__ = ["ADAPTERS", "ADAPTER_NAME", "Bundles", "FACTORY_DESC", "Grouping", "HOSTS", "MANAGEMENT", "MANAGEMENT_HOST",
           "MAX_ADAPTERS", "TOP_NAMES", "UNNAMED", "bundle", "cable_gbps", "cable_tops",
           "find_groups", "host_systems", "rack_domains", "stored_groups", "switch_components"]
