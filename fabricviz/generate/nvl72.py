"""NVL72 racks on a rail-optimised scale-out fabric: ``fabricviz generate nvl72``.

Each rack is an NVLink domain (:mod:`fabricviz.model.nvlink`): 18 compute trays of 4 GPUs on 9
NVLink switch trays, recorded in ``meta["nvlink_domains"]``. Each tray has one scale-out NIC per
GPU (GB200: ConnectX-7 at NDR 400G; GB300: ConnectX-8 at XDR 800G); NIC ``r`` of a tray is on
**rail** ``r`` (4 rails).

**Not NVIDIA's DGX SuperPOD GB200 reference design.** That RA (docs.nvidia.com/dgx-superpod/
reference-architecture-scalable-infrastructure-gb200) describes one SU of 8 racks and tabulates no
compute-fabric switch or cable counts in the pages read, so ``generate superpod`` refuses it.
This generator sizes a fabric for NVL72 racks by the rule of :mod:`.superpod` (its module doc):

* A **unit** is the whole racks one leaf per rail takes while non-blocking: ⌊(ports / 2) / 18⌋
  racks (at least one). Its 4 leaves (``suK-railR``) take the unit's trays on ports 1…u and send
  as many uplinks as they have tray ports (1:1) on ports u+1…2u, as ``superpod``. On QM9700
  (64 × NDR) and SN5400 (64 × 400GbE) a unit is 1 rack (18 trays, 18 uplinks per leaf); on Q3400
  (144 × XDR) it is 4 racks (72 trays, 72 uplinks). One leaf per rack per rail is how NVIDIA's
  topograph draws NVL72 racks (``tests/models/nvl72.yaml``: leaf-1-1 over nodes 1101-1118 of
  NVLink domain nvl-1-1).
* **Spines**: rule 1 of :mod:`.superpod`, every leaf to every spine, S the smallest divisor of the
  leaf's uplinks u at least ⌈leaves · u / ports⌉; past that, rule 2's spine groups (``groups``
  growth: rail r to group r mod G, each group its own subnet). Beyond what groups reach
  (GB200 on QM9700: 64 racks) the size is refused.
* When the racks do not fill the last unit, its leaves and leaf-spine cables are still built
  whole (the RAs' advice for partial SUs: "the fabric should be designed to support the full
  SU, including leaf switches and leaf-spine cables"), their tray ports left free.
* ``partition`` K: each rack split into NVLink partitions of K GPUs in tray order
  (``meta["nvlink_partitions"]``); K whole trays' worth (a multiple of 4) dividing 72.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Catalog, Fabric, LinkRate
from ..model.errors import ParamError
from ..model.nvlink import DOMAINS_KEY, PARTITIONS_KEY, NvlinkSpec, nvlink_specs, rack_meta
from .autolayout import apply_auto_layout
from .common import HOST_CABLE_M, HOST_PITCH, add_switches, check_lid_space, finish, pad_names, switch_ports, tech_of
from .superpod import SystemSpec, add_node_row, plan_superpod, spine_tiers


@dataclass(frozen=True)
class Nvl72System:
    """One NVL72 rack system and the scale-out switch and rate per fabric."""

    key: str
    domain: str                    # NVLink domain part id (assets/nvlink/domains.json)
    switch: dict[str, str]         # fabric -> switch part id
    speed: dict[str, str]          # fabric -> link rate


NVL72_SYSTEMS: dict[str, Nvl72System] = {s.key: s for s in (
    Nvl72System("gb200", "GB200-NVL72", {"ib": "QM9700", "roce": "SN5400"}, {"ib": "4xNDR", "roce": "400GbE"}),
    Nvl72System("gb300", "GB300-NVL72", {"ib": "Q3400", "roce": "SN5400"}, {"ib": "4xXDR", "roce": "400GbE"}),
)}


@dataclass(frozen=True)
class Nvl72Plan:
    """What the rule gives for ``racks`` NVL72 racks on ``radix``-port switches (module doc)."""

    system: str
    racks: int
    racks_per_unit: int
    units: int
    trays: int
    gpus: int
    rails: int
    leaves: int
    uplinks: int                   # per leaf (= tray ports per leaf)
    spines: int
    groups: int
    leaf_parallel: int

    @property
    def cables(self) -> dict[str, int]:
        """Scale-out cables per tier (node-leaf: one per tray NIC)."""
        return {"node-leaf": self.gpus, "leaf-spine": self.leaves * self.uplinks}


def nvl72_system(system: str) -> Nvl72System:
    if system not in NVL72_SYSTEMS:
        raise ParamError("system", system, f"use {', '.join(NVL72_SYSTEMS)}")
    return NVL72_SYSTEMS[system]


def _rack_spec(sys: Nvl72System) -> NvlinkSpec:
    spec = nvlink_specs()[sys.domain]
    assert spec.tray_part is not None
    return spec


def _unit_spec(sys: Nvl72System, rack: NvlinkSpec, nics: int, radix: int) -> SystemSpec:
    """The SU spec of :mod:`.superpod` for one unit of whole racks (module doc)."""
    per_unit = max(1, radix // 2 // rack.compute_trays)
    return SystemSpec(f"{sys.key}-nvl72", f"{sys.key.upper()} NVL72 racks", str(rack.tray_part),
                      per_unit * rack.compute_trays, 1, sys.switch, sys.speed, "groups", 0, "", rails=nics,
                      partial_leaf=True)


def plan_nvl72(system: str, racks: int, radix: int, nics: int = 4) -> Nvl72Plan:
    """Size ``racks`` racks of ``system`` on ``radix``-port switches, ``nics`` rails (module doc)."""
    sys = nvl72_system(system)
    if racks < 1:
        raise ParamError("racks", racks, "must be at least 1", "racks")
    rack = _rack_spec(sys)
    spec = _unit_spec(sys, rack, nics, radix)
    per_unit = spec.nodes_per_su // rack.compute_trays
    units = -(-racks // per_unit)
    try:
        p = plan_superpod(spec, units, radix)
    except ParamError:
        ok = [n * per_unit for n in range(1, 129) if _fits(spec, n, radix)]
        raise ParamError("racks", racks, f"{racks} {system.upper()} NVL72 racks on {radix}-port switches cannot be "
                         f"sized (no even spread of the leaf uplinks); at most {max(ok)} racks", "racks") from None
    trays = racks * rack.compute_trays
    return Nvl72Plan(system=sys.key, racks=racks, racks_per_unit=per_unit, units=units, trays=trays,
                     gpus=trays * rack.gpus_per_tray, rails=nics, leaves=p.leaves, uplinks=p.uplinks,
                     spines=p.spines, groups=p.groups, leaf_parallel=p.leaf_parallel)


def _fits(spec: SystemSpec, units: int, radix: int) -> bool:
    try:
        plan_superpod(spec, units, radix)
    except ParamError:
        return False
    return True


def partitions_meta(domains: list[str], gpus: int, tray_gpus: int, size: int) -> list[dict[str, object]]:
    """``meta["nvlink_partitions"]`` splitting each domain into partitions of ``size`` GPUs."""
    if size < 1 or gpus % size or size % tray_gpus:
        raise ParamError("partition", size, f"GPUs per NVLink partition: a multiple of {tray_gpus} (whole "
                         f"compute trays) that divides {gpus}", "NVLink partition size")
    return [{"domain": d, "gpus": list(range(k, k + size))} for d in domains for k in range(0, gpus, size)]


def nvl72(racks: int = 1, system: str = "gb200", fabric: str = "ib", partition: int | None = None,
          catalog: Catalog | None = None, name: str | None = None) -> Fabric:
    """``racks`` NVL72 racks of ``system`` on a rail-optimised leaf/spine fabric (module doc)."""
    sys = nvl72_system(system)
    tech_of(fabric)
    if fabric not in sys.switch:
        raise ParamError("fabric", fabric, f"use {' or '.join(sys.switch)}")
    rack = _rack_spec(sys)
    f = Fabric(catalog, name=name or f"{sys.key}-nvl72-{racks}r")
    sw = f.catalog.get(sys.switch[fabric])
    rate = LinkRate.parse(sys.speed[fabric])
    tray = f.catalog.get(str(rack.tray_part))
    plan = plan_nvl72(system, racks, sw.ports, tray.nics)
    check_lid_space(tech_of(fabric), plan.gpus, plan.leaves + plan.spines)
    rack_names = pad_names("rack", racks)
    domains, su_leaves = [], []
    per_leaf = plan.racks_per_unit * rack.compute_trays
    x0 = 0.0
    for u in range(plan.units):
        mine = rack_names[u * plan.racks_per_unit:(u + 1) * plan.racks_per_unit]
        names = [f"{r}-ct{i + 1:02d}" for r in mine for i in range(rack.compute_trays)]
        ports = add_node_row(f, tray, names, rate, x0)                                  # (tray, rail)
        x0 += (per_leaf * tray.nics + 4) * HOST_PITCH
        domains += [rack_meta(r, rack.id, names[k * rack.compute_trays:(k + 1) * rack.compute_trays])
                    for k, r in enumerate(mine)]
        lv = add_switches(f, sw, [f"su{u + 1}-rail{r}" for r in range(tray.nics)], 1)
        f.add_cables(ports.T.ravel(), switch_ports(f, lv, 1, len(names)).ravel(), HOST_CABLE_M, emit=False)
        su_leaves.append(lv)
    splan = plan_superpod(_unit_spec(sys, rack, tray.nics, sw.ports), plan.units, sw.ports)
    spine_tiers(f, sw, splan, su_leaves, None)
    f.meta = {"generator": "nvl72", "fabric": fabric, "params": {
        "racks": racks, "system": sys.key, "spec": rack.id, "switch": sw.id, "speed": str(rate),
        **({"partition": partition} if partition else {})},
        "plan": {"racks_per_unit": plan.racks_per_unit, "units": plan.units, "spines": plan.spines,
                 "groups": plan.groups, "leaf_parallel": plan.leaf_parallel},
        "oversubscription": {"leaf": "1:1"}, DOMAINS_KEY: domains}
    if partition:
        f.meta[PARTITIONS_KEY] = partitions_meta(rack_names, rack.gpus, rack.gpus_per_tray, partition)
    return finish(apply_auto_layout(f))


__all__ = ["NVL72_SYSTEMS", "Nvl72Plan", "Nvl72System", "nvl72", "nvl72_system", "partitions_meta", "plan_nvl72"]
