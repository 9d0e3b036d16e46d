"""Shared pieces of the generators: part choice, names, hosts, tiers, checks."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..ib.lids import lid_space_problem  # the one LID-space refusal (generators, route, importers, lint)
from ..model import Catalog, Fabric, FabricError, LinkRate, Part
from ..model.breakout import fitting_breakout
from ..model.errors import ParamError
from ..model.events import BULK_ADDED, FABRIC, ChangeEvent
from ..model.fabric import KIND_CODE, NIC
from ..model.numbers import ascii_int
from ..model.tech import ETH, IB

#: Vertical distance between tiers in scene units (the tiered layout: hosts at y=0, spines above).
TIER_GAP = 260.0
#: Horizontal pitch of one NIC port: the offsets of a server's NICs and GPUs inside its frame.
HOST_PITCH = 34.0

#: Default cable lengths (m): host to leaf inside a rack row, leaf to spine, spine to core.
HOST_CABLE_M = 2.0
LEAF_CABLE_M = 15.0
CORE_CABLE_M = 30.0

SERVER_STYLES = ("node", "dgx")


@dataclass(frozen=True)
class Hosts:
    """What :func:`add_hosts` created: servers and the NIC ports in host order."""

    servers: np.ndarray
    nic_ports: np.ndarray


#: Largest side of a blocking / oversubscription ratio: no switch has more ports (MAX_PORTS["eth"]).
MAX_RATIO_TERM = 1024


def parse_ratio(text: str | None, what: str = "blocking") -> tuple[int, int]:
    """``"2:1"`` → (2, 1). Refuses zero, malformed, non-ASCII or over-large (> 1024) ratios."""
    if text is None:
        return (1, 1)
    try:
        a, b = (ascii_int(v) for v in str(text).split(":"))
    except ValueError:
        raise ParamError(what, text, "use DOWN:UP, e.g. 2:1") from None
    if a <= 0 or b <= 0:
        raise ParamError(what, text, "both sides must be positive")
    if max(a, b) > MAX_RATIO_TERM:
        raise ParamError(what, text, f"each side must be at most {MAX_RATIO_TERM} (a switch's ports)")
    return a, b


def check_ratio_fits(text: str | None, ratio: tuple[int, int], ports: int, what: str = "blocking") -> None:
    """Refuse a DOWN:UP ratio that ``ports`` switch ports cannot come near: more than (ports-1):1
    or 1:(ports-1) (it would be built as the extreme silently)."""
    a, b = ratio
    if a > (ports - 1) * b or b > (ports - 1) * a:
        raise ParamError(what, text, f"{ports} switch ports split at most {ports - 1}:1 or 1:{ports - 1}")


def port_rate(part: Part) -> LinkRate:
    """A switch or NIC part's native port rate (the catalog requires one for these kinds)."""
    rate = part.rate
    assert rate is not None, f"part {part.id} ({part.kind}) has no port rate"
    return rate


def tech_of(fabric_kind: str) -> str:
    if fabric_kind not in ("ib", "roce"):
        raise ParamError("fabric", fabric_kind, "use ib or roce")
    return IB if fabric_kind == "ib" else ETH


def _runs(mode: LinkRate, want: LinkRate) -> bool:
    """A port of ``mode`` runs ``want``: the same rate, or (InfiniBand) its lane speed on fewer lanes
    (a Quantum-X800 port as one plane's 2xXDR)."""
    return mode == want or (mode.tech == want.tech == IB and mode.speed == want.speed and mode.width > want.width)


def pick_switch(catalog: Catalog, tech: str, radix: int, part: str | None = None,
                speed: str | None = None) -> Part:
    """The switch part for ``radix``: an exact port count if the catalog has one (a part's own
    ports or one of its breakouts, :mod:`~fabricviz.model.breakout`), else the smallest switch
    with at least ``radix`` ports (using only ``radix``)."""
    kind = "ib_switch" if tech == IB else "eth_switch"
    want = LinkRate.parse(speed) if speed else (LinkRate.parse("400GbE") if tech == ETH else None)
    if part is not None:
        p = catalog.get(part)
        if p.kind != kind:
            why = f"{p.id} is a {p.kind}, this fabric needs a {kind.replace('_', ' ')}"
            raise ParamError("switch", part, why, words=f"switch part {part}: {why}")
        if p.ports < radix:         # break its ports out (at the asked speed, if one was)
            out = fitting_breakout(p, radix, LinkRate.parse(speed) if speed else None)
            if out is not None:
                return out
            modes = f" or its breakouts ({', '.join(p.breakouts)})" if p.breakouts else ""
            why = (f"{p.id} has {p.ports} ports{modes}, fewer than radix {radix}"
                   + (f" at {speed}" if speed and p.breakouts else ""))
            raise ParamError("switch", part, why, words=f"switch part {part}: {why}")
        return p
    native = [p for p in catalog.by_kind(kind) if p.ports >= radix and _runs_at(p, want)]
    # breakouts only for an asked (or Ethernet's default) speed: never a slower link unasked
    split = [b for p in catalog.by_kind(kind) if p.breakouts and want is not None
             for b in (fitting_breakout(p, radix, want),) if b is not None]
    cands = native + split
    if not cands:
        what = f" at {want}" if want else ""
        raise FabricError(f"no {kind.replace('_', ' ')} in the catalog has {radix} ports{what}; "
                          "add one to your parts file or choose a switch part")
    exact = [p for p in cands if p.ports == radix]
    if exact:                       # a native part first, then the least split breakout
        return min(exact, key=lambda p: (bool(p.breakout), -port_rate(p).speed_rank, p.id))
    base = None
    if want is None:  # no speed asked: today's workhorse
        for pid in {IB: ("QM9700",), ETH: ("SN5400", "SN5600")}[tech]:
            if pid in catalog and catalog.get(pid).ports >= radix:
                base = catalog.get(pid)
                break
    if base is None:
        base = min(native or cands, key=lambda p: (p.ports, -port_rate(p).speed_rank, p.id))
    return radix_model(base, radix)


def _runs_at(p: Part, want: LinkRate | None) -> bool:
    """``p``'s ports run ``want`` (at its own rate, or one of its modes; :func:`_runs`)."""
    return want is None or (p.rate is not None and _runs(p.rate, want)) or any(_runs(m, want) for m in p.modes)


def radix_model(base: Part, radix: int) -> Part:
    """A hypothetical ``radix``-port model of ``base`` for textbook trees (k=8 needs 8-port switches).

    No such product exists, so it is marked ``hypothetical`` and carries no price (the BOM asks
    for one instead of pricing it as the real ``base``); ports run at ``base``'s rate and latency.
    It is a user part, saved with the design, so the file says what it is.
    """
    return replace(base, id=f"{base.id}-R{radix}", ports=radix, user=True,
                   port_lanes=(), port_lanes_source="",   # no SKU of its own: consecutive SONiC lanes
                   cages=0, breakouts=(), breakout_source="", breakout_of="", breakout="",
                   hypothetical=True,
                   price_usd=0.0, price_estimate=False,
                   name=f"hypothetical {radix}-port model of the {base.id} ({base.asic or base.vendor})",
                   notes=f"Hypothetical {radix}-port model of the {base.id} for a radix-{radix} design "
                         f"(no catalog switch has exactly {radix} ports): no such product, no price; "
                         f"port rate, latency and power as the {base.id} (power is an upper bound).")


def use_part(fabric: Fabric, part: Part) -> Part:
    """Make sure ``part`` is in the fabric's catalog (derived parts become user parts)."""
    if part.user and (part.id not in fabric.catalog or fabric.catalog.get(part.id) != part):
        fabric.catalog = fabric.catalog.with_parts([*fabric.catalog.user_parts(), part])
    return part


def plane_server(cat: Catalog, rate: LinkRate, servers: str, planes: int) -> Part:
    """The server (1-GPU node or DGX) whose NIC splits into ``planes`` planes of ``rate``: NVIDIA's
    first, then cheapest."""
    gpus = 1 if servers == "node" else 8
    cands = [p for p in cat.by_kind("server") if p.gpus == gpus and p.nic_part is not None
             and planes in cat.get(p.nic_part).planes
             and any(m.tech == rate.tech and m.speed_rank >= rate.speed_rank and m.width >= rate.width
                     for m in cat.get(p.nic_part).modes)]
    if not cands:
        raise FabricError(f"no {'1-GPU node' if gpus == 1 else 'DGX server'} in the catalog has a NIC that "
                          f"splits into {planes} planes of {rate}")
    return min(cands, key=lambda p: (p.vendor != "NVIDIA", p.price_usd, p.id))


def plane_link_rate(fabric: str, planes: int) -> str:
    """One plane's default link rate: a ConnectX-8's 800G port split ``planes`` ways (4xXDR as
    2xXDR / 1xXDR on InfiniBand, 400GbE / 200GbE on Ethernet)."""
    if 4 % planes:
        raise ParamError("planes", planes, "an 800G port splits into 2 or 4 planes")
    return f"{4 // planes}xXDR" if fabric == "ib" else f"{800 // planes}GbE"


def pad_names(prefix: str, count: int, start: int = 1) -> list[str]:
    width = max(2, len(str(start + count - 1)))
    return [f"{prefix}{i:0{width}d}" for i in range(start, start + count)]


def add_hosts(fabric: Fabric, count: int, rate: LinkRate, servers: str = "node",
              prefix: str = "node", planes: int = 1) -> Hosts:
    """Add ``count`` fabric end ports as servers at the bottom tier.

    ``servers="node"``: one 1-GPU node with a single-port NIC per host.
    ``servers="dgx"``: 8-GPU/8-NIC servers; ``count`` is still the NIC-port count.
    ``planes`` > 1: servers whose NIC splits into that many planes (a multi-plane design's plane).
    """
    cat = fabric.catalog
    if servers not in SERVER_STYLES:
        raise ParamError("servers", servers, f"use {' or '.join(SERVER_STYLES)}")
    part = (cat.default_host(rate) if servers == "node" else cat.dgx(rate)) if planes == 1 else \
        plane_server(cat, rate, servers, planes)
    assert part.nic_part is not None  # a server part names its NIC (catalog validation)
    nic = cat.get(part.nic_part)
    per = part.nics * nic.ports
    if count % per:
        raise FabricError(f"{count} hosts is not a multiple of the {per} NIC ports of a {part.name}")
    n_servers = count // per
    xs = (np.arange(n_servers) * per + (per - 1) / 2) * HOST_PITCH
    mode = str(rate) if nic.modes[0] != rate else None
    sids = fabric.add_servers(part.id, pad_names(prefix, n_servers), xs, 0.0, mode=mode, emit=False)
    t = fabric.devices_t
    kids = np.flatnonzero(t.alive & np.isin(t.parent, sids) & (t.kind == KIND_CODE[NIC]))
    # children come in server order, then local index order
    order = np.lexsort((t.local[kids], t.parent[kids]))
    kids = kids[order]
    first = t.first_port[kids].astype(np.int64)
    nports = int(t.nports[kids[0]]) if len(kids) else 0
    ports = (first[:, None] + np.arange(nports)[None, :]).ravel()
    pitch = HOST_PITCH
    t.set("x", kids, np.repeat(np.arange(n_servers) * per, part.nics) * pitch
          + np.tile(np.arange(part.nics) * nic.ports, n_servers) * pitch)
    return Hosts(sids, ports)


def check_lid_space(tech: str, host_ports: int, switches: int, lmc: int = 0) -> None:
    """Refuse an InfiniBand subnet that needs more than the 49,151 unicast LIDs.

    The generators build at LMC 0 (one LID per port, nothing skipped for alignment), so the
    count is the need and the line is :func:`~fabricviz.ib.lids.lid_space_problem`'s.
    """
    if tech != IB:
        return
    problem = lid_space_problem(host_ports, switches, lmc)
    if problem is not None:
        raise FabricError(problem)


def switch_ports(fabric: Fabric, ids: np.ndarray, first_num: int, count: int) -> np.ndarray:
    """Port ids ``first_num .. first_num+count-1`` of each switch, shape (len(ids), count)."""
    first = fabric.devices_t.first_port[ids].astype(np.int64)
    return first[:, None] + (first_num - 1) + np.arange(count)[None, :]


def add_switches(fabric: Fabric, part: Part, names: list[str], tier: int,
                 mode: str | None = None) -> np.ndarray:
    """Switches of ``part`` at ``tier``, placed later by the generator's auto layout."""
    use_part(fabric, part)
    return fabric.add_devices(part.kind, len(names), part.id, names, 0.0, 0.0, tier=tier, mode=mode,
                              emit=False)


def finish(fabric: Fabric) -> Fabric:
    """Send one bulk event for everything a generator built."""
    for table in (fabric.devices_t, fabric.ports_t, fabric.cables_t):
        table.trim()
    fabric.events.emit(ChangeEvent(BULK_ADDED, FABRIC, ids={
        "devices": fabric.device_ids(), "cables": fabric.cable_ids()}))
    return fabric
