"""Direct networks: rings, 2-D/3-D tori and meshes, dragonflies — every switch has hosts.

**Torus** ``dims`` (e.g. 4×4): one switch per grid point, cabled to its ±1 neighbour in each
dimension, wrapping round (``wrap=False``: a mesh, the edge switches have fewer neighbours). A
1-D torus is a ring. *Size-2 rule*: in a dimension of 2 switches with wrap the + and − neighbour
are the same switch, so the pair is cabled once (``links_per_neighbour`` cables), not twice.
Ports: the torus ports first — per dimension the − neighbour then the + one (one slot in a
dimension of 2), ``links_per_neighbour`` ports each — then the host ports.

**Dragonfly** (Kim et al. 2008): ``g`` groups of ``a`` routers, ``p`` hosts and ``h`` global
links per router; the routers of a group are all-to-all. Global links are in the *consecutive*
("absolute") arrangement: global port ``q`` of group ``i`` (router ``q // h``, its
``q mod h``-th global port) joins the ``q mod (g-1)``-th other group in ascending order, so the
``a·h`` global ports of a group go round the other groups evenly (``a·h / (g-1)`` links per
group pair; the largest dragonfly, ``g = a·h + 1``, joins every pair once). Balanced: a = 2p = 2h.

Layouts (drawn by the canvas as straight lines): see :mod:`.direct_layout`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..model import Catalog, Fabric, FabricError, LinkRate, Part
from ..model.errors import ParamError
from ..model.numbers import is_digits
from ..model.tech import ETH, IB
from .autolayout import apply_auto_layout
from .common import CORE_CABLE_M, HOST_CABLE_M, add_hosts, add_switches, check_lid_space, finish, switch_ports, tech_of
from .direct_layout import layout_torus

#: Cable length (m) between torus neighbours (a folded torus keeps every cable short, the
#: wrap-around ones too) and between the routers of one dragonfly group (one cabinet row).
NEIGHBOUR_CABLE_M = 5.0
#: A dragonfly's global links run between cabinet rows: optical.
GLOBAL_CABLE_M = CORE_CABLE_M
MAX_DIMS = 3


@dataclass(frozen=True)
class TorusPlan:
    """The numbers of a torus / mesh / ring before anything is built (the GUI previews them)."""

    dims: tuple[int, ...]
    wrap: bool
    hosts_per_switch: int
    links_per_neighbour: int
    switches: int
    hosts: int
    links: int                   # switch-to-switch cables
    links_per_dim: tuple[int, ...]
    slots: tuple[int, ...]       # neighbour slots per dimension: 2, or 1 in a dimension of 2
    ports: int                   # ports a switch needs: torus ports + host ports

    @property
    def torus_ports(self) -> int:
        return self.ports - self.hosts_per_switch

    @property
    def kind(self) -> str:
        if len(self.dims) == 1:
            return "ring" if self.wrap else "line"
        return "torus" if self.wrap else "mesh"

    @property
    def label(self) -> str:
        return "x".join(map(str, self.dims))

    @property
    def summary(self) -> str:
        """``torus 4x4 · 16 switches · 16 hosts · 32 switch cables · 5 ports per switch`` (the GUI's)."""
        return (f"{self.kind} {self.label} · {self.switches:,} switches · {self.hosts:,} hosts · "
                f"{self.links:,} switch cables · {self.ports} ports per switch")


def parse_dims(text: str | int | tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """``"4x4"`` (or ``4×4``, ``4,4``, a list) → (4, 4); refuses anything else with the reason."""
    if isinstance(text, int):
        return (text,)
    if isinstance(text, (tuple, list)):
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in text):
            raise ParamError("dims", list(text), "whole numbers of switches per dimension")
        return tuple(text)
    parts = [p.strip() for p in re.split(r"[x×*,]", str(text).strip().lower())]
    if not all(is_digits(p) for p in parts):
        raise ParamError("dims", text, "switches per dimension, e.g. 8, 4x4 or 4x4x4")
    return tuple(int(p) for p in parts)


def plan_torus(dims: tuple[int, ...] | str, hosts_per_switch: int = 1, links_per_neighbour: int = 1,
               wrap: bool = True) -> TorusPlan:
    """Check a torus request and count it; raise FabricError saying why if impossible."""
    dims = parse_dims(dims)
    label = "x".join(map(str, dims))
    given = dims[0] if len(dims) == 1 else label         # a ring's one number (its --switches)
    if not 1 <= len(dims) <= MAX_DIMS:
        why = f"1 to {MAX_DIMS} dimensions (a ring, a 2-D or a 3-D torus)"
        raise ParamError("dims", label, why, words=f"dims {label or '(none)'}: {why}")
    if min(dims) < 2:
        why = "every dimension needs at least 2 switches"
        raise ParamError("dims", given, why, words=f"dims {label}: {why}")
    if hosts_per_switch < 1:
        raise ParamError("hosts_per_switch", hosts_per_switch, "must be at least 1 (in a direct network "
                         "every switch has hosts)", "hosts per switch")
    if links_per_neighbour < 1:
        raise ParamError("links_per_neighbour", links_per_neighbour, "must be at least 1", "links per neighbour")
    n = int(np.prod(dims))
    slots = tuple(2 if k >= 3 else 1 for k in dims)
    per_dim = tuple(links_per_neighbour * (n if wrap and k >= 3 else n // k * (k - 1)) for k in dims)
    ports = hosts_per_switch + links_per_neighbour * sum(slots)
    return TorusPlan(dims, wrap, hosts_per_switch, links_per_neighbour, n, n * hosts_per_switch,
                     sum(per_dim), per_dim, slots, ports)


@dataclass(frozen=True)
class DragonflyPlan:
    """The numbers of a dragonfly before anything is built."""

    groups: int
    routers_per_group: int
    hosts_per_router: int
    global_links_per_router: int
    routers: int
    hosts: int
    local_links: int
    global_links: int
    links_per_group_pair: int
    ports: int

    @property
    def balanced(self) -> bool:
        """a = 2p = 2h: the router's ports balanced between hosts, the group and the world."""
        a, p, h = self.routers_per_group, self.hosts_per_router, self.global_links_per_router
        return a == 2 * p == 2 * h

    @property
    def summary(self) -> str:
        return (f"{self.routers:,} routers · {self.hosts:,} hosts · {self.local_links:,} group cables · "
                f"{self.global_links:,} global cables ({self.links_per_group_pair} per group pair) · "
                f"{self.ports} ports per router" + (" · balanced" if self.balanced else ""))


def plan_dragonfly(groups: int, routers_per_group: int, hosts_per_router: int,
                   global_links_per_router: int = 1, balanced: bool = False) -> DragonflyPlan:
    """Check a dragonfly request (``balanced``: insist on a = 2p = 2h) and count it."""
    g, a, p, h = groups, routers_per_group, hosts_per_router, global_links_per_router
    for key, what, v, lo in (("groups", "groups", g, 2), ("routers", "routers per group", a, 1),
                             ("hosts", "hosts per router", p, 1), ("global_links", "global links per router", h, 1)):
        if v < lo:
            raise ParamError(key, v, f"must be at least {lo}", what)
    if balanced and not a == 2 * p == 2 * h:
        raise FabricError(f"routers per group {a}, hosts per router {p}, global links per router {h}: "
                          f"a balanced dragonfly has a = 2p = 2h"
                          + (f" (for {a} routers: {a // 2} hosts and {a // 2} global links)" if a % 2 == 0
                             else " (an even number of routers per group)"))
    ports_out = a * h
    if g - 1 > ports_out:
        raise ParamError("groups", g, f"a group of {a} routers × {h} global link{'s' if h != 1 else ''} reaches "
                         f"at most {ports_out + 1} groups (g ≤ a·h + 1), one global link to each other group")
    if ports_out % (g - 1):
        ok = [d + 1 for d in range(1, ports_out + 1) if ports_out % d == 0]
        raise ParamError("groups", g, f"the {ports_out} global links of a group cannot be spread evenly over "
                         f"the {g - 1} other groups; with {a} routers × {h} global links use "
                         f"{', '.join(map(str, ok))} groups")
    return DragonflyPlan(g, a, p, h, g * a, g * a * p, g * a * (a - 1) // 2, g * ports_out // 2,
                         ports_out // (g - 1), p + a - 1 + h)


# ------------------------------------------------------------------ shared pieces
def link_rate(speed: str | None, fabric: str) -> LinkRate:
    """The links' rate: ``speed`` (default 4xNDR, 400GbE for RoCE), refused when not the fabric's."""
    tech = tech_of(fabric)
    rate = LinkRate.parse(speed or ("4xNDR" if tech == IB else "400GbE"))
    if rate.tech != tech:
        why = f"is not a {'RoCE/Ethernet' if tech == ETH else 'InfiniBand'} speed (fabric {fabric})"
        raise ParamError("speed", str(rate), why, words=f"speed {rate} {why}")
    return rate


def _speed_of(speed: str | None, switch: str | None, catalog: Catalog) -> str | None:
    """No speed asked but a switch part chosen: the part's own port rate."""
    if speed is None and switch is not None and switch in catalog:
        rate = catalog.get(switch).rate
        return str(rate) if rate is not None else None
    return speed


def pick_direct_switch(catalog: Catalog, tech: str, need: int, part: str | None, rate: LinkRate,
                       what: str) -> Part:
    """A real switch part with at least ``need`` ports at ``rate``: ``part`` if given (refused when
    too small), else the workhorse (QM9700, SN5400) when it fits, else the smallest that does.
    ``what`` says why that many ports ("1 host + 4 torus ports")."""
    kind = "ib_switch" if tech == IB else "eth_switch"
    if part is not None:
        p = catalog.get(part)
        if p.kind != kind:
            why = f"{p.id} is a {p.kind}, this fabric needs a {kind.replace('_', ' ')}"
            raise ParamError("switch", part, why, words=f"switch part {part}: {why}")
        if p.ports < need:
            why = f"{p.id} has {p.ports} ports, a switch here needs {need} ({what})"
            raise ParamError("switch", part, why, words=f"switch part {part}: {why}")
        return p
    fits = [p for p in catalog.by_kind(kind) if not p.hypothetical and p.ports >= need
            and (p.rate == rate or any(m == rate for m in p.modes))]
    if not fits:
        raise FabricError(f"no {kind.replace('_', ' ')} in the catalog has {need} ports at {rate} ({what}); "
                          "add one to your parts file or choose fewer hosts or links")
    for pid in {IB: ("QM9700",), ETH: ("SN5400", "SN5600")}[tech]:
        best = [p for p in fits if p.id == pid]
        if best:
            return best[0]
    return min(fits, key=lambda p: (p.ports, -(p.rate.speed_rank if p.rate else 0), p.id))


def _check_servers(f: Fabric, servers: str, rate: LinkRate, per_switch: int, what: str) -> None:
    """DGX servers must not straddle two switches: their NIC ports per switch come in whole servers."""
    if servers != "dgx":
        return
    part = f.catalog.dgx(rate)
    per = part.nics * (f.catalog.get(part.nic_part).ports if part.nic_part else 1)
    if per_switch % per:
        raise FabricError(f"{what} {per_switch}: a {part.name} has {per} NIC ports, so with dgx servers "
                          f"it must be a multiple of {per}")


def _mode(part: Part, rate: LinkRate) -> str | None:
    return str(rate) if part.rate != rate else None


def _port_ids(f: Fabric, ids: np.ndarray, nums: np.ndarray) -> np.ndarray:
    """Port ids of port numbers ``nums`` (1-based) on switches ``ids`` (broadcast)."""
    return f.devices_t.first_port[ids].astype(np.int64) + np.asarray(nums, np.int64) - 1


def coord_names(dims: tuple[int, ...], prefix: str = "sw") -> list[str]:
    """``sw-2-3``: the coordinates (from 0, padded to each dimension's width), dimension 0 first."""
    widths = [len(str(k - 1)) for k in dims]
    return [prefix + "".join(f"-{c:0{w}d}" for c, w in zip(cs, widths, strict=True)) for cs in np.ndindex(*dims)]


# ------------------------------------------------------------------ torus
def torus(dims: tuple[int, ...] | str, hosts_per_switch: int = 1, links_per_neighbour: int = 1,
          wrap: bool = True, speed: str | None = None, fabric: str = "ib", switch: str | None = None,
          servers: str = "node", catalog: Catalog | None = None, name: str | None = None) -> Fabric:
    """Build a torus (``wrap=False``: a mesh; one dimension: a ring) — see the module doc."""
    plan = plan_torus(dims, hosts_per_switch, links_per_neighbour, wrap)
    f = Fabric(catalog, name=name or f"{plan.kind}-{plan.label}")
    rate, sw = torus_part(plan, fabric, speed, switch, f.catalog)
    _check_servers(f, servers, rate, hosts_per_switch, "hosts per switch")
    f.meta = {"generator": "torus", "fabric": fabric, "params": {
        "dims": list(plan.dims), "hosts_per_switch": hosts_per_switch,
        "links_per_neighbour": links_per_neighbour, "wrap": wrap, "speed": str(rate), "switch": sw.id,
        "servers": servers}, "topology": plan.kind}
    host = add_hosts(f, plan.hosts, rate, servers)
    ids = add_switches(f, sw, coord_names(plan.dims), 1, _mode(sw, rate))
    T = plan.torus_ports
    f.add_cables(host.nic_ports, switch_ports(f, ids, T + 1, hosts_per_switch).ravel(), HOST_CABLE_M,
                 emit=False)
    _cable_torus(f, plan, ids)
    if len(plan.dims) == 3:          # z-planes: the semantic-zoom groups
        names = coord_names(plan.dims)
        nz = plan.dims[2]
        f.meta["groups"] = [{"name": f"plane z={k}", "switches": names[k::nz]} for k in range(nz)]
    layout_torus(f, plan, ids, host.servers, sw)
    return finish(f)


def torus_part(plan: TorusPlan, fabric: str, speed: str | None, switch: str | None,
               catalog: Catalog) -> tuple[LinkRate, Part]:
    """The rate and switch part of a planned torus, after the LID and port-budget checks (the GUI
    previews with this, so it refuses what the generator refuses)."""
    rate = link_rate(_speed_of(speed, switch, catalog), fabric)
    check_lid_space(rate.tech, plan.hosts, plan.switches)
    why = f"{plan.hosts_per_switch} host + {plan.torus_ports} {plan.kind} ports"
    return rate, pick_direct_switch(catalog, rate.tech, plan.ports, switch, rate, why)


def _cable_torus(f: Fabric, plan: TorusPlan, ids: np.ndarray) -> None:
    """Each switch to its + neighbour in every dimension (wrapping when asked; see the size-2 rule)."""
    coords = np.array(list(np.ndindex(*plan.dims)), np.int64).reshape(-1, len(plan.dims))
    L = plan.links_per_neighbour
    base = np.concatenate([[0], np.cumsum(plan.slots)[:-1]]) * L
    k = np.arange(L)[None, :]
    for d, n in enumerate(plan.dims):
        c = coords[:, d]
        src = np.flatnonzero(c < n - 1) if not (plan.wrap and n >= 3) else np.arange(len(coords))
        nb = coords[src].copy()
        nb[:, d] = (nb[:, d] + 1) % n
        dst = np.ravel_multi_index(tuple(nb.T), plan.dims)
        plus, minus = (1, 0) if n >= 3 else (0, 0)
        pa = _port_ids(f, ids[src][:, None], 1 + base[d] + plus * L + k)
        pb = _port_ids(f, ids[dst][:, None], 1 + base[d] + minus * L + k)
        f.add_cables(pa.ravel(), pb.ravel(), NEIGHBOUR_CABLE_M, emit=False)


def ring(n: int, hosts_per_switch: int = 1, links_per_neighbour: int = 1, **kw) -> Fabric:
    """A ring of ``n`` switches: the 1-D torus."""
    return torus((n,), hosts_per_switch, links_per_neighbour, **kw)


# ------------------------------------------------------------------ dragonfly
def dragonfly_part(plan: DragonflyPlan, fabric: str, speed: str | None, switch: str | None,
                   catalog: Catalog) -> tuple[LinkRate, Part]:
    """The rate and router part of a planned dragonfly, after the LID and port-budget checks."""
    rate = link_rate(_speed_of(speed, switch, catalog), fabric)
    check_lid_space(rate.tech, plan.hosts, plan.routers)
    why = (f"{plan.hosts_per_router} host + {plan.routers_per_group - 1} group + "
           f"{plan.global_links_per_router} global ports")
    return rate, pick_direct_switch(catalog, rate.tech, plan.ports, switch, rate, why)


def dragonfly(groups: int, routers_per_group: int, hosts_per_router: int, global_links_per_router: int = 1,
              balanced: bool = False, speed: str | None = None, fabric: str = "ib",
              switch: str | None = None, servers: str = "node", catalog: Catalog | None = None,
              name: str | None = None) -> Fabric:
    """Build a dragonfly (see the module doc); its groups are the semantic-zoom groups."""
    plan = plan_dragonfly(groups, routers_per_group, hosts_per_router, global_links_per_router, balanced)
    g, a, p, h = groups, routers_per_group, hosts_per_router, global_links_per_router
    f = Fabric(catalog, name=name or f"dragonfly-g{g}-a{a}-p{p}-h{h}")
    rate, sw = dragonfly_part(plan, fabric, speed, switch, f.catalog)
    _check_servers(f, servers, rate, p, "hosts per router")
    gw, rw = len(str(g)), len(str(a))
    names = [f"g{i + 1:0{gw}d}-r{r + 1:0{rw}d}" for i in range(g) for r in range(a)]
    f.meta = {"generator": "dragonfly", "fabric": fabric, "params": {
        "groups": g, "routers_per_group": a, "hosts_per_router": p, "global_links_per_router": h,
        "speed": str(rate), "switch": sw.id, "servers": servers}, "arrangement": "consecutive",
        "balanced": plan.balanced, "links_per_group_pair": plan.links_per_group_pair,
        "groups": [{"name": f"group {i + 1}", "switches": names[i * a:(i + 1) * a]} for i in range(g)]}
    host = add_hosts(f, plan.hosts, rate, servers)
    ids = add_switches(f, sw, names, 1, _mode(sw, rate)).reshape(g, a)
    f.add_cables(host.nic_ports, switch_ports(f, ids.ravel(), 1, p).ravel(), HOST_CABLE_M, emit=False)
    # group: router r's local port to router s is p+1+(s if s < r else s-1)
    r, s = np.triu_indices(a, 1)
    gi = np.repeat(np.arange(g), len(r))
    rr, ss = np.tile(r, g), np.tile(s, g)
    f.add_cables(_port_ids(f, ids[gi, rr], p + 1 + ss - 1), _port_ids(f, ids[gi, ss], p + 1 + rr),
                 NEIGHBOUR_CABLE_M, emit=False)
    # global: pair (i, j), i < j, copy c: port q_i = c(g-1) + (j-1) of i, q_j = c(g-1) + i of j
    i, j = np.triu_indices(g, 1)
    c = np.arange(plan.links_per_group_pair)
    i, j, c = (np.repeat(i, len(c)), np.repeat(j, len(c)), np.tile(c, len(i)))
    qi, qj = c * (g - 1) + j - 1, c * (g - 1) + i
    first_global = p + a
    f.add_cables(_port_ids(f, ids[i, qi // h], first_global + qi % h),
                 _port_ids(f, ids[j, qj // h], first_global + qj % h), GLOBAL_CABLE_M, emit=False)
    return finish(apply_auto_layout(f))


__all__ = ["DragonflyPlan", "TorusPlan", "coord_names", "dragonfly", "dragonfly_part", "link_rate", "parse_dims",
           "pick_direct_switch", "plan_dragonfly", "plan_torus", "ring", "torus", "torus_part"]
