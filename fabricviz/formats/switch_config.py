"""Switch and NIC configuration for a lossless RoCE design, from its :class:`LosslessPlan`.

One front for the three writers (:mod:`.sonic_config`, :mod:`.nvue_config`, :mod:`.nic_config`):
:func:`switch_views` gathers, per Ethernet switch, the cabled lossless ports with the plan's
numbers (headroom, XOFF/XON, ECN) and their names on the switch OS; :func:`write_switch_configs`
renders every file first and writes them only when all of them could be made, so a refusal
(bad argument, no RoCE switch, a buffer budget that does not fit) writes nothing.

Traffic classes follow NVIDIA's RoCE defaults (Cumulus ``qos roce``, ConnectX ``mlnx_qos``):
RoCE data on DSCP ``dscp`` → switch priority = traffic class = PG = queue ``priority``
(lossless, PFC), CNPs on DSCP 48 → priority/queue 6 (strict), everything else on 0. Every
lossless priority of the design (``meta.roce.priorities``, default 3) is configured; each has
its own DSCP: ``dscp`` for the first (default 26, NVIDIA's), AF<p>1 = 8p + 2 for the others
(34 for 4), unless given one per priority.

Port names:

* SONiC names a port by its first SerDes lane, ``Ethernet<first lane>``, and writes its
  lanes (``PORT|lanes``, mandatory in sonic-port.yang) from the part's port→lane map
  (``Part.port_lanes``, read from the SKU's ``port_config.ini``: SN5600, SN5400, SN4700 8
  lanes a port; SN3700 4); a part without a map gets consecutive lanes, 8 a port for 400G+
  native ports (QSFP-DD/OSFP cages), 4 below (QSFP28/QSFP56);
* Cumulus Linux names front-panel port ``n`` ``swp<n>``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..ethernet.lossless import lossless_plan
from ..ethernet.roce_meta import RoceMetaError
from ..model import FabricError
from ..model.atomic import write_atomic
from ..model.breakout import cage_of
from ..model.fabric import KIND_CODE, NIC
from ..model.tech import rates_gbps
from .nic_config import nic_script
from .nvue_config import nv_script, startup_yaml
from .sonic_config import config_db_text
from .switch_types import CNP_DSCP, CNP_PRIORITY, ExportSettings, NicPort, PortConfig, SwitchConfig

if TYPE_CHECKING:  # pragma: no cover
    from ..ethernet.lossless import LosslessPlan
    from ..model.catalog import Part
    from ..model.fabric import Fabric

OSES = ("sonic", "cumulus")
#: Cable lengths SONiC's buffer tables know (pg_profile_lookup.ini), metres; longer runs
#: are named by their length rounded up to a whole metre.
SONIC_LENGTHS_M = (5, 40, 300)


class BufferBudgetExceeded(FabricError):
    """The headroom and reserves of one or more switches do not fit their buffer."""

    def __init__(self, message: str, switches: Sequence[str]) -> None:
        super().__init__(message)
        self.switches = tuple(switches)


class NotRoceDesign(FabricError):
    """The design has no cabled Ethernet switch port to configure."""


class DesignSettingsError(FabricError):
    """The design's own RoCE settings (``meta.roce``) are refused; the message names the field."""


def sonic_lanes(part: Part | None, num: int) -> tuple[int, ...]:
    """The SerDes lanes of front-panel port ``num`` of ``part`` (see the module docstring)."""
    if part is not None and part.lanes(num):
        return part.lanes(num)
    native = part.rate.gbps if part is not None and part.rate is not None else 0.0
    k = 8 if native >= 400 else 4
    return tuple(range((num - 1) * k, num * k))


def sonic_cable_length(metres: float) -> str:
    """The CABLE_LENGTH value for a run of ``metres``: the next SONiC length up."""
    for m in SONIC_LENGTHS_M:
        if metres <= m:
            return f"{m}m"
    return f"{int(math.ceil(metres - 1e-9))}m"


def check_priority(priority: int) -> None:
    """Refuse a lossless priority the export cannot use (ValueError, one line)."""
    if isinstance(priority, bool) or not isinstance(priority, int) or not 0 <= priority <= 7:
        raise ValueError(f"priority {priority!r}: an 802.1p priority 0-7")
    if priority in (0, CNP_PRIORITY):
        raise ValueError(f"priority {priority}: taken ({'best effort' if priority == 0 else 'CNPs'}); "
                         "use 1-5 or 7 (RoCE's usual: 3)")


def check_dscp(dscp: int) -> None:
    """Refuse a RoCE DSCP the export cannot use (ValueError, one line)."""
    if isinstance(dscp, bool) or not isinstance(dscp, int) or not 0 <= dscp <= 63:
        raise ValueError(f"dscp {dscp!r}: a DSCP value 0-63")
    if dscp == CNP_DSCP:
        raise ValueError(f"dscp {dscp}: taken by CNPs; use another (RoCE's usual: 26)")


def export_dscps(priorities: Sequence[int], dscp: int | Sequence[int] | None) -> tuple[int, ...]:
    """The DSCP of each lossless priority: ``dscp`` (one per priority, or one for the first;
    default 26) and AF<p>1 = 8p + 2 for the rest (see the module docstring); ValueError when
    two priorities would share one."""
    given = [] if dscp is None else [dscp] if isinstance(dscp, int) else list(dscp)
    if len(given) > 1 and len(given) != len(priorities):
        raise ValueError(f"dscp {','.join(map(str, given))}: one DSCP per lossless priority "
                         f"({','.join(map(str, priorities))})")
    for d in given:
        check_dscp(d)
    out = given if len(given) > 1 else [given[0] if given else 26] + [8 * p + 2 for p in priorities[1:]]
    for i, d in enumerate(out):
        if d in out[:i]:
            raise ValueError(f"dscp {d}: given to priorities {priorities[out.index(d)]} and {priorities[i]}; "
                             "one DSCP per lossless priority")
    return tuple(out)


def cumulus_port(part: Part | None, num: int) -> str:
    """Cumulus Linux's name of front-panel port ``num``: ``swp<n>``, a broken-out sub-port
    ``swp<cage>s<k>`` (Cumulus names breakout ports swp1s0 … swp1s3)."""
    if part is None or not part.breakout:
        return f"swp{num}"
    cage, sub = cage_of(part, num)
    return f"swp{cage}s{sub}"


def switch_views(fabric: Fabric, plan: LosslessPlan) -> list[SwitchConfig]:
    """Per Ethernet switch with lossless ports, in name order, its ports in port order."""
    pt, ct = fabric.ports_t, fabric.cables_t
    out = []
    for d, b in plan.switches.items():
        part = fabric.part_of(d)
        ports = []
        for p in plan.ports[pt.device[plan.ports] == d].tolist():
            num = int(pt.num[p])
            c = int(pt.cable[p])
            link = float(rates_gbps(ct.tech[c:c + 1], ct.speed[c:c + 1], ct.width[c:c + 1])[0])
            other = int(ct.port_b[c]) if int(ct.port_a[c]) == p else int(ct.port_a[c])
            lanes = sonic_lanes(part, num)
            ports.append(PortConfig(
                port=p, num=num, sonic_name=f"Ethernet{lanes[0]}", lanes=lanes, cumulus_name=cumulus_port(part, num),
                speed_gbps=link, cable_m=float(plan.cable_m[p]),
                cable_length=sonic_cable_length(float(plan.cable_m[p])),
                headroom=int(plan.headroom_bytes[p]), xoff=int(plan.xoff_bytes[p]),
                xon=int(plan.xon_bytes[p]), ecn_kmin=int(plan.ecn_kmin_bytes[p]),
                ecn_kmax=int(plan.ecn_kmax_bytes[p]), ecn_pmax=float(plan.ecn_pmax[p]),
                peer=fabric.name_of(int(pt.device[other]))))
        out.append(SwitchConfig(name=fabric.name_of(d), part=b.part, ports=tuple(ports),
                                buffer_bytes=b.buffer_bytes, shared_pool=b.shared_pool,
                                dynamic_th=b.dynamic_th))
    return sorted(out, key=lambda s: s.name)


def nic_ports(fabric: Fabric, plan: LosslessPlan) -> list[NicPort]:
    """Every NIC port cabled to a lossless switch port, by host then RDMA device."""
    pt, ct, dt = fabric.ports_t, fabric.cables_t, fabric.devices_t
    out = []
    for p in plan.ports.tolist():
        c = int(pt.cable[p])
        other = int(ct.port_b[c]) if int(ct.port_a[c]) == p else int(ct.port_a[c])
        nic = int(pt.device[other])
        if dt.kind[nic] != KIND_CODE[NIC]:
            continue
        parent = int(dt.parent[nic])
        host = fabric.name_of(parent) if parent >= 0 else fabric.name_of(nic)
        local = fabric.name_of(nic).rpartition("/")[2]
        dev = local if local.startswith("mlx5_") else "mlx5_0"
        if int(dt.nports[nic]) > 1:       # a dual-port card: one RDMA device per port
            base = int(local[5:]) if local.startswith("mlx5_") and local[5:].isdigit() else 0
            dev = f"mlx5_{base * int(dt.nports[nic]) + int(pt.num[other]) - 1}"
        out.append(NicPort(host=host, rdma_dev=dev, switch=fabric.name_of(int(pt.device[p])),
                           switch_port=fabric.port_name(p), cable_m=float(plan.cable_m[p])))
    return sorted(set(out), key=lambda n: (n.host, n.rdma_dev))


def render(fabric: Fabric, os: str, *, priority: int | Sequence[int] | None = None,
           dscp: int | Sequence[int] | None = None, mtu: int | None = None,
           method: str | None = None) -> dict[str, str]:
    """File name → text of every file the export writes (nothing written). ``priority``: the
    lossless priorities (None: the design's, ``meta.roce.priorities``, else 3); ``dscp``: see
    :func:`export_dscps`.

    Raises ``FabricError`` for a bad argument or a design without lossless Ethernet switch
    ports (:class:`DesignSettingsError` when the design's ``meta.roce`` is refused),
    :class:`BufferBudgetExceeded` when a switch's headroom does not fit its buffer — the budget
    of every lossless priority."""
    if os not in OSES:
        raise FabricError(f"--os {os!r}: one of {', '.join(OSES)}")
    prios = None if priority is None else (priority,) if isinstance(priority, int) else tuple(priority)
    try:
        for p in prios or ():
            check_priority(p)
        plan = lossless_plan(fabric, mtu=mtu, method=method, priorities=prios)
    except RoceMetaError as e:
        raise DesignSettingsError(f"{e.where}: {e}") from None
    except ValueError as e:
        raise FabricError(str(e)) from None
    try:
        for p in plan.priorities if prios is None else ():
            check_priority(p)
    except ValueError as e:
        raise DesignSettingsError(f"meta.roce.priorities: {e}") from None
    try:
        dscps = export_dscps(plan.priorities, dscp)
    except ValueError as e:
        raise FabricError(str(e)) from None
    if not plan.switches:
        raise NotRoceDesign("not a RoCE design (no cabled Ethernet switch port)")
    if plan.overflowing:
        bad = sorted(fabric.name_of(d) for d in plan.overflowing)
        worst = [plan.switches[d] for d in plan.overflowing]
        over = max(-b.shared_pool for b in worst)
        raise BufferBudgetExceeded(
            f"headroom does not fit the buffer of {', '.join(bad)} (over by up to {over:,.0f} B); "
            "nothing written (see `fabricviz headroom`)", bad)
    settings = ExportSettings(priorities=plan.priorities, dscps=dscps, mtu=plan.mtu, method=plan.method)
    files: dict[str, str] = {}
    views = switch_views(fabric, plan)
    if os == "sonic":
        for sw in views:
            files[f"{sw.name}.config_db.json"] = config_db_text(sw, settings)
    else:
        for sw in views:
            files[f"{sw.name}.nvue.yaml"] = startup_yaml(sw, settings)
            files[f"{sw.name}.nv.sh"] = nv_script(sw, settings)
    nics = nic_ports(fabric, plan)
    for host in sorted({n.host for n in nics}):
        files[f"{host}.nic.sh"] = nic_script(host, [n for n in nics if n.host == host], settings)
    for name in files:
        if "/" in name or name.startswith("."):
            raise FabricError(f"device name {name.rsplit('.', 2)[0]!r} cannot name a file")
    return files


def write_switch_configs(fabric: Fabric, os: str, out_dir: str | Path, *,
                         priority: int | Sequence[int] | None = None,
                         dscp: int | Sequence[int] | None = None, mtu: int | None = None,
                         method: str | None = None) -> list[Path]:
    """Write the ``os`` (sonic | cumulus) configuration of every RoCE switch and the NIC
    script of every host into ``out_dir`` (created if missing); return the paths written.

    Every file is rendered before the first is written (each write atomic), so a refusal
    (see :func:`render`) leaves ``out_dir`` untouched."""
    files = render(fabric, os, priority=priority, dscp=dscp, mtu=mtu, method=method)
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise FabricError(f"{out}: cannot create the folder ({e.strerror or e})") from None
    paths = []
    for name, text in files.items():
        path = out / name
        write_atomic(path, text)
        if name.endswith(".sh"):
            path.chmod(path.stat().st_mode | 0o111)
        paths.append(path)
    return paths

