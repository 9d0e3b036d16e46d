"""NVLink domains: the GPUs that reach each other over NVLink switches, as typed device groups.

An **NVLink domain** is a DGX/HGX's NVSwitch baseboard (8 GPUs, the server is the domain) or a
rack of compute trays on NVLink switch trays (a GB200/GB300 NVL72: 18 trays of 4 GPUs, 9 switch
trays of 2 chips). Its part, an :class:`NvlinkSpec` (``assets/nvlink/domains.json``, each with
its ``source``), says how many links each GPU has to the switch chips and at what rate.

Where a design's domains come from (:func:`nvlink_domains`):

* ``meta["nvlink_domains"]``: ``[{"name": "rack01", "spec": "GB200-NVL72", "servers": [NAME, …]}]``
  — a rack's compute trays (servers) by name, in tray order; its GPUs are the trays' GPUs in
  that order (tray 0's GPU 0..3, tray 1's, …);
* every other server whose part a spec lists in ``servers`` (a DGX H100 is an ``HGX-H100-8``);
* a server whose GPU part still carries the old single ``nvlink_gbps`` figure (a user's parts
  file, designs saved before the domains) gets a one-link domain at that rate: old designs load
  and run as before.

An **NVLink partition** (``meta["nvlink_partitions"]``: ``[{"domain": NAME, "gpus": [i, …]}]``,
GPU indexes inside the domain) is a subset of a domain's GPUs that NVLink joins; once a domain
has partitions, GPUs of different partitions (or of none) reach each other over their NICs only.
Both settings are plain JSON in ``meta`` and saved as they are.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..resources import asset_path
from .errors import FabricError
from .kinds import GPU, KIND_CODE, SERVER

DOMAINS_KEY = "nvlink_domains"
PARTITIONS_KEY = "nvlink_partitions"
FORMAT = "fabricviz-nvlink-domains"
_INTS = ("generation", "gpus", "gpus_per_tray", "compute_trays", "switch_trays", "chips_per_switch_tray",
         "links_per_gpu")


@dataclass(frozen=True)
class NvlinkSpec:
    """One NVLink domain part: its GPUs, trays, switch chips and links (rates per direction)."""

    id: str
    name: str
    generation: int                  # NVLink generation (3: A100, 4: H100, 5: Blackwell; 0: unknown)
    gpus: int
    gpus_per_tray: int
    compute_trays: int
    switch_trays: int                # NVLink switch trays (a baseboard: 1)
    chips_per_switch_tray: int
    links_per_gpu: int
    link_gbytes: float               # one link, one direction, GB/s
    nvls: bool = False               # the switch chips reduce in the switch (NVLink SHARP)
    servers: tuple[str, ...] = ()    # server parts that are each one such domain (a DGX)
    tray_part: str | None = None     # the compute tray's server part (a rack domain)
    switch_tray_part: str | None = None   # the NVLink switch tray's catalog part (nvlink_switch)
    source: str = ""
    notes: str = ""

    @property
    def switch_chips(self) -> int:
        return self.switch_trays * self.chips_per_switch_tray

    @property
    def gpu_gbytes(self) -> float:
        """One GPU's NVLink bandwidth, one direction (GB/s): links × rate."""
        return self.links_per_gpu * self.link_gbytes

    @property
    def links(self) -> int:
        """GPU-to-switch NVLink links of the whole domain."""
        return self.gpus * self.links_per_gpu

    @property
    def rack(self) -> bool:
        """Several compute trays (servers) share the switch trays."""
        return self.compute_trays > 1

    def chip_links(self) -> np.ndarray:
        """Links from each GPU to each switch chip, (gpus, chips): spread evenly, the remainder to the
        outer chips first (H100: 5/4/4/5 over four chips; NVL72: one link to each of 18 chips)."""
        chips = max(self.switch_chips, 1)
        base, extra = divmod(self.links_per_gpu, chips)
        row = np.full(chips, base, np.int64)
        outer = [i for pair in zip(range(chips), range(chips - 1, -1, -1), strict=True) for i in pair]
        for i in list(dict.fromkeys(outer))[:extra]:
            row[i] += 1
        return np.tile(row, (self.gpus, 1))


def _spec(d: Any, where: str) -> NvlinkSpec:
    if not isinstance(d, dict) or not isinstance(d.get("id"), str) or not isinstance(d.get("name"), str):
        raise FabricError(f"{where}: an NVLink domain part needs an id and a name")
    kw: dict[str, Any] = {"id": d["id"], "name": d["name"]}
    for key in _INTS:
        v = d.get(key)
        if isinstance(v, bool) or not isinstance(v, int) or v < (0 if key == "generation" else 1):
            raise FabricError(f"{where}.{key}: a whole number{'' if key == 'generation' else ' above 0'}")
        kw[key] = v
    rate = d.get("link_gbytes")
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not rate > 0:
        raise FabricError(f"{where}.link_gbytes: a rate above 0 (GB/s per link, one direction)")
    kw["link_gbytes"] = float(rate)
    if kw["gpus"] != kw["gpus_per_tray"] * kw["compute_trays"]:
        raise FabricError(f"{where}.gpus: {kw['gpus']} is not gpus_per_tray × compute_trays")
    kw["nvls"] = bool(d.get("nvls", False))
    kw["servers"] = tuple(str(s) for s in d.get("servers", ()))
    kw["tray_part"] = d.get("tray_part")
    kw["switch_tray_part"] = d.get("switch_tray_part")
    kw["source"], kw["notes"] = str(d.get("source", "")), str(d.get("notes", ""))
    return NvlinkSpec(**kw)


@functools.lru_cache(maxsize=1)
def nvlink_specs() -> dict[str, NvlinkSpec]:
    """The bundled NVLink domain parts by id."""
    doc = json.loads(asset_path("nvlink", "domains.json").read_text(encoding="utf-8"))
    if doc.get("format") != FORMAT:
        raise FabricError(f"domains.json: format is not {FORMAT}")
    out = [_spec(d, f"domains.json: domains[{i}]") for i, d in enumerate(doc["domains"])]
    return {s.id: s for s in out}


def legacy_spec(gpu_part: str, nvlink_gbps: float, gpus: int) -> NvlinkSpec:
    """The one-link domain of a server whose GPU part has only the old ``nvlink_gbps`` figure."""
    return NvlinkSpec(f"nvlink_gbps:{gpu_part}", f"{gpus} × {gpu_part} at nvlink_gbps {nvlink_gbps:g}", 0,
                      gpus, gpus, 1, 1, 1, 1, nvlink_gbps / 8.0, source="the GPU part's nvlink_gbps")


@dataclass(frozen=True)
class NvlinkDomain:
    """One NVLink domain of a design: its part, its servers (trays) and GPUs by device id."""

    name: str
    spec: NvlinkSpec
    servers: np.ndarray              # device ids, tray order
    gpus: np.ndarray                 # device ids, domain GPU index order
    explicit: bool = False           # listed in meta (a rack), not implied by a server's part
    partitions: tuple[np.ndarray, ...] = field(default=(), compare=False)   # GPU indexes per partition

    @property
    def n_gpus(self) -> int:
        return len(self.gpus)


class _ServerGpus:
    """Every server's GPUs (ids in ``local`` order) from one sort of the GPU column, not one scan
    of the whole device table per server (27,648 servers: 0.6 s → a few ms)."""

    def __init__(self, fabric: Any) -> None:
        t = fabric.devices_t
        g = np.flatnonzero(t.alive & (t.kind == KIND_CODE[GPU]))
        order = np.lexsort((t.local[g], t.parent[g]))        # stable: ids ascending within a tie
        self.gpus = g[order].astype(np.int64)
        self.parent = np.asarray(t.parent[self.gpus], np.int64)

    def bounds(self, sids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (np.searchsorted(self.parent, sids, "left"), np.searchsorted(self.parent, sids, "right"))

    def of(self, sid: int) -> np.ndarray:
        lo, hi = self.bounds(np.array([sid], np.int64))
        return self.gpus[int(lo[0]):int(hi[0])]


def parse_domains(raw: Any) -> list[tuple[str, str, list[str]]]:
    """``meta["nvlink_domains"]`` as (name, spec id, server names); refused with the key named."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise FabricError('meta.nvlink_domains: expected a list of {"name", "spec", "servers"}')
    specs = nvlink_specs()
    out, seen = [], set()
    for i, d in enumerate(raw):
        where = f"meta.nvlink_domains[{i}]"
        if not isinstance(d, dict) or not isinstance(d.get("name"), str) or not d["name"]:
            raise FabricError(f"{where}.name: a domain needs a name")
        if d["name"] in seen:
            raise FabricError(f"{where}.name: {d['name']!r} is named twice")
        seen.add(d["name"])
        if d.get("spec") not in specs:
            raise FabricError(f"{where}.spec: {str(d.get('spec'))[:40]!r} is not an NVLink domain part "
                              f"({', '.join(specs)})")
        servers = d.get("servers")
        if not isinstance(servers, list) or not all(isinstance(s, str) for s in servers):
            raise FabricError(f"{where}.servers: a list of server names")
        out.append((d["name"], d["spec"], servers))
    return out


def _partitions(raw: Any, names: dict[str, int], sizes: list[int]) -> list[list[np.ndarray]]:
    out: list[list[np.ndarray]] = [[] for _ in sizes]
    if raw is None:
        return out
    if not isinstance(raw, list):
        raise FabricError('meta.nvlink_partitions: expected a list of {"domain": NAME, "gpus": [i, …]}')
    for i, p in enumerate(raw):
        where = f"meta.nvlink_partitions[{i}]"
        if not isinstance(p, dict) or p.get("domain") not in names:
            raise FabricError(f"{where}.domain: not an NVLink domain of the design")
        k = names[p["domain"]]
        gpus = p.get("gpus")
        if not isinstance(gpus, list) or not gpus or not all(
                isinstance(g, int) and not isinstance(g, bool) and 0 <= g < sizes[k] for g in gpus):
            raise FabricError(f"{where}.gpus: GPU indexes 0..{sizes[k] - 1} of domain {p['domain']!r}")
        taken = set().union(*(set(x.tolist()) for x in out[k])) if out[k] else set()
        if taken & set(gpus) or len(set(gpus)) != len(gpus):
            raise FabricError(f"{where}.gpus: a GPU is in two partitions")
        out[k].append(np.array(gpus, np.int64))
    return out


def nvlink_domains(fabric: Any) -> tuple[NvlinkDomain, ...]:
    """The design's NVLink domains (see the module doc), explicit ones first."""
    t = fabric.devices_t
    servers = np.flatnonzero(t.alive & (t.kind == KIND_CODE[SERVER]))
    specs = nvlink_specs()
    found: list[tuple[str, NvlinkSpec, np.ndarray, bool]] = []
    used: set[int] = set()
    for i, (name, spec_id, members) in enumerate(parse_domains(fabric.meta.get(DOMAINS_KEY))):
        spec = specs[spec_id]
        ids = []
        for j, m in enumerate(members):
            d = fabric.find(m)
            if d is None or int(t.kind[d]) != KIND_CODE[SERVER]:
                raise FabricError(f"meta.nvlink_domains[{i}].servers[{j}]: {m[:60]!r} is not a server")
            if d in used:
                raise FabricError(f"meta.nvlink_domains[{i}].servers[{j}]: {m[:60]!r} is in two domains")
            used.add(d)
            ids.append(d)
        found.append((name, spec, np.array(ids, np.int64), True))
    by_part = {p: s for s in specs.values() for p in s.servers}
    sg = _ServerGpus(fabric)
    lo, hi = sg.bounds(servers)
    # the per-server tests below only for servers that can be a domain: a spec's server part, or
    # two GPUs or more (a legacy domain); the order (server ids ascending) is kept
    code_spec = [by_part.get(pid) for pid in fabric.parts.ids]
    codes = np.asarray(t.part[servers], np.int64)
    spec_ok = np.array([c is not None for c in code_spec] + [False], bool)     # code -1: the last
    has_spec = spec_ok[np.where(codes >= 0, codes, len(code_spec))]
    maybe = has_spec | (hi - lo > 1)
    for sid, code, a, b in zip(servers[maybe].tolist(), codes[maybe].tolist(), lo[maybe].tolist(),
                               hi[maybe].tolist(), strict=True):
        if sid in used:
            continue
        found_spec = code_spec[code] if code >= 0 else None
        if found_spec is not None:
            spec = found_spec
        else:
            own = sg.gpus[a:b]
            part = fabric.part_of(int(own[0]))
            if part is None or not part.nvlink_gbps > 0:
                continue
            spec = legacy_spec(part.id, part.nvlink_gbps, len(own))
        found.append((fabric.name_of(sid), spec, np.array([sid], np.int64), False))
    gpus = [np.concatenate([sg.of(s) for s in ids.tolist()]) if len(ids) else np.zeros(0, np.int64)
            for _, _, ids, _ in found]
    index = {f[0]: k for k, f in enumerate(found)}
    parts = _partitions(fabric.meta.get(PARTITIONS_KEY), index, [len(g) for g in gpus])
    return tuple(NvlinkDomain(name, spec, ids, g, explicit, tuple(p))
                 for (name, spec, ids, explicit), g, p in zip(found, gpus, parts, strict=True))


@dataclass(frozen=True)
class NvlinkMap:
    """Per device id: the NVLink group a GPU is in (domain × partition; -1 none), its domain and its
    NVLink bandwidth per direction (GB/s at the part's line rate)."""

    group: np.ndarray
    domain: np.ndarray
    gbytes: np.ndarray
    domains: tuple[NvlinkDomain, ...]


def nvlink_map(fabric: Any) -> NvlinkMap:
    """Which GPUs reach each other over NVLink, and at what rate (see the module doc)."""
    n = fabric.devices_t.n
    group = np.full(n, -1, np.int64)
    domain = np.full(n, -1, np.int64)
    rate = np.zeros(n)
    doms = nvlink_domains(fabric)
    nxt = 0
    for k, d in enumerate(doms):
        domain[d.gpus] = k
        rate[d.gpus] = d.spec.gpu_gbytes
        if d.partitions:
            for p in d.partitions:
                group[d.gpus[p]] = nxt
                nxt += 1
        else:
            group[d.gpus] = nxt
            nxt += 1
    return NvlinkMap(group, domain, rate, doms)


def rack_meta(name: str, spec: str, servers: list[str]) -> dict[str, Any]:
    """One ``meta["nvlink_domains"]`` entry."""
    return {"name": name, "spec": spec, "servers": list(servers)}


#: Where a placed rack's trays go: a grid this many trays wide, at this pitch (scene units).
RACK_COLUMNS, TRAY_PITCH_X, TRAY_PITCH_Y = 6, 130.0, 90.0
#: The prefix that names an NVLink rack in the Parts dock and ``Editor.add_part`` (``nvlink:GB200-NVL72``).
PART_PREFIX = "nvlink:"


def next_rack_name(fabric: Any) -> str:
    """``rackN`` with the first N no domain and no device is named yet."""
    taken = {n for n, _, _ in parse_domains(fabric.meta.get(DOMAINS_KEY))}
    k = 1
    while f"rack{k}" in taken or fabric.find(f"rack{k}-ct01") is not None:
        k += 1
    return f"rack{k}"


def placed_rack(fabric: Any, spec_id: str, x: float, y: float) -> tuple[str, list[str], Any]:
    """What placing an NVLink rack of ``spec_id`` at (x, y) adds: its name, its trays' names and a
    function that adds the trays (a grid centred on (x, y)) to a fabric and returns their ids.
    Refused (FabricError) when the part has no compute tray part in the design's catalog."""
    spec = nvlink_specs().get(spec_id)
    if spec is None or not spec.rack or spec.tray_part is None or spec.tray_part not in fabric.catalog:
        raise FabricError(f"NVLink rack {spec_id[:40]!r}: not a rack part whose compute tray is in the catalog")
    name = next_rack_name(fabric)
    names = [f"{name}-ct{i + 1:02d}" for i in range(spec.compute_trays)]
    i = np.arange(spec.compute_trays)
    cols = min(RACK_COLUMNS, spec.compute_trays)
    rows = -(-spec.compute_trays // cols)
    xs = x + (i % cols - (cols - 1) / 2) * TRAY_PITCH_X
    ys = y + (i // cols - (rows - 1) / 2) * TRAY_PITCH_Y
    tray = spec.tray_part

    def add(f: Any) -> list[int]:
        return [int(d) for d in f.add_servers(tray, names, xs, ys)]
    return name, names, add


__all__ = ["DOMAINS_KEY", "PARTITIONS_KEY", "PART_PREFIX", "NvlinkDomain", "NvlinkMap", "NvlinkSpec", "legacy_spec",
           "next_rack_name", "nvlink_domains", "nvlink_map", "nvlink_specs", "parse_domains", "placed_rack",
           "rack_meta"]
