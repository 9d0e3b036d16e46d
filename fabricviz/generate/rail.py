"""Rail-optimized scalable units, DGX SuperPOD style.

A scalable unit (SU) is 32 DGX nodes of 8 GPUs and 8 NICs and 8 leaf switches,
one per rail: NIC i of every node in the SU goes to leaf (rail) i, so GPU i of
all nodes talk through one switch hop. With 64-port switches each leaf has 32
node ports and 32 uplinks; the spine tier has 4 switches per SU and every leaf
spreads its uplinks evenly over all spines (1 SU: 4 spines × 8 links; 2 SU:
8 × 4; 4 SU: 16 × 2; 8 SU: 32 × 1), as in NVIDIA's reference architecture
(2 SU: 16 leaves / 8 spines; 4 SU: 32 / 16; 8 SU: 64 / 32).
"""

from __future__ import annotations

import numpy as np

from ..model import Catalog, Fabric, FabricError, LinkRate
from ..model.errors import ParamError
from .autolayout import apply_auto_layout
from .common import (
    HOST_CABLE_M,
    LEAF_CABLE_M,
    add_hosts,
    add_switches,
    check_lid_space,
    finish,
    pad_names,
    pick_switch,
    plane_link_rate,
    plane_server,
    switch_ports,
    tech_of,
)
from .fattree import _join
from .planes import planarize

NODES_PER_SU = 32
RAILS = 8


def rail_optimized(units: int = 1, fabric: str = "ib", speed: str | None = None,
                   nodes_per_unit: int = NODES_PER_SU, switch: str | None = None,
                   catalog: Catalog | None = None, name: str | None = None, planes: int = 1) -> Fabric:
    """Build ``units`` rail-optimized SUs joined by a spine tier; ``planes`` > 1: one such fabric per
    plane, every NIC port split across them (:mod:`.planes`)."""
    if units < 1:
        raise ParamError("units", units, "must be at least 1", "scalable units")
    if not 1 <= nodes_per_unit <= NODES_PER_SU:
        raise ParamError("nodes_per_unit", nodes_per_unit, f"an SU has 1 to {NODES_PER_SU} nodes",
                         "nodes per scalable unit")
    tech = tech_of(fabric)
    if planes < 1:
        raise ParamError("planes", planes, "must be at least 1")
    default = plane_link_rate(fabric, planes) if planes > 1 else ("4xNDR" if fabric == "ib" else "400GbE")
    rate = LinkRate.parse(speed or default)
    if rate.tech != tech:
        why = f"does not match the {fabric} fabric"
        raise ParamError("speed", str(rate), why, words=f"link speed {rate} {why}")
    uplinks = NODES_PER_SU                       # leaves are non-blocking: 32 down, 32 up
    spines = 4 * units
    if uplinks % spines:
        ok = [u for u in range(1, 9) if uplinks % (4 * u) == 0]
        raise ParamError("units", units, f"{spines} spines cannot share the {uplinks} uplinks of a leaf evenly; "
                         f"2-level rail-optimized fabrics of 64-port switches take {', '.join(map(str, ok))} units",
                         "scalable units")
    parallel = uplinks // spines
    f = Fabric(catalog, name=name or f"rail-{units}su")
    sw = pick_switch(f.catalog, tech, 2 * NODES_PER_SU, switch, str(rate))
    mode = str(rate) if sw.rate != rate else None
    dgx = f.catalog.dgx(rate) if planes == 1 else plane_server(f.catalog, rate, "dgx", planes)
    if dgx.nics != RAILS:
        raise FabricError(f"{dgx.name} has {dgx.nics} NICs, a rail-optimized SU needs {RAILS}")
    leaves_n = units * RAILS
    check_lid_space(tech, units * nodes_per_unit * RAILS, leaves_n + spines)
    f.meta = {"generator": "rail", "fabric": fabric, "params": {
        "units": units, "nodes_per_unit": nodes_per_unit, "speed": str(rate), "switch": sw.id,
        "server": dgx.id}, "oversubscription": {"leaf": "1:1"}}
    leaves_all = []
    for u in range(units):
        host = add_hosts(f, nodes_per_unit * RAILS, rate, "dgx", prefix=f"su{u + 1}-dgx", planes=planes)
        # host ports come node-major: node n, NIC r → index n*8 + r
        names = [f"su{u + 1}-rail{r}" for r in range(RAILS)]
        lv = add_switches(f, sw, names, 1, mode)
        nic_ports = host.nic_ports.reshape(nodes_per_unit, RAILS)        # (node, rail)
        leaf_ports = switch_ports(f, lv, 1, nodes_per_unit)              # (rail, node)
        f.add_cables(nic_ports.T.ravel(), leaf_ports.ravel(), HOST_CABLE_M, emit=False)
        leaves_all.append(lv)
    leaves = np.concatenate(leaves_all)
    sp = add_switches(f, sw, pad_names("spine", spines), 2, mode)
    _join(f, leaves, sp, NODES_PER_SU, parallel, LEAF_CABLE_M, group=None)
    return planarize(finish(apply_auto_layout(f)), planes)
