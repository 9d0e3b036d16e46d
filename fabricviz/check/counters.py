"""Port counters on the design: which links are sick, worst first, and where the two ends disagree.

:func:`port_counters` matches the records of counters files
(:class:`~fabricviz.model.port_counters.PortCounters`) to the design's ports — by GUID (a port
GUID, or a node GUID and the port number), else by LID and port number (the LIDs the SM assigns:
:func:`fabricviz.ib.lid_table.lid_table`, the assignment routing uses, which equals OpenSM's), else
by node description and port number — and gives one :class:`LinkCounters` per cable with a
counted end. Records for a node's aggregate (port 255) or for no port of the design are reported
as :class:`Unmatched`.

**Snapshots and rates.** With ``before`` (an earlier snapshot of the same ports) each counter is
the increase since then; a counter that went down was cleared in between, and its later value is
the increase (noted in ``reset``). With an ``interval`` in seconds the increases are divided by it
(per second). perfquery, ibqueryerrors and ibdiagnet print no time, so the caller gives the interval
(the CLI: ``--interval``, else the files' modification times).

**Ranking.** :data:`RANKED` in order: symbol errors, link-error recovery, link downed, receive
errors, XmitDiscards, XmitWait; each link's value is the sum of its two ends. ``errors`` ranks the
links with any error counter above zero by those values compared in that order (a link with symbol
errors is worse than any without); ``xmit-wait`` ranks by PortXmitWait (congestion, not an error).

**Disagreeing ends** (IBA vol. 1 §16.1.3.5 PortCounters; the counter descriptions as Oracle's
"InfiniBand Fabric errors and counters", Doc 2195792.1, and the OpenFabrics wiki "Overview of Error
Counters" quote them). Only between two counted ends:

- ``ONE_SIDED_ERRORS``: SymbolErrorCounter ("minor link errors detected on one or more physical
  lanes") and PortRcvErrors ("packets containing an error that were received on the port") count
  at the *receiver*. One end receiving errors while the other receives none says the fault is in
  one direction: the peer's transmitter, that direction's lanes or fibre, or this end's receiver.
- ``LINK_DOWNED_DIFFERS``: LinkDownedCounter ("times the Port Training state machine has failed
  the link error recovery process and downed the link") — a link goes down at both its ports, so
  the two ends count the same downs; different counts mean one end's counters were cleared or its
  device restarted since (a host reboot), and that end's other counters cover less time.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..ib.lid_table import lid_table
from ..model import Fabric
from ..model.port_counters import ALL_PORTS, Counter, CounterFile, PortCounters

#: The counters the links are ranked by, in order.
RANKED: tuple[Counter, ...] = (Counter.SYMBOL_ERRORS, Counter.LINK_ERROR_RECOVERY, Counter.LINK_DOWNED,
                               Counter.RCV_ERRORS, Counter.XMIT_DISCARDS, Counter.XMIT_WAIT)
#: The error counters among them (XmitWait is congestion).
ERRORS: tuple[Counter, ...] = RANKED[:5]
#: Counted at the receiver: errors in the direction into the port.
RECEIVE_ERRORS: tuple[Counter, ...] = (Counter.SYMBOL_ERRORS, Counter.RCV_ERRORS)
_ORDER = {c: i for i, c in enumerate(Counter)}


class Metric(enum.Enum):
    """What the links are ranked (and the canvas coloured) by."""

    ERRORS = "errors"
    XMIT_WAIT = "xmit-wait"


class Disagreement(enum.Enum):
    ONE_SIDED_ERRORS = "one-sided errors"
    LINK_DOWNED_DIFFERS = "link downed differs"


@dataclass(frozen=True)
class Finding:
    """A disagreement between the two ends, with the sentence saying what it means."""

    kind: Disagreement
    text: str


@dataclass(frozen=True)
class LinkEnd:
    """One end of a cable: the design's port, and its counters (counts, or per second)."""

    port: int
    device: str
    number: int
    known: bool                         # some file counted this port (or ibqueryerrors found it clean)
    values: dict[Counter, float] = field(default_factory=dict)
    saturated: tuple[Counter, ...] = ()
    reset: tuple[Counter, ...] = ()     # went down between the snapshots (cleared in between)

    @property
    def name(self) -> str:
        return f"{self.device} port {self.number}"

    def get(self, c: Counter) -> float:
        return self.values.get(c, 0.0)


@dataclass(frozen=True)
class LinkCounters:
    """One cable of the design with its two ends' counters."""

    cable: int
    a: LinkEnd
    b: LinkEnd
    findings: tuple[Finding, ...] = ()

    def total(self, c: Counter) -> float:
        return self.a.get(c) + self.b.get(c)

    def errors(self) -> float:
        """Every ranked error counter of both ends added (the canvas colour)."""
        return sum(self.total(c) for c in ERRORS)

    def key(self, metric: Metric = Metric.ERRORS) -> tuple[float, ...]:
        if metric is Metric.XMIT_WAIT:
            return (self.total(Counter.XMIT_WAIT),)
        return tuple(self.total(c) for c in RANKED)

    def value(self, metric: Metric) -> float:
        return self.errors() if metric is Metric.ERRORS else self.total(Counter.XMIT_WAIT)


@dataclass(frozen=True)
class Unmatched:
    """A record that names no cabled port of the design (``source`` is ``file:line``)."""

    source: str
    why: str


@dataclass(frozen=True)
class CountersReport:
    """The links with counted ends, the records that matched nothing, the interval (seconds per
    rate, None: counts) and how many of the design's ports were counted."""

    links: tuple[LinkCounters, ...]
    unmatched: tuple[Unmatched, ...]
    interval: float | None
    ports_counted: int
    n_cables: int

    def worst(self, metric: Metric = Metric.ERRORS, limit: int | None = None) -> list[LinkCounters]:
        """The links with a non-zero ``metric``, worst first (ties: by cable id)."""
        sick = [lk for lk in self.links if lk.value(metric) > 0]
        sick.sort(key=lambda lk: (tuple(-v for v in lk.key(metric)), lk.cable))
        return sick if limit is None else sick[:limit]

    def disagreeing(self) -> list[LinkCounters]:
        return [lk for lk in self.links if lk.findings]

    def cable_values(self, metric: Metric) -> np.ndarray:
        """Per cable id: the link's ``metric`` (NaN: no counted end)."""
        out = np.full(self.n_cables, np.nan)
        for lk in self.links:
            out[lk.cable] = lk.value(metric)
        return out


# ----------------------------------------------------------------------------------- matching
class PortIndex:
    """The design's ports by GUID, by (LID, port number) and by (node description, port number)."""

    def __init__(self, f: Fabric) -> None:
        pt, dt = f.ports_t, f.devices_t
        alive = np.flatnonzero(pt.alive)
        dev = pt.device[alive]
        num = pt.num[alive].astype(np.int64)
        self.by_port_guid: dict[int, int] = {}
        for p, g in zip(alive.tolist(), pt.guid[alive].tolist(), strict=True):
            if g:
                self.by_port_guid[int(g)] = int(p)
        self.by_node: dict[tuple[int, int], int] = {}
        for p, g, n in zip(alive.tolist(), dt.guid[dev].tolist(), num.tolist(), strict=True):
            if g:
                self.by_node[(int(g), int(n))] = int(p)
        self.by_lid: dict[tuple[int, int], int] = {}
        table = lid_table(f)
        for p, lid in table.lids.items():
            if lid:
                self.by_lid[(int(lid), int(pt.num[p]))] = int(p)
        self.lid_error = table.error
        self.f = f

    def find(self, r: PortCounters) -> tuple[int | None, str]:
        """The design's port id for record ``r`` (None and why not)."""
        if r.port == ALL_PORTS:
            return None, "a node's counters summed over all its ports (port 255/ALL), not one link's"
        for g in (r.port_guid, r.node_guid):
            if g is None:
                continue
            p = self.by_port_guid.get(g)
            if p is not None and int(self.f.ports_t.num[p]) == r.port:
                return p, ""
            p = self.by_node.get((g, r.port))
            if p is not None:
                return p, ""
        if r.lid is not None:
            p = self.by_lid.get((r.lid, r.port))
            if p is not None:
                return p, ""
        if r.node_desc:
            d = self.f.find(r.node_desc)
            if d is not None:
                first, n = int(self.f.devices_t.first_port[d]), int(self.f.devices_t.nports[d])
                for p in range(first, first + n):
                    if int(self.f.ports_t.num[p]) == r.port:
                        return p, ""
        names = [f"GUID 0x{g:x}" for g in (r.port_guid, r.node_guid) if g is not None]
        names += [f"LID {r.lid}"] if r.lid is not None else []
        names += [repr(r.node_desc)] if r.node_desc else []
        why = f"no port {r.port} of {' / '.join(names) or 'an unnamed node'} in the design"
        if r.lid is not None and self.lid_error:
            why += f" (no LIDs: {self.lid_error})"
        return None, why


@dataclass
class _Snapshot:
    values: dict[int, dict[Counter, int]]
    extended: dict[int, set[Counter]]
    saturated: dict[int, set[Counter]]
    clean_elsewhere: bool            # ibqueryerrors output: ports it did not list were clean
    unmatched: list[Unmatched]


def _snapshot(index: PortIndex, files: Iterable[CounterFile]) -> _Snapshot:
    s = _Snapshot({}, {}, {}, False, [])
    for cf in files:
        for r in cf.records:
            s.clean_elsewhere = s.clean_elsewhere or r.implicit_zero
            p, why = index.find(r)
            if p is None:
                s.unmatched.append(Unmatched(r.source, why))
                continue
            vals, ext = s.values.setdefault(p, {}), s.extended.setdefault(p, set())
            for c, v in r.values.items():
                if r.extended or c not in ext:     # 64-bit values win over the narrow ones
                    vals[c] = v
                    if r.extended:
                        ext.add(c)
            s.saturated.setdefault(p, set()).update(r.saturated())
    for p, sat in s.saturated.items():
        sat -= s.extended.get(p, set())     # a 64-bit value of the same counter says how far it went
    return s


def port_counters(f: Fabric, files: Sequence[CounterFile], before: Sequence[CounterFile] = (),
                  interval: float | None = None) -> CountersReport:
    """The design's links with their ends' counters (see the module doc)."""
    if interval is not None and not interval > 0:
        raise ValueError(f"interval {interval!r}: must be a positive number of seconds")
    index = PortIndex(f)
    now = _snapshot(index, files)
    old = _snapshot(index, before) if before else None
    ct = f.cables_t
    cables = np.flatnonzero(ct.alive)
    links: list[LinkCounters] = []
    scale = 1.0 / interval if interval else 1.0
    for c, pa, pb in zip(cables.tolist(), ct.port_a[cables].tolist(), ct.port_b[cables].tolist(), strict=True):
        ends = [_end(f, p, now, old, scale) for p in (pa, pb)]
        if not (ends[0].known or ends[1].known):
            continue
        links.append(LinkCounters(int(c), ends[0], ends[1], _findings(ends[0], ends[1], "/s" if interval else "")))
    cabled = {int(p) for p in ct.port_a[cables].tolist()} | {int(p) for p in ct.port_b[cables].tolist()}
    unmatched = list(now.unmatched) + [     # an unused port counting errors may be a cable the design lacks
        Unmatched(f"{f.name_of(int(f.ports_t.device[p]))} port {int(f.ports_t.num[p])}",
                  "counts errors, but has no cable in the design")
        for p in sorted(set(now.values) - cabled) if any(now.values[p].get(c, 0) for c in ERRORS)]
    return CountersReport(tuple(links), tuple(unmatched), interval, len(now.values), int(ct.n))


def _end(f: Fabric, p: int, now: _Snapshot, old: _Snapshot | None, scale: float) -> LinkEnd:
    d = int(f.ports_t.device[p])
    name, num = f.name_of(d), int(f.ports_t.num[p])
    vals = now.values.get(p)
    if vals is None:
        return LinkEnd(p, name, num, now.clean_elsewhere)
    out: dict[Counter, float] = {}
    reset: list[Counter] = []
    prev = old.values.get(p, {}) if old is not None else {}
    for c, v in vals.items():
        if old is not None and c in prev:
            if v < prev[c]:
                reset.append(c)
                out[c] = v * scale
            else:
                out[c] = (v - prev[c]) * scale
        elif old is not None:
            continue                    # no earlier value: no increase to tell
        else:
            out[c] = float(v)
    return LinkEnd(p, name, num, True, out, tuple(sorted(now.saturated.get(p, ()), key=_ORDER.__getitem__)),
                   tuple(reset))


def _findings(a: LinkEnd, b: LinkEnd, unit: str = "") -> tuple[Finding, ...]:
    if not (a.known and b.known):
        return ()
    out: list[Finding] = []
    ra, rb = (sum(e.get(c) for c in RECEIVE_ERRORS) for e in (a, b))
    for bad, good, n in ((a, b, ra), (b, a, rb)):
        if n > 0 and (rb if bad is a else ra) == 0:
            out.append(Finding(Disagreement.ONE_SIDED_ERRORS,
                               f"{bad.name} receives errors ({_fmt(n)}{unit} symbol/receive), {good.name} none: "
                               f"suspect the {good.device} → {bad.device} direction (that transmitter, its lanes "
                               "or this receiver)"))
    da, db = a.get(Counter.LINK_DOWNED), b.get(Counter.LINK_DOWNED)
    if da != db:
        out.append(Finding(Disagreement.LINK_DOWNED_DIFFERS,
                           f"LinkDownedCounter {_fmt(da)}{unit} at {a.name} but {_fmt(db)}{unit} at {b.name}: "
                           "a link goes down at both ends, so one end's counters were cleared or its device "
                           "restarted since"))
    return tuple(out)


def _fmt(v: float) -> str:
    """A count as a person reads it: ``1,234``; a rate: ``1,092``, ``5``, ``0.167``."""
    v = float(v)
    return f"{v:,.0f}" if v.is_integer() or abs(v) >= 100 else f"{v:.3g}"


def link_line(lk: LinkCounters, metric: Metric = Metric.ERRORS, per_second: bool = False) -> str:
    """One line naming both ends and their non-zero ranked counters, e.g.
    ``Switch1 port 3 — Switch2 port 3: SymbolErrorCounter 1,234 (Switch1 port 3), …``."""
    unit = "/s" if per_second else ""
    parts = []
    counters = RANKED if metric is Metric.ERRORS else (Counter.XMIT_WAIT,) + ERRORS
    for c in counters:
        for e in (lk.a, lk.b):
            v = e.get(c)
            if v:
                sat = " (saturated)" if c in e.saturated else ""
                parts.append(f"{c.value} {_fmt(v)}{unit} at {e.name}{sat}")
    text = f"{lk.a.name} — {lk.b.name}: " + (", ".join(parts) or "no errors")
    for e in (lk.a, lk.b):
        if not e.known:
            text += f"; {e.name} not counted"
    if lk.findings:
        text += "; ends disagree: " + "; ".join(fd.kind.value for fd in lk.findings)
    return text


__all__ = ["CountersReport", "Disagreement", "ERRORS", "Finding", "LinkCounters", "LinkEnd", "Metric",
           "PortIndex", "RANKED", "RECEIVE_ERRORS", "Unmatched", "link_line", "port_counters"]
