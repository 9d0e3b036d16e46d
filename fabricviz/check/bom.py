"""Bill of materials: what to buy for a design, with cost and power from the parts catalog.

Lines per part: servers, GPUs and NICs (a server's own GPUs and NICs are listed
with their count but priced inside the server, as the catalog's server prices
and powers include them), switches, and cables by part and length. A
``transceiver`` cable part is a link of two optics and a fibre, priced per link
in the catalog: it becomes a ``transceiver`` line (2 per link, half the link's
price and power each) and a ``fibre`` line per length (priced with the optics).
DAC and AOC cables carry their ends and have no separate optics. A breakout cable part
(:mod:`fabricviz.model.cage_cables`: a splitter, twin-port optics) is counted one per cage it serves,
as long as the cage's longest link; twin-port optics one module per cage their links end in (half
the part's price, which is per cage cable: two modules) and, on InfiniBand, one fibre per link (a
DGX cage's two links go to two rails' leaves). Twin-to-single-port optics (NDR-SPLIT-SR4, XDR-SPLIT-DR4:
a twin-port module in a switch cage, a single-port one in each NIC cage it feeds) count the twin-port
module one per switch cage and a single-port one per NIC cage, priced as shares of the part (which is
one twin-port module and ``n`` single-port ones, each half a twin-port one), and a fibre per link — or,
for a cage at 4 × 200G (NDR200-SPLIT-SR4), a 1:2 splitter fibre per twin-port MPO port in use. Twin-port
copper (NDR-TWIN-DAC) is one cable per cage pair. A per-link transceiver part whose links end in shared
cages (a QM9700's twin-port cage, a DGX's) counts one twin-port module per such cage and one
single-port module per single-port end; a cage is counted once over all parts. A broken-out switch cage whose
links got per-link parts (no breakout part serves them) adds one breakout cable per cage in use,
unpriced: its legs are the links' cable lines. NVLink domains add their switch trays (a rack's) or count their
NVSwitch chips (a DGX's, in its price): :mod:`.bom_nvlink`. SHARP
aggregation nodes (part ``SHARP-AN``) live inside switches and are not listed, nor are
their links to their switch.

Lengths are binned to the part's next orderable length (``lengths_m``), as the
SKU differs per length; longer ones round up to a whole metre. Prices come from
the catalog, the design's own (user) parts override it, and ``prices`` (part id →
price, or {"price_usd", "power_w"}) override both; a line priced from an
estimate is flagged and the totals say they include estimates. A hypothetical part (no real
product, e.g. a generator's radix-16 model of a 64-port switch) has no price: its line says
:data:`UNPRICED` and is left out of the totals, which count the unpriced items, until a price is
given in ``prices``.
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..ib.sharp import sharp_mask  # SHARP aggregation nodes (NICs, not hosts)
from ..model import Fabric, FabricError, Part
from ..model.breakout import Breakout, used_cages
from ..model.cage_cables import cage_units, end_cages, splitter_fibres
from ..model.fabric import KIND_CODE, KINDS, NIC
from ..model.inputs import read_input
from ..model.tech import IB
from ..model.text import decode_utf8, finite, one_line, parse_json
from .bom_nvlink import nvlink_lines

CATEGORIES: tuple[str, ...] = ("server", "gpu", "nic", "switch", "nvlink", "cable", "transceiver", "fibre")
#: What an unpriced line (a hypothetical part without a price) shows instead of a price.
UNPRICED = "hypothetical — set a price"
CSV_HEADER = ("category", "part", "name", "count", "unit_price_usd", "total_usd", "unit_power_w",
              "total_power_w", "estimate")


@dataclass(frozen=True)
class BomLine:
    category: str
    part: str
    name: str
    count: int
    unit_price: float
    unit_power: float
    estimate: bool
    length_m: float | None = None
    unpriced: bool = False           # hypothetical part with no price given: not in the totals

    @property
    def total_price(self) -> float:
        return self.count * self.unit_price

    @property
    def total_power(self) -> float:
        return self.count * self.unit_power

    def to_dict(self) -> dict[str, Any]:
        return {"category": self.category, "part": self.part, "name": self.name, "count": self.count,
                "length_m": self.length_m, "unit_price_usd": self.unit_price, "total_usd": self.total_price,
                "unit_power_w": self.unit_power, "total_power_w": self.total_power, "estimate": self.estimate,
                "unpriced": self.unpriced}


@dataclass
class Bom:
    name: str
    lines: list[BomLine]
    host_ports: int                 # cabled compute NIC ports (SHARP nodes excluded)
    gpus: int
    overridden: list[str] = field(default_factory=list)

    def count(self, category: str, part: str | None = None) -> int:
        return sum(x.count for x in self.lines if x.category == category and (part is None or x.part == part))

    @property
    def total_price(self) -> float:
        return math.fsum(x.total_price for x in self.lines)

    @property
    def total_power(self) -> float:
        return math.fsum(x.total_power for x in self.lines)

    @property
    def network_price(self) -> float:
        """Switches, cables and optics, plus NICs not priced inside a server."""
        return math.fsum(x.total_price for x in self.lines if x.category not in ("server", "gpu"))

    @property
    def network_power(self) -> float:
        return math.fsum(x.total_power for x in self.lines if x.category not in ("server", "gpu"))

    @property
    def unpriced_items(self) -> int:
        """Items (devices, cables) of hypothetical parts with no price, left out of the totals."""
        return sum(x.count for x in self.lines if x.unpriced)

    @property
    def includes_estimates(self) -> bool:
        return any(x.estimate and x.count and x.unit_price for x in self.lines)

    def per_host_port(self) -> dict[str, float]:
        n = self.host_ports or 1
        return {"price_usd": self.total_price / n, "power_w": self.total_power / n,
                "network_price_usd": self.network_price / n, "network_power_w": self.network_power / n}

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "lines": [x.to_dict() for x in self.lines],
                "total_usd": self.total_price, "total_power_w": self.total_power,
                "network_usd": self.network_price, "network_power_w": self.network_power,
                "host_ports": self.host_ports, "gpus": self.gpus, "per_host_port": self.per_host_port(),
                "includes_estimates": self.includes_estimates, "unpriced_items": self.unpriced_items,
                "price_overrides": self.overridden}

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(CSV_HEADER)
        for x in self.lines:
            price = ("", "") if x.unpriced else (_num(x.unit_price), _num(x.total_price))
            w.writerow([x.category, x.part, x.name, x.count, *price, _num(x.unit_power), _num(x.total_power),
                        UNPRICED if x.unpriced else "est." if x.estimate else ""])
        return buf.getvalue()

    def format(self) -> str:
        rows = [(x.category, x.part, x.name, f"{x.count:,}", "—" if x.unpriced else _money(x.unit_price),
                 "—" if x.unpriced else _money(x.total_price), f"{_num(x.total_power)} W",
                 UNPRICED if x.unpriced else "est." if x.estimate else "") for x in self.lines]
        head = ("category", "part", "name", "count", "unit", "total", "power", "")
        widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
        right = {3, 4, 5, 6}
        fmt = lambda r: "  ".join(c.rjust(widths[i]) if i in right else c.ljust(widths[i])  # noqa: E731
                                  for i, c in enumerate(r)).rstrip()
        out = [fmt(head)] + [fmt(r) for r in rows]
        per = self.per_host_port()
        est = " (includes estimates)" if self.includes_estimates else ""
        out.append(f"total: {_money(self.total_price)}, {_num(self.total_power / 1000)} kW{est}")
        if self.unpriced_items:
            out.append(f"not in the total: {self.unpriced_items:,} unpriced item(s) of hypothetical parts "
                       "(give them a price in a prices file)")
        out.append(f"network (switches, cables, optics, NICs not in servers): {_money(self.network_price)}, "
                   f"{_num(self.network_power / 1000)} kW")
        out.append(f"per host port ({self.host_ports:,}): {_money(per['price_usd'])}, {_num(per['power_w'])} W; "
                   f"network {_money(per['network_price_usd'])}, {_num(per['network_power_w'])} W")
        return "\n".join(out)


def _num(v: float) -> str:
    """Plain decimal, up to 3 places, no exponent: 12800000, 25.6."""
    text = f"{round(float(v), 3):.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _money(v: float) -> str:
    return f"${v:,.0f}" if float(v).is_integer() else f"${v:,.2f}"


#: Largest prices file read (a price per part of a big catalog is a few hundred KB).
MAX_PRICES_BYTES = 16 << 20


def load_prices(path: str | os.PathLike[str]) -> dict[str, dict[str, float]]:
    """Read a prices file: ``{"QM9700": 32000, "NDR-SR4": {"price_usd": 1400, "power_w": 15}}``;
    a bad one is FabricError ``path[:line]: [part id: ]why`` (one line, the file's characters escaped)."""
    where = os.fspath(path)
    data = read_input(path, MAX_PRICES_BYTES, "a prices file")
    doc = parse_json(decode_utf8(data, where), where)
    if not isinstance(doc, dict):
        raise FabricError(f"{where}: a prices file is an object mapping part id to price")
    out: dict[str, dict[str, float]] = {}
    for pid, v in doc.items():
        name = one_line(str(pid))[:80]
        entry = {"price_usd": v} if not isinstance(v, dict) else dict(v)
        for key, val in entry.items():
            if key not in ("price_usd", "power_w"):
                raise FabricError(f"{where}: {name}.{one_line(key)[:80]}: unknown field (use price_usd, power_w)")
            if not finite(val) or val < 0:
                raise FabricError(f"{where}: {name}: {key} must be a non-negative number, got {_short(val)}")
        out[str(pid)] = {k: float(x) for k, x in entry.items()}
    return out


def _short(v: Any) -> str:
    """A value as a few characters of one line (never hundreds of digits)."""
    if isinstance(v, int) and not isinstance(v, bool) and not finite(v):
        return f"an integer of {len(str(abs(v)))} digits"
    if isinstance(v, (dict, list)):
        return "an object" if isinstance(v, dict) else "a list"
    return one_line(repr(v))[:40]


def bill_of_materials(fabric: Fabric, prices: Mapping[str, Mapping[str, float]] | None = None,
                      source: str = "prices") -> Bom:
    """The BOM of ``fabric``; ``prices`` as returned by :func:`load_prices` from the file
    ``source`` (named in the refusal of a part the design's catalog does not have)."""
    prices = dict(prices or {})
    cat = fabric.catalog
    for pid in prices:
        if pid not in cat:
            raise FabricError(f"{source}: {one_line(pid)[:80]}: not a part of the design's catalog")
    t, pt, ct = fabric.devices_t, fabric.ports_t, fabric.cables_t

    def figures(part: Part) -> tuple[float, float, bool]:
        o = prices.get(part.id, {})
        est = part.price_estimate and "price_usd" not in o
        return o.get("price_usd", float(part.price_usd)), o.get("power_w", float(part.power_w)), est

    def unpriced(part: Part) -> bool:
        return part.hypothetical and "price_usd" not in prices.get(part.id, {})

    lines: list[BomLine] = []
    alive = t.alive
    # devices: group by (kind, part index, inside a server?)
    parent_server = np.zeros(t.n, bool)
    has_parent = alive & (t.parent >= 0)
    parent_server[has_parent] = t.kind[t.parent[has_parent]] == KIND_CODE["server"]
    sharp = sharp_mask(fabric)
    cat_of = {"server": "server", "gpu": "gpu", "nic": "nic", "ib_switch": "switch", "eth_switch": "switch"}
    groups: dict[tuple[str, str, bool], int] = {}
    for kind_code in np.unique(t.kind[alive]).tolist():
        kind = KINDS[kind_code]
        for idx in np.unique(t.part[alive & (t.kind == kind_code)]).tolist():
            sel = alive & (t.kind == kind_code) & (t.part == idx) & ~sharp
            part_id = fabric.part_id_of(int(np.flatnonzero(sel)[0])) if idx >= 0 and sel.any() else None
            if part_id is None:
                continue
            for inside in (False, True):
                n = int(np.count_nonzero(sel & (parent_server == inside)))
                if n:
                    groups[(cat_of[kind], part_id, inside)] = n
    for (category, pid, inside), n in sorted(groups.items(), key=lambda kv: (CATEGORIES.index(kv[0][0]),
                                                                               kv[0][1], kv[0][2])):
        part = cat.get(pid)
        if inside:
            lines.append(BomLine(category, pid, f"{part.name} (in the servers' price)", n, 0.0, 0.0, False))
        else:
            price, power, est = figures(part)
            lines.append(BomLine(category, pid, part.name, n, price, power, est, unpriced=unpriced(part)))
    lines += nvlink_lines(fabric, BomLine, figures)  # NVLink switch trays, NVSwitch chips
    # cables by part and orderable length; a switch's link to its own aggregation node is inside
    # the switch, not a cable to order
    live = ct.live_ids()
    live = live[~(sharp[pt.device[ct.port_a[live]]] | sharp[pt.device[ct.port_b[live]]])]
    bins: dict[tuple[str, float], int] = {}
    per_cage = []                                   # links on breakout cables: one cable per cage
    optical: dict[str, np.ndarray] = {}             # transceiver part -> its links (modules per cage)
    for idx in np.unique(ct.part[live]).tolist():
        rows = live[ct.part[live] == idx]
        part = fabric.cable(int(rows[0])).part
        length = ct.length[rows].astype(np.float64)
        if part.cable_type == "transceiver":
            optical[part.id] = rows
        if part.breakout:
            per_cage.append(rows)
        units = (cage_units(fabric, rows) if part.breakout and not _fibre_per_link(part)
                 else splitter_fibres(fabric, rows) if _fibre_per_link(part) and _split(part) > 2 else None)
        if units is not None:                  # a cage's cable (a splitter fibre) is as long as its longest link
            keys, inv = np.unique(units, return_inverse=True)
            length = np.zeros(len(keys))
            np.maximum.at(length, inv.ravel(), ct.length[rows])
        lengths = np.array([_order_length(part, float(x)) for x in length])
        for L, n in zip(*np.unique(lengths, return_counts=True), strict=True):
            bins[(part.id, float(L))] = int(n)
    cable_lines, fibre = [], []
    for (pid, L), n in sorted(bins.items()):
        part = cat.get(pid)
        price, power, est = figures(part)
        if part.cable_type == "transceiver":
            what = (f"fibre pairs for {pid}, {L:g} m, one per cage" if part.breakout and not _fibre_per_link(part)
                    else f"1:2 splitter fibres for {pid}, {L:g} m, one per two links (a twin-port module's MPO port)"
                    if _split(part) > 2 else f"fibres for {pid}, {L:g} m, one per link")
            fibre.append(BomLine("fibre", pid, f"{what} (priced with the transceivers)", n, 0.0, 0.0, False, L))
        else:
            each = ("" if not part.breakout else " (one per switch cage, its legs to the cage's ports)"
                    if part.far_end == "single" else " (one per cage pair: both ports of a cage to one far cage)")
            cable_lines.append(BomLine("cable", pid, f"{part.name}, {L:g} m{each}", n, price, power, est, L,
                                       unpriced(part)))
    optics = [BomLine("transceiver", pid, f"{cat.get(pid).name}: {what}", n, *_share(figures(cat.get(pid)), each),
                      unpriced=unpriced(cat.get(pid))) for pid, what, n, each in _modules(fabric, optical)]
    done = np.concatenate(per_cage) if per_cage else None
    for pid, n in sorted(used_cages(fabric, done).items()):    # the legs are priced in the cable lines
        part = cat.get(pid)
        lines.append(BomLine("cable", f"{pid}-cable", f"breakout cable, one per used cage of a {part.breakout_of} "
                             f"(1 × {cat.get(part.breakout_of).port} → {part.breakout.replace('x', ' × ', 1)}; "
                             "legs priced in the cable lines)", n, 0.0, 0.0, False))
    lines += cable_lines + optics + fibre
    host_nic = alive & (t.kind == KIND_CODE[NIC]) & ~sharp
    host_ports = int(np.count_nonzero((pt.cable >= 0) & host_nic[pt.device]))
    gpus = int(np.count_nonzero(alive & (t.kind == KIND_CODE["gpu"])))
    return Bom(fabric.name, lines, host_ports, gpus, sorted(prices))


def _fibre_per_link(part: Part) -> bool:
    """Twin-port InfiniBand optics: a fibre per link (a DGX cage's two links go to two rails' leaves);
    the Spectrum-X RA's tables count an Ethernet twin-port cage's fibre pair as one cable."""
    return bool(part.breakout) and part.cable_type == "transceiver" and part.tech == IB


def _split(part: Part) -> int:
    """How many ports the cage a breakout part serves carries (1: a per-link part)."""
    return Breakout.parse(part.breakout).split if part.breakout else 1


def _share(fig: tuple[float, float, bool], each: float) -> tuple[float, float, bool]:
    """A transceiver's price and power: the share ``each`` of its cable part's (a half: two modules a
    cable or link; a quarter: a single-port module of a twin-to-two-single-port part)."""
    return fig[0] * each, fig[1] * each, fig[2]


def _modules(fabric: Fabric, optical: dict[str, np.ndarray]) -> list[tuple[str, str, int, float]]:
    """(part, what the count is, count, share of the part's price) of the transceiver modules of the
    links on transceiver parts (``optical``: part id -> its links): one per cage at each end, a cage
    once however many of its links it carries and whichever part they are on (twin-port optics first:
    a leaf cage with a DGX link on twin-port optics and a UFM link on a twin-to-single part holds one
    module). A twin-to-single-port breakout part (NDR-SPLIT-SR4: one twin-port module and two
    single-port ones a cage cable) prices its twin-port modules at half the part, its single-port ones
    at a quarter; a per-link part on single-port cages only keeps its "2 per link"."""
    out = []
    seen = np.zeros(0, np.int64)
    order = lambda p: (not fabric.catalog.get(p).breakout, fabric.catalog.get(p).far_end != "twin", p)  # noqa: E731
    for pid in sorted(optical, key=order):
        part = fabric.catalog.get(pid)
        keys, shared = end_cages(fabric, optical[pid])
        new = ~np.isin(keys, seen)
        seen = np.concatenate([seen, keys])
        twin, single = int(np.count_nonzero(new & shared)), int(np.count_nonzero(new & ~shared))
        if part.breakout and part.far_end == "twin":
            out.append((pid, "twin-port transceivers, one per occupied cage at each end", twin + single, 0.5))
        elif not shared.any():
            out.append((pid, "one transceiver (2 per link)", twin + single, 0.5))
        else:
            split = bool(part.breakout)              # twin-to-single: its twin-port ends are switch cages
            # a twin-to-single part: one twin-port module and ``n`` single-port ones, each half a twin-port one
            each = 1 / (1 + _split(part) / 2) if split else 0.5
            if twin:
                out.append((pid, "twin-port transceivers, one per occupied " + ("switch cage" if split else
                                                                              "twin-port cage"), twin, each))
            if single:
                out.append((pid, "single-port transceivers, one per " + ("NIC cage" if split else "single-port cage"),
                            single, each / 2 if split else 0.5))
    return sorted(out, key=lambda x: x[0])


def _order_length(part: Part, length: float) -> float:
    """The part's next orderable length at or above ``length`` (whole metres beyond the list)."""
    for x in part.lengths_m:
        if x >= length - 1e-6:
            return float(x)
    return float(math.ceil(length - 1e-6))


__all__ = ["Bom", "BomLine", "CATEGORIES", "CSV_HEADER", "UNPRICED", "bill_of_materials", "load_prices"]
