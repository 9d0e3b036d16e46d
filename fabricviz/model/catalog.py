"""The parts catalog: switches, NICs, GPUs, servers and cables with real figures.

Bundled parts (``assets/catalog/*.json``) plus the user's parts file (adds or overrides by
id). Cable price and power are per link (a twin-port OSFP carrying two links counts half). Figures
that are not datasheet values are flagged ``*_estimate`` and explained in each part's ``notes``.
An Ethernet switch's shared packet buffer (``buffer_bytes``, for PFC headroom budgets) comes
with ``buffer_estimated`` (not a published figure) and ``buffer_source`` saying where it is from.
An Ethernet switch's ``port_lanes`` maps each front-panel port (1-based, in order) to its SerDes
lanes, one string per port as the ``lanes`` column of SONiC's ``port_config.ini`` writes them
(``"0,1,2,3,4,5,6,7"``), with ``port_lanes_source`` naming the file it was read from; the SONiC
export names ports and writes ``PORT|lanes`` from it.
A NIC's ``planes`` lists the plane counts its port splits into (multi-plane, :mod:`fabricviz.model.planes`),
with ``planes_source``. A server's ``nic_cages`` names, per NIC in order, the physical cage its port is in
(a DGX H100's eight single-port ConnectX-7s sit behind four twin-port OSFP cages), with ``nic_cages_source``
(:mod:`fabricviz.model.cage_cables`). A NIC's ``ooo_placement`` says whether it places reordered RoCE
packets (no go-back-N on reordering).
An ``nvlink_switch`` is an NVLink switch tray (its ``ports`` are NVLink ports across its switch
chips, ``nvlink_gbps`` one port's rate per direction): a part to count and price; it is no
device of the InfiniBand/Ethernet fabric.
A ``hypothetical`` part is no product (a radix-16 model of a 64-port switch for a textbook tree):
it has no price of its own, and the BOM leaves it unpriced until the user sets one.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from ..resources import asset_path
from .breakout import Breakout, check_breakouts
from .errors import CatalogError, FabricError
from .inputs import read_input
from .limits import check_part_limits
from .tech import ETH, IB, LinkRate, tech_name
from .text import decode_utf8, finite, one_line, parse_json

FORMAT = "fabricviz-catalog"
VERSION = 1
PART_KINDS: tuple[str, ...] = ("ib_switch", "eth_switch", "nic", "gpu", "server", "cable", "nvlink_switch")
#: Cable types in order of preference; active copper (ACC/LACC) is a ``dac`` with power and latency.
CABLE_TYPES: tuple[str, ...] = ("dac", "aoc", "transceiver")
#: A breakout cable's far end (:mod:`.cage_cables`): single-port cages (a splitter) or twin-port cages.
FAR_ENDS: tuple[str, ...] = ("single", "twin")
#: How a switch forwards: start on the egress once the header is in, or after the whole packet.
FORWARDING: tuple[str, ...] = ("cut-through", "store-and-forward")

_COMMON = ("id", "kind", "name", "vendor", "power_w", "price_usd", "price_estimate", "source", "notes",
           "hypothetical")
_SWITCH = ("ports", "port", "latency_ns", "latency_estimate", "asic", "rack_units", "forwarding",
           "cages", "breakouts", "breakout_source", "breakout_of", "breakout")
_KIND_FIELDS: dict[str, tuple[str, ...]] = {
    "ib_switch": _SWITCH, "eth_switch": _SWITCH + ("buffer_bytes", "buffer_estimated", "buffer_source", "port_lanes",
                            "port_lanes_source"),
    "nic": ("ports", "port", "port_modes", "latency_ns", "latency_estimate", "pcie", "ooo_placement", "planes",
            "planes_source"),
    "gpu": ("memory_gb", "pcie_gbps", "pcie", "pcie_latency_ns", "latency_estimate", "nvlink_gbps"),
    "server": ("gpus", "nics", "nic_part", "gpu_part", "rack_units", "nic_cages", "nic_cages_source"),
    "cable": ("cable_type", "tech", "max_rate", "reach_m", "lengths_m", "latency_ns", "latency_estimate",
              "breakout", "far_end"),
    "nvlink_switch": ("ports", "nvlink_gbps", "asic", "rack_units"),
}
#: How many leading fields of _KIND_FIELDS each kind requires.
_REQUIRED = {"ib_switch": 2, "eth_switch": 2, "nic": 1, "gpu": 2, "server": 3, "cable": 4, "nvlink_switch": 2}
_TEXT = {"vendor", "source", "notes", "asic", "pcie", "buffer_source", "port_lanes_source", "planes_source",
         "breakout_source", "nic_cages_source"}
_INTS = {"ports": 1, "gpus": 0, "nics": 1, "rack_units": 0, "cages": 1}          # field -> minimum
_NUMS = {"power_w", "price_usd", "latency_ns", "memory_gb", "pcie_gbps", "pcie_latency_ns",
         "nvlink_gbps", "reach_m", "buffer_bytes"}
_BOOLS = {"price_estimate", "latency_estimate", "hypothetical", "buffer_estimated", "ooo_placement"}
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,47}$")


@dataclass(frozen=True)
class Part:
    """One catalog part; kind-specific fields keep their defaults on other kinds."""
    id: str
    kind: str
    name: str
    vendor: str = ""
    power_w: float = 0.0
    price_usd: float = 0.0
    price_estimate: bool = True
    source: str = ""
    notes: str = ""
    hypothetical: bool = False       # no real product: unpriced in the BOM until a price is set
    ports: int = 0
    port: str | None = None
    port_modes: tuple[str, ...] = ()
    latency_ns: float = 0.0
    latency_estimate: bool = False
    asic: str | None = None
    rack_units: int = 0
    forwarding: str = "cut-through"  # switch: cut-through (Quantum, Spectrum) or store-and-forward
    buffer_bytes: float = 0.0        # Ethernet switch: shared packet buffer (0: unknown)
    buffer_estimated: bool = True    # … not a published figure (explained in buffer_source)
    buffer_source: str = ""
    port_lanes: tuple[str, ...] = ()  # Ethernet switch: SerDes lanes of port 1, 2, … ("0,1,2,3"); (): unknown
    port_lanes_source: str = ""
    cages: int = 0                   # switch: physical cages (0: one per port); see .breakout
    breakouts: tuple[str, ...] = ()  # switch: what one native port splits into ("2x400GbE"), per source
    breakout_source: str = ""
    breakout_of: str = ""            # a broken-out part (.breakout.broken_out): its base part …
    breakout: str = ""               # … and the mode its ports run in; a cable: the cage it serves
    far_end: str = ""                # breakout cable: its far ends' cages, single | twin (.cage_cables)
    pcie: str | None = None
    ooo_placement: bool = False      # NIC: places RoCE packets out of order (no go-back-N on reordering)
    planes: tuple[int, ...] = ()     # NIC: plane counts its port splits into (ConnectX-8: 2, 4); (): none
    planes_source: str = ""
    memory_gb: float = 0.0
    pcie_gbps: float = 0.0
    pcie_latency_ns: float = 0.0
    nvlink_gbps: float = 0.0
    gpus: int = 0
    gpu_part: str | None = None
    nics: int = 0
    nic_part: str | None = None
    nic_cages: tuple[int, ...] = ()  # server: per NIC (in order) its cage, 1-based; (): a cage per NIC
    nic_cages_source: str = ""
    cable_type: str | None = None
    tech: str | None = None
    max_rate: str | None = None
    reach_m: float = 0.0
    lengths_m: tuple[float, ...] = ()
    user: bool = False

    @staticmethod
    def from_dict(d: Any, where: str, user: bool = False) -> Part:
        """Validate one JSON part object; ``CatalogError("{where}.{field}: ...")`` on the first problem."""
        if not isinstance(d, dict):
            raise CatalogError(f"{where}: a part must be an object, got {type(d).__name__}")
        kind = d.get("kind")
        if kind not in PART_KINDS:
            raise CatalogError(f"{where}.kind: unknown kind {kind!r} (use {', '.join(PART_KINDS)})")
        pid = d.get("id")
        if not isinstance(pid, str) or not _ID_RE.match(pid):
            raise CatalogError(f"{where}.id: missing or invalid id {pid!r} (letters, digits, . _ + -)")
        name = d.get("name")
        if not isinstance(name, str) or not name.strip():
            raise CatalogError(f"{where}.name: missing (a part needs a name)")
        allowed = set(_COMMON) | set(_KIND_FIELDS[kind])
        for key in sorted(k for k in d if k not in allowed):
            raise CatalogError(f"{where}.{key}: unknown field for a {kind} part")
        for key in _KIND_FIELDS[kind][:_REQUIRED[kind]]:
            if key not in d:
                raise CatalogError(f"{where}.{key}: missing (required for a {kind} part)")
        kw: dict[str, Any] = {"id": pid, "kind": kind, "name": name, "user": user}
        for key in _COMMON[3:] + _KIND_FIELDS[kind]:
            if key in d:
                kw[key] = _check(key, d[key], f"{where}.{key}")
        _check_kind(kind, kw, where)
        part = Part(**kw)
        check_part_limits(part, where)        # ports, GPUs, NICs a device can hold
        return part

    def to_dict(self) -> dict[str, Any]:
        """The JSON object: only non-default fields, in a fixed order; round-trips through from_dict."""
        defaults = {f.name: f.default for f in fields(Part)}
        out: dict[str, Any] = {}
        required = _KIND_FIELDS[self.kind][:_REQUIRED[self.kind]]     # always written (a 0-GPU server)
        for key in _COMMON + _KIND_FIELDS[self.kind]:
            v = getattr(self, key)
            if key in ("id", "kind", "name") or key in required or (v != defaults[key] and not
                                                 (key == "port_modes" and v == (self.port,))):
                out[key] = list(v) if isinstance(v, tuple) else v
        return out

    @property
    def rate(self) -> LinkRate | None:
        """Native port rate (switch, NIC default mode) or a cable's rated maximum; None otherwise."""
        text = self.max_rate if self.kind == "cable" else self.port
        return LinkRate.parse(text) if text else None

    def lanes(self, num: int) -> tuple[int, ...]:
        """The SerDes lanes of front-panel port ``num`` (1-based) from ``port_lanes``; () when unknown."""
        if not 1 <= num <= len(self.port_lanes):
            return ()
        return tuple(int(x) for x in self.port_lanes[num - 1].split(","))

    @property
    def modes(self) -> tuple[LinkRate, ...]:
        """Every top-speed port mode, default first (a NIC's VPI modes; else just ``rate``)."""
        if self.kind == "nic":
            return tuple(LinkRate.parse(m) for m in self.port_modes)
        return (self.rate,) if self.rate is not None else ()


def _bad(where: str, what: str, v: Any) -> CatalogError:
    return CatalogError(f"{where}: must be {what}, got {_short(v)}")


def _short(v: Any) -> str:
    """A value as a few characters of one line (never hundreds of digits or a control character)."""
    if isinstance(v, int) and not isinstance(v, bool) and not finite(v):
        return f"an integer of {len(str(abs(v)))} digits"
    text = one_line(repr(v))
    return text if len(text) <= 60 else text[:60] + "..."


def _number(v: Any) -> bool:
    return finite(v)   # an int of hundreds of digits is no number here (no float holds it)


def _check(key: str, v: Any, where: str) -> Any:
    """Type and range check of one field; returns the value to store."""
    if key in _BOOLS:
        if not isinstance(v, bool):
            raise _bad(where, "true or false", v)
    elif key in _INTS:
        if isinstance(v, bool) or not isinstance(v, int) or v < _INTS[key]:
            raise _bad(where, "a positive integer" if _INTS[key] else "a non-negative integer", v)
    elif key in _NUMS:
        if not _number(v) or v < 0 or (key == "reach_m" and v == 0):
            raise _bad(where, "a positive number" if key == "reach_m" else "a non-negative number", v)
    elif key in ("port", "max_rate"):
        return str(_rate(v, where))
    elif key == "port_modes":
        modes = tuple(str(_rate(m, f"{where}[{i}]")) for i, m in enumerate(v)) if isinstance(v, list) else ()
        if not modes or len(set(modes)) != len(modes):
            raise _bad(where, "a non-empty list of distinct link rates", v)
        return modes
    elif key == "port_lanes":
        return _port_lanes(v, where)
    elif key == "planes":
        if (not isinstance(v, list) or not v or len(set(v)) != len(v)
                or not all(type(x) is int and 2 <= x <= 8 for x in v)):
            raise _bad(where, "a list of distinct plane counts from 2 to 8", v)
        return tuple(v)
    elif key == "nic_cages":
        if not isinstance(v, list) or not v or not all(type(x) is int and 1 <= x <= len(v) for x in v):
            raise _bad(where, "a list of cage numbers (1, 2, …), one per NIC", v)
        return tuple(v)
    elif key == "breakouts":
        if not isinstance(v, list) or len(set(map(str, v))) != len(v):
            raise _bad(where, "a list of distinct breakouts such as 2x400GbE", v)
        return tuple(str(Breakout.parse(m, f"{where}[{i}]")) for i, m in enumerate(v))
    elif key == "breakout":
        return str(Breakout.parse(v, where))
    elif key == "lengths_m":
        if not isinstance(v, list) or not all(_number(x) and x > 0 for x in v):
            raise _bad(where, "a list of positive lengths in metres", v)
        return tuple(sorted(v))
    elif key == "cable_type" and v not in CABLE_TYPES:
        raise CatalogError(f"{where}: unknown cable type {v!r} (use {', '.join(CABLE_TYPES)})")
    elif key == "far_end" and v not in FAR_ENDS:
        raise CatalogError(f"{where}: unknown far end {v!r} (use {' or '.join(FAR_ENDS)})")
    elif key == "forwarding" and v not in FORWARDING:
        raise CatalogError(f"{where}: unknown forwarding {v!r} (use {' or '.join(FORWARDING)})")
    elif key == "tech" and v not in (IB, ETH):
        raise CatalogError(f"{where}: unknown tech {v!r} (use ib or eth)")
    elif not isinstance(v, str) or (key not in _TEXT and not v.strip()):
        raise _bad(where, "text" if key in _TEXT else "a non-empty string", v)
    return v


_LANES_RE = re.compile(r"^(0|[1-9][0-9]{0,4})(,(0|[1-9][0-9]{0,4}))*$")


def _port_lanes(v: Any, where: str) -> tuple[str, ...]:
    """A list of ``"0,1,2,3"`` strings (port_config.ini's lanes column), no lane on two ports."""
    if not isinstance(v, list) or not v or not all(isinstance(x, str) and _LANES_RE.match(x) for x in v):
        raise _bad(where, 'a list of lane lists such as "0,1,2,3", one per port', v)
    seen: dict[str, int] = {}
    for i, text in enumerate(v):
        for lane in text.split(","):
            if lane in seen:
                raise CatalogError(f"{where}[{i}]: lane {lane} is also on port {seen[lane] + 1}")
            seen[lane] = i
    return tuple(v)


def _rate(v: Any, where: str) -> LinkRate:
    if isinstance(v, LinkRate):
        return v
    if not isinstance(v, str):
        raise _bad(where, "a link rate such as 4xNDR or 400GbE", v)
    try:
        return LinkRate.parse(v)
    except FabricError as e:
        raise CatalogError(f"{where}: {e}") from None


def _check_kind(kind: str, kw: dict[str, Any], where: str) -> None:
    """Checks across the fields of one part (switch tech, default NIC mode, cable lengths)."""
    if kind in ("ib_switch", "eth_switch"):
        want = IB if kind == "ib_switch" else ETH
        if LinkRate.parse(kw["port"]).tech != want:
            raise CatalogError(f"{where}.port: {kw['port']} is not an {tech_name(want)} rate")
        check_breakouts(kw.get("breakouts", ()), kw["port"], where)
        if kw.get("port_lanes") and len(kw["port_lanes"]) != kw["ports"]:
            raise CatalogError(f"{where}.port_lanes: lanes of {len(kw['port_lanes'])} ports for "
                               f"{kw['ports']} ports")
    elif kind == "nic":
        if "port_modes" not in kw and "port" not in kw:
            raise CatalogError(f"{where}.port: missing (a nic needs port or port_modes)")
        kw.setdefault("port_modes", (kw.get("port"),))
        kw.setdefault("port", kw["port_modes"][0])
        if kw["port_modes"][0] != kw["port"]:
            raise CatalogError(f"{where}.port_modes: the first mode must be the default port {kw['port']}")
    elif kind == "server" and kw["gpus"] > 0 and "gpu_part" not in kw:
        raise CatalogError(f"{where}.gpu_part: missing (a server with GPUs needs a gpu part)")
    elif kind == "server" and kw.get("nic_cages") and len(kw["nic_cages"]) != kw["nics"]:
        raise CatalogError(f"{where}.nic_cages: cages of {len(kw['nic_cages'])} NICs for {kw['nics']} NICs")
    elif kind == "cable":
        rate = LinkRate.parse(kw["max_rate"])
        if rate.tech != kw["tech"]:
            raise CatalogError(f"{where}.max_rate: {rate} does not match tech {kw['tech']!r}")
        for x in kw.get("lengths_m", ()):
            if x > kw["reach_m"] + 1e-9:
                raise CatalogError(f"{where}.lengths_m: {x:g} m is beyond reach_m {kw['reach_m']:g} m")
        if ("breakout" in kw) != ("far_end" in kw):
            raise CatalogError(f"{where}.{'far_end' if 'breakout' in kw else 'breakout'}: missing (a breakout "
                               "cable names both the cage it serves and its far ends)")
        if "breakout" in kw and Breakout.parse(kw["breakout"]).rate != rate:
            raise CatalogError(f"{where}.breakout: {kw['breakout']} does not run at max_rate {rate}")


def _fits_any(modes: tuple[LinkRate, ...], rate: LinkRate | str) -> bool:
    """One of ``modes`` can carry ``rate``."""
    r = _rate(rate, "rate")
    return any(_fits(m, r) for m in modes)


def _fits(mode: LinkRate, rate: LinkRate) -> bool:
    """``mode`` can carry ``rate``: same tech, at least its speed and width."""
    return mode.tech == rate.tech and mode.speed_rank >= rate.speed_rank and mode.width >= rate.width


#: Largest parts file read (the bundled catalog is tens of KB).
MAX_PARTS_BYTES = 16 << 20


def _sort_key(p: Part) -> tuple[int, str]:
    return (PART_KINDS.index(p.kind), p.id)


def _parts_from_text(text: str, label: str) -> list[Part]:
    """Parse one catalog document; errors read ``label: parts[3].ports: ...``."""
    doc = parse_json(text, label, CatalogError)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise CatalogError(f"{label}: format: not a {FORMAT} file")
    if doc.get("version") != VERSION:
        raise CatalogError(f"{label}: version: unsupported version {doc.get('version')!r} (reads {VERSION})")
    if not isinstance(doc.get("parts"), list):
        raise CatalogError(f"{label}: parts: must be a list of part objects")
    out = [Part.from_dict(d, f"{label}: parts[{i}]") for i, d in enumerate(doc["parts"])]
    ids = [p.id for p in out]
    for i, pid in enumerate(ids):
        if ids.index(pid) != i:
            raise CatalogError(f"{label}: parts[{i}].id: duplicate id {pid!r} (also parts[{ids.index(pid)}])")
    return out


@functools.lru_cache(maxsize=1)
def _bundled() -> tuple[Part, ...]:
    folder = asset_path("catalog")
    return tuple(p for e in sorted(folder.iterdir(), key=lambda e: e.name) if e.name.endswith(".json")
                 for p in _parts_from_text(e.read_text(encoding="utf-8"), e.name))


_DEFAULTS: dict[Any, Catalog] = {}


class Catalog:
    """An immutable set of parts by id; ``Catalog.default()`` is bundled + user parts."""

    def __init__(self, parts: Iterable[Part]) -> None:
        self._parts: dict[str, Part] = {}
        for p in parts:
            if p.id in self._parts:
                raise CatalogError(f"duplicate part id {p.id!r}")
            self._parts[p.id] = p
        for p in self._parts.values():
            check_part_limits(p, p.id)
            for key, kind in (("gpu_part", "gpu"), ("nic_part", "nic")) if p.kind == "server" else ():
                ref = getattr(p, key)
                if ref is not None and (ref not in self._parts or self._parts[ref].kind != kind):
                    raise CatalogError(f"{p.id}.{key}: {ref!r} is not a {kind} part in the catalog")

    @staticmethod
    def user_parts_path() -> Path:
        """``$FABRICVIZ_PARTS`` if set, else ``~/.config/fabricviz/parts.json``."""
        env = os.environ.get("FABRICVIZ_PARTS")
        return Path(env).expanduser() if env else Path.home() / ".config" / "fabricviz" / "parts.json"

    @classmethod
    def default(cls) -> Catalog:
        """Bundled parts plus the user's parts file if it exists; cached per file state."""
        path = cls.user_parts_path()
        st = path.stat() if path.exists() else None     # a folder, FIFO or device: load_file refuses it
        key = (str(path), st.st_mtime_ns, st.st_size) if st else None
        if key not in _DEFAULTS:
            try:
                base = Catalog(_bundled())
                _DEFAULTS[key] = base if key is None else base.with_parts(cls.load_file(path))
            except CatalogError as e:
                if key is None or str(e).startswith(str(path)):
                    raise
                raise CatalogError(f"{path}: {e}") from None
        return _DEFAULTS[key]

    @staticmethod
    def load_file(path: str | os.PathLike[str]) -> list[Part]:
        """The parts of one catalog file; errors read ``path: parts[3].ports: message``."""
        p = Path(path)
        data = read_input(p, MAX_PARTS_BYTES, "a parts file", CatalogError)
        return _parts_from_text(decode_utf8(data, str(p), CatalogError), str(p))

    @staticmethod
    def save_user_parts(path: str | os.PathLike[str], parts: Iterable[Part]) -> None:
        """Write ``parts`` as a catalog file atomically (:mod:`fabricviz.model.atomic`);
        CatalogError ``path: cannot save: why`` if it cannot be written (the old file stays)."""
        from .atomic import write_atomic
        p = Path(path)
        doc = {"format": FORMAT, "version": VERSION,
               "parts": [x.to_dict() for x in sorted(parts, key=_sort_key)]}
        text = json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise CatalogError(f"{p}: cannot save: {e.strerror or e}") from None
        try:
            write_atomic(p, text)
        except FabricError as e:
            raise CatalogError(str(e)) from None

    def get(self, part_id: str) -> Part:
        """The part with this id; ``CatalogError("unknown part 'X'")`` if none."""
        if not isinstance(part_id, str) or part_id not in self._parts:
            raise CatalogError(f"unknown part {part_id!r}")
        return self._parts[part_id]

    def __contains__(self, item: object) -> bool:
        key = item.id if isinstance(item, Part) else item
        return isinstance(key, str) and key in self._parts

    def __iter__(self) -> Iterator[Part]:
        """Parts sorted by kind (in PART_KINDS order), then id."""
        return iter(sorted(self._parts.values(), key=_sort_key))

    def __len__(self) -> int:
        return len(self._parts)

    def by_kind(self, kind: str) -> list[Part]:
        """Parts of one kind, sorted by id."""
        if kind not in PART_KINDS:
            raise CatalogError(f"unknown part kind {kind!r} (use {', '.join(PART_KINDS)})")
        return [p for p in self if p.kind == kind]

    def with_parts(self, parts: Iterable[Part]) -> Catalog:
        """A new catalog with ``parts`` as user parts (a same id overrides); self is unchanged."""
        new: dict[str, Part] = {}
        for p in parts:
            if p.id in new:
                raise CatalogError(f"duplicate part id {p.id!r}")
            new[p.id] = p if p.user else replace(p, user=True)
        return Catalog([p for p in self._parts.values() if p.id not in new] + list(new.values()))

    def user_parts(self) -> list[Part]:
        """The user's parts (from the parts file or with_parts), sorted."""
        return [p for p in self if p.user]

    def cable_for(self, rate: LinkRate | str, length_m: float) -> Part:
        """The cable for a ``rate`` link of ``length_m``: same tech, rated at least ``rate``,
        reaching ``length_m``; closest generation first, then DAC, AOC, transceiver, then price."""
        rate = _rate(rate, "rate")
        if not _number(length_m) or length_m < 0:
            raise CatalogError(f"cable length must be a non-negative number of metres, got {length_m!r}")
        cables = [(c, c.rate) for c in self.by_kind("cable")]
        speed = {c.id: r.speed_rank for c, r in cables if r is not None}   # a cable part always has a rate
        rated = [c for c, r in cables if r is not None and _fits(r, rate) and not c.breakout]   # per link only
        if not rated:
            raise CatalogError(f"no cable in the catalog is rated for {rate}")
        fits = [c for c in rated if c.reach_m >= length_m - 1e-9]
        if not fits:
            longest = max(rated, key=lambda c: (-speed[c.id], c.reach_m, c.id))
            raise CatalogError(f"no {tech_name(rate.tech)} cable for {rate} reaches {length_m:g} m "
                               f"(longest: {longest.id}, {longest.reach_m:g} m)")
        return min(fits, key=lambda c: (speed[c.id] - rate.speed_rank,
                                        CABLE_TYPES.index(c.cable_type), c.price_usd, c.id))

    def default_switch(self, tech: str, rate: LinkRate | str) -> Part:
        """The switch whose native port is ``rate``: most ports, then cheapest."""
        rate = _rate(rate, "rate")
        if rate.tech != tech:
            raise CatalogError(f"{rate} is not a {tech!r} rate (use ib or eth to match it)")
        kind = "ib_switch" if tech == IB else "eth_switch"
        cands = [p for p in self.by_kind(kind) if p.rate == rate]
        if not cands:
            raise CatalogError(f"no {kind.replace('_', ' ')} in the catalog has {rate} ports")
        return min(cands, key=lambda p: (-p.ports, p.price_usd, p.id))

    def default_nic(self, rate: LinkRate | str) -> Part:
        """The NIC for ``rate``: one listing it as a mode (as default first), else the closest faster one."""
        return self._pick([(p, p.modes) for p in self.by_kind("nic")], rate, "NIC")

    def default_host(self, rate: LinkRate | str) -> Part:
        """The generic 1-GPU node whose NIC runs ``rate`` (same order as default_nic)."""
        cands = [(p, self.get(p.nic_part).modes) for p in self.by_kind("server")
                 if p.gpus == 1 and p.nic_part is not None]
        return self._pick(cands, rate, "1-GPU node")

    def dgx(self, rate: LinkRate | str, gpu: str | None = None) -> Part:
        """The 8-GPU (DGX) server whose NICs run ``rate``, cheapest first; ``gpu`` narrows it.

        NVIDIA's own systems (vendor ``NVIDIA``) come before OEM servers on an HGX board when
        both run ``rate``; rack-scale systems and their trays (not 8 GPUs) are never picked."""
        cands = [(p, self.get(p.nic_part).modes) for p in self.by_kind("server")
                 if p.gpus == 8 and p.nic_part is not None and (gpu is None or p.gpu_part == gpu)]
        own = [c for c in cands if c[0].vendor == "NVIDIA"]
        cands = own if any(_fits_any(m, rate) for _, m in own) else cands
        return self._pick(cands, rate, "DGX server" + (f" with {gpu}" if gpu else ""))

    @staticmethod
    def _pick(cands: list[tuple[Part, tuple[LinkRate, ...]]], rate: LinkRate | str, what: str) -> Part:
        rate = _rate(rate, "rate")
        g = {p.id: [x.speed_rank - rate.speed_rank for x in m if _fits(x, rate)] for p, m in cands}
        best = [(rate not in m, m[0] != rate, min(g[p.id]), p.price_usd, p.id, p) for p, m in cands if g[p.id]]
        if not best:
            raise CatalogError(f"no {what} in the catalog runs at {rate}")
        return min(best, key=lambda r: r[:5])[-1]
