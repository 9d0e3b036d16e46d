"""NVL72 racks on a rail fabric: ``racks`` NVLink domains of compute trays, one leaf per rail.

Each rack is an NVLink domain part with compute trays (``GB200-NVL72``: 18 trays of 4 GPUs, each
GPU bound to its own 400G NIC); NIC ``r`` of every tray of every rack goes to rail leaf ``r`` (one
switch hop between the racks' GPU r, as in a rail-optimised unit), so a leaf carries 18 × racks
hosts; one spine joins the rails (one subnet). The rack is recorded as ``meta["nvlink_domains"]``
(:mod:`fabricviz.model.nvlink`). A small test bed for the NVLink domain and the collectives across
domains, not NVIDIA's SuperPOD reference design (which has its own generator).
"""

from __future__ import annotations

import numpy as np

from ..model import Catalog, Fabric, FabricError, LinkRate, Part
from ..model.fabric import KIND_CODE, NIC
from ..model.nvlink import DOMAINS_KEY, nvlink_specs, rack_meta
from ..model.tech import IB
from .autolayout import apply_auto_layout, device_rects, with_children
from .common import (
    HOST_CABLE_M,
    LEAF_CABLE_M,
    add_switches,
    finish,
    pad_names,
    pick_switch,
    port_rate,
    switch_ports,
    tech_of,
)

#: Trays per row of a rack's grid, and the room between racks (scene units).
RACK_COLUMNS, RACK_GAP = 6, 80.0


def nvl72_racks(racks: int = 1, spec: str = "GB200-NVL72", fabric: str = "ib", speed: str | None = None,
                switch: str | None = None, catalog: Catalog | None = None, name: str | None = None) -> Fabric:
    """``racks`` NVLink domains of ``spec`` on one rail leaf per tray NIC (see the module doc)."""
    specs = nvlink_specs()
    if spec not in specs or not specs[spec].rack or specs[spec].tray_part is None:
        racks_ok = [s.id for s in specs.values() if s.rack and s.tray_part]
        raise FabricError(f"NVLink rack {spec!r}: use {', '.join(racks_ok)}")
    sp = specs[spec]
    if racks < 1:
        raise FabricError(f"racks {racks}: must be at least 1")
    tech = tech_of(fabric)
    rate = LinkRate.parse(speed or ("4xNDR" if fabric == "ib" else "400GbE"))
    f = Fabric(catalog, name=name or f"{spec.lower()}-{racks}")
    tray = f.catalog.get(str(sp.tray_part))
    hosts = sp.compute_trays * racks
    if switch is None and tech == IB and rate == LinkRate.parse("4xNDR"):
        switch = "QM9700"                       # the real 64-port NDR switch, not a radix model
    sw = pick_switch(f.catalog, tech, hosts + 1, switch, str(rate))
    mode = str(rate) if f.catalog.get(str(tray.nic_part)).modes[0] != rate else None
    domains = []
    for r in range(racks):
        names = pad_names(f"rack{r + 1}-ct", sp.compute_trays)
        xs = (np.arange(sp.compute_trays) + r * (sp.compute_trays + 2)) * 120.0
        f.add_servers(tray.id, names, xs, 0.0, mode=mode, emit=False)
        domains.append(rack_meta(f"rack{r + 1}", spec, names))
    rails = tray.nics
    leaves = add_switches(f, sw, pad_names("rail", rails, 0), 1, sw_mode(sw, rate))
    t = f.devices_t
    every = np.flatnonzero(t.alive & (t.kind == KIND_CODE[NIC]))
    nics = every[np.lexsort((t.local[every], t.parent[every]))].reshape(hosts, rails)     # (tray, rail)
    ports = t.first_port[nics].astype(np.int64)
    f.add_cables(ports.T.ravel(), switch_ports(f, leaves, 1, hosts).ravel(), HOST_CABLE_M, emit=False)
    # one spine joins the rails (one subnet, one SM); rail traffic stays on its leaf
    up = min(sw.ports - hosts, sw.ports // rails)
    if up < 1:
        raise FabricError(f"{sw.id}: {sw.ports} ports leave no uplink after {hosts} trays")
    spine = add_switches(f, sw, ["spine01"], 2, sw_mode(sw, rate))
    f.add_cables(switch_ports(f, leaves, hosts + 1, up).ravel(), switch_ports(f, spine, 1, rails * up).ravel(),
                 LEAF_CABLE_M, emit=False)
    f.meta = {"generator": "nvl72", "fabric": fabric, "params": {
        "racks": racks, "spec": spec, "speed": str(rate), "switch": sw.id}, DOMAINS_KEY: domains}
    apply_auto_layout(f)
    _racks_side_by_side(f, [f.device_ids("server")[r * sp.compute_trays:(r + 1) * sp.compute_trays]
                            for r in range(racks)])
    return finish(f)


def _racks_side_by_side(f: Fabric, racks: list[np.ndarray]) -> None:
    """Each rack's trays in a grid of their own (:data:`RACK_COLUMNS` wide), the racks side by
    side where the auto layout put the servers, so no rack's outline covers another's trays."""
    trays = np.concatenate(racks)
    r = device_rects(f, trays)
    pitch_x = float((r[2] - r[0]).max()) + RACK_GAP / 4
    pitch_y = float((r[3] - r[1]).max()) + RACK_GAP / 4
    width = RACK_COLUMNS * pitch_x
    left = float(f.devices_t.x[trays].mean()) - (len(racks) * (width + RACK_GAP) - RACK_GAP) / 2 + pitch_x / 2
    top = float(f.devices_t.y[trays].min())
    xs, ys = [], []
    for k, rack in enumerate(racks):
        i = np.arange(len(rack))
        xs.append(left + k * (width + RACK_GAP) + (i % RACK_COLUMNS) * pitch_x)
        ys.append(top + (i // RACK_COLUMNS) * pitch_y)
    ids, x, y = with_children(f, trays, np.concatenate(xs), np.concatenate(ys))
    f.set_positions(ids, x, y)


def sw_mode(part: Part, rate: LinkRate) -> str | None:
    """The switch ports' mode when ``rate`` is not the part's own."""
    return str(rate) if port_rate(part) != rate else None
