"""Leaf-spine (2-tier Clos) fabrics, RoCE by default, with an optional super-spine tier.

Each leaf has ``hosts_per_leaf`` host ports and ``uplinks`` links spread evenly
over the spines of its pod (``uplinks / spines`` parallel links per spine), so
the leaf oversubscription is hosts_per_leaf : uplinks. With ``super_spines``
the fabric has ``pods`` copies of the leaf-spine block and the super-spines come in planes, as
three-tier Clos fabrics are deployed: with P = min(spines, super-spines) planes (one must divide
the other), spine i of every pod is cabled to the super-spines of plane i mod P only, each spine
with ``super_spines`` uplinks spread evenly over its plane (P parallel links to each of its
super_spines / P super-spines). Every super-spine then needs pods × spines ports (not pods ×
spines × super-spines / P, as a full mesh of spines and super-spines would), and the spine
oversubscription is down links : super-spines.
"""

from __future__ import annotations

import math

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
    finish,
    pad_names,
    parse_ratio,
    pick_switch,
    switch_ports,
    tech_of,
)
from .fattree import _join


def _ratio(a: int, b: int) -> str:
    g = math.gcd(a, b)
    return f"{a // g}:{b // g}"


def leaf_spine(leaves: int, spines: int, hosts_per_leaf: int, uplinks: int | None = None,
               speed: str | None = None, fabric: str = "roce", oversubscription: str | None = None,
               super_spines: int = 0, pods: int = 1, servers: str = "node", switch: str | None = None,
               catalog: Catalog | None = None, name: str | None = None) -> Fabric:
    """Build a leaf-spine fabric; refuses impossible port budgets with the reason."""
    for key, v in (("leaves", leaves), ("spines", spines), ("hosts_per_leaf", hosts_per_leaf), ("pods", pods)):
        if v < 1:
            raise ParamError(key, v, "must be at least 1", key.replace("_", " "))
    if super_spines < 0:
        raise ParamError("super_spines", super_spines, "cannot be negative", "super-spines")
    if pods > 1 and not super_spines:
        raise ParamError("pods", pods, "several pods need super-spines to join them")
    if super_spines and max(spines, super_spines) % min(spines, super_spines):
        raise ParamError("super_spines", super_spines, "spine i of every pod goes to super-spine plane i, so "
                         f"the super-spines must divide, or be a multiple of, the {spines} spines of a pod",
                         "super-spines")
    if oversubscription is not None:
        d, u = parse_ratio(oversubscription, "oversubscription")
        want = math.ceil(hosts_per_leaf * u / d / spines) * spines
        if uplinks is not None and uplinks != want:
            need = f"{hosts_per_leaf} hosts at {oversubscription} need {want} uplinks over {spines} spines"
            raise ParamError("uplinks", uplinks, f"disagrees with oversubscription {oversubscription} ({need})",
                             words=f"uplinks per leaf {uplinks} and oversubscription {oversubscription} "
                                   f"disagree ({need})")
        uplinks = want
    if uplinks is None:
        uplinks = spines
    if uplinks < spines or uplinks % spines:
        raise ParamError("uplinks", uplinks, f"each leaf needs the same number of links to each of the {spines} "
                         f"spines, so uplinks must be a multiple of {spines}", "uplinks per leaf")
    parallel = uplinks // spines
    tech = tech_of(fabric)
    cat = catalog
    f = Fabric(cat, name=name or f"leaf-spine-{leaves}x{spines}")
    default_speed = "400GbE" if fabric == "roce" else "4xNDR"
    rate = LinkRate.parse(speed or default_speed)
    if rate.tech != tech:
        why = f"is not a {'RoCE/Ethernet' if fabric == 'roce' else 'InfiniBand'} speed"
        raise ParamError("speed", str(rate), why, words=f"speed {rate} {why}")
    leaf_need = hosts_per_leaf + uplinks
    spine_need = leaves * parallel + super_spines
    leaf_sw = pick_switch(f.catalog, tech, leaf_need, switch, str(rate))
    spine_sw = pick_switch(f.catalog, tech, spine_need, switch, str(rate))
    top_sw = pick_switch(f.catalog, tech, pods * spines, switch, str(rate)) if super_spines else None
    n_hosts = leaves * hosts_per_leaf * pods
    n_switches = (leaves + spines) * pods + super_spines
    check_lid_space(tech, n_hosts, n_switches)
    over = {"leaf": _ratio(hosts_per_leaf, uplinks)}
    if super_spines:
        over["spine"] = _ratio(leaves * parallel, super_spines)
    f.meta = {"generator": "leaf-spine", "fabric": fabric, "params": {
        "leaves": leaves, "spines": spines, "hosts_per_leaf": hosts_per_leaf, "uplinks": uplinks,
        "speed": str(rate), "super_spines": super_spines, "pods": pods, "servers": servers,
        "switch": leaf_sw.id}, "oversubscription": over}
    host = add_hosts(f, n_hosts, rate, servers)
    mode = lambda p: str(rate) if p.rate != rate else None  # noqa: E731
    all_leaves, all_spines = [], []
    for pod in range(pods):
        base = pod * leaves * hosts_per_leaf
        prefix = f"pod{pod + 1}-" if pods > 1 else ""
        lv = add_switches(f, leaf_sw, pad_names(prefix + "leaf", leaves), 1, mode(leaf_sw))
        hp = switch_ports(f, lv, 1, hosts_per_leaf).ravel()
        f.add_cables(host.nic_ports[base: base + leaves * hosts_per_leaf], hp, HOST_CABLE_M, emit=False)
        sp = add_switches(f, spine_sw, pad_names(prefix + "spine", spines), 2, mode(spine_sw))
        _join(f, lv, sp, hosts_per_leaf, parallel, LEAF_CABLE_M, group=None)
        all_leaves.append(lv)
        all_spines.append(sp)
    if super_spines:
        assert top_sw is not None
        top = add_switches(f, top_sw, pad_names("superspine", super_spines), 3, mode(top_sw))
        planes = min(spines, super_spines)
        per_plane = super_spines // planes
        for p in range(planes):               # spine i of every pod to the super-spines of plane i
            lower = np.array([sp[i] for sp in all_spines for i in range(p, spines, planes)], np.int64)
            _join(f, lower, top[p * per_plane:(p + 1) * per_plane], leaves * parallel, planes, CORE_CABLE_M,
                  group=None)
    return finish(apply_auto_layout(f))
