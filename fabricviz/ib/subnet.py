"""The InfiniBand subnet as the subnet manager sees it, in arrays.

From a :class:`~fabricviz.model.Fabric` this builds what OpenSM holds after a
heavy sweep: the nodes and end ports reachable from the SM port over cabled,
enabled IB ports, the switches in OpenSM's iteration order, per-switch port
tables (who is on the other side of port p), and the end ports that need LIDs.

OpenSM keeps switches and ports in ``cl_qmap``s keyed by the GUID *in network
byte order*; on a little-endian host that map iterates in the order of the
byte-swapped GUID. LID assignment and routing both walk those maps, so every
"GUID order" here is that order (:func:`osm_order`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import numpy as np

from ..model import Fabric, FabricError
from ..model.cabling import PORT_DISABLED
from ..model.fabric import IB_SWITCH, KIND_CODE, NIC
from ..model.tech import TECH_IB_CODE
from .kernel_progress import warming

NO_PATH = 255          # OSM_NO_PATH: LFT entry for an unreachable LID


def osm_order(guids: np.ndarray) -> np.ndarray:
    """Indices that sort ``guids`` the way OpenSM's GUID-keyed maps iterate (x86)."""
    keys = np.asarray(guids, dtype=np.uint64).astype(">u8").view("<u8")
    return np.argsort(keys, kind="stable")


@dataclass
class Subnet:
    """A discovered IB subnet. Index spaces: ``sw`` = switch index (OpenSM order)."""

    fabric: Fabric
    sm_port: int                         # model port id of the SM's port (CA port or a switch's port 1…)
    sm_node: int                         # device id of the SM's node
    switches: np.ndarray                 # device ids, OpenSM order
    sw_guid: np.ndarray                  # node GUIDs, same order
    sw_nports: np.ndarray                # external ports per switch
    nbr_dev: np.ndarray                  # [S, P+1] device id across port p (-1: none)
    nbr_port: np.ndarray                 # [S, P+1] port number across port p
    nbr_sw: np.ndarray                   # [S, P+1] switch index across port p (-1: not a switch)
    ca_ports: np.ndarray                 # discovered CA end ports (model port ids), OpenSM port order
    ca_guid: np.ndarray                  # their port GUIDs
    ca_sw: np.ndarray                    # switch index each CA port is cabled to (-1: none)
    ca_sw_port: np.ndarray               # that switch's port number
    undiscovered: list[str] = field(default_factory=list)   # IB devices the SM cannot reach
    sw_index: dict[int, int] = field(default_factory=dict)

    @property
    def num_switches(self) -> int:
        return len(self.switches)

    @property
    def max_ports(self) -> int:
        return self.nbr_dev.shape[1] - 1

    def switch_name(self, s: int) -> str:
        return self.fabric.name_of(int(self.switches[s]))


def _ib_link_ok(f: Fabric, p: int) -> bool:
    pt = f.ports_t
    c = int(pt.cable[p])
    return c >= 0 and int(pt.tech[p]) == TECH_IB_CODE and int(pt.state[p]) != PORT_DISABLED


def default_sm_port(f: Fabric) -> int:
    """Where the SM sits unless told: ``meta["sm_node"]`` (imported files: the file's
    first node, where ibsim puts it), else the first cabled IB NIC port, else a switch."""
    name = f.settings.sm_node
    found = f.find(name) if name is not None else None
    if found is not None:
        return sm_port_of(f, found)
    t = f.devices_t
    for kind in (NIC, IB_SWITCH):
        for d in np.flatnonzero(t.alive & (t.kind == KIND_CODE[kind])).tolist():
            first, n = int(t.first_port[d]), int(t.nports[d])
            for p in range(first, first + n):
                if _ib_link_ok(f, p):
                    return p
    raise FabricError("no cabled InfiniBand port for the subnet manager to run on")


def sm_port_of(f: Fabric, device: int) -> int:
    """The SM port on ``device``: a CA's first cabled IB port, or a switch's (port 0 → its first port)."""
    d = f.device(device)
    if d.kind == "server":          # a host: the SM runs on its first InfiniBand NIC
        nics = [n for n in d.nics if n.is_ib]
        d = nics[0] if nics else d
    elif d.kind == "gpu" and d.nic is not None:
        d = d.nic
    if not d.is_ib:
        raise FabricError(f"{d.name}: the subnet manager needs an InfiniBand CA or switch")
    for p in d.port_ids.tolist():
        if _ib_link_ok(f, p):
            return p
    if d.kind == IB_SWITCH and len(d.port_ids):
        return int(d.port_ids[0])
    raise FabricError(f"{d.name}: no cabled InfiniBand port for the subnet manager")


def peer_ports(f: Fabric) -> np.ndarray:
    """Port id across the cable of every port (-1: none), as one array."""
    pt, ct = f.ports_t, f.cables_t
    peer = np.full(pt.n, -1, np.int64)
    live = np.flatnonzero(ct.alive)
    peer[ct.port_a[live]] = ct.port_b[live]
    peer[ct.port_b[live]] = ct.port_a[live]
    return peer


def discover(f: Fabric, sm: int | str | None = None) -> Subnet:
    """What a heavy sweep from the SM finds: BFS over cabled, enabled IB links.

    ``sm``: a device name/id (its first cabled port) or None for the default.
    CAs do not forward, so the search goes on only through switches.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import breadth_first_order
    if sm is None:
        sm_port = default_sm_port(f)
    else:
        dev = f.device_id(sm) if isinstance(sm, str) else int(sm)
        sm_port = sm_port_of(f, dev)
    t, pt = f.devices_t, f.ports_t
    sm_node = int(pt.device[sm_port])
    is_sw = t.alive & (t.kind == KIND_CODE[IB_SWITCH])
    peer = peer_ports(f)
    ok = (pt.cable >= 0) & (pt.tech == TECH_IB_CODE) & (pt.state != PORT_DISABLED)
    live = ok & (peer >= 0)
    live[live] &= ok[peer[live]]
    dev_of = pt.device.astype(np.int64)
    # directed node graph: a switch reaches whatever is across its live ports
    src = np.flatnonzero(live & is_sw[dev_of])
    n = t.n
    g = coo_matrix((np.ones(len(src)), (dev_of[src], dev_of[peer[src]])), shape=(n, n)).tocsr()
    reached = np.zeros(n, bool)
    reached_ca_ports = set()
    starts = [sm_node]
    if not is_sw[sm_node]:
        reached_ca_ports.add(sm_port)
        reached[sm_node] = True
        starts = []
        if live[sm_port]:
            nd = int(dev_of[peer[sm_port]])
            reached[nd] = True
            if is_sw[nd]:
                starts.append(nd)
            else:
                reached_ca_ports.add(int(peer[sm_port]))
    for st in starts:
        order = breadth_first_order(g, st, directed=True, return_predecessors=False)
        reached[order] = True
    sws = np.flatnonzero(reached & is_sw)
    # CA ports found from a reached switch's live port
    sw_ports = np.flatnonzero(live & reached[dev_of] & is_sw[dev_of])
    far = peer[sw_ports]
    ca_far = far[~is_sw[dev_of[far]]]
    reached_ca_ports.update(int(q) for q in ca_far.tolist())
    guids = t.guid[sws].astype(np.uint64)
    order = osm_order(guids)
    sws, guids = sws[order], guids[order]
    nports = t.nports[sws].astype(np.int64)
    P = int(nports.max()) if len(sws) else 0
    S = len(sws)
    nbr_dev = np.full((S, P + 1), -1, np.int64)
    nbr_port = np.zeros((S, P + 1), np.int64)
    if S:
        k = np.arange(P)[None, :]
        pid = t.first_port[sws].astype(np.int64)[:, None] + k
        valid = k < nports[:, None]
        pid = np.where(valid, pid, 0)
        lv = valid & live[pid]
        q = np.where(lv, peer[pid], 0)
        nbr_dev[:, 1:] = np.where(lv, dev_of[q], -1)
        nbr_port[:, 1:] = np.where(lv, pt.num[q], 0)
    sw_index = {int(d): i for i, d in enumerate(sws.tolist())}
    idx_of = np.full(n, -1, np.int64)
    idx_of[sws] = np.arange(S)
    nbr_sw = np.where(nbr_dev >= 0, idx_of[np.maximum(nbr_dev, 0)], -1)
    ca = np.array(sorted(reached_ca_ports), dtype=np.int64)
    ca_guid = pt.guid[ca].astype(np.uint64)
    o = osm_order(ca_guid)
    ca, ca_guid = ca[o], ca_guid[o]
    ca_peer = peer[ca] if len(ca) else np.zeros(0, np.int64)
    has_sw = (ca_peer >= 0) & live[ca]
    has_sw[has_sw] &= is_sw[dev_of[ca_peer[has_sw]]]
    ca_sw = np.where(has_sw, idx_of[dev_of[np.maximum(ca_peer, 0)]], -1)
    ca_sw_port = np.where(has_sw, pt.num[np.maximum(ca_peer, 0)], 0).astype(np.int64)
    ib_devs = np.flatnonzero(t.alive & (is_sw | ((t.kind == KIND_CODE[NIC]) & (t.guid != 0))))
    missing = [f.name_of(int(d)) for d in ib_devs[~reached[ib_devs]].tolist()]
    return Subnet(f, sm_port, sm_node, sws, guids, nports, nbr_dev, nbr_port, nbr_sw,
                  ca, ca_guid, ca_sw, ca_sw_port, missing, sw_index)


def switch_distances(sn: Subnet) -> np.ndarray:
    """Hop distances between switches over switch-to-switch links, [S, S] uint8 (255 = none).

    OpenSM's min-hop matrix between switches; one bit-parallel breadth-first search for all
    sources (:func:`~.kernels.all_pairs_hops`, compiled, GIL released) from
    :data:`COMPILED_FROM_SWITCHES` switches on, scipy's BFS below.
    """
    from scipy.sparse import coo_matrix
    S = sn.num_switches
    rows, cols = np.nonzero(sn.nbr_sw >= 0)
    dst = sn.nbr_sw[rows, cols]
    keep = dst != rows
    a, b = rows[keep], dst[keep]
    g = coo_matrix((np.ones(2 * len(a), np.int8), (np.concatenate([a, b]), np.concatenate([b, a]))),
                   shape=(S, S)).tocsr()
    if (S < COMPILED_FROM_SWITCHES and not numba_loaded()) or warming():   # scipy's BFS: the same hops
        from scipy.sparse.csgraph import shortest_path
        d = shortest_path(g, unweighted=True, directed=False)
        return np.where(np.isfinite(d), d, NO_PATH).astype(np.uint8)
    from .kernels import all_pairs_hops
    return all_pairs_hops(g.indptr.astype(np.int64), g.indices.astype(np.int64), S)


#: Switches from which :func:`switch_distances` runs the compiled BFS (numba loads once per process).
COMPILED_FROM_SWITCHES = 256


def numba_loaded() -> bool:
    """numba is imported in this process already (its ~0.3–0.5 s load is paid) and the kernels
    are not being compiled in the background (:func:`.kernel_progress.warming`: meanwhile the numpy and
    scipy paths route, with the same results)."""
    return "numba" in sys.modules and not warming()
