"""QoS tables as OpenSM 3.3.23 programs them: SL2VL, VL arbitration, VL high limit.

Given a discovered :class:`~fabricviz.ib.subnet.Subnet` and the QoS options of an
``opensm.conf`` (:class:`QosOptions`, read by :mod:`fabricviz.formats.opensm_conf`),
:func:`compute_qos` gives what OpenSM's ``osm_qos_setup`` writes into every port.
What OpenSM does (``opensm/osm_qos.c``, ``osm_port.c``, ``osm_subnet.c``):

* ``qos FALSE`` (the default): nothing. OpenSM sends no SL2VL or VLArbitration MAD and
  leaves VLHighLimit alone; the ports keep what they had (hardware defaults).
  :attr:`QosTables.enabled` is False and the tables are empty.
* Four option sets, one per port type: CA ports (``qos_ca_*``), switch port 0
  (``qos_sw0_*``), switch external ports (``qos_swe_*``), router ports (``qos_rtr_*``).
  Each field falls back on its own to the plain ``qos_*`` value, then to OpenSM's built-in
  default (:data:`DEFAULT_SL2VL`, :data:`DEFAULT_VLARB_HIGH`, :data:`DEFAULT_VLARB_LOW`,
  high limit 0).
* Operational VLs of a linked port = min(its VLCap, its peer's VLCap), capped by the
  ``max_op_vls`` option (default 5 = VL0-14); a port with no peer (enhanced switch port 0)
  keeps its own value, capped the same way. ``qos_max_vls`` is parsed and checked but
  3.3.23 uses it nowhere: it does not limit anything.
* Every VL OpenSM writes is masked to the port's operational VLs: ``vl & (2^(OperVLs-1) - 1)``
  in PortInfo encoding (VL0-7 -> mask 7); in SL2VL tables VL15 stays 15.
  The mask of a switch SL2VL entry is that of the *output* port.
* Switches: on every external port whose link is up, VLArbitration (``qos_swe``) and
  VLHighLimit; SL2VL for every (in port, out port) with in = 0..N (all ports, also
  unlinked ones) and out = every up external port, plus out = 0 when the switch has an
  enhanced port 0. An enhanced port 0 then also gets the ``qos_sw0`` set as an end port:
  VLArbitration, VLHighLimit and its (0, 0) SL2VL table (written after, so sw0 wins there).
  A base port 0 gets nothing of its own.
* CA ports: VLArbitration, VLHighLimit, and one SL2VL table (``qos_ca``).
* VLArbitration: the first ``VLArbLowCap`` / ``VLArbHighCap`` entries of the 64-entry list
  (one 32-entry block, then ``cap % 32`` entries of the second when cap > 32). A port with
  VLCap 1 (one data VL) gets no VLArbitration and VLHighLimit 0.

Assumed, not modelled: switches announce SL-mapping support (PortInfo IsSLMappingSupported,
as ibsim and NVIDIA switches do); ``use_optimized_slvl FALSE`` (OpenSM's default; with TRUE
and a switch that supports optimized SL2VL programming the tables of out port 0 may differ);
routing engines without their own SL2VL hook (minhop, updn, ftree: all fabricviz routes).
On OpenSM's very first sweep a switch *external* port still has the OperVLs it had before
the SM, because OpenSM sets them in the link manager after QoS, and masks with those; this
module gives the settled value (``first_sweep=True``: the first-sweep one). Both are the same
whenever ``max_op_vls`` does not cut below the VLCaps (measured against OpenSM under ibsim).

Port capabilities come from :data:`IB_PORT_CAPS` (per technology, not per catalog part):
VLCap VL0-7 (8 data VLs) and 8 + 8 VL arbitration entries, as ibsim reports, and as
``smpquery portinfo`` typically shows on ConnectX-6/7 and Quantum/Quantum-2 (not checked
against a datasheet here; override with ``caps=`` / ``caps_by_guid=``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from .subnet import Subnet, peer_ports

if TYPE_CHECKING:
    from .routing import Routing

NUM_SLS = 16
VLARB_ENTRIES = 64                 # two blocks of 32 per table (OpenSM parses 64 pairs)
VLARB_BLOCK = 32
MAX_OP_VLS_DEFAULT = 5             # OSM_DEFAULT_MAX_OP_VLS: VL0-14
#: OpenSM 3.3.23 built-in defaults (osm_base.h OSM_DEFAULT_QOS_*), parsed.
DEFAULT_SL2VL: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 7)
DEFAULT_VLARB_HIGH: tuple[tuple[int, int], ...] = ((0, 4),) + tuple((v, 0) for v in range(1, 15))
DEFAULT_VLARB_LOW: tuple[tuple[int, int], ...] = ((0, 0),) + tuple((v, 4) for v in range(1, 15))
DEFAULT_HIGH_LIMIT = 0
DEFAULT_MAX_VLS = 15
PORT_TYPES = ("ca", "sw0", "swe", "rtr")
#: PortInfo VLCap / OperationalVLs code <-> number of data VLs.
VL_CODE = {1: 1, 2: 2, 4: 3, 8: 4, 15: 5}
DATA_VLS = {c: n for n, c in VL_CODE.items()}


@dataclass(frozen=True)
class QosSet:
    """One option set as written in opensm.conf; None = not set (fall back)."""
    max_vls: int | None = None
    high_limit: int | None = None
    vlarb_high: tuple[tuple[int, int], ...] | None = None
    vlarb_low: tuple[tuple[int, int], ...] | None = None
    sl2vl: tuple[int, ...] | None = None


@dataclass(frozen=True)
class QosOptions:
    """The opensm.conf options that decide the QoS tables."""
    qos: bool = False
    default: QosSet = QosSet()            # qos_*
    ca: QosSet = QosSet()                 # qos_ca_*
    sw0: QosSet = QosSet()                # qos_sw0_*
    swe: QosSet = QosSet()                # qos_swe_*
    rtr: QosSet = QosSet()                # qos_rtr_*
    max_op_vls: int = MAX_OP_VLS_DEFAULT  # PortInfo code 1..5 (not a qos_ key, but it sets OperVLs)
    use_optimized_slvl: bool = False      # parsed; TRUE is not modelled (see module doc)

    def resolved(self, port_type: str) -> QosConfig:
        """The effective set of one port type ("ca", "sw0", "swe", "rtr")."""
        return resolve(getattr(self, port_type), self.default)


@dataclass(frozen=True)
class QosConfig:
    """An option set after OpenSM's fallbacks: what is programmed before masking."""
    max_vls: int
    high_limit: int
    vlarb_high: tuple[tuple[int, int], ...]    # 64 (vl, weight) entries
    vlarb_low: tuple[tuple[int, int], ...]
    sl2vl: tuple[int, ...]                     # 16 VLs


def _pad64(entries: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """OpenSM reads 64 pairs; missing ones are (0, 0), a VL above 14 wraps modulo 15."""
    got = tuple((vl % 15, w & 0xFF) for vl, w in entries[:VLARB_ENTRIES])
    return got + ((0, 0),) * (VLARB_ENTRIES - len(got))


def resolve(opt: QosSet, dflt: QosSet) -> QosConfig:
    """Field by field: the per-type value, else the qos_* value, else OpenSM's default."""
    def pick(name: str, builtin):
        v = getattr(opt, name)
        if v is None:
            v = getattr(dflt, name)
        return builtin if v is None else v
    return QosConfig(max_vls=pick("max_vls", DEFAULT_MAX_VLS),
                     high_limit=pick("high_limit", DEFAULT_HIGH_LIMIT),
                     vlarb_high=_pad64(pick("vlarb_high", DEFAULT_VLARB_HIGH)),
                     vlarb_low=_pad64(pick("vlarb_low", DEFAULT_VLARB_LOW)),
                     sl2vl=tuple(v & 0xF for v in pick("sl2vl", DEFAULT_SL2VL)))


@dataclass(frozen=True)
class PortCaps:
    """What a port's PortInfo announces: data VLs (VLCap) and VL arbitration table sizes."""
    vl_cap: int = 8                  # number of data VLs: 1, 2, 4, 8 or 15
    vlarb_high_cap: int = 8
    vlarb_low_cap: int = 8

    def __post_init__(self) -> None:
        if self.vl_cap not in VL_CODE:
            raise ValueError(f"vl_cap {self.vl_cap}: a port has 1, 2, 4, 8 or 15 data VLs")
        for cap in (self.vlarb_high_cap, self.vlarb_low_cap):
            if not 0 <= cap <= VLARB_ENTRIES:
                raise ValueError(f"VL arbitration cap {cap}: 0..{VLARB_ENTRIES}")


#: InfiniBand ports as fabricviz models them (ibsim's values; typical of ConnectX-6/7, Quantum/-2).
IB_PORT_CAPS = PortCaps()


@dataclass(frozen=True)
class PortQos:
    """What OpenSM writes into one port (switch port, or a CA port)."""
    guid: int                        # node GUID
    port: int                        # port number (0 = switch port 0)
    port_type: str                   # "ca", "sw0" or "swe"
    oper_vls: int                    # operational data VLs (1, 2, 4, 8, 15)
    high_limit: int                  # VLHighLimit
    vlarb_high: tuple[tuple[int, int], ...]   # programmed (vl, weight) entries ( = VLArbHighCap)
    vlarb_low: tuple[tuple[int, int], ...]


@dataclass
class QosTables:
    """Everything :func:`compute_qos` found. ``sl2vl`` keys: (switch GUID, in, out) for
    switches, (CA node GUID, 0, port) for CA ports; only tables OpenSM writes are present."""
    enabled: bool
    ports: dict[tuple[int, int], PortQos] = field(default_factory=dict)   # (node GUID, port)
    sl2vl: dict[tuple[int, int, int], tuple[int, ...]] = field(default_factory=dict)
    switch_guids: frozenset[int] = frozenset()


def vl_mask(oper_vls: int) -> int:
    """OpenSM's mask for a port with ``oper_vls`` data VLs (code c -> 2^(c-1) - 1)."""
    return (1 << (VL_CODE[oper_vls] - 1)) - 1


def _op_vls(own: PortCaps, peer: PortCaps | None, max_op_vls: int) -> int:
    code = VL_CODE[own.vl_cap]
    if peer is not None:
        code = min(code, VL_CODE[peer.vl_cap])
    return DATA_VLS[max(1, min(code, max_op_vls))]


def _sl2vl(table: tuple[int, ...], oper_vls: int) -> tuple[int, ...]:
    m = vl_mask(oper_vls)
    return tuple(v if v == 15 else v & m for v in table)


def _vlarb(entries: tuple[tuple[int, int], ...], cap: int, oper_vls: int) -> tuple[tuple[int, int], ...]:
    m = vl_mask(oper_vls)
    picked = list(entries[:min(cap, VLARB_BLOCK)])
    if cap > VLARB_BLOCK:
        picked += entries[VLARB_BLOCK:VLARB_BLOCK + cap % VLARB_BLOCK]
    return tuple((vl & m, w) for vl, w in picked)


def _port(guid: int, port: int, ptype: str, caps: PortCaps, oper: int, cfg: QosConfig) -> PortQos:
    if caps.vl_cap == 1:            # one data VL: no arbitration, high limit 0
        return PortQos(guid, port, ptype, oper, 0, (), ())
    return PortQos(guid, port, ptype, oper, cfg.high_limit,
                   _vlarb(cfg.vlarb_high, caps.vlarb_high_cap, oper),
                   _vlarb(cfg.vlarb_low, caps.vlarb_low_cap, oper))


def compute_qos(sn: Subnet, options: QosOptions, *,
                enhanced_port0: bool | Collection[int] = True,
                caps: PortCaps = IB_PORT_CAPS,
                caps_by_guid: Mapping[int, PortCaps] | None = None,
                first_sweep: bool = False) -> QosTables:
    """What OpenSM 3.3.23 programs on ``sn`` with ``options`` (see the module doc).

    ``enhanced_port0``: True (every switch; fabricviz's ibnetdiscover export says so),
    False (none; ibsim's default for a switch line without "enhanced port 0"), or the
    node GUIDs of the switches that have one. ``caps_by_guid`` overrides ``caps`` per node.
    ``first_sweep``: mask switch external ports with the OperVLs they had before the SM
    (taken as their VLCap, as ibsim powers up) instead of the settled value: what one
    ``opensm -o`` run leaves when ``max_op_vls`` is below the VLCaps (see the module doc).
    """
    f = sn.fabric
    sw_guids = frozenset(int(g) for g in sn.sw_guid.tolist())
    out = QosTables(enabled=bool(options.qos), switch_guids=sw_guids)
    if not options.qos:
        return out
    by_guid = caps_by_guid or {}
    t, pt = f.devices_t, f.ports_t

    def caps_of(guid: int) -> PortCaps:
        return by_guid.get(guid, caps)

    dev_guid = {int(d): int(t.guid[d]) for d in sn.switches.tolist()}
    swe, sw0, ca = options.resolved("swe"), options.resolved("sw0"), options.resolved("ca")
    mop = options.max_op_vls
    for s in range(sn.num_switches):
        guid = int(sn.sw_guid[s])
        own = caps_of(guid)
        n = int(sn.sw_nports[s])
        esp0 = enhanced_port0 if isinstance(enhanced_port0, bool) else guid in enhanced_port0
        outs: list[tuple[int, int]] = []              # (out port, its operational VLs)
        if esp0:
            outs.append((0, _op_vls(own, None, mop)))
        for p in range(1, n + 1):
            nd = int(sn.nbr_dev[s, p])
            if nd < 0:
                continue                               # link down: skipped
            peer_guid = dev_guid.get(nd, int(t.guid[nd]))
            oper = _op_vls(own, caps_of(peer_guid), mop)
            masked = own.vl_cap if first_sweep else oper
            outs.append((p, masked))
            out.ports[(guid, p)] = replace(_port(guid, p, "swe", own, masked, swe), oper_vls=oper)
        for o, oper in outs:
            table = _sl2vl(swe.sl2vl, oper)
            for i in range(n + 1):
                out.sl2vl[(guid, i, o)] = table
        if esp0:
            oper0 = outs[0][1]
            out.ports[(guid, 0)] = _port(guid, 0, "sw0", own, oper0, sw0)
            out.sl2vl[(guid, 0, 0)] = _sl2vl(sw0.sl2vl, oper0)
    for j, p in enumerate(sn.ca_ports.tolist()):
        node = int(t.guid[int(pt.device[p])])
        num = int(pt.num[p])
        own = caps_of(node)
        s = int(sn.ca_sw[j])
        peer: PortCaps | None = None
        if s >= 0:
            peer = caps_of(int(sn.sw_guid[s]))
        else:                                          # CA to CA (or unlinked SM port)
            q = _ca_peer_guid(sn, p)
            peer = caps_of(q) if q is not None else None
        oper = _op_vls(own, peer, mop)
        out.ports[(node, num)] = _port(node, num, "ca", own, oper, ca)
        out.sl2vl[(node, 0, num)] = _sl2vl(ca.sl2vl, oper)
    return out


def port_sl2vl(options: QosOptions, port_type: str, linked: bool = True, caps: PortCaps = IB_PORT_CAPS,
               peer_caps: PortCaps = IB_PORT_CAPS) -> tuple[int, tuple[int, ...]] | None:
    """(operational data VLs, SL→VL table) OpenSM writes for packets leaving one port — a CA port
    (``"ca"``) or a switch external port (``"swe"``: the same table for every input port, masked by
    this output port's VLs) — as :func:`compute_qos` does for the whole subnet; None with ``qos FALSE``."""
    if not options.qos:
        return None
    oper = _op_vls(caps, peer_caps if linked else None, options.max_op_vls)
    return oper, _sl2vl(options.resolved(port_type).sl2vl, oper)


def _ca_peer_guid(sn: Subnet, p: int) -> int | None:
    f = sn.fabric
    q = int(peer_ports(f)[p])
    if q < 0 or int(f.ports_t.cable[p]) < 0:
        return None
    return int(f.devices_t.guid[int(f.ports_t.device[q])])


def _order(tables: QosTables):
    """Switches first (by GUID), then CA ports (by node GUID)."""
    return lambda key: (key[0] not in tables.switch_guids, *key)


def sl2vl_lines(routing: Routing, qos_tables: QosTables) -> list[str]:
    """``sl2vl <GUID> <in> <out> <16 VLs>`` per table OpenSM writes: switches as
    ``sl2vl <switch GUID> <in port> <out port> ...``, CA ports as ``sl2vl <CA node GUID> 0 <port> ...``;
    GUIDs 0x%016x, VLs decimal; sorted by (switches before CAs, GUID, in port, out port).
    Empty when QoS is off (OpenSM writes nothing). ``routing`` must be the routing of the
    subnet the tables were computed on."""
    _check_same(routing, qos_tables)
    keys = sorted(qos_tables.sl2vl, key=_order(qos_tables))
    return [f"sl2vl 0x{g:016x} {i} {o} " + " ".join(map(str, qos_tables.sl2vl[(g, i, o)]))
            for g, i, o in keys]


def vlarb_lines(routing: Routing, qos_tables: QosTables) -> list[str]:
    """One line per port OpenSM configures::

        vlarb <GUID> <port> <VLHighLimit> high <vl:weight ...> low <vl:weight ...>

    GUID = switch GUID (port 0..N) or CA node GUID (CA port number), 0x%016x; the ``high``
    and ``low`` lists hold exactly the entries OpenSM writes (VLArbHighCap / VLArbLowCap of
    the port; empty lists for a port with one data VL, which gets no arbitration). Sorted
    like :func:`sl2vl_lines` by (switches before CAs, GUID, port). Empty when QoS is off."""
    _check_same(routing, qos_tables)
    out = []
    for key in sorted(qos_tables.ports, key=_order(qos_tables)):
        q = qos_tables.ports[key]
        hi = " ".join(f"{v}:{w}" for v, w in q.vlarb_high)
        lo = " ".join(f"{v}:{w}" for v, w in q.vlarb_low)
        out.append(f"vlarb 0x{q.guid:016x} {q.port} {q.high_limit} high {hi} low {lo}".replace("  ", " ").rstrip())
    return out


def _check_same(routing: Routing, tables: QosTables) -> None:
    guids = frozenset(int(g) for g in np.asarray(routing.subnet.sw_guid).tolist())
    if guids != tables.switch_guids:
        raise ValueError("QoS tables were computed on another subnet than this routing")
