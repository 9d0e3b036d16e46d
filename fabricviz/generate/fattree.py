"""Fat trees: 2- or 3-level folded Clos of radix-R switches (XGFT/PGFT).

Leaf (edge) switches have ``d`` host ports and ``u`` uplinks (blocking ratio
d:u, 1:1 by default); ``parallel`` links join a leaf to each spine it reaches
(PGFT), so a leaf reaches ``u / parallel`` spines.

* 2 levels: ``spines = u / p``; at most ``R / p`` leaves; hosts ≤ ``(R / p) · d``.
  Radix 64 at 1:1 → 64 leaves × 32 hosts = 2,048 hosts, 32 spines.
* 3 levels: pods of ``R / (2p)`` leaves and ``u / p`` aggregation switches
  (half their ports down, half up); aggregation switch j of every pod joins
  core group j of ``R / 2`` cores by one link each; at most ``R`` pods.
  The k-ary fat tree (Al-Fares) is the 1:1, p=1 case: k³/4 hosts and 5k²/4
  switches (k=8: 128 hosts, 80 switches; k=64: 65,536 hosts, 5,120 switches).

A single InfiniBand subnet is refused above the 49,151 unicast LIDs.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from ..model import Catalog, Fabric, LinkRate
from ..model.errors import ParamError
from .autolayout import apply_auto_layout
from .common import (
    CORE_CABLE_M,
    HOST_CABLE_M,
    LEAF_CABLE_M,
    add_hosts,
    add_switches,
    check_lid_space,
    check_ratio_fits,
    finish,
    pad_names,
    parse_ratio,
    pick_switch,
    plane_link_rate,
    port_rate,
    switch_ports,
    tech_of,
)
from .planes import planarize


@dataclass(frozen=True)
class FatTreePlan:
    """The numbers of a fat tree before anything is built (also shown by the GUI dialog)."""

    levels: int
    radix: int
    down: int          # host ports per leaf
    up: int            # uplinks per leaf
    parallel: int
    hosts: int
    leaves: int
    spines: int        # 2 levels: spines; 3 levels: aggregation switches
    cores: int
    pods: int
    leaves_per_pod: int
    max_hosts: int

    @property
    def switches(self) -> int:
        return self.leaves + self.spines + self.cores

    @property
    def blocking(self) -> str:
        g = math.gcd(self.down, self.up)
        return f"{self.down // g}:{self.up // g}"


def plan_fat_tree(levels: int, radix: int, hosts: int | None = None, blocking: str | None = None,
                  parallel: int = 1) -> FatTreePlan:
    """Check a request and compute the counts; raise FabricError saying why if impossible."""
    if levels not in (2, 3):
        raise ParamError("levels", levels, "a fat tree here has 2 or 3 switch levels", "switch levels")
    if radix < 4 or radix % 2:
        raise ParamError("radix", radix, "the switch radix must be an even number ≥ 4")
    if parallel < 1:
        raise ParamError("parallel", parallel, "must be at least 1", "parallel links")
    d_ratio, u_ratio = parse_ratio(blocking)
    check_ratio_fits(blocking, (d_ratio, u_ratio), radix)
    down = radix * d_ratio // (d_ratio + u_ratio)
    up = radix - down
    if down < 1 or up < 1:
        why = f"leaves of radix {radix} need at least one host port and one uplink"
        raise ParamError("blocking", blocking, why, words=f"blocking {blocking}: {why}")
    if up % parallel:
        raise ParamError("parallel", parallel, f"the {up} uplinks of a leaf cannot be split into groups of "
                         f"{parallel} links per spine", "parallel links")
    n_up = up // parallel
    if levels == 2:
        max_leaves = radix // parallel
        max_hosts = max_leaves * down
        if hosts is None:
            hosts = max_hosts
        _check_hosts(hosts, max_hosts, f"a 2-level fat tree of radix-{radix} switches at "
                     f"{down}:{up} with {parallel} parallel link(s) ({max_leaves} leaves × {down} host ports)")
        leaves = math.ceil(hosts / down)
        return FatTreePlan(2, radix, down, up, parallel, hosts, leaves, n_up, 0, 1, leaves, max_hosts)
    half = radix // 2
    if half % parallel:
        raise ParamError("parallel", parallel, f"the {half} down ports of an aggregation switch cannot be "
                         f"split into groups of {parallel}", "parallel links")
    leaves_per_pod = half // parallel
    max_hosts = radix * leaves_per_pod * down
    if hosts is None:
        hosts = max_hosts
    _check_hosts(hosts, max_hosts, f"a 3-level fat tree of radix-{radix} switches at {down}:{up} "
                 f"({radix} pods × {leaves_per_pod} leaves × {down} host ports)")
    leaves = math.ceil(hosts / down)
    pods = math.ceil(leaves / leaves_per_pod)
    aggs = pods * n_up
    cores = n_up * half
    return FatTreePlan(3, radix, down, up, parallel, hosts, leaves, aggs, cores, pods,
                       leaves_per_pod, max_hosts)


def _check_hosts(hosts: int, max_hosts: int, what: str) -> None:
    if hosts < 1:
        raise ParamError("hosts", hosts, "need at least one host")
    if hosts > max_hosts:
        raise ParamError("hosts", hosts, f"exceeds the {max_hosts:,} that {what} allows",
                         words=f"{hosts:,} hosts exceed the {max_hosts:,} that {what} allows")


def k_ary_fat_tree(k: int, fabric: str = "ib", **kw) -> Fabric:
    """The k-ary fat tree of Al-Fares et al.: 3 levels, radix k, 1:1, k³/4 hosts."""
    return fat_tree(levels=3, radix=k, fabric=fabric, **kw)


def fat_tree(levels: int = 2, radix: int = 64, hosts: int | None = None, blocking: str | None = None,
             parallel: int = 1, fabric: str = "ib", servers: str = "node", switch: str | None = None,
             speed: str | None = None, catalog: Catalog | None = None,
             name: str | None = None, planes: int = 1) -> Fabric:
    """Build a fat tree (see module doc), laid out by :func:`~.autolayout.auto_layout`; ``planes`` > 1:
    one such tree per plane, every NIC port split across them (:mod:`.planes`)."""
    if planes < 1:
        raise ParamError("planes", planes, "must be at least 1")
    if planes > 1 and speed is None:
        speed = plane_link_rate(fabric, planes)
    plan = plan_fat_tree(levels, radix, hosts, blocking, parallel)
    tech = tech_of(fabric)
    check_lid_space(tech, plan.hosts, plan.switches)
    f = Fabric(catalog, name=name or f"fat-tree-{levels}l-r{radix}-{plan.hosts}h")
    sw = pick_switch(f.catalog, tech, radix, switch, speed)
    rate = LinkRate.parse(speed) if speed else port_rate(sw)
    mode = str(rate) if rate != sw.rate else None
    f.meta = {"generator": "fat-tree", "fabric": fabric, "params": {
        "levels": levels, "radix": radix, "hosts": plan.hosts, "blocking": plan.blocking,
        "parallel": parallel, "servers": servers, "switch": sw.id, "speed": str(rate)},
        "plan": asdict(plan), "oversubscription": {"leaf": plan.blocking}}
    host = add_hosts(f, plan.hosts, rate, servers, planes=planes)
    # ---- leaves, hosts in order
    leaves = add_switches(f, sw, pad_names("leaf", plan.leaves), 1, mode)
    lp = switch_ports(f, leaves, 1, plan.down).ravel()[: plan.hosts]
    f.add_cables(host.nic_ports, lp, HOST_CABLE_M, emit=False)
    n_up = plan.up // plan.parallel
    if levels == 2:
        spines = add_switches(f, sw, pad_names("spine", plan.spines), 2, mode)
        _join(f, leaves, spines, plan.down, plan.parallel, LEAF_CABLE_M, group=None)
    else:
        aggs = add_switches(f, sw, pad_names("spine", plan.spines), 2, mode)
        cores = add_switches(f, sw, pad_names("core", plan.cores), 3, mode)
        half = radix // 2
        for pod in range(plan.pods):
            pl = leaves[pod * plan.leaves_per_pod:(pod + 1) * plan.leaves_per_pod]
            pa = aggs[pod * n_up:(pod + 1) * n_up]
            _join(f, pl, pa, plan.down, plan.parallel, LEAF_CABLE_M, group=None)
        # aggregation switch j of pod q, up-port i → core j·half + i, core port q+1
        agg_up = switch_ports(f, aggs, half + 1, half)                     # (aggs, half)
        j = np.tile(np.arange(n_up), plan.pods)
        pod_of = np.repeat(np.arange(plan.pods), n_up)
        core_idx = j[:, None] * half + np.arange(half)[None, :]
        core_ports = f.devices_t.first_port[cores[core_idx]].astype(np.int64) + pod_of[:, None]
        f.add_cables(agg_up.ravel(), core_ports.ravel(), CORE_CABLE_M, emit=False)
    return planarize(finish(apply_auto_layout(f)), planes)


def _join(f: Fabric, lower: np.ndarray, upper: np.ndarray, first_up: int, parallel: int,
          length: float, group: None) -> None:
    """Every lower switch to every upper switch with ``parallel`` links.

    Lower switch i uses up-ports first_up+1…; upper switch j uses down-ports
    i·parallel+1 … (i+1)·parallel, so port numbers say who is where.
    """
    n_lo, n_hi = len(lower), len(upper)
    lo = switch_ports(f, lower, first_up + 1, n_hi * parallel)             # (lo, hi·p), j-major
    hi_first = f.devices_t.first_port[upper].astype(np.int64)
    i = np.arange(n_lo)[:, None, None]
    jj = np.arange(n_hi)[None, :, None]
    k = np.arange(parallel)[None, None, :]
    hi = hi_first[jj] + i * parallel + k                                  # (lo, hi, p)
    f.add_cables(lo.ravel(), np.broadcast_to(hi, (n_lo, n_hi, parallel)).ravel(), length, emit=False)
