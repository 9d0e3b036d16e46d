"""Is the fabric cabled the way it was designed? A design compared with a discovered fabric.

The discovered fabric is what a real fabric reports (``ibnetdiscover`` output, an ibsim net file,
or another design). Devices are matched by GUID, then NodeDescription or name, then through the
cabling (:mod:`fabricviz.check.diff_match`); then every design cable between two matched devices is
looked up by port number on the discovered side, and what does not agree is reported as typed
:class:`Difference` records, each with one line naming both ends:

* **missing cable**: neither end of a design cable is cabled in the discovered fabric;
* **extra cable**: a discovered cable between matched devices that no design cable explains;
* **wrong port**: one end is right, the other is on the right device but another port;
* **wrong peer**: one end is right, the other is on another device;
* **swapped**: two design cables whose far ends are exchanged (``a–b`` and ``c–d`` found as
  ``a–d`` and ``c–b``), reported once as a pair;
* **rate below design**: the cable is there but came up slower or narrower than designed
  (``1xSDR`` where ``4xNDR`` was designed);
* **device missing** / **device unexpected**: a design device with no match / a discovered one;
* **renamed**: a device matched by GUID or cabling that reports another NodeDescription.

The order is fixed (by kind, then by the line), so two runs print the same report. Ports are named
by the design's names wherever the device is matched, so a line reads in the design's terms.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import Enum

from ..model import Fabric, LinkRate
from ..model.descriptions import node_description
from ..model.guid import format_guid
from .diff_match import MatchedBy, Matching, Side, has_eth, match


class DiffKind(Enum):
    """What kind of difference (the value is the word the report prints)."""
    DEVICE_MISSING = "device missing"
    DEVICE_UNEXPECTED = "device unexpected"
    RENAMED = "renamed"
    MISSING_CABLE = "missing cable"
    EXTRA_CABLE = "extra cable"
    WRONG_PORT = "wrong port"
    WRONG_PEER = "wrong peer"
    SWAPPED = "swapped"
    RATE_BELOW = "rate below design"


ORDER = {k: i for i, k in enumerate(DiffKind)}


@dataclass(frozen=True)
class Link:
    """Two ports by name (``leaf1:3``), and the design's port ids of them (-1: not in the design)."""
    a: str
    b: str
    port_a: int = -1
    port_b: int = -1

    def __str__(self) -> str:
        return f"{self.a} – {self.b}"

    @property
    def key(self) -> tuple[str, str]:
        """The two names in order: the link without a direction."""
        return (self.a, self.b) if self.a <= self.b else (self.b, self.a)


@dataclass(frozen=True)
class Difference:
    """One difference. ``design`` are the design cables it is about, ``found`` the discovered
    cables (ends named in design terms where the device is matched), ``devices`` the design
    devices it is about (ids), ``cables`` the design cable ids to show or select."""
    kind: DiffKind
    line: str
    design: tuple[Link, ...] = ()
    found: tuple[Link, ...] = ()
    devices: tuple[int, ...] = ()
    cables: tuple[int, ...] = ()
    design_rate: str | None = None
    found_rate: str | None = None

    def to_dict(self) -> dict:
        out: dict = {"kind": self.kind.value, "line": self.line,
                     "design": [[x.a, x.b] for x in self.design], "found": [[x.a, x.b] for x in self.found]}
        if self.design_rate is not None:
            out["design_rate"], out["found_rate"] = self.design_rate, self.found_rate
        return out


@dataclass
class DiffReport:
    """Every difference (in report order) and how the devices were matched."""
    differences: list[Difference]
    compared: tuple[int, int]                        # devices taking part: design, discovered
    matched: dict[MatchedBy, int] = field(default_factory=dict)
    cables_ok: int = 0                               # design cables found as designed
    ethernet_left_out: bool = False
    steps: int = 0                                   # ports and cables looked at (work, for tests)

    @property
    def equal(self) -> bool:
        return not self.differences

    def counts(self) -> dict[DiffKind, int]:
        c = Counter(d.kind for d in self.differences)
        return {k: c[k] for k in DiffKind if c[k]}

    def summary(self) -> str:
        how = ", ".join(f"{n} by {k.value}" for k, n in self.matched.items() if n)
        head = (f"{sum(self.matched.values())} of {self.compared[0]} design devices matched"
                + (f" ({how})" if how else "") + f", {self.cables_ok} cables as designed")
        if self.equal:
            return head + ": no differences"
        return head + ": " + ", ".join(f"{n} {k.value}" for k, n in self.counts().items())

    def to_dict(self) -> dict:
        return {"equal": self.equal, "summary": self.summary(),
                "counts": {k.value: n for k, n in self.counts().items()},
                "differences": [d.to_dict() for d in self.differences]}


def diff_fabrics(design: Fabric, found: Fabric) -> DiffReport:
    """Compare ``design`` with the discovered fabric ``found`` (see the module docstring)."""
    eth = has_eth(found)
    ds, fs = Side.of(design, eth), Side.of(found, eth)
    m = match(ds, fs)
    return _Classifier(ds, fs, m, ethernet_left_out=not eth and has_eth(design)).run()


class _Classifier:
    """Walks the design cables and the discovered ones once each and says what differs."""

    def __init__(self, ds: Side, fs: Side, m: Matching, ethernet_left_out: bool) -> None:
        self.ds, self.fs, self.m = ds, fs, m
        self.out: list[Difference] = []
        self.steps = m.steps
        self.ethernet_left_out = ethernet_left_out

    # ---- names ----------------------------------------------------------------------------
    def dname(self, p: int) -> str:
        return self.ds.fabric.port_name(p)

    def fname(self, px: int) -> str:
        """A discovered port in design terms: the design device's name where it is matched."""
        x = int(self.fs.port_dev[px])
        d = self.m.to_design.get(x)
        if d is None:
            return self.fs.fabric.port_name(px)
        return f"{self.ds.fabric.name_of(d)}:{self.fs.num(px)}"

    def design_port(self, px: int) -> int:
        """The design port id of a discovered port (-1: device not matched or no such port)."""
        d = self.m.to_design.get(int(self.fs.port_dev[px]))
        return self.ds.port(d, self.fs.num(px)) if d is not None else -1

    def found_port(self, p: int) -> int:
        """The discovered port id of a design port (-1: device not matched or no such port)."""
        x = self.m.to_found.get(int(self.ds.port_dev[p]))
        return self.fs.port(x, self.ds.num(p)) if x is not None else -1

    def flink(self, px: int, qx: int) -> Link:
        return Link(self.fname(px), self.fname(qx), self.design_port(px), self.design_port(qx))

    # ---- the walk ----------------------------------------------------------------------------
    def run(self) -> DiffReport:
        self.devices()
        explained = self.cables()
        self.extra(explained)
        self.out.sort(key=lambda d: (ORDER[d.kind], d.line))
        counts = Counter(self.m.how.values())
        return DiffReport(self.out, (len(self.ds.nodes), len(self.fs.nodes)),
                          {k: counts[k] for k in MatchedBy}, self.cables_ok, self.ethernet_left_out, self.steps)

    def devices(self) -> None:
        df, ff = self.ds.fabric, self.fs.fabric
        for d in self.ds.nodes.tolist():
            x = self.m.to_found.get(d)
            if x is None:
                links = [Link(self.dname(p), self.dname(q), p, q) for p, q in self.design_links(d)]
                ends = ", ".join(x.b for x in links)
                self.out.append(Difference(
                    DiffKind.DEVICE_MISSING,
                    f"device missing: {df.name_of(d)}{_guid(df, d)}"
                    + (f", cabled to {ends}" if ends else ", not cabled"),
                    design=tuple(links), devices=(d,), cables=tuple(int(df.ports_t.cable[p]) for p, _ in
                                                                    self.design_links(d))))
                continue
            if self.m.how[d] is not MatchedBy.DESCRIPTION:
                want, got = node_description(df, d), node_description(ff, x)
                if want != got:
                    self.out.append(Difference(
                        DiffKind.RENAMED, f"renamed: {df.name_of(d)} reports {got!r}, designed {want!r}"
                                          f"{_guid(ff, x)}", devices=(d,)))
        for x in self.fs.nodes.tolist():
            if x in self.m.to_design:
                continue
            peers = [self.fname(int(self.fs.peer[px])) for px in self.found_ports(x) if self.fs.peer[px] >= 0]
            self.out.append(Difference(
                DiffKind.DEVICE_UNEXPECTED,
                f"device unexpected: {ff.name_of(x)}{_guid(ff, x)}"
                + (f", cabled to {', '.join(peers)}" if peers else ", not cabled")))

    def design_links(self, d: int) -> list[tuple[int, int]]:
        t = self.ds.fabric.devices_t
        first = int(t.first_port[d])
        out = []
        for p in range(first, first + int(t.nports[d])):
            q = int(self.ds.peer[p])
            if q >= 0:
                out.append((p, q))
        return out

    def found_ports(self, x: int) -> range:
        t = self.fs.fabric.devices_t
        first = int(t.first_port[x])
        return range(first, first + int(t.nports[x]))

    def cables(self) -> set[int]:
        """Classify every design cable between matched devices; return the discovered cable ids
        that a design cable explains (found as designed, or as what a design cable became)."""
        df, ff = self.ds.fabric, self.fs.fabric
        fcable = ff.ports_t.cable
        explained: set[int] = set()
        todo: list[tuple[int, int]] = []
        self.cables_ok = 0
        for c in sorted(df.cable_ids().tolist(), key=lambda c: _ends_key(df, c)):
            self.steps += 1
            p, q = _ends(df, c)
            if self.ds.peer[p] != q:      # a cable to a device that takes no part (GPU, Ethernet)
                continue
            if int(self.ds.port_dev[p]) not in self.m.to_found or int(self.ds.port_dev[q]) not in self.m.to_found:
                continue                  # said once, by "device missing"
            px, qx = self.found_port(p), self.found_port(q)
            if px >= 0 and qx >= 0 and self.fs.peer[px] == qx:
                explained.add(int(fcable[px]))
                self.cables_ok += 1
                self.rate(c, int(fcable[px]), p, q)
            else:
                todo.append((p, q))
        unrealised = {p: q for p, q in todo} | {q: p for p, q in todo}
        swapped = self.swaps(todo, unrealised, explained)
        for p, q in todo:
            if p in swapped:
                continue
            self.misplaced(p, q, explained)
        return explained

    def rate(self, c: int, cx: int, p: int, q: int) -> None:
        want, got = self.ds.fabric.cable_rate(c), self.fs.fabric.cable_rate(cx)
        if _below(got, want):
            link = Link(self.dname(p), self.dname(q), p, q)
            self.out.append(Difference(DiffKind.RATE_BELOW, f"rate below design: {link} runs {got}, designed {want}",
                                       design=(link,), devices=self.devs(p, q), cables=(c,),
                                       design_rate=str(want), found_rate=str(got)))

    def devs(self, *ports: int) -> tuple[int, ...]:
        return tuple(sorted({int(self.ds.port_dev[p]) for p in ports if p >= 0}))

    def cable_of(self, *ports: int) -> tuple[int, ...]:
        cab = self.ds.fabric.ports_t.cable
        return tuple(sorted({int(cab[p]) for p in ports if p >= 0 and cab[p] >= 0}))

    def swaps(self, todo: list[tuple[int, int]], unrealised: dict[int, int], explained: set[int]) -> set[int]:
        """Pairs of design cables found with their far ends exchanged; returns the design ports
        of the pairs reported."""
        done: set[int] = set()
        fcable = self.fs.fabric.ports_t.cable
        for p0, q0 in todo:
            for p, q in ((p0, q0), (q0, p0)):
                if p in done:
                    break
                self.steps += 1
                px = self.found_port(p)
                ax = int(self.fs.peer[px]) if px >= 0 else -1
                s = self.design_port(ax) if ax >= 0 else -1
                r = unrealised.get(s, -1) if s >= 0 else -1
                if r < 0 or s in done or s == q:
                    continue
                rx, qx = self.found_port(r), self.found_port(q)
                if rx < 0 or qx < 0 or self.fs.peer[rx] != qx:
                    continue
                x1, x2 = Link(self.dname(p), self.dname(q), p, q), Link(self.dname(r), self.dname(s), r, s)
                (x1, f1), (x2, f2) = sorted([(x1, self.flink(px, ax)), (x2, self.flink(rx, qx))],
                                            key=lambda t: t[0].key)
                self.out.append(Difference(
                    DiffKind.SWAPPED, f"swapped: {x1} and {x2} are crossed (found {f1} and {f2})",
                    design=(x1, x2), found=(f1, f2), devices=self.devs(p, q, r, s),
                    cables=self.cable_of(p, r)))
                explained.update((int(fcable[px]), int(fcable[rx])))
                done.update((p, q, r, s))
                break
        return done

    def misplaced(self, p: int, q: int, explained: set[int]) -> None:
        """A design cable not found as designed and not one of a swapped pair."""
        ff = self.fs.fabric
        link = Link(self.dname(p), self.dname(q), p, q)
        c = self.cable_of(p)
        said = False
        for e, o in ((p, q), (q, p)):
            ex = self.found_port(e)
            ax = int(self.fs.peer[ex]) if ex >= 0 else -1
            if ax < 0:
                continue
            said = True
            explained.add(int(ff.ports_t.cable[ex]))
            found = self.flink(ex, ax)
            far = self.m.to_found.get(int(self.ds.port_dev[o]))
            if int(self.fs.port_dev[ax]) == far:
                self.out.append(Difference(
                    DiffKind.WRONG_PORT, f"wrong port: {link}: {self.dname(e)} is cabled to {found.b} "
                                         f"instead of {self.dname(o)}",
                    design=(link,), found=(found,), devices=self.devs(p, q), cables=c))
            else:
                self.out.append(Difference(
                    DiffKind.WRONG_PEER, f"wrong peer: {link}: {self.dname(e)} goes to {found.b} "
                                         f"instead of {self.dname(o)}",
                    design=(link,), found=(found,), devices=self.devs(p, q, found.port_b), cables=c))
        if not said:
            self.out.append(Difference(DiffKind.MISSING_CABLE, f"missing cable: {link}",
                                       design=(link,), devices=self.devs(p, q), cables=c))

    def extra(self, explained: set[int]) -> None:
        ff = self.fs.fabric
        for cx in sorted(ff.cable_ids().tolist(), key=lambda c: _ends_key(ff, c)):
            self.steps += 1
            if cx in explained:
                continue
            px, qx = _ends(ff, cx)
            if self.fs.peer[px] != qx:
                continue
            if int(self.fs.port_dev[px]) not in self.m.to_design or int(self.fs.port_dev[qx]) not in self.m.to_design:
                continue                  # said once, by "device unexpected"
            link = self.flink(px, qx)
            self.out.append(Difference(DiffKind.EXTRA_CABLE, f"extra cable: {link} (not in the design, "
                                                             f"{ff.cable_rate(cx)})",
                                       found=(link,), devices=self.devs(link.port_a, link.port_b)))


def _ends(f: Fabric, c: int) -> tuple[int, int]:
    a, b = int(f.cables_t.port_a[c]), int(f.cables_t.port_b[c])
    return (a, b) if f.port_name(a) <= f.port_name(b) else (b, a)


def _ends_key(f: Fabric, c: int) -> tuple[str, str]:
    a, b = _ends(f, c)
    return f.port_name(a), f.port_name(b)


def _guid(f: Fabric, d: int) -> str:
    g = int(f.devices_t.guid[d])
    return f" ({format_guid(g)})" if g else ""


def _below(got: LinkRate, want: LinkRate) -> bool:
    """``got`` is slower or narrower than ``want`` (same technology)."""
    return got.tech == want.tech and (got.speed_rank < want.speed_rank or got.width < want.width)
