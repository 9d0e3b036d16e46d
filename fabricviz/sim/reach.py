"""Which hosts a traffic run can reach, and why the others cannot.

A run goes over the reachable part of a design, so one lone server does not stop
a workload on the rest. Per NIC (SHARP aggregation nodes aside):

* ``not cabled`` — the NIC has no cabled port;
* InfiniBand: a host needs a LID and routes from the subnet manager, so it is
  reachable when the SM's sweep (:func:`fabricviz.ib.subnet.discover`) finds its
  first cabled port; otherwise ``no route from the SM's subnet`` (a switch
  island the SM cannot reach, a disabled port);
* Ethernet (ECMP): the switch island (switches joined by live cables) holding
  the most NICs carries the run; a NIC on any other island has ``no path``.

A GPU is reachable when its bound NIC is. A host (a server, or a NIC outside
any server) is reported once when none of its NICs is reachable; when only
some are, each unreachable NIC that a GPU sends through, or that sits on an
island, is reported by its own name (an uncabled spare NIC is no rank anyway, so it is not
named, but it is out: flows given to it, e.g. a workload made before its cable was pulled, drop).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..ib.sharp import sharp_mask
from ..model import Fabric
from ..model.fabric import KIND_CODE
from ..model.tech import TECH_IB_CODE
from .links import SWITCH_CODES

NOT_CABLED = "not cabled"
NO_SM_ROUTE = "no route from the SM's subnet"
NO_PATH = "no path"
#: Hosts named in :func:`left_out_line` before "… and N more".
SHOWN = 5


@dataclass(frozen=True)
class Unreachable:
    """A host (or one NIC of a host) left out of a run, and why."""

    device: int      # server id, or the NIC id when it stands alone or only it is out
    name: str
    reason: str      # NOT_CABLED, NO_SM_ROUTE or NO_PATH


@dataclass(frozen=True)
class Reach:
    """Per device id, ``out``: a NIC or bound GPU left out of the run (a flow touching it is
    dropped); ``left_out``: the hosts behind those devices with the reason, in id order."""

    out: np.ndarray
    left_out: tuple[Unreachable, ...]
    scope: Any = None        # the run's partition (:class:`~.partitioned.PartitionScope`), None: no P_Key check

    def keep(self, devices: np.ndarray) -> np.ndarray:
        """Mask of ``devices`` a run can use (ids outside the table are kept: checked later)."""
        d = np.asarray(devices, np.int64)
        inside = (d >= 0) & (d < len(self.out))
        return ~(inside & self.out[np.where(inside, d, 0)])

    def line(self) -> str:
        """One line naming the left-out hosts ('' when none); see :func:`left_out_line`."""
        return left_out_line(self.left_out)


def left_out_line(left_out: tuple[Unreachable, ...] | list[Unreachable], shown: int = SHOWN) -> str:
    """``2 hosts unreachable, left out of the run: srv98 (no path), srv99 (not cabled)``;
    past ``shown`` hosts it ends ``, … and N more``."""
    n = len(left_out)
    if not n:
        return ""
    names = ", ".join(f"{u.name} ({u.reason})" for u in list(left_out)[:shown])
    more = f", … and {n - shown:,} more" if n > shown else ""
    return f"{n:,} host{'' if n == 1 else 's'} unreachable, left out of the run: {names}{more}"


def fabric_tech(fabric: Fabric) -> str:
    """``ib`` when most cables run InfiniBand, else ``eth``."""
    ct = fabric.cables_t
    alive = ct.alive
    if not alive.any():
        return "eth"
    return "ib" if np.mean(ct.tech[alive] == TECH_IB_CODE) >= 0.5 else "eth"


def nic_ports(fabric: Fabric) -> np.ndarray:
    """Per device id: its first cabled port id (-1 if none), the port routes leave by."""
    t, pt = fabric.devices_t, fabric.ports_t
    out = np.full(t.n, -1, np.int64)
    cabled = np.flatnonzero(pt.cable >= 0)
    dev = pt.device[cabled].astype(np.int64)
    order = np.lexsort((cabled, dev))
    dev, cabled = dev[order], cabled[order]
    first = np.ones(len(dev), bool)
    first[1:] = dev[1:] != dev[:-1]
    out[dev[first]] = cabled[first]
    return out


def _sm_reached(fabric: Fabric, ports: np.ndarray, subnet) -> np.ndarray:
    """Mask of ``ports`` the SM's sweep finds (they get LIDs and routes)."""
    if subnet is None:
        from ..ib.routing import default_sm
        from ..ib.subnet import discover
        subnet = discover(fabric, default_sm(fabric))
    # CAs do not forward, so a CA the sweep finds is on a switch of the subnet or cabled
    # straight to the SM's own CA
    return np.isin(ports, np.asarray(subnet.ca_ports, np.int64))


def _main_island(fabric: Fabric, nics: np.ndarray, ports: np.ndarray) -> np.ndarray:
    """Mask of cabled ``nics`` on the switch island with the most NICs (ties: lowest NIC id)."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components
    t, pt, ct = fabric.devices_t, fabric.ports_t, fabric.cables_t
    live = np.flatnonzero(ct.alive)
    a = pt.device[ct.port_a[live]].astype(np.int64)
    b = pt.device[ct.port_b[live]].astype(np.int64)
    is_sw = np.isin(t.kind, SWITCH_CODES)
    nic = t.kind == KIND_CODE["nic"]
    join = (is_sw[a] & is_sw[b]) | (nic[a] & nic[b])      # switch–switch, or NIC–NIC direct
    g = sp.coo_matrix((np.ones(int(join.sum())), (a[join], b[join])), shape=(t.n, t.n))
    _, label = connected_components(g, directed=False)
    cabled = ports >= 0
    peer = np.full(len(nics), -1, np.int64)
    c = pt.cable[ports[cabled]].astype(np.int64)
    far = np.where(ct.port_a[c] == ports[cabled], ct.port_b[c], ct.port_a[c])
    peer[cabled] = pt.device[far]
    attach = np.where(cabled & (peer >= 0) & is_sw[np.maximum(peer, 0)], peer, nics)
    isl = label[attach]
    if not cabled.any():
        return cabled
    counts = np.bincount(isl[cabled], minlength=int(label.max()) + 1)
    best = counts.max()
    first_nic = np.full(len(counts), np.iinfo(np.int64).max)
    np.minimum.at(first_nic, isl[cabled], nics[cabled])
    main = int(np.argmin(np.where(counts == best, first_nic, np.iinfo(np.int64).max)))
    return cabled & (isl == main)


def host_reach(fabric: Fabric, tech: str | None = None, subnet=None) -> Reach:
    """Who a run on ``fabric`` can reach (see module doc). ``tech``: ``ib`` or ``eth`` (default:
    :func:`fabric_tech`); ``subnet``: an InfiniBand :class:`~fabricviz.ib.subnet.Subnet`
    already discovered (a routing's), else the default SM's sweep runs here."""
    t = fabric.devices_t
    tech = tech or fabric_tech(fabric)
    nics = np.flatnonzero(t.alive & (t.kind == KIND_CODE["nic"]) & ~sharp_mask(fabric))
    ports = nic_ports(fabric)[nics]
    cabled = ports >= 0
    if tech == "ib":
        ok = (cabled & _sm_reached(fabric, ports, subnet)) if cabled.any() else cabled
        island = NO_SM_ROUTE
    else:
        ok = _main_island(fabric, nics, ports)
        island = NO_PATH
    gpus = np.flatnonzero(t.alive & (t.kind == KIND_CODE["gpu"]) & (t.bound >= 0))
    bound = np.zeros(t.n, bool)
    bound[t.bound[gpus]] = True
    parent = t.parent[nics].astype(np.int64)
    in_server = (parent >= 0) & (t.kind[np.maximum(parent, 0)] == KIND_CODE["server"])
    host = np.where(in_server, parent, nics)
    _, h = np.unique(host, return_inverse=True)
    bad = ~ok
    whole = np.bincount(h, weights=bad) == np.bincount(h)      # no NIC of the host is reachable
    any_cabled = np.bincount(h, weights=bad & cabled) > 0
    # a whole host once (by its first NIC), else each out NIC a GPU uses or that sits on an island
    first = np.zeros(len(nics), bool)
    first[np.unique(h, return_index=True)[1]] = True
    name_host = bad & whole[h] & first
    name_nic = bad & ~whole[h] & (cabled | bound[nics])
    out = np.zeros(t.n, bool)
    out[nics[bad]] = True            # every unreachable NIC, named or not: flows given to it drop
    out[gpus] = out[t.bound[gpus]]
    left = [Unreachable(int(host[i]), fabric.name_of(int(host[i])), island if any_cabled[h[i]] else NOT_CABLED)
            for i in np.flatnonzero(name_host).tolist()]
    left += [Unreachable(int(nics[i]), fabric.name_of(int(nics[i])), island if cabled[i] else NOT_CABLED)
             for i in np.flatnonzero(name_nic).tolist()]
    left.sort(key=lambda u: u.device)
    return Reach(out, tuple(left))


__all__ = ["NOT_CABLED", "NO_PATH", "NO_SM_ROUTE", "Reach", "Unreachable", "fabric_tech", "host_reach",
           "left_out_line", "nic_ports"]
