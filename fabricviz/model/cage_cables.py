"""Breakout cables: the plug a shared cage takes, one per cage rather than one per link.

A switch cage broken out (:mod:`.breakout`: an SN5600 cage at 2 × 400GbE), an InfiniBand switch's
twin-port cage (a QM9700's 32 OSFP cages carry its 64 NDR ports, a Q3400's 72 its 144 XDR ports), a
server's shared NIC cage (catalog ``nic_cages``: a DGX H100's 8 ConnectX-7 ports behind 4 twin-port
OSFP cages) or a NIC port split into planes (:mod:`.planes`: a ConnectX-8's one OSFP cage as
2 × 400GbE) holds one plug for all its ports. NVIDIA's LinkX line has two kinds of plug for it,
catalog cable parts with ``breakout`` (the cage they serve, ``2x400GbE``, ``2x4xNDR``) and ``far_end``:

* ``far_end: single`` — a splitter cable (MCP7Y00: a twin-port OSFP end to two single-port 400G
  OSFP ends; MCA7K10 for XDR to two ConnectX-8s; MCP7Y50 / MCA7J70 from a QM9700 cage at
  4 × NDR200 to four 200G NICs): a shared cage to single-port cages (ConnectX-7 400G NICs), one
  cable per cage;
* ``far_end: single`` optics (``cable_type: transceiver``: NDR-SPLIT-SR4, XDR-SPLIT-DR4) — the same
  cage-to-two-NIC-cages link beyond copper reach: a twin-port module in the switch cage (MMA4Z00-NS,
  MMS4A00), a single-port module in each NIC cage (MMA4Z00-NS400, MMS4A20) and one straight MPO
  fibre per link (MFP7E10, MFP7E30; a 1:2 splitter fibre, MFP7E20, is for 200G ends: NDR200-SPLIT-SR4,
  one per twin-port MPO port, :func:`splitter_fibres`). Priced per
  cage cable (one twin-port module and two single-port ones); the BOM counts the twin-port module one
  per switch cage (half the part's price), a single-port one per NIC cage (a quarter), a fibre per link;
* ``far_end: twin`` — twin-port optics (MMA4Z00-NS, MMS4X00-NM: 2 × SR4 / 2 × DR4 on two
  MPO-12/APC connectors) in shared cages at both ends, one straight MPO fibre per 400G link
  (MFP7E10 / MFP7E30). The part is priced per cage cable as two modules (the hardware of one 800G
  twin-port link); the BOM counts the modules one per cage the links end in, both ends (a cage
  with one link in use still holds one), and on InfiniBand one fibre per link. Twin-port copper
  (``far_end: twin``, ``cable_type: dac``: MCP4Y10, MCA4J80, MCA4K50) joins one switch cage to one far
  switch cage, both ports: one cable per cage pair.

A per-link transceiver part (NDR-SR4: a twin-port module at the switch, a single-port one at the
HCA) is counted by cage too: one module per cage its links end in, a cage another part's module
already fills counted once (:func:`end_cages`).

A link with a shared cage is :data:`TWIN` when both its ends take twin-port plugs (a shared cage, or
a switch's OSFP cage of its own that could break out — an SN5600 spine port at 400GbE holds a
twin-port module with one fibre in use), :data:`TWIN_SW` when those are two switches' shared cages
(a leaf's uplink cage to a spine's: twin-port copper may join them), :data:`SPLIT` when a shared
switch cage goes to a NIC's cage of its own (a ConnectX-7's OSFP: a splitter's single-port ends are
made for adapters), and :data:`OTHER` otherwise (a split NIC port to single switch ports),
:func:`link_classes`. The cable picker (:class:`~.cabling.Cabling`) offers breakout parts only to
TWIN(_SW) and SPLIT links, matching the shared cage's split and the link's rate (:func:`serves`),
and twin-port copper only to a :data:`PAIRED` link: a TWIN_SW link whose cage pair is joined by both
its links in the same batch (:func:`paired`; NVIDIA cables such a cage pair within 2 m with one
MCP4Y10, a cage whose links part ways with optics). A link none fits (longer than a splitter
reaches, a cage in another mode, OTHER) gets a per-link part as before, and the BOM lists a switch
cage's breakout cable unpriced then. The BOM counts a breakout part's cables by cage
(:func:`cage_units`), as NVIDIA's reference architectures count them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .breakout import Breakout, ports_per_cage

if TYPE_CHECKING:
    from .catalog import Part
    from .fabric import Fabric
    from .tech import LinkRate

#: Link classes (:func:`link_classes`): no shared cage; a shared switch cage to a NIC's own cage; twin-port
#: plugs at both ends; a shared cage no breakout part serves; two switches' shared cages. PAIRED is the
#: picker's (:func:`paired`): a TWIN_SW link whose cage pair its batch joins with both links.
PLAIN, SPLIT, TWIN, OTHER, TWIN_SW, PAIRED = 0, 1, 2, 3, 4, 5
#: The classes whose ends both take twin-port plugs.
TWIN_CLASSES = (TWIN, TWIN_SW, PAIRED)


class Cages(NamedTuple):
    """Per port: how many ports share its physical cage (1: a cage of its own), whether the cage
    takes a twin-port plug, whether it is a switch's, and which cage it is (``key``: equal keys, one
    cage — a server's shared NIC cage spans two NIC devices)."""

    share: np.ndarray
    twin: np.ndarray
    switch: np.ndarray
    key: np.ndarray


def port_share(fabric: Fabric, ports: np.ndarray) -> Cages:
    """The cages of ``ports`` (:class:`Cages`). Shared: a switch's whose part has fewer cages than
    ports (a QM9700's 32 twin-port OSFP cages carry its 64 NDR ports, a Q3400's 72 its 144 XDR ports;
    a broken-out switch's, :mod:`.breakout`), a NIC's whose port is split into planes (:mod:`.planes`:
    more ports than its part), a NIC's in a server whose part puts two NICs behind one cage
    (``nic_cages``: a DGX H100's eight ConnectX-7s behind four twin-port OSFP cages). Twin-port: a
    shared cage, or a switch cage that can break out two ways (an SN5600's OSFP); not a NIC's own."""
    t, pt = fabric.devices_t, fabric.ports_t
    ports = np.asarray(ports, np.int64)
    devs = pt.device[ports].astype(np.int64)
    out = np.ones(len(ports), np.int64)
    twin = np.zeros(len(ports), bool)
    switch = np.zeros(len(ports), bool)
    owner = devs.copy()                              # the device the cage is counted on
    slot = np.full(len(ports), -1, np.int64)         # its cage on a server (-1: on the device itself)
    codes = t.part[devs]
    for idx in np.unique(codes).tolist():
        part = _part(fabric, int(idx))
        if part is None:
            continue
        sel = codes == idx
        switch[sel] = part.kind in ("ib_switch", "eth_switch")
        if switch[sel].any():
            out[sel] = ports_per_cage(part)
        elif part.kind == "nic" and part.ports:
            n = t.nports[devs[sel]].astype(np.int64)
            out[sel] = np.where((n > part.ports) & (n % part.ports == 0), n // part.ports, 1)
            _server_cages(fabric, part, np.flatnonzero(sel & (out == 1)), devs, out, owner, slot)
        twin[sel] = any(Breakout.parse(m).split == 2 for m in part.breakouts)
    own = (ports - t.first_port[devs].astype(np.int64)) // out
    key = owner * (1 << 20) + np.where(slot >= 0, slot, own)
    return Cages(out, twin | (out > 1), switch, key)


def _part(fabric: Fabric, idx: int) -> Part | None:
    pid = fabric.parts.id_of(idx) if idx >= 0 else None
    return fabric.catalog.get(pid) if pid is not None and pid in fabric.catalog else None


def _server_cages(fabric: Fabric, nic: Part, rows: np.ndarray, devs: np.ndarray, out: np.ndarray,
                  owner: np.ndarray, slot: np.ndarray) -> None:
    """For the NIC ports ``rows`` (of ``devs``): where their server's part puts NICs behind shared
    cages (``nic_cages``), the cage's share (its NICs' ports), the server as owner and the cage as slot."""
    t = fabric.devices_t
    parent = t.parent[devs[rows]].astype(np.int64)
    for sidx in np.unique(t.part[parent[parent >= 0]]).tolist():
        server = _part(fabric, int(sidx))
        if server is None or server.kind != "server" or not server.nic_cages:
            continue
        cages = np.asarray(server.nic_cages, np.int64)
        per = np.bincount(cages, minlength=cages.max() + 1) * nic.ports      # ports behind each cage
        mine = rows[(parent >= 0) & (t.part[np.maximum(parent, 0)] == sidx)]
        local = t.local[devs[mine]].astype(np.int64)
        ok = local < len(cages)
        mine, local = mine[ok], local[ok]
        out[mine] = per[cages[local]]
        owner[mine] = t.parent[devs[mine]]
        slot[mine] = cages[local]


def link_classes(a: Cages, b: Cages) -> np.ndarray:
    """Per link from its ends' :func:`port_share`: :data:`PLAIN` (no shared cage), :data:`TWIN` (a
    shared cage, both ends taking twin-port plugs), :data:`SPLIT` (a shared switch cage to a NIC's cage
    of its own: a splitter's single-port ends are for adapters) or :data:`OTHER` (a shared cage no
    breakout part serves: a split NIC port to single switch ports)."""
    shared = (a.share > 1) | (b.share > 1)
    split = ((a.share > 1) & a.switch & ~b.twin & ~b.switch) | ((b.share > 1) & b.switch & ~a.twin & ~a.switch)
    switches = a.switch & b.switch & (a.share > 1) & (b.share > 1)
    twin = np.where(switches, TWIN_SW, TWIN)
    return np.where(~shared, PLAIN, np.where(a.twin & b.twin, twin, np.where(split, SPLIT, OTHER)))


def paired(a: Cages, b: Cages, cls: np.ndarray) -> np.ndarray:
    """``cls`` with :data:`PAIRED` for each :data:`TWIN_SW` link of one batch (ends ``a``, ``b``) whose
    cage pair the batch joins with as many links as the cages have ports: both ports of a leaf cage to
    the two ports of one spine cage (a batch adds only free ports, so no other link uses them)."""
    out = np.asarray(cls).copy()
    rows = np.flatnonzero((out == TWIN_SW) & (a.share == b.share))
    if len(rows):
        lo, hi = np.minimum(a.key[rows], b.key[rows]), np.maximum(a.key[rows], b.key[rows])
        order = np.lexsort((hi, lo))                 # runs of one cage pair (a 1-D sort, not a row-wise unique)
        lo, hi = lo[order], hi[order]
        run = np.cumsum(np.r_[True, (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])]) - 1
        full = np.bincount(run)[run] == a.share[rows[order]]
        out[rows[order[full]]] = PAIRED
    return out


def serves(c: Part, rate: LinkRate, cls: int, share: int) -> bool:
    """Whether cable part ``c`` may carry a ``rate`` link of class ``cls`` whose shared cage(s) split
    ``share`` ways: a per-link part any link; a breakout part only its own cage (split and rate) on
    the far end it is made for (a splitter or twin-to-single optics: single-port far ends; twin optics:
    shared at both ends; twin copper: two switches' shared cages, :data:`TWIN_SW`), at the plug's
    sub-port rate or slower. A pure function of the link's own ends, so a saved design loads whatever
    its other links; which cage pair a twin copper cable suits is the picker's (:func:`offered`)."""
    if not c.breakout:
        return True
    if cls not in (SPLIT, *TWIN_CLASSES) or (c.far_end == "twin") != (cls in TWIN_CLASSES):
        return False
    if twin_copper(c) and cls == TWIN:
        return False                     # twin-port copper: switch cage to switch cage (MCP4Y10, MCA4K50)
    b = Breakout.parse(c.breakout)
    # a link may train slower than the sub-port the plug is made for (a 2xNDR port on twin NDR optics)
    return b.split == share and b.rate.tech == rate.tech and rate.speed_rank <= b.rate.speed_rank \
        and rate.width <= b.rate.width


def twin_copper(c: Part) -> bool:
    """A twin-port copper cable (MCP4Y10, MCA4K50): both ports of one switch cage to one far switch cage."""
    return bool(c.breakout) and c.far_end == "twin" and c.cable_type != "transceiver"


def offered(c: Part, cls: int) -> bool:
    """Whether the picker offers cable part ``c`` (which :func:`serves` the link) to a link of class
    ``cls``: twin-port copper only to a :data:`PAIRED` link (its cage pair joined by both links; a
    cage whose two links go to two far cages takes optics, or it could hold only one plug)."""
    return not (twin_copper(c) and cls != PAIRED)


def cage_units(fabric: Fabric, cids: np.ndarray) -> np.ndarray:
    """Per cable of ``cids`` (links on breakout parts): which breakout cable carries it — equal keys,
    one cable. Keyed by the shared end's cage; with both ends shared, by the end of the lower tier
    (the NIC's cage to a leaf, the leaf's up to a spine; lower device id on a tie)."""
    t, pt, ct = fabric.devices_t, fabric.ports_t, fabric.cables_t
    cids = np.asarray(cids, np.int64)
    pa, pb = ct.port_a[cids].astype(np.int64), ct.port_b[cids].astype(np.int64)
    da, db = pt.device[pa].astype(np.int64), pt.device[pb].astype(np.int64)
    ca, cb = port_share(fabric, pa), port_share(fabric, pb)
    tier_a, tier_b = t.tier[da].astype(np.int64), t.tier[db].astype(np.int64)
    a_first = (tier_a < tier_b) | ((tier_a == tier_b) & (da <= db))
    use_a = (ca.share > 1) & ((cb.share <= 1) | a_first)
    return np.where(use_a, ca.key, cb.key)


def splitter_fibres(fabric: Fabric, cids: np.ndarray) -> np.ndarray:
    """Per link of ``cids`` (on a twin-to-single optics part whose switch cage carries 4 ports, a
    QM9700 cage at 4 × NDR200): which 1:2 splitter fibre carries it — equal keys, one fibre. A
    twin-port module has two MPO ports, each on half the cage's ports (sub-ports a, b of native port
    1, then of port 2), and a splitter fibre from each to two single-port modules (MFP7E20)."""
    t, pt, ct = fabric.devices_t, fabric.ports_t, fabric.cables_t
    cids = np.asarray(cids, np.int64)
    pa, pb = ct.port_a[cids].astype(np.int64), ct.port_b[cids].astype(np.int64)
    ca, cb = port_share(fabric, pa), port_share(fabric, pb)
    use_a = ca.switch & (ca.share > 1)
    port, share = np.where(use_a, pa, pb), np.where(use_a, ca.share, cb.share)
    within = (port - t.first_port[pt.device[port]].astype(np.int64)) % np.maximum(share, 1)
    return np.where(use_a, ca.key, cb.key) * 2 + within // np.maximum(share // 2, 1)


def end_cages(fabric: Fabric, cids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cages the links ``cids`` end in, both ends, each once: their keys (:class:`Cages`) and
    whether each is shared (holds two or more ports: a twin-port cage)."""
    ct = fabric.cables_t
    cids = np.asarray(cids, np.int64)
    ports = np.concatenate([ct.port_a[cids], ct.port_b[cids]]).astype(np.int64)
    c = port_share(fabric, ports)
    keys, first = np.unique(c.key, return_index=True)
    return keys, c.share[first] > 1


__all__ = ["OTHER", "PAIRED", "PLAIN", "SPLIT", "TWIN", "TWIN_CLASSES", "TWIN_SW", "Cages", "cage_units",
           "end_cages", "link_classes", "offered", "paired", "port_share", "serves", "splitter_fibres", "twin_copper"]
