"""NVIDIA DGX SuperPOD compute fabrics, sized as the published reference architectures (RAs) size them.

A scalable unit (SU) is ``nodes_per_su`` DGX nodes of 8 GPUs / 8 NICs and ``8 × leaves_per_rail``
rail leaves: NIC i of a node goes to a leaf of rail i. Every leaf is non-blocking (half its ports
down, half up), so a leaf has ``u = radix / 2`` uplinks. The RA tables are in
``tests/data/superpod/ra_tables.json`` with their URLs; the rule below reproduces every row.

**The sizing rule** (one per system; L leaves, u uplinks per leaf, R ports per spine, T = L·u):

1. *Two tiers, every leaf to every spine.* Spines S = the smallest divisor of ``u`` that is at
   least ⌈T / R⌉ (each leaf then runs ``u / S`` parallel links to every spine). Divisors, not
   powers of two, are why H100 at 3 SUs has 16 spines (⌈768/64⌉ = 12 → 16, a divisor of 32) and
   B300-XDR at 4 and 8 SUs has 18 and 36 (⌈2304/144⌉ = 16 → 18, ⌈4608/144⌉ = 32 → 36, divisors
   of 72).
2. When no divisor of ``u`` reaches ⌈T / R⌉ (more spines than a leaf has uplinks), the RAs grow
   in one of two ways, which is the one thing that differs between systems:

   * ``core`` (DGX H100, DGX B200): a third tier. Each SU is a pod whose ``8 · u / (R/2)`` spines
     take every leaf of the SU (``(R/2) / spines`` parallel links) and send R/2 links up; spine j
     of every pod goes to core plane j (the deployed three-tier Clos), C = SUs · spines-per-SU ·
     (R/2) / R cores, spread evenly over the planes. B200 at 16/32/64 SUs: 128/256/512 spines,
     64/128/256 cores.
   * ``groups`` (DGX B300): still two tiers, the spines split into G groups (G the smallest
     divisor of the 8 rails for which rule 1 fits each group); the leaves of rail r belong to
     group r mod G. B300 at 8 SUs: 2 groups of 32 spines; at 16 SUs: 4 groups of 32.

Choices the RAs leave open, and the one taken here:

* DGX H100: the RA's SU is 32 node slots with one DGX removed for the UFM (``nodes = 32·SUs − 1``,
  node–leaf cables = GPUs + 4). The UFM appliance takes the last slot of the last SU and its four
  compute-fabric links go to rails 0–3 of that SU (port 32 of those leaves; port 32 of rails 4–7
  stays free). The RA does not say which leaves the UFM uses.
* Leaf ports: nodes on ports 1…u in node order, uplinks on u+1…2u in spine order (as ``rail``).
* Cable lengths and types. The RAs stand four DGX B300 in a rack (B300 and B300-XDR RAs,
  *DGX SuperPOD Architecture*: "four DGX B300 fit within a single rack"; 64 or 72 nodes are 16 or 18
  compute racks an SU) and the switches in network/management racks of their own (the same pages'
  "management rack configuration with networking switches ... and UFM appliances"); an H100/B200 SU
  is 8 racks of four DGX around its leaf rack. Node–leaf links are laid at ``NODE_LEAF_M`` = 10 m, the
  longest such run (our estimate; the RAs print no lengths): the farthest compute rack of an 18-rack
  SU stands 9 racks (600 mm wide: 5.4 m) from a network rack in the middle of the row, plus about 2 m
  up to and down from the overhead tray at each end (≈ 9.4 m), ordered as 10 m; nearer racks would
  order shorter fibres (the BOM bins one length). Leaf–spine links at 15 m, spine–core at 30 m, the
  UFM's at 2 m (``HOST_CABLE_M``: the RA's management rack holds the UFM appliances with networking
  switches; taken here as its leaves' rack). The cabling picks each link's part by its cages
  (:mod:`~fabricviz.model.cage_cables`):
  a DGX H100/B200's compute ports sit two to a twin-port OSFP cage and go to two rails' leaves, so
  every node–leaf link takes twin-port optics at both ends (``NDR-TWIN-SR4``); a DGX B300's ConnectX-8s
  have a single-port OSFP cage each, so a leaf cage's two links to two nodes take a twin-port module
  in the leaf cage, a single-port module in each ConnectX-8 cage and one straight MPO fibre per link
  (``NDR-SPLIT-SR4``: MMA4Z00-NS + MMA4Z00-NS400 + MFP7E10; ``XDR-SPLIT-DR4``: MMS4A00 + MMS4A20 +
  single-mode fibre; NVIDIA's LinkX pages pair the twin-port module with two single-port ones over
  straight fibres at 400G / 800G, the 1:2 splitter fibre being for 200G ends), not the 2 m copper
  splitters (MCP7Y00, MCA7K10) of leaves standing in the node racks. The UFM's single-port HCAs
  take single-port modules too (their leaf ports share cage 16 with the last DGX's link, whose
  twin-port module serves both; a copper splitter there has no room).
* Each SU is stored as one switch group (``meta["groups"]``: its leaves, and its pod's spines in a
  three-tier design), so it is drawn as one unit even where its leaves share no node (B300); with
  ``planes`` its group holds every plane's leaves, its nodes under them all (:mod:`.planes`).
* DGX B300 (Spectrum-X RA): the RA's fabric is twin-planar — each GPU's 800G port splits into
  2 × 400GbE, one per plane. Multi-plane NICs and port breakout are not modelled here (issue 27's
  multi-plane and breakout parts); this generator keeps the RA's switch and cable counts with
  two leaves per rail per SU (``railNa``/``railNb``), each taking half of the SU's 64 nodes, and
  builds InfiniBand NDR by default (``--fabric roce``: 400GbE on 64-port SN5400). From 8 SUs the
  spine groups are separate switch fabrics (the RA's planes are too, each with every GPU on it);
  here every node reaches every group through its rails, but a group is its own subnet, so one
  subnet manager reaches one group only (one SM per plane is the multi-plane part of issue 27).
* The grouping of the spines for ``groups`` (by rail, r mod G) and the pod = SU split for ``core``.
* **Planes** (``planes`` > 1, :data:`PLANE_SYSTEMS`). DGX B300 ``--planes 2`` builds the RA's
  twin-planar fabric: each ConnectX-8 port splits into 2 × 400G (``2xXDR``), and each plane is one
  leaf per rail per SU taking all 64 nodes of the SU (64 down, 64 up) under its own spines, sized
  by rule 1 with ``u`` = 64. On 144-port Quantum-X800 (Q3400) running its ports at 400G this gives
  per plane 8 leaves per SU and 4 / 8 / 16 / 32 / 64 spines at 1 / 2 / 4 / 8 / 16 SUs: with two
  planes exactly the RA table's leaves and spines (16 per SU; 8 / 16 / 32 / 64 / 128), and every
  GPU on both planes, so no spine groups are needed. ``--fabric roce --planes 2`` is the RA's own
  Spectrum-X build: each ConnectX-8 800G port as 2 × 400GbE, SN5600s broken out to 128 × 400GbE
  (part ``SN5600-2x400GbE``, :func:`switch_part`), the same leaves and spines per plane, and every
  plane routed by ECMP on its own (``route``/``trace``/``simulate`` per plane). The RA counts cables:
  one per leaf cage (a splitter to two GPUs, or up to the spines), so ``info``'s cables to order by
  tier (``breakout_cables_by_tier``) equal its table, and its links (``cables_by_tier``) are twice that.
  Every cage there is shared at both ends (a leaf cage, a ConnectX-8's split port), so each takes
  twin-port optics (``400G-TWIN-SR4``, :mod:`~fabricviz.model.cage_cables`): ``bom`` orders one fibre
  pair per leaf cage (the table's cables) and one twin-port module per cage at both ends.
  On InfiniBand the cable records are links (twice the table's, a node–leaf link per GPU per plane).
  DGX B300-XDR ``--planes 2|4`` splits each 800G port into 2 × 400G or 4 × 200G, each plane a copy
  of the RA's single-plane fabric at that rate (switches × planes; the XDR RA tabulates one plane).
* DGX B300-XDR: the RA's 18-SU row prints 9,216 GPUs for 1,296 nodes; 1,296 × 8 = 10,368, which
  equals the row's own node–leaf cable count. fabricviz builds 10,368.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..model import Catalog, Fabric, FabricError, LinkRate, Part
from ..model.breakout import broken_out
from ..model.errors import ParamError
from ..model.fabric import KIND_CODE, NIC
from .autolayout import apply_auto_layout
from .common import (
    CORE_CABLE_M,
    HOST_CABLE_M,
    HOST_PITCH,
    LEAF_CABLE_M,
    add_switches,
    check_lid_space,
    finish,
    pad_names,
    switch_ports,
    tech_of,
    use_part,
)
from .fattree import _join
from .planes import planarize

RAILS = 8
#: Node–leaf run in metres: the farthest compute rack of an SU to its leaves' network rack (module doc).
NODE_LEAF_M = 10.0
#: Part id of the UFM appliance that takes one H100 node slot.
UFM_PART = "UFM-APPLIANCE-3.1"
#: Systems built multi-plane (``--planes``), per fabric: the switch of one plane and one plane's link
#: rate per plane count (a ConnectX-8's 4xXDR port as 2 × 2xXDR or 4 × 1xXDR; its 800GbE port as
#: 2 × 400GbE on the Spectrum-X RA's SN5600 broken out to 128 × 400GbE).
PLANE_SYSTEMS: dict[str, dict[str, tuple[str, dict[int, str]]]] = {
    "dgx-b300": {"ib": ("Q3400", {2: "2xXDR"}), "roce": ("SN5600-2x400GbE", {2: "400GbE"})},
    "dgx-b300-xdr": {"ib": ("Q3400", {2: "2xXDR", 4: "1xXDR"})},
}


@dataclass(frozen=True)
class SystemSpec:
    """One published SuperPOD design: its server, SU shape, switches and how it grows."""

    key: str
    title: str
    server: str                  # catalog part id of the DGX
    nodes_per_su: int            # node slots per SU (H100: one of them is the UFM's)
    leaves_per_rail: int
    switch: dict[str, str]       # fabric (ib / roce) -> switch part id
    speed: dict[str, str]        # fabric -> link rate
    growth: str                  # "core" or "groups" (module doc, rule 2)
    ufm_links: int               # compute-fabric links of the UFM appliance (0: none in the table)
    source: str                  # the RA page whose table this reproduces
    planes: int = 1              # >1: one plane of a multi-plane design (generate.superpod_planes)
    rails: int = RAILS           # NICs per node, one rail leaf each (an NVL72 compute tray: 4)
    partial_leaf: bool = False   # a leaf's nodes may take fewer than half its ports; as many uplinks


SYSTEMS: dict[str, SystemSpec] = {s.key: s for s in (
    SystemSpec("dgx-h100", "DGX SuperPOD with DGX H100", "DGX-H100", 32, 1,
               {"ib": "QM9700", "roce": "SN5400"}, {"ib": "4xNDR", "roce": "400GbE"}, "core", 4,
               "https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100/"
               "latest/network-fabrics.html"),
    SystemSpec("dgx-b200", "DGX SuperPOD with DGX B200", "DGX-B200", 32, 1,
               {"ib": "QM9700", "roce": "SN5400"}, {"ib": "4xNDR", "roce": "400GbE"}, "core", 0,
               "https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/"
               "latest/dgx-superpod-architecture.html"),
    SystemSpec("dgx-b300", "DGX SuperPOD with DGX B300 (Spectrum-X RA)", "DGX-B300", 64, 2,
               {"ib": "QM9700", "roce": "SN5400"}, {"ib": "4xNDR", "roce": "400GbE"}, "groups", 0,
               "https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300/"
               "latest/dgx-superpod-architecture.html"),
    SystemSpec("dgx-b300-xdr", "DGX SuperPOD with DGX B300 and Quantum-X800", "DGX-B300", 72, 1,
               {"ib": "Q3400"}, {"ib": "4xXDR"}, "groups", 0,
               "https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300-xdr/"
               "latest/dgx-superpod-architecture.html"),
)}


@dataclass(frozen=True)
class SuperpodPlan:
    """What the sizing rule gives for one system and SU count (module doc)."""

    system: str
    units: int
    radix: int
    nodes: int                   # DGX nodes (H100: node slots less the UFM's)
    gpus: int
    leaves: int
    uplinks: int                 # per leaf (= node ports per leaf)
    spines: int
    groups: int                  # spine groups (2 tiers) or pods (3 tiers: one per SU)
    leaf_parallel: int           # links from a leaf to each spine it reaches
    cores: int
    core_parallel: int           # links from a spine to each core of its plane
    ufm_links: int
    rails: int = RAILS

    @property
    def spines_per_group(self) -> int:
        return self.spines // self.groups

    @property
    def cables(self) -> dict[str, int]:
        """Cables per tier, named as the RA tables name them."""
        return {"node-leaf": self.gpus + self.ufm_links, "leaf-spine": self.leaves * self.uplinks,
                "spine-core": self.cores * self.radix}


def _divisor_at_least(n: int, low: int) -> int | None:
    """The smallest divisor of ``n`` that is at least ``low`` (None: none)."""
    return next((d for d in range(max(low, 1), n + 1) if n % d == 0), None)


def plan_superpod(system: str | SystemSpec, units: int, radix: int) -> SuperpodPlan:
    """Size ``units`` SUs of ``system`` on ``radix``-port switches by the module doc's rule."""
    spec = system if isinstance(system, SystemSpec) else system_spec(system)
    if units < 1:
        raise ParamError("units", units, "must be at least 1", "scalable units")
    per_leaf = spec.nodes_per_su // spec.leaves_per_rail
    blocking = per_leaf > radix // 2 if spec.partial_leaf else per_leaf != radix // 2   # a plane: at most half
    if spec.nodes_per_su % spec.leaves_per_rail or blocking:
        raise FabricError(f"{spec.title}: a leaf takes {spec.nodes_per_su // spec.leaves_per_rail} nodes, "
                          f"a {radix}-port switch is non-blocking at {radix // 2}")
    plan = _size(spec, units, radix)
    if plan is None:
        ok = [n for n in range(1, 129) if _size(spec, n, radix) is not None]
        raise ParamError("units", units, f"{spec.title} on {radix}-port switches cannot be sized (no even spread "
                         f"of {radix // 2} leaf uplinks); it takes {_ranges(ok)} SUs", "scalable units")
    return plan


def _size(spec: SystemSpec, units: int, radix: int) -> SuperpodPlan | None:
    """The plan of :func:`plan_superpod`, None when the rule finds no even spread."""
    kinds = spec.rails * spec.leaves_per_rail               # leaves per SU
    u = spec.nodes_per_su // spec.leaves_per_rail if spec.partial_leaf else radix // 2
    leaves = units * kinds
    total = leaves * u
    nodes = units * spec.nodes_per_su - (1 if spec.ufm_links else 0)
    base = SuperpodPlan(system=spec.key, units=units, radix=radix, nodes=nodes, gpus=nodes * spec.rails,
                        leaves=leaves, uplinks=u, spines=0, groups=1, leaf_parallel=0, cores=0, core_parallel=0,
                        ufm_links=spec.ufm_links, rails=spec.rails)
    s = _divisor_at_least(u, math.ceil(total / radix))
    if s is not None:
        return replace(base, spines=s, leaf_parallel=u // s)
    if spec.growth == "groups":
        for g in (d for d in range(2, spec.rails + 1) if spec.rails % d == 0):
            s = _divisor_at_least(u, math.ceil(total / g / radix))
            if s is not None:
                return replace(base, spines=g * s, groups=g, leaf_parallel=u // s)
        return None
    half = radix // 2
    per_pod = kinds * u // half                             # spines per SU, each R/2 down
    cores = units * per_pod * half // radix
    if u % per_pod or cores % per_pod or half % (cores // per_pod):
        return None
    return replace(base, spines=units * per_pod, groups=units, leaf_parallel=u // per_pod, cores=cores,
                   core_parallel=half // (cores // per_pod))


def _ranges(values: list[int]) -> str:
    """``[1, 2, 3, 5]`` → ``"1-3, 5"``."""
    runs: list[list[int]] = []
    for v in values:
        if runs and runs[-1][1] == v - 1:
            runs[-1][1] = v
        else:
            runs.append([v, v])
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in runs) or "no"


#: Systems whose RA publishes no compute-fabric counts, with what to use instead.
UNPUBLISHED = {s: "the DGX SuperPOD GB200 RA tabulates no compute-fabric switch or cable counts; "
                  "'generate nvl72' builds NVL72 racks on a rail-optimised fabric by the same sizing rule"
               for s in ("gb200-nvl72", "dgx-gb200", "gb200")}


def system_spec(system: str) -> SystemSpec:
    if system in UNPUBLISHED:
        raise ParamError("system", system, UNPUBLISHED[system])
    if system not in SYSTEMS:
        raise ParamError("system", system, f"use {', '.join(SYSTEMS)}")
    return SYSTEMS[system]


def add_node_row(f: Fabric, part: Part, names: list[str], rate: LinkRate, x0: float) -> np.ndarray:
    """Servers of ``part`` in a row from ``x0``; their NIC ports as an array (server, NIC)."""
    cat = f.catalog
    assert part.nic_part is not None
    nic = cat.get(part.nic_part)
    per = part.nics * nic.ports
    use_part(f, part)
    xs = x0 + (np.arange(len(names)) * per + (per - 1) / 2) * HOST_PITCH
    mode = str(rate) if nic.modes[0] != rate else None
    sids = f.add_servers(part.id, names, xs, 0.0, mode=mode, emit=False)
    t = f.devices_t
    kids = np.flatnonzero(t.alive & np.isin(t.parent, sids) & (t.kind == KIND_CODE[NIC]))
    kids = kids[np.lexsort((t.local[kids], t.parent[kids]))]
    first = t.first_port[kids].astype(np.int64)
    ports = (first[:, None] + np.arange(nic.ports)[None, :]).ravel()
    return ports.reshape(len(names), per)


def plane_spec(system: str, planes: int) -> SystemSpec:
    """The spec of one plane of a ``planes``-plane ``system`` (module doc, *Planes*): per fabric the
    plane's switch and rate."""
    spec = system_spec(system)
    if planes == 1:
        return spec
    if system not in PLANE_SYSTEMS:
        raise ParamError("planes", planes, f"the {spec.title} RA builds one plane "
                         f"(multi-plane: {', '.join(PLANE_SYSTEMS)})")
    per = PLANE_SYSTEMS[system]
    counts = sorted({n for _, speeds in per.values() for n in speeds})
    if planes not in counts:
        raise ParamError("planes", planes, f"a ConnectX-8 port splits into {' or '.join(map(str, counts))} planes")
    fits = {fab: sw for fab, (sw, speeds) in per.items() if planes in speeds}
    return replace(spec, leaves_per_rail=1, switch=fits,
                   speed={fab: per[fab][1][planes] for fab in fits}, planes=planes,
                   partial_leaf=True)


def switch_part(catalog: Catalog, part_id: str) -> Part:
    """The catalog's part ``part_id``, or a broken-out part named ``<base>-<mode>`` (``SN5600-2x400GbE``:
    :func:`~fabricviz.model.breakout.broken_out`) when the catalog has the base and the mode."""
    if part_id in catalog:
        return catalog.get(part_id)
    base, _, mode = part_id.rpartition("-")
    if base and base in catalog and mode in catalog.get(base).breakouts:
        return broken_out(catalog.get(base), mode)
    return catalog.get(part_id)                # the catalog's own error, naming the id


def superpod(system: str | SystemSpec, units: int = 1, fabric: str | None = None, catalog: Catalog | None = None,
             name: str | None = None, planes: int = 1) -> Fabric:
    """Build the compute fabric of ``units`` SUs of ``system`` (:data:`SYSTEMS`, or one plane's spec);
    ``planes`` > 1: a multi-plane design of that many planes (module doc, *Planes*)."""
    if planes != 1:
        assert isinstance(system, str)
        one = superpod(plane_spec(system, planes), units, fabric, catalog, name)
        return planarize(one, planes)
    spec = system if isinstance(system, SystemSpec) else system_spec(system)
    fabric = fabric or "ib"
    tech_of(fabric)
    if fabric not in spec.switch:
        why = f"the {spec.title} RA is built on {' or '.join(spec.switch)} only"
        raise ParamError("fabric", fabric, why, words=f"fabric {fabric}: {why}")
    f = Fabric(catalog, name=name or f"{spec.key}-{units}su")
    sw = switch_part(f.catalog, spec.switch[fabric])
    rate = LinkRate.parse(spec.speed[fabric])
    mode = str(rate) if spec.planes > 1 and rate != sw.rate else None     # a plane's switches run at its rate
    plan = plan_superpod(spec, units, sw.ports)
    server = f.catalog.get(spec.server)
    check_lid_space(tech_of(fabric), plan.gpus + plan.ufm_links,
                    plan.leaves + plan.spines + plan.cores)
    f.meta = {"generator": "superpod", "fabric": fabric, "params": {
        "system": spec.key, "units": units, "switch": sw.id, "server": server.id, "speed": str(rate)},
        "plan": {"spines": plan.spines, "groups": plan.groups, "cores": plan.cores,
                 "leaf_parallel": plan.leaf_parallel, "core_parallel": plan.core_parallel,
                 "source": spec.source},
        "oversubscription": {"leaf": "1:1"}}
    lpr = spec.leaves_per_rail
    per_leaf = spec.nodes_per_su // lpr
    su_leaves: list[np.ndarray] = []
    x0 = 0.0
    for s in range(units):
        last = s == units - 1
        n = spec.nodes_per_su - (1 if last and spec.ufm_links else 0)
        ports = add_node_row(f, server, pad_names(f"su{s + 1}-dgx", n), rate, x0)      # (node, rail)
        x0 += (spec.nodes_per_su * RAILS + 4) * HOST_PITCH
        suffix = [""] if lpr == 1 else [chr(ord("a") + j) for j in range(lpr)]
        lv = add_switches(f, sw, [f"su{s + 1}-rail{r}{x}" for r in range(RAILS) for x in suffix], 1, mode)
        for r in range(RAILS):
            for j in range(lpr):
                mine = ports[j * per_leaf:(j + 1) * per_leaf, r]
                f.add_cables(mine, switch_ports(f, lv[[r * lpr + j]], 1, len(mine)).ravel(),
                             NODE_LEAF_M, emit=False)
        if last and spec.ufm_links:
            ufm = f.catalog.get(UFM_PART)
            up = add_node_row(f, ufm, [f"su{s + 1}-ufm"], rate, x0 - 4 * HOST_PITCH * RAILS).ravel()
            k = spec.ufm_links
            # in the leaves' rack, on optics: the UFM's port shares leaf cage 16 with the last DGX's link,
            # which holds a twin-port module (a DGX cage takes no copper splitter), so a splitter has no room
            f.add_cables(up[:k], switch_ports(f, lv[:k], per_leaf, 1).ravel(), HOST_CABLE_M, ctype="transceiver",
                         emit=False)
        su_leaves.append(lv)
    pods = spine_tiers(f, sw, plan, su_leaves, mode)
    # each SU is one group (a B300 SU's a- and b-leaves share no node; a B200 pod has its spines)
    f.meta["groups"] = [{"name": f"su{s + 1}", "switches": [f.name_of(int(d)) for d in (*lv, *sp)]}
                        for s, (lv, sp) in enumerate(zip(su_leaves, pods, strict=True))]
    return finish(apply_auto_layout(f))


def spine_tiers(f: Fabric, sw: Part, plan: SuperpodPlan, su_leaves: list[np.ndarray],
                 mode: str | None) -> list[np.ndarray]:
    """Spines (and cores) and their cables, per the plan; the spines of each SU's pod (none when the
    spines are shared by all SUs)."""
    u = plan.uplinks
    if plan.cores == 0:
        sp = add_switches(f, sw, pad_names("spine", plan.spines), 2, mode)
        spg = plan.spines_per_group
        rail = np.arange(len(su_leaves[0])) // (len(su_leaves[0]) // plan.rails)    # leaves are rail-major
        for g in range(plan.groups):
            lower = np.concatenate([lv[rail % plan.groups == g] for lv in su_leaves])
            _join(f, lower, sp[g * spg:(g + 1) * spg], u, plan.leaf_parallel, LEAF_CABLE_M, group=None)
        return [np.zeros(0, np.int64) for _ in su_leaves]
    per_pod = plan.spines // plan.units
    pods = []
    for s, lv in enumerate(su_leaves):
        sp = add_switches(f, sw, [f"su{s + 1}-spine{j + 1}" for j in range(per_pod)], 2)
        _join(f, lv, sp, u, plan.leaf_parallel, LEAF_CABLE_M, group=None)
        pods.append(sp)
    cores = add_switches(f, sw, pad_names("core", plan.cores), 3)
    cpp = plan.cores // per_pod                              # cores per plane
    for j in range(per_pod):
        plane = np.array([sp[j] for sp in pods], np.int64)
        _join(f, plane, cores[j * cpp:(j + 1) * cpp], sw.ports // 2, plan.core_parallel, CORE_CABLE_M,
              group=None)
    return pods


__all__ = ["NODE_LEAF_M", "PLANE_SYSTEMS", "SYSTEMS", "SuperpodPlan", "SystemSpec", "add_node_row", "plan_superpod",
           "plane_spec", "spine_tiers", "superpod", "switch_part", "system_spec"]
