"""Cabling: adding cables, negotiating their rate, choosing the cable part, editing them.

:class:`Cabling` is the part of a :class:`~fabricviz.model.fabric.Fabric` (``fabric.cabling``)
that does it. Every method checks all invariants before it changes anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .cage_cables import PLAIN, link_classes, offered, paired, port_share, serves
from .catalog import Part
from .errors import FabricError
from .events import ADDED, BULK_ADDED, CABLE, CHANGED, DEVICE, PORT, ChangeEvent
from .kinds import KIND_CODE, NIC
from .limits import check_length
from .store import check_fits
from .tech import IB, TECH_IB_CODE, TECH_NONE_CODE, LinkRate, tech_name

if TYPE_CHECKING:
    from .fabric import Fabric

CABLE_TYPES: tuple[str, ...] = ("dac", "aoc", "transceiver")
PORT_STATES: tuple[str, ...] = ("down", "init", "armed", "active", "disabled")
#: Codes of the ``state`` column of the port table: the index of each name in PORT_STATES.
PORT_DOWN, PORT_INIT, PORT_ARMED, PORT_ACTIVE, PORT_DISABLED = range(len(PORT_STATES))


def _cable_rate(c: Part) -> LinkRate:
    """A cable part's rated maximum (the catalog requires ``max_rate`` on every cable)."""
    rate = c.rate
    assert rate is not None, f"cable part {c.id} has no max_rate"
    return rate


def unique_rows(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, axis=0, return_inverse=True)`` of the (tech, speed, width, millimetres)
    rows below, each row packed into one int64 where it fits (three codes < 256, millimetres
    < 2**36): a 1-D sort instead of a row-wise one (294,912 cables: 0.35 s → 5 ms); the same
    rows in the same (lexicographic) order, the same inverse."""
    if len(keys) and (keys >= 0).all() and (keys[:, :3] < 256).all() and (keys[:, 3] < 1 << 36).all():
        packed = ((keys[:, 0] * 256 + keys[:, 1]) * 256 + keys[:, 2]) * (1 << 36) + keys[:, 3]
        _, first, inverse = np.unique(packed, return_index=True, return_inverse=True)
        return keys[first], inverse.ravel()
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    return uniq, inverse.ravel()


def _cable_type(c: Part) -> str:
    """A cable part's type, dac|aoc|transceiver (the catalog requires it on every cable)."""
    assert c.cable_type is not None, f"cable part {c.id} has no cable_type"
    return c.cable_type


class Cabling:
    """The cabling of a Fabric: adding cables (rate, part, checks), editing them and port rates.

    Holds no state of its own; every method checks all invariants before it changes anything.
    """

    def __init__(self, fabric: Fabric) -> None:
        self.fabric = fabric

    def add_cable(self, a: int | str, b: int | str, length_m: float = 1.0,
                  ctype: str | None = None, part: str | None = None) -> int:
        """Cable port ``a`` to port ``b`` (ids or ``dev:port``); return the cable id."""
        f = self.fabric
        pa, pb = f.port_id(a), f.port_id(b)
        ids = self.add_cables(np.array([pa]), np.array([pb]), length_m, ctype=ctype, part=part)
        return int(ids[0])

    def add_cables(self, ports_a: np.ndarray, ports_b: np.ndarray, length_m: Any = 1.0,
                   ctype: str | None = None, part: str | None = None, emit: bool = True) -> np.ndarray:
        """Add many cables at once after checking every invariant; return their ids.

        Without ``part`` each cable gets the cheapest catalog cable of ``ctype``
        (or any type) that carries the negotiated rate over the length.
        """
        f = self.fabric
        with f.removal.adding():           # cable part ids interned for a refused batch go again
            return self._add_cables(ports_a, ports_b, length_m, ctype, part, emit)

    def _add_cables(self, ports_a, ports_b, length_m, ctype, part, emit) -> np.ndarray:
        f = self.fabric
        pa = np.asarray(ports_a, dtype=np.int64).ravel()
        pb = np.asarray(ports_b, dtype=np.int64).ravel()
        count = len(pa)
        if len(pb) != count:
            raise FabricError(f"{count} cable ends a for {len(pb)} ends b")
        check_fits("f4", length_m, "cable", "length")
        lengths = np.asarray(length_m, dtype=np.float64).ravel()
        if lengths.size not in (1, count):
            raise FabricError(f"{lengths.size} cable lengths for {count} cables")
        lengths = np.broadcast_to(lengths, (count,)).copy()
        if ctype is not None and ctype not in CABLE_TYPES:
            raise FabricError(f"unknown cable type {ctype!r} (use {', '.join(CABLE_TYPES)})")
        pt = f.ports_t
        for arr in (pa, pb):
            bad = np.flatnonzero((arr < 0) | (arr >= pt.n))
            if len(bad):
                raise FabricError(f"no port with id {int(arr[bad[0]])}")
        devs_ok = f.devices_t.alive[pt.device[pa]] & f.devices_t.alive[pt.device[pb]]
        if not devs_ok.all():
            raise FabricError(f"no port with id {int(pa[np.flatnonzero(~devs_ok)[0]])}")
        self._check_cable_ends(pa, pb, lengths)
        ta = pt.tech[pa]
        speed = np.minimum(pt.speed[pa], pt.speed[pb])
        width = np.minimum(pt.width[pa], pt.width[pb])
        parts, types = self._choose_cables(pa, pb, ta, speed, width, lengths, ctype, part)
        speed = np.minimum(speed, parts[1])
        width = np.minimum(width, parts[2])
        ct = f.cables_t
        ids = ct.allocate(count, {"port_a": pa, "port_b": pb, "ctype": types, "length": lengths,
                                  "part": parts[0], "tech": ta, "speed": speed, "width": width})
        pt.set("cable", pa, ids)
        pt.set("cable", pb, ids)
        self.cabled_state(np.concatenate([pa, pb]))
        if emit:
            f.events.emit(ChangeEvent(BULK_ADDED, CABLE, ids={"cables": ids})
                          if count != 1 else ChangeEvent(ADDED, CABLE, int(ids[0])))
        return ids

    def _check_cable_ends(self, pa: np.ndarray, pb: np.ndarray, lengths: np.ndarray) -> None:
        f = self.fabric
        pt = f.ports_t
        both = np.concatenate([pa, pb])
        busy = np.flatnonzero(pt.cable[both] >= 0)
        if len(busy):
            p = int(both[busy[0]])
            other = f._peer(p)
            raise FabricError(f"{f.port_name(p)} is already cabled to {f.port_name(other)}")
        uniq, counts = np.unique(both, return_counts=True)
        if (counts > 1).any():
            p = int(uniq[np.flatnonzero(counts > 1)[0]])
            raise FabricError(f"{f.port_name(p)} would take two cables")
        same = np.flatnonzero(pt.device[pa] == pt.device[pb])
        if len(same):
            i = same[0]
            raise FabricError(f"{f.port_name(int(pa[i]))} – {f.port_name(int(pb[i]))}: "
                              "a cable must join two different devices")
        nolink = np.flatnonzero((pt.tech[pa] == TECH_NONE_CODE) | (pt.tech[pb] == TECH_NONE_CODE))
        if len(nolink):
            raise FabricError(f"{f.port_name(int(pa[nolink[0]]))}: port has no link technology")
        mixed = np.flatnonzero(pt.tech[pa] != pt.tech[pb])
        if len(mixed):
            i = mixed[0]
            a, b = f.port_rate(int(pa[i])), f.port_rate(int(pb[i]))
            assert a is not None and b is not None      # ports without a technology were refused above
            raise FabricError(f"{f.port_name(int(pa[i]))} – {f.port_name(int(pb[i]))}: cannot cable "
                              f"{tech_name(a.tech)} ({a}) to {tech_name(b.tech)} ({b})")
        check_length(lengths, lambda i: f"{f.port_name(int(pa[i]))} – {f.port_name(int(pb[i]))}")

    def _choose_cables(self, pa, pb, tech, speed, width, lengths, ctype, part):
        """Cable part index, max speed, max width and type code for each new cable."""
        f = self.fabric
        count = len(pa)
        part_idx = np.empty(count, np.int32)
        max_speed = np.empty(count, np.int8)
        max_width = np.empty(count, np.int8)
        types = np.empty(count, np.int8)
        keys = np.stack([tech.astype(np.int64), speed.astype(np.int64), width.astype(np.int64),
                         np.round(lengths * 1000).astype(np.int64)], axis=1)
        uniq, inverse = unique_rows(keys)
        # a shared cage at an end (a broken-out switch, a NIC split into planes) may take a breakout cable;
        # a switch cage pair this batch joins with both links may take one twin-port copper cable
        ca, cb = port_share(f, pa), port_share(f, pb)
        cls, share = paired(ca, cb, link_classes(ca, cb)), np.maximum(ca.share, cb.share)
        groups, inverse = np.unique(inverse * 128 + cls * 16 + np.minimum(share, 15), return_inverse=True)
        for k, g in enumerate(groups.tolist()):
            tc, sp, wd, _mm = uniq[g // 128]
            rows = np.flatnonzero(inverse == k)
            i = int(rows[0])
            rate = LinkRate.decode(int(tc), int(sp), int(wd))
            length = float(lengths[i])
            where = f"{f.port_name(int(pa[i]))} – {f.port_name(int(pb[i]))}"
            c = self._cable_part(rate, length, ctype, part, where, (int(cls[i]), int(share[i])))
            crate = _cable_rate(c)
            part_idx[rows] = f.parts.intern(c.id)
            max_speed[rows] = crate.speed_rank if crate.tech == rate.tech else 0
            max_width[rows] = crate.width
            types[rows] = CABLE_TYPES.index(c.cable_type)
        return (part_idx, max_speed, max_width), types

    def _cable_part(self, rate: LinkRate, length: float, ctype: str | None,
                    part: str | None, where: str, cage: tuple[int, int] = (PLAIN, 1)) -> Part:
        """The cable part for one link (``cage``: its :mod:`.cage_cables` class and cage split): ``part``
        checked, or the catalog's pick (a breakout cable where one serves the link's cage, else per link)."""
        f = self.fabric
        if part is not None:
            c = f.catalog.get(part)
            if c.kind != "cable":
                raise FabricError(f"{where}: part {c.id} is a {c.kind}, not a cable")
            if not serves(c, rate, *cage):
                raise FabricError(f"{where}: {c.id} is a breakout cable for a {c.breakout} cage "
                                  f"({c.far_end} far ends); this link's ends do not share such cages")
            if c.tech != rate.tech:
                assert c.tech is not None, f"cable part {c.id} has no tech"
                raise FabricError(f"{where}: {c.id} is an {tech_name(c.tech)} cable, the ports are "
                                  f"{tech_name(rate.tech)} ({rate})")
            if ctype is not None and c.cable_type != ctype:
                raise FabricError(f"{where}: {c.id} is a {c.cable_type}, not a {ctype}")
            if length > c.reach_m:
                hint = " (use an AOC or optics)" if c.cable_type == "dac" else ""
                raise FabricError(f"{where}: a {length:g} m {_cable_type(c).upper()} is too long: "
                                  f"{c.id} reaches {c.reach_m:g} m{hint}")
            return c
        candidates = [c for c in f.catalog.by_kind("cable")
                      if c.tech == rate.tech and (ctype is None or c.cable_type == ctype)
                      and _cable_rate(c).speed_rank >= rate.speed_rank and _cable_rate(c).width >= rate.width
                      and serves(c, rate, *cage) and offered(c, cage[0])]
        per_cage = [c for c in candidates if c.breakout and c.reach_m >= length]
        if per_cage:                                     # the cage's own plug first (one per cage)
            order = {t: i for i, t in enumerate(CABLE_TYPES)}
            return min(per_cage, key=lambda c: (order[_cable_type(c)], c.price_usd or 0.0, c.id))
        candidates = [c for c in candidates if not c.breakout]
        if not candidates:
            kind = f"{ctype} " if ctype else ""
            raise FabricError(f"{where}: no {kind}cable in the catalog carries {rate}")
        fits = [c for c in candidates if c.reach_m >= length]
        if not fits:
            longest = max(candidates, key=lambda c: c.reach_m)
            hint = " (use an AOC or optics)" if ctype == "dac" else ""
            kind = ctype.upper() if ctype else "cable"
            raise FabricError(f"{where}: a {length:g} m {kind} is too long for {rate}: the longest, "
                              f"{longest.id}, reaches {longest.reach_m:g} m{hint}")
        # closest generation first (PAM4 optics do not downshift), then DAC, AOC, optics, price
        order = {t: i for i, t in enumerate(CABLE_TYPES)}
        return min(fits, key=lambda c: (_cable_rate(c).speed_rank - rate.speed_rank, order[_cable_type(c)],
                                        c.price_usd or 0.0, c.id))

    def cabled_state(self, pids: np.ndarray) -> None:
        f = self.fabric
        pt = f.ports_t
        st = pt.state[pids]
        keep = st == PORT_DISABLED
        new = np.where(pt.tech[pids] == TECH_IB_CODE, PORT_INIT, PORT_ACTIVE)
        pt.set("state", pids, np.where(keep, st, new))

    def set_port_rate(self, p: int, rate: str | LinkRate) -> None:
        """Set a port's rate (within what its part supports); its cable renegotiates."""
        f = self.fabric
        p = f.port_id(p)
        try:
            want = rate if isinstance(rate, LinkRate) else LinkRate.parse(rate)
        except FabricError as exc:
            raise FabricError(f"{f.port_name(p)}: {exc}") from None
        d = int(f.ports_t.device[p])
        part = f.part_of(d)
        modes = part.modes if part else ()
        if not any(m.tech == want.tech and want.speed_rank <= m.speed_rank and want.width <= m.width
                   for m in modes):
            raise FabricError(f"{f.port_name(p)}: {part.id if part else 'port'} cannot run at {want} "
                              f"(supported: {', '.join(map(str, modes))})")
        c = int(f.ports_t.cable[p])
        peer = f._peer(p)
        peer_rate: LinkRate | None = None
        if c >= 0:
            peer_rate = f.port_rate(peer)
            assert peer_rate is not None, "a cabled port always has a link technology"
            if peer_rate.tech != want.tech:
                raise FabricError(f"{f.port_name(p)}: cannot run at {want}: it is cabled to "
                                  f"{f.port_name(peer)} ({peer_rate})")
        old = f.port_rate(p)
        crate = _cable_rate(f.catalog.get(f.parts.ids[int(f.cables_t.part[c])])) if c >= 0 else None
        t = f.devices_t
        # a NIC's first port decides whether it is an InfiniBand device, which has GUIDs
        flip = int(t.kind[d]) == KIND_CODE[NIC] and int(t.first_port[d]) == p \
            and old is not None and old.tech != want.tech
        guid = (int(f.guids.take(1)[0]) if want.tech == IB else 0) if flip else None
        f.ports_t.set("tech", p, want.encode()[0])
        f.ports_t.set("speed", p, want.encode()[1])
        f.ports_t.set("width", p, want.encode()[2])
        if guid is not None:
            pids = np.arange(int(t.first_port[d]), int(t.first_port[d]) + int(t.nports[d]))
            t.set("guid", d, guid)
            f.ports_t.set("guid", pids, np.uint64(guid) + np.arange(1, len(pids) + 1, dtype=np.uint64)
                             if guid else np.uint64(0))
        if peer_rate is not None and crate is not None:        # both set exactly when c >= 0
            neg = want.negotiate(peer_rate)
            f.cables_t.set("speed", c, min(neg.speed_rank, crate.speed_rank))
            f.cables_t.set("width", c, min(neg.width, crate.width))
        f.events.emit(ChangeEvent(CHANGED, PORT, p, "rate", str(old), str(want)))
        if guid is not None:
            f.events.emit(ChangeEvent(CHANGED, DEVICE, d, "guid", None, guid))

    def set_cable(self, c: int, length_m: float | None = None, ctype: str | None = None,
                  part: str | None = None) -> None:
        """Change a cable's length, type or part; refused if the new cable cannot reach."""
        f = self.fabric
        cab = f.cable(c)
        if length_m is not None:
            check_length(length_m, cab.label)
        length = cab.length_m if length_m is None else float(length_m)
        if ctype is not None and ctype not in CABLE_TYPES:
            raise FabricError(f"{cab.label}: unknown cable type {ctype!r} (use {', '.join(CABLE_TYPES)})")
        rate_a, rate_b = cab.port_a.rate, cab.port_b.rate
        assert rate_a is not None and rate_b is not None, "both ends of a cable have a link technology"
        ends = rate_a.negotiate(rate_b)
        if part is None and ctype is None:
            keep = f.catalog.get(cab.part_id)
            part = keep.id if keep.reach_m >= length else None
            ctype = keep.cable_type if part is None else None
        pa, pb = np.array([cab.port_a.id]), np.array([cab.port_b.id])
        ca, cb = port_share(f, pa), port_share(f, pb)
        cage = (int(link_classes(ca, cb)[0]), int(max(ca.share[0], cb.share[0])))
        if part is not None and part == cab.part_id and not serves(f.catalog.get(part), ends, *cage):
            part = None                  # the kept breakout cable no longer fits its ends: pick again
        p = self._cable_part(ends, length, ctype, part, cab.label, cage)
        old = (cab.length_m, cab.type, cab.part_id)
        ct = f.cables_t
        ct.set("length", c, length)
        ct.set("part", c, f.parts.intern(p.id))
        ct.set("ctype", c, CABLE_TYPES.index(p.cable_type))
        prate = _cable_rate(p)
        ct.set("speed", c, min(ends.speed_rank, prate.speed_rank))
        ct.set("width", c, min(ends.width, prate.width))
        f.events.emit(ChangeEvent(CHANGED, CABLE, c, "cable", old, (length, p.cable_type, p.id)))

